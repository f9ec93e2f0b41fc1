package ratelimit

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"
)

func TestClockSeconds(t *testing.T) {
	t.Parallel()
	tests := []struct {
		t    time.Time
		want float64
	}{
		{time.Unix(redisEpoch, 0), 0},
		{time.Unix(redisEpoch+10, 999_999), 10.000999},             // nanoseconds below a microsecond drop
		{time.Unix(redisEpoch+10, 1_500_000), 10 + 1500.0/1e6},     // computed as the script does
		{time.Unix(redisEpoch-1, 250_000_000), -1 + 250_000.0/1e6}, // before 2017: still floor seconds
	}
	for _, tt := range tests {
		if got := clockSeconds(tt.t); got != tt.want {
			t.Errorf("clockSeconds(%v) = %.17g, want %.17g", tt.t, got, tt.want)
		}
	}
}

// luaDuration must match redis_rate reading "%.14g" text, not the exact double.
func TestLuaDuration(t *testing.T) {
	t.Parallel()
	tests := []struct {
		sec  float64
		want time.Duration
	}{
		{2, 2 * time.Second},
		{0.5, 500 * time.Millisecond},
		// "%.14g" prints 3599.000001967; the exact double times 1e9 truncates to ...966 ns.
		{3599.0000019669533, 3599000001967},
		{1.9999999403953552, 1999999940},
		{9.313225746154785e-10, 0},
	}
	for _, tt := range tests {
		if got := luaDuration(tt.sec); got != tt.want {
			t.Errorf("luaDuration(%.17g) = %d, want %d", tt.sec, got, tt.want)
		}
	}
}

// The shortcut below 100 s agrees with the text everywhere: random values, values a microsecond
// clock and whole-second windows produce, and values beside whole nanoseconds.
func TestLuaDurationShortcut(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(1, 2))
	check := func(sec float64) {
		if got, want := luaDuration(sec), luaDurationText(sec); got != want {
			t.Fatalf("luaDuration(%.17g) = %d, through the text %d", sec, got, want)
		}
	}
	for range 1_000_000 {
		check(r.Float64() * 100)
		// A GCRA reply: the TAT minus now, both on the script's microsecond clock.
		now := float64(r.Int64N(300_000_000_000_000)) / 1e6
		interval := 60.0 / float64(1+r.IntN(10_000))
		check(float64(now+interval*float64(1+r.IntN(600))) - now)
		// Beside a whole nanosecond.
		ns := float64(r.Int64N(100_000_000_000))
		check(math.Nextafter(ns, 0) / 1e9)
		check(math.Nextafter(ns, math.Inf(1)) / 1e9)
		check((ns + 0.001) / 1e9)
		check((ns + 0.999) / 1e9)
	}
}
