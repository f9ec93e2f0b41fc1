package candles

import (
	"fmt"
	"math/big"
	"math/bits"
)

// Volume is an exact unsigned 128-bit amount of the pairing asset in base units (wei for ETH):
// Hi*2^64 + Lo. It is a plain value, so sums need no allocation and bars compare with ==.
//
// Volume is not a wire type: it has no decimals. Convert with Big (or read Hi and Lo) and format
// with the asset's decimals at the edge.
type Volume struct {
	Hi, Lo uint64
}

// VolumeOf returns v base units as a Volume.
func VolumeOf(v uint64) Volume { return Volume{Lo: v} }

var maxVolume = new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 128), big.NewInt(1))

// VolumeFromBig converts a non-negative integer below 2^128.
func VolumeFromBig(b *big.Int) (Volume, error) {
	if b == nil || b.Sign() < 0 || b.Cmp(maxVolume) > 0 {
		return Volume{}, fmt.Errorf("%w: volume %v outside [0, 2^128)", ErrOverflow, b)
	}
	var lo, hi big.Int
	lo.And(b, new(big.Int).SetUint64(^uint64(0)))
	hi.Rsh(b, 64)
	return Volume{Hi: hi.Uint64(), Lo: lo.Uint64()}, nil
}

// ParseVolume parses a decimal integer of base units ("1500000000000000000"), digits only.
func ParseVolume(s string) (Volume, error) {
	if s == "" {
		return Volume{}, fmt.Errorf("%w: empty volume", ErrInvalidTrade)
	}
	var v Volume
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return Volume{}, fmt.Errorf("%w: volume %q is not a decimal integer", ErrInvalidTrade, s)
		}
		// v = v*10 + digit, failing on any carry out of 128 bits.
		hiHi, hiLo := bits.Mul64(v.Hi, 10)
		loHi, loLo := bits.Mul64(v.Lo, 10)
		hi, carry := bits.Add64(hiLo, loHi, 0)
		if hiHi != 0 || carry != 0 {
			return Volume{}, fmt.Errorf("%w: volume %q exceeds 2^128-1", ErrOverflow, s)
		}
		var ok bool
		if v, ok = (Volume{Hi: hi, Lo: loLo}).Add(VolumeOf(uint64(c - '0'))); !ok {
			return Volume{}, fmt.Errorf("%w: volume %q exceeds 2^128-1", ErrOverflow, s)
		}
	}
	return v, nil
}

// Add returns v+w and whether the sum fits in 128 bits. On overflow the sum is meaningless.
func (v Volume) Add(w Volume) (Volume, bool) {
	lo, c := bits.Add64(v.Lo, w.Lo, 0)
	hi, c := bits.Add64(v.Hi, w.Hi, c)
	return Volume{Hi: hi, Lo: lo}, c == 0
}

// Cmp returns -1, 0 or +1 as v is less than, equal to or greater than w.
func (v Volume) Cmp(w Volume) int {
	switch {
	case v.Hi < w.Hi:
		return -1
	case v.Hi > w.Hi:
		return 1
	case v.Lo < w.Lo:
		return -1
	case v.Lo > w.Lo:
		return 1
	}
	return 0
}

// IsZero reports whether v is zero.
func (v Volume) IsZero() bool { return v.Hi|v.Lo == 0 }

// Big returns v as a new big.Int.
func (v Volume) Big() *big.Int {
	b := new(big.Int).SetUint64(v.Hi)
	b.Lsh(b, 64)
	return b.Or(b, new(big.Int).SetUint64(v.Lo))
}

// String returns v as a decimal integer of base units.
func (v Volume) String() string {
	if v.Hi == 0 {
		return fmt.Sprint(v.Lo)
	}
	return v.Big().String()
}
