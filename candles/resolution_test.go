package candles_test

import (
	"errors"
	"testing"

	"github.com/curvekit/curvekit/candles"
)

func TestParseResolution(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in      string
		want    candles.Resolution
		wantErr bool
	}{
		{"1m", candles.Res1m, false},
		{"5m", candles.Res5m, false},
		{"15m", candles.Res15m, false},
		{"1h", candles.Res1h, false},
		{"4h", candles.Res4h, false},
		{"1d", candles.Res1d, false},
		{"", 0, true},
		{"1M", 0, true},
		{"60", 0, true},
		{"2h", 0, true},
		{" 5m", 0, true},
		{"5m ", 0, true},
	}
	for _, tt := range tests {
		got, err := candles.ParseResolution(tt.in)
		if tt.wantErr {
			if !errors.Is(err, candles.ErrResolution) {
				t.Errorf("ParseResolution(%q) error = %v, want ErrResolution", tt.in, err)
			}
			if fb := candles.ParseResolutionOrDefault(tt.in); fb != candles.Res5m {
				t.Errorf("ParseResolutionOrDefault(%q) = %v, want 5m", tt.in, fb)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("ParseResolution(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
		}
		if got.String() != tt.in {
			t.Errorf("%v.String() = %q, want %q", got, got.String(), tt.in)
		}
		if fb := candles.ParseResolutionOrDefault(tt.in); fb != tt.want {
			t.Errorf("ParseResolutionOrDefault(%q) = %v, want %v", tt.in, fb, tt.want)
		}
	}
}

func TestResolutionText(t *testing.T) {
	t.Parallel()
	for _, r := range candles.Resolutions() {
		text, err := r.MarshalText()
		if err != nil {
			t.Fatal(err)
		}
		var back candles.Resolution
		if err := back.UnmarshalText(text); err != nil || back != r {
			t.Errorf("text round trip of %v: %v, %v", r, back, err)
		}
		if !r.Valid() || r.Seconds() != int64(r) {
			t.Errorf("%v: Valid %v Seconds %d", r, r.Valid(), r.Seconds())
		}
	}
	if _, err := candles.Resolution(61).MarshalText(); !errors.Is(err, candles.ErrResolution) {
		t.Errorf("MarshalText(61s) error = %v, want ErrResolution", err)
	}
	if s := candles.Resolution(61).String(); s != "Resolution(61)" {
		t.Errorf("String(61s) = %q", s)
	}
	if got := len(candles.Resolutions()); got != 6 {
		t.Errorf("%d resolutions, want 6", got)
	}
}

func TestBucket(t *testing.T) {
	t.Parallel()
	tests := []struct {
		res  candles.Resolution
		ts   int64
		want int64
	}{
		{candles.Res1m, 0, 0},
		{candles.Res1m, 59, 0},
		{candles.Res1m, 60, 60},
		{candles.Res1m, 61, 60},
		{candles.Res1m, -1, -60},
		{candles.Res1m, -59, -60},
		{candles.Res1m, -60, -60},
		{candles.Res1m, -61, -120},
		{candles.Res5m, 1_700_000_123, 1_700_000_100},
		{candles.Res15m, 1_700_000_000, 1_699_999_200},
		{candles.Res1h, 3599, 0},
		{candles.Res1h, 3600, 3600},
		{candles.Res4h, 14_400*3 - 1, 14_400 * 2},
		{candles.Res1d, 1_700_000_000, 1_699_920_000},
		{candles.Res1d, -86_400, -86_400},
		{candles.Res1d, -86_401, -172_800},
		{candles.Res1d, candles.MaxTime, candles.MaxTime - candles.MaxTime%86_400},
		{candles.Res1d, candles.MinTime, candles.MinTime - 86_400 - candles.MinTime%86_400},
	}
	for _, tt := range tests {
		if got := tt.res.Bucket(tt.ts); got != tt.want {
			t.Errorf("%v.Bucket(%d) = %d, want %d", tt.res, tt.ts, got, tt.want)
		}
	}
}
