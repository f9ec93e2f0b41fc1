package auth_test

import (
	"errors"
	"fmt"
	"net/netip"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/google/go-cmp/cmp"

	"github.com/curvekit/curvekit"
	"github.com/curvekit/curvekit/auth"
)

func TestAllowsIP(t *testing.T) {
	t.Parallel()
	restricted := &auth.Principal{AllowedIPs: []netip.Prefix{netip.MustParsePrefix("10.1.2.0/24"), netip.MustParsePrefix("192.0.2.7/32")}}
	for _, tt := range []struct {
		p    *auth.Principal
		addr string
		want bool
	}{
		{restricted, "10.1.2.3", true},
		{restricted, "10.1.2.255", true},
		{restricted, "::ffff:10.1.2.3", true}, // an IPv4 client on a dual-stack listener
		{restricted, "192.0.2.7", true},
		{restricted, "::ffff:192.0.2.7", true},
		{restricted, "10.1.3.3", false},
		{restricted, "192.0.2.8", false},
		{restricted, "::ffff:10.1.3.3", false},
		{restricted, "2001:db8::1", false},
		{restricted, "::a01:203", false}, // IPv4-compatible, not mapped: another address
		{&auth.Principal{}, "203.0.113.9", true},
		{&auth.Principal{}, "2001:db8::1", true},
	} {
		if got := tt.p.AllowsIP(netip.MustParseAddr(tt.addr)); got != tt.want {
			t.Errorf("AllowsIP(%s) with %v = %v, want %v", tt.addr, tt.p.AllowedIPs, got, tt.want)
		}
	}
	if restricted.AllowsIP(netip.Addr{}) {
		t.Error("a restricted principal allows an unknown client address")
	}
}

func TestParseTier(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"free", "pro"} {
		if got, err := auth.ParseTier(s); err != nil || string(got) != s {
			t.Errorf("ParseTier(%q) = %q, %v", s, got, err)
		}
	}
	for _, s := range []string{"", "Pro", "gold"} {
		if _, err := auth.ParseTier(s); !errors.Is(err, curvekit.ErrInvalid) {
			t.Errorf("ParseTier(%q) = %v, want ErrInvalid", s, err)
		}
	}
}

func TestParseAllowedIPs(t *testing.T) {
	t.Parallel()
	got, err := auth.ParseAllowedIPs([]string{"10.1.2.3", "10.1.2.0/24", "0.0.0.0/0", "192.0.2.0/32"})
	if err != nil {
		t.Fatal(err)
	}
	want := []netip.Prefix{
		netip.MustParsePrefix("10.1.2.3/32"), netip.MustParsePrefix("10.1.2.0/24"),
		netip.MustParsePrefix("0.0.0.0/0"), netip.MustParsePrefix("192.0.2.0/32"),
	}
	if diff := cmp.Diff(want, got, cmp.Comparer(func(a, b netip.Prefix) bool { return a == b })); diff != "" {
		t.Fatalf("(-want +got):\n%s", diff)
	}
	if s := auth.FormatAllowedIP(got[0]); s != "10.1.2.3" {
		t.Errorf("FormatAllowedIP(/32) = %q", s)
	}
	if s := auth.FormatAllowedIP(got[1]); s != "10.1.2.0/24" {
		t.Errorf("FormatAllowedIP(/24) = %q", s)
	}
	if got, err := auth.ParseAllowedIPs(nil); err != nil || len(got) != 0 {
		t.Errorf("no entries = %v, %v", got, err)
	}

	_, err = auth.ParseAllowedIPs([]string{
		"", "10.1.2.3/24", "2001:db8::/32", "::ffff:10.1.2.3", "10.1.2", "010.1.2.3", " 10.1.2.3", "10.1.2.3/33",
		"fe80::1%eth0", "10.1.2.0/24", "10.1.2.0/24", strings.Repeat("9", 100),
	})
	var problems curvekit.Problems
	if !errors.As(err, &problems) {
		t.Fatalf("ParseAllowedIPs = %v, want Problems", err)
	}
	wantProblems := curvekit.Problems{
		"allowedIps[0]: is empty",
		`allowedIps[1]: "10.1.2.3/24" has bits set outside the /24 mask (did you mean 10.1.2.0/24?)`,
		`allowedIps[2]: "2001:db8::/32" is not IPv4; allowedIps takes IPv4 addresses and CIDR ranges`,
		`allowedIps[3]: "::ffff:10.1.2.3" is not IPv4; allowedIps takes IPv4 addresses and CIDR ranges`,
		`allowedIps[4]: "10.1.2" is not an IPv4 address or CIDR range`,
		`allowedIps[5]: "010.1.2.3" is not an IPv4 address or CIDR range`,
		`allowedIps[6]: " 10.1.2.3" is not an IPv4 address or CIDR range`,
		`allowedIps[7]: "10.1.2.3/33" is not an IPv4 address or CIDR range`,
		`allowedIps[8]: "fe80::1%eth0" is not IPv4; allowedIps takes IPv4 addresses and CIDR ranges`,
		`allowedIps[10]: "10.1.2.0/24" repeats allowedIps[9]`,
		`allowedIps[11]: "` + strings.Repeat("9", 64) + `"… is not an IPv4 address or CIDR range`,
	}
	if diff := cmp.Diff(wantProblems, problems); diff != "" {
		t.Fatalf("problems (-want +got):\n%s", diff)
	}
}

func TestAllowlistSizes(t *testing.T) {
	t.Parallel()
	for _, n := range []int{auth.MaxAllowlist, auth.MaxAllowlist + 1} {
		ips, recipients := make([]string, n), make([]string, n)
		for i := range n {
			ips[i] = fmt.Sprintf("10.%d.0.1", i)
			recipients[i] = common.BytesToAddress([]byte{9, byte(i + 1)}).Hex()
		}
		_, ipErr := auth.ParseAllowedIPs(ips)
		_, recErr := auth.ParseAllowedRecipients(recipients)
		if ok := n <= auth.MaxAllowlist; ok != (ipErr == nil) || ok != (recErr == nil) {
			t.Errorf("%d entries: allowedIps %v, allowedRecipients %v", n, ipErr, recErr)
		}
	}
}

func TestParseAllowedRecipients(t *testing.T) {
	t.Parallel()
	const checksummed = "0x52908400098527886E0F7030069857D2E4169EE7"
	got, err := auth.ParseAllowedRecipients([]string{checksummed, "0xde709f2102306220921060314715629080e2fb77", "0xFB6916095CA1DF60BB79CE92CE3EA74C37C5D359"})
	if err != nil {
		t.Fatal(err)
	}
	want := []common.Address{
		common.HexToAddress(checksummed),
		common.HexToAddress("0xde709f2102306220921060314715629080e2fb77"),
		common.HexToAddress("0xfb6916095ca1df60bb79ce92ce3ea74c37c5d359"),
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("(-want +got):\n%s", diff)
	}
	_, err = auth.ParseAllowedRecipients([]string{
		"", "52908400098527886E0F7030069857D2E4169EE7", "0x52908400098527886e0F7030069857D2E4169EE7",
		"0X52908400098527886E0F7030069857D2E4169EE7", "0x" + strings.Repeat("0", 40), "0x5290840009852788", "0xzz908400098527886e0f7030069857d2e4169ee7",
		checksummed, strings.ToLower(checksummed),
	})
	var problems curvekit.Problems
	if !errors.As(err, &problems) {
		t.Fatalf("ParseAllowedRecipients = %v, want Problems", err)
	}
	wantProblems := curvekit.Problems{
		"allowedRecipients[0]: is empty",
		`allowedRecipients[1]: "52908400098527886E0F7030069857D2E4169EE7" is not an address (0x and 40 hex digits)`,
		`allowedRecipients[2]: "0x52908400098527886e0F7030069857D2E4169EE7" has an invalid EIP-55 checksum`,
		`allowedRecipients[3]: "0X52908400098527886E0F7030069857D2E4169EE7" is not an address (0x and 40 hex digits)`,
		"allowedRecipients[4]: the zero address cannot receive transactions",
		`allowedRecipients[5]: "0x5290840009852788" is not an address (0x and 40 hex digits)`,
		`allowedRecipients[6]: "0xzz908400098527886e0f7030069857d2e4169ee7" is not an address (0x and 40 hex digits)`,
		`allowedRecipients[8]: "0x52908400098527886e0f7030069857d2e4169ee7" repeats allowedRecipients[7]`,
	}
	if diff := cmp.Diff(wantProblems, problems); diff != "" {
		t.Fatalf("problems (-want +got):\n%s", diff)
	}
}

// splitEntries turns one fuzz input into a list, so the fuzzer explores lists and entries alike.
func splitEntries(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, ",")
}

func FuzzParseAllowedIPs(f *testing.F) {
	for _, s := range []string{"10.1.2.3", "10.1.2.0/24,192.0.2.1", "10.1.2.3/24", "::ffff:10.1.2.3", "0.0.0.0/0", "1.2.3.4,1.2.3.4", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		entries := splitEntries(s)
		got, err := auth.ParseAllowedIPs(entries)
		if err != nil {
			var problems curvekit.Problems
			if !errors.As(err, &problems) || !errors.Is(err, curvekit.ErrInvalid) || len(problems) == 0 {
				t.Fatalf("error %v is not a list of problems", err)
			}
			for _, p := range problems {
				if !strings.HasPrefix(p, "allowedIps") || !strings.Contains(p, ": ") {
					t.Fatalf("problem %q does not name its field", p)
				}
			}
			return
		}
		if len(got) != len(entries) || len(got) > auth.MaxAllowlist {
			t.Fatalf("%d entries gave %d prefixes", len(entries), len(got))
		}
		seen := map[netip.Prefix]bool{}
		for i, p := range got {
			if !p.Addr().Is4() || p.Masked() != p || seen[p] {
				t.Fatalf("entry %q gave %v: not IPv4, not masked or repeated", entries[i], p)
			}
			seen[p] = true
			// What a key lists is what the client sent (a single address without "/32"), and
			// parses back to the same range.
			back := auth.FormatAllowedIP(p)
			if back != entries[i] && back+"/32" != entries[i] {
				t.Fatalf("entry %q is listed as %q", entries[i], back)
			}
			if again, err := auth.ParseAllowedIPs([]string{back}); err != nil || again[0] != p {
				t.Fatalf("%q does not parse back to %v: %v", back, p, err)
			}
		}
	})
}

func FuzzParseAllowedRecipients(f *testing.F) {
	for _, s := range []string{
		"0x52908400098527886E0F7030069857D2E4169EE7", "0x52908400098527886e0f7030069857d2e4169ee7,0xde709f2102306220921060314715629080e2fb77",
		"0x52908400098527886e0F7030069857D2E4169EE7", "0x0000000000000000000000000000000000000000", "0x1", "",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		entries := splitEntries(s)
		got, err := auth.ParseAllowedRecipients(entries)
		if err != nil {
			var problems curvekit.Problems
			if !errors.As(err, &problems) || !errors.Is(err, curvekit.ErrInvalid) || len(problems) == 0 {
				t.Fatalf("error %v is not a list of problems", err)
			}
			for _, p := range problems {
				if !strings.HasPrefix(p, "allowedRecipients") {
					t.Fatalf("problem %q does not name its field", p)
				}
			}
			return
		}
		if len(got) != len(entries) || len(got) > auth.MaxAllowlist {
			t.Fatalf("%d entries gave %d addresses", len(entries), len(got))
		}
		for i, a := range got {
			if a == (common.Address{}) || !strings.EqualFold(a.Hex(), entries[i]) {
				t.Fatalf("entry %q gave %s", entries[i], a.Hex())
			}
			// The checksummed form a list shows parses back to the same address.
			if back, err := auth.ParseAllowedRecipients([]string{a.Hex()}); err != nil || back[0] != a {
				t.Fatalf("%s does not parse back: %v", a.Hex(), err)
			}
		}
	})
}

var keyShape = regexp.MustCompile(`^svc_[0-9a-f]{48}$`)

func FuzzValidKeyShape(f *testing.F) {
	for _, s := range []string{"svc_" + strings.Repeat("0a", 24), "svc_" + strings.Repeat("A", 48), "svc_", "svc_" + strings.Repeat("f", 49), "sk_live_x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := auth.ValidKeyShape(s), keyShape.MatchString(s); got != want {
			t.Fatalf("ValidKeyShape(%q) = %v, the pattern says %v", s, got, want)
		}
	})
}

func FuzzSafeReturnTo(f *testing.F) {
	for _, s := range []string{"/tokens?x=1#y", "//evil.example", "/\\evil.example", "https://evil.example", "/%2F%2Fx", "/\t/x", ""} {
		f.Add(s)
	}
	site, _ := url.Parse("https://app.example/a/b")
	f.Fuzz(func(t *testing.T, raw string) {
		got := auth.SafeReturnTo(raw)
		if got != "/" && got != raw {
			t.Fatalf("SafeReturnTo(%q) = %q, neither the input nor /", raw, got)
		}
		ref, err := url.Parse(got)
		if err != nil {
			t.Fatalf("SafeReturnTo(%q) = %q, which does not parse: %v", raw, got, err)
		}
		// Followed from any page of the site, it stays on the site.
		if dest := site.ResolveReference(ref); dest.Scheme != "https" || dest.Host != "app.example" || dest.User != nil {
			t.Fatalf("SafeReturnTo(%q) = %q leads to %s", raw, got, dest)
		}
		if strings.ContainsAny(got, "\\\x00\r\n\t ") || strings.HasPrefix(got, "//") {
			t.Fatalf("SafeReturnTo(%q) = %q", raw, got)
		}
	})
}
