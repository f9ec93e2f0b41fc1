package candles_test

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/curvekit/curvekit/candles"
)

// The properties below hold the roll-up of minutes to Range over the trades behind them: the
// minutes are what a store keeps, the trades what it would otherwise read.

func TestPropertyMinutesRollUpLikeTrades(t *testing.T) {
	t.Parallel()
	for _, gen := range candles.Resolutions() {
		t.Run("trades spread at "+gen.String(), func(t *testing.T) {
			t.Parallel()
			rng := rand.New(rand.NewPCG(uint64(gen), 2))
			for iter := range 300 {
				trades := randomTrades(rng, gen)
				minutes, err := candles.AppendMinutes(nil, trades)
				if err != nil {
					t.Fatalf("iteration %d: AppendMinutes: %v", iter, err)
				}
				name := fmt.Sprintf("iteration %d (%d trades, %d minutes)", iter, len(trades), len(minutes))
				checkMinutes(t, name, candles.Res1m, trades, minutes)
				for _, res := range candles.Resolutions() {
					checkRollUp(t, name, res, trades, minutes, rng)
					checkFeedSeed(t, name, res, trades, minutes, rng)
				}
				// Hours and days, coarsened from the minutes, roll up as the trades do at
				// every resolution they divide.
				for _, span := range []candles.Resolution{candles.Res1h, candles.Res1d} {
					spans, err := candles.Coarsen(nil, span, minutes)
					if err != nil {
						t.Fatalf("%s: Coarsen to %v: %v", name, span, err)
					}
					checkMinutes(t, name, span, trades, spans)
					for _, res := range candles.Resolutions() {
						if res%span == 0 {
							checkRollUp(t, name+" from "+span.String(), res, trades, spans, rng)
						}
					}
				}
			}
		})
	}
}

// checkMinutes compares the minutes (or the coarser spans) with the brute-force summary of each
// span's trades.
func checkMinutes(t *testing.T, name string, span candles.Resolution, trades []candles.Trade, minutes []candles.Minute) {
	t.Helper()
	var want []candles.Minute
	for _, tr := range trades {
		start := span.Bucket(tr.Time)
		if n := len(want); n == 0 || want[n-1].Time != start {
			want = append(want, candles.Minute{Time: start, Open: tr.Price, High: tr.Price, Low: tr.Price})
		}
		m := &want[len(want)-1]
		m.High, m.Low, m.Close = max(m.High, tr.Price), min(m.Low, tr.Price), tr.Price
		m.Volume, _ = m.Volume.Add(tr.Volume)
		m.Trades++
		m.Block, m.Index = tr.Block, tr.Index
	}
	if !slices.Equal(want, minutes) {
		t.Fatalf("%s: minutes differ (-brute +AppendMinutes):\n%s", name, cmp.Diff(want, minutes))
	}
}

// checkRollUp asks for random windows from the minutes, all at once and page by page with the
// last minute before the window as the seed, and compares with Range over the trades.
func checkRollUp(t *testing.T, name string, res candles.Resolution, trades []candles.Trade, minutes []candles.Minute, rng *rand.Rand) {
	t.Helper()
	sec := res.Seconds()
	lo, hi := int64(-60)*sec, int64(60)*sec
	if len(trades) > 0 {
		lo, hi = trades[0].Time-5*sec, trades[len(trades)-1].Time+5*sec
	}
	for range 3 {
		from := lo + rng.Int64N(hi-lo+1)
		to := from + rng.Int64N(hi-from+1)
		p := candles.RangeParams{Resolution: res, From: from, To: to, Limit: 1 + rng.IntN(400)}
		want, err := candles.Range(trades, p)
		if err != nil {
			t.Fatalf("%s: Range: %v", name, err)
		}
		got, err := candles.RangeMinutes(minutes, p)
		if err != nil {
			t.Fatalf("%s: RangeMinutes: %v", name, err)
		}
		if !slices.Equal(want, got) {
			t.Fatalf("%s: %v RangeMinutes(%d, %d, limit %d) (-trades +minutes):\n%s", name, res, from, to, p.Limit, cmp.Diff(want, got))
		}
		// The store's pattern: the last minute before the window's first bucket, then the
		// window's minutes in pages.
		k := 0
		for k < len(minutes) && minutes[k].Time < res.Bucket(from) {
			k++
		}
		r, err := candles.NewRoller(p)
		if err != nil {
			t.Fatal(err)
		}
		if k > 0 {
			if _, err := r.Add(minutes[k-1 : k]); err != nil {
				t.Fatalf("%s: seed minute: %v", name, err)
			}
		}
		for rest := minutes[k:]; len(rest) > 0; {
			n := min(len(rest), 1+rng.IntN(5))
			more, err := r.Add(rest[:n])
			if err != nil {
				t.Fatalf("%s: Roller.Add: %v", name, err)
			}
			if !more {
				break
			}
			rest = rest[n:]
		}
		if got := r.Bars(); !slices.Equal(want, got) {
			t.Fatalf("%s: %v Roller(%d, %d, limit %d) (-trades +minutes):\n%s", name, res, from, to, p.Limit, cmp.Diff(want, got))
		}
	}
}

// checkFeedSeed is the live stream's pattern: a fold seeded from the minutes before a trade's
// minute and the trades of its minute before it, then the trade, holds the bar a fold of every
// trade holds.
func checkFeedSeed(t *testing.T, name string, res candles.Resolution, trades []candles.Trade, minutes []candles.Minute, rng *rand.Rand) {
	t.Helper()
	if len(trades) == 0 {
		return
	}
	k := rng.IntN(len(trades))
	all, _ := candles.NewFolder(res)
	var want candles.Step
	for i := 0; i <= k; i++ {
		var err error
		if want, err = all.Add(trades[i]); err != nil {
			t.Fatal(err)
		}
	}
	f, _ := candles.NewFolder(res)
	start := candles.Res1m.Bucket(trades[k].Time)
	for _, m := range minutes {
		if m.Time >= start {
			break
		}
		if _, err := f.AddMinute(m); err != nil {
			t.Fatalf("%s: AddMinute: %v", name, err)
		}
	}
	var got candles.Step
	for i := 0; i <= k; i++ {
		if candles.Res1m.Bucket(trades[i].Time) < start {
			continue
		}
		var err error
		if got, err = f.Add(trades[i]); err != nil {
			t.Fatalf("%s: Add after minutes: %v", name, err)
		}
	}
	if got.Bar != want.Bar {
		t.Fatalf("%s: %v bar of trade %d seeded from minutes %+v, from trades %+v", name, res, k, got.Bar, want.Bar)
	}
}

func TestMinuteAddRefuses(t *testing.T) {
	t.Parallel()
	var m candles.Minute
	if err := m.Add(candles.Trade{Time: 125, Block: 5, Index: 1, Price: 2, Volume: candles.VolumeOf(3)}); err != nil {
		t.Fatal(err)
	}
	want := m
	for _, c := range []struct {
		name string
		tr   candles.Trade
		err  error
	}{
		{"same key", candles.Trade{Time: 130, Block: 5, Index: 1, Price: 1}, candles.ErrOutOfOrder},
		{"earlier key", candles.Trade{Time: 130, Block: 4, Index: 9, Price: 1}, candles.ErrOutOfOrder},
		{"next minute", candles.Trade{Time: 180, Block: 6, Price: 1}, candles.ErrOutOfOrder},
		{"NaN", candles.Trade{Time: 130, Block: 6, Price: math.NaN()}, candles.ErrInvalidTrade},
		{"negative", candles.Trade{Time: 130, Block: 6, Price: -1}, candles.ErrInvalidTrade},
		{"overflow", candles.Trade{Time: 130, Block: 6, Price: 1, Volume: candles.Volume{Hi: math.MaxUint64, Lo: math.MaxUint64}}, candles.ErrOverflow},
	} {
		if err := m.Add(c.tr); !errors.Is(err, c.err) {
			t.Errorf("%s: got %v, want %v", c.name, err, c.err)
		}
		if m != want {
			t.Errorf("%s: the minute changed to %+v", c.name, m)
		}
	}
	if m.Time != 120 || m.Open != 2 || m.Trades != 1 {
		t.Errorf("minute %+v, want the minute starting 120 with the trade", m)
	}
}

func TestAddMinuteRefuses(t *testing.T) {
	t.Parallel()
	ok := candles.Minute{Time: 600, Open: 1, High: 2, Low: 0.5, Close: 1.5, Trades: 2, Block: 10, Index: 3}
	for _, c := range []struct {
		name string
		m    candles.Minute
		err  error
	}{
		{"not a minute start", candles.Minute{Time: 601, Open: 1, High: 1, Low: 1, Close: 1, Trades: 1, Block: 11}, candles.ErrInvalidTrade},
		{"no trades", candles.Minute{Time: 660, Open: 1, High: 1, Low: 1, Close: 1, Block: 11}, candles.ErrInvalidTrade},
		{"open above high", candles.Minute{Time: 660, Open: 3, High: 2, Low: 1, Close: 1, Trades: 1, Block: 11}, candles.ErrInvalidTrade},
		{"NaN", candles.Minute{Time: 660, Open: math.NaN(), High: 2, Low: 1, Close: 1, Trades: 1, Block: 11}, candles.ErrInvalidTrade},
		{"not after the last trade", candles.Minute{Time: 660, Open: 1, High: 1, Low: 1, Close: 1, Trades: 1, Block: 10, Index: 3}, candles.ErrOutOfOrder},
		{"older bucket", candles.Minute{Time: 540, Open: 1, High: 1, Low: 1, Close: 1, Trades: 1, Block: 11}, candles.ErrOutOfOrder},
	} {
		f, _ := candles.NewFolder(candles.Res1m)
		if _, err := f.AddMinute(ok); err != nil {
			t.Fatal(err)
		}
		if _, err := f.AddMinute(c.m); !errors.Is(err, c.err) {
			t.Errorf("%s: got %v, want %v", c.name, err, c.err)
		}
		if cur, _ := f.Current(); cur.Time != 600 || cur.Close != 1.5 || cur.Trades != 2 {
			t.Errorf("%s: the fold changed to %+v", c.name, cur)
		}
	}
}

// FuzzRangeMinutes holds RangeMinutes to Range over the same trades for fuzzed series and windows.
func FuzzRangeMinutes(f *testing.F) {
	f.Add(uint64(1), uint64(2), int64(0), int64(3600), uint8(0), uint16(100))
	f.Add(uint64(7), uint64(9), int64(-86400), int64(86400), uint8(5), uint16(3))
	f.Fuzz(func(t *testing.T, s1, s2 uint64, from, span int64, resIdx uint8, limit uint16) {
		rng := rand.New(rand.NewPCG(s1, s2))
		all := candles.Resolutions()
		res := all[int(resIdx)%len(all)]
		trades := randomTrades(rng, all[rng.IntN(len(all))])
		minutes, err := candles.AppendMinutes(nil, trades)
		if err != nil {
			t.Fatal(err)
		}
		from = from % (1 << 40)
		span = max(0, span%(1<<30))
		p := candles.RangeParams{Resolution: res, From: from, To: from + span, Limit: int(limit%1000) + 1}
		want, err := candles.Range(trades, p)
		if err != nil {
			t.Fatal(err)
		}
		got, err := candles.RangeMinutes(minutes, p)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(want, got) {
			t.Fatalf("(-trades +minutes):\n%s", cmp.Diff(want, got))
		}
	})
}
