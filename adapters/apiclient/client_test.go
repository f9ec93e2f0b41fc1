package apiclient

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/curvekit/curvekit"
)

// The server's wire answers, as docs/API.md shows them, replayed by a handler: these tests pin
// how the client reads each shape; cmd/curvekit and adapters/mcp test it against the real server.

func newClient(t *testing.T, h http.HandlerFunc, cfg Config) *Client {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	cfg.BaseURL = srv.URL
	c, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestThrottledRequestBacksOffThenSucceeds(t *testing.T) {
	var calls atomic.Int32
	var gaps []time.Duration
	last := time.Now()
	c := newClient(t, func(w http.ResponseWriter, r *http.Request) {
		gaps = append(gaps, time.Since(last))
		last = time.Now()
		if calls.Add(1) <= 2 {
			w.WriteHeader(http.StatusTooManyRequests)
			w.Write([]byte(`{"statusCode":429,"message":"too many requests; slow down and retry later"}`))
			return
		}
		w.Write([]byte(`{"tokens":[],"nextCursor":null}`))
	}, Config{Backoff: 20 * time.Millisecond})
	if _, err := c.Tokens(context.Background(), TokensParams{}); err != nil {
		t.Fatal(err)
	}
	if calls.Load() != 3 {
		t.Fatalf("%d calls, want 3", calls.Load())
	}
	// Waits are drawn from the upper half of 20ms, then of 40ms.
	if gaps[1] < 10*time.Millisecond || gaps[2] < 20*time.Millisecond {
		t.Errorf("waits %v too short for the back-off", gaps[1:])
	}
}

func TestThrottledRequestGivesUp(t *testing.T) {
	var calls atomic.Int32
	c := newClient(t, func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		w.WriteHeader(http.StatusTooManyRequests)
		w.Write([]byte(`{"statusCode":429,"message":"too many requests; slow down and retry later"}`))
	}, Config{Backoff: time.Millisecond, Retries: 3})
	_, err := c.Token(context.Background(), "0xAAaA000000000000000000000000000000000001")
	var apiErr *Error
	if !errors.As(err, &apiErr) || apiErr.Status != 429 || !errors.Is(err, curvekit.ErrLimited) {
		t.Fatalf("err = %v, want a 429 *Error", err)
	}
	if calls.Load() != 4 || apiErr.Attempts != 4 || !strings.Contains(err.Error(), "after 4 attempts") {
		t.Errorf("calls %d, err %q", calls.Load(), err)
	}
}

func TestErrorShapes(t *testing.T) {
	cases := []struct {
		status   int
		body     string
		sentinel error
		want     string
	}{
		{401, `{"statusCode":401,"message":"an API key is required"}`, curvekit.ErrUnauthorized, "401 Unauthorized: an API key is required"},
		{403, `{"statusCode":403,"message":"the job belongs to another wallet"}`, curvekit.ErrForbidden, "the job belongs to another wallet"},
		{404, `{"statusCode":404,"message":"token not found"}`, curvekit.ErrNotFound, "token not found"},
		{400, `{"statusCode":400,"message":["sort must be one of newest","limit must be an integer from 1 to 100"]}`, curvekit.ErrInvalid, "sort must be one of newest; limit must be"},
		{502, `<html>bad gateway</html>`, nil, "502 Bad Gateway: Bad Gateway"},
	}
	for _, tc := range cases {
		c := newClient(t, func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(tc.status)
			w.Write([]byte(tc.body))
		}, Config{APIKey: "svc_x"})
		_, err := c.Job(context.Background(), "job_1")
		var apiErr *Error
		if !errors.As(err, &apiErr) || apiErr.Status != tc.status || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%d: err = %v", tc.status, err)
		}
		if tc.sentinel != nil && !errors.Is(err, tc.sentinel) {
			t.Errorf("%d: %v is not %v", tc.status, err, tc.sentinel)
		}
	}
}

func TestValidatorErrorIsInvalid(t *testing.T) {
	c := newClient(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("amount") != "1e18" || r.URL.Query().Get("type") != "buy" {
			t.Errorf("query %q", r.URL.RawQuery)
		}
		w.Write([]byte(`{"error":"amount \"1e18\" is not a decimal number"}`))
	}, Config{})
	_, err := c.Quote(context.Background(), "0xAAaA000000000000000000000000000000000001", "buy", "1e18")
	var apiErr *Error
	if !errors.As(err, &apiErr) || apiErr.Status != 200 || !errors.Is(err, curvekit.ErrInvalid) || !strings.Contains(err.Error(), "not a decimal number") {
		t.Fatalf("err = %v", err)
	}
}

func TestKeyHeaderAndNoKey(t *testing.T) {
	c := newClient(t, func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-API-Key") != "svc_abc" || r.Header.Get("Content-Type") != "application/json" {
			t.Errorf("headers %v", r.Header)
		}
		w.WriteHeader(http.StatusAccepted)
		w.Write([]byte(`{"jobId":"job_1","status":"pending","threadId":"t"}`))
	}, Config{APIKey: "svc_abc"})
	s, err := c.SubmitJob(context.Background(), JobRequest{Prompt: "hi"})
	if err != nil || s.JobID != "job_1" {
		t.Fatalf("%+v %v", s, err)
	}
	anon, err := New(Config{BaseURL: c.BaseURL()})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := anon.SubmitJob(context.Background(), JobRequest{Prompt: "hi"}); !errors.Is(err, ErrNoKey) {
		t.Fatalf("without a key: %v", err)
	}
}

func TestUnreachable(t *testing.T) {
	// Port 1: nothing listens there, and no test server can be given it (they bind port 0, which
	// the kernel answers from the ephemeral range), as it could a port picked and closed here.
	c, err := New(Config{BaseURL: "http://127.0.0.1:1", APIKey: "svc_secret"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Settings(context.Background())
	if !errors.Is(err, ErrUnreachable) || strings.Contains(err.Error(), "svc_secret") {
		t.Fatalf("err = %v", err)
	}
}

func TestBadBaseURL(t *testing.T) {
	for _, u := range []string{"127.0.0.1:8080", "ftp://x", "http://"} {
		if _, err := New(Config{BaseURL: u}); err == nil {
			t.Errorf("%q accepted", u)
		}
	}
}
