package apiclient

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/curvekit/curvekit"
)

// Error is an answer of the server that refused a request: a non-2xx status with its
// {statusCode, message} body, or a quote or build-tx validator's 200 {error} (Status 200).
// errors.Is matches it against curvekit's sentinels by status (401 ErrUnauthorized, 403
// ErrForbidden, 404 ErrNotFound, 409 ErrConflict, 413 ErrTooLarge, 429 ErrLimited, 400 and the
// validators' 200 ErrInvalid).
type Error struct {
	Method, Path string
	Status       int
	// Messages are the server's message, one entry per failing field when it listed several.
	Messages []string
	// Code is the refusal's machine-readable reason when the server gave one.
	Code curvekit.Code
	// Attempts is how many times the request was sent (more than one after 429s).
	Attempts int
}

func (e *Error) Error() string {
	msg := strings.Join(e.Messages, "; ")
	if msg == "" {
		msg = http.StatusText(e.Status)
	}
	if e.Status == http.StatusOK {
		return "the server refused the request: " + msg
	}
	status := http.StatusText(e.Status)
	if e.Code != "" {
		status += " (" + string(e.Code) + ")"
	}
	s := fmt.Sprintf("the server answered %d %s: %s", e.Status, status, msg)
	if e.Status == http.StatusTooManyRequests && e.Attempts > 1 {
		s += fmt.Sprintf(" (still throttled after %d attempts)", e.Attempts)
	}
	return s
}

// Unwrap maps the status to curvekit's sentinel errors.
func (e *Error) Unwrap() error {
	switch e.Status {
	case http.StatusOK, http.StatusBadRequest:
		return curvekit.ErrInvalid
	case http.StatusUnauthorized:
		return curvekit.ErrUnauthorized
	case http.StatusForbidden:
		return curvekit.ErrForbidden
	case http.StatusNotFound:
		return curvekit.ErrNotFound
	case http.StatusConflict:
		return curvekit.ErrConflict
	case http.StatusRequestEntityTooLarge:
		return curvekit.ErrTooLarge
	case http.StatusTooManyRequests:
		return curvekit.ErrLimited
	}
	return nil
}

// decodeError reads {statusCode, message} where message is a string or an array of strings;
// any other body (a proxy's HTML page) leaves only the status.
func decodeError(method, path string, status int, raw []byte, attempt int) *Error {
	e := &Error{Method: method, Path: path, Status: status, Attempts: attempt + 1}
	var body struct {
		Message json.RawMessage `json:"message"`
		Code    curvekit.Code   `json:"code"`
	}
	if json.Unmarshal(raw, &body) != nil || len(body.Message) == 0 {
		return e
	}
	e.Code = body.Code
	var one string
	if json.Unmarshal(body.Message, &one) == nil {
		e.Messages = []string{one}
		return e
	}
	var many []string
	if json.Unmarshal(body.Message, &many) == nil {
		e.Messages = many
	}
	return e
}

// validation turns a validator's 200 {error} into an *Error; "" is no error.
func validation(method, path, msg string) error {
	if msg == "" {
		return nil
	}
	return &Error{Method: method, Path: path, Status: http.StatusOK, Messages: []string{msg}, Attempts: 1}
}
