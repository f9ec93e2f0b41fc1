package httpapi

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"time"

	"github.com/uptrace/bunrouter"

	"github.com/curvekit/curvekit/candles"
	"github.com/curvekit/curvekit/stream"
)

// The SSE endpoints of SPEC section 6. The rate limit counts the connect only (the route's class);
// once the headers are out, a failure can no longer become a JSON error, so it ends the stream and
// is logged.

// GET /tokens/stream
func (s *Server) globalStream(w http.ResponseWriter, req bunrouter.Request) error {
	conn, err := s.cfg.Streams.Global(req.Context())
	if err != nil {
		return err
	}
	s.serveStream(w, req, conn)
	return nil
}

// GET /tokens/:address/stream
func (s *Server) tokenStream(w http.ResponseWriter, req bunrouter.Request) error {
	addr, err := tokenAddress(req)
	if err != nil {
		return err
	}
	q := newQuery(req.URL)
	res := q.str("res", "")
	from := q.intIn("from", 0, 1, maxUnixTime)
	// How a resume rebuilds: full (SPEC 6.2, the default) or partial, for clients that keep
	// their bars across a resume (docs/API.md).
	partial := false
	switch q.str("resume", "full") {
	case "full":
	case "partial":
		partial = true
	default:
		q.fail("resume must be full or partial")
	}
	if err := q.err(); err != nil {
		return err
	}
	conn, err := s.cfg.Streams.Token(req.Context(), stream.TokenRequest{
		Token:       addr,
		Resolution:  candles.ParseResolutionOrDefault(res), // any other value is 5m (SPEC 6.2)
		From:        from,
		LastEventID: req.Header.Get("Last-Event-ID"),
		Partial:     partial,
	})
	if err != nil {
		return err
	}
	s.serveStream(w, req, conn)
	return nil
}

// serveStream sends the headers and runs conn until the client leaves, the hub cuts it off or
// the server shuts down.
//
// The stream runs on net/http's goroutine for the connection, the only one a stream needs beside
// net/http's reader. It runs once the router has returned (ServeHTTP calls it), so that while it
// waits, the frames above it are few: the runtime shrinks a parked goroutine's stack only when it
// uses less than a quarter of it, and under the route's frames it would keep the 16 KB the
// request's handling grew instead of 8 KB.
func (s *Server) serveStream(w http.ResponseWriter, req bunrouter.Request, conn *stream.Conn) {
	h := w.Header()
	h["Content-Type"] = eventStream
	h["Cache-Control"] = noCache
	h["X-Accel-Buffering"] = no // nginx and its kin would otherwise buffer the stream
	h["X-Content-Type-Options"] = nosniff
	w.WriteHeader(http.StatusOK)
	sw := &sseWriter{w: w, rc: http.NewResponseController(w), timeout: s.cfg.StreamWriteTimeout,
		srv: s, conn: conn, ctx: req.Context(), path: req.URL.Path}
	if st, ok := w.(*statusWriter); ok {
		st.info.stream = sw
		return
	}
	sw.run()
}

// Header values of every stream, shared: a stream's headers cost no allocation of their own.
var (
	eventStream = []string{"text/event-stream"}
	noCache     = []string{"no-cache"}
	no          = []string{"no"}
	nosniff     = []string{"nosniff"}
)

// sseWriter writes events to the response. The server has no WriteTimeout (it would cut every
// stream); each write gets its own deadline instead, so a client that stops reading ends its
// stream after the timeout rather than holding a goroutine forever. It holds what the stream
// needs to run (one allocation for all of it).
type sseWriter struct {
	w       http.ResponseWriter
	rc      *http.ResponseController
	timeout time.Duration
	scratch []byte

	srv  *Server
	conn *stream.Conn
	ctx  context.Context
	path string
}

// run runs the stream until it ends, and logs why when that is worth saying.
func (s *sseWriter) run() {
	defer s.conn.Close()
	err := s.conn.Run(s.ctx, s)
	switch {
	case err == nil, s.ctx.Err() != nil, errors.Is(err, stream.ErrClosed):
	case errors.Is(err, stream.ErrSlow):
		s.srv.log.InfoContext(s.ctx, "httpapi: stream cut off: client too slow", slog.String("path", s.path))
	default:
		s.srv.log.WarnContext(s.ctx, "httpapi: stream ended", slog.String("path", s.path), slog.Any("error", err))
	}
}

var _ stream.Writer = (*sseWriter)(nil)

func (s *sseWriter) Write(events []stream.Event) error {
	if err := s.deadline(); err != nil {
		return err
	}
	for i := range events {
		s.scratch = stream.AppendEvent(s.scratch[:0], &events[i])
		if _, err := s.w.Write(s.scratch); err != nil {
			return err
		}
	}
	s.scratch = nil // most streams are idle most of the time: they keep no buffer between writes
	return s.rc.Flush()
}

func (s *sseWriter) Heartbeat() error {
	if err := s.deadline(); err != nil {
		return err
	}
	if _, err := s.w.Write([]byte(stream.Heartbeat)); err != nil {
		return err
	}
	return s.rc.Flush()
}

func (s *sseWriter) deadline() error {
	err := s.rc.SetWriteDeadline(time.Now().Add(s.timeout))
	if errors.Is(err, http.ErrNotSupported) {
		return nil // a test recorder
	}
	return err
}
