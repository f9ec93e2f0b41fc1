package httpapi

import (
	"context"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"sync/atomic"

	"github.com/curvekit/curvekit"
	"github.com/curvekit/curvekit/auth"
)

// allowCall applies the rate limit of class to the request and reports whether it may proceed;
// when it may not, the answer has been written: 429 when throttled (without Retry-After, per SPEC
// section 7), 503 when the limiter cannot decide and the class fails closed (a fail-open class
// lets the request through). subject is who the call counts against (a key id, an account), or ""
// for the client IP.
func (s *Server) allowCall(w http.ResponseWriter, r *http.Request, class auth.Class, subject string) bool {
	rule, throttled := s.cfg.Policy.Lookup(class)
	if !throttled {
		return true
	}
	var key string
	if subject == "" {
		key = s.ipKey(class, r)
	} else {
		key = class.Key(subject)
	}
	d, err := s.cfg.Limiter.Allow(r.Context(), key, rule.Limit)
	switch {
	case err != nil && r.Context().Err() != nil:
		return false // the client has gone; nobody reads an answer
	case err != nil && rule.FailClosed:
		s.log.ErrorContext(r.Context(), "httpapi: rate limiter failed; failing closed",
			slog.String("class", string(class)), slog.Any("error", err))
		writeError(w, http.StatusServiceUnavailable, "service temporarily unavailable; retry later")
		return false
	case err != nil:
		s.log.WarnContext(r.Context(), "httpapi: rate limiter failed; failing open",
			slog.String("class", string(class)), slog.Any("error", err))
	case !d.Allowed:
		writeCodedError(w, http.StatusTooManyRequests, "too many requests; slow down and retry later", curvekit.CodeRateLimited)
		return false
	}
	return true
}

// ipKey is class's bucket of an anonymous caller, class.Key("ip:" + client IP), built in one
// allocation. An IPv6 client is counted by its /64, the block a single host can draw new
// addresses from at will. On a connection served with ConnContext, a key built from the TCP peer
// (not a trusted proxy) is kept for the connection's next requests of the same class.
func (s *Server) ipKey(class auth.Class, r *http.Request) string {
	memo, _ := r.Context().Value(peerMemoKey{}).(*peerMemo)
	if memo != nil {
		if k := memo.last.Load(); k != nil && k.class == class && k.remote == r.RemoteAddr {
			return k.key
		}
	}
	peer := peerAddr(r.RemoteAddr)
	direct := !peer.IsValid() || !isTrusted(peer, s.cfg.TrustedProxies)
	ip := peer
	if !direct {
		ip = forwardedFor(r, peer, s.cfg.TrustedProxies)
	}
	var buf [96]byte
	key := append(append(buf[:0], class...), ":ip:"...)
	switch {
	case !ip.IsValid():
		key = append(key, "unknown"...)
	case ip.Is6():
		key, _ = netip.PrefixFrom(ip, 64).Masked().AppendText(key)
	default:
		key = ip.AppendTo(key)
	}
	k := string(key)
	if memo != nil && direct {
		memo.last.Store(&peerKey{remote: r.RemoteAddr, class: class, key: k})
	}
	return k
}

// peerMemo is what a connection keeps of its client (ConnContext): the rate-limit key last
// built from its peer address, so that the requests after the first on a kept-alive connection
// neither parse the address nor build the key again.
type peerMemo struct{ last atomic.Pointer[peerKey] }

type peerKey struct {
	remote string // the RemoteAddr it was built from: a handler in front may rewrite it
	class  auth.Class
	key    string
}

type peerMemoKey struct{}

// ConnContext gives a connection the memo of its client's rate-limit key; it is meant as the
// http.Server's ConnContext. A server without it builds the key on every request.
func ConnContext(ctx context.Context, _ net.Conn) context.Context {
	return context.WithValue(ctx, peerMemoKey{}, new(peerMemo))
}
