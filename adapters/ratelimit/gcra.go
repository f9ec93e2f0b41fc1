package ratelimit

import (
	"math"
	"strconv"
	"time"

	"github.com/curvekit/curvekit/auth"
)

// redisEpoch is 2017-01-01T00:00:00Z. redis_rate's script counts seconds from it so that a double
// keeps microseconds; Memory counts the same way to round exactly as the script does.
const redisEpoch = 1483228800

// clockSeconds converts t to the script's clock: whole microseconds (Redis TIME has no more)
// as seconds since redisEpoch, computed as (sec - epoch) + usec/1e6 like the script.
func clockSeconds(t time.Time) float64 {
	return float64(t.Unix()-redisEpoch) + float64(t.Nanosecond()/1000)/1e6
}

// verdict is the outcome of one gcra step in the script's units (seconds).
type verdict struct {
	allowed    bool
	remaining  int
	retryAfter float64 // seconds; meaningful when denied
	resetAfter float64 // seconds
	tat        float64 // the TAT to store
	store      bool    // whether to store tat (the script's SET)
}

// decision converts v to the port's type. It formats numbers, so Memory calls it outside its lock.
func (v verdict) decision() auth.Decision {
	d := auth.Decision{Allowed: v.allowed, Remaining: v.remaining, ResetAfter: luaDuration(v.resetAfter)}
	if !v.allowed {
		d.RetryAfter = luaDuration(v.retryAfter)
	}
	return d
}

// gcra is one call of cost 1 under l at time now, given the stored theoretical arrival time (TAT,
// 0 when the key has none). It mirrors redis_rate v10's allowN script line by line. The explicit
// float64 conversions stop the compiler from fusing a multiply and an add, which the script's
// interpreter never does and which would change the last bit on some architectures.
func gcra(tat, now float64, l auth.Limit) verdict {
	interval := l.Period.Seconds() / float64(l.Rate)
	increment := interval // cost 1
	burstOffset := float64(interval * float64(l.Burst))

	tat = max(tat, now)
	newTAT := float64(tat + increment)
	allowAt := float64(newTAT - burstOffset)
	diff := float64(now - allowAt)
	remaining := diff / interval
	if remaining < 0 {
		// Denied: nothing is stored, so retrying while throttled costs nothing.
		return verdict{retryAfter: -diff, resetAfter: tat - now}
	}
	resetAfter := float64(newTAT - now)
	return verdict{
		allowed:    true,
		remaining:  int(remaining), // Redis truncates a Lua number to an integer reply
		resetAfter: resetAfter,
		tat:        newTAT,
		store:      resetAfter > 0,
	}
}

// luaDuration converts seconds to a Duration the way redis_rate reads its script's replies: Lua 5.1
// prints a number with "%.14g", Go parses that text and multiplies by 1e9, truncating. Skipping
// the round trip would differ from Redis by a nanosecond now and then.
//
// Below 100 s the round trip moves a value by less than 0.0006 ns (14 digits of at most 1e2 s,
// and the products' rounding), so when the nanoseconds are not within 0.001 of a whole number
// both truncate alike and the text is skipped.
func luaDuration(sec float64) time.Duration {
	if sec > 0 && sec < 100 {
		ns := sec * float64(time.Second)
		if f := ns - math.Floor(ns); f > 1e-3 && f < 1-1e-3 {
			return time.Duration(ns)
		}
	}
	return luaDurationText(sec)
}

// luaDurationText is luaDuration through the text, as redis_rate reads it.
func luaDurationText(sec float64) time.Duration {
	var buf [32]byte
	b := strconv.AppendFloat(buf[:0], sec, 'g', 14, 64)
	f, err := strconv.ParseFloat(string(b), 64) // no allocation: the string does not escape
	if err != nil {
		f = sec // unreachable: AppendFloat's output always parses
	}
	return time.Duration(f * float64(time.Second))
}
