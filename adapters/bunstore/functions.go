package bunstore

import (
	"database/sql/driver"
	"encoding/binary"
	"fmt"

	"github.com/ethereum/go-ethereum/common"
	"github.com/holiman/uint256"
	"modernc.org/sqlite"
)

// The schema's SQL uses a few functions beyond standard SQL, under the same names on both
// databases: migration 0023 creates them on PostgreSQL, and the init below registers them with
// the SQLite driver, for every connection it opens.
//
//   - token_key(token) is the last 8 bytes of a token address as a signed 64-bit integer (the
//     same as tokenKey); the last, because addresses mined to be cheap start with zero bytes. On PostgreSQL the per-token trade indexes lead with it rather than with
//     the address: a 20-byte key took 91 and 106 bytes per trade in its two indexes, the 8-byte
//     one 41 and 26. A read of one token's trades says both token_key(tr.token) = ? and
//     tr.token = ?: the first picks the index, the second the token. SQLite indexes the address
//     and only computes the function.
//   - amount_float(amount) reads a binAmount column as a float, for the SQL that ranks by amounts.
//   - amount_from_decimal(text) and, on SQLite, balance_from_decimal(text) turn the decimal text
//     that earlier schemas stored into a binAmount and a SQLite holderBalance (migration 0023).

// tokenKey is token_key of a token address.
func tokenKey(a common.Address) int64 { return int64(binary.BigEndian.Uint64(a[12:])) }

func init() {
	for name, fn := range map[string]func(args []driver.Value) (driver.Value, error){
		"token_key": func(args []driver.Value) (driver.Value, error) {
			b, ok := args[0].([]byte)
			if !ok {
				return nil, fmt.Errorf("token_key of %T", args[0])
			}
			var k [8]byte
			copy(k[max(0, 8-len(b)):], b[max(0, len(b)-8):])
			return int64(binary.BigEndian.Uint64(k[:])), nil
		},
		"amount_float": func(args []driver.Value) (driver.Value, error) {
			var a binAmount
			if err := a.Scan(args[0]); err != nil {
				return nil, err
			}
			return (*uint256.Int)(&a).Float64(), nil
		},
		"amount_from_decimal": func(args []driver.Value) (driver.Value, error) {
			var v uint256.Int
			if err := scanDecimal(&v, args[0]); err != nil {
				return nil, err
			}
			return v.Bytes(), nil
		},
		"balance_from_decimal": func(args []driver.Value) (driver.Value, error) {
			var v uint256.Int
			if err := scanDecimal(&v, args[0]); err != nil {
				return nil, err
			}
			b := v.Bytes32()
			return b[:], nil
		},
	} {
		sqlite.MustRegisterDeterministicScalarFunction(name, 1, func(_ *sqlite.FunctionContext, args []driver.Value) (driver.Value, error) {
			return fn(args)
		})
	}
}
