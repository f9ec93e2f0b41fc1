package market

import (
	"context"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/holiman/uint256"

	"github.com/curvekit/curvekit/txbuild"
)

// countingStore serves one token and counts the reads.
type countingStore struct {
	Store
	tok   Token
	reads int
}

func (s *countingStore) Token(context.Context, common.Address) (Token, error) {
	s.reads++
	return s.tok, nil
}

func TestTokenCache(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	addr := common.HexToAddress("0x01")
	st := &countingStore{tok: Token{Address: addr, Symbol: "OLD"}}
	b, err := txbuild.New(txbuild.Config{ChainID: 1})
	if err != nil {
		t.Fatal(err)
	}
	svc, err := NewService(ServiceConfig{Store: st, Builder: b, CacheTokens: 10})
	if err != nil {
		t.Fatal(err)
	}
	read := func() string {
		t.Helper()
		tok, err := svc.token(ctx, addr)
		if err != nil {
			t.Fatal(err)
		}
		return tok.Symbol
	}
	if got := read(); got != "OLD" || st.reads != 1 {
		t.Fatalf("first read %q after %d store reads", got, st.reads)
	}
	if got := read(); got != "OLD" || st.reads != 1 {
		t.Fatalf("second read %q after %d store reads, want a cache hit", got, st.reads)
	}

	// A sync's update replaces the entry without a store read.
	upd := Token{Address: addr, Symbol: "NEW", LastTradeAt: 7}
	upd.State.VirtualQuote = *uint256.NewInt(5)
	svc.Observe(Sync{Batch: &Batch{Updates: []Token{upd}}})
	if got := read(); got != "NEW" || st.reads != 1 {
		t.Fatalf("after a sync %q with %d store reads", got, st.reads)
	}

	// A reorganization drops the entry: the next read goes to the store.
	st.tok.Symbol = "REORGED"
	svc.Observe(Sync{Reorged: []common.Address{addr}})
	if got := read(); got != "REORGED" || st.reads != 2 {
		t.Fatalf("after a reorg %q with %d store reads", got, st.reads)
	}

	// A store read that raced with a sync is not cached: it may predate what the sync wrote.
	other := common.HexToAddress("0x02")
	_, _, gen := svc.cache.get(other)
	svc.Observe(Sync{Batch: &Batch{}})
	svc.cache.fill(Token{Address: other}, gen)
	if _, ok, _ := svc.cache.get(other); ok {
		t.Fatal("a read from before a sync was cached")
	}
}
