package httpapi

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/uptrace/bunrouter"

	"github.com/curvekit/curvekit/auth"
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

// serveStream sends the headers and leaves conn in sw for ServeHTTP to run once the router has
// returned, until the client leaves, the hub cuts it off, the server shuts down or the
// credential that opened it ends (Config.Holder; the connection closes, and the client's
// reconnect gets 401).
//
// Over HTTP/1.1 the body is the rest of the connection (Transfer-Encoding: identity, which
// net/http answers with Connection: close and no chunking, as the SSE specification
// recommends), so that detachStream can hand the connection to a goroutine of the stream's own.
func (s *Server) serveStream(w http.ResponseWriter, req bunrouter.Request, conn *stream.Conn) {
	h := w.Header()
	h["Content-Type"] = eventStream
	h["Cache-Control"] = noCache
	h["X-Accel-Buffering"] = no // nginx and its kin would otherwise buffer the stream
	h["X-Content-Type-Options"] = nosniff
	if req.ProtoMajor == 1 && req.Method != http.MethodHead {
		h["Transfer-Encoding"] = identity
	}
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
	identity    = []string{"identity"}
	heartbeat   = []byte(stream.Heartbeat)
)

// detachStream runs the stream serveStream left in sw on a goroutine of its own, over the
// connection taken from net/http, and reports whether it did; it does not over HTTP/2 or a
// ResponseWriter that cannot be hijacked, where the stream runs on the request's goroutine.
//
// Once the handler returns, net/http lets go of everything it kept for the connection: its
// goroutine and stack, its read and write buffers (8 KB), the request, and the goroutine that
// reads ahead. A stream then costs its subscription, the socket, and two small goroutines: one
// writes (its stack holds only the wait, so the runtime shrinks it to the minimum), the other
// waits for the client to hang up, so that a stream ends the moment its client leaves rather
// than at the next heartbeat.
func (s *Server) detachStream(sw *statusWriter, r *http.Request) bool {
	if r.ProtoMajor != 1 {
		return false
	}
	rc := http.NewResponseController(sw)
	if rc.Flush() != nil {
		return false
	}
	nc, buf, err := rc.Hijack()
	if err != nil {
		return false
	}
	conn, ctx := sw.info.stream, context.WithoutCancel(sw.info.ctx)
	sw.info.stream = nil
	if buf.Reader.Buffered() > 0 {
		// The client sent more after its request: a stream's client sends nothing, and a
		// pipelined request would never be answered.
		conn.Close()
		nc.Close()
		return true
	}
	go s.runDetached(ctx, nc, conn, r.URL.Path)
	return true
}

// runDetached runs a detached stream until it ends, then closes the connection.
func (s *Server) runDetached(ctx context.Context, nc net.Conn, conn *stream.Conn, path string) {
	defer nc.Close()
	ctx, release := s.hold(ctx)
	defer release()
	go awaitHangup(nc, conn)
	s.streamEnded(ctx, path, conn.Run(ctx, &connWriter{nc: nc, timeout: s.cfg.StreamWriteTimeout}))
}

// awaitHangup ends the stream when its client closes the connection or sends anything at all,
// or when the stream closed it.
func awaitHangup(nc net.Conn, conn *stream.Conn) {
	var b [1]byte
	_, _ = nc.Read(b[:])
	conn.Close()
}

// runStream runs the stream serveStream left in sw until it ends, on the request's goroutine.
func (s *Server) runStream(sw *statusWriter, path string) {
	conn, ctx := sw.info.stream, sw.info.ctx
	defer conn.Close()
	ctx, release := s.hold(ctx)
	defer release()
	s.streamEnded(ctx, path, conn.Run(ctx, (*eventWriter)(sw)))
}

// streamEnded logs why a stream ended when that is worth saying.
func (s *Server) streamEnded(ctx context.Context, path string, err error) {
	switch {
	case errors.Is(context.Cause(ctx), auth.ErrCredentialEnded):
		s.log.InfoContext(ctx, "httpapi: stream ended: its credential ended", slog.String("path", path))
	case err == nil, ctx.Err() != nil, errors.Is(err, stream.ErrClosed):
	case errors.Is(err, stream.ErrSlow):
		s.log.InfoContext(ctx, "httpapi: stream cut off: client too slow", slog.String("path", path))
	default:
		s.log.WarnContext(ctx, "httpapi: stream ended", slog.String("path", path), slog.Any("error", err))
	}
}

// connWriter writes a detached stream's events straight to its connection, each batch in as
// few writes as its size allows, each write under its own deadline: a client that stops
// reading ends its stream after the timeout.
type connWriter struct {
	nc      net.Conn
	timeout time.Duration
}

var _ stream.Writer = (*connWriter)(nil)

// connWriteSize is how much of a batch connWriter gathers before it writes.
const connWriteSize = 32 << 10

func (w *connWriter) Write(events []stream.Event) error {
	p := eventScratch.Get().(*[]byte)
	b := (*p)[:0]
	defer func() { putScratch(p, b) }()
	for i := range events {
		b = stream.AppendEvent(b, &events[i])
		if len(b) >= connWriteSize || i == len(events)-1 {
			if err := w.write(b); err != nil {
				return err
			}
			b = b[:0]
		}
	}
	return nil
}

func (w *connWriter) Heartbeat() error { return w.write(heartbeat) }

func (w *connWriter) write(b []byte) error {
	if err := w.nc.SetWriteDeadline(time.Now().Add(w.timeout)); err != nil {
		return err
	}
	_, err := w.nc.Write(b)
	return err
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
	defer func() { putScratch(p, b) }()
	for i := range events {
		b = stream.AppendEvent(b[:0], &events[i])
		if _, err := s.ResponseWriter.Write(b); err != nil {
			return err
		}
	}
	return http.NewResponseController(s.ResponseWriter).Flush()
}

var eventScratch = sync.Pool{New: func() any { b := make([]byte, 0, 1024); return &b }}

// putScratch gives b, taken from p, back to eventScratch, unless it grew past 64 KB.
func putScratch(p *[]byte, b []byte) {
	if cap(b) <= 64<<10 {
		*p = b[:0]
		eventScratch.Put(p)
	}
}

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
