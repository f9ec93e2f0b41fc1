package httpapi

import (
	"cmp"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/uptrace/bunrouter"

	"github.com/curvekit/curvekit"
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

// pathAddress returns the path parameter name as an address; a malformed one is 400.
func pathAddress(req bunrouter.Request, name, what string) (common.Address, error) {
	a, ok := parseAddress(req.Param(name))
	if !ok {
		return a, invalid("malformed %s address: want 0x followed by 40 hex digits", what)
	}
	return a, nil
}

// query is the typed query binder every handler uses: it reads the query string once, answers
// typed questions with defaults, and collects every problem, so that err reports them all at once
// (curvekit.Problems, answered as 400 with message an array, or a single string for one). Every
// parameter may appear at most once: a repeated one is ambiguous, so it is an error rather than a
// silent pick.
type query struct {
	// The query's parameters in order, unescaped as url.ParseQuery does: the first few in
	// small, the rest in more. Not url.Values: a handful of parameters need no map, and a query
	// of at most four lives on its handler's stack.
	small    [4][2]string
	n        int // parameters in small
	more     [][2]string
	problems curvekit.Problems
	// read marks the parameters a handler asked for (bit i: the i-th), for canonical; a
	// parameter past the 64th that is asked for sets readFar.
	read    uint64
	readFar bool
}

func newQuery(u *url.URL) query {
	var q query
	for rest := u.RawQuery; rest != ""; {
		var part string
		part, rest, _ = strings.Cut(rest, "&")
		if part == "" {
			continue
		}
		key, value, _ := strings.Cut(part, "=")
		var err1, err2 error
		if needsUnescape(part) {
			if strings.Contains(part, ";") {
				err1 = errors.New("invalid semicolon separator in query")
			}
			key, err2 = url.QueryUnescape(key)
			if err2 == nil {
				value, err2 = url.QueryUnescape(value)
			}
		}
		if err1 != nil || err2 != nil {
			q.fail("malformed query string")
			continue
		}
		q.add(key, value)
	}
	return q
}

func (q *query) add(key, value string) {
	if q.n < len(q.small) {
		q.small[q.n] = [2]string{key, value}
		q.n++
		return
	}
	q.more = append(q.more, [2]string{key, value})
}

// count returns how many times name is present, and its last value, and marks it read.
func (q *query) count(name string) (n int, value string) {
	for i, p := range q.small[:q.n] {
		if p[0] == name {
			n, value = n+1, p[1]
			q.read |= 1 << i
		}
	}
	for i, p := range q.more {
		if p[0] == name {
			n, value = n+1, p[1]
			if i += len(q.small); i < 64 {
				q.read |= 1 << i
			} else {
				q.readFar = true
			}
		}
	}
	return n, value
}

// canonical returns path with the parameters the handler read so far, sorted by name and
// escaped: two requests that differ only in parameters the handler ignores (a client's
// cache-buster such as _=1700000000) or in their order have the same canonical form. A query
// whose parameter past the 64th was read gives its whole raw query instead.
func (q *query) canonical(u *url.URL) string {
	if q.readFar {
		return u.Path + "?" + u.RawQuery
	}
	var read [][2]string
	for i, p := range q.small[:q.n] {
		if q.read&(1<<i) != 0 {
			read = append(read, p)
		}
	}
	for i, p := range q.more[:min(len(q.more), 64-len(q.small))] {
		if q.read&(1<<(i+len(q.small))) != 0 {
			read = append(read, p)
		}
	}
	slices.SortFunc(read, func(a, b [2]string) int { return cmp.Compare(a[0], b[0]) })
	var sb strings.Builder
	sb.WriteString(u.Path)
	for i, p := range read {
		sb.WriteByte("?&"[min(i, 1)])
		sb.WriteString(url.QueryEscape(p[0]))
		sb.WriteByte('=')
		sb.WriteString(url.QueryEscape(p[1]))
	}
	return sb.String()
}

// needsUnescape reports whether part holds one of "%+;" (a loop: strings.ContainsAny builds a
// set on every call).
func needsUnescape(part string) bool {
	for i := 0; i < len(part); i++ {
		if c := part[i]; c == '%' || c == '+' || c == ';' {
			return true
		}
	}
	return false
}

// has reports whether name is present.
func (q *query) has(name string) bool {
	n, _ := q.count(name)
	return n > 0
}

// fail records a problem.
func (q *query) fail(format string, args ...any) {
	q.problems = append(q.problems, fmt.Sprintf(format, args...))
}

// err returns the problems found so far, nil when there are none.
func (q *query) err() error { return problemsErr(q.problems) }

// get returns the single value of name and whether it is present.
func (q *query) get(name string) (string, bool) {
	n, value := q.count(name)
	switch {
	case n == 0:
		return "", false
	case n > 1:
		q.fail("%s given more than once", name)
		return "", false
	}
	return value, true
}

// str returns the value of name, or def when it is absent.
func (q *query) str(name, def string) string {
	if v, ok := q.get(name); ok {
		return v
	}
	return def
}

// intIn returns the value of name as a decimal integer in [lo, hi] (digits only, no sign), or
// def when it is absent.
func (q *query) intIn(name string, def, lo, hi int64) int64 {
	v, ok := q.get(name)
	if !ok {
		return def
	}
	n, ok := parseDigits(v)
	if !ok || n < lo || n > hi {
		q.fail("%s must be an integer from %d to %d", name, lo, hi)
		return def
	}
	return n
}

// quote returns the value of name as a pairing asset, "ETH" (any case, as the addresses beside
// it are) for native ether or an ERC-20's address, and whether it was present. The zero address
// is how ETH is kept, not a name of it: asked for, it is an address no token pairs with, and
// notFound says so (404, as any such address).
func (q *query) quote(name string) (a common.Address, present bool, notFound error) {
	v, ok := q.get(name)
	if !ok || strings.EqualFold(v, "ETH") {
		return common.Address{}, ok, nil
	}
	a, valid := parseAddress(v)
	if !valid {
		q.fail("%s must be ETH or a pairing asset's address", name)
		return a, true, nil
	}
	if a == (common.Address{}) {
		return a, true, fmt.Errorf("%w: quote asset not found (native ether is quote=ETH)", curvekit.ErrNotFound)
	}
	return a, true, nil
}

// percent returns the value of name, a percentage from 0 to 100 with at most two decimals, in
// basis points, or def when it is absent.
func (q *query) percent(name string, def uint16) uint16 {
	v, ok := q.get(name)
	if !ok {
		return def
	}
	bps, err := curvekit.ParseAmount(v, 2)
	if err != nil || !bps.IsUint64() || bps.Uint64() > 10_000 {
		q.fail("%s must be a percentage from 0 to 100 with at most two decimals", name)
		return def
	}
	return uint16(bps.Uint64())
}

// address returns the value of name as an address and whether it was present and valid.
func (q *query) address(name string) (common.Address, bool) {
	v, ok := q.get(name)
	if !ok {
		return common.Address{}, false
	}
	a, valid := parseAddress(v)
	if !valid {
		q.fail("%s must be an address: 0x followed by 40 hex digits", name)
	}
	return a, valid
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
