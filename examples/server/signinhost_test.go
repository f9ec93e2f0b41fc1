package main

import (
	"encoding/json"
	"net"
	"net/http"
	"strings"
	"testing"
)

// A sign-in begun on localhost while the public URL says 127.0.0.1 could not finish (the
// browser would keep the sign-in cookie for localhost): it is refused at once, naming the URL to
// sign in at, instead of failing at the callback as an unknown sign-in.
func TestSignInOnAnotherHost(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + ln.Addr().String()
	s := serveOn(t, ln, nil, base, []string{"--public-url", base}, nil)
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	for _, path := range []string{"/auth/login?login_hint=alice", "/auth/callback?state=x&code=y"} {
		req, _ := http.NewRequest(http.MethodGet, s.base+path, nil)
		req.Host = "localhost:" + port
		resp, err := noRedirect(s).Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var body struct{ Message string }
		json.NewDecoder(resp.Body).Decode(&body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest || !strings.Contains(body.Message, "sign in at "+base+"/auth/login") || !strings.Contains(body.Message, "localhost:"+port) {
			t.Errorf("%s on localhost: %d %q", path, resp.StatusCode, body.Message)
		}
	}
	// On the public URL's own host the sign-in works.
	s.signIn(t, "alice")
}
