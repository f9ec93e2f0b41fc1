package markettest

import (
	"context"
	"maps"
	"math"
	"math/rand/v2"
	"sort"
	"strconv"
	"testing"

	"github.com/ethereum/go-ethereum/common"

	"github.com/curvekit/curvekit"
	"github.com/curvekit/curvekit/market"
	"github.com/curvekit/curvekit/market/marketgen"
)

// testFiguresFollowTheTrades applies a launchpad's history over four and a half days
// (marketgen), one batch of it longer than a day, rolls back to random earlier batches and
// applies the batches after them again, and after each step
// checks every token's discovery figures (Ranks) and its day (Day) against the same figures
// computed here from the trades the store holds: the day's exact volume and trade counts, the
// trending score, the price changes and the price a day before, as of the store's clock (the
// latest batch time it saw). A store that keeps them incrementally must land where the
// definition does, whichever trades left the windows on the way. It checks TradesBetween's last
// trade before a window as well, at times on, beside and between the trades, since a store may
// find it from what it keeps rather than from the trades before it.
func testFiguresFollowTheTrades(t *testing.T, s market.Store) {
	ctx := context.Background()
	g, err := marketgen.New(marketgen.Shape{Tokens: 40, Trades: 4_500, End: now, Span: 9 * 86400 / 2, Seed: 11})
	if err != nil {
		t.Fatal(err)
	}
	type step struct {
		b       *market.Batch
		tokens  map[common.Address]market.Token // states before b
		holders map[market.HolderKey]market.Holding
		time    int64 // the batch time before b
	}
	var (
		steps   []step
		tokens  = map[common.Address]market.Token{}
		holders = map[market.HolderKey]market.Holding{}
		stored  []market.Trade
		clock   int64
		prevAt  int64
		rng     = rand.New(rand.NewPCG(5, 6))
		pick    = rand.New(rand.NewPCG(7, 8)) // the times checkBefore asks at
	)
	// Most batches carry 150 trades (about 3.6 hours), one 1,500 (more than a day), so that a
	// batch's own trades pass the day's mark.
	span := func(n int) int {
		if n == 5 {
			return 1_500
		}
		return 150
	}
	var batches []*market.Batch
	for b := g.NextSpan(span(0)); b != nil; b = g.NextSpan(span(len(batches))) {
		if len(batches)%5 == 4 && len(b.Trades) > 0 {
			// Now and then a batch carries a trade twice: the store keeps it once.
			b.Trades = append(b.Trades, b.Trades[0])
		}
		batches = append(batches, b)
	}
	applyOne := func(b *market.Batch) {
		t.Helper()
		steps = append(steps, step{b: b, tokens: maps.Clone(tokens), holders: maps.Clone(holders), time: prevAt})
		apply(t, s, b)
		for _, tok := range b.Launches {
			tokens[tok.Address] = tok
		}
		for _, tok := range b.Updates {
			tokens[tok.Address] = tok
		}
		for _, h := range b.Holdings {
			holders[market.HolderKey{Token: h.Token, Holder: h.Holder}] = h
		}
		stored = append(stored, b.Trades...)
		if n := len(b.Trades); n > 1 && b.Trades[n-1].TxHash == b.Trades[0].TxHash && b.Trades[n-1].LogIndex == b.Trades[0].LogIndex {
			stored = stored[:len(stored)-1]
		}
		clock = max(clock, b.Time)
		for _, tr := range b.Trades {
			clock = max(clock, tr.Time)
		}
		prevAt = b.Time
	}
	rollBack := func(k int) {
		t.Helper()
		st := steps[k]
		to := market.Cursor{}
		if k > 0 {
			to = steps[k-1].b.Cursor
		}
		touched, err := s.Touched(ctx, to.Block)
		if err != nil {
			t.Fatal(err)
		}
		r := &market.Rollback{To: to, Time: st.time}
		for _, a := range touched {
			if tok, ok := st.tokens[a]; ok {
				r.Tokens = append(r.Tokens, tok)
			}
		}
		changed, err := s.HoldersChanged(ctx, to.Block)
		if err != nil {
			t.Fatal(err)
		}
		for _, key := range changed {
			h, ok := st.holders[key]
			if !ok {
				h = market.Holding{Token: key.Token, Holder: key.Holder}
			}
			r.Holdings = append(r.Holdings, h)
		}
		if err := s.Rollback(ctx, r); err != nil {
			t.Fatalf("Rollback to %d: %v", to.Block, err)
		}
		tokens, holders = st.tokens, st.holders
		kept := stored[:0]
		for _, tr := range stored {
			if tr.Block <= to.Block {
				kept = append(kept, tr)
			}
		}
		stored = kept
		steps = steps[:k]
		prevAt = st.time
	}
	check := func(when string) {
		t.Helper()
		checkFigures(t, s, tokens, stored, clock, when)
		checkBefore(t, s, tokens, stored, pick, when)
	}

	next, rollbacks := 0, 0
	for next < len(batches) {
		applyOne(batches[next])
		next++
		if next%8 == 0 {
			check("after batch " + strconv.Itoa(next))
		}
		// Now and then a reorganization of up to 6 batches, whose blocks the chain then brings
		// again.
		if len(steps) > 6 && rng.IntN(9) == 0 {
			k := len(steps) - 1 - rng.IntN(6)
			rollBack(k)
			rollbacks++
			check("after a rollback to batch " + strconv.Itoa(k))
			next = k
		}
	}
	check("at the end")

	// A block whose time is behind marks the clock has passed (block times go backwards only on
	// a chain that breaks its rules, but the figures hold even then): its trades are older than
	// the stored references they follow in block order.
	late := &market.Batch{Cursor: market.Cursor{Block: steps[len(steps)-1].b.Cursor.Block + 1, Hash: common.Hash{0xb1}}, Time: clock - 2*86400}
	for i, tr := range stored[len(stored)-40:] {
		tr.Block, tr.BlockHash, tr.LogIndex = late.Cursor.Block, late.Cursor.Hash, uint(i)
		tr.TxHash = common.Hash{0xb2, byte(i)}
		tr.Time = late.Time
		late.Trades = append(late.Trades, tr)
	}
	applyOne(late)
	// Its trades break the order TradesBetween may rely on (Store.TradesBetween): the figures
	// alone are checked.
	checkFigures(t, s, tokens, stored, clock, "after a block behind the clock")
	if rollbacks < 3 {
		t.Fatalf("fixture: %d rollbacks", rollbacks)
	}
}

// checkFigures compares the Ranks of every token with the figures computed from trades as of
// clock.
func checkFigures(t *testing.T, s market.Store, tokens map[common.Address]market.Token, trades []market.Trade, clock int64, when string) {
	t.Helper()
	_, got := ranksOf(t, s, market.TokenQuery{Sort: market.SortTrending, Limit: market.MaxLimit})
	if len(got) != len(tokens) {
		t.Fatalf("%s: %d tokens listed, %d launched", when, len(got), len(tokens))
	}
	byToken := map[common.Address][]market.Trade{}
	for _, tr := range trades {
		byToken[tr.Token] = append(byToken[tr.Token], tr)
	}
	bad := 0
	for a, tok := range tokens {
		want := expectRanks(&tok, byToken[a], clock)
		r := got[a]
		if !r.Volume24h.Eq(&want.Volume24h) || r.Buys24h != want.Buys24h || r.Sells24h != want.Sells24h ||
			!near(r.Trend, want.Trend) || !near(r.Change1h, want.Change1h) || !near(r.Change24h, want.Change24h) {
			t.Errorf("%s: figures of %s\n got %+v\nwant %+v", when, a, r, want)
			if bad++; bad > 5 {
				t.FailNow()
			}
		}
	}
	// A token's day is its figures as of the clock, exactly.
	for a, tok := range tokens {
		d, err := s.Day(context.Background(), a)
		if err != nil {
			t.Fatalf("%s: Day(%s): %v", when, a, err)
		}
		want := expectDay(&tok, byToken[a], clock)
		if d.At != want.At || !d.Volume.Eq(&want.Volume) || d.Buys != want.Buys || d.Sells != want.Sells ||
			(d.Price24h == nil) != (want.Price24h == nil) || d.Price24h != nil && !d.Price24h.Eq(want.Price24h) {
			t.Errorf("%s: Day(%s)\n got %+v\nwant %+v", when, a, d, want)
			if bad++; bad > 5 {
				t.FailNow()
			}
		}
	}
	// The volume order is the order of the exact volumes (ties newest first).
	order, _ := ranksOf(t, s, market.TokenQuery{Sort: market.SortVolume24h, Limit: 7})
	for i := 1; i < len(order); i++ {
		v0, v1 := got[order[i-1]].Volume24h, got[order[i]].Volume24h
		if v0.Lt(&v1) {
			t.Fatalf("%s: volume24h order puts %s (%s) before %s (%s)", when, order[i-1], v0.Dec(), order[i], v1.Dec())
		}
	}
}

// expectDay computes a token's Day from its trades by its definition.
func expectDay(tok *market.Token, trades []market.Trade, clock int64) market.Day {
	r := expectRanks(tok, trades, clock)
	d := market.Day{At: clock, Volume: r.Volume24h, Buys: r.Buys24h, Sells: r.Sells24h}
	if ref := lastBefore(trades, clock-86400+1); ref != nil {
		p := ref.Price
		d.Price24h = &p
	}
	return d
}

// lastBefore returns the last of trades with Time < t, by time and then chain order; nil when
// there is none.
func lastBefore(trades []market.Trade, t int64) *market.Trade {
	var found *market.Trade
	for i := range trades {
		tr := &trades[i]
		if tr.Time >= t {
			continue
		}
		if found == nil || tr.Time > found.Time || tr.Time == found.Time &&
			(tr.Block > found.Block || tr.Block == found.Block && tr.LogIndex > found.LogIndex) {
			found = tr
		}
	}
	return found
}

// checkBefore compares, for every token, the last trade before a window that TradesBetween
// returns with the one its stored trades give, for windows that start at, just after and just
// before trades (the same second, the same minute, another minute), and at random times.
func checkBefore(t *testing.T, s market.Store, tokens map[common.Address]market.Token, trades []market.Trade, rng *rand.Rand, when string) {
	t.Helper()
	byToken := map[common.Address][]market.Trade{}
	for _, tr := range trades {
		byToken[tr.Token] = append(byToken[tr.Token], tr)
	}
	bad := 0
	for a := range tokens {
		own := byToken[a]
		froms := []int64{0, now + 86400}
		for range 4 {
			if len(own) > 0 {
				tr := own[rng.IntN(len(own))]
				froms = append(froms, tr.Time, tr.Time+1, tr.Time-1, tr.Time-tr.Time%60, tr.Time+rng.Int64N(120)-60)
			}
			froms = append(froms, now-5*86400+rng.Int64N(5*86400))
		}
		for _, from := range froms {
			r, err := s.TradesBetween(context.Background(), market.RangeQuery{Token: a, From: from, To: from})
			if err != nil {
				t.Fatalf("%s: TradesBetween(%s, %d): %v", when, a, from, err)
			}
			want := lastBefore(own, from)
			if (r.Before == nil) != (want == nil) || want != nil && (r.Before.Block != want.Block || r.Before.LogIndex != want.LogIndex || r.Before.Time != want.Time) {
				t.Errorf("%s: the last trade of %s before %d is %+v, want %+v", when, a, from, r.Before, want)
				if bad++; bad > 5 {
					t.FailNow()
				}
			}
		}
	}
}

// expectRanks computes a token's Ranks from its trades by their definitions.
func expectRanks(tok *market.Token, trades []market.Trade, clock int64) market.Ranks {
	var r market.Ranks
	sort.Slice(trades, func(i, j int) bool {
		a, b := &trades[i], &trades[j]
		if a.Block != b.Block {
			return a.Block < b.Block
		}
		return a.LogIndex < b.LogIndex
	})
	for i := range trades {
		tr := &trades[i]
		r.Trend += market.TradeWeight(tr, tok.Quote.Decimals) * math.Exp2(-float64(clock-tr.Time)/market.TrendHalfLife)
		if tr.Time >= clock-86400 && tr.Time <= clock {
			r.Volume24h.Add(&r.Volume24h, &tr.QuoteAmount)
			switch tr.Side {
			case curvekit.Buy:
				r.Buys24h++
			case curvekit.Sell:
				r.Sells24h++
			}
		}
	}
	if len(trades) == 0 {
		return r
	}
	last := trades[len(trades)-1].Price.Float64()
	ref := func(before int64) float64 {
		// The last trade at or before the time, by time and then chain order.
		var found *market.Trade
		for i := range trades {
			if trades[i].Time <= before && (found == nil || trades[i].Time >= found.Time) {
				found = &trades[i]
			}
		}
		if found != nil {
			return found.Price.Float64()
		}
		return market.OpenPrice(tok)
	}
	change := func(base float64) float64 {
		if base == 0 {
			return 0
		}
		return last/base - 1
	}
	r.Change1h, r.Change24h = change(ref(clock-3600)), change(ref(clock-86400))
	return r
}
