package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"

	"github.com/uptrace/bunrouter"

	"github.com/curvekit/curvekit"
)

// errorBody is the error shape of SPEC section 7.
type errorBody struct {
	StatusCode int    `json:"statusCode"`
	Message    string `json:"message"`
}

// validationBody is what the quote and build-tx validators answer with status 200 (SPEC 4.4).
type validationBody struct {
	Error string `json:"error"`
}

// httpError is an error a handler returns to answer with a status and a client-safe message.
type httpError struct {
	status  int
	message string
}

func (e *httpError) Error() string { return fmt.Sprintf("%d %s", e.status, e.message) }

func badRequest(format string, args ...any) error {
	return &httpError{status: http.StatusBadRequest, message: fmt.Sprintf(format, args...)}
}

// internalMessage is all a client learns about a failure on our side.
const internalMessage = "internal server error"

// writeJSON writes v with the given status. The body is encoded before the header is sent, so an
// encoding failure can still become a 500.
func writeJSON(w http.ResponseWriter, status int, v any) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("httpapi: encode response: %w", err)
	}
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	_, err := w.Write(buf.Bytes())
	return err
}

func writeError(w http.ResponseWriter, status int, message string) {
	_ = writeJSON(w, status, errorBody{StatusCode: status, Message: message})
}

// writeValidation answers a quote or build-tx validation failure: status 200, {error}.
func writeValidation(w http.ResponseWriter, err error) error {
	return writeJSON(w, http.StatusOK, validationBody{Error: clientMessage(err)})
}

// clientMessage is the message of a validation error without the sentinel's generic prefix
// ("invalid input: amount must be positive" becomes "amount must be positive").
func clientMessage(err error) string {
	return strings.TrimPrefix(err.Error(), curvekit.ErrInvalid.Error()+": ")
}

// errorsMiddleware turns the error a handler returns into a response: an httpError as itself,
// curvekit.ErrNotFound as 404, anything else as a logged 500 with a generic message. It also
// turns a panic into a 500, so one bad request never takes a connection's other requests down
// with it silently.
func (s *Server) errorsMiddleware(next bunrouter.HandlerFunc) bunrouter.HandlerFunc {
	return func(w http.ResponseWriter, req bunrouter.Request) (err error) {
		defer func() {
			if p := recover(); p != nil {
				if p == http.ErrAbortHandler {
					panic(p)
				}
				s.log.ErrorContext(req.Context(), "httpapi: panic", slog.String("method", req.Method),
					slog.String("path", req.URL.Path), slog.Any("panic", p))
				writeError(w, http.StatusInternalServerError, internalMessage)
				err = nil
			}
		}()
		if err := next(w, req); err != nil {
			s.writeErr(w, req, err)
		}
		return nil
	}
}

func (s *Server) writeErr(w http.ResponseWriter, req bunrouter.Request, err error) {
	var he *httpError
	switch {
	case errors.As(err, &he):
		writeError(w, he.status, he.message)
	case errors.Is(err, curvekit.ErrNotFound):
		writeError(w, http.StatusNotFound, "not found")
	default:
		s.log.ErrorContext(req.Context(), "httpapi: request failed", slog.String("method", req.Method),
			slog.String("route", req.Route()), slog.String("path", req.URL.Path), slog.Any("error", err))
		writeError(w, http.StatusInternalServerError, internalMessage)
	}
}
