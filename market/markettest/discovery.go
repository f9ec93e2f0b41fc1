package markettest

import (
	"context"
	"math"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/google/go-cmp/cmp"
	"github.com/holiman/uint256"

	"github.com/curvekit/curvekit"
	"github.com/curvekit/curvekit/market"
)

// ranksOf walks q and returns the tokens in order with their ranks.
func ranksOf(t *testing.T, s market.Store, q market.TokenQuery) ([]common.Address, map[common.Address]market.Ranks) {
	t.Helper()
	var order []common.Address
	ranks := map[common.Address]market.Ranks{}
	for pages := 0; ; pages++ {
		page, err := s.Tokens(context.Background(), q)
		if err != nil {
			t.Fatalf("Tokens(%+v): %v", q, err)
		}
		if len(page.Ranks) != len(page.Tokens) {
			t.Fatalf("Tokens(%+v): %d ranks for %d tokens", q, len(page.Ranks), len(page.Tokens))
		}
		for i, tok := range page.Tokens {
			order = append(order, tok.Address)
			ranks[tok.Address] = page.Ranks[i]
		}
		if page.Next == "" || pages > 100 {
			return order, ranks
		}
		q.Cursor = page.Next
	}
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }

// priced is a trade at percent of the token's opening price.
func priced(tr market.Trade, tok market.Token, percent uint64) market.Trade {
	var p uint256.Int
	p.Exp(uint256.NewInt(10), uint256.NewInt(36))
	p.Mul(&p, &tok.Params.VirtualQuote0)
	p.Div(&p, &tok.Params.VirtualToken0)
	p.Mul(&p, uint256.NewInt(percent))
	tr.Price.Div(&p, uint256.NewInt(100))
	return tr
}

// testDiscovery checks the state every batch keeps for the discovery orders: the trending
// sums (decayed to each batch's time, exactly as market.Trend computes them), the hour's and
// the day's price change against the last trade before the window or the opening price, the
// progress and graduation filters, the king of each pairing asset with since when it holds the
// crown; a batch applied again moves none of it, and a rollback puts it back.
func testDiscovery(t *testing.T, s market.Store) {
	ctx := context.Background()
	a, b, c, d := newToken(t, 0), newToken(t, 1), newToken(t, 2), newToken(t, 3)
	d.Quote = market.Asset{Address: address(kindQuote, 1), Symbol: "TUSD", Decimals: 6}
	var seq tradeSeq
	t1, t2, t3 := now-7200, now-1800, now

	b1 := &market.Batch{
		Cursor: market.Cursor{Block: 1001, Hash: hash(kindBlock, 1001)}, Time: t1,
		Launches: []market.Token{a, b, c, d},
		Trades: []market.Trade{
			priced(seq.trade(a.Address, 1001, 0, t1, curvekit.Buy, units(1)), a, 100),
			priced(seq.trade(b.Address, 1001, 1, t1, curvekit.Buy, units(10)), b, 100),
		},
		Updates: []market.Token{traded(a, 1, t1), traded(b, 10, t1)},
	}
	apply(t, s, b1)
	for _, k := range []struct {
		quote, token common.Address
		since        int64
	}{{common.Address{}, b.Address, t1}, {d.Quote.Address, d.Address, t1}} {
		got, err := s.King(ctx, k.quote)
		if err != nil || got.Token != k.token || got.Since != k.since {
			t.Fatalf("king of %s after the first batch: %+v, %v; want %s since %d", k.quote, got, err, k.token, k.since)
		}
	}
	_, err := s.King(ctx, address(kindQuote, 9))
	wantErr(t, "king of an asset without tokens", err, curvekit.ErrNotFound)

	b2 := &market.Batch{
		Cursor: market.Cursor{Block: 1002, Hash: hash(kindBlock, 1002)}, Time: t2,
		Trades: []market.Trade{
			priced(seq.trade(a.Address, 1002, 0, t2, curvekit.Buy, units(1)), a, 150),
			priced(seq.trade(b.Address, 1002, 1, t2, curvekit.Sell, units(2)), b, 80),
			priced(seq.trade(c.Address, 1002, 2, t2, curvekit.Buy, units(3)), c, 120),
		},
		Updates: []market.Token{traded(a, 2, t2), traded(b, 8, t2), traded(c, 3, t2)},
	}
	apply(t, s, b2)
	// Block 1003 graduates b; the crown of ETH passes to the largest curve token left, c.
	gb := graduated(traded(b, 8, t2), 80, 200_000_000, t2)
	gb.GraduatedAt = t3
	b3 := &market.Batch{Cursor: market.Cursor{Block: 1003, Hash: hash(kindBlock, 1003)}, Time: t3, Updates: []market.Token{gb}}
	apply(t, s, b3)

	// The trending scores as of t3: each trade's weight, halved for every half-life of its age.
	weight := func(q uint64) float64 { return 1 + math.Log2(1+float64(q)) }
	trend := func(parts ...[2]float64) float64 {
		var sum float64
		for _, p := range parts {
			sum += p[0] * math.Exp2(-(float64(t3)-p[1])/market.TrendHalfLife)
		}
		return sum
	}
	wantTrend := map[common.Address]float64{
		a.Address: trend([2]float64{weight(1), float64(t1)}, [2]float64{weight(1), float64(t2)}),
		b.Address: trend([2]float64{weight(10), float64(t1)}, [2]float64{weight(2), float64(t2)}),
		c.Address: trend([2]float64{weight(3), float64(t2)}),
		d.Address: 0,
	}
	order, ranks := ranksOf(t, s, market.TokenQuery{Sort: market.SortTrending, Limit: 1})
	if diff := cmp.Diff([]common.Address{b.Address, a.Address, c.Address, d.Address}, order); diff != "" {
		t.Fatalf("trending order (-want +got):\n%s", diff)
	}
	for tok, want := range wantTrend {
		if !near(ranks[tok].Trend, want) {
			t.Errorf("trend of %s: %v, want %v", tok, ranks[tok].Trend, want)
		}
	}
	// The price changes as of t3: the last trade against the last one at least an hour (a day)
	// before, or the opening price.
	wantChange := map[common.Address][2]float64{
		a.Address: {0.5, 0.5},
		b.Address: {-0.2, -0.2},
		c.Address: {0.2, 0.2},
		d.Address: {0, 0},
	}
	for _, sort := range []market.TokenSort{market.SortGainers1h, market.SortGainers24h, market.SortLosers24h} {
		order, ranks := ranksOf(t, s, market.TokenQuery{Sort: sort, Limit: 1})
		for tok, want := range wantChange {
			if !near(ranks[tok].Change1h, want[0]) || !near(ranks[tok].Change24h, want[1]) {
				t.Errorf("%s: changes of %s %v/%v, want %v", sort, tok, ranks[tok].Change1h, ranks[tok].Change24h, want)
			}
		}
		want := map[market.TokenSort][]common.Address{
			market.SortGainers1h:  {a.Address, c.Address, d.Address, b.Address},
			market.SortGainers24h: {a.Address, c.Address, d.Address, b.Address},
			market.SortLosers24h:  {b.Address, d.Address, c.Address, a.Address},
		}[sort]
		if diff := cmp.Diff(want, order); diff != "" {
			t.Errorf("%s order (-want +got):\n%s", sort, diff)
		}
	}
	// Progress and graduation filters.
	progress := func(tok market.Token) uint16 { return tok.Progress() }
	pc := progress(traded(c, 3, t2))
	got := addresses(walkTokens(t, s, market.TokenQuery{Phase: market.PhaseCurve, ProgressMin: pc}))
	if diff := cmp.Diff([]common.Address{c.Address}, got); diff != "" {
		t.Errorf("curve tokens from %d bps (-want +got):\n%s", pc, diff)
	}
	got = addresses(walkTokens(t, s, market.TokenQuery{ProgressMin: 1, ProgressMax: pc - 1}))
	if diff := cmp.Diff([]common.Address{a.Address}, got); diff != "" {
		t.Errorf("tokens from 1 to %d bps (-want +got):\n%s", pc-1, diff)
	}
	for since, want := range map[int64][]common.Address{t3: {b.Address}, t3 + 1: nil, 1: {b.Address}} {
		got := addresses(walkTokens(t, s, market.TokenQuery{GraduatedSince: since}))
		if diff := cmp.Diff(want, got, cmpOpts...); diff != "" {
			t.Errorf("graduated since %d (-want +got):\n%s", since, diff)
		}
	}
	if k, err := s.King(ctx, common.Address{}); err != nil || k.Token != c.Address || k.Since != t3 {
		t.Fatalf("king of ETH after b graduated: %+v, %v; want %s since %d", k, err, c.Address, t3)
	}

	// Time passing halves every score in a half-life and keeps the order.
	half := &market.Batch{Cursor: market.Cursor{Block: 1004, Hash: hash(kindBlock, 1004)}, Time: t3 + int64(market.TrendHalfLife)}
	apply(t, s, half)
	if later, lranks := ranksOf(t, s, market.TokenQuery{Sort: market.SortTrending}); !cmp.Equal(later, order) {
		t.Errorf("trending order a half-life later (-want +got):\n%s", cmp.Diff(order, later))
	} else {
		for tok, want := range wantTrend {
			if !near(lranks[tok].Trend, want/2) {
				t.Errorf("trend of %s a half-life later: %v, want %v", tok, lranks[tok].Trend, want/2)
			}
		}
	}
	// An hour after t3 the changes of the hour are 0: no token traded in it.
	for tok, want := range wantChange {
		_, r := ranksOf(t, s, market.TokenQuery{Sort: market.SortGainers1h})
		if !near(r[tok].Change1h, 0) || !near(r[tok].Change24h, want[1]) {
			t.Errorf("changes of %s an hour on: %v/%v, want 0/%v", tok, r[tok].Change1h, r[tok].Change24h, want[1])
		}
	}

	// Applied again, a batch moves nothing.
	_, before := ranksOf(t, s, market.TokenQuery{Sort: market.SortTrending})
	apply(t, s, b2)
	apply(t, s, b3)
	if _, after := ranksOf(t, s, market.TokenQuery{Sort: market.SortTrending}); !cmp.Equal(before, after) {
		t.Fatalf("ranks moved by batches applied again:\n%s", cmp.Diff(before, after))
	}

	// Rolled back to 1002: b trades on its curve again and takes the crown back, since the
	// rollback's block; the trends are what the trades left make them.
	r := &market.Rollback{To: b2.Cursor, Time: t2, Tokens: []market.Token{traded(b, 8, t2)}}
	if err := s.Rollback(ctx, r); err != nil {
		t.Fatal(err)
	}
	if k, err := s.King(ctx, common.Address{}); err != nil || k.Token != b.Address || k.Since != t2 {
		t.Fatalf("king of ETH after the rollback: %+v, %v; want %s since %d", k, err, b.Address, t2)
	}
	if _, after := ranksOf(t, s, market.TokenQuery{Sort: market.SortTrending}); !near(after[b.Address].Trend, before[b.Address].Trend) {
		t.Fatalf("b's trend after a rollback that removed none of its trades: %v, was %v", after[b.Address].Trend, before[b.Address].Trend)
	}
	if got := addresses(walkTokens(t, s, market.TokenQuery{GraduatedSince: 1})); len(got) != 0 {
		t.Fatalf("graduated tokens after the rollback: %v", got)
	}
}
