package httpapi

import (
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
func (s *Server) serveStream(w http.ResponseWriter, req bunrouter.Request, conn *stream.Conn) {
	defer conn.Close()
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no") // nginx and its kin would otherwise buffer the stream
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(http.StatusOK)
	sw := &sseWriter{w: w, rc: http.NewResponseController(w), timeout: s.cfg.StreamWriteTimeout}
	// The stream runs on a goroutine of its own while this one, net/http's for the connection,
	// waits: parked this shallow, the runtime halves the stack the request's handling grew, which
	// it would not with the stream's frames on top (about 8 KB per connection).
	done := make(chan error, 1)
	go func() { done <- conn.Run(req.Context(), sw) }()
	err := <-done
	switch {
	case err == nil, req.Context().Err() != nil, errors.Is(err, stream.ErrClosed):
	case errors.Is(err, stream.ErrSlow):
		s.log.InfoContext(req.Context(), "httpapi: stream cut off: client too slow", slog.String("path", req.URL.Path))
	default:
		s.log.WarnContext(req.Context(), "httpapi: stream ended", slog.String("path", req.URL.Path), slog.Any("error", err))
	}
}

// sseWriter writes events to the response. The server has no WriteTimeout (it would cut every
// stream); each write gets its own deadline instead, so a client that stops reading ends its
// stream after the timeout rather than holding a goroutine forever.
type sseWriter struct {
	w       http.ResponseWriter
	rc      *http.ResponseController
	timeout time.Duration
	scratch []byte
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
	if cap(s.scratch) > 16<<10 {
		s.scratch = nil // a long event (a quiet run) is not kept for the connection's lifetime
	}
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
