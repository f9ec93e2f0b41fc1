package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/curvekit/curvekit/adapters/apiclient"
)

// HandlerConfig configures NewHandler. Exactly one of API and BaseURL says where tool calls go.
type HandlerConfig struct {
	// API, when set, serves the tool calls in process: each is a request to this handler (the
	// reference server's own API) carrying the MCP caller's key and network address, so the
	// key's allowedIps and every other restriction apply to the caller as over HTTP.
	API http.Handler
	// BaseURL sends the tool calls over the network to this server instead. The caller's
	// address is appended to X-Forwarded-For; the server sees it only if it trusts this
	// handler's address as a proxy (--trusted-proxies).
	BaseURL string
	// HTTPClient sends the calls to BaseURL; default a client with a 30s timeout.
	HTTPClient *http.Client
	// Version is announced to MCP clients; default "dev".
	Version string
	// Wait tunes the job-backed compose tools (see Config).
	Wait apiclient.WaitParams
}

// NewHandler serves the tools over MCP's streamable HTTP transport, statelessly: every request
// carries an API key (Authorization: Bearer svc_… or X-API-Key) and gets a server whose client
// sends that key, so revoking the key stops the next call. A request without a key is refused
// with 401 before MCP sees it.
func NewHandler(cfg HandlerConfig) (http.Handler, error) {
	if (cfg.API == nil) == (cfg.BaseURL == "") {
		return nil, errors.New("mcp: give exactly one of API and BaseURL")
	}
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = &http.Client{Timeout: 30 * time.Second}
	}
	cache := sdk.NewSchemaCache()
	build := func(r *http.Request) *sdk.Server {
		key := keyOf(r)
		ccfg := apiclient.Config{APIKey: key, BaseURL: cfg.BaseURL, HTTPClient: cfg.HTTPClient, UserAgent: "curvekit-mcp",
			// One attempt: the MCP client backs off itself, and a handler should not sit on a
			// throttled caller's connection.
			Retries: -1}
		if cfg.API != nil {
			ccfg.BaseURL = "http://" + r.Host
			if r.Host == "" {
				ccfg.BaseURL = "http://localhost"
			}
			ccfg.HTTPClient = &http.Client{Transport: inProcess{api: cfg.API, remote: r.RemoteAddr}}
		} else {
			ccfg.Header = http.Header{"X-Forwarded-For": {forwardedFor(r)}}
		}
		c, err := apiclient.New(ccfg)
		if err != nil {
			return nil // the SDK answers 400
		}
		s, err := NewServer(Config{Client: c, Version: cfg.Version, Wait: cfg.Wait, SchemaCache: cache})
		if err != nil {
			return nil
		}
		return s
	}
	h := sdk.NewStreamableHTTPHandler(build, &sdk.StreamableHTTPOptions{Stateless: true, JSONResponse: true})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if keyOf(r) == "" {
			w.Header().Set("WWW-Authenticate", `Bearer realm="curvekit", error="invalid_request", error_description="an API key is required"`)
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusUnauthorized)
			_ = json.NewEncoder(w).Encode(map[string]any{"statusCode": http.StatusUnauthorized,
				"message": "an API key is required: send it as Authorization: Bearer svc_… or X-API-Key"})
			return
		}
		h.ServeHTTP(w, r)
	}), nil
}

// keyOf reads the caller's API key: a bearer token, else X-API-Key.
func keyOf(r *http.Request) string {
	if v, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok {
		return strings.TrimSpace(v)
	}
	return strings.TrimSpace(r.Header.Get("X-API-Key"))
}

// forwardedFor is the request's X-Forwarded-For with its peer appended, as a proxy writes it.
func forwardedFor(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	if prior := r.Header.Get("X-Forwarded-For"); prior != "" {
		return prior + ", " + host
	}
	return host
}

// inProcess is an http.RoundTripper that serves a request with the API handler directly, as
// if it had arrived from remote. API answers are small JSON documents, buffered whole.
type inProcess struct {
	api    http.Handler
	remote string
}

func (t inProcess) RoundTrip(r *http.Request) (*http.Response, error) {
	in := r.Clone(r.Context())
	in.RemoteAddr = t.remote
	in.RequestURI = r.URL.RequestURI()
	if in.Body == nil {
		in.Body = http.NoBody
	}
	w := &buffered{header: http.Header{}}
	t.api.ServeHTTP(w, in)
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return &http.Response{
		Status: http.StatusText(w.status), StatusCode: w.status, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: w.header, Body: io.NopCloser(&w.body), ContentLength: int64(w.body.Len()), Request: r,
	}, nil
}

// buffered is the smallest http.ResponseWriter that keeps what the handler wrote.
type buffered struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (b *buffered) Header() http.Header { return b.header }

func (b *buffered) WriteHeader(code int) {
	if b.status == 0 {
		b.status = code
	}
}

func (b *buffered) Write(p []byte) (int, error) {
	b.WriteHeader(http.StatusOK)
	return b.body.Write(p)
}
