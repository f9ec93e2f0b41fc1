package candles_test

import (
	"errors"
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/curvekit/curvekit/candles"
)

// tr builds a trade; blocks number trades so that table rows stay short.
func tr(block uint64, ts int64, price float64, vol uint64) candles.Trade {
	return candles.Trade{Time: ts, Block: block, Price: price, Volume: candles.VolumeOf(vol)}
}

func bar(ts int64, o, h, l, c float64, vol uint64, n int) candles.Bar {
	return candles.Bar{Time: ts, Open: o, High: h, Low: l, Close: c, Volume: candles.VolumeOf(vol), Trades: n}
}

func flat(ts int64, p float64) candles.Bar { return bar(ts, p, p, p, p, 0, 0) }

func newFolder(t *testing.T, res candles.Resolution) *candles.Folder {
	t.Helper()
	f, err := candles.NewFolder(res)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func TestFolderSteps(t *testing.T) {
	t.Parallel()
	f := newFolder(t, candles.Res1m)
	if _, ok := f.Current(); ok {
		t.Fatal("empty folder has a current bar")
	}
	steps := []struct {
		trade candles.Trade
		want  candles.Step
	}{
		// The first bar opens at the first trade's price.
		{tr(1, 60, 10, 5), candles.Step{Bar: bar(60, 10, 10, 10, 10, 5, 1)}},
		// Same bucket: in place; the bucket edge 119 still belongs to 60.
		{tr(2, 119, 12, 1), candles.Step{Bar: bar(60, 10, 12, 10, 12, 6, 2)}},
		{tr(3, 100, 9, 2), candles.Step{Bar: bar(60, 10, 12, 9, 9, 8, 3)}},
		// Exactly at the next multiple: a new bar opening at the previous close; its low includes it.
		{tr(4, 120, 11, 3), candles.Step{
			Bar: bar(120, 9, 11, 9, 11, 3, 1), Closed: true, Prev: bar(60, 10, 12, 9, 9, 8, 3),
		}},
		// Three quiet buckets (180, 240, 300) then a drop: high includes the open.
		{tr(5, 360, 7, 4), candles.Step{
			Bar: bar(360, 11, 11, 7, 7, 4, 1), Closed: true, Prev: bar(120, 9, 11, 9, 11, 3, 1), Gap: 3,
		}},
		// Same price as the open.
		{tr(6, 420, 7, 0), candles.Step{
			Bar: bar(420, 7, 7, 7, 7, 0, 1), Closed: true, Prev: bar(360, 11, 11, 7, 7, 4, 1),
		}},
	}
	for i, s := range steps {
		got, err := f.Add(s.trade)
		if err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		if diff := cmp.Diff(s.want, got); diff != "" {
			t.Fatalf("step %d (-want +got):\n%s", i, diff)
		}
		if cur, _ := f.Current(); cur != got.Bar {
			t.Fatalf("step %d: Current %v, step bar %v", i, cur, got.Bar)
		}
	}
}

func TestFolderNegativeAndZeroTimes(t *testing.T) {
	t.Parallel()
	f := newFolder(t, candles.Res5m)
	for i, ts := range []int64{-301, -300, -1, 0, 299, 300} {
		if _, err := f.Add(tr(uint64(i), ts, float64(i+1), 1)); err != nil {
			t.Fatal(err)
		}
	}
	got, err := candles.Range([]candles.Trade{
		tr(0, -301, 1, 1), tr(1, -300, 2, 1), tr(2, -1, 3, 1), tr(3, 0, 4, 1), tr(4, 299, 5, 1), tr(5, 300, 6, 1),
	}, candles.RangeParams{Resolution: candles.Res5m, From: -1000, To: 300, Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	want := []candles.Bar{
		bar(-600, 1, 1, 1, 1, 1, 1),
		bar(-300, 1, 3, 1, 3, 2, 2),
		bar(0, 3, 5, 3, 5, 2, 2),
		bar(300, 5, 6, 5, 6, 1, 1),
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("(-want +got):\n%s", diff)
	}
	if cur, _ := f.Current(); cur != want[3] {
		t.Errorf("folder current %v, range last %v", cur, want[3])
	}
}

func TestFolderRefuses(t *testing.T) {
	t.Parallel()
	maxVol := candles.Volume{Hi: maxU64, Lo: maxU64}
	tests := []struct {
		name  string
		trade candles.Trade
		want  error
	}{
		{"same key", candles.Trade{Time: 130, Block: 10, Index: 2, Price: 1}, candles.ErrOutOfOrder},
		{"earlier index", candles.Trade{Time: 130, Block: 10, Index: 1, Price: 1}, candles.ErrOutOfOrder},
		{"earlier block", candles.Trade{Time: 130, Block: 9, Index: 7, Price: 1}, candles.ErrOutOfOrder},
		{"older bucket", candles.Trade{Time: 119, Block: 11, Price: 1}, candles.ErrOutOfOrder},
		{"NaN price", candles.Trade{Time: 130, Block: 11, Price: math.NaN()}, candles.ErrInvalidTrade},
		{"infinite price", candles.Trade{Time: 130, Block: 11, Price: math.Inf(1)}, candles.ErrInvalidTrade},
		{"negative price", candles.Trade{Time: 130, Block: 11, Price: -1}, candles.ErrInvalidTrade},
		{"time too late", candles.Trade{Time: candles.MaxTime + 1, Block: 11, Price: 1}, candles.ErrInvalidTrade},
		{"time too early", candles.Trade{Time: candles.MinTime - 1, Block: 11, Price: 1}, candles.ErrInvalidTrade},
		{"volume overflow", candles.Trade{Time: 130, Block: 11, Price: 1, Volume: maxVol}, candles.ErrOverflow},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFolder(t, candles.Res1m)
			if _, err := f.Add(candles.Trade{Time: 125, Block: 10, Index: 2, Price: 3, Volume: candles.VolumeOf(7)}); err != nil {
				t.Fatal(err)
			}
			before, _ := f.Current()
			if _, err := f.Add(tt.trade); !errors.Is(err, tt.want) {
				t.Fatalf("Add error = %v, want %v", err, tt.want)
			}
			if after, _ := f.Current(); after != before {
				t.Fatalf("refused trade changed the bar: %v -> %v", before, after)
			}
			// The fold goes on from where it was.
			s, err := f.Add(candles.Trade{Time: 126, Block: 10, Index: 3, Price: 4, Volume: candles.VolumeOf(1)})
			if err != nil || s.Bar != bar(120, 3, 4, 3, 4, 8, 2) {
				t.Fatalf("next Add = %v, %v", s.Bar, err)
			}
		})
	}
}

func TestFolderNegativeZeroPrice(t *testing.T) {
	t.Parallel()
	f := newFolder(t, candles.Res1m)
	s, err := f.Add(tr(1, 0, math.Copysign(0, -1), 0))
	if err != nil {
		t.Fatal(err)
	}
	if math.Signbit(s.Bar.Open) || math.Signbit(s.Bar.Close) {
		t.Fatalf("-0 price kept its sign: %v", s.Bar)
	}
}

func TestFolderAdvance(t *testing.T) {
	t.Parallel()
	f := newFolder(t, candles.Res1h)
	if s, err := f.Advance(7200); err != nil || s != (candles.Step{}) {
		t.Fatalf("Advance on an empty fold = %v, %v", s, err)
	}
	if _, err := f.Add(tr(1, 3600, 5, 2)); err != nil {
		t.Fatal(err)
	}
	if s, err := f.Advance(7199); err != nil || s.Closed || s.Bar != bar(3600, 5, 5, 5, 5, 2, 1) {
		t.Fatalf("Advance within the bucket = %+v, %v", s, err)
	}
	s, err := f.Advance(4*3600 + 1)
	if err != nil {
		t.Fatal(err)
	}
	want := candles.Step{Bar: flat(4*3600, 5), Closed: true, Prev: bar(3600, 5, 5, 5, 5, 2, 1), Gap: 2}
	if diff := cmp.Diff(want, s); diff != "" {
		t.Fatalf("(-want +got):\n%s", diff)
	}
	if _, err := f.Advance(3 * 3600); !errors.Is(err, candles.ErrOutOfOrder) {
		t.Fatalf("Advance backwards error = %v", err)
	}
	if _, err := f.Advance(candles.MaxTime + 1); !errors.Is(err, candles.ErrInvalidRange) {
		t.Fatalf("Advance past MaxTime error = %v", err)
	}
	// A trade in the advanced-to bucket folds into the quiet bar as if it had opened the bucket.
	s, err = f.Add(tr(2, 4*3600+10, 6, 3))
	if err != nil || s.Closed || s.Bar != bar(4*3600, 5, 6, 5, 6, 3, 1) {
		t.Fatalf("trade after Advance = %+v, %v", s, err)
	}
	if _, err := f.Add(tr(3, 3*3600, 6, 3)); !errors.Is(err, candles.ErrOutOfOrder) {
		t.Fatalf("trade before the advanced-to bucket error = %v", err)
	}
}

func TestNewFolderRejectsResolution(t *testing.T) {
	t.Parallel()
	for _, r := range []candles.Resolution{0, -60, 61, 120} {
		if _, err := candles.NewFolder(r); !errors.Is(err, candles.ErrResolution) {
			t.Errorf("NewFolder(%d) error = %v", r, err)
		}
	}
}
