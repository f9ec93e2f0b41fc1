// Package limitertest is the conformance suite of auth.Limiter. Every limiter runs it: adapters/
// ratelimit runs it on Memory always and on Redis when CURVEKIT_TEST_REDIS is set.
//
// The suite asks what a limiter supports, never which one it is. Time-dependent checks move a
// Clock when the limiter under test has one and otherwise wait on the wall clock; the limits they
// use have one-second intervals so that the waits stay short and the burst checks do not depend on
// the test machine's speed.
package limitertest

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/curvekit/curvekit"
	"github.com/curvekit/curvekit/auth"
)

// Clock is an optional capability of the limiter that newLimiter returns (typically a test wrapper
// around a limiter built with a fake clock): Advance moves its clock forward.
type Clock interface {
	Advance(d time.Duration)
}

// Run runs the suite. newLimiter returns a limiter for one subtest; limiters from different calls
// may share a backend, so keys are made unique per subtest, but the backend must not hold state
// from an earlier run under them (give each run its own key prefix).
func Run(t *testing.T, newLimiter func(t *testing.T) auth.Limiter) {
	tests := []struct {
		name string
		fn   func(*testing.T, auth.Limiter)
	}{
		{"FreshKey", testFreshKey},
		{"BurstThenSteadyRate", testBurstThenSteadyRate},
		{"BurstAboveRate", testBurstAboveRate},
		{"DeniedCallsDoNotConsume", testDeniedCallsDoNotConsume},
		{"KeysAreIndependent", testKeysAreIndependent},
		{"ConcurrentCallsAdmitExactlyTheBurst", testConcurrent},
		{"InvalidLimit", testInvalidLimit},
		{"DoneContext", testDoneContext},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tt.fn(t, newLimiter(t))
		})
	}
}

// key returns a key unique to the running subtest.
func key(t *testing.T, name string) string { return t.Name() + "/" + name }

func allow(t *testing.T, l auth.Limiter, key string, lim auth.Limit) auth.Decision {
	t.Helper()
	d, err := l.Allow(context.Background(), key, lim)
	if err != nil {
		t.Fatalf("Allow(%q, %v): %v", key, lim, err)
	}
	return d
}

// wait lets d pass, plus a margin that is small next to the one-second intervals used here.
func wait(l auth.Limiter, d time.Duration) {
	if c, ok := l.(Clock); ok {
		c.Advance(d + time.Millisecond)
		return
	}
	time.Sleep(d + 20*time.Millisecond)
}

func testFreshKey(t *testing.T, l auth.Limiter) {
	lim := auth.PerMinute(30)
	d := allow(t, l, key(t, "k"), lim)
	want := auth.Decision{Allowed: true, Remaining: 29, ResetAfter: 2 * time.Second}
	if d != want {
		t.Fatalf("first call: %+v, want %+v", d, want)
	}
}

// A limit admits its burst at once, then one call per interval; it is not a fixed window.
func testBurstThenSteadyRate(t *testing.T, l auth.Limiter) {
	lim := auth.Every(4, 4*time.Second) // interval 1 s
	k := key(t, "k")
	for i := range lim.Burst {
		d := allow(t, l, k, lim)
		if !d.Allowed || d.Remaining != lim.Burst-1-i || d.RetryAfter != 0 {
			t.Fatalf("burst call %d: %+v, want allowed with %d remaining", i, d, lim.Burst-1-i)
		}
	}
	for round := range 2 {
		d := allow(t, l, k, lim)
		if d.Allowed || d.Remaining != 0 {
			t.Fatalf("round %d: call past the burst: %+v, want denied", round, d)
		}
		if d.RetryAfter <= 0 || d.RetryAfter > lim.Interval() {
			t.Fatalf("round %d: RetryAfter %v, want in (0, %v]", round, d.RetryAfter, lim.Interval())
		}
		if d.ResetAfter <= lim.Period-lim.Interval() || d.ResetAfter > lim.Period {
			t.Fatalf("round %d: ResetAfter %v, want in (%v, %v]", round, d.ResetAfter, lim.Period-lim.Interval(), lim.Period)
		}
		wait(l, d.RetryAfter)
		if d := allow(t, l, k, lim); !d.Allowed || d.Remaining != 0 {
			t.Fatalf("round %d: call after RetryAfter: %+v, want allowed with 0 remaining", round, d)
		}
	}
	if d := allow(t, l, k, lim); d.Allowed {
		t.Fatalf("second call within one interval: %+v, want denied", d)
	}
}

func testBurstAboveRate(t *testing.T, l auth.Limiter) {
	lim := auth.Limit{Rate: 1, Burst: 3, Period: time.Hour}
	k := key(t, "k")
	for i := range 3 {
		if d := allow(t, l, k, lim); !d.Allowed {
			t.Fatalf("call %d of a burst of 3: %+v", i, d)
		}
	}
	d := allow(t, l, k, lim)
	if d.Allowed {
		t.Fatalf("fourth call: %+v, want denied", d)
	}
	if d.ResetAfter <= 2*time.Hour || d.ResetAfter > 3*time.Hour {
		t.Fatalf("ResetAfter %v, want about 3h (three intervals of 1h)", d.ResetAfter)
	}
}

// Retrying while throttled must not push the caller further back.
func testDeniedCallsDoNotConsume(t *testing.T, l auth.Limiter) {
	lim := auth.Every(2, 2*time.Second) // interval 1 s
	k := key(t, "k")
	allow(t, l, k, lim)
	allow(t, l, k, lim)
	first := allow(t, l, k, lim)
	if first.Allowed {
		t.Fatalf("call past the burst: %+v", first)
	}
	prev := first
	for i := range 20 {
		d := allow(t, l, k, lim)
		if d.Allowed || d.Remaining != 0 {
			t.Fatalf("denied call %d: %+v", i, d)
		}
		// Time only moves forward, so both shrink or stay; a denied call that consumed would
		// push them up by an interval.
		if d.ResetAfter > prev.ResetAfter || d.RetryAfter > prev.RetryAfter {
			t.Fatalf("denied call %d moved the key back: %+v after %+v", i, d, prev)
		}
		prev = d
	}
	wait(l, first.RetryAfter)
	if d := allow(t, l, k, lim); !d.Allowed {
		t.Fatalf("after RetryAfter of the first denial: %+v, want allowed", d)
	}
	if d := allow(t, l, k, lim); d.Allowed {
		t.Fatalf("one interval admits one call; the second: %+v", d)
	}
}

func testKeysAreIndependent(t *testing.T, l auth.Limiter) {
	lim := auth.Every(2, time.Hour)
	a, b := key(t, "a"), key(t, "b")
	allow(t, l, a, lim)
	allow(t, l, a, lim)
	if d := allow(t, l, a, lim); d.Allowed {
		t.Fatalf("a past its burst: %+v", d)
	}
	for i := range 2 {
		if d := allow(t, l, b, lim); !d.Allowed || d.Remaining != 1-i {
			t.Fatalf("b call %d while a is throttled: %+v", i, d)
		}
	}
	if d := allow(t, l, b, lim); d.Allowed {
		t.Fatalf("b past its burst: %+v", d)
	}
	// Classes build keys so that they never share a bucket.
	if d := allow(t, l, auth.ClassSignIn.Key(a), lim); !d.Allowed {
		t.Fatalf("another class with the same subject: %+v", d)
	}
}

// The burst is admitted exactly once however the calls interleave.
func testConcurrent(t *testing.T, l auth.Limiter) {
	const calls, burst = 200, 37
	// One call per hour: no refill during the test. The interval is a whole number of seconds on
	// purpose: GCRA in redis_rate's arithmetic (double seconds since 2017, a 2^-24 s grid) is then
	// exact. With an interval such as 3600/37 s, rounding can cost a burst taken at one frozen
	// instant its last call; a real clock moves further than that error between two calls.
	lim := auth.Limit{Rate: burst, Burst: burst, Period: burst * time.Hour}
	k := key(t, "k")
	var (
		wg      sync.WaitGroup
		mu      sync.Mutex
		allowed int
		errs    []error
	)
	start := make(chan struct{})
	for range calls {
		wg.Go(func() {
			<-start
			d, err := l.Allow(context.Background(), k, lim)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				errs = append(errs, err)
			} else if d.Allowed {
				allowed++
			}
		})
	}
	close(start)
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	if allowed != burst {
		t.Fatalf("%d concurrent calls admitted %d, want exactly %d", calls, allowed, burst)
	}
}

func testInvalidLimit(t *testing.T, l auth.Limiter) {
	k := key(t, "k")
	for _, lim := range []auth.Limit{{}, {Rate: 1, Burst: 0, Period: time.Second}, {Rate: 1, Burst: 1}} {
		if _, err := l.Allow(context.Background(), k, lim); !errors.Is(err, curvekit.ErrInvalid) {
			t.Fatalf("Allow with %+v: %v, want ErrInvalid", lim, err)
		}
	}
	// Refused calls left no trace.
	if d := allow(t, l, k, auth.PerMinute(3)); !d.Allowed || d.Remaining != 2 {
		t.Fatalf("first valid call: %+v", d)
	}
}

func testDoneContext(t *testing.T, l auth.Limiter) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	k := key(t, "k")
	_, err := l.Allow(ctx, k, auth.PerMinute(3))
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Allow with a canceled context: %v, want context.Canceled", err)
	}
	if d := allow(t, l, k, auth.PerMinute(3)); d.Remaining != 2 {
		t.Fatalf("a canceled call consumed: %+v", d)
	}
}
