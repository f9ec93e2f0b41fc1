package httpapi

import (
	"errors"
	"log/slog"
	"net/http"
	"sync"
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

// serveStream sends the headers and leaves conn to run until the client leaves, the hub cuts it
// off or the server shuts down.
//
// The stream runs on net/http's goroutine for the connection, the only one a stream needs beside
// net/http's reader. It runs once the router has returned (ServeHTTP calls runStream), so that
// while it waits, the frames above it are few: the runtime shrinks a parked goroutine's stack only
// when it uses less than a quarter of it, and under the route's frames it would keep the 16 KB
// the request's handling grew instead of 8 KB. What the stream needs to run is kept in the
// request's statusWriter, which lives as long anyway.
func (s *Server) serveStream(w http.ResponseWriter, req bunrouter.Request, conn *stream.Conn) {
	h := w.Header()
	h["Content-Type"] = eventStream
	h["Cache-Control"] = noCache
	h["X-Accel-Buffering"] = no // nginx and its kin would otherwise buffer the stream
	h["X-Content-Type-Options"] = nosniff
	w.WriteHeader(http.StatusOK)
	sw, ok := w.(*statusWriter)
	if !ok { // a handler called outside ServeHTTP
		sw = &statusWriter{ResponseWriter: w}
		defer s.runStream(sw, req.URL.Path)
	}
	sw.info.stream, sw.info.ctx, sw.info.timeout = conn, req.Context(), s.cfg.StreamWriteTimeout
}

// Header values of every stream, shared: a stream's headers cost no allocation of their own.
var (
	eventStream = []string{"text/event-stream"}
	noCache     = []string{"no-cache"}
	noStore     = []string{"no-store"}
	no          = []string{"no"}
	nosniff     = []string{"nosniff"}
	heartbeat   = []byte(stream.Heartbeat)
)

// runStream runs the stream serveStream left in sw until it ends, and logs why when that is worth
// saying.
func (s *Server) runStream(sw *statusWriter, path string) {
	conn, ctx := sw.info.stream, sw.info.ctx
	defer conn.Close()
	err := conn.Run(ctx, (*eventWriter)(sw))
	switch {
	case err == nil, ctx.Err() != nil, errors.Is(err, stream.ErrClosed):
	case errors.Is(err, stream.ErrSlow):
		s.log.InfoContext(ctx, "httpapi: stream cut off: client too slow", slog.String("path", path))
	default:
		s.log.WarnContext(ctx, "httpapi: stream ended", slog.String("path", path), slog.Any("error", err))
	}
}

// eventWriter writes a stream's events to the response its statusWriter wraps. The server has
// no WriteTimeout (it would cut every stream); each write gets its own deadline instead, so a
// client that stops reading ends its stream after the timeout rather than holding a goroutine
// forever.
type eventWriter statusWriter

var _ stream.Writer = (*eventWriter)(nil)

func (s *eventWriter) Write(events []stream.Event) error {
	if err := s.deadline(); err != nil {
		return err
	}
	// Each event goes out as it is encoded (a catch-up of thousands is never one buffer), from
	// a pooled scratch: most streams are idle most of the time, and keep no buffer between writes.
	p := eventScratch.Get().(*[]byte)
	b := (*p)[:0]
	defer func() {
		if cap(b) <= 64<<10 {
			*p = b[:0]
			eventScratch.Put(p)
		}
	}()
	for i := range events {
		b = stream.AppendEvent(b[:0], &events[i])
		if _, err := s.ResponseWriter.Write(b); err != nil {
			return err
		}
	}
	return http.NewResponseController(s.ResponseWriter).Flush()
}

var eventScratch = sync.Pool{New: func() any { b := make([]byte, 0, 1024); return &b }}

func (s *eventWriter) Heartbeat() error {
	if err := s.deadline(); err != nil {
		return err
	}
	if _, err := s.ResponseWriter.Write(heartbeat); err != nil {
		return err
	}
	return http.NewResponseController(s.ResponseWriter).Flush()
}

func (s *eventWriter) deadline() error {
	err := http.NewResponseController(s.ResponseWriter).SetWriteDeadline(time.Now().Add(s.info.timeout))
	if errors.Is(err, http.ErrNotSupported) {
		return nil // a test recorder
	}
	return err
}
