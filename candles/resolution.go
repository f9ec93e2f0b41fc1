package candles

import (
	"fmt"
	"strconv"
)

// Resolution is the length of a bar in seconds. Only the six named values are valid.
type Resolution int64

// The six resolutions that the API serves.
const (
	Res1m  Resolution = 60
	Res5m  Resolution = 5 * 60
	Res15m Resolution = 15 * 60
	Res1h  Resolution = 60 * 60
	Res4h  Resolution = 4 * 60 * 60
	Res1d  Resolution = 24 * 60 * 60
)

// DefaultResolution is what the token stream uses when its res parameter is missing or unknown.
const DefaultResolution = Res5m

// Time bounds for trades, windows and Advance. They are far beyond any block timestamp and keep
// bucket arithmetic (a start plus a resolution, a difference of two starts) free of overflow.
const (
	MinTime int64 = -1 << 62
	MaxTime int64 = 1 << 62
)

var resolutions = [...]Resolution{Res1m, Res5m, Res15m, Res1h, Res4h, Res1d}

// Resolutions returns the six valid resolutions, shortest first.
func Resolutions() []Resolution {
	all := resolutions
	return all[:]
}

// ParseResolution parses the wire form: exactly one of "1m", "5m", "15m", "1h", "4h", "1d".
func ParseResolution(s string) (Resolution, error) {
	switch s {
	case "1m":
		return Res1m, nil
	case "5m":
		return Res5m, nil
	case "15m":
		return Res15m, nil
	case "1h":
		return Res1h, nil
	case "4h":
		return Res4h, nil
	case "1d":
		return Res1d, nil
	}
	return 0, fmt.Errorf("%w %q (want one of 1m, 5m, 15m, 1h, 4h, 1d)", ErrResolution, s)
}

// ParseResolutionOrDefault parses s and falls back to DefaultResolution (5m) for anything else,
// including the empty string. This is the token stream's rule; REST endpoints use ParseResolution
// and reject unknown values.
func ParseResolutionOrDefault(s string) Resolution {
	if r, err := ParseResolution(s); err == nil {
		return r
	}
	return DefaultResolution
}

// Valid reports whether r is one of the six resolutions.
func (r Resolution) Valid() bool {
	switch r {
	case Res1m, Res5m, Res15m, Res1h, Res4h, Res1d:
		return true
	}
	return false
}

// Seconds returns the bar length in seconds.
func (r Resolution) Seconds() int64 { return int64(r) }

// String returns the wire form ("5m"), or "Resolution(n)" for an invalid value.
func (r Resolution) String() string {
	switch r {
	case Res1m:
		return "1m"
	case Res5m:
		return "5m"
	case Res15m:
		return "15m"
	case Res1h:
		return "1h"
	case Res4h:
		return "4h"
	case Res1d:
		return "1d"
	}
	return "Resolution(" + strconv.FormatInt(int64(r), 10) + ")"
}

// MarshalText returns the wire form; an invalid resolution is an error.
func (r Resolution) MarshalText() ([]byte, error) {
	if !r.Valid() {
		return nil, fmt.Errorf("%w: %d seconds", ErrResolution, int64(r))
	}
	return []byte(r.String()), nil
}

// UnmarshalText parses the wire form strictly, like ParseResolution.
func (r *Resolution) UnmarshalText(text []byte) error {
	v, err := ParseResolution(string(text))
	if err != nil {
		return err
	}
	*r = v
	return nil
}

// Bucket returns the start of the bucket that holds ts: floor(ts/r)*r, rounding toward negative
// infinity for negative ts. ts must lie in [MinTime, MaxTime] and r must be positive.
func (r Resolution) Bucket(ts int64) int64 {
	s := int64(r)
	q := ts / s
	if ts%s < 0 {
		q--
	}
	return q * s
}
