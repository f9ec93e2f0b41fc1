package httpapi

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"log/slog"
	"net/http"
	"net/netip"
	"regexp"

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
	if subject == "" {
		subject = s.subject(r)
	}
	d, err := s.cfg.Limiter.Allow(r.Context(), class.Key(subject), rule.Limit)
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
		writeError(w, http.StatusTooManyRequests, "too many requests; slow down and retry later")
		return false
	}
	return true
}

// apiKeyShape is the form of an API key (SPEC 2.3): svc_ and 24 random bytes in hex.
var apiKeyShape = regexp.MustCompile(`^svc_[0-9a-f]{48}$`)

// KeyIdentifier tells which account key an X-API-Key header carries, so that limits count per
// key. It returns ok false for a key it does not know (or that was revoked).
type KeyIdentifier interface {
	IdentifyKey(ctx context.Context, raw string) (id string, ok bool, err error)
}

// subject identifies the caller a limit counts against: the API key when the request carries one
// that Config.Keys knows (by its id, never the raw key), else the client IP. An unknown key is
// counted by IP like no key at all: made-up keys must not buy fresh buckets. An IPv6 client is
// counted by its /64, the block a single host can draw new addresses from at will.
func (s *Server) subject(r *http.Request) string {
	if k := r.Header.Get("X-API-Key"); s.cfg.Keys != nil && apiKeyShape.MatchString(k) {
		if id, ok, err := s.cfg.Keys.IdentifyKey(r.Context(), k); err == nil && ok {
			sum := sha256.Sum256([]byte(id))
			return "key:" + hex.EncodeToString(sum[:])
		}
	}
	ip := clientIP(r, s.cfg.TrustedProxies)
	switch {
	case !ip.IsValid():
		return "ip:unknown"
	case ip.Is6():
		return "ip:" + netip.PrefixFrom(ip, 64).Masked().String()
	}
	return "ip:" + ip.String()
}
