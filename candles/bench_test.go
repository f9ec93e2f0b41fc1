package candles_test

import (
	"testing"

	"github.com/curvekit/curvekit/candles"
)

var sinkStep candles.Step

// BenchmarkFoldSameBucket is the live stream's hot path: a trade that lands in the current bar.
func BenchmarkFoldSameBucket(b *testing.B) {
	for _, res := range candles.Resolutions() {
		b.Run(res.String(), func(b *testing.B) {
			f, err := candles.NewFolder(res)
			if err != nil {
				b.Fatal(err)
			}
			start := res.Bucket(1_700_000_000)
			if _, err := f.Add(candles.Trade{Time: start, Block: 0, Price: 1, Volume: candles.VolumeOf(1)}); err != nil {
				b.Fatal(err)
			}
			prices := [4]float64{1.5, 0.5, 1.25, 1}
			vol := candles.Volume{Hi: 1, Lo: 1e18}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				s, err := f.Add(candles.Trade{
					Time:   start + int64(i)%res.Seconds(),
					Block:  uint64(i) + 1,
					Price:  prices[i&3],
					Volume: vol,
				})
				if err != nil {
					b.Fatal(err)
				}
				sinkStep = s
			}
		})
	}
}

// BenchmarkFoldNewBucket measures a trade that closes the bar and opens the next one.
func BenchmarkFoldNewBucket(b *testing.B) {
	f, err := candles.NewFolder(candles.Res1m)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		s, err := f.Add(candles.Trade{Time: int64(i) * 60, Block: uint64(i), Price: float64(i & 7), Volume: candles.VolumeOf(1)})
		if err != nil {
			b.Fatal(err)
		}
		sinkStep = s
	}
}

var sinkBars []candles.Bar

// BenchmarkRange1000 folds 5,000 trades into a 1,000-bar window, about what one REST candles call
// does at the usual maximum page size.
func BenchmarkRange1000(b *testing.B) {
	trades := make([]candles.Trade, 5000)
	for i := range trades {
		trades[i] = candles.Trade{Time: int64(i) * 12, Block: uint64(i), Price: float64(i % 13), Volume: candles.VolumeOf(uint64(i))}
	}
	p := candles.RangeParams{Resolution: candles.Res1m, From: 0, To: 999 * 60, Limit: 1000}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		bars, err := candles.AppendRange(sinkBars[:0], trades, p)
		if err != nil {
			b.Fatal(err)
		}
		sinkBars = bars
	}
}
