package candles_test

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/curvekit/curvekit/candles"
)

func TestRange(t *testing.T) {
	t.Parallel()
	seed := tr(1, 30, 4, 9)
	history := []candles.Trade{
		tr(2, 60, 5, 1), tr(3, 70, 6, 2), // bucket 60
		tr(4, 180, 3, 4), // bucket 180; 120 is quiet
		tr(5, 239, 8, 1), // bucket edge: still 180
		tr(6, 240, 7, 2), // exactly at a multiple: 240
		tr(7, 600, 9, 5), // 300..540 quiet
	}
	tests := []struct {
		name   string
		trades []candles.Trade
		p      candles.RangeParams
		want   []candles.Bar
	}{
		{
			name:   "flat fill between and after trades",
			trades: history,
			p:      candles.RangeParams{From: 0, To: 720},
			want: []candles.Bar{
				bar(60, 5, 6, 5, 6, 3, 2),
				flat(120, 6),
				bar(180, 6, 8, 3, 8, 5, 2),
				bar(240, 8, 8, 7, 7, 2, 1),
				flat(300, 7), flat(360, 7), flat(420, 7), flat(480, 7), flat(540, 7),
				bar(600, 7, 9, 7, 9, 5, 1),
				flat(660, 9), flat(720, 9),
			},
		},
		{
			name:   "unaligned window includes partial buckets whole",
			trades: history,
			p:      candles.RangeParams{From: 150, To: 250},
			want:   []candles.Bar{flat(120, 6), bar(180, 6, 8, 3, 8, 5, 2), bar(240, 8, 8, 7, 7, 2, 1)},
		},
		{
			name:   "window mid-history opens at the previous close",
			trades: history,
			p:      candles.RangeParams{From: 300, To: 600},
			want: []candles.Bar{
				flat(300, 7), flat(360, 7), flat(420, 7), flat(480, 7), flat(540, 7),
				bar(600, 7, 9, 7, 9, 5, 1),
			},
		},
		{
			name:   "seed before the first trade sets the first open",
			trades: history[:2],
			p:      candles.RangeParams{From: 60, To: 120, Seed: &seed},
			want:   []candles.Bar{bar(60, 4, 6, 4, 6, 3, 2), flat(120, 6)},
		},
		{
			name:   "seed alone fills the window flat",
			trades: nil,
			p:      candles.RangeParams{From: 1000, To: 1200, Seed: &seed},
			want:   []candles.Bar{flat(960, 4), flat(1020, 4), flat(1080, 4), flat(1140, 4), flat(1200, 4)},
		},
		{
			name:   "nothing before the first trade",
			trades: history[2:],
			p:      candles.RangeParams{From: 0, To: 240},
			want:   []candles.Bar{bar(180, 3, 8, 3, 8, 5, 2), bar(240, 8, 8, 7, 7, 2, 1)},
		},
		{
			name:   "window before the first trade is empty",
			trades: history,
			p:      candles.RangeParams{From: -600, To: 59},
			want:   nil,
		},
		{
			name:   "no trades is empty",
			trades: nil,
			p:      candles.RangeParams{From: 0, To: 6000},
			want:   nil,
		},
		{
			name:   "limit keeps the earliest bars",
			trades: history,
			p:      candles.RangeParams{From: 0, To: 720, Limit: 3},
			want:   []candles.Bar{bar(60, 5, 6, 5, 6, 3, 2), flat(120, 6), bar(180, 6, 8, 3, 8, 5, 2)},
		},
		{
			name:   "limit inside a quiet run",
			trades: history,
			p:      candles.RangeParams{From: 240, To: 720, Limit: 3},
			want:   []candles.Bar{bar(240, 8, 8, 7, 7, 2, 1), flat(300, 7), flat(360, 7)},
		},
		{
			name:   "trades after the window are not read",
			trades: append(history[:len(history):len(history)], candles.Trade{Time: 9999, Block: 0, Price: -1}),
			p:      candles.RangeParams{From: 600, To: 600},
			want:   []candles.Bar{bar(600, 7, 9, 7, 9, 5, 1)},
		},
		{
			name:   "single bucket window",
			trades: history,
			p:      candles.RangeParams{From: 180, To: 180},
			want:   []candles.Bar{bar(180, 6, 8, 3, 8, 5, 2)},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := tt.p
			p.Resolution = candles.Res1m
			if p.Limit == 0 {
				p.Limit = 1000
			}
			got, err := candles.Range(tt.trades, p)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Fatalf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestRangeVolumeSums(t *testing.T) {
	t.Parallel()
	big := candles.Volume{Hi: 1 << 62, Lo: maxU64}
	trades := []candles.Trade{
		{Time: 3600, Block: 1, Price: 1, Volume: big},
		{Time: 3601, Block: 1, Index: 1, Price: 1, Volume: candles.VolumeOf(1)},
		{Time: 7199, Block: 2, Price: 1, Volume: big},
	}
	got, err := candles.Range(trades, candles.RangeParams{Resolution: candles.Res1h, From: 0, To: 3600, Limit: 5})
	if err != nil {
		t.Fatal(err)
	}
	want := candles.Volume{Hi: 1<<63 + 1, Lo: maxU64}
	if len(got) != 1 || got[0].Volume != want || got[0].Trades != 3 {
		t.Fatalf("got %v, want one bar with volume %v", got, want)
	}
	trades = append(trades, candles.Trade{Time: 7199, Block: 3, Price: 1, Volume: candles.Volume{Hi: 1 << 63}})
	if _, err := candles.Range(trades, candles.RangeParams{Resolution: candles.Res1h, From: 0, To: 3600, Limit: 5}); !errors.Is(err, candles.ErrOverflow) {
		t.Fatalf("error = %v, want ErrOverflow", err)
	}
}

func TestRangeEquivalentSeeds(t *testing.T) {
	t.Parallel()
	// Passing the last trade before the window as Seed or at the head of trades is the same fold.
	seed := tr(1, 10, 2, 1)
	in := []candles.Trade{tr(2, 700, 3, 1), tr(3, 900, 1, 1)}
	p := candles.RangeParams{Resolution: candles.Res5m, From: 300, To: 1200, Limit: 100}
	viaHead, err := candles.Range(append([]candles.Trade{seed}, in...), p)
	if err != nil {
		t.Fatal(err)
	}
	p.Seed = &seed
	viaSeed, err := candles.Range(in, p)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(viaHead, viaSeed); diff != "" {
		t.Fatalf("(-head +seed):\n%s", diff)
	}
	if viaSeed[0] != flat(300, 2) {
		t.Fatalf("window opens with %v, want flat at the seed price", viaSeed[0])
	}
}

func TestRangeErrors(t *testing.T) {
	t.Parallel()
	ok := candles.RangeParams{Resolution: candles.Res1m, From: 0, To: 60, Limit: 10}
	tests := []struct {
		name   string
		edit   func(*candles.RangeParams)
		trades []candles.Trade
		want   error
	}{
		{"resolution", func(p *candles.RangeParams) { p.Resolution = 30 }, nil, candles.ErrResolution},
		{"from after to", func(p *candles.RangeParams) { p.From = 61 }, nil, candles.ErrInvalidRange},
		{"zero limit", func(p *candles.RangeParams) { p.Limit = 0 }, nil, candles.ErrInvalidRange},
		{"negative limit", func(p *candles.RangeParams) { p.Limit = -1 }, nil, candles.ErrInvalidRange},
		{"to past MaxTime", func(p *candles.RangeParams) { p.To = candles.MaxTime + 1 }, nil, candles.ErrInvalidRange},
		{"from before MinTime", func(p *candles.RangeParams) { p.From = candles.MinTime - 1 }, nil, candles.ErrInvalidRange},
		{"out of order", func(*candles.RangeParams) {}, []candles.Trade{tr(2, 0, 1, 1), tr(1, 1, 1, 1)}, candles.ErrOutOfOrder},
		{"bad seed", func(p *candles.RangeParams) { p.Seed = &candles.Trade{Price: -1} }, nil, candles.ErrInvalidTrade},
		{"seed after trades", func(p *candles.RangeParams) { p.Seed = &candles.Trade{Block: 5, Price: 1} }, []candles.Trade{tr(1, 0, 1, 1)}, candles.ErrOutOfOrder},
	}
	for _, tt := range tests {
		p := ok
		tt.edit(&p)
		if _, err := candles.Range(tt.trades, p); !errors.Is(err, tt.want) {
			t.Errorf("%s: error = %v, want %v", tt.name, err, tt.want)
		}
	}
}

func TestAppendRangeKeepsPrefix(t *testing.T) {
	t.Parallel()
	dst := []candles.Bar{flat(-60, 1)}
	got, err := candles.AppendRange(dst, []candles.Trade{tr(1, 0, 2, 1)},
		candles.RangeParams{Resolution: candles.Res1m, From: 0, To: 120, Limit: 2})
	if err != nil {
		t.Fatal(err)
	}
	want := []candles.Bar{flat(-60, 1), bar(0, 2, 2, 2, 2, 1, 1), flat(60, 2)}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("(-want +got):\n%s", diff)
	}
}
