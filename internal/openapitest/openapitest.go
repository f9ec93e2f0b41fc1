// Package openapitest holds a server to its own OpenAPI document in tests: a middleware that
// validates every request and every response passing through it against the document
// (kin-openapi's openapi3filter), so a field renamed in code but not in the document fails the
// test that sent it.
//
// The rules:
//   - a request the document accepts gets an answer the document describes, status, headers
//     and body;
//   - a request the document refuses gets an error answer (status 400 or above, or a validator
//     route's {error} with 200), which the document must describe too;
//   - a path no route matches is answered 404 or 405 with the error shape, or a redirect;
//   - a stream (text/event-stream) sends only the event names its operation lists.
//
// Every method × path × status seen is counted; when CURVEKIT_OPENAPI_PAIRS names a file, the
// pairs are appended to it, one per line, so a run of several packages can report how much of
// the document the suite exercised.
package openapitest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"
)

// maxCapture bounds what is kept of a body for validation; a stream is read up to it.
const maxCapture = 4 << 20

// Checker validates traffic against one document.
type Checker struct {
	doc    *openapi3.T
	router routers.Router

	mu       sync.Mutex
	failures []string
	pairs    map[string]int
}

// Load parses and validates an OpenAPI document.
func Load(raw []byte) (*openapi3.T, error) {
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(raw)
	if err != nil {
		return nil, fmt.Errorf("openapi: load: %w", err)
	}
	if err := doc.Validate(context.Background()); err != nil {
		return nil, fmt.Errorf("openapi: the document is invalid: %w", err)
	}
	return doc, nil
}

// New returns a Checker for the document raw; its failures are reported on t when the test
// ends (after the servers it wraps have stopped, when New is called before they start).
func New(t testing.TB, raw []byte) *Checker {
	t.Helper()
	doc, err := Load(raw)
	if err != nil {
		t.Fatal(err)
	}
	router, err := gorillamux.NewRouter(doc)
	if err != nil {
		t.Fatalf("openapi: router: %v", err)
	}
	c := &Checker{doc: doc, router: router, pairs: map[string]int{}}
	t.Cleanup(func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		for _, f := range c.failures {
			t.Errorf("openapi: %s", f)
		}
		if path := os.Getenv("CURVEKIT_OPENAPI_PAIRS"); path != "" && len(c.pairs) > 0 {
			f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
			if err != nil {
				t.Errorf("openapi: pairs: %v", err)
				return
			}
			defer f.Close()
			for p := range c.pairs {
				fmt.Fprintln(f, p)
			}
		}
	})
	return c
}

// Pairs returns the method × path × status pairs seen so far, sorted.
func (c *Checker) Pairs() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []string
	for p := range c.pairs {
		out = append(out, p)
	}
	slices.Sort(out)
	return out
}

func (c *Checker) fail(format string, args ...any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.failures = append(c.failures, fmt.Sprintf(format, args...))
}

// Wrap returns h with every exchange checked.
func (c *Checker) Wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reqBody := &capped{}
		if r.Body != nil {
			r.Body = readCloser{Reader: io.TeeReader(r.Body, reqBody), Closer: r.Body}
		}
		rec := &recorder{ResponseWriter: w}
		// The request as it arrived, for validation after the handler has run.
		orig := r.Clone(context.Background())
		h.ServeHTTP(rec, r)
		orig.Body = io.NopCloser(bytes.NewReader(reqBody.Bytes()))
		c.check(orig, reqBody, rec)
	})
}

func (c *Checker) check(r *http.Request, reqBody *capped, rec *recorder) {
	status := rec.status
	if status == 0 {
		status = http.StatusOK
	}
	name := r.Method + " " + r.URL.Path
	route, pathParams, err := c.router.FindRoute(r)
	if err != nil {
		// No operation: the server must not have served one either.
		c.count(r.Method + " (no route) " + strconv.Itoa(status))
		switch {
		case status == http.StatusNotFound || status == http.StatusMethodNotAllowed || status == http.StatusTooManyRequests ||
			status == http.StatusBadRequest:
			c.checkError(name, status, rec)
		case status >= 300 && status < 400:
		default:
			c.fail("%s: no operation of the document matches, yet the server answered %d", name, status)
		}
		return
	}
	c.count(route.Method + " " + route.Path + " " + strconv.Itoa(status))
	ctx := context.Background()
	in := &openapi3filter.RequestValidationInput{
		Request: r, PathParams: pathParams, Route: route,
		Options: &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc, MultiError: true},
	}
	reqErr := openapi3filter.ValidateRequest(ctx, in)
	if reqBody.truncated {
		reqErr = nil // too large to judge: the server's own limits answer it
	}
	streamed := strings.HasPrefix(rec.Header().Get("Content-Type"), "text/event-stream")
	// Bodies the document describes as JSON are validated; others (images, pinned content, a
	// mounted protocol's HTML) only by their media type.
	opaque := streamed || !describesJSON(route, status)
	out := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: in,
		Status:                 status,
		Header:                 rec.Header(),
		Options:                &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true, ExcludeResponseBody: opaque},
	}
	out.SetBodyBytes(rec.body.Bytes())
	if rec.body.truncated && !streamed {
		c.fail("%s: the answer is larger than %d bytes; not validated", name, maxCapture)
		return
	}
	if err := openapi3filter.ValidateResponse(ctx, out); err != nil {
		c.fail("%s %d: the answer does not match the document: %v\nbody: %.500s", name, status, err, rec.body.Bytes())
	}
	if streamed {
		c.checkEvents(name, route, rec.body.Bytes())
	}
	if reqErr != nil && status < 400 && !isRefusal(rec) && !(status >= 300 && status < 400) {
		c.fail("%s: the document refuses this request (%v), yet the server answered %d: %.300s", name, reqErr, status, rec.body.Bytes())
	}
}

// describesJSON reports whether the operation's answer for status is JSON with a schema.
func describesJSON(route *routers.Route, status int) bool {
	r := route.Operation.Responses.Status(status)
	if r == nil {
		r = route.Operation.Responses.Default()
	}
	if r == nil || r.Value == nil {
		return false
	}
	mt := r.Value.Content.Get("application/json")
	return mt != nil && mt.Schema != nil && (mt.Schema.Ref != "" || !isEmptySchema(mt.Schema.Value))
}

func isEmptySchema(s *openapi3.Schema) bool {
	return s == nil || (s.Type == nil && len(s.Properties) == 0 && s.OneOf == nil && s.AnyOf == nil && s.AllOf == nil)
}

// isRefusal reports a validator route's {error} answer, or a UDF refusal ({"s":"error"} or
// "no_data").
func isRefusal(rec *recorder) bool {
	var v map[string]json.RawMessage
	if json.Unmarshal(rec.body.Bytes(), &v) != nil {
		return false
	}
	if s := string(v["s"]); s == `"error"` || s == `"no_data"` {
		return true
	}
	_, ok := v["error"]
	return ok && len(v) == 1
}

// checkError checks an answer outside any operation against the document's Error schema.
func (c *Checker) checkError(name string, status int, rec *recorder) {
	ref := c.doc.Components.Schemas["Error"]
	if ref == nil || ref.Value == nil {
		c.fail("the document has no Error schema")
		return
	}
	var v any
	if err := json.Unmarshal(rec.body.Bytes(), &v); err != nil {
		c.fail("%s %d: the error is not JSON: %.200s", name, status, rec.body.Bytes())
		return
	}
	if err := ref.Value.VisitJSON(v, openapi3.EnableJSONSchema2020()); err != nil {
		c.fail("%s %d: the error does not match the Error schema: %v", name, status, err)
	}
}

// checkEvents checks that a stream sent only the events its operation lists.
func (c *Checker) checkEvents(name string, route *routers.Route, body []byte) {
	resp := route.Operation.Responses.Status(http.StatusOK)
	if resp == nil || resp.Value == nil {
		return
	}
	listed, _ := resp.Value.Extensions["x-sse-events"].([]any)
	sc := bufio.NewScanner(bytes.NewReader(body))
	sc.Buffer(make([]byte, 0, 64<<10), maxCapture)
	for sc.Scan() {
		ev, ok := strings.CutPrefix(sc.Text(), "event: ")
		if !ok {
			continue
		}
		if !slices.Contains(listed, any(ev)) {
			c.fail("%s: event %q is not among the operation's events %v", name, ev, listed)
		}
	}
}

func (c *Checker) count(pair string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.pairs[pair]++
}

// capped keeps the first maxCapture bytes written to it.
type capped struct {
	mu        sync.Mutex
	buf       bytes.Buffer
	truncated bool
}

func (b *capped) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if room := maxCapture - b.buf.Len(); room < len(p) {
		b.truncated = true
		if room > 0 {
			b.buf.Write(p[:room])
		}
		return len(p), nil
	}
	return b.buf.Write(p)
}

func (b *capped) Bytes() []byte {
	b.mu.Lock()
	defer b.mu.Unlock()
	return bytes.Clone(b.buf.Bytes())
}

type readCloser struct {
	io.Reader
	io.Closer
}

// recorder passes the answer through and keeps a copy.
type recorder struct {
	http.ResponseWriter
	status int
	body   capped
}

func (r *recorder) WriteHeader(status int) {
	if r.status == 0 && status >= 200 {
		r.status = status
	}
	r.ResponseWriter.WriteHeader(status)
}

func (r *recorder) Write(p []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	_, _ = r.body.Write(p)
	return r.ResponseWriter.Write(p)
}

// Unwrap lets http.ResponseController reach the connection (flushes, deadlines).
func (r *recorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

func (r *recorder) Flush() {
	if f, ok := r.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}
