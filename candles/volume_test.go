package candles_test

import (
	"errors"
	"math/big"
	"testing"

	"github.com/curvekit/curvekit/candles"
)

const maxU64 = ^uint64(0)

func TestVolumeAdd(t *testing.T) {
	t.Parallel()
	tests := []struct {
		a, b, want candles.Volume
		ok         bool
	}{
		{candles.VolumeOf(1), candles.VolumeOf(2), candles.VolumeOf(3), true},
		{candles.VolumeOf(maxU64), candles.VolumeOf(1), candles.Volume{Hi: 1}, true},
		{candles.Volume{Hi: 1, Lo: maxU64}, candles.Volume{Hi: 2, Lo: 1}, candles.Volume{Hi: 4}, true},
		{candles.Volume{Hi: maxU64, Lo: maxU64 - 1}, candles.VolumeOf(1), candles.Volume{Hi: maxU64, Lo: maxU64}, true},
		{candles.Volume{Hi: maxU64, Lo: maxU64}, candles.VolumeOf(1), candles.Volume{}, false},
		{candles.Volume{Hi: maxU64}, candles.Volume{Hi: 1}, candles.Volume{}, false},
	}
	for _, tt := range tests {
		got, ok := tt.a.Add(tt.b)
		if ok != tt.ok || (ok && got != tt.want) {
			t.Errorf("%v + %v = %v, %v; want %v, %v", tt.a, tt.b, got, ok, tt.want, tt.ok)
		}
		// Cross-check against big.Int.
		sum := new(big.Int).Add(tt.a.Big(), tt.b.Big())
		if fits := sum.BitLen() <= 128; fits != ok {
			t.Errorf("%v + %v: ok = %v, big says fits = %v", tt.a, tt.b, ok, fits)
		} else if ok && got.Big().Cmp(sum) != 0 {
			t.Errorf("%v + %v = %v, big says %v", tt.a, tt.b, got, sum)
		}
	}
}

func TestVolumeConversions(t *testing.T) {
	t.Parallel()
	tests := []struct {
		dec string
		v   candles.Volume
	}{
		{"0", candles.Volume{}},
		{"1500000000000000000", candles.VolumeOf(1_500_000_000_000_000_000)},
		{"18446744073709551615", candles.VolumeOf(maxU64)},
		{"18446744073709551616", candles.Volume{Hi: 1}},
		{"340282366920938463463374607431768211455", candles.Volume{Hi: maxU64, Lo: maxU64}},
	}
	for _, tt := range tests {
		got, err := candles.ParseVolume(tt.dec)
		if err != nil || got != tt.v {
			t.Errorf("ParseVolume(%q) = %v, %v; want %v", tt.dec, got, err, tt.v)
		}
		if s := tt.v.String(); s != tt.dec {
			t.Errorf("String() = %q, want %q", s, tt.dec)
		}
		b, _ := new(big.Int).SetString(tt.dec, 10)
		fromBig, err := candles.VolumeFromBig(b)
		if err != nil || fromBig != tt.v {
			t.Errorf("VolumeFromBig(%s) = %v, %v", tt.dec, fromBig, err)
		}
		if tt.v.IsZero() != (tt.dec == "0") {
			t.Errorf("IsZero(%v) = %v", tt.v, tt.v.IsZero())
		}
	}
	for _, bad := range []string{"", "-1", "1.5", "1e18", " 1", "0x10"} {
		if _, err := candles.ParseVolume(bad); !errors.Is(err, candles.ErrInvalidTrade) {
			t.Errorf("ParseVolume(%q) error = %v, want ErrInvalidTrade", bad, err)
		}
	}
	for _, big := range []string{"340282366920938463463374607431768211456", "3402823669209384634633746074317682114550"} {
		if _, err := candles.ParseVolume(big); !errors.Is(err, candles.ErrOverflow) {
			t.Errorf("ParseVolume(%q) error = %v, want ErrOverflow", big, err)
		}
	}
	two128 := new(big.Int).Lsh(big.NewInt(1), 128)
	for _, b := range []*big.Int{nil, big.NewInt(-1), two128} {
		if _, err := candles.VolumeFromBig(b); !errors.Is(err, candles.ErrOverflow) {
			t.Errorf("VolumeFromBig(%v) error = %v, want ErrOverflow", b, err)
		}
	}
}

func TestVolumeCmp(t *testing.T) {
	t.Parallel()
	vs := []candles.Volume{{}, {Lo: 1}, {Lo: maxU64}, {Hi: 1}, {Hi: 1, Lo: 1}, {Hi: maxU64, Lo: maxU64}}
	for i, a := range vs {
		for j, b := range vs {
			want := 0
			if i < j {
				want = -1
			} else if i > j {
				want = 1
			}
			if got := a.Cmp(b); got != want {
				t.Errorf("%v.Cmp(%v) = %d, want %d", a, b, got, want)
			}
		}
	}
}
