package market

import (
	"context"
	"sync"

	"github.com/ethereum/go-ethereum/common"
)

// tokenCache keeps token rows in memory for the hot read paths (quote, token, candles), fed by the
// indexer's syncs in the same process. A store read that raced with a sync is not cached: every
// entry is at least as new as the last sync that touched its token.
type tokenCache struct {
	mu  sync.RWMutex
	m   map[common.Address]Token
	gen uint64 // bumped by every sync
	max int
}

func newTokenCache(max int) *tokenCache {
	return &tokenCache{m: make(map[common.Address]Token), max: max}
}

func (c *tokenCache) get(addr common.Address) (Token, bool, uint64) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	t, ok := c.m[addr]
	return t, ok, c.gen
}

// fill caches t, read from the store when the cache was at generation gen, unless a sync has
// happened since (t might predate it) or the cache is full.
func (c *tokenCache) fill(t Token, gen uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.gen == gen && len(c.m) < c.max {
		c.m[t.Address] = t
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
	}
	for _, a := range s.Reorged {
		delete(c.m, a)
	}
	if s.Batch == nil {
		return
	}
	for _, list := range [][]Token{s.Batch.Launches, s.Batch.Updates} {
		for _, t := range list {
			if _, ok := c.m[t.Address]; ok || len(c.m) < c.max {
				c.m[t.Address] = t
			}
		}
	}
}

// Observe lets the service follow the indexer in the same process: pass it as (or call it from)
// IndexerConfig.OnSync. With ServiceConfig.CacheTokens, token reads are then served from memory.
func (s *Service) Observe(sync Sync) {
	if s.cache != nil {
		s.cache.observe(sync)
	}
}

// token reads one token, from the cache when there is one.
func (s *Service) token(ctx context.Context, addr common.Address) (Token, error) {
	if s.cache == nil {
		return s.cfg.Store.Token(ctx, addr)
	}
	t, ok, gen := s.cache.get(addr)
	if ok {
		return t, nil
	}
	t, err := s.cfg.Store.Token(ctx, addr)
	if err != nil {
		return t, err
	}
	s.cache.fill(t, gen)
	return t, nil
}
