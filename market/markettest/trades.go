package markettest

import (
	"github.com/curvekit/curvekit"

	"context"
	"slices"
	"sort"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/google/go-cmp/cmp"
	"github.com/holiman/uint256"

	"github.com/curvekit/curvekit/market"
)

// newestFirst orders trades as Trades does.
func newestFirst(trades []market.Trade) []market.Trade {
	out := append([]market.Trade(nil), trades...)
	sort.Slice(out, func(i, j int) bool {
		if out[i].Block != out[j].Block {
			return out[i].Block > out[j].Block
		}
		return out[i].LogIndex > out[j].LogIndex
	})
	return out
}

func testTradesPages(t *testing.T, s market.Store) {
	ctx := context.Background()
	a, b := newToken(t, 1), newToken(t, 2)
	var (
		seq tradeSeq
		ofA []market.Trade
		all []market.Trade
	)
	// 37 trades of a over 13 blocks with up to 4 per block, interleaved with trades of b.
	for i := range 37 {
		block := 3000 + uint64(i/3)
		logIndex := uint(i%3) * 2
		tr := seq.trade(a.Address, block, logIndex, now-int64(100-i), curvekit.Side([]string{"buy", "sell"}[i%2]), units(uint64(i+1)))
		ofA = append(ofA, tr)
		all = append(all, tr, seq.trade(b.Address, block, logIndex+1, now-int64(100-i), curvekit.Buy, units(1)))
	}
	// Apply in two batches, newest first, to show the order is the chain's, not the insertion's.
	apply(t, s, &market.Batch{Launches: []market.Token{a, b}, Trades: all[40:]})
	apply(t, s, &market.Batch{Trades: all[:40]})
	want := newestFirst(ofA)
	for _, limit := range []int{0, 1, 10, 37, 100} {
		got := walkTrades(t, s, market.TradeQuery{Token: a.Address, Limit: limit})
		if diff := cmp.Diff(got, want, cmpOpts...); diff != "" {
			t.Errorf("trades of a, limit %d (-got +want):\n%s", limit, diff)
		}
	}
	// New trades during a walk appear on no later page: a walk reads a fixed history.
	first, err := s.Trades(ctx, market.TradeQuery{Token: a.Address, Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	apply(t, s, &market.Batch{Trades: []market.Trade{
		seq.trade(a.Address, 4000, 0, now, curvekit.Buy, units(1)),
		seq.trade(a.Address, 4001, 0, now, curvekit.Buy, units(1)),
	}})
	rest := walkTrades(t, s, market.TradeQuery{Token: a.Address, Limit: 10, Cursor: first.Next})
	if diff := cmp.Diff(append(first.Trades, rest...), want, cmpOpts...); diff != "" {
		t.Errorf("walk across new trades (-got +want):\n%s", diff)
	}
}

func testTradesBetween(t *testing.T, s market.Store) {
	ctx := context.Background()
	a, b := newToken(t, 1), newToken(t, 2)
	var seq tradeSeq
	at := func(block uint64, logIndex uint, time int64) market.Trade {
		return seq.trade(a.Address, block, logIndex, time, curvekit.Buy, units(block))
	}
	tr := []market.Trade{
		at(10, 0, 100), at(10, 5, 100), at(11, 0, 200), at(12, 1, 300), at(12, 2, 300), at(13, 0, 400),
	}
	noise := []market.Trade{
		seq.trade(b.Address, 10, 1, 100, curvekit.Sell, units(9)),
		seq.trade(b.Address, 11, 1, 200, curvekit.Sell, units(9)),
		seq.trade(b.Address, 12, 0, 300, curvekit.Sell, units(9)),
		seq.trade(b.Address, 14, 0, 500, curvekit.Sell, units(9)),
	}
	// Stored out of order on purpose.
	apply(t, s, &market.Batch{Launches: []market.Token{a, b},
		Trades: []market.Trade{tr[5], noise[0], tr[2], tr[0], noise[3], tr[4], tr[1], noise[1], tr[3], noise[2]}})
	cases := []struct {
		from, to int64
		before   *market.Trade
		trades   []market.Trade
	}{
		{200, 400, &tr[1], tr[2:5]},
		{100, 101, nil, tr[0:2]},
		{100, 401, nil, tr},
		{101, 300, &tr[1], tr[2:3]},
		{201, 300, &tr[2], nil},
		{300, 300, &tr[2], nil},
		{400, 401, &tr[4], tr[5:]},
		{401, 500, &tr[5], nil},
		{0, 100, nil, nil},
		{-1 << 62, 1 << 62, nil, tr},
	}
	for _, c := range cases {
		got, err := s.TradesBetween(ctx, market.RangeQuery{Token: a.Address, From: c.from, To: c.to})
		if err != nil {
			t.Fatalf("TradesBetween [%d, %d): %v", c.from, c.to, err)
		}
		want := market.RangeResult{Before: c.before, Trades: c.trades}
		if diff := cmp.Diff(got, want, cmpOpts...); diff != "" {
			t.Errorf("TradesBetween [%d, %d) (-got +want):\n%s", c.from, c.to, diff)
		}
	}
}

// testBuyers checks Buyers against every page TradesForward returns for the same query: the
// recipients of their buys (the trader's own address when it received them), each once, and no
// seller, over the whole range after the cursor, whatever the limit.
func testBuyers(t *testing.T, s market.Store) {
	ctx := context.Background()
	a, b := newToken(t, 1), newToken(t, 2)
	var seq tradeSeq
	var trades []market.Trade
	for i := range 40 {
		side := curvekit.Buy
		if i%4 == 3 {
			side = curvekit.Sell
		}
		tr := seq.trade(a.Address, uint64(10+i/3), uint(i%3), int64(100+10*(i/3)), side, units(uint64(i+1)))
		if i%5 == 0 {
			tr.Recipient = tr.Trader // stored without a recipient of its own
		}
		trades = append(trades, tr)
	}
	// Another token's buy in the same blocks, by a buyer the first never sees.
	other := seq.trade(b.Address, 10, 5, 100, curvekit.Buy, units(1))
	other.Recipient = address(kindTrader, 999)
	apply(t, s, &market.Batch{Launches: []market.Token{a, b}, Trades: append(slices.Clone(trades), other)})
	after := market.PositionOf(&trades[7])
	for _, q := range []market.ForwardQuery{
		{Token: a.Address, From: 0, To: 1 << 40},
		{Token: a.Address, From: 100, To: 101},
		{Token: a.Address, From: 110, To: 160},
		{Token: a.Address, From: 100, To: 1 << 40, Limit: 6},
		{Token: a.Address, From: 100, To: 200, After: &after, Limit: 9},
		{Token: a.Address, From: 500, To: 600},
		{Token: common.Address{0xee}, From: 0, To: 1 << 40},
	} {
		want := map[common.Address]bool{}
		for fq := q; ; {
			page, err := s.TradesForward(ctx, fq)
			if err != nil {
				t.Fatal(err)
			}
			if len(page) == 0 {
				break
			}
			for _, tr := range page {
				if tr.Side == curvekit.Buy {
					want[tr.Recipient] = true
				}
			}
			last := market.PositionOf(&page[len(page)-1])
			fq.After = &last
		}
		got, err := s.Buyers(ctx, q)
		if err != nil {
			t.Fatalf("Buyers %+v: %v", q, err)
		}
		gotSet := map[common.Address]bool{}
		for _, g := range got {
			if gotSet[g] {
				t.Errorf("Buyers %+v: %s twice", q, g)
			}
			gotSet[g] = true
		}
		if diff := cmp.Diff(gotSet, want, cmpOpts...); diff != "" {
			t.Errorf("Buyers [%d, %d) limit %d (-got +want):\n%s", q.From, q.To, q.Limit, diff)
		}
	}
}

// testDay moves the store's clock across a fixture's trades, a batch at a time, and checks every
// token's day after each: the window [At-24h, At] holds both its ends, its volume is summed
// exactly beyond 64, 128 and 192 bits, the clock follows a batch's time or its newest trade
// when that is later, and Price24h is the last trade at or before the window's start.
func testDay(t *testing.T, s market.Store) {
	ctx := context.Background()
	const since int64 = now - 86400
	toks := []market.Token{newToken(t, 1), newToken(t, 2), newToken(t, 3), newToken(t, 4)}
	a, b, c, d := toks[0].Address, toks[1].Address, toks[2].Address, toks[3].Address
	var seq tradeSeq
	sum := func(vs ...uint256.Int) uint256.Int {
		var z uint256.Int
		for i := range vs {
			if _, over := z.AddOverflow(&z, &vs[i]); over {
				t.Fatal("fixture: sum overflows")
			}
		}
		return z
	}
	plus := func(x uint256.Int, n uint64) uint256.Int { return sum(x, *uint256.NewInt(n)) }
	minus1 := func(x uint256.Int) uint256.Int { x.SubUint64(&x, 1); return x }
	one := *uint256.NewInt(1)
	// The trades in chain order, one block each.
	tr := []market.Trade{
		seq.trade(c, 1001, 0, since-5, curvekit.Sell, units(5)),
		seq.trade(a, 1002, 0, since-1, curvekit.Buy, pow2(255)),
		seq.trade(a, 1003, 0, since, curvekit.Buy, plus(pow2(64), 1)),
		seq.trade(b, 1004, 1, since+1, curvekit.Buy, minus1(pow2(64))),
		seq.trade(b, 1005, 1, since+2, curvekit.Buy, one),
		seq.trade(a, 1006, 0, since+10, curvekit.Buy, plus(pow2(128), 5)),
		seq.trade(a, 1007, 0, since+20, curvekit.Sell, pow2(200)),
		seq.trade(d, 1009, 2, now, curvekit.Sell, minus1(pow2(128))),
		seq.trade(d, 1011, 2, now+100, curvekit.Buy, one),
		seq.trade(d, 1012, 2, now+200, curvekit.Sell, minus1(pow2(192))),
	}
	cTr, aBefore, aSince, bLast, aMid, aLast, dNow, dLater, dLast := &tr[0], &tr[1], &tr[2], &tr[4], &tr[5], &tr[6], &tr[7], &tr[8], &tr[9]
	volA := sum(aSince.QuoteAmount, aMid.QuoteAmount, aLast.QuoteAmount)
	volD := sum(dNow.QuoteAmount, dLater.QuoteAmount, dLast.QuoteAmount)
	// The sums really are beyond 64, 128 and 192 bits: an implementation summing in a machine
	// word or a float could not produce them.
	if all := sum(volA, aBefore.QuoteAmount); all.BitLen() != 256 || volA.BitLen() <= 200 || volD.BitLen() <= 192 {
		t.Fatalf("fixture: volumes %s and %s are too small", volA.Dec(), volD.Dec())
	}
	type fig struct {
		volume      uint256.Int
		buys, sells int
		ref         *market.Trade // Price24h's trade; nil for none
	}
	// Once the clock is a day past their trades, a, b and c have none in the window, and their
	// last trade is the reference of Price24h.
	past := func(dFig fig) map[common.Address]fig {
		return map[common.Address]fig{a: {ref: aLast}, b: {ref: bLast}, c: {ref: cTr}, d: dFig}
	}
	steps := []struct {
		what  string
		batch market.Batch
		at    int64
		want  map[common.Address]fig
	}{{
		"a trade at the start of the window",
		market.Batch{Cursor: market.Cursor{Block: 1008}, Time: now - 5, Launches: toks, Trades: tr[:7]},
		now - 5,
		map[common.Address]fig{
			a: {sum(volA, aBefore.QuoteAmount), 3, 1, nil},
			b: {pow2(64), 2, 0, nil},
			c: {cTr.QuoteAmount, 0, 1, cTr},
			d: {},
		},
	}, {
		"a trade at the end of the window",
		market.Batch{Cursor: market.Cursor{Block: 1009}, Time: now, Trades: tr[7:8]},
		now,
		map[common.Address]fig{
			a: {volA, 2, 1, aSince},
			b: {pow2(64), 2, 0, nil},
			c: {ref: cTr},
			d: {dNow.QuoteAmount, 0, 1, nil},
		},
	}, {
		"a batch without trades",
		market.Batch{Cursor: market.Cursor{Block: 1010}, Time: now + 11},
		now + 11,
		map[common.Address]fig{
			a: {aLast.QuoteAmount, 0, 1, aMid},
			b: {ref: bLast},
			c: {ref: cTr},
			d: {dNow.QuoteAmount, 0, 1, nil},
		},
	}, {
		"trades after the batch's time",
		market.Batch{Cursor: market.Cursor{Block: 1012}, Time: now + 150, Trades: tr[8:]},
		now + 200,
		past(fig{volD, 1, 2, nil}),
	}, {
		"a day later",
		market.Batch{Cursor: market.Cursor{Block: 1013}, Time: now + 86401},
		now + 86401,
		past(fig{pow2(192), 1, 1, dNow}),
	}, {
		"the last trade at the start of the window",
		market.Batch{Cursor: market.Cursor{Block: 1014}, Time: now + 86600},
		now + 86600,
		past(fig{dLast.QuoteAmount, 0, 1, dLast}),
	}, {
		"every trade out of the window",
		market.Batch{Cursor: market.Cursor{Block: 1015}, Time: now + 86601},
		now + 86601,
		past(fig{ref: dLast}),
	}}
	for _, st := range steps {
		apply(t, s, &st.batch)
		for tok, f := range st.want {
			want := market.Day{At: st.at, Volume: f.volume, Buys: f.buys, Sells: f.sells}
			if f.ref != nil {
				want.Price24h = &f.ref.Price
			}
			got, err := s.Day(ctx, tok)
			if err != nil {
				t.Fatalf("%s: Day(%s): %v", st.what, tok, err)
			}
			if diff := cmp.Diff(got, want, cmpOpts...); diff != "" {
				t.Errorf("%s: Day(%s) (-got +want):\n%s", st.what, tok, diff)
			}
		}
	}
}
