package market

import (
	"context"
	"sync"

	"github.com/ethereum/go-ethereum/common"
)

// tokenCache keeps token rows in memory for the hot read paths (quote, token, candles), fed by the
// indexer's syncs in the same process. A store read that raced with a sync is not cached: every
// entry is at least as new as the last sync that touched its token.
//
// It also keeps each token's snipers (the buyers of its first moments, which label its holders):
// a sync drops them only when it brings a trade of the token inside that window or reorganizes the
// token, so a busy token's snipers are read once, not once per holders page.
type tokenCache struct {
	mu   sync.RWMutex
	m    map[common.Address]*View // never changed once stored; Day is not kept: see Service.dayOf
	snip map[common.Address]sniperEntry
	gen  uint64 // bumped by every sync
	max  int
}

type sniperEntry struct {
	set map[common.Address]bool // never changed once stored
	end int64                   // the window's end: a trade at or before it may be a sniper's
}

func newTokenCache(max int) *tokenCache {
	return &tokenCache{m: make(map[common.Address]*View),
		snip: make(map[common.Address]sniperEntry), max: max}
}

// snipers returns the token's cached snipers, if any.
func (c *tokenCache) snipers(addr common.Address) (map[common.Address]bool, bool, uint64) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	e, ok := c.snip[addr]
	return e.set, ok, c.gen
}

// fillSnipers caches set, the snipers of a window ending at end, read from the store when the
// cache was at generation gen, on the same terms as fill.
func (c *tokenCache) fillSnipers(addr common.Address, set map[common.Address]bool, end int64, gen uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.gen == gen && len(c.snip) < c.max {
		c.snip[addr] = sniperEntry{set: set, end: end}
	}
}

func (c *tokenCache) get(addr common.Address) (*View, bool, uint64) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	v, ok := c.m[addr]
	return v, ok, c.gen
}

// fill caches t, read from the store when the cache was at generation gen, unless a sync has
// happened since (t might predate it) or the cache is full.
func (c *tokenCache) fill(v *View, gen uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.gen == gen && len(c.m) < c.max {
		c.m[v.Address] = v
	}
}

// observe applies a sync: launched and updated tokens replace their entries; reorganized tokens
// are dropped and read again from the store.
func (c *tokenCache) observe(s Sync) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen++
	if s.Rewound {
		clear(c.m)
		clear(c.snip)
	}
	for _, a := range s.Reorged {
		delete(c.m, a)
		delete(c.snip, a)
	}
	if s.Batch == nil {
		return
	}
	for i := range s.Batch.Trades {
		tr := &s.Batch.Trades[i]
		if e, ok := c.snip[tr.Token]; ok && tr.Time <= e.end {
			delete(c.snip, tr.Token)
		}
	}
	for _, list := range [][]Token{s.Batch.Launches, s.Batch.Updates} {
		for _, t := range list {
			if _, ok := c.m[t.Address]; ok || len(c.m) < c.max {
				v := viewOf(t)
				c.m[t.Address] = &v
			}
		}
	}
}

// Observe lets the service follow the indexer in the same process: pass it as (or call it from)
// IndexerConfig.OnSync. With ServiceConfig.CacheTokens, token reads are then served from memory;
// the counts of namesakes follow the syncs in any case, instead of checking the store's cursor
// at each read.
func (s *Service) Observe(sync Sync) {
	s.names.observe(sync)
	if s.cache != nil {
		s.cache.observe(sync)
	}
	s.memo.observe()
}

// token reads one token, from the cache when there is one.
func (s *Service) token(ctx context.Context, addr common.Address) (Token, error) {
	v, err := s.tokenView(ctx, addr)
	if err != nil {
		return Token{}, err
	}
	return v.Token, nil
}

// tokenView reads one token with its derived values (no Day), from the cache when there is one.
// The view may be the cache's: read it, never change it.
func (s *Service) tokenView(ctx context.Context, addr common.Address) (*View, error) {
	var gen uint64
	if s.cache != nil {
		v, ok, g := s.cache.get(addr)
		if ok {
			return v, nil
		}
		gen = g
	}
	t, err := s.cfg.Store.Token(ctx, addr)
	if err != nil {
		return nil, err
	}
	v := viewOf(t)
	if s.cache != nil {
		s.cache.fill(&v, gen)
	}
	return &v, nil
}
