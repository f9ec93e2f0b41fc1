package httpapi

import (
	"encoding/hex"
	"fmt"
	"net/url"
	"strconv"

	"github.com/ethereum/go-ethereum/common"
)

// parseAddress accepts exactly "0x" followed by 40 hex digits, in any case. The checksum of a
// mixed-case address is not enforced: the address is the same either way, and the API answers
// with the checksummed form.
func parseAddress(s string) (common.Address, bool) {
	var a common.Address
	if len(s) != 42 || s[0] != '0' || (s[1] != 'x' && s[1] != 'X') {
		return a, false
	}
	if _, err := hex.Decode(a[:], []byte(s[2:])); err != nil {
		return common.Address{}, false
	}
	return a, true
}

// query reads the query string once and answers the typed questions handlers ask of it. Every
// parameter may appear at most once: a repeated one is ambiguous, so it is an error rather than a
// silent pick.
type query struct {
	v url.Values
}

func newQuery(u *url.URL) (query, error) {
	v, err := url.ParseQuery(u.RawQuery)
	if err != nil {
		return query{}, fmt.Errorf("malformed query string")
	}
	return query{v: v}, nil
}

// get returns the single value of name and whether it is present.
func (q query) get(name string) (string, bool, error) {
	vs, ok := q.v[name]
	switch {
	case !ok:
		return "", false, nil
	case len(vs) > 1:
		return "", true, fmt.Errorf("%s given more than once", name)
	}
	return vs[0], true, nil
}

// str returns the value of name, or def when it is absent.
func (q query) str(name, def string) (string, error) {
	v, ok, err := q.get(name)
	if err != nil || !ok {
		return def, err
	}
	return v, nil
}

// intIn returns the value of name as a decimal integer in [lo, hi] (digits only, no sign), or
// def when it is absent.
func (q query) intIn(name string, def, lo, hi int64) (int64, error) {
	v, ok, err := q.get(name)
	if err != nil || !ok {
		return def, err
	}
	n, ok := parseDigits(v)
	if !ok || n < lo || n > hi {
		return 0, fmt.Errorf("%s must be an integer from %d to %d", name, lo, hi)
	}
	return n, nil
}

// parseDigits parses a non-negative decimal integer of ASCII digits only; strconv alone would also
// accept a sign.
func parseDigits(s string) (int64, bool) {
	if s == "" || len(s) > 18 {
		return 0, false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	return n, err == nil
}
