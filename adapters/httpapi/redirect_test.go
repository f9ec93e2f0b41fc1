package httpapi

import (
	"bufio"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/curvekit/curvekit/auth"
)

// browserHost is the host a browser navigates to when it follows location from a page at
// http://api.test/, as the WHATWG URL standard resolves it for a special scheme: leading and
// trailing C0 controls and spaces are stripped, tabs and newlines removed anywhere, a backslash
// is a slash, a scheme makes the URL absolute, and two or more leading slashes start an
// authority (the host runs to the next slash, '?' or '#').
func browserHost(location string) string {
	s := strings.TrimFunc(location, func(r rune) bool { return r <= ' ' })
	s = strings.NewReplacer("\t", "", "\n", "", "\r", "", `\`, "/").Replace(s)
	if i := strings.IndexAny(s, ":/?#"); i > 0 && s[i] == ':' && isScheme(s[:i]) {
		rest := strings.TrimLeft(s[i+1:], "/")
		if strings.EqualFold(s[:i], "http") && strings.HasPrefix(s[i+1:], "//") {
			return strings.ToLower(hostOf(rest))
		}
		return s[:i] + ":" // another scheme: another origin
	}
	if strings.HasPrefix(s, "//") {
		return strings.ToLower(hostOf(strings.TrimLeft(s, "/")))
	}
	return "api.test"
}

func isScheme(s string) bool {
	for i, c := range s {
		alpha := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
		if !alpha && (i == 0 || !(c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.')) {
			return false
		}
	}
	return true
}

func hostOf(authority string) string {
	if i := strings.IndexAny(authority, "/?#"); i >= 0 {
		authority = authority[:i]
	}
	if i := strings.LastIndexByte(authority, '@'); i >= 0 {
		authority = authority[i+1:]
	}
	return authority
}

func TestBrowserHost(t *testing.T) {
	for loc, want := range map[string]string{
		"/tokens":                   "api.test",
		"/\\evil.example":           "evil.example",
		"//evil.example/x":          "evil.example",
		"\t/\t/evil.example":        "evil.example",
		" ///evil.example":          "evil.example",
		"http://api.test/x":         "api.test",
		"https://evil.example":      "https:",
		"javascript:alert(1)":       "javascript:",
		"/%5Cevil.example":          "api.test",
		"http:\\\\evil.example\\":   "evil.example",
		"//user@evil.example:80/x":  "evil.example:80",
		"?x=//evil.example":         "api.test",
		"/tokens?next=//evil":       "api.test",
		"\x01//evil.example/":       "evil.example",
		"http://api.test@evil.test": "evil.test",
	} {
		if got := browserHost(loc); got != want {
			t.Errorf("browserHost(%q) = %q, want %q", loc, got, want)
		}
	}
}

// serveTarget sends a raw request line to the server, as a client on the internet can, and
// returns the answer; ok is false when net/http would not parse such a request at all.
func serveTarget(s *Server, target string) (*httptest.ResponseRecorder, bool) {
	req, err := http.ReadRequest(bufio.NewReader(strings.NewReader("GET " + target + " HTTP/1.1\r\nHost: api.test\r\n\r\n")))
	if err != nil {
		return nil, false
	}
	req.RemoteAddr = "192.0.2.1:1234"
	rec := httptest.NewRecorder()
	s.ServeHTTP(rec, req)
	return rec, true
}

// No redirect of this server leaves its origin: paths that clean to a backslash or an
// authority are a JSON 404, and the redirects it does answer are JSON.
func TestRedirectsStayOnOrigin(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{policy: policy(1_000_000)})
	for target, want := range map[string]int{
		"/%5Cevil.example/":         http.StatusNotFound,
		"/%5cevil.example":          http.StatusNotFound,
		"/tokens/%5C..%5Cevil":      http.StatusNotFound,
		"//evil.example/":           http.StatusMovedPermanently,
		"/a/..":                     http.StatusMovedPermanently,
		"/%2F%2Fevil.example/":      http.StatusMovedPermanently,
		"/./%2F/evil.example":       http.StatusMovedPermanently,
		"/config/":                  http.StatusMovedPermanently,
		"/tokens//x?q=//evil.test/": http.StatusMovedPermanently,
	} {
		rec, ok := serveTarget(e.server, target)
		if !ok {
			t.Fatalf("%s: not a request", target)
		}
		if rec.Code != want {
			t.Errorf("GET %s = %d %s, want %d", target, rec.Code, rec.Body, want)
		}
		if ct := rec.Header().Get("Content-Type"); ct != "application/json" {
			t.Errorf("GET %s: Content-Type %q", target, ct)
		}
		if loc := rec.Header().Get("Location"); loc != "" && browserHost(loc) != "api.test" {
			t.Errorf("GET %s redirects to %q, which a browser opens on %s", target, loc, browserHost(loc))
		}
	}
}

// FuzzRedirectStaysOnOrigin: whatever the request target, a Location the server answers opens
// on its own origin in a browser.
func FuzzRedirectStaysOnOrigin(f *testing.F) {
	for _, seed := range []string{"/%5Cevil.example/", "//evil.example/", "/a/..", "/%2F%2Fx/", "/.//\\x", "/tokens/../\\\\x"} {
		f.Add(seed)
	}
	e := newEnv(f, envOptions{policy: policy(1 << 30)})
	f.Fuzz(func(t *testing.T, target string) {
		if !strings.HasPrefix(target, "/") {
			return
		}
		rec, ok := serveTarget(e.server, target)
		if !ok {
			return
		}
		if loc := rec.Header().Get("Location"); loc != "" && browserHost(loc) != "api.test" {
			t.Fatalf("GET %q redirects to %q, which a browser opens on %s", target, loc, browserHost(loc))
		}
	})
}

// FuzzReturnToStaysOnOrigin: a returnTo that SafeReturnTo keeps opens on this origin, and when
// the browser asks for it the server does not redirect it elsewhere either (a path that cleans
// to "/\host" would).
func FuzzReturnToStaysOnOrigin(f *testing.F) {
	for _, seed := range []string{"/%5Cevil.example/", "/%255Cevil.example/", "/%2F%2Fevil", "/%252F%252Fevil", "/tokens?x=1", "/\\evil", "//evil", "/ok/../x"} {
		f.Add(seed)
	}
	e := newEnv(f, envOptions{policy: policy(1 << 30)})
	f.Fuzz(func(t *testing.T, raw string) {
		got := auth.SafeReturnTo(raw)
		if browserHost(got) != "api.test" {
			t.Fatalf("SafeReturnTo(%q) = %q, which a browser opens on %s", raw, got, browserHost(got))
		}
		for range 3 { // follow the server's own redirects
			rec, ok := serveTarget(e.server, got)
			if !ok {
				return
			}
			loc := rec.Header().Get("Location")
			if loc == "" {
				return
			}
			if browserHost(loc) != "api.test" {
				t.Fatalf("returnTo %q (from %q) redirects to %q, which a browser opens on %s", got, raw, loc, browserHost(loc))
			}
			got = loc
		}
	})
}
