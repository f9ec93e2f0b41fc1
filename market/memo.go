package market

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ethereum/go-ethereum/common"
)

// MemoTTL is how long a value derived from the store serves reads, at most, while no sync
// arrives: syncs come only with writes, and what a read derives may also depend on the clock (a
// day's window) or on writes Observe is not told of in detail (a batch of transfers alone).
const MemoTTL = time.Second

// memo keeps values derived from the store between two syncs of the indexer, for the reads that
// would otherwise ask the store the same at every request (a token's concentration). Every sync
// drops them all.
type memo struct {
	syncs atomic.Uint64 // bumped by every sync Observe sees

	mu   sync.RWMutex
	conc map[common.Address]memoEntry[Concentration]
}

type memoEntry[T any] struct {
	v   T
	gen uint64
	at  time.Time
}

// maxMemo bounds each memo's entries; a full one starts over.
const maxMemo = 10_000

func (m *memo) observe() {
	m.syncs.Add(1)
	m.mu.Lock()
	clear(m.conc)
	m.mu.Unlock()
}

// Syncs counts the syncs Observe has seen: a value derived from the store while it had one
// count holds until it changes (or MemoTTL passes). It stays 0 for a service without
// CacheTokens, whose reads go to the store every time.
func (s *Service) Syncs() uint64 { return s.memo.syncs.Load() }

// Memoizes reports whether the service follows the syncs (ServiceConfig.CacheTokens): only then
// may a value derived from the store be kept while Syncs stays the same.
func (s *Service) Memoizes() bool { return s.cache != nil }

// concentrationOf is concentration through the memo, for a service that follows the syncs.
func (s *Service) concentrationOf(ctx context.Context, t *Token) (Concentration, error) {
	if s.cache == nil {
		return s.concentration(ctx, t)
	}
	gen, now := s.memo.syncs.Load(), time.Now()
	s.memo.mu.RLock()
	e, ok := s.memo.conc[t.Address]
	s.memo.mu.RUnlock()
	if ok && e.gen == gen && now.Sub(e.at) < MemoTTL {
		return e.v, nil
	}
	c, err := s.concentration(ctx, t)
	if err != nil {
		return c, err
	}
	s.memo.mu.Lock()
	if s.memo.conc == nil || len(s.memo.conc) >= maxMemo {
		s.memo.conc = make(map[common.Address]memoEntry[Concentration])
	}
	if s.memo.syncs.Load() == gen {
		s.memo.conc[t.Address] = memoEntry[Concentration]{v: c, gen: gen, at: now}
	}
	s.memo.mu.Unlock()
	return c, nil
}
