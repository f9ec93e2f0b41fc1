package httpapi

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"path"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/uptrace/bunrouter"

	"github.com/curvekit/curvekit"
	"github.com/curvekit/curvekit/auth"
	"github.com/curvekit/curvekit/stream"
)

// The pipeline every request runs (ARCHITECTURE.md, "The HTTP pipeline"):
//
//	recover ─► authenticate ─► cross-origin check ─► authorize ─► class budget ─► handler ─► one error mapping
//
// A request refused by authorize counts in the refusal class (per refused key and per client
// IP), never in the route's class, whose budget is the account's.
//
// ServeHTTP holds what must wrap the router itself: the recover (bunrouter can panic inside its own
// route lookup, before any route middleware runs), the refusal of paths no route can match, the
// read deadline of request bodies, and the metrics. pipeline wraps each route with the rest, so
// the route's access and class come from the route table and nowhere else.

// requestInfo travels with the response writer (statusWriter) from ServeHTTP to the route that
// serves it: the request's context would cost a copy of the request per request.
type requestInfo struct {
	route *route // nil until a route matched
	// stream, when a route set it, is an event stream to serve after the router returned, with
	// its context and write timeout: the wait of a long-lived stream then sits under the fewest
	// frames, so the runtime shrinks the connection goroutine's stack to what the wait needs
	// (see serveStream).
	stream  *stream.Conn
	ctx     context.Context
	timeout time.Duration
}

// ServeHTTP serves the API. No panic escapes it and every answer it writes is JSON.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	sw := &statusWriter{ResponseWriter: w}
	info := &sw.info
	defer func() {
		if p := recover(); p != nil {
			if p == http.ErrAbortHandler {
				panic(p)
			}
			s.log.ErrorContext(r.Context(), "httpapi: panic", slog.String("method", r.Method),
				slog.String("path", strconv.Quote(r.URL.Path)), slog.Any("panic", p),
				slog.String("stack", string(debug.Stack())))
			if sw.code == 0 {
				writeError(sw, http.StatusInternalServerError, internalMessage)
			}
		}
		if s.metrics != nil {
			s.metrics.observe(info.route, sw.status(), time.Since(start))
		}
	}()
	if !routablePath(r.URL.Path) {
		// No route has a control character in its path, and bunrouter's lookup panics on some
		// (an encoded NUL). Such a request is still counted against its client.
		if s.allowCall(sw, r, auth.ClassDefault, "") {
			writeError(sw, http.StatusNotFound, "route not found")
		}
		return
	}
	if strings.ContainsRune(r.URL.Path, '\\') {
		// No route has a backslash, and a redirect to a cleaned "/\host" would leave the
		// origin: browsers read a backslash as a slash.
		if s.allowCall(sw, r, auth.ClassDefault, "") {
			writeError(sw, http.StatusNotFound, "route not found")
		}
		return
	}
	if clean := cleanPath(r.URL.Path); clean != r.URL.Path {
		// bunrouter would redirect an unclean path ("/tokens//x", "/config/") with a body that
		// is not JSON. A read is sent to the clean path; anything else names no route, since a
		// redirected POST would arrive as a GET.
		if !s.allowCall(sw, r, auth.ClassDefault, "") {
			return
		}
		if r.Method == http.MethodGet || r.Method == http.MethodHead {
			target := clean
			if r.URL.RawQuery != "" {
				target += "?" + r.URL.RawQuery
			}
			_ = redirectStatus(sw, http.StatusMovedPermanently, target)
			return
		}
		writeError(sw, http.StatusNotFound, "route "+r.Method+" "+r.URL.Path+" not found; the path is not canonical")
		return
	}
	if r.ContentLength != 0 {
		// net/http bounds the headers but not the body: a client trickling a body byte by byte
		// would hold the handler forever. The request's length says whether a body comes, not
		// r.Body, which a middleware in front may have wrapped: on a request without a body
		// net/http already reads ahead on the connection, and a deadline under that read would,
		// when it passed, cancel the context of this request and of every later one on the
		// connection (an event stream's first). Once the body is read, net/http clears it.
		_ = http.NewResponseController(sw).SetReadDeadline(start.Add(s.cfg.BodyTimeout))
		// Handlers may replace the body (a size limit, a copy read ahead); net/http must keep
		// its own, which it closes gracefully after an answer that left part of it unread.
		r = r.WithContext(r.Context())
	}
	s.router.ServeHTTP(sw, r)
	if info.stream != nil {
		if r.Method == http.MethodHead {
			info.stream.Close() // the headers are the answer
			return
		}
		if !s.detachStream(sw, r) {
			s.runStream(sw, r.URL.Path)
		}
	}
}

// cleanPath is path without empty, "." and ".." segments and without a trailing slash; "*" (an
// OPTIONS request for the server) stays as it is.
func cleanPath(p string) string {
	if p == "" || p == "*" {
		return p
	}
	if clean(p) {
		return p // the common case, without path.Clean's copy
	}
	return path.Clean("/" + p)
}

// clean reports whether p is already what path.Clean makes of it: rooted, with no empty, "." or
// ".." segment and no trailing slash.
func clean(p string) bool {
	if p[0] != '/' || (len(p) > 1 && p[len(p)-1] == '/') {
		return false
	}
	for i := 0; i < len(p); i++ {
		if p[i] != '/' {
			continue
		}
		seg := p[i+1:]
		if j := strings.IndexByte(seg, '/'); j >= 0 {
			seg = seg[:j]
		}
		if (seg == "" && i+1 < len(p)) || seg == "." || seg == ".." {
			return false
		}
	}
	return true
}

// routablePath reports whether path may name a route: no control characters.
func routablePath(path string) bool {
	for i := 0; i < len(path); i++ {
		if c := path[i]; c < 0x20 || c == 0x7f {
			return false
		}
	}
	return true
}

// pipeline wraps the handler of rt in authentication, rate limiting, the access check and the
// error mapping.
func (s *Server) pipeline(rt *route) bunrouter.HandlerFunc {
	return func(w http.ResponseWriter, req bunrouter.Request) error {
		r := req.Request
		if sw, ok := w.(*statusWriter); ok {
			sw.info.route = rt
		}
		p, outcome := s.authenticate(r, rt)
		if outcome == auth.Refused {
			_, header := credentials(r, rt.bearer)
			s.security(r, slog.LevelWarn, "credential refused", nil, slog.String("header", header))
			if !s.allowCall(w, r, auth.ClassBadCredential, "") {
				return nil
			}
		}
		if p != nil && p.Kind == auth.KindSession && !isSafeMethod(r.Method) {
			// A state-changing request carried by the session cookie must come from our own
			// pages: SameSite=Lax keeps the cookie off cross-site subrequests, and this refuses
			// what browsers mark as cross-origin. It runs before the rate limit, so a page
			// elsewhere cannot spend the victim's signing or export budget either.
			if err := s.origin.Check(r); err != nil {
				s.writeErr(w, r, rt, fmt.Errorf("%w: cross-origin request refused", curvekit.ErrForbidden))
				return nil
			}
		}
		err := s.authorize(r, rt, p)
		if p == nil && outcome == auth.Refused && errors.Is(err, curvekit.ErrUnauthorized) {
			// Say which credential failed: a client sending a key in another header than the
			// one it thinks, or a stale cookie beside a key, learns it here.
			_, header := credentials(r, rt.bearer)
			err = fmt.Errorf("%w: the credential in %s is malformed, unknown, expired or revoked", curvekit.ErrUnauthorized, header)
		}
		if rt.bearer && errors.Is(err, curvekit.ErrUnauthorized) {
			// RFC 6750: MCP clients read this to tell a missing token from a refused one.
			challenge := `Bearer realm="curvekit"`
			if outcome == auth.Refused {
				challenge += `, error="invalid_token"`
			}
			w.Header().Set("WWW-Authenticate", challenge)
		}
		if err == nil && rt.precheck != nil {
			err = rt.precheck(r, p)
		}
		if err != nil {
			s.security(r, slog.LevelWarn, "request refused", p, slog.String("reason", clientMessage(err)))
			s.logRefusal(r, rt, p, err)
			// A refusal needs no budget of the account's: it counts against the refused key
			// and the client IP only.
			if p != nil && p.Kind == auth.KindKey && !s.allowCall(w, r, auth.ClassRefused, "key:"+shortHash(p.KeyID)) {
				return nil
			}
			if !s.allowCall(w, r, auth.ClassRefused, "") {
				return nil
			}
			s.writeErr(w, r, rt, err)
			return nil
		}
		class := rt.class
		if rt.reclass != nil {
			class = rt.reclass(r, class)
		}
		if !s.allowCall(w, r, class, limitSubject(p, class)) {
			return nil
		}
		if p != nil {
			ctx := context.WithValue(r.Context(), principalKey{}, p)
			if rt.lasting {
				var release context.CancelFunc
				ctx, release = s.hold(ctx)
				defer release()
			}
			req = req.WithContext(ctx)
		}
		if rt.access != Public {
			// An answer for one account (its keys, memory, wallet) is never kept by a cache.
			w.Header()["Cache-Control"] = noStore
		}
		if err := rt.handle(w, req); err != nil {
			s.writeErr(w, req.Request, rt, err)
		}
		return nil
	}
}

func isSafeMethod(m string) bool {
	return m == http.MethodGet || m == http.MethodHead || m == http.MethodOptions
}

func routeName(rt *route) string {
	if rt == nil {
		return "unmatched"
	}
	return rt.full
}

// statusWriter records whether and with what status the answer was started. Unwrap lets
// http.ResponseController reach the connection (flushes and deadlines of streams).
type statusWriter struct {
	http.ResponseWriter
	code int // 0 until the answer started
	info requestInfo
}

func (w *statusWriter) WriteHeader(code int) {
	if w.code == 0 {
		w.code = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(p []byte) (int, error) {
	if w.code == 0 {
		w.code = http.StatusOK
	}
	return w.ResponseWriter.Write(p)
}

func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func (w *statusWriter) status() int {
	if w.code == 0 {
		return http.StatusOK
	}
	return w.code
}
