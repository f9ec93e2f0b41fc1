package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/curvekit/curvekit"
	"github.com/curvekit/curvekit/candles"
	"github.com/curvekit/curvekit/market"
)

// errorBody is the error shape of SPEC section 7. Message is a string, or for a validation
// failure that lists several fields an array of strings. Code, when present, is the refusal's
// machine-readable reason, one of curvekit.Codes.
type errorBody struct {
	StatusCode int           `json:"statusCode"`
	Message    errorMessage  `json:"message"`
	Code       curvekit.Code `json:"code,omitempty"`
}

// errorMessage is the message of an error: one string, or for a validation failure naming
// several fields, an array of them.
type errorMessage any

// validationBody is what the quote and build-tx validators answer with status 200 (SPEC 4.4).
type validationBody struct {
	Error string `json:"error"`
}

// httpError is an error a handler returns to answer with a status and a client-safe message that
// no sentinel expresses (405, 503).
type httpError struct {
	status  int
	message string
}

func (e *httpError) Error() string { return fmt.Sprintf("%d %s", e.status, e.message) }

// invalid is a validation failure: 400, or {error} with status 200 on the quote and build-tx
// validators.
func invalid(format string, args ...any) error {
	return fmt.Errorf("%w: %s", curvekit.ErrInvalid, fmt.Sprintf(format, args...))
}

// problemsErr is nil for no problem, a plain 400 for one, and the list (message an array) for
// several.
func problemsErr(probs curvekit.Problems) error {
	switch len(probs) {
	case 0:
		return nil
	case 1:
		return invalid("%s", probs[0])
	}
	return probs
}

// errorTable maps the root sentinel errors that services return to a status and the message a
// client sees when the error carries none of its own. It is the only place that decides a status
// from an error.
var errorTable = []struct {
	sentinel error
	status   int
	fallback string
}{
	{curvekit.ErrInvalid, http.StatusBadRequest, "invalid request"},
	{curvekit.ErrUnauthorized, http.StatusUnauthorized, "authentication required"},
	{curvekit.ErrForbidden, http.StatusForbidden, "forbidden"},
	{curvekit.ErrNotFound, http.StatusNotFound, "not found"},
	{curvekit.ErrConflict, http.StatusConflict, "conflict with the current state"},
	{curvekit.ErrTooLarge, http.StatusRequestEntityTooLarge, "request too large"},
	{curvekit.ErrLimited, http.StatusTooManyRequests, "limit reached"},
	{curvekit.ErrThrottled, http.StatusServiceUnavailable, "a service this needs is busy; retry later"},
	{curvekit.ErrUnavailable, http.StatusServiceUnavailable, "a service this needs is unavailable; retry later"},
}

// outage is a dependency's outage that speaks for itself, as the chain adapter's does: the
// message for clients (its sentinel may be wrapped under a service's context), the pause to
// suggest in Retry-After, and whether the adapter logs the outage itself, once rather than per
// request.
type outage interface {
	error
	ClientMessage() string
	RetryAfter() time.Duration
	OutageLogged() bool
}

// internalMessage is all a client learns about a failure on our side.
const internalMessage = "internal server error"

// statusOf maps err to its status and client message; ok is false for an error no row matches
// (a failure on our side).
//
// The message is the text after the sentinel when the sentinel is the outermost wrap
// (fmt.Errorf("%w: token has graduated", curvekit.ErrInvalid)), because services write those for
// clients; any other chain ("bunstore: token: not found") gets the row's fallback, so internal
// context never leaks.
func statusOf(err error, notFound string) (status int, message any, ok bool) {
	var he *httpError
	if errors.As(err, &he) {
		return he.status, he.message, true
	}
	var problems curvekit.Problems
	if errors.As(err, &problems) && len(problems) > 0 {
		return http.StatusBadRequest, []string(problems), true
	}
	var o outage
	if errors.As(err, &o) && errors.Is(err, curvekit.ErrUnavailable) {
		return http.StatusServiceUnavailable, o.ClientMessage(), true
	}
	for _, row := range errorTable {
		if !errors.Is(err, row.sentinel) {
			continue
		}
		msg := row.fallback
		if row.sentinel == curvekit.ErrNotFound && notFound != "" {
			msg = notFound
		}
		if rest, cut := strings.CutPrefix(err.Error(), row.sentinel.Error()+": "); cut && rest != "" {
			msg = rest
		}
		return row.status, msg, true
	}
	return http.StatusInternalServerError, internalMessage, false
}

// clientMessage is the message of a validation error without the sentinel's generic prefix
// ("invalid input: amount must be positive" becomes "amount must be positive").
func clientMessage(err error) string {
	if _, msg, ok := statusOf(err, ""); ok {
		if s, isString := msg.(string); isString {
			return s
		}
		return strings.Join(msg.([]string), "; ")
	}
	return internalMessage
}

// writeJSON writes v with the given status. The body is encoded before the header is sent, so an
// encoding failure can still become a 500.
func writeJSON(w http.ResponseWriter, status int, v any) error {
	e := encoders.Get().(*jsonEncoder)
	defer e.put()
	if err := e.enc.Encode(v); err != nil {
		return fmt.Errorf("httpapi: encode response: %w", err)
	}
	return e.send(w, status)
}

// writeQuote writes a quote's answer, which appends its own JSON (byte for byte encoding/json's).
// It and writeToken take their answer's concrete type rather than an interface, so that the quote
// or view the answer points into stays on the caller's stack.
func writeQuote(w http.ResponseWriter, a quoteAnswer) error {
	e := encoders.Get().(*jsonEncoder)
	defer e.put()
	e.buf.Write(append(a.appendJSON(e.buf.AvailableBuffer()), '\n')) // as Encode ends
	return e.send(w, http.StatusOK)
}

// writeToken writes a token's answer, as writeQuote a quote's.
func writeToken(w http.ResponseWriter, a tokenAnswer) error {
	e := encoders.Get().(*jsonEncoder)
	defer e.put()
	e.buf.Write(append(a.appendJSON(e.buf.AvailableBuffer()), '\n'))
	return e.send(w, http.StatusOK)
}

// writeSeries writes a candle window's answer, which appends its own JSON (appendSeriesJSON).
func writeSeries(w http.ResponseWriter, s *market.Series) error {
	if !s.Resolution.Valid() {
		return fmt.Errorf("httpapi: encode response: %w: %d seconds", candles.ErrResolution, int64(s.Resolution))
	}
	e := encoders.Get().(*jsonEncoder)
	defer e.put()
	e.buf.Write(append(appendSeriesJSON(e.buf.AvailableBuffer(), s), '\n'))
	return e.send(w, http.StatusOK)
}

// send writes the encoded answer with status.
func (e *jsonEncoder) send(w http.ResponseWriter, status int) error {
	h := w.Header()
	h["Content-Type"] = applicationJSON
	h["X-Content-Type-Options"] = nosniff
	w.WriteHeader(status)
	_, err := w.Write(e.buf.Bytes())
	return err
}

// jsonEncoder is a reusable buffer and encoder of answers: the hot reads (quotes, tokens) encode
// into a pooled buffer instead of growing a new one each time.
type jsonEncoder struct {
	buf bytes.Buffer
	enc *json.Encoder
}

var encoders = sync.Pool{New: func() any {
	e := &jsonEncoder{}
	e.enc = json.NewEncoder(&e.buf)
	e.enc.SetEscapeHTML(false)
	return e
}}

// put returns e to the pool, unless an answer grew it large (a long list): that buffer goes.
func (e *jsonEncoder) put() {
	if e.buf.Cap() > 64<<10 {
		return
	}
	e.buf.Reset()
	encoders.Put(e)
}

var applicationJSON = []string{"application/json"}

func writeError(w http.ResponseWriter, status int, message any) {
	_ = writeJSON(w, status, errorBody{StatusCode: status, Message: message})
}

// writeCodedError is writeError with a refusal code.
func writeCodedError(w http.ResponseWriter, status int, message any, code curvekit.Code) {
	_ = writeJSON(w, status, errorBody{StatusCode: status, Message: message, Code: code})
}

// writeValidation answers a quote or build-tx validation failure: status 200, {error}.
func writeValidation(w http.ResponseWriter, err error) error {
	return writeJSON(w, http.StatusOK, validationBody{Error: clientMessage(err)})
}

// writeErr answers the error a handler returned. Client faults (4xx) are logged at debug level
// at most; only failures on our side are errors in the log.
func (s *Server) writeErr(w http.ResponseWriter, r *http.Request, rt *route, err error) {
	notFound := ""
	if rt != nil {
		notFound = rt.notFound
	}
	status, msg, ok := statusOf(err, notFound)
	var o outage
	if ok && status == http.StatusServiceUnavailable && errors.As(err, &o) {
		if d := o.RetryAfter(); d > 0 {
			w.Header().Set("Retry-After", strconv.Itoa(int((d+time.Second-1)/time.Second)))
		}
	}
	if ok && status == http.StatusServiceUnavailable && o != nil && o.OutageLogged() {
		s.log.DebugContext(r.Context(), "httpapi: a dependency is unavailable", slog.String("method", r.Method),
			slog.String("route", routeName(rt)), slog.Any("error", err))
	} else if ok && status == http.StatusServiceUnavailable {
		// Not the client's fault: the operator needs the cause (a dial error) that the
		// client's message leaves out.
		s.log.WarnContext(r.Context(), "httpapi: a dependency is unavailable", slog.String("method", r.Method),
			slog.String("route", routeName(rt)), slog.Any("error", err))
	} else if !ok {
		s.log.ErrorContext(r.Context(), "httpapi: request failed", slog.String("method", r.Method),
			slog.String("route", routeName(rt)), slog.String("path", r.URL.Path), slog.Any("error", err))
	} else {
		s.log.DebugContext(r.Context(), "httpapi: refused", slog.String("method", r.Method),
			slog.String("route", routeName(rt)), slog.Int("status", status), slog.Any("error", err))
	}
	var code curvekit.Code
	if ok && status < http.StatusInternalServerError {
		code = curvekit.CodeOf(err)
	}
	writeCodedError(w, status, msg, code)
}
