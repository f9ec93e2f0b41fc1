package curvekit

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/holiman/uint256"
)

func TestParseAmount(t *testing.T) {
	t.Parallel()
	max := new(uint256.Int).SetAllOne()
	tests := []struct {
		in       string
		decimals uint8
		want     string // decimal base units; "" means an error
	}{
		{"1", 18, "1000000000000000000"},
		{"1.5", 18, "1500000000000000000"},
		{"0.000000000000000001", 18, "1"},
		{"0", 18, "0"},
		{"000.10", 6, "100000"},
		{"42", 0, "42"},
		{"1.000001", 6, "1000001"},
		{max.Dec(), 0, max.Dec()},
		{"0.0000000000000000001", 18, ""}, // 19 decimals
		{"1.0000001", 6, ""},
		{"1.", 18, ""},
		{".5", 18, ""},
		{"", 18, ""},
		{"-1", 18, ""},
		{"+1", 18, ""},
		{"1e18", 18, ""},
		{" 1", 18, ""},
		{"1 ", 18, ""},
		{"1,5", 18, ""},
		{"1.2.3", 18, ""},
		{"0x10", 18, ""},
		{"abc", 18, ""},
		{"١", 18, ""}, // non-ASCII digit
		{"1", 0, "1"},
		{"1.0", 0, ""},
		{"115792089237316195423570985008687907853269984665640564039457584007913129639936", 0, ""}, // 2^256
		{"115792089237316195423570985008687907853269984665640564039457.584007913129639935", 18, max.Dec()},
		{"115792089237316195423570985008687907853269984665640564039457.584007913129639936", 18, ""},
	}
	for _, tt := range tests {
		got, err := ParseAmount(tt.in, tt.decimals)
		if tt.want == "" {
			if err == nil {
				t.Errorf("ParseAmount(%q, %d) = %s, want an error", tt.in, tt.decimals, got.Dec())
			} else if !errors.Is(err, ErrInvalid) {
				t.Errorf("ParseAmount(%q, %d) error %v does not wrap ErrInvalid", tt.in, tt.decimals, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("ParseAmount(%q, %d): %v", tt.in, tt.decimals, err)
			continue
		}
		if got.Dec() != tt.want {
			t.Errorf("ParseAmount(%q, %d) = %s, want %s", tt.in, tt.decimals, got.Dec(), tt.want)
		}
	}
}

func TestFormatAmount(t *testing.T) {
	t.Parallel()
	tests := []struct {
		units    string
		decimals uint8
		want     string
	}{
		{"0", 18, "0"},
		{"1", 18, "0.000000000000000001"},
		{"1500000000000000000", 18, "1.5"},
		{"1000000", 6, "1"},
		{"123456789", 6, "123.456789"},
		{"42", 0, "42"},
	}
	for _, tt := range tests {
		v := uint256.MustFromDecimal(tt.units)
		if got := FormatAmount(v, tt.decimals); got != tt.want {
			t.Errorf("FormatAmount(%s, %d) = %q, want %q", tt.units, tt.decimals, got, tt.want)
		}
	}
}

// FuzzParseAmount checks that parsing never panics, accepts only canonical shapes, and that every
// accepted amount survives a format/parse round trip.
func FuzzParseAmount(f *testing.F) {
	f.Add("1.5", uint8(18))
	f.Add("0", uint8(0))
	f.Add("-1", uint8(6))
	f.Fuzz(func(t *testing.T, s string, decimals uint8) {
		v, err := ParseAmount(s, decimals)
		if err != nil {
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("error %v does not wrap ErrInvalid", err)
			}
			return
		}
		for i := 0; i < len(s); i++ {
			if (s[i] < '0' || s[i] > '9') && s[i] != '.' {
				t.Fatalf("accepted %q with byte %q", s, s[i])
			}
		}
		back, err := ParseAmount(FormatAmount(&v, decimals), decimals)
		if err != nil || back != v {
			t.Fatalf("round trip of %q: %s, %v", s, back.Dec(), err)
		}
	})
}

func ExampleParseAmount() {
	v, err := ParseAmount("1.25", 6)
	if err != nil {
		panic(err)
	}
	fmt.Println(v.Uint64(), FormatAmount(&v, 6))
	_, err = ParseAmount("1.0000001", 6)
	fmt.Println(err)
	// Output:
	// 1250000 1.25
	// invalid input: amount "1.0000001" has more than 6 decimals
}

// FormatAmount agrees with a plain decimal rendering at every size and precision: limbs at their
// extremes, powers of ten around the nineteen-digit chunks, every decimals up to the maximum.
func TestFormatAmountAgainstDecimal(t *testing.T) {
	t.Parallel()
	reference := func(v *uint256.Int, decimals uint8) string {
		digits := v.Dec()
		d := int(min(decimals, MaxDecimals))
		for len(digits) <= d {
			digits = "0" + digits
		}
		whole, frac := digits[:len(digits)-d], digits[len(digits)-d:]
		for len(frac) > 0 && frac[len(frac)-1] == '0' {
			frac = frac[:len(frac)-1]
		}
		if frac == "" {
			return whole
		}
		return whole + "." + frac
	}
	var values []*uint256.Int
	for _, s := range []string{"0", "1", "9", "10", "9999999999999999999", "10000000000000000000", "10000000000000000001",
		"18446744073709551615", "18446744073709551616", "340282366920938463463374607431768211455"} {
		values = append(values, uint256.MustFromDecimal(s))
	}
	values = append(values, new(uint256.Int).SetAllOne())
	r := rand.New(rand.NewPCG(3, 4))
	for range 3000 {
		// One to four limbs, each anything (a zero limb under a higher one included).
		var v uint256.Int
		for l := range 1 + r.IntN(4) {
			if r.IntN(4) > 0 {
				v[l] = r.Uint64() >> r.IntN(64)
			}
		}
		values = append(values, &v)
	}
	for e := uint64(0); e < 78; e++ {
		p := new(uint256.Int).Exp(uint256.NewInt(10), uint256.NewInt(e))
		values = append(values, p, new(uint256.Int).SubUint64(p, 1), new(uint256.Int).AddUint64(p, 7))
	}
	for _, v := range values {
		for d := uint8(0); d <= MaxDecimals+2; d++ {
			if got, want := FormatAmount(v, d), reference(v, d); got != want {
				t.Fatalf("FormatAmount(%s, %d) = %q, want %q", v.Dec(), d, got, want)
			}
		}
	}
}
