package web_test

import (
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/curvekit/curvekit/adapters/web"
)

func serve(t *testing.T, method, target string, header map[string]string) *http.Response {
	t.Helper()
	req := httptest.NewRequest(method, target, nil)
	for k, v := range header {
		req.Header.Set(k, v)
	}
	w := httptest.NewRecorder()
	web.Handler().ServeHTTP(w, req)
	return w.Result()
}

// The page and its assets carry the strict CSP; hashed assets are immutable, the page is
// revalidated; gzip only for clients that take it.
func TestPageAndAssets(t *testing.T) {
	page := serve(t, http.MethodGet, "/", nil)
	body, _ := io.ReadAll(page.Body)
	if page.StatusCode != 200 || page.Header.Get("Content-Security-Policy") != web.CSP || page.Header.Get("Cache-Control") != "no-cache" ||
		!strings.HasPrefix(page.Header.Get("Content-Type"), "text/html") || page.Header.Get("X-Content-Type-Options") != "nosniff" {
		t.Fatalf("GET /: %d %v", page.StatusCode, page.Header)
	}
	if strings.Contains(string(body), "<script>") || strings.Contains(string(body), "style=") {
		t.Error("the page has inline script or style, which its CSP refuses")
	}
	i := strings.Index(string(body), `src="/assets/`)
	if i < 0 {
		t.Fatal("the page names no script")
	}
	script := string(body)[i+5 : i+5+strings.Index(string(body)[i+5:], `"`)]
	plain := serve(t, http.MethodGet, script, nil)
	raw, _ := io.ReadAll(plain.Body)
	if plain.StatusCode != 200 || plain.Header.Get("Content-Encoding") != "" || !strings.HasPrefix(plain.Header.Get("Content-Type"), "text/javascript") ||
		plain.Header.Get("Cache-Control") != "public, max-age=31536000, immutable" {
		t.Fatalf("GET %s: %d %v", script, plain.StatusCode, plain.Header)
	}
	zipped := serve(t, http.MethodGet, script, map[string]string{"Accept-Encoding": "br, gzip;q=0.8"})
	if zipped.Header.Get("Content-Encoding") != "gzip" || zipped.Header.Get("Vary") != "Accept-Encoding" {
		t.Fatalf("gzip not negotiated: %v", zipped.Header)
	}
	zr, err := gzip.NewReader(zipped.Body)
	if err != nil {
		t.Fatal(err)
	}
	unzipped, _ := io.ReadAll(zr)
	if string(unzipped) != string(raw) {
		t.Error("the gzipped script differs from the plain one")
	}
	if r := serve(t, http.MethodGet, script, map[string]string{"Accept-Encoding": "gzip;q=0"}); r.Header.Get("Content-Encoding") != "" {
		t.Error("gzip sent to a client that refused it")
	}
	head := serve(t, http.MethodHead, "/", nil)
	if b, _ := io.ReadAll(head.Body); head.StatusCode != 200 || len(b) != 0 || head.Header.Get("Content-Length") == "" {
		t.Errorf("HEAD /: %d, %d bytes", head.StatusCode, len(b))
	}
}

// Paths outside the built files are 404, never a file elsewhere in the binary or on disk.
func TestHostileAssetPaths(t *testing.T) {
	for _, p := range []string{"/assets/", "/assets/../index.html", "/assets/..%2findex.html", "/assets/.hidden", "/assets/x/../../web.go",
		"/assets/nope.js", "/index.html", "/web.go", "/dist/index.html", "/assets//etc/passwd", "/assets/%00"} {
		r := serve(t, http.MethodGet, p, nil)
		if r.StatusCode != http.StatusNotFound || r.Header.Get("Content-Type") != "application/json" {
			t.Errorf("GET %s: %d %s", p, r.StatusCode, r.Header.Get("Content-Type"))
		}
	}
}
