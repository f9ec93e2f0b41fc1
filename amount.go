package curvekit

import (
	"fmt"
	"math/bits"
	"strings"

	"github.com/holiman/uint256"
)

// MaxDecimals is the largest number of decimals an asset may declare and still be handled exactly
// (10^77 is the largest power of ten below 2^256).
const MaxDecimals = 77

var pow10 = func() (t [MaxDecimals + 1]uint256.Int) {
	t[0].SetOne()
	ten := uint256.NewInt(10)
	for i := 1; i <= MaxDecimals; i++ {
		t[i].Mul(&t[i-1], ten)
	}
	return t
}()

// Pow10 returns 10^n for n <= MaxDecimals.
func Pow10(n uint8) *uint256.Int {
	return new(uint256.Int).Set(&pow10[n])
}

// ParseAmount parses an exact decimal string in whole units of an asset with the given decimals
// ("1.5" with 18 decimals is 1.5e18 base units). It accepts only ASCII digits with at most one '.'
// between digits; signs, exponents, spaces, empty parts and more fractional digits than the asset
// has are errors wrapping ErrInvalid, never silent rounding. Zero parses; callers that need a
// positive amount check it.
func ParseAmount(s string, decimals uint8) (uint256.Int, error) {
	var z uint256.Int
	if decimals > MaxDecimals {
		return z, fmt.Errorf("%w: asset decimals %d above %d", ErrInvalid, decimals, MaxDecimals)
	}
	if s == "" {
		return z, fmt.Errorf("%w: amount is empty", ErrInvalid)
	}
	whole, frac, hasDot := strings.Cut(s, ".")
	if whole == "" || (hasDot && frac == "") {
		return z, fmt.Errorf("%w: amount %q is not a decimal number", ErrInvalid, s)
	}
	if len(frac) > int(decimals) {
		return z, fmt.Errorf("%w: amount %q has more than %d decimals", ErrInvalid, s, decimals)
	}
	var ten, digit uint256.Int
	ten.SetUint64(10)
	for _, part := range [2]string{whole, frac} {
		for i := 0; i < len(part); i++ {
			c := part[i]
			if c < '0' || c > '9' {
				return z, fmt.Errorf("%w: amount %q is not a decimal number", ErrInvalid, s)
			}
			if _, over := z.MulOverflow(&z, &ten); over {
				return z, fmt.Errorf("%w: amount %q is too large", ErrInvalid, s)
			}
			if _, over := z.AddOverflow(&z, digit.SetUint64(uint64(c-'0'))); over {
				return z, fmt.Errorf("%w: amount %q is too large", ErrInvalid, s)
			}
		}
	}
	if _, over := z.MulOverflow(&z, &pow10[int(decimals)-len(frac)]); over {
		return z, fmt.Errorf("%w: amount %q is too large", ErrInvalid, s)
	}
	return z, nil
}

// FormatAmount writes base units as an exact decimal string in whole units, without trailing
// fractional zeros ("1.5", "0.000001", "42"). ParseAmount(FormatAmount(v, d), d) == v.
func FormatAmount(v *uint256.Int, decimals uint8) string {
	var buf [81]byte
	return string(AppendAmount(buf[:0], v, decimals))
}

// digitPairs are "00" to "99".
const digitPairs = "00010203040506070809" + "10111213141516171819" + "20212223242526272829" + "30313233343536373839" +
	"40414243444546474849" + "50515253545556575859" + "60616263646566676869" + "70717273747576777879" +
	"80818283848586878889" + "90919293949596979899"

// AppendAmount appends FormatAmount(v, decimals) to dst, without allocating when dst has room.
func AppendAmount(dst []byte, v *uint256.Int, decimals uint8) []byte {
	if decimals > MaxDecimals {
		decimals = MaxDecimals
	}
	// The digits, at the end of a buffer on the stack (amounts are formatted on every read of
	// the API): nineteen at a time while the value needs more than one limb, then the last
	// limb's two at a time.
	var digits [80]byte
	i := len(digits)
	limbs := [4]uint64(*v)
	n := 3
	for n > 0 && limbs[n] == 0 {
		n--
	}
	for n > 0 || limbs[0] >= 1e19 {
		var rem uint64
		for j := n; j >= 0; j-- {
			limbs[j], rem = bits.Div64(rem, limbs[j], 1e19)
		}
		for n > 0 && limbs[n] == 0 {
			n--
		}
		for range 19 {
			i--
			digits[i] = byte('0' + rem%10)
			rem /= 10
		}
	}
	x := limbs[0]
	for x >= 100 {
		q := x / 100
		r := x - q*100
		i -= 2
		digits[i], digits[i+1] = digitPairs[2*r], digitPairs[2*r+1]
		x = q
	}
	if x >= 10 {
		i -= 2
		digits[i], digits[i+1] = digitPairs[2*x], digitPairs[2*x+1]
	} else if x > 0 || i == len(digits) {
		i--
		digits[i] = byte('0' + x)
	}
	d := int(decimals)
	for len(digits)-i <= d { // a leading zero before the point
		i--
		digits[i] = '0'
	}
	whole, frac := digits[i:len(digits)-d], digits[len(digits)-d:]
	for len(frac) > 0 && frac[len(frac)-1] == '0' {
		frac = frac[:len(frac)-1]
	}
	dst = append(dst, whole...)
	if len(frac) == 0 {
		return dst
	}
	dst = append(dst, '.')
	return append(dst, frac...)
}
