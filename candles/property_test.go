package candles_test

import (
	"fmt"
	"math/big"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/curvekit/curvekit/candles"
)

// The properties below compare the incremental fold (Folder, Range) with a brute-force
// recomputation from the raw trades: group by bucket, walk every bucket, sum with big.Int.

// brute returns the bars of buckets [from, to] of the series of trades, at most limit of them.
func brute(t *testing.T, trades []candles.Trade, res candles.Resolution, from, to int64, limit int) []candles.Bar {
	t.Helper()
	if len(trades) == 0 {
		return nil
	}
	sec := res.Seconds()
	var out []candles.Bar
	prevClose := trades[0].Price
	i := 0
	for b := res.Bucket(trades[0].Time); b <= to && len(out) < limit; b += sec {
		open := prevClose
		bar := candles.Bar{Time: b, Open: open, High: open, Low: open, Close: open}
		sum := new(big.Int)
		for ; i < len(trades) && res.Bucket(trades[i].Time) == b; i++ {
			p := trades[i].Price
			bar.High = max(bar.High, p)
			bar.Low = min(bar.Low, p)
			bar.Close = p
			bar.Trades++
			sum.Add(sum, trades[i].Volume.Big())
		}
		v, err := candles.VolumeFromBig(sum)
		if err != nil {
			t.Fatalf("brute volume: %v", err)
		}
		bar.Volume = v
		prevClose = bar.Close
		if b >= from {
			out = append(out, bar)
		}
	}
	return out
}

// randomTrades returns up to 80 trades in chain order spread over a few hundred buckets of res,
// starting anywhere around zero (negative times included).
func randomTrades(rng *rand.Rand, res candles.Resolution) []candles.Trade {
	sec := res.Seconds()
	n := rng.IntN(81)
	ts := rng.Int64N(100*sec) - 50*sec
	var block uint64 = rng.Uint64N(1000)
	var index uint32
	prices := []float64{1, 1.5, 2, 0.25, 3e-9, 0}
	trades := make([]candles.Trade, n)
	for i := range trades {
		switch r := rng.IntN(10); {
		case r < 5: // mostly same bucket
			ts += rng.Int64N(sec/3 + 1)
		case r < 8:
			ts += rng.Int64N(2 * sec)
		default:
			ts += rng.Int64N(20 * sec)
		}
		if rng.IntN(3) == 0 {
			index += uint32(1 + rng.IntN(3))
		} else {
			block += uint64(1 + rng.IntN(3))
			index = uint32(rng.IntN(4))
		}
		price := prices[rng.IntN(len(prices))]
		if rng.IntN(2) == 0 {
			price = rng.Float64() * 10
		}
		vol := candles.VolumeOf(rng.Uint64N(1e18))
		if rng.IntN(5) == 0 { // large volumes exercise the carry
			vol = candles.Volume{Hi: rng.Uint64N(1 << 40), Lo: rng.Uint64()}
		}
		trades[i] = candles.Trade{Time: ts, Block: block, Index: index, Price: price, Volume: vol}
	}
	return trades
}

// materialize appends what a step says to a series: the closed bar, the quiet gap, the current bar
// (replacing the previous state of the same bucket).
func materialize(series []candles.Bar, s candles.Step) []candles.Bar {
	if s.Closed {
		if n := len(series); n > 0 && series[n-1].Time == s.Prev.Time {
			series[n-1] = s.Prev
		} else {
			series = append(series, s.Prev)
		}
		for k := int64(1); k <= s.Gap; k++ {
			series = append(series, s.Prev.Quiet(s.Prev.Time+k*(s.Bar.Time-s.Prev.Time)/(s.Gap+1)))
		}
		return append(series, s.Bar)
	}
	if n := len(series); n > 0 && series[n-1].Time == s.Bar.Time {
		series[n-1] = s.Bar
		return series
	}
	return append(series, s.Bar)
}

func TestPropertyFoldMatchesBruteForce(t *testing.T) {
	t.Parallel()
	for _, res := range candles.Resolutions() {
		t.Run(res.String(), func(t *testing.T) {
			t.Parallel()
			rng := rand.New(rand.NewPCG(uint64(res), 1))
			for iter := range 500 {
				trades := randomTrades(rng, res)
				name := fmt.Sprintf("iteration %d (%d trades)", iter, len(trades))
				checkFolder(t, name, res, trades, rng)
				checkRange(t, name, res, trades, rng)
			}
		})
	}
}

// checkFolder folds trades one by one, with Advance calls sprinkled between them, and compares the
// series the steps describe with the brute force.
func checkFolder(t *testing.T, name string, res candles.Resolution, trades []candles.Trade, rng *rand.Rand) {
	t.Helper()
	f, err := candles.NewFolder(res)
	if err != nil {
		t.Fatal(err)
	}
	var series []candles.Bar
	for i, tr := range trades {
		s, err := f.Add(tr)
		if err != nil {
			t.Fatalf("%s: Add %d: %v", name, i, err)
		}
		if cur, _ := f.Current(); cur != s.Bar {
			t.Fatalf("%s: Current %v differs from step bar %v", name, cur, s.Bar)
		}
		series = materialize(series, s)
		if i+1 < len(trades) && rng.IntN(4) == 0 {
			// Advance to somewhere before the next trade: the same series must come out.
			ts := tr.Time + rng.Int64N(trades[i+1].Time-tr.Time+1)
			s, err := f.Advance(ts)
			if err != nil {
				t.Fatalf("%s: Advance(%d): %v", name, ts, err)
			}
			series = materialize(series, s)
		}
	}
	var want []candles.Bar
	if len(trades) > 0 {
		last := res.Bucket(trades[len(trades)-1].Time)
		want = brute(t, trades, res, candles.MinTime, last, 1<<30)
		// Bars Advance opened after the last trade are flat; the brute force stops at the last trade.
		for len(series) > len(want) && series[len(series)-1].Trades == 0 {
			series = series[:len(series)-1]
		}
	}
	if !slices.Equal(want, series) {
		t.Fatalf("%s: incremental fold differs from brute force (-brute +fold):\n%s", name, cmp.Diff(want, series))
	}
}

// checkRange asks Range for random windows, with the history before the window passed as leading
// trades and as a Seed, and compares with the brute force.
func checkRange(t *testing.T, name string, res candles.Resolution, trades []candles.Trade, rng *rand.Rand) {
	t.Helper()
	sec := res.Seconds()
	lo, hi := int64(-60)*sec, int64(60)*sec
	if len(trades) > 0 {
		lo, hi = trades[0].Time-5*sec, trades[len(trades)-1].Time+5*sec
	}
	for range 4 {
		from := lo + rng.Int64N(hi-lo+1)
		to := from + rng.Int64N(hi-from+1)
		limit := 1 + rng.IntN(400)
		want := brute(t, trades, res, res.Bucket(from), res.Bucket(to), limit)
		p := candles.RangeParams{Resolution: res, From: from, To: to, Limit: limit}
		got, err := candles.Range(trades, p)
		if err != nil {
			t.Fatalf("%s: Range: %v", name, err)
		}
		if !slices.Equal(want, got) {
			t.Fatalf("%s: Range(%d, %d, limit %d) (-brute +range):\n%s", name, from, to, limit, cmp.Diff(want, got))
		}
		// The REST pattern: the trades of the window plus the last trade before it as the seed.
		k := 0
		for k < len(trades) && res.Bucket(trades[k].Time) < res.Bucket(from) {
			k++
		}
		if k > 0 {
			p.Seed = &trades[k-1]
		}
		got, err = candles.Range(trades[k:], p)
		if err != nil {
			t.Fatalf("%s: seeded Range: %v", name, err)
		}
		if !slices.Equal(want, got) {
			t.Fatalf("%s: seeded Range(%d, %d, limit %d) (-brute +range):\n%s", name, from, to, limit, cmp.Diff(want, got))
		}
	}
}
