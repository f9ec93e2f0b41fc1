package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/curvekit/curvekit/adapters/apiclient"
)

// HandlerConfig configures NewHandler. Exactly one of API and BaseURL says where tool calls go.
type HandlerConfig struct {
	// API, when set, serves the tool calls in process: each is a request to this handler (the
	// reference server's own API) carrying the MCP caller's key and network address (its peer
	// and X-Forwarded-For), so the key's allowedIps and every other restriction apply to the
	// caller as over HTTP, behind a trusted proxy too.
	API http.Handler
	// BaseURL sends the tool calls over the network to this server instead. The caller's
	// address is appended to X-Forwarded-For; the server sees it only if it trusts this
	// handler's address as a proxy (--trusted-proxies).
	BaseURL string
	// HTTPClient sends the calls to BaseURL; default a client with a 30s timeout.
	HTTPClient *http.Client
	// Version is announced to MCP clients; default "dev".
	Version string
	// ToolsTTL is how long the agent's tool list, read from the API, is kept before it is read
	// again; default a minute.
	ToolsTTL time.Duration
}

// NewHandler serves the tools over MCP's streamable HTTP transport, statelessly: every request
// carries an API key (Authorization: Bearer svc_… or X-API-Key) and gets a server whose client
// sends that key, so revoking the key stops the next call. A request without a key is refused
// with 401 before MCP sees it; so is one whose key the API refuses while the tool list is read.
func NewHandler(cfg HandlerConfig) (http.Handler, error) {
	if (cfg.API == nil) == (cfg.BaseURL == "") {
		return nil, errors.New("mcp: give exactly one of API and BaseURL")
	}
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = &http.Client{Timeout: 30 * time.Second}
	}
	if cfg.ToolsTTL <= 0 {
		cfg.ToolsTTL = time.Minute
	}
	cache := sdk.NewSchemaCache()
	list := &toolList{ttl: cfg.ToolsTTL}
	clientFor := func(r *http.Request, key string) (*apiclient.Client, error) {
		ccfg := apiclient.Config{APIKey: key, BaseURL: cfg.BaseURL, HTTPClient: cfg.HTTPClient, UserAgent: "curvekit-mcp",
			// One attempt: the MCP client backs off itself, and a handler should not sit on a
			// throttled caller's connection.
			Retries: -1}
		if cfg.API != nil {
			ccfg.BaseURL = "http://" + r.Host
			if r.Host == "" {
				ccfg.BaseURL = "http://localhost"
			}
			ccfg.HTTPClient = &http.Client{Transport: inProcess{api: cfg.API, remote: r.RemoteAddr, forwarded: r.Header.Values("X-Forwarded-For")}}
		} else {
			ccfg.Header = http.Header{"X-Forwarded-For": {forwardedFor(r)}}
		}
		return apiclient.New(ccfg)
	}
	// The server for a request is built before the SDK sees it, so that a failure gets its own
	// status; the SDK finds it in the request's context.
	h := sdk.NewStreamableHTTPHandler(func(r *http.Request) *sdk.Server {
		s, _ := r.Context().Value(serverKey{}).(*sdk.Server)
		return s
	}, &sdk.StreamableHTTPOptions{Stateless: true, JSONResponse: true})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key := keyOf(r)
		if key == "" {
			w.Header().Set("WWW-Authenticate", `Bearer realm="curvekit", error="invalid_request", error_description="an API key is required"`)
			refuse(w, http.StatusUnauthorized, "an API key is required: send it as Authorization: Bearer svc_… or X-API-Key")
			return
		}
		c, err := clientFor(r, key)
		if err != nil {
			refuse(w, http.StatusBadRequest, "the request's host does not make a server address")
			return
		}
		tools, err := list.get(r.Context(), c)
		if err != nil {
			var apiErr *apiclient.Error
			if errors.As(err, &apiErr) && apiErr.Status >= 400 && apiErr.Status < 500 {
				if apiErr.Status == http.StatusUnauthorized {
					w.Header().Set("WWW-Authenticate", `Bearer realm="curvekit", error="invalid_token"`)
				}
				refuse(w, apiErr.Status, strings.Join(apiErr.Messages, "; "))
				return
			}
			refuse(w, http.StatusBadGateway, "the API did not list the agent's tools")
			return
		}
		s, err := NewServer(r.Context(), Config{Client: c, Tools: tools, Version: cfg.Version, SchemaCache: cache})
		if err != nil {
			refuse(w, http.StatusInternalServerError, "internal server error")
			return
		}
		h.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), serverKey{}, s)))
	}), nil
}

type serverKey struct{}

// refuse answers as the API does: {statusCode, message}.
func refuse(w http.ResponseWriter, status int, message string) {
	if message == "" {
		message = http.StatusText(status)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{"statusCode": status, "message": message})
}

// toolList keeps the agent's tool list, the same for every caller, for a while: without it every
// MCP request would first list the tools through the API, at the caller's rate-limit cost.
type toolList struct {
	ttl   time.Duration
	mu    sync.Mutex
	tools []apiclient.Tool
	at    time.Time
}

func (l *toolList) get(ctx context.Context, c *apiclient.Client) ([]apiclient.Tool, error) {
	l.mu.Lock()
	tools, fresh := l.tools, time.Since(l.at) < l.ttl
	l.mu.Unlock()
	if tools != nil && fresh {
		return tools, nil
	}
	tools, err := c.Tools(ctx)
	if err != nil {
		return nil, err
	}
	l.mu.Lock()
	l.tools, l.at = tools, time.Now()
	l.mu.Unlock()
	return tools, nil
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
// if it had arrived from remote: from the MCP request's peer with its X-Forwarded-For, so that
// behind a trusted proxy the API sees the same client address it authorized /mcp for (and
// from an untrusted peer ignores the header, as it did then). API answers are small JSON
// documents, buffered whole.
type inProcess struct {
	api       http.Handler
	remote    string
	forwarded []string
}

func (t inProcess) RoundTrip(r *http.Request) (*http.Response, error) {
	in := r.Clone(r.Context())
	in.RemoteAddr = t.remote
	in.Header.Del("X-Forwarded-For")
	for _, v := range t.forwarded {
		in.Header.Add("X-Forwarded-For", v)
	}
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
