package bunstore

import (
	"database/sql/driver"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/holiman/uint256"
	"github.com/uptrace/bun/dialect"
	"github.com/uptrace/bun/schema"
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

// binAmount stores a uint256 as its big-endian bytes without leading zeros, zero as no bytes
// (BYTEA / BLOB): the amounts of trades and fee claims, 8 to 13 bytes for most where their
// decimal text took 15 to 29. The bytes compare as numbers only at equal lengths; nothing orders
// by them. In SQL, amount_float(column) reads one as a float (migration 0023 on PostgreSQL,
// registerFunctions on SQLite) and length(column) = 0 tests it for zero.
type binAmount uint256.Int

func (a binAmount) Value() (driver.Value, error) {
	v := uint256.Int(a)
	return v.Bytes(), nil // never nil: nil would be written as NULL
}

func (a *binAmount) Scan(src any) error {
	b, ok := src.([]byte)
	if !ok && src != nil {
		return fmt.Errorf("bunstore: amount column holds %T, want bytes", src)
	}
	if len(b) > 32 {
		return fmt.Errorf("bunstore: amount column holds %d bytes, above 32", len(b))
	}
	(*uint256.Int)(a).SetBytes(b)
	return nil
}

// holderBalance is a holder's balance in a column the database orders as a number: NUMERIC(78,0)
// on PostgreSQL, 32 big-endian bytes on SQLite (whose BLOBs compare byte by byte). It is written
// with the dialect of the query (AppendQuery) and, since the drivers hand both back as bytes, read
// with the store's (value).
type holderBalance struct {
	v   uint256.Int
	raw []byte // as scanned, until value decodes it
}

func balanceOf(v *uint256.Int) holderBalance { return holderBalance{v: *v} }

func (b holderBalance) AppendQuery(gen schema.QueryGen, dst []byte) ([]byte, error) {
	if gen.Dialect().Name() == dialect.PG {
		return append(dst, b.v.Dec()...), nil // a numeric literal
	}
	w := b.v.Bytes32()
	dst = append(dst, "X'"...)
	dst = hex.AppendEncode(dst, w[:])
	return append(dst, '\''), nil
}

func (b *holderBalance) Scan(src any) error {
	raw, ok := src.([]byte)
	if !ok {
		return fmt.Errorf("bunstore: balance column holds %T, want bytes", src)
	}
	b.raw = append(b.raw[:0], raw...)
	return nil
}

// value decodes what Scan read on a database of dialect d.
func (b *holderBalance) value(d dialectKind) (uint256.Int, error) {
	if b.raw == nil {
		return b.v, nil
	}
	var v uint256.Int
	if d == dialectPostgres {
		if err := scanDecimal(&v, b.raw); err != nil {
			return v, err
		}
		return v, nil
	}
	if len(b.raw) != 32 {
		return v, fmt.Errorf("bunstore: balance column holds %d bytes, want 32", len(b.raw))
	}
	v.SetBytes(b.raw)
	return v, nil
}
