package httpapi

import (
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/uptrace/bunrouter"

	"github.com/curvekit/curvekit/auth"
)

// endpoints lists every market path with its method, for the error tests below.
func tokenEndpoints(addr string) [][2]string {
	base := "/tokens/" + addr
	return [][2]string{
		{http.MethodGet, base},
		{http.MethodGet, base + "/quote"},
		{http.MethodPost, base + "/build-tx"},
		{http.MethodGet, base + "/trades"},
		{http.MethodGet, base + "/candles"},
		{http.MethodGet, base + "/stats"},
	}
}

func TestMalformedAddress(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	const msg = `{"statusCode": 400, "message": "malformed token address: want 0x followed by 40 hex digits","code":"VALIDATION_FAILED"}`
	for _, addr := range []string{
		"0x1234",
		"aaaa000000000000000000000000000000000001",     // no 0x
		"0xaaaa00000000000000000000000000000000000g",   // not hex
		"0xaaaa0000000000000000000000000000000000001",  // 41 digits
		"0xaaaa00000000000000000000000000000000000001", // 42 digits
		"0x%20aaa000000000000000000000000000000000001", // escaped space
		"frog",
	} {
		for _, ep := range tokenEndpoints(addr) {
			t.Run(ep[0]+" "+ep[1], func(t *testing.T) {
				body := ""
				if ep[0] == http.MethodPost {
					body = `{"type": "buy", "amount": "1"}` // a valid body: the path alone is wrong
				}
				e.do(t, ep[0], ep[1], body).want(t, http.StatusBadRequest, msg)
			})
		}
	}
}

func TestUnknownToken(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	for _, ep := range tokenEndpoints(nobody.Hex()) {
		t.Run(ep[0]+" "+ep[1], func(t *testing.T) {
			body := ""
			if ep[0] == http.MethodPost {
				body = `{"type": "buy", "amount": "1", "recipient": "0x7ade000000000000000000000000000000000008"}`
			}
			e.do(t, ep[0], ep[1], body).want(t, http.StatusNotFound, `{"statusCode": 404, "message": "token not found"}`)
		})
	}
	// The request is checked before the token is looked up: a bad type is reported as such.
	e.get(t, "/tokens/"+nobody.Hex()+"/quote?type=hold").want(t, http.StatusOK, `{"error": "type must be buy or sell"}`)
	// The amount is checked against the token, so an unknown token comes first.
	e.get(t, "/tokens/"+nobody.Hex()+"/quote?amount=0").want(t, http.StatusNotFound, `{"statusCode": 404, "message": "token not found"}`)
}

func TestUnknownRoute(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	for _, tc := range [][2]string{
		{http.MethodGet, "/"},
		{http.MethodGet, "/nope"},
		{http.MethodGet, "/token"},
		{http.MethodGet, "/tokens/" + ethToken.Hex() + "/orders"},
		{http.MethodPost, "/tokens/" + ethToken.Hex() + "/build"},
		{http.MethodGet, "/tokens/" + ethToken.Hex() + "/quote/extra"},
		{http.MethodGet, "/config/x"},
	} {
		t.Run(tc[0]+" "+tc[1], func(t *testing.T) {
			e.do(t, tc[0], tc[1], "").want(t, http.StatusNotFound,
				`{"statusCode": 404, "message": "route `+tc[0]+` `+tc[1]+` not found"}`)
		})
	}
}

func TestWrongMethod(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	tok := "/tokens/" + ethToken.Hex()
	for _, tc := range []struct{ method, path, allow string }{
		{http.MethodPost, "/config", "GET, HEAD"},
		{http.MethodDelete, "/config", "GET, HEAD"},
		{http.MethodPost, "/tokens", "GET, HEAD"},
		{http.MethodPut, tok, "GET, HEAD"},
		// bunrouter calls these "not found"; the route table knows better.
		{http.MethodPost, tok + "/quote", "GET, HEAD"},
		{http.MethodGet, tok + "/build-tx", "POST"},
		{http.MethodDelete, tok + "/trades", "GET, HEAD"},
		{http.MethodPost, tok + "/candles", "GET, HEAD"},
		{http.MethodPatch, tok + "/stats", "GET, HEAD"},
		// Whatever the address looks like, the path exists.
		{http.MethodGet, "/tokens/frog/build-tx", "POST"},
	} {
		t.Run(tc.method+" "+tc.path, func(t *testing.T) {
			r := e.do(t, tc.method, tc.path, "")
			r.want(t, http.StatusMethodNotAllowed,
				`{"statusCode": 405, "message": "method `+tc.method+` not allowed; allowed: `+tc.allow+`"}`)
			if got := r.header.Get("Allow"); got != tc.allow {
				t.Errorf("Allow %q, want %q", got, tc.allow)
			}
		})
	}
}

func TestInternalError(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	e.store.mu.Lock()
	e.store.err = errors.New("connection to db-7.internal refused")
	e.store.mu.Unlock()
	for _, path := range []string{"/tokens/" + ethToken.Hex(), "/tokens", "/tokens/" + ethToken.Hex() + "/quote"} {
		r := e.get(t, path)
		r.want(t, http.StatusInternalServerError, `{"statusCode": 500, "message": "internal server error"}`)
		if strings.Contains(string(r.body), "db-7") {
			t.Errorf("%s leaks the error: %s", path, r.body)
		}
	}
	if logs := e.logs.String(); !strings.Contains(logs, "db-7.internal") {
		t.Errorf("the real error is not logged: %q", logs)
	}
}

func TestPanicIsA500(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{extra: []group{{prefix: "/test", routes: []route{
		{method: http.MethodGet, path: "/panic", class: auth.ClassDefault, handle: func(http.ResponseWriter, bunrouter.Request) error { panic("secret detail") }},
	}}}})
	r := e.get(t, "/test/panic")
	r.want(t, http.StatusInternalServerError, `{"statusCode": 500, "message": "internal server error"}`)
	// The server survives.
	e.get(t, "/tokens/"+ethToken.Hex()+"/stats").decode(t, new(statsJSON))
}

func TestAllowedMatching(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		pattern, path string
		want          bool
	}{
		{"/tokens/:address", "/tokens/x", true},
		{"/tokens/:address", "/tokens/", false},
		{"/tokens/:address", "/tokens/x/y", false},
		{"/tokens", "/tokens", true},
		{"/files/*path", "/files/a/b", true},
		{"/tokens/:address/quote", "/tokens/x/quote", true},
		{"/tokens/:address/quote", "/tokens/x/quotes", false},
	} {
		if got := matchPath(splitPath(tc.pattern), splitPath(tc.path)); got != tc.want {
			t.Errorf("matchPath(%q, %q) = %v", tc.pattern, tc.path, got)
		}
	}
	s := &Server{endpoints: []endpoint{
		{http.MethodGet, splitPath("/a/:x")}, {http.MethodPost, splitPath("/a/:x")}, {http.MethodDelete, splitPath("/a/b")},
	}}
	if diff := cmp.Diff([]string{"DELETE", "GET", "POST"}, s.allowed("/a/b")); diff != "" {
		t.Errorf("allowed (-want +got):\n%s", diff)
	}
}
