package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/uptrace/bunrouter"

	"github.com/curvekit/curvekit/auth"
	"github.com/curvekit/curvekit/stream"
)

// HEAD answers every GET route as GET does (status and headers), without a body; on a stream it
// sends the headers and ends, leaving no subscriber behind.
func TestHeadAnswersEveryGetRoute(t *testing.T) {
	t.Parallel()
	e := newStreamEnv(t, streamOptions{})
	te := &testEnv{srv: e.srv}
	tok := "/tokens/" + ethToken.Hex()
	for _, path := range []string{"/config", "/openapi.json", "/healthz", "/tokens", tok, tok + "/quote?type=buy&amount=1", tok + "/candles?res=1h", "/udf/time", "/tokens/0x12"} {
		get, head := te.get(t, path), te.do(t, http.MethodHead, path, "")
		if head.status != get.status || len(head.body) != 0 {
			t.Errorf("HEAD %s: %d with %d bytes; GET: %d", path, head.status, len(head.body), get.status)
		}
		for _, h := range []string{"Content-Type", "X-Content-Type-Options", "Cache-Control"} {
			if head.header.Get(h) != get.header.Get(h) {
				t.Errorf("HEAD %s: %s %q, GET's %q", path, h, head.header.Get(h), get.header.Get(h))
			}
		}
	}
	for _, path := range []string{"/tokens/stream", tok + "/stream"} {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		req, _ := http.NewRequestWithContext(ctx, http.MethodHead, e.srv.URL+path, nil)
		resp, err := e.srv.Client().Do(req)
		cancel()
		if err != nil {
			t.Fatalf("HEAD %s: %v", path, err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/event-stream" {
			t.Errorf("HEAD %s: %d %q", path, resp.StatusCode, resp.Header.Get("Content-Type"))
		}
	}
	deadline := time.Now().Add(5 * time.Second)
	for e.hub.Subscribers(stream.GlobalTopic)+e.hub.Subscribers(stream.TokenTopic(ethToken)) != 0 {
		if time.Now().After(deadline) {
			t.Fatal("a HEAD left a stream subscriber")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if r := te.do(t, http.MethodHead, tok+"/build-tx", ""); r.status != http.StatusMethodNotAllowed || r.header.Get("Allow") != "POST" {
		t.Errorf("HEAD on a POST route: %d, Allow %q", r.status, r.header.Get("Allow"))
	}
}

// Every answer that is not JSON says nosniff as well (the OpenAPI document, UDF's time), and an
// answer for one account (any route that is not public) is never stored by a cache.
func TestHeadersOfTextAndPerAccountAnswers(t *testing.T) {
	t.Parallel()
	key := "svc_" + strings.Repeat("a1", 24)
	mine := func(w http.ResponseWriter, _ bunrouter.Request) error {
		return writeJSON(w, http.StatusOK, map[string]string{"mine": "yes"})
	}
	e := newEnv(t, envOptions{auth: knownKeys{key: "key-a"}, extra: []group{{prefix: "/mine", routes: []route{
		{method: http.MethodGet, path: "/key", access: Key, class: auth.ClassDefault, handle: mine},
		{method: http.MethodGet, path: "/either", access: SessionOrKey, class: auth.ClassDefault, handle: mine},
	}}}})
	for _, path := range []string{"/openapi.json", "/udf/time", "/config", "/udf/config"} {
		if r := e.get(t, path); r.status != http.StatusOK || r.header.Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("GET %s: %d, X-Content-Type-Options %q", path, r.status, r.header.Get("X-Content-Type-Options"))
		}
	}
	for _, path := range []string{"/mine/key", "/mine/either"} {
		if r := e.get(t, path, "X-API-Key", key); r.status != http.StatusOK || r.header.Get("Cache-Control") != "no-store" {
			t.Errorf("GET %s: %d, Cache-Control %q", path, r.status, r.header.Get("Cache-Control"))
		}
	}
	if cc := e.get(t, "/tokens").header.Get("Cache-Control"); cc == "no-store" {
		t.Errorf("a public read is no-store")
	}
}

// GET /readyz says what failed in words: never the error, whose text names a URL with its key,
// a host and a port. The log has the error once per change of state, however often it is asked.
func TestReadyzSaysWordsOnly(t *testing.T) {
	t.Parallel()
	var failing atomic.Bool
	failing.Store(true)
	cause := errors.New(`Post "https://mainnet.example/v3/SECRETKEY123?apikey=SECRET2": dial tcp 10.1.2.3:8545: connection refused`)
	e := newEnv(t, envOptions{ready: []ReadyCheck{
		{Name: "chain", Check: func(context.Context) error {
			if failing.Load() {
				return &Unready{Reason: "chain node unreachable", Err: cause}
			}
			return nil
		}},
		{Name: "other", Check: func(context.Context) error {
			if failing.Load() {
				return cause
			}
			return nil
		}},
	}})
	for range 3 {
		e.get(t, "/readyz").want(t, http.StatusServiceUnavailable,
			`{"status": "not ready", "checks": {"chain": "chain node unreachable", "other": "other unavailable"}}`)
	}
	failing.Store(false)
	e.get(t, "/readyz").want(t, http.StatusOK, `{"status": "ready", "checks": {"chain": "ok", "other": "ok"}}`)
	e.get(t, "/readyz").want(t, http.StatusOK, `{"status": "ready", "checks": {"chain": "ok", "other": "ok"}}`)
	logs := e.logs.String()
	if n := strings.Count(logs, "readiness check failing"); n != 2 {
		t.Errorf("%d lines of failing checks, want one per check:\n%s", n, logs)
	}
	if n := strings.Count(logs, "readiness check recovered"); n != 2 {
		t.Errorf("%d lines of recovered checks, want one per check:\n%s", n, logs)
	}
}

// UDF's to=1 asks for what precedes the first second: no bar, never today's.
func TestUDFHistoryBeforeAnyBar(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	for _, q := range []string{"from=0&to=1", "from=0&to=1&countback=5", "from=1&to=2"} {
		e.get(t, "/udf/history?symbol=FROG&resolution=60&"+q).want(t, http.StatusOK, `{"s": "no_data"}`)
	}
	if r := e.get(t, "/udf/history?symbol=FROG&resolution=60&from=0&to=1800000000"); !strings.Contains(string(r.body), `"s":"ok"`) {
		t.Errorf("the whole range: %s", r.body)
	}
}

// The routes that reach the chain's node or the IPFS node list their 503, with Retry-After, in
// the OpenAPI document; routes served from the store do not.
func TestOpenAPIListsTheOutage(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	var doc struct {
		Paths map[string]map[string]struct {
			Responses map[string]struct {
				Ref string `json:"$ref"`
			}
		}
		Components struct {
			Responses map[string]struct {
				Headers map[string]any
			}
		}
	}
	if err := json.Unmarshal(e.server.OpenAPI(), &doc); err != nil {
		t.Fatal(err)
	}
	if _, ok := doc.Components.Responses["Error503"].Headers["Retry-After"]; !ok {
		t.Errorf("Error503 has no Retry-After: %+v", doc.Components.Responses["Error503"])
	}
	if got := doc.Paths["/tokens/{address}/build-tx"]["post"].Responses["503"].Ref; got != "#/components/responses/Error503" {
		t.Errorf("build-tx's 503: %q", got)
	}
	if _, ok := doc.Paths["/tokens/{address}"]["get"].Responses["503"]; ok {
		t.Errorf("a read from the store lists a 503")
	}
}
