package ratelimit

import (
	"context"
	"fmt"
	"hash/maphash"
	"math/bits"
	"sync"
	"time"

	"github.com/curvekit/curvekit"
	"github.com/curvekit/curvekit/auth"
)

var _ auth.Limiter = (*Memory)(nil)

// MemoryConfig configures NewMemory. The zero value is usable.
type MemoryConfig struct {
	// Now is the clock; time.Now when nil. Memory rounds it down to microseconds.
	Now func() time.Time
	// MaxKeys bounds the keys held (default 1<<20). Keys whose TAT has passed carry no state and are
	// dropped as new keys arrive. When only live keys remain, a new key evicts the live key closest to
	// expiry among a few sampled, the policy Redis calls volatile-ttl: that caller gets a fresh burst
	// a little early, and memory stays bounded whatever the key churn.
	MaxKeys int
	// Shards splits the keys over independently locked maps: a power of two, default 16. One shard
	// is one mutex; see BenchmarkMemoryAllowParallel for the difference.
	Shards int
}

const (
	defaultMaxKeys = 1 << 20
	defaultShards  = 16
	maxShards      = 1 << 12
	minSweep       = 64 // a shard below this many keys is never swept
	evictSamples   = 5  // keys sampled per eviction, as Redis samples for maxmemory
)

func (c *MemoryConfig) validate() error {
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.MaxKeys == 0 {
		c.MaxKeys = defaultMaxKeys
	}
	if c.Shards == 0 {
		c.Shards = defaultShards
	}
	switch {
	case c.Shards < 0 || c.Shards > maxShards || bits.OnesCount(uint(c.Shards)) != 1:
		return fmt.Errorf("%w: ratelimit: Shards %d, want a power of two up to %d", curvekit.ErrInvalid, c.Shards, maxShards)
	case c.MaxKeys < c.Shards:
		return fmt.Errorf("%w: ratelimit: MaxKeys %d, want at least Shards (%d)", curvekit.ErrInvalid, c.MaxKeys, c.Shards)
	}
	return nil
}

// Memory is an in-process GCRA limiter with redis_rate's math. It is safe for concurrent use.
type Memory struct {
	now      func() time.Time
	seed     maphash.Seed
	mask     uint64
	shardCap int
	shards   []shard
}

type shard struct {
	mu      sync.Mutex
	tats    map[string]float64 // key -> TAT in script seconds (see clockSeconds)
	sweepAt int                // drop passed TATs when a new key finds this many
	_       [40]byte           // keep neighbouring shards' locks off one cache line
}

// NewMemory returns an in-memory limiter.
func NewMemory(cfg MemoryConfig) (*Memory, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	m := &Memory{
		now:      cfg.Now,
		seed:     maphash.MakeSeed(),
		mask:     uint64(cfg.Shards - 1),
		shardCap: cfg.MaxKeys / cfg.Shards, // per shard, so the total never exceeds MaxKeys
		shards:   make([]shard, cfg.Shards),
	}
	for i := range m.shards {
		m.shards[i].tats = make(map[string]float64)
		m.shards[i].sweepAt = minSweep
	}
	return m, nil
}

// Allow implements auth.Limiter. It fails only for a done ctx or an invalid limit.
func (m *Memory) Allow(ctx context.Context, key string, l auth.Limit) (auth.Decision, error) {
	if err := ctx.Err(); err != nil {
		return auth.Decision{}, fmt.Errorf("ratelimit: %w", err)
	}
	if err := l.Validate(); err != nil {
		return auth.Decision{}, fmt.Errorf("ratelimit: %w", err)
	}
	s := &m.shards[0]
	if m.mask != 0 {
		s = &m.shards[maphash.String(m.seed, key)&m.mask]
	}
	s.mu.Lock()
	// Read the clock under the lock so that calls on one key see times in call order, as the
	// script does under Redis's single thread.
	now := clockSeconds(m.now())
	tat, held := s.tats[key]
	v := gcra(tat, now, l)
	if v.store {
		if !held {
			s.makeRoom(now, m.shardCap)
		}
		s.tats[key] = v.tat
	}
	s.mu.Unlock()
	return v.decision(), nil
}

// makeRoom runs before a new key goes in. Sweeps are amortized: the next one waits until the shard
// has doubled since the last, so a shard full of live keys is not rescanned on every insert.
func (s *shard) makeRoom(now float64, limit int) {
	if len(s.tats) >= s.sweepAt {
		for k, tat := range s.tats {
			if tat <= now {
				delete(s.tats, k)
			}
		}
		s.sweepAt = max(2*len(s.tats), minSweep)
	}
	for len(s.tats) >= limit {
		s.evictOne(now)
	}
}

// evictOne deletes the soonest-expiring of a few keys; map iteration starts at a random place.
func (s *shard) evictOne(now float64) {
	var victim string
	least, n := 0.0, 0
	for k, tat := range s.tats {
		if n == 0 || tat < least {
			victim, least = k, tat
		}
		if n++; n == evictSamples || tat <= now {
			break
		}
	}
	delete(s.tats, victim)
}

// Len returns the number of keys held, live or passed.
func (m *Memory) Len() int {
	n := 0
	for i := range m.shards {
		s := &m.shards[i]
		s.mu.Lock()
		n += len(s.tats)
		s.mu.Unlock()
	}
	return n
}
