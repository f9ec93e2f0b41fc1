// Package web serves the reference server's web front-end: the page at / and its assets under
// /assets/, built from the TypeScript sources in ui/ (Preact, TradingView's lightweight-charts,
// types generated from the server's OpenAPI document) by a pinned esbuild into dist/, which is
// committed and embedded here. The page is one more client of the public API: it composes with
// the API's routes and has transactions confirmed in the person's own wallet (EIP-1193).
//
// Rebuild after changing ui/src (CI checks that dist/ is current, byte for byte):
//
//	cd adapters/web/ui && npm ci && npm run types && npm run build
package web

import (
	"bytes"
	"compress/gzip"
	"embed"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strconv"
	"strings"
)

//go:embed dist
var dist embed.FS

// CSP is the page's Content-Security-Policy: its own scripts and styles only, images from this
// server (and local previews of a file being uploaded), requests to this server only, no frames,
// no plugins, no inline script.
const CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' blob:; connect-src 'self'; " +
	"manifest-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

// Handler serves GET / (the page) and GET /assets/<name>; anything else is a 404. Assets named by
// their content hash are cached for good; the page itself is revalidated on every visit.
func Handler() http.Handler {
	assets, err := fs.Sub(dist, "dist")
	if err != nil {
		panic(err) // the embedded tree always has dist
	}
	h := &handler{files: assets, gz: map[string][]byte{}}
	// Text assets are compressed once, here: a first visit moves a fraction of the bytes.
	_ = fs.WalkDir(assets, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !compressible(name) {
			return err
		}
		raw, err := fs.ReadFile(assets, name)
		if err != nil {
			return err
		}
		var b bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&b, gzip.BestCompression)
		_, _ = zw.Write(raw)
		_ = zw.Close()
		h.gz[name] = b.Bytes()
		return nil
	})
	return h
}

func compressible(name string) bool {
	switch path.Ext(name) {
	case ".html", ".js", ".css", ".svg", ".txt":
		return true
	}
	return false
}

type handler struct {
	files fs.FS
	gz    map[string][]byte
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	name := "index.html"
	if r.URL.Path != "/" {
		rest, ok := strings.CutPrefix(r.URL.Path, "/assets/")
		if !ok || rest == "" || strings.Contains(rest, "/") || strings.HasPrefix(rest, ".") {
			notFound(w)
			return
		}
		name = path.Join("assets", rest)
	}
	body, err := fs.ReadFile(h.files, name)
	if err != nil {
		notFound(w)
		return
	}
	hdr := w.Header()
	ctype := mime.TypeByExtension(path.Ext(name))
	switch {
	case strings.HasSuffix(name, ".txt"):
		ctype = "text/plain; charset=utf-8"
	case ctype == "":
		ctype = "application/octet-stream"
	}
	hdr.Set("Content-Type", ctype)
	hdr.Set("X-Content-Type-Options", "nosniff")
	hdr.Set("Referrer-Policy", "no-referrer")
	hdr.Set("Cross-Origin-Opener-Policy", "same-origin")
	hdr.Set("Content-Security-Policy", CSP)
	if name == "index.html" || name == "assets/favicon.svg" {
		hdr.Set("Cache-Control", "no-cache")
	} else {
		hdr.Set("Cache-Control", "public, max-age=31536000, immutable")
	}
	hdr.Set("Vary", "Accept-Encoding")
	if z, ok := h.gz[name]; ok && acceptsGzip(r) {
		hdr.Set("Content-Encoding", "gzip")
		body = z
	}
	hdr.Set("Content-Length", strconv.Itoa(len(body)))
	if r.Method == http.MethodHead {
		return
	}
	_, _ = w.Write(body)
}

// acceptsGzip: the request's Accept-Encoding lists gzip without q=0.
func acceptsGzip(r *http.Request) bool {
	for _, v := range r.Header.Values("Accept-Encoding") {
		for _, part := range strings.Split(v, ",") {
			coding, params, _ := strings.Cut(strings.TrimSpace(part), ";")
			if strings.EqualFold(strings.TrimSpace(coding), "gzip") || strings.TrimSpace(coding) == "*" {
				q := strings.ReplaceAll(params, " ", "")
				return q != "q=0" && q != "q=0.0" && q != "q=0.00" && q != "q=0.000"
			}
		}
	}
	return false
}

func notFound(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(http.StatusNotFound)
	_, _ = w.Write([]byte(`{"statusCode":404,"message":"no such page asset"}` + "\n"))
}
