package ratelimit_test

import (
	"context"
	"os"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/curvekit/curvekit/adapters/ratelimit"
	"github.com/curvekit/curvekit/auth"
)

// benchKeys are 10,000 distinct keys shaped like the middleware's (class:subject).
var benchKeys = func() []string {
	keys := make([]string, 10_000)
	for i := range keys {
		keys[i] = auth.ClassDefault.Key("203.0.113." + strconv.Itoa(i))
	}
	return keys
}()

// BenchmarkMemoryAllow is one call on an existing key with the real clock, one goroutine.
func BenchmarkMemoryAllow(b *testing.B) {
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		lim  auth.Limit
	}{
		{"allowed", auth.PerSecond(1 << 30)},
		{"denied", auth.PerHour(1)},
	} {
		b.Run(tc.name, func(b *testing.B) {
			m := newMemory(b, ratelimit.MemoryConfig{})
			for _, k := range benchKeys {
				if _, err := m.Allow(ctx, k, tc.lim); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := m.Allow(ctx, benchKeys[i%len(benchKeys)], tc.lim); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkMemoryAllowParallel compares one mutex with sharded maps under RunParallel (GOMAXPROCS
// goroutines), over many keys and on a single hot key.
func BenchmarkMemoryAllowParallel(b *testing.B) {
	ctx := context.Background()
	lim := auth.PerSecond(1 << 30)
	for _, shards := range []int{1, 16, 64} {
		for _, spread := range []string{"10k-keys", "one-key"} {
			b.Run("shards="+strconv.Itoa(shards)+"/"+spread, func(b *testing.B) {
				m := newMemory(b, ratelimit.MemoryConfig{Shards: shards})
				var next atomic.Uint64
				b.ReportAllocs()
				b.ResetTimer()
				b.RunParallel(func(pb *testing.PB) {
					i := int(next.Add(7919))
					for pb.Next() {
						k := benchKeys[0]
						if spread != "one-key" {
							k = benchKeys[i%len(benchKeys)]
							i++
						}
						if _, err := m.Allow(ctx, k, lim); err != nil {
							b.Error(err)
							return
						}
					}
				})
			})
		}
	}
}

// BenchmarkMemoryNewKeys is key churn at the MaxKeys bound: every call brings a new key and every
// key stays live, so each insert evicts.
func BenchmarkMemoryNewKeys(b *testing.B) {
	ctx := context.Background()
	clock := newFakeClock()
	m := newMemory(b, ratelimit.MemoryConfig{Now: clock.Now, MaxKeys: 1 << 14})
	keys := make([]string, 1<<16)
	for i := range keys {
		keys[i] = "k" + strconv.Itoa(i)
	}
	lim := auth.PerHour(1)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := m.Allow(ctx, keys[i%len(keys)], lim); err != nil {
			b.Fatal(err)
		}
		if i%len(keys) == len(keys)-1 {
			clock.Advance(2 * time.Hour)
		}
	}
}

// BenchmarkRedisAllow is one round trip to the Redis of CURVEKIT_TEST_REDIS, for comparison.
func BenchmarkRedisAllow(b *testing.B) {
	addr := os.Getenv("CURVEKIT_TEST_REDIS")
	if addr == "" {
		b.Skip("CURVEKIT_TEST_REDIS is not set")
	}
	r, err := ratelimit.NewRedis(ratelimit.RedisConfig{Addr: addr, Prefix: "curvekit-bench:" + strconv.FormatInt(time.Now().UnixNano(), 36) + ":"})
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	ctx := context.Background()
	lim := auth.PerSecond(1 << 30)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := r.Allow(ctx, benchKeys[i%len(benchKeys)], lim); err != nil {
			b.Fatal(err)
		}
	}
}
