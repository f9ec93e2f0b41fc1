// Package apiclient is a typed Go client of the curvekit HTTP API as docs/API.md describes it:
// market reads, quotes, unsigned transactions, the agent's jobs and its tools. The command line
// and the MCP server speak to a curvekit server through it, so they see exactly what any HTTP
// caller sees, the API key's restrictions included.
//
// It never calls the signing routes: a transaction it returns is a request for a person to
// confirm (SPEC 5 rule 9).
package apiclient

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// Config configures a Client. New fills the defaults.
type Config struct {
	// BaseURL is the server, e.g. http://127.0.0.1:8080 (default).
	BaseURL string
	// APIKey is sent as X-API-Key on every request when set.
	APIKey string
	// Header holds extra headers sent on every request (the remote MCP handler forwards the
	// caller's address this way).
	Header http.Header
	// HTTPClient sends the requests; default a client with Timeout.
	HTTPClient *http.Client
	// Timeout bounds each attempt of a request when HTTPClient is not given; default 30s.
	Timeout time.Duration
	// Retries is how many times a throttled (429) request is tried again; default 4. Negative
	// means never.
	Retries int
	// Backoff is the first wait after a 429; each later wait doubles, up to MaxBackoff, and
	// is drawn at random from its upper half so that clients throttled together spread out.
	// Defaults 500ms and 8s.
	Backoff, MaxBackoff time.Duration
	// UserAgent names the caller; default "curvekit-apiclient".
	UserAgent string
}

// DefaultBaseURL is the reference server's default address.
const DefaultBaseURL = "http://127.0.0.1:8080"

func (c *Config) fill() error {
	if c.BaseURL == "" {
		c.BaseURL = DefaultBaseURL
	}
	u, err := url.Parse(c.BaseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("apiclient: server URL %q: want http:// or https:// and a host", c.BaseURL)
	}
	c.BaseURL = strings.TrimRight(c.BaseURL, "/")
	if c.Timeout <= 0 {
		c.Timeout = 30 * time.Second
	}
	if c.HTTPClient == nil {
		c.HTTPClient = &http.Client{Timeout: c.Timeout}
	}
	if c.Retries == 0 {
		c.Retries = 4
	}
	if c.Retries < 0 {
		c.Retries = 0
	}
	if c.Backoff <= 0 {
		c.Backoff = 500 * time.Millisecond
	}
	if c.MaxBackoff < c.Backoff {
		c.MaxBackoff = max(8*time.Second, c.Backoff)
	}
	if c.UserAgent == "" {
		c.UserAgent = "curvekit-apiclient"
	}
	return nil
}

// Client calls one curvekit server. It is safe for concurrent use.
type Client struct {
	cfg Config
}

// New returns a Client for cfg.
func New(cfg Config) (*Client, error) {
	if err := cfg.fill(); err != nil {
		return nil, err
	}
	return &Client{cfg: cfg}, nil
}

// BaseURL is the server the client calls.
func (c *Client) BaseURL() string { return c.cfg.BaseURL }

// HasKey reports whether the client sends an API key.
func (c *Client) HasKey() bool { return c.cfg.APIKey != "" }

// ErrUnreachable is wrapped by the error of a request that got no HTTP answer at all: the
// server is down, the address is wrong, or the connection broke.
var ErrUnreachable = errors.New("server unreachable")

// ErrNoKey is returned, before any request, by a call that needs an API key when the client
// has none.
var ErrNoKey = errors.New("an API key is required")

// do sends method path with body (JSON-encoded when not nil) and decodes a 2xx answer into out.
// A 429 is retried after a growing, jittered wait; any other non-2xx answer is an *Error.
func (c *Client) do(ctx context.Context, method, path string, query url.Values, body, out any) error {
	var payload []byte
	if body != nil {
		var err error
		if payload, err = json.Marshal(body); err != nil {
			return fmt.Errorf("apiclient: encode request: %w", err)
		}
	}
	target := c.cfg.BaseURL + path
	if len(query) > 0 {
		target += "?" + query.Encode()
	}
	wait := c.cfg.Backoff
	for attempt := 0; ; attempt++ {
		status, raw, err := c.once(ctx, method, target, payload)
		if err != nil {
			return err
		}
		if status == http.StatusTooManyRequests && attempt < c.cfg.Retries {
			// The API sends no Retry-After (SPEC 7): back off on our own.
			d := wait/2 + rand.N(wait/2+1)
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(d):
			}
			wait = min(wait*2, c.cfg.MaxBackoff)
			continue
		}
		if status < 200 || status > 299 {
			return decodeError(method, path, status, raw, attempt)
		}
		if out == nil {
			return nil
		}
		if err := json.Unmarshal(raw, out); err != nil {
			return fmt.Errorf("apiclient: %s %s: the server's answer is not the expected JSON: %w", method, path, err)
		}
		return nil
	}
}

// once sends one attempt and reads the whole answer.
func (c *Client) once(ctx context.Context, method, target string, payload []byte) (int, []byte, error) {
	var rd io.Reader
	if payload != nil {
		rd = bytes.NewReader(payload)
	}
	req, err := http.NewRequestWithContext(ctx, method, target, rd)
	if err != nil {
		return 0, nil, fmt.Errorf("apiclient: %w", err)
	}
	for k, vs := range c.cfg.Header {
		for _, v := range vs {
			req.Header.Add(k, v)
		}
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", c.cfg.UserAgent)
	if payload != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.cfg.APIKey != "" {
		req.Header.Set("X-API-Key", c.cfg.APIKey)
	}
	resp, err := c.cfg.HTTPClient.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return 0, nil, ctx.Err()
		}
		// Keep the transport's reason (refused, timeout, DNS) but never the request itself:
		// url.Error would print the whole URL, and the key is in a header, not the URL.
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return 0, nil, fmt.Errorf("apiclient: %w at %s: %w", ErrUnreachable, c.cfg.BaseURL, err)
	}
	defer resp.Body.Close()
	// Answers are small JSON documents; a bound keeps a wrong server from exhausting memory.
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if err != nil {
		return 0, nil, fmt.Errorf("apiclient: %w at %s: reading the answer: %w", ErrUnreachable, c.cfg.BaseURL, err)
	}
	return resp.StatusCode, raw, nil
}

// OpenAPI returns the server's OpenAPI 3.1 document (GET /openapi.json), as it sent it.
func (c *Client) OpenAPI(ctx context.Context) (json.RawMessage, error) {
	var doc json.RawMessage
	err := c.get(ctx, "/openapi.json", nil, &doc)
	return doc, err
}

// get is do for a GET without a body.
func (c *Client) get(ctx context.Context, path string, query url.Values, out any) error {
	return c.do(ctx, http.MethodGet, path, query, nil, out)
}

// needKey fails before any request when the client has no API key.
func (c *Client) needKey() error {
	if c.cfg.APIKey == "" {
		return ErrNoKey
	}
	return nil
}
