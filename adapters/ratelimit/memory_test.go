package ratelimit_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/curvekit/curvekit"
	"github.com/curvekit/curvekit/adapters/ratelimit"
	"github.com/curvekit/curvekit/adapters/ratelimit/limitertest"
	"github.com/curvekit/curvekit/auth"
)

// fakeClock is a settable clock; it starts at an arbitrary instant with sub-microsecond noise so
// that the limiter's rounding to microseconds is exercised.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func newFakeClock() *fakeClock {
	return &fakeClock{now: time.Date(2026, 11, 22, 8, 0, 0, 123_456_789, time.UTC)}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// clocked is a Memory whose clock the conformance suite can move (limitertest.Clock).
type clocked struct {
	*ratelimit.Memory
	*fakeClock
}

func newMemory(t testing.TB, cfg ratelimit.MemoryConfig) *ratelimit.Memory {
	t.Helper()
	m, err := ratelimit.NewMemory(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestMemoryConformance(t *testing.T) {
	t.Parallel()
	limitertest.Run(t, func(t *testing.T) auth.Limiter {
		clock := newFakeClock()
		return clocked{newMemory(t, ratelimit.MemoryConfig{Now: clock.Now}), clock}
	})
}

// The suite's wall-clock path, which Redis takes, checked without needing Redis.
func TestMemoryConformanceWallClock(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("waits on the wall clock")
	}
	limitertest.Run(t, func(t *testing.T) auth.Limiter {
		return newMemory(t, ratelimit.MemoryConfig{Shards: 1})
	})
}

func TestMemoryConfig(t *testing.T) {
	t.Parallel()
	for _, cfg := range []ratelimit.MemoryConfig{
		{Shards: 3},
		{Shards: -1},
		{Shards: 1 << 13},
		{Shards: 16, MaxKeys: 8},
	} {
		if _, err := ratelimit.NewMemory(cfg); !errors.Is(err, curvekit.ErrInvalid) {
			t.Errorf("NewMemory(%+v) = %v, want ErrInvalid", cfg, err)
		}
	}
	for _, cfg := range []ratelimit.MemoryConfig{{}, {Shards: 1, MaxKeys: 1}, {Shards: 1 << 12}} {
		if _, err := ratelimit.NewMemory(cfg); err != nil {
			t.Errorf("NewMemory(%+v) = %v", cfg, err)
		}
	}
}

// Keys whose TAT has passed are dropped as new keys arrive, so churn does not grow memory.
func TestMemoryDropsPassedKeys(t *testing.T) {
	t.Parallel()
	clock := newFakeClock()
	m := newMemory(t, ratelimit.MemoryConfig{Now: clock.Now, Shards: 1})
	lim := auth.PerSecond(10) // a single call leaves a TAT 100 ms ahead
	ctx := context.Background()
	for i := range 100_000 {
		if _, err := m.Allow(ctx, fmt.Sprint("k", i), lim); err != nil {
			t.Fatal(err)
		}
		clock.Advance(time.Millisecond)
	}
	// At most ~100 keys are live at any time; sweeps leave at most twice the live set plus the
	// keys added since the last sweep.
	if n := m.Len(); n > 400 {
		t.Fatalf("%d keys held after 100,000 one-off keys, want a few hundred at most", n)
	}
}

// With only live keys, MaxKeys still holds, and eviction costs a caller at most an early reset.
func TestMemoryMaxKeys(t *testing.T) {
	t.Parallel()
	clock := newFakeClock()
	m := newMemory(t, ratelimit.MemoryConfig{Now: clock.Now, Shards: 4, MaxKeys: 1000})
	lim := auth.PerHour(1)
	ctx := context.Background()
	for i := range 10_000 {
		if _, err := m.Allow(ctx, fmt.Sprint("k", i), lim); err != nil {
			t.Fatal(err)
		}
		if i%997 == 0 {
			if n := m.Len(); n > 1000 {
				t.Fatalf("%d keys held, MaxKeys is 1000", n)
			}
		}
	}
	if n := m.Len(); n > 1000 || n < 900 {
		t.Fatalf("%d keys held, want close to MaxKeys 1000", n)
	}
}

// A key that is in use keeps its state while unrelated keys churn through the shard.
func TestMemoryKeepsHotKey(t *testing.T) {
	t.Parallel()
	clock := newFakeClock()
	m := newMemory(t, ratelimit.MemoryConfig{Now: clock.Now, Shards: 1, MaxKeys: 64})
	ctx := context.Background()
	hot := auth.Every(1, time.Hour)
	if d, _ := m.Allow(ctx, "hot", hot); !d.Allowed {
		t.Fatal("first call denied")
	}
	for i := range 10_000 {
		// Churn of short-lived keys: each expires within a millisecond.
		if _, err := m.Allow(ctx, fmt.Sprint("k", i), auth.PerSecond(1000)); err != nil {
			t.Fatal(err)
		}
		clock.Advance(time.Millisecond)
	}
	if d, _ := m.Allow(ctx, "hot", hot); d.Allowed {
		t.Fatalf("hot key lost its state to churn of passed keys: %+v", d)
	}
}
