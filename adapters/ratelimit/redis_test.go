package ratelimit_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"math"
	"math/big"
	mrand "math/rand/v2"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/curvekit/curvekit"
	"github.com/curvekit/curvekit/adapters/ratelimit"
	"github.com/curvekit/curvekit/adapters/ratelimit/limitertest"
	"github.com/curvekit/curvekit/auth"
)

// redisAddr returns CURVEKIT_TEST_REDIS or skips the test.
func redisAddr(t *testing.T) string {
	t.Helper()
	addr := os.Getenv("CURVEKIT_TEST_REDIS")
	if addr == "" {
		t.Skip("CURVEKIT_TEST_REDIS is not set")
	}
	return addr
}

// uniquePrefix keeps runs apart: Redis keeps a TAT for up to a period after a run ends.
func uniquePrefix(t *testing.T) string {
	t.Helper()
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		t.Fatal(err)
	}
	return "curvekit-test:" + hex.EncodeToString(b[:]) + ":"
}

func newRedis(t *testing.T, cfg ratelimit.RedisConfig) *ratelimit.Redis {
	t.Helper()
	r, err := ratelimit.NewRedis(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := r.Close(); err != nil {
			t.Error(err)
		}
	})
	return r
}

func TestRedisConformance(t *testing.T) {
	t.Parallel()
	addr := redisAddr(t)
	limitertest.Run(t, func(t *testing.T) auth.Limiter {
		return newRedis(t, ratelimit.RedisConfig{Addr: addr, Prefix: uniquePrefix(t)})
	})
}

func TestRedisConfig(t *testing.T) {
	t.Parallel()
	client := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", MaxRetries: -1, DialerRetries: 1})
	defer client.Close()
	for _, cfg := range []ratelimit.RedisConfig{{}, {Client: client, Addr: "127.0.0.1:6379"}} {
		if _, err := ratelimit.NewRedis(cfg); !errors.Is(err, curvekit.ErrInvalid) {
			t.Errorf("NewRedis(%+v) = %v, want ErrInvalid", cfg, err)
		}
	}
	// A caller's client stays open after Close.
	r, err := ratelimit.NewRedis(ratelimit.RedisConfig{Client: client})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if err := client.Ping(context.Background()).Err(); errors.Is(err, redis.ErrClosed) {
		t.Fatal("Close closed the caller's client")
	}
}

// A Redis that is down is an error, which the caller turns into its class's fail mode.
func TestRedisDown(t *testing.T) {
	t.Parallel()
	r := newRedis(t, ratelimit.RedisConfig{Addr: "127.0.0.1:1"}) // nothing listens on port 1
	if _, err := r.Allow(context.Background(), "k", auth.PerMinute(1)); err == nil {
		t.Fatal("Allow against a closed port succeeded")
	}
}

// TestMemoryMatchesRedis replays one randomized sequence of calls on both limiters and requires
// identical decisions, field for field. Memory's clock is Redis's own: the script reads TIME
// inside Redis, and the instant it used is recovered exactly from its answer and the TAT it
// stored (now = TAT - ResetAfter, which lands on the script's 2^-24 s grid), then checked to lie
// between two TIME readings taken around the call.
func TestMemoryMatchesRedis(t *testing.T) {
	t.Parallel()
	addr := redisAddr(t)
	ctx := context.Background()
	client := redis.NewClient(&redis.Options{Addr: addr})
	t.Cleanup(func() { client.Close() })
	prefix := uniquePrefix(t)
	rl := newRedis(t, ratelimit.RedisConfig{Client: client, Prefix: prefix})

	var clock time.Time
	mem := newMemory(t, ratelimit.MemoryConfig{Now: func() time.Time { return clock }})

	// Short intervals so that the random pauses below refill partly; some are not exact in binary.
	limits := []auth.Limit{
		{Rate: 100, Burst: 5, Period: time.Second},            // 10 ms
		{Rate: 7, Burst: 2, Period: 50 * time.Millisecond},    // 7.142857… ms
		{Rate: 3, Burst: 10, Period: 30 * time.Millisecond},   // 10 ms, inexact
		{Rate: 37, Burst: 37, Period: 333 * time.Millisecond}, // 9 ms, inexact
		auth.Every(10, 15*time.Minute),                        // 90 s: only the burst matters
	}
	calls := 3000
	if testing.Short() {
		calls = 300
	}
	rng := mrand.New(mrand.NewPCG(uint64(time.Now().UnixNano()), 7))
	before := redisTime(t, client)
	allowed := 0
	for i := range calls {
		k := rng.IntN(len(limits))
		key, lim := strconv.Itoa(k), limits[k]
		got, err := rl.Allow(ctx, key, lim)
		if err != nil {
			t.Fatal(err)
		}
		pipe := client.Pipeline()
		tatCmd := pipe.Get(ctx, "rate:"+prefix+key)
		timeCmd := pipe.Time(ctx)
		if _, err := pipe.Exec(ctx); err != nil {
			t.Fatal(err)
		}
		after := timeCmd.Val()
		tat, err := strconv.ParseFloat(tatCmd.Val(), 64)
		if err != nil {
			t.Fatalf("call %d: stored TAT %q: %v", i, tatCmd.Val(), err)
		}
		clock = scriptClock(t, tat, got.ResetAfter)
		if clock.Before(before) || clock.After(after) {
			t.Fatalf("call %d: recovered script time %v outside [%v, %v]", i, clock, before, after)
		}
		want, err := mem.Allow(ctx, key, lim)
		if err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Fatalf("call %d (key %s, %v) at %v: redis %+v, memory %+v", i, key, lim, clock, got, want)
		}
		if got.Allowed {
			allowed++
		}
		before = after
		if rng.IntN(5) == 0 {
			time.Sleep(time.Duration(rng.IntN(12_000)) * time.Microsecond)
		}
	}
	t.Logf("%d calls, %d allowed, identical decisions", calls, allowed)
	if allowed == 0 || allowed == calls {
		t.Fatalf("%d of %d allowed: the sequence did not exercise both outcomes", allowed, calls)
	}
}

// redisTime reads TIME, which has microseconds.
func redisTime(t *testing.T, client *redis.Client) time.Time {
	t.Helper()
	now, err := client.Time(context.Background()).Result()
	if err != nil {
		t.Fatal(err)
	}
	return now
}

// scriptClock recovers the instant the script read from TIME: it computed ResetAfter as TAT - now
// in doubles, so TAT - ResetAfter rounds back to now; now is whole microseconds since 2017.
func scriptClock(t *testing.T, tat float64, resetAfter time.Duration) time.Time {
	t.Helper()
	now := tat - resetAfter.Seconds()
	const epoch = 1483228800
	us := int64(math.Round(now * 1e6))
	sec, usec := us/1e6, us%1e6
	if usec < 0 {
		sec, usec = sec-1, usec+1e6
	}
	clock := time.Unix(epoch+sec, usec*1000).UTC()
	// The instant must reproduce the script's double exactly, or the comparison would be unfair.
	if back := float64(sec) + float64(usec)/1e6; back != now {
		t.Fatalf("recovered script time %v does not reproduce %v (got %v); TAT %v, reset %v",
			clock, big.NewFloat(now), big.NewFloat(back), tat, resetAfter)
	}
	return clock
}
