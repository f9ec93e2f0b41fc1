package markettest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/google/go-cmp/cmp"
	"github.com/holiman/uint256"

	"github.com/curvekit/curvekit"
	"github.com/curvekit/curvekit/candles"
	"github.com/curvekit/curvekit/market"
)

// allTime is a range that holds every fixture trade.
const allTime = int64(1) << 40

// testBars checks the minute, five-minute, hour and day bars of two tokens paired with assets of different decimals: what
// Bars returns equals market.BarsOf over the stored trades, with the bar before the range, pages,
// the last trade, an exact volume above 2^64, and a batch applied again (whole, and as part of a
// longer one) counted once.
func testBars(t *testing.T, s market.Store) {
	ctx := context.Background()
	a, b := newToken(t, 0), newToken(t, 1)
	b.Quote = market.Asset{Address: address(kindQuote, 1), Symbol: "USDC", Decimals: 6}
	var seq tradeSeq
	base := candles.Res1m.Bucket(now - 3600)
	big := pow2(100)
	first := &market.Batch{
		Cursor:   market.Cursor{Block: 1001, Hash: hash(kindBlock, 1001)},
		Launches: []market.Token{a, b},
		Trades: []market.Trade{
			seq.trade(a.Address, 1001, 0, base+5, curvekit.Buy, units(1)),
			seq.trade(b.Address, 1001, 1, base+5, curvekit.Buy, units(2)),
			seq.trade(a.Address, 1001, 2, base+5, curvekit.Sell, big),
		},
	}
	second := &market.Batch{
		Cursor: market.Cursor{Block: 1003, Hash: hash(kindBlock, 1003)},
		Trades: []market.Trade{
			seq.trade(a.Address, 1002, 0, base+50, curvekit.Buy, big),
			seq.trade(a.Address, 1003, 0, base+130, curvekit.Sell, units(3)),
			seq.trade(b.Address, 1003, 1, base+130, curvekit.Buy, units(4)),
		},
	}
	third := &market.Batch{
		Cursor: market.Cursor{Block: 1005, Hash: hash(kindBlock, 1005)},
		Trades: append(slices.Clone(second.Trades),
			seq.trade(a.Address, 1004, 0, base+170, curvekit.Buy, units(5)),
			seq.trade(a.Address, 1005, 3, base+600, curvekit.Buy, units(6)),
		),
	}
	apply(t, s, first)
	apply(t, s, second)
	apply(t, s, second) // again: nothing changes
	apply(t, s, third)  // second's trades again, then new ones in the same minute and later

	for _, tok := range []market.Token{a, b} {
		trades := storedTrades(t, s, tok.Address)
		for _, q := range []market.MinuteQuery{
			{From: 0, To: allTime},
			{From: base + 60, To: allTime},
			{From: base + 61, To: base + 600},
			{From: base + 120, To: base + 120},
			{From: 0, To: base},
			{From: base + 700, To: allTime},
			{From: 0, To: allTime, Limit: 1},
			{From: 0, To: allTime, Limit: 2},
			{From: base + 60, To: allTime, Limit: 2},
			{From: 0, To: allTime, Span: market.SpanMinute},
			{From: 0, To: allTime, Span: market.SpanFiveMinutes},
			{From: candles.Res5m.Bucket(base) + 300, To: allTime, Span: market.SpanFiveMinutes},
			{From: 0, To: allTime, Span: market.SpanFiveMinutes, Limit: 1},
			{From: 0, To: allTime, Span: market.SpanHour},
			{From: 0, To: allTime, Span: market.SpanDay},
			{From: candles.Res1h.Bucket(base) + 3600, To: allTime, Span: market.SpanHour},
			{From: 0, To: candles.Res1h.Bucket(base), Span: market.SpanHour},
			{From: candles.Res1d.Bucket(base) + 86400, To: allTime, Span: market.SpanDay},
		} {
			q.Token = tok.Address
			got, err := s.Bars(ctx, q)
			if err != nil {
				t.Fatalf("Bars %+v: %v", q, err)
			}
			want, err := market.BarsOf(&tok, trades, q)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, got, cmpOpts...); diff != "" {
				t.Errorf("Bars of %s [%d, %d) span %d limit %d (-BarsOf +got):\n%s", tok.Symbol, q.From, q.To, q.Span, q.Limit, diff)
			}
		}
	}

	got, err := s.Bars(ctx, market.MinuteQuery{Token: a.Address, From: 0, To: allTime})
	if err != nil {
		t.Fatal(err)
	}
	var sum candles.Volume
	n := 0
	for _, m := range got.Minutes {
		sum, _ = sum.Add(m.Volume)
		n += m.Trades
	}
	want, _ := candles.VolumeFromBig(new(uint256.Int).Add(&big, &big).ToBig())
	want, _ = want.Add(candles.VolumeOf(1e18 * (1 + 3 + 5 + 6)))
	if sum != want || n != 6 {
		t.Errorf("token a: bars sum %v over %d trades, want %v over 6", sum, n, want)
	}
	if len(got.Minutes) != 3 || got.Minutes[0].Trades != 3 || got.Minutes[1].Trades != 2 || got.Last == nil || got.Last.Block != 1005 {
		t.Errorf("token a: bars %+v, want 3 minutes of 3, 2 and 1 trades, ending with block 1005", got)
	}

	_, err = s.Bars(ctx, market.MinuteQuery{Token: address(kindToken, 99), From: 0, To: allTime})
	wantErr(t, "Bars of an unknown token", err, curvekit.ErrNotFound)
	_, err = s.Bars(ctx, market.MinuteQuery{Token: a.Address, From: 10, To: 9})
	wantErr(t, "Bars ending before they start", err, curvekit.ErrInvalid)
	_, err = s.Bars(ctx, market.MinuteQuery{Token: a.Address, From: 0, To: allTime, Span: 900})
	wantErr(t, "Bars of a span not stored", err, curvekit.ErrInvalid)
	c := newToken(t, 2)
	apply(t, s, &market.Batch{Cursor: market.Cursor{Block: 1006, Hash: hash(kindBlock, 1006)}, Launches: []market.Token{c}})
	none, err := s.Bars(ctx, market.MinuteQuery{Token: c.Address, From: 0, To: allTime})
	if err != nil || none.Before != nil || len(none.Minutes) != 0 || none.Last != nil {
		t.Errorf("Bars of a token without trades = %+v, %v; want nothing", none, err)
	}

	// An hour (and its day) whose volumes sum to 2^128: its minutes are stored and read, a fold of
	// its trades refuses it and so does a read of hours or days over it, and as the bar before a
	// window it opens the window at its close.
	e := newToken(t, 3)
	hour := candles.Res1h.Bucket(now - 7200)
	p128 := pow2(128)
	var most uint256.Int
	most.SubUint64(&p128, 1)
	over := []market.Trade{
		seq.trade(e.Address, 1007, 0, hour+5, curvekit.Buy, most),
		seq.trade(e.Address, 1007, 1, hour+65, curvekit.Sell, *uint256.NewInt(1)),
	}
	apply(t, s, &market.Batch{Cursor: market.Cursor{Block: 1007, Hash: hash(kindBlock, 1007)}, Launches: []market.Token{e}, Trades: over})
	minutes, err := s.Bars(ctx, market.MinuteQuery{Token: e.Address, From: 0, To: allTime})
	if err != nil || len(minutes.Minutes) != 2 {
		t.Errorf("minute bars of an hour that overflows = %+v, %v; want two minutes", minutes, err)
	}
	for _, span := range []int64{market.SpanFiveMinutes, market.SpanHour, market.SpanDay} {
		_, err = s.Bars(ctx, market.MinuteQuery{Token: e.Address, From: 0, To: allTime, Span: span})
		wantErr(t, fmt.Sprintf("Bars of span %d over a bar whose volumes overflow", span), err, candles.ErrOverflow)
		after, err := s.Bars(ctx, market.MinuteQuery{Token: e.Address, From: candles.Res1d.Bucket(hour) + 86400, To: allTime, Span: span})
		if err != nil || after.Before == nil || after.Before.Close != minutes.Minutes[1].Close ||
			after.Before.Block != 1007 || after.Before.Index != 1 || after.Last == nil || after.Last.LogIndex != 1 {
			t.Errorf("Bars of span %d after a bar whose volumes overflow = %+v, %v; want it as Before", span, after, err)
		}
	}
}

// storedTrades returns all of a token's stored trades, in chain order.
func storedTrades(t *testing.T, s market.Store, token common.Address) []market.Trade {
	t.Helper()
	r, err := s.TradesBetween(context.Background(), market.RangeQuery{Token: token, From: 0, To: allTime})
	if err != nil {
		t.Fatalf("TradesBetween: %v", err)
	}
	return r.Trades
}

// testBarsProperty applies random batches and rollbacks (a few tokens, trades a few seconds to a
// few hours apart, batches applied again and overlapping the last one, a token launched late and
// rolled away) and checks after each step that the stored minute, five-minute, hour and day bars equal those
// recomputed from the stored trades, and that the bars of random windows at every resolution,
// rolled up page by page from each stored span that divides it, equal candles.Range over the
// window's trades.
func testBarsProperty(t *testing.T, s market.Store) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(22, 1))
	toks := []market.Token{newToken(t, 0), newToken(t, 1), newToken(t, 2)}
	toks[1].Quote = market.Asset{Address: address(kindQuote, 1), Symbol: "USDC", Decimals: 6}
	toks[2].Quote = market.Asset{Address: address(kindQuote, 2), Symbol: "WBTC", Decimals: 8}
	late := newToken(t, 3)
	apply(t, s, &market.Batch{Cursor: market.Cursor{Block: 1001, Hash: hash(kindBlock, 1001)}, Launches: toks})

	var seq tradeSeq
	cursor := uint64(1001)
	times := map[uint64]int64{1001: now - 20*86400}
	lateAt := uint64(0) // launch block of late, 0 while not launched
	var prev *market.Batch
	for step := range 60 {
		switch r := rng.IntN(10); {
		case r < 2 && cursor > 1001: // a reorganization
			to := max(1001, cursor-uint64(1+rng.IntN(6)))
			rb := &market.Rollback{To: market.Cursor{Block: to, Hash: hash(kindBlock, int(to))}, Time: times[to]}
			if err := s.Rollback(ctx, rb); err != nil {
				t.Fatalf("step %d: Rollback to %d: %v", step, to, err)
			}
			cursor, prev = to, nil
			if lateAt > to {
				lateAt = 0
			}
		case r < 3 && prev != nil: // the last batch again
			apply(t, s, prev)
		default:
			b := &market.Batch{}
			if prev != nil && rng.IntN(3) == 0 {
				b.Trades = slices.Clone(prev.Trades) // overlapping the last batch
			}
			live := toks
			for range 1 + rng.IntN(3) {
				cursor++
				times[cursor] = times[cursor-1] + gap(rng)
				if lateAt == 0 && rng.IntN(6) == 0 {
					lateAt = cursor
					l := late
					l.LaunchBlock, l.CreatedAt = cursor, times[cursor]
					b.Launches = append(b.Launches, l)
				}
				if lateAt != 0 {
					live = append(toks[:len(toks):len(toks)], late)
				}
				for i := range uint(rng.IntN(5)) {
					tok := live[rng.IntN(len(live))].Address
					tr := seq.trade(tok, cursor, i, times[cursor], curvekit.Buy, randomVolume(rng))
					tr.Price = *uint256.NewInt(rng.Uint64N(1_000_000) * rng.Uint64N(1_000_000_000))
					b.Trades = append(b.Trades, tr)
				}
			}
			b.Cursor = market.Cursor{Block: cursor, Hash: hash(kindBlock, int(cursor))}
			b.Time = times[cursor]
			apply(t, s, b)
			prev = b
		}
		live := toks
		if lateAt != 0 {
			live = append(toks[:len(toks):len(toks)], late)
		} else if _, err := s.Bars(ctx, market.MinuteQuery{Token: late.Address, From: 0, To: allTime}); err == nil {
			t.Fatalf("step %d: Bars of a token rolled away succeeded", step)
		}
		for _, tok := range live {
			checkStoredBars(t, fmt.Sprintf("step %d, token %s", step, tok.Symbol), s, tok, rng)
		}
	}
}

// gap is the time between two blocks: mostly seconds, sometimes minutes or hours.
func gap(rng *rand.Rand) int64 {
	switch r := rng.IntN(10); {
	case r < 6:
		return 1 + rng.Int64N(30)
	case r < 9:
		return rng.Int64N(600)
	}
	return rng.Int64N(6 * 3600)
}

func randomVolume(rng *rand.Rand) uint256.Int {
	if rng.IntN(5) == 0 {
		return pow2(uint(64 + rng.IntN(60)))
	}
	return *uint256.NewInt(rng.Uint64())
}

// checkStoredBars compares the stored minute, five-minute, hour and day bars of tok with those of its stored
// trades, in pages, and random windows of every resolution rolled up from each stored span that
// divides it with candles.Range over the trades.
func checkStoredBars(t *testing.T, name string, s market.Store, tok market.Token, rng *rand.Rand) {
	t.Helper()
	ctx := context.Background()
	trades := storedTrades(t, s, tok.Address)
	for _, span := range []int64{market.SpanMinute, market.SpanFiveMinutes, market.SpanHour, market.SpanDay} {
		want, err := market.BarsOf(&tok, trades, market.MinuteQuery{Token: tok.Address, From: 0, To: allTime, Span: span})
		if err != nil {
			t.Fatal(err)
		}
		var got []candles.Minute
		q := market.MinuteQuery{Token: tok.Address, From: 0, To: allTime, Span: span, Limit: 1 + rng.IntN(8)}
		for {
			page, err := s.Bars(ctx, q)
			if err != nil {
				t.Fatalf("%s: Bars of span %d: %v", name, span, err)
			}
			got = append(got, page.Minutes...)
			if len(page.Minutes) < q.Limit {
				var last *market.Trade
				if len(trades) > 0 {
					last = &trades[len(trades)-1]
				}
				if diff := cmp.Diff(last, page.Last, cmpOpts...); diff != "" {
					t.Fatalf("%s: span %d: Last (-trades +bars):\n%s", name, span, diff)
				}
				break
			}
			q.From = page.Minutes[len(page.Minutes)-1].Time + span
		}
		if diff := cmp.Diff(want.Minutes, got, cmpOpts...); diff != "" {
			t.Fatalf("%s: stored bars of span %d (-recomputed +stored):\n%s", name, span, diff)
		}
	}
	if len(trades) == 0 {
		return
	}
	lo, hi := trades[0].Time-7200, trades[len(trades)-1].Time+7200
	for _, res := range candles.Resolutions() {
		for range 1 {
			from := res.Bucket(lo + rng.Int64N(hi-lo))
			to := from + rng.Int64N(hi-from+1)
			p := candles.RangeParams{Resolution: res, From: from, To: to, Limit: market.MaxBars}
			end := res.Bucket(to) + res.Seconds()
			r, err := s.TradesBetween(ctx, market.RangeQuery{Token: tok.Address, From: from, To: end})
			if err != nil {
				t.Fatal(err)
			}
			in := make([]candles.Trade, len(r.Trades))
			for i := range r.Trades {
				in[i] = market.CandleTrade(&tok, &r.Trades[i])
			}
			if r.Before != nil {
				seed := market.CandleTrade(&tok, r.Before)
				p.Seed = &seed
			}
			want, err := candles.Range(in, p)
			if err != nil {
				t.Fatal(err)
			}
			p.Seed = nil
			for _, span := range []int64{market.SpanMinute, market.SpanFiveMinutes, market.SpanHour, market.SpanDay} {
				if res.Seconds()%span != 0 {
					continue
				}
				got := rollUpStored(t, name, s, tok.Address, p, span, end, 1+rng.IntN(50))
				if diff := cmp.Diff(want, got, cmpOpts...); diff != "" {
					t.Fatalf("%s: %v bars of [%d, %d] from span %d (-trades +stored bars):\n%s", name, res, from, to, span, diff)
				}
			}
		}
	}
}

// rollUpStored rolls the window p up from the stored bars of span, limit at a time, with the
// bar before the window first.
func rollUpStored(t *testing.T, name string, s market.Store, token common.Address, p candles.RangeParams, span, end int64, limit int) []candles.Bar {
	t.Helper()
	roll, err := candles.NewRoller(p)
	if err != nil {
		t.Fatal(err)
	}
	mq := market.MinuteQuery{Token: token, From: p.From, To: end, Span: span, Limit: limit}
	for first := true; ; first = false {
		page, err := s.Bars(context.Background(), mq)
		if err != nil {
			t.Fatal(err)
		}
		if first && page.Before != nil {
			if _, err := roll.Add([]candles.Minute{*page.Before}); err != nil {
				t.Fatalf("%s: seed bar of span %d: %v", name, span, err)
			}
		}
		if _, err := roll.Add(page.Minutes); err != nil {
			t.Fatalf("%s: %v from span %d: %v", name, p.Resolution, span, err)
		}
		if len(page.Minutes) < mq.Limit {
			return roll.Bars()
		}
		mq.From = page.Minutes[len(page.Minutes)-1].Time + span
	}
}
