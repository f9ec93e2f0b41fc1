package markettest

import (
	"context"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/google/go-cmp/cmp"
	"github.com/holiman/uint256"

	"github.com/curvekit/curvekit"
	"github.com/curvekit/curvekit/market"
)

func holding(tok common.Address, holder common.Address, bal uint256.Int, block uint64) market.Holding {
	return market.Holding{Token: tok, Holder: holder, Balance: bal, Block: block}
}

// walkHolders follows a token's holder pages to the end.
func walkHolders(t *testing.T, s market.Store, q market.HolderQuery) []market.Holding {
	t.Helper()
	var all []market.Holding
	for pages := 0; ; pages++ {
		if pages > 1000 {
			t.Fatalf("walk %+v does not end", q)
		}
		page, err := s.Holders(context.Background(), q)
		if err != nil {
			t.Fatalf("Holders(%+v): %v", q, err)
		}
		if q.Limit > 0 && len(page.Holders) > q.Limit {
			t.Fatalf("Holders(%+v) returned %d holders, above the limit", q, len(page.Holders))
		}
		all = append(all, page.Holders...)
		if page.Next == "" {
			return all
		}
		if len(page.Holders) == 0 {
			t.Fatalf("Holders(%+v) returned an empty page with a next cursor", q)
		}
		q.Cursor = page.Next
	}
}

func summary(t *testing.T, s market.Store, tok common.Address) market.HolderSummary {
	t.Helper()
	sum, err := s.HolderSummary(context.Background(), tok)
	if err != nil {
		t.Fatalf("HolderSummary(%s): %v", tok, err)
	}
	return sum
}

// testHolders writes holdings batch by batch and reads them back: exact balances at the
// extremes, largest first with the address breaking ties, every page, the count of positive
// balances (kept when a batch is applied again), the top ten without curve and pool, the pairs a
// later block moved, and a rollback to the chain's balances.
func testHolders(t *testing.T, s market.Store) {
	ctx := context.Background()
	a, b := newToken(t, 0), newToken(t, 1)
	a.Pool = address(kindPool, 0)
	holder := func(n int) common.Address { return address(kindTrader, n) }
	supply := units(1_000_000_000)

	// Block 1001: a's curve gets the supply; twelve traders buy, two of them the same amount,
	// one of them the largest uint256 (the store must not care whether it adds up).
	first := &market.Batch{Cursor: market.Cursor{Block: 1001, Hash: hash(kindBlock, 1001)}, Launches: []market.Token{a, b}}
	first.Holdings = append(first.Holdings, holding(a.Address, a.Curve, supply, 1000), holding(b.Address, b.Curve, supply, 1000))
	for i := 1; i <= 12; i++ {
		first.Holdings = append(first.Holdings, holding(a.Address, holder(i), units(uint64(100*i)), 1001))
	}
	first.Holdings[2+4].Balance = units(300) // holder 5 ties holder 3
	first.Holdings = append(first.Holdings, holding(a.Address, holder(99), maxUint256(), 1001))
	apply(t, s, first)
	// Applied again after a crash: nothing changes, the count included.
	apply(t, s, first)

	all := walkHolders(t, s, market.HolderQuery{Token: a.Address, Limit: 5})
	var order []common.Address
	for _, h := range all {
		order = append(order, h.Holder)
	}
	three, five := holder(3), holder(5)
	if three.Cmp(five) > 0 {
		three, five = five, three
	}
	want := []common.Address{holder(99), a.Curve, holder(12), holder(11), holder(10), holder(9), holder(8), holder(7), holder(6), holder(4), three, five, holder(2), holder(1)}
	if diff := cmp.Diff(want, order); diff != "" {
		t.Fatalf("holders, largest first (-want +got):\n%s", diff)
	}
	if got := all[0].Balance; !got.Eq(ptr(maxUint256())) {
		t.Fatalf("the largest balance reads back as %s", got.Dec())
	}
	if all[2].Block != 1001 || !all[2].Balance.Eq(ptr(units(1200))) {
		t.Fatalf("holder 12 reads back as %+v", all[2])
	}
	if sum := summary(t, s, a.Address); sum.Holders != 14 {
		t.Fatalf("a has %d holders, want 14", sum.Holders)
	}

	// Block 1002: holder 99 sends everything away and leaves, holder 1 empties into the pool.
	apply(t, s, &market.Batch{Cursor: market.Cursor{Block: 1002, Hash: hash(kindBlock, 1002)}, Holdings: []market.Holding{
		holding(a.Address, holder(99), uint256.Int{}, 1002),
		holding(a.Address, holder(1), uint256.Int{}, 1002),
		holding(a.Address, a.Pool, units(100), 1002),
		holding(b.Address, holder(1), units(7), 1002),
	}})
	sum := summary(t, s, a.Address)
	// Top ten without curve and pool: holders 12 down to 4, then 3 or 5 (300 each).
	var top uint256.Int
	for _, n := range []uint64{1200, 1100, 1000, 900, 800, 700, 600, 400, 300, 300} {
		top.Add(&top, ptr(units(n)))
	}
	if sum.Holders != 13 || !sum.Top10.Eq(&top) {
		t.Fatalf("a after block 1002: %d holders, top ten %s; want 13 and %s", sum.Holders, sum.Top10.Dec(), top.Dec())
	}
	if n := len(walkHolders(t, s, market.HolderQuery{Token: a.Address})); n != 13 {
		t.Fatalf("a lists %d holders after two left, want 13", n)
	}
	bal, err := s.Balances(ctx, []market.HolderKey{{Token: a.Address, Holder: holder(99)}, {Token: a.Address, Holder: holder(2)}, {Token: b.Address, Holder: holder(2)}})
	if err != nil {
		t.Fatal(err)
	}
	wantBal := map[market.HolderKey]uint256.Int{{Token: a.Address, Holder: holder(99)}: {}, {Token: a.Address, Holder: holder(2)}: units(200)}
	if diff := cmp.Diff(wantBal, bal); diff != "" {
		t.Fatalf("Balances (-want +got):\n%s", diff)
	}

	// Block 1003 launches c and moves holder 2 of a.
	c := newToken(t, 2)
	c.LaunchBlock = 1003
	apply(t, s, &market.Batch{Cursor: market.Cursor{Block: 1003, Hash: hash(kindBlock, 1003)}, Launches: []market.Token{c}, Holdings: []market.Holding{
		holding(c.Address, c.Curve, supply, 1003),
		holding(a.Address, holder(2), units(250), 1003),
	}})
	changed, err := s.HoldersChanged(ctx, 1001)
	if err != nil {
		t.Fatal(err)
	}
	gotChanged := map[market.HolderKey]bool{}
	for _, k := range changed {
		gotChanged[k] = true
	}
	wantChanged := map[market.HolderKey]bool{
		{Token: a.Address, Holder: holder(99)}: true, {Token: a.Address, Holder: holder(1)}: true,
		{Token: a.Address, Holder: a.Pool}: true, {Token: b.Address, Holder: holder(1)}: true,
		{Token: a.Address, Holder: holder(2)}: true,
	}
	if diff := cmp.Diff(wantChanged, gotChanged); diff != "" {
		t.Fatalf("HoldersChanged after 1001 (-want +got):\n%s", diff)
	}

	// Roll back to 1001 with the chain's balances there: c and its holders go, a's and b's
	// holders are as after block 1001, and so are the counts.
	r := &market.Rollback{To: first.Cursor, Tokens: []market.Token{a, b}, Holdings: []market.Holding{
		holding(a.Address, holder(99), maxUint256(), 1001), holding(a.Address, holder(1), units(100), 1001),
		holding(a.Address, a.Pool, uint256.Int{}, 1001), holding(b.Address, holder(1), uint256.Int{}, 1001),
		holding(a.Address, holder(2), units(200), 1001),
	}}
	if err := s.Rollback(ctx, r); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(all, walkHolders(t, s, market.HolderQuery{Token: a.Address, Limit: 3})); diff != "" {
		t.Fatalf("a's holders after the rollback (-before +after):\n%s", diff)
	}
	if sum := summary(t, s, a.Address); sum.Holders != 14 {
		t.Fatalf("a has %d holders after the rollback, want 14", sum.Holders)
	}
	if sum := summary(t, s, b.Address); sum.Holders != 1 {
		t.Fatalf("b has %d holders after the rollback, want 1", sum.Holders)
	}
	_, err = s.Holders(ctx, market.HolderQuery{Token: c.Address})
	wantErr(t, "holders of a rolled back token", err, curvekit.ErrNotFound)

	// Unknown tokens, foreign and malformed cursors.
	_, err = s.HolderSummary(ctx, address(kindToken, 77))
	wantErr(t, "summary of an unknown token", err, curvekit.ErrNotFound)
	page, err := s.Tokens(ctx, market.TokenQuery{Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, cur := range []string{page.Next, "!!", "aDox"} {
		_, err = s.Holders(ctx, market.HolderQuery{Token: a.Address, Cursor: cur})
		wantErr(t, "holders with cursor "+cur, err, curvekit.ErrInvalid)
	}
	// A holding of a token that is not stored fails the batch.
	err = s.Apply(ctx, &market.Batch{Cursor: market.Cursor{Block: 1004, Hash: hash(kindBlock, 1004)}, Holdings: []market.Holding{holding(address(kindToken, 78), holder(1), units(1), 1004)}})
	wantErr(t, "holding of an unknown token", err, curvekit.ErrInvalid)
}
