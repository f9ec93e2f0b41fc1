package markettest

import (
	"context"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/google/go-cmp/cmp"

	"github.com/curvekit/curvekit"
	"github.com/curvekit/curvekit/market"
)

// testRollback writes three batches, rolls the last two back, and expects exactly the state after
// the first batch, with the given token state restored and LastTradeAt and the day's figures
// recomputed, the day's clock alone staying where the latest batch moved it.
func testRollback(t *testing.T, s market.Store) {
	ctx := context.Background()
	a, b := newToken(t, 0), newToken(t, 1) // launched at block 1000
	var seq tradeSeq
	first := &market.Batch{
		Cursor:   market.Cursor{Block: 1001, Hash: hash(kindBlock, 1001)},
		Launches: []market.Token{a, b},
		Trades:   []market.Trade{seq.trade(a.Address, 1001, 0, now-500, curvekit.Buy, units(1))},
		Updates:  []market.Token{traded(a, 1, now-500)},
	}
	apply(t, s, first)
	after1 := takeSnapshot(t, s, []common.Address{a.Address, b.Address})

	late := newToken(t, 40) // a launch in an orphaned block
	late.LaunchBlock = 1002
	apply(t, s, &market.Batch{
		Cursor:   market.Cursor{Block: 1002, Hash: hash(kindBlock, 1002)},
		Launches: []market.Token{late},
		Trades: []market.Trade{
			seq.trade(a.Address, 1002, 1, now-400, curvekit.Buy, units(2)),
			seq.trade(late.Address, 1002, 4, now-400, curvekit.Buy, units(1)),
		},
		Claims:  []market.FeeClaim{{Token: b.Address, Curve: b.Curve, Creator: b.Creator, Amount: units(1), Block: 1002, TxHash: hash(kindTx, 9001), Time: now - 400}},
		Updates: []market.Token{traded(a, 3, now-400), traded(late, 1, now-400)},
	})
	apply(t, s, &market.Batch{
		Cursor:  market.Cursor{Block: 1003, Hash: hash(kindBlock, 1003)},
		Trades:  []market.Trade{seq.trade(b.Address, 1003, 0, now-300, curvekit.Sell, units(1))},
		Updates: []market.Token{traded(b, 2, now-300)},
	})

	recent, err := s.RecentBlocks(ctx, 2)
	if err != nil {
		t.Fatal(err)
	}
	want := []market.Cursor{{Block: 1003, Hash: hash(kindBlock, 1003)}, {Block: 1002, Hash: hash(kindBlock, 1002)}}
	if diff := cmp.Diff(want, recent); diff != "" {
		t.Fatalf("RecentBlocks (-want +got):\n%s", diff)
	}
	touched, err := s.Touched(ctx, 1001)
	if err != nil {
		t.Fatal(err)
	}
	got := map[common.Address]bool{}
	for _, x := range touched {
		got[x] = true
	}
	if diff := cmp.Diff(map[common.Address]bool{a.Address: true, b.Address: true, late.Address: true}, got); diff != "" {
		t.Fatalf("Touched after 1001 (-want +got):\n%s", diff)
	}
	if _, err := s.RecentBlocks(ctx, 0); err == nil {
		t.Fatal("RecentBlocks(0) must fail")
	}

	// A rollback that states a token launched after the fork point is refused and changes nothing.
	bad := &market.Rollback{To: first.Cursor, Tokens: []market.Token{late}}
	wantErr(t, "rollback with a later launch", s.Rollback(ctx, bad), curvekit.ErrInvalid)

	// Roll back to block 1001 with the states the chain had there: a traded once, b untouched
	// (its LastTradeAt in the stored row is stale on purpose; the store recomputes it).
	staleB := traded(b, 0, now-1)
	rb := &market.Rollback{To: first.Cursor, Tokens: []market.Token{traded(a, 1, now-500), staleB}}
	if err := s.Rollback(ctx, rb); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(market.Removed{Launches: 1, Trades: 3, Claims: 1}, rb.Removed); diff != "" {
		t.Fatalf("what the rollback removed (-want +got):\n%s", diff)
	}
	snap := takeSnapshot(t, s, []common.Address{a.Address, b.Address})
	// The day's clock does not move back (Store.Day): the figures of the trades left are as of
	// the latest batch's time.
	if snap.Clock != now-300 {
		t.Fatalf("clock after rollback = %d, want %d", snap.Clock, now-300)
	}
	snap.Clock = after1.Clock
	if diff := cmp.Diff(after1, snap, cmpOpts...); diff != "" {
		t.Fatalf("after rollback (-after first batch +now):\n%s", diff)
	}
	wantErr(t, "token launched in an orphaned block", func() error { _, err := s.Token(ctx, late.Address); return err }(), curvekit.ErrNotFound)
	recent, err = s.RecentBlocks(ctx, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(recent) == 0 || recent[0] != first.Cursor {
		t.Fatalf("recent blocks after rollback: %+v", recent)
	}
	if touched, _ := s.Touched(ctx, 1001); len(touched) != 0 {
		t.Fatalf("touched after rollback: %v", touched)
	}
	// Indexing the new chain's blocks works from there.
	apply(t, s, &market.Batch{
		Cursor:  market.Cursor{Block: 1002, Hash: hash(kindBlock, 2002)},
		Trades:  []market.Trade{seq.trade(b.Address, 1002, 0, now-350, curvekit.Buy, units(5))},
		Updates: []market.Token{traded(b, 5, now-350)},
	})
	if cur, err := s.Cursor(ctx); err != nil || cur.Hash != hash(kindBlock, 2002) {
		t.Fatalf("cursor %+v, %v", cur, err)
	}
}
