package auth

import (
	"encoding/hex"
	"fmt"
	"net/netip"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ethereum/go-ethereum/common"

	"github.com/curvekit/curvekit"
)

// Limits of an API key's options (SPEC 2.3 and 8).
const (
	// MaxAllowlist is the most entries allowedIps and allowedRecipients may each hold.
	MaxAllowlist = 50
	// MaxKeyName is the longest key name, in characters.
	MaxKeyName = 64
)

// ParseAllowedIPs parses a key's allowedIps: IPv4 addresses ("10.1.2.3", kept as a /32) and
// IPv4 CIDR ranges ("10.1.2.0/24"), at most MaxAllowlist. A failure is curvekit.Problems naming
// every bad entry. Ranges with host bits set ("10.1.2.3/24") are refused rather than silently
// widened, and duplicates are refused so that the list a client reads back is the list it sent.
func ParseAllowedIPs(entries []string) ([]netip.Prefix, error) {
	return parseAllowlist("allowedIps", entries, parseAllowedIP)
}

// parseAllowlist parses the entries of field with parse, at most MaxAllowlist of them, refusing
// duplicates; every problem is reported, each named by its index.
func parseAllowlist[T comparable](field string, entries []string, parse func(string) (T, string)) ([]T, error) {
	if len(entries) > MaxAllowlist {
		return nil, curvekit.Problems{fmt.Sprintf("%s: at most %d entries, got %d", field, MaxAllowlist, len(entries))}
	}
	var problems curvekit.Problems
	out := make([]T, 0, len(entries))
	seen := make(map[T]int, len(entries))
	for i, e := range entries {
		at := field + "[" + strconv.Itoa(i) + "]"
		v, msg := parse(e)
		if msg != "" {
			problems = append(problems, at+": "+msg)
			continue
		}
		if j, dup := seen[v]; dup {
			problems = append(problems, fmt.Sprintf("%s: %s repeats %s[%d]", at, quote(e), field, j))
			continue
		}
		seen[v] = i
		out = append(out, v)
	}
	if len(problems) > 0 {
		return nil, problems
	}
	return out, nil
}

func parseAllowedIP(e string) (netip.Prefix, string) {
	if e == "" {
		return netip.Prefix{}, "is empty"
	}
	if strings.Contains(e, "/") {
		p, err := netip.ParsePrefix(e)
		if err != nil {
			return netip.Prefix{}, quote(e) + " is not an IPv4 address or CIDR range"
		}
		if !p.Addr().Is4() {
			return netip.Prefix{}, quote(e) + " is not IPv4; allowedIps takes IPv4 addresses and CIDR ranges"
		}
		if m := p.Masked(); m != p {
			return netip.Prefix{}, fmt.Sprintf("%s has bits set outside the /%d mask (did you mean %s?)", quote(e), p.Bits(), m)
		}
		return p, ""
	}
	a, err := netip.ParseAddr(e)
	if err != nil {
		return netip.Prefix{}, quote(e) + " is not an IPv4 address or CIDR range"
	}
	if !a.Is4() {
		return netip.Prefix{}, quote(e) + " is not IPv4; allowedIps takes IPv4 addresses and CIDR ranges"
	}
	return netip.PrefixFrom(a, 32), ""
}

// FormatAllowedIP writes an allowedIps entry as a client wrote it: a single address without
// "/32", a range in CIDR notation.
func FormatAllowedIP(p netip.Prefix) string {
	if p.IsSingleIP() {
		return p.Addr().String()
	}
	return p.String()
}

// ParseAllowedRecipients parses a key's allowedRecipients: 0x-prefixed 20-byte hex addresses, at
// most MaxAllowlist. A failure is curvekit.Problems naming every bad entry. Mixed-case entries
// must carry a valid EIP-55 checksum (a typo in a recipient allowlist would otherwise pass
// silently); the zero address and duplicates are refused.
func ParseAllowedRecipients(entries []string) ([]common.Address, error) {
	return parseAllowlist("allowedRecipients", entries, parseRecipient)
}

func parseRecipient(e string) (common.Address, string) {
	if e == "" {
		return common.Address{}, "is empty"
	}
	digits, ok := strings.CutPrefix(e, "0x")
	if !ok || len(digits) != 2*common.AddressLength {
		return common.Address{}, quote(e) + " is not an address (0x and 40 hex digits)"
	}
	b, err := hex.DecodeString(digits)
	if err != nil {
		return common.Address{}, quote(e) + " is not an address (0x and 40 hex digits)"
	}
	a := common.BytesToAddress(b)
	if digits != strings.ToLower(digits) && digits != strings.ToUpper(digits) && a.Hex() != e {
		return common.Address{}, quote(e) + " has an invalid EIP-55 checksum"
	}
	if a == (common.Address{}) {
		return common.Address{}, "the zero address cannot receive transactions"
	}
	return a, ""
}

// checkKeyName reports a name that is too long, not UTF-8 or holds control characters, which
// would garble a list of keys.
func checkKeyName(name string) string {
	switch {
	case !utf8.ValidString(name):
		return "name: is not valid UTF-8"
	case utf8.RuneCountInString(name) > MaxKeyName:
		return fmt.Sprintf("name: at most %d characters", MaxKeyName)
	case strings.IndexFunc(name, unicode.IsControl) >= 0:
		return "name: must not contain control characters"
	}
	return ""
}

// quote echoes a client's input back inside a message: quoted (control characters escaped) and
// cut short so that one entry cannot bloat an error.
func quote(s string) string {
	const most = 64
	if len(s) > most {
		cut := most
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		return strconv.Quote(s[:cut]) + "…"
	}
	return strconv.Quote(s)
}
