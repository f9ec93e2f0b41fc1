package httpapi

import (
	"net/http"
	"net/netip"
	"strings"
)

// clientIP returns the address a request came from. It is the TCP peer, unless the peer is one
// of the trusted proxies: then X-Forwarded-For is read from right to left, skipping trusted hops,
// and the first untrusted address is the client. Addresses are unmapped (::ffff:a.b.c.d becomes
// a.b.c.d) so an IPv4 client on a dual-stack listener matches IPv4 prefixes.
//
// Only the right end of the header can be trusted: each trusted proxy appends the peer it saw,
// while everything to the left of the last trusted hop is whatever the client sent. When every
// entry is trusted, the leftmost is the client; when an entry cannot be parsed, the hop that
// appended it is the best address known.
func clientIP(r *http.Request, trusted []netip.Prefix) netip.Addr {
	peer := peerAddr(r.RemoteAddr)
	if !peer.IsValid() || !isTrusted(peer, trusted) {
		return peer
	}
	return forwardedFor(r, peer, trusted)
}

// forwardedFor is clientIP for a request whose peer is a trusted proxy.
func forwardedFor(r *http.Request, peer netip.Addr, trusted []netip.Prefix) netip.Addr {
	client := peer
	hops := r.Header.Values("X-Forwarded-For")
	for i := len(hops) - 1; i >= 0; i-- {
		entries := strings.Split(hops[i], ",")
		for j := len(entries) - 1; j >= 0; j-- {
			a, ok := parseHop(entries[j])
			if !ok {
				return client
			}
			client = a
			if !isTrusted(a, trusted) {
				return a
			}
		}
	}
	return client
}

// peerAddr parses RemoteAddr ("ip:port", or a bare ip from some test harnesses). A zone is
// dropped: a prefix never contains a zoned address.
func peerAddr(remote string) netip.Addr {
	var a netip.Addr
	if ap, err := netip.ParseAddrPort(remote); err == nil { // the usual form: try it first
		a = ap.Addr()
	} else if a, err = netip.ParseAddr(remote); err != nil {
		return netip.Addr{}
	}
	return a.WithZone("").Unmap()
}

// parseHop parses one X-Forwarded-For entry: an address, possibly with a port (some proxies add
// one) or in brackets. Zones are refused: they name a local interface, not a client.
func parseHop(s string) (netip.Addr, bool) {
	s = strings.TrimSpace(s)
	a, err := netip.ParseAddr(s)
	if err != nil {
		ap, err := netip.ParseAddrPort(s)
		if err != nil {
			return netip.Addr{}, false
		}
		a = ap.Addr()
	}
	if a.Zone() != "" {
		return netip.Addr{}, false
	}
	return a.Unmap(), true
}

func isTrusted(a netip.Addr, trusted []netip.Prefix) bool {
	for _, p := range trusted {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// normalizePrefix masks p and turns an IPv4-mapped IPv6 prefix (::ffff:10.0.0.0/104) into its
// IPv4 form, since client addresses are unmapped before they are matched.
func normalizePrefix(p netip.Prefix) netip.Prefix {
	if a := p.Addr(); a.Is4In6() && p.Bits() >= 96 {
		p = netip.PrefixFrom(a.Unmap(), p.Bits()-96)
	}
	return p.Masked()
}
