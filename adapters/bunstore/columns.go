package bunstore

import (
	"database/sql/driver"
	"fmt"
	"strings"

	"github.com/holiman/uint256"
)

// maxDigits is the length of 2^256-1 in base 10.
const maxDigits = 78

// amount stores a uint256 exactly as a base-10 string.
type amount uint256.Int

func (a amount) Value() (driver.Value, error) {
	v := uint256.Int(a)
	return v.Dec(), nil
}

func (a *amount) Scan(src any) error {
	return scanDecimal((*uint256.Int)(a), src)
}

// sortAmount stores a uint256 as a base-10 string zero-padded to 78 digits, so that comparing
// the strings byte by byte compares the numbers.
type sortAmount uint256.Int

func (a sortAmount) Value() (driver.Value, error) {
	v := uint256.Int(a)
	return padDecimal(&v), nil
}

func (a *sortAmount) Scan(src any) error {
	return scanDecimal((*uint256.Int)(a), src)
}

func padDecimal(v *uint256.Int) string {
	d := v.Dec()
	return strings.Repeat("0", maxDigits-len(d)) + d
}

// scanDecimal reads what amount or sortAmount wrote, refusing anything but 1 to 78 ASCII digits.
func scanDecimal(z *uint256.Int, src any) error {
	var s string
	switch v := src.(type) {
	case string:
		s = v
	case []byte:
		s = string(v)
	default:
		return fmt.Errorf("bunstore: amount column holds %T, want text", src)
	}
	if len(s) == 0 || len(s) > maxDigits {
		return fmt.Errorf("bunstore: amount column holds %q", s)
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return fmt.Errorf("bunstore: amount column holds %q", s)
		}
	}
	if err := z.SetFromDecimal(s); err != nil {
		return fmt.Errorf("bunstore: amount column holds %q: %w", s, err)
	}
	return nil
}

func uint256Of(a amount) uint256.Int { return uint256.Int(a) }
