package candles_test

import (
	"fmt"

	"github.com/curvekit/curvekit/candles"
)

// A window of 1m bars. The trade at 09:58 seeds the window; 10:01 and 10:04 are quiet and flat at
// the previous close; every bar opens at the previous close.
func ExampleRange() {
	const t0 = 1_767_261_600 // 2026-01-01 10:00:00 UTC
	eth := func(milli uint64) candles.Volume { return candles.VolumeOf(milli * 1e15) }
	seed := candles.Trade{Time: t0 - 120, Block: 99, Price: 0.0010, Volume: eth(500)}
	trades := []candles.Trade{
		{Time: t0 + 5, Block: 100, Index: 0, Price: 0.0012, Volume: eth(1000)},
		{Time: t0 + 40, Block: 103, Index: 2, Price: 0.0011, Volume: eth(250)},
		{Time: t0 + 125, Block: 110, Index: 0, Price: 0.0013, Volume: eth(2000)},
		{Time: t0 + 180, Block: 114, Index: 1, Price: 0.0009, Volume: eth(750)},
	}
	bars, err := candles.Range(trades, candles.RangeParams{
		Resolution: candles.Res1m, From: t0, To: t0 + 4*60, Limit: 1000, Seed: &seed,
	})
	if err != nil {
		panic(err)
	}
	for _, b := range bars {
		fmt.Printf("%d  O %.4f H %.4f L %.4f C %.4f  V %s wei  %d trades\n",
			b.Time-t0, b.Open, b.High, b.Low, b.Close, b.Volume, b.Trades)
	}
	// Output:
	// 0  O 0.0010 H 0.0012 L 0.0010 C 0.0011  V 1250000000000000000 wei  2 trades
	// 60  O 0.0011 H 0.0011 L 0.0011 C 0.0011  V 0 wei  0 trades
	// 120  O 0.0011 H 0.0013 L 0.0011 C 0.0013  V 2000000000000000000 wei  1 trades
	// 180  O 0.0013 H 0.0013 L 0.0009 C 0.0009  V 750000000000000000 wei  1 trades
	// 240  O 0.0009 H 0.0009 L 0.0009 C 0.0009  V 0 wei  0 trades
}

// The live stream keeps one Folder per token and resolution. A trade in the current bucket updates
// the bar in place; one in a later bucket closes it and reports the quiet buckets in between.
func ExampleFolder() {
	f, err := candles.NewFolder(candles.Res5m)
	if err != nil {
		panic(err)
	}
	for _, t := range []candles.Trade{
		{Time: 600, Block: 1, Price: 2.0, Volume: candles.VolumeOf(10)},
		{Time: 899, Block: 2, Price: 2.5, Volume: candles.VolumeOf(5)},
		{Time: 1500, Block: 3, Price: 1.5, Volume: candles.VolumeOf(1)},
	} {
		s, err := f.Add(t)
		if err != nil {
			panic(err)
		}
		if s.Closed {
			fmt.Printf("closed %d at %.1f, %d quiet bucket(s)\n", s.Prev.Time, s.Prev.Close, s.Gap)
		}
		fmt.Printf("bar %d O %.1f H %.1f L %.1f C %.1f V %s\n", s.Bar.Time, s.Bar.Open, s.Bar.High, s.Bar.Low, s.Bar.Close, s.Bar.Volume)
	}
	// Output:
	// bar 600 O 2.0 H 2.0 L 2.0 C 2.0 V 10
	// bar 600 O 2.0 H 2.5 L 2.0 C 2.5 V 15
	// closed 600 at 2.5, 2 quiet bucket(s)
	// bar 1500 O 2.5 H 2.5 L 1.5 C 1.5 V 1
}
