package bunstore

import (
	"context"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/holiman/uint256"

	"github.com/curvekit/curvekit/market"
	"github.com/curvekit/curvekit/market/marketgen"
)

// A batch that moves more pairs than one statement of replaceHolders takes counts its holders
// across the statements: each pair from what it held before the batch, a pair listed twice by
// its last balance.
func TestHoldersAcrossChunks(t *testing.T) {
	ctx := context.Background()
	d := openPostgres(t, "bunstore_holders")
	s := d.Market()
	g, err := marketgen.New(marketgen.Shape{Tokens: 2, Trades: 10, End: time.Now().Unix(), Span: 3600, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	first := g.NextSpan(3600)
	if err := s.Apply(ctx, first); err != nil {
		t.Fatal(err)
	}
	if len(first.Launches) == 0 {
		t.Fatal("fixture: no launch")
	}
	token := first.Launches[0].Address
	count := func() int64 {
		t.Helper()
		var n int64
		if err := d.bun.NewRaw("SELECT holders FROM tokens WHERE address = ?", token).Scan(ctx, &n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	before := count()
	pairs := 2*holderChunk + 7
	holder := func(i int) common.Address { return common.BigToAddress(uint256.NewInt(uint64(0xbeef0000 + i)).ToBig()) }
	batch := func(block uint64, balance func(i int) uint64) *market.Batch {
		b := &market.Batch{Cursor: market.Cursor{Block: block}, Time: first.Time}
		for i := range pairs {
			b.Holdings = append(b.Holdings, market.Holding{Token: token, Holder: holder(i), Balance: *uint256.NewInt(balance(i)), Block: block})
		}
		// The first pair again, last: its last balance is the one kept and counted.
		b.Holdings = append(b.Holdings, market.Holding{Token: token, Holder: holder(0), Balance: *uint256.NewInt(0), Block: block})
		return b
	}
	next := first.Cursor.Block + 1
	if err := s.Apply(ctx, batch(next, func(i int) uint64 { return uint64(i%2 + 1) })); err != nil {
		t.Fatal(err)
	}
	if got, want := count(), before+int64(pairs-1); got != want {
		t.Fatalf("%d holders after %d new pairs (the first zeroed again), want %d", got, pairs, want)
	}
	// Every second pair emptied, the first given a balance: the counts move from the stored ones,
	// which lie in every statement.
	if err := s.Apply(ctx, batch(next+1, func(i int) uint64 { return uint64(i % 2) })); err != nil {
		t.Fatal(err)
	}
	if got, want := count(), before+int64(pairs/2); got != want {
		t.Fatalf("%d holders after emptying half, want %d", got, want)
	}
	var stored int
	if err := d.bun.NewRaw("SELECT count(*) FROM holders WHERE token = ? AND balance > 0 AND holder <> ?", token, first.Launches[0].Curve).Scan(ctx, &stored); err != nil {
		t.Fatal(err)
	}
	if int64(stored) < int64(pairs/2) {
		t.Fatalf("%d positive balances stored, want at least %d", stored, pairs/2)
	}
}
