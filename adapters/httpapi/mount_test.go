package httpapi

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/curvekit/curvekit/auth"
)

// echoBody is a mounted handler that reads its whole body, as the MCP transport does.
var echoBody = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	b, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, "body: "+err.Error(), http.StatusBadRequest)
		return
	}
	_ = writeJSON(w, http.StatusOK, map[string]int{"read": len(b)})
})

// Mounted handlers run in the pipeline: a body trickled into one is cut at the body deadline
// like any route's, so slow clients cannot hold its connections.
func TestMountedBodyIsCut(t *testing.T) {
	t.Parallel()
	const timeout = 500 * time.Millisecond
	e := newEnv(t, envOptions{bodyTimeout: timeout, mounts: []Mount{{Methods: []string{http.MethodPost}, Path: "/mcp", Access: Public, Class: auth.ClassDefault, Handler: echoBody, Doc: echoDoc("mcp")}}})
	body := `{"jsonrpc":"2.0","id":1,"method":"initialize"}`
	start := time.Now()
	resp, got, _ := rawRequest(t, e, func(c net.Conn) error {
		if _, err := fmt.Fprintf(c, "POST /mcp HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n", len(body)); err != nil {
			return err
		}
		for i := 0; i < len(body); i++ {
			if _, err := c.Write([]byte{body[i]}); err != nil {
				return nil // the server has cut the connection
			}
			time.Sleep(200 * time.Millisecond)
		}
		return nil
	}, 10*time.Second)
	if took := time.Since(start); took > timeout+2*time.Second {
		t.Fatalf("a trickled body held the mounted handler %v (answer %v %s)", took, resp, got)
	}
	if resp != nil && resp.StatusCode == http.StatusOK {
		t.Fatalf("the trickled body was read whole: %s", got)
	}
}

// A mounted key route authenticates every request with the pipeline: a bogus key, in either
// header, is 401 naming that header and counts as a failed credential; a valid key reaches the
// handler. A mounted sign-in route is limited as a sign-in.
func TestMountedRoutesAuthenticateAndLimit(t *testing.T) {
	t.Parallel()
	good := "svc_" + strings.Repeat("a1", 24)
	bogus := "svc_" + strings.Repeat("9f", 24)
	e := newEnv(t, envOptions{
		auth: knownKeys{good: "key-good"},
		mounts: []Mount{
			{Methods: []string{http.MethodPost}, Path: "/mcp", Access: Key, Class: auth.ClassDefault, Bearer: true, Handler: echoBody, Doc: echoDoc("mcp")},
			{Methods: []string{http.MethodGet}, Path: "/dev-oauth/authorize", Access: Public, Class: auth.ClassProviderSignIn, Handler: echoBody, Doc: echoDoc("authorize")},
		},
	})
	e.do(t, http.MethodPost, "/mcp", "{}", "Authorization", "Bearer "+bogus).want(t, http.StatusUnauthorized,
		`{"statusCode": 401, "message": "the credential in Authorization is malformed, unknown, expired or revoked"}`)
	e.do(t, http.MethodPost, "/mcp", "{}", "X-API-Key", bogus).want(t, http.StatusUnauthorized,
		`{"statusCode": 401, "message": "the credential in X-API-Key is malformed, unknown, expired or revoked"}`)
	e.do(t, http.MethodPost, "/mcp", "{}").want(t, http.StatusUnauthorized,
		`{"statusCode": 401, "message": "this route needs an API key in X-API-Key or Authorization: Bearer"}`)
	e.do(t, http.MethodPost, "/mcp", "{}", "Authorization", "Bearer "+good).want(t, http.StatusOK, `{"read": 2}`)
	if n := strings.Count(strings.Join(e.limiter.seen(), " "), "bad-credential:"); n != 2 {
		t.Errorf("bogus keys counted %d times as failed credentials, want 2 (%v)", n, e.limiter.seen())
	}
	for i := range 11 {
		r := e.get(t, "/dev-oauth/authorize")
		if want := http.StatusOK; i == 10 {
			r.want(t, http.StatusTooManyRequests, throttled)
		} else if r.status != want {
			t.Fatalf("authorize %d: %d %s", i, r.status, r.body)
		}
	}
	if !slices.Contains(e.limiter.seen(), "provider-sign-in:ip:127.0.0.1") {
		t.Errorf("the mounted authorize endpoint is not counted as a sign-in: %v", e.limiter.seen())
	}
}

// echoDoc describes a test mount in the OpenAPI document.
func echoDoc(id string) MountDoc {
	return MountDoc{ID: id, Summary: "echoes", Consumes: []string{"application/json"}, Produces: []string{"application/json"}}
}
