package httpapi

import (
	"net/http"
	"net/netip"
	"testing"
)

func TestClientIP(t *testing.T) {
	t.Parallel()
	trusted := []netip.Prefix{
		normalizePrefix(netip.MustParsePrefix("10.0.0.0/8")),
		normalizePrefix(netip.MustParsePrefix("fd00::/8")),
	}
	for _, tc := range []struct {
		name   string
		remote string
		xff    []string
		want   string
	}{
		{"plain peer", "198.51.100.1:5000", nil, "198.51.100.1"},
		{"untrusted peer ignores the header", "198.51.100.1:5000", []string{"1.2.3.4"}, "198.51.100.1"},
		{"mapped untrusted peer", "[::ffff:198.51.100.1]:5000", nil, "198.51.100.1"},
		{"IPv6 peer", "[2001:db8::1]:5000", nil, "2001:db8::1"},
		{"zoned peer", "[fe80::1%eth0]:5000", nil, "fe80::1"},
		{"bare address", "198.51.100.1", nil, "198.51.100.1"},
		{"unparseable peer", "pipe", nil, "invalid IP"},
		{"trusted proxy, one hop", "10.0.0.1:5000", []string{"1.2.3.4"}, "1.2.3.4"},
		{"mapped trusted proxy", "[::ffff:10.0.0.1]:5000", []string{"1.2.3.4"}, "1.2.3.4"},
		{"IPv6 trusted proxy", "[fd00::1]:5000", []string{"2001:db8::7"}, "2001:db8::7"},
		{"client spoofs the left end", "10.0.0.1:5000", []string{"9.9.9.9, 1.2.3.4"}, "1.2.3.4"},
		{"chain of trusted proxies", "10.0.0.1:5000", []string{"1.2.3.4, 10.0.0.3, 10.0.0.2"}, "1.2.3.4"},
		{"headers in order", "10.0.0.1:5000", []string{"9.9.9.9", "1.2.3.4, 10.0.0.2"}, "1.2.3.4"},
		{"all hops trusted: the leftmost", "10.0.0.1:5000", []string{"10.0.0.3, 10.0.0.2"}, "10.0.0.3"},
		{"entries with ports and brackets", "10.0.0.1:5000", []string{"[2001:db8::9]:443, 10.0.0.2:80"}, "2001:db8::9"},
		{"spaces", "10.0.0.1:5000", []string{"  1.2.3.4  ,10.0.0.2"}, "1.2.3.4"},
		{"mapped entry", "10.0.0.1:5000", []string{"::ffff:1.2.3.4"}, "1.2.3.4"},
		{"garbage stops at the last good hop", "10.0.0.1:5000", []string{"1.2.3.4, unknown, 10.0.0.2"}, "10.0.0.2"},
		{"garbage at the right end: the proxy", "10.0.0.1:5000", []string{"1.2.3.4, _hidden"}, "10.0.0.1"},
		{"zoned entry is refused", "10.0.0.1:5000", []string{"fe80::1%eth0"}, "10.0.0.1"},
		{"empty header", "10.0.0.1:5000", []string{""}, "10.0.0.1"},
		{"no header", "10.0.0.1:5000", nil, "10.0.0.1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &http.Request{RemoteAddr: tc.remote, Header: http.Header{}}
			for _, v := range tc.xff {
				r.Header.Add("X-Forwarded-For", v)
			}
			if got := clientIP(r, trusted).String(); got != tc.want {
				t.Errorf("clientIP = %s, want %s", got, tc.want)
			}
		})
	}
}

func TestNormalizePrefix(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"10.1.2.3/8":          "10.0.0.0/8",
		"::ffff:10.1.0.0/112": "10.1.0.0/16",
		"::ffff:0.0.0.0/96":   "0.0.0.0/0",
		"2001:db8::1/32":      "2001:db8::/32",
	} {
		if got := normalizePrefix(netip.MustParsePrefix(in)).String(); got != want {
			t.Errorf("normalizePrefix(%s) = %s, want %s", in, got, want)
		}
	}
}
