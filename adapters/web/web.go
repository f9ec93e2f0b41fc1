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
	"fmt"
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
// their content hash are cached for good; the page itself is revalidated on every visit. Every
// file is read, typed and (when text) gzipped once, here: a request only looks its path up.
func Handler() http.Handler {
	h := &handler{files: map[string]*file{}}
	err := fs.WalkDir(dist, "dist", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		raw, err := fs.ReadFile(dist, name)
		if err != nil {
			return err
		}
		name = strings.TrimPrefix(name, "dist")
		if name == "/index.html" {
			name = "/"
		}
		h.files[name] = newFile(name, raw)
		return nil
	})
	if err != nil || h.files["/"] == nil {
		panic(fmt.Sprintf("web: the embedded page is incomplete: %v", err)) // a broken build, never a request
	}
	return h
}

// file is one served file, ready to send.
type file struct {
	raw, gz      []byte // gz is nil for files not worth compressing
	contentType  string
	cacheControl string
}

func newFile(name string, raw []byte) *file {
	f := &file{raw: raw, contentType: mime.TypeByExtension(path.Ext(name)), cacheControl: "public, max-age=31536000, immutable"}
	switch path.Ext(name) {
	case ".txt":
		f.contentType = "text/plain; charset=utf-8"
	case "":
		f.contentType = "text/html; charset=utf-8" // the page itself, served at /
	}
	if f.contentType == "" {
		f.contentType = "application/octet-stream"
	}
	// The page and the icon keep their names across builds: revalidated, not kept.
	if name == "/" || name == "/assets/favicon.svg" {
		f.cacheControl = "no-cache"
	}
	if strings.HasPrefix(f.contentType, "text/") || strings.HasPrefix(f.contentType, "image/svg") {
		var b bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&b, gzip.BestCompression)
		_, _ = zw.Write(raw)
		_ = zw.Close()
		f.gz = b.Bytes()
	}
	return f
}

type handler struct {
	// files are by URL path: "/" and "/assets/<name>".
	files map[string]*file
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f := h.files[r.URL.Path]
	if f == nil {
		notFound(w)
		return
	}
	hdr := w.Header()
	hdr.Set("Content-Type", f.contentType)
	hdr.Set("X-Content-Type-Options", "nosniff")
	hdr.Set("Referrer-Policy", "no-referrer")
	hdr.Set("Cross-Origin-Opener-Policy", "same-origin")
	hdr.Set("Content-Security-Policy", CSP)
	hdr.Set("Cache-Control", f.cacheControl)
	hdr.Set("Vary", "Accept-Encoding")
	body := f.raw
	if f.gz != nil && acceptsGzip(r) {
		hdr.Set("Content-Encoding", "gzip")
		body = f.gz
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
