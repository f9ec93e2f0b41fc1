package httpapi

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// FuzzHandler drives the whole API handler, router included, with arbitrary methods, paths,
// queries, headers and bodies, parsed by net/http exactly as the server would. Whatever comes in:
// no panic, no 5xx, and every answer is JSON in SPEC 7's shapes.
func FuzzHandler(f *testing.F) {
	eth := ethToken.Hex()
	for _, seed := range []struct{ method, target, header, body string }{
		{"GET", "/config", "", ""},
		{"GET", "/config%00", "", ""},
		{"GET", "/tokens?sort=marketCap&limit=5&quote=ETH", "", ""},
		{"GET", "/tokens?quote=0x00000000000000000000000000000000000000aa", "", ""},
		{"GET", "/tokens?cursor=%ff%fe&limit=-1&sort=x&sort=y", "", ""},
		{"GET", "/tokens/" + eth, "", ""},
		{"GET", "/tokens/" + eth + "/quote?type=sell&amount=1e400", "", ""},
		{"GET", "/tokens/" + eth + "/quote%00", "", ""},
		{"POST", "/tokens/" + eth + "/build-tx", "Content-Type: application/json", `{"type":"buy","amount":"0.5","slippage":1}`},
		{"POST", "/tokens/" + eth + "/build-tx", "", `{"type":"buy","type":"sell","amount":"1"}`},
		{"POST", "/tokens/" + eth + "/build-tx", "", `{"Type":"buy","AMOUNT":"1"}`},
		{"POST", "/tokens/" + eth + "/build-tx", "", `null`},
		{"POST", "/tokens/" + eth + "/build-tx", "", `{"type":"buy","amount":"1","recipient":{"a":[1,{"b":2}]}}`},
		{"GET", "/tokens/" + eth + "/candles?res=1m&from=1&to=999999999999", "", ""},
		{"GET", "/tokens/" + eth + "/trades?cursor=dDoxOjI&limit=1000", "", ""},
		{"GET", "/tokens/0xZZ/stats", "X-API-Key: svc_" + strings.Repeat("a", 48), ""},
		{"DELETE", "/tokens/" + eth, "X-Forwarded-For: 1.2.3.4, ::1", ""},
		{"OPTIONS", "*", "", ""},
		{"GET", "//..//tokens/./x/../", "", ""},
		{"GET", "/healthz", "", ""},
		{"GET", "/readyz", "", ""},
	} {
		f.Add(seed.method, seed.target, seed.header, seed.body)
	}
	e := newEnv(f, envOptions{})
	h := e.server.Handler()
	f.Fuzz(func(t *testing.T, method, target, header, body string) {
		raw := fmt.Sprintf("%s %s HTTP/1.1\r\nHost: api.example\r\n%s\r\nContent-Length: %d\r\n\r\n%s",
			method, target, header, len(body), body)
		req, err := http.ReadRequest(bufio.NewReader(strings.NewReader(raw)))
		if err != nil {
			return // net/http refuses it before any handler runs
		}
		req.RemoteAddr = "192.0.2.7:4321"
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		status, out := rec.Code, rec.Body.Bytes()
		if status >= 500 {
			t.Fatalf("%q: status %d from input alone; body %s", raw, status, out)
		}
		if ct := rec.Header().Get("Content-Type"); ct != "application/json" {
			t.Fatalf("%q: Content-Type %q", raw, ct)
		}
		if !json.Valid(out) {
			t.Fatalf("%q: body is not JSON: %q", raw, out)
		}
		if status >= 400 {
			var eb struct {
				StatusCode int             `json:"statusCode"`
				Message    json.RawMessage `json:"message"`
			}
			if err := json.Unmarshal(out, &eb); err != nil || eb.StatusCode != status || !isMessage(eb.Message) {
				t.Fatalf("%q: error body %s is not {statusCode: %d, message}", raw, out, status)
			}
		}
	})
}

// isMessage reports whether raw is a string or an array of strings (SPEC 7).
func isMessage(raw json.RawMessage) bool {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return true
	}
	var list []string
	return json.Unmarshal(raw, &list) == nil && len(list) > 0
}
