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
// would otherwise ask the store the same at every request (a token's concentration, its day).
// Every sync drops them all.
type memo struct {
	syncs atomic.Uint64 // bumped by every sync Observe sees

	mu   sync.RWMutex
	conc map[common.Address]memoEntry[Concentration]
	day  map[common.Address]memoEntry[Day]
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
	clear(m.day)
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
	return memoized(s, func(m *memo) *map[common.Address]memoEntry[Concentration] { return &m.conc }, t.Address,
		func() (Concentration, error) { return s.concentration(ctx, t) })
}

// dayOf is the token's Store.Day through the memo, for a service that follows the syncs. Every
// batch moves the store's clock, and with it the day of tokens it does not trade (their trades
// leave the window): no sync names them, so the memo's rule (until the next sync, MemoTTL at
// most) is what keeps the figures current, also when a batch that wrote nothing moved the clock.
func (s *Service) dayOf(ctx context.Context, addr common.Address) (Day, error) {
	return memoized(s, func(m *memo) *map[common.Address]memoEntry[Day] { return &m.day }, addr,
		func() (Day, error) { return s.cfg.Store.Day(ctx, addr) })
}

// memoized answers read for addr from the memo's map that at returns, or reads and keeps it
// unless a sync came meanwhile. A service that does not follow the syncs reads every time.
func memoized[T any](s *Service, at func(*memo) *map[common.Address]memoEntry[T], addr common.Address, read func() (T, error)) (T, error) {
	if s.cache == nil {
		return read()
	}
	gen, now := s.memo.syncs.Load(), time.Now()
	s.memo.mu.RLock()
	e, ok := (*at(&s.memo))[addr]
	s.memo.mu.RUnlock()
	if ok && e.gen == gen && now.Sub(e.at) < MemoTTL {
		return e.v, nil
	}
	v, err := read()
	if err != nil {
		return v, err
	}
	s.memo.mu.Lock()
	if m := at(&s.memo); *m == nil || len(*m) >= maxMemo {
		*m = make(map[common.Address]memoEntry[T])
	}
	if s.memo.syncs.Load() == gen {
		(*at(&s.memo))[addr] = memoEntry[T]{v: v, gen: gen, at: now}
	}
	s.memo.mu.Unlock()
	return v, nil
}
