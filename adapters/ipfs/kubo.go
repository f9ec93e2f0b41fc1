package ipfs

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime/multipart"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/curvekit/curvekit"
	"github.com/curvekit/curvekit/launch"
)

// KuboConfig configures a Kubo pinner.
type KuboConfig struct {
	// API is the base URL of the node's RPC, e.g. http://127.0.0.1:5001.
	API string
	// Client sends the requests; nil means a client with Timeout.
	Client *http.Client
	// Timeout bounds one RPC call; 0 means 2 minutes.
	Timeout time.Duration
}

func (c KuboConfig) withDefaults() KuboConfig {
	if c.Timeout == 0 {
		c.Timeout = 2 * time.Minute
	}
	if c.Client == nil {
		c.Client = &http.Client{Timeout: c.Timeout}
	}
	c.API = strings.TrimRight(c.API, "/")
	return c
}

func (c KuboConfig) validate() error {
	u, err := url.Parse(c.API)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("ipfs: Kubo API %q is not an http(s) URL", c.API)
	}
	if c.Timeout < 0 {
		return fmt.Errorf("ipfs: Kubo timeout %s is negative", c.Timeout)
	}
	return nil
}

// Kubo pins content on a Kubo node through its RPC (POST /api/v0/add, multipart field file) and
// reads it back with /api/v0/cat. The import profile is pinned in each call (CIDv1, raw leaves,
// 256 KiB chunks), whatever the node's own defaults, and the CID the node answers is checked
// against the one computed here while the body streams.
type Kubo struct {
	cfg KuboConfig
}

var _ launch.Pinner = (*Kubo)(nil)

// NewKubo returns a pinner for the node at cfg.API.
func NewKubo(cfg KuboConfig) (*Kubo, error) {
	cfg = cfg.withDefaults()
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	return &Kubo{cfg: cfg}, nil
}

// addResult is one line of /api/v0/add's answer.
type addResult struct {
	Name string
	Hash string
	Size string
}

// rpcError is Kubo's error body.
type rpcError struct {
	Message string
	Code    int
	Type    string
}

// Pin streams c.Body to the node; nothing is buffered beyond the pipe between the reader and the
// request.
func (k *Kubo) Pin(ctx context.Context, c launch.Content) (string, error) {
	q := url.Values{"cid-version": {"1"}, "pin": {"true"}, "raw-leaves": {"true"}, "chunker": {fmt.Sprintf("size-%d", launch.ChunkSize)}}
	pr, pw := io.Pipe()
	mw := multipart.NewWriter(pw)
	var b launch.CIDBuilder
	readErr := make(chan error, 1)
	go func() {
		err := func() error {
			part, err := mw.CreateFormFile("file", "upload")
			if err != nil {
				return err
			}
			if _, err := io.Copy(io.MultiWriter(part, &b), c.Body); err != nil {
				return err
			}
			return mw.Close()
		}()
		readErr <- err
		// An error here aborts the request body, so the node never sees a complete file.
		pw.CloseWithError(err)
	}()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, k.cfg.API+"/api/v0/add?"+q.Encode(), pr)
	if err != nil {
		pr.CloseWithError(err)
		<-readErr
		return "", fmt.Errorf("ipfs: kubo add: %w", err)
	}
	req.Header.Set("Content-Type", mw.FormDataContentType())
	resp, err := k.cfg.Client.Do(req)
	// The body's own failure (an oversized image) explains a failed request best; a write
	// into the pipe the transport closed (the node is unreachable) explains nothing.
	pr.CloseWithError(errRequestEnded)
	if rerr := <-readErr; rerr != nil && !errors.Is(rerr, errRequestEnded) && !errors.Is(rerr, io.ErrClosedPipe) {
		if resp != nil {
			resp.Body.Close()
		}
		return "", fmt.Errorf("ipfs: kubo add: %w", rerr)
	}
	if err != nil {
		return "", unreachable("add", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("ipfs: kubo add: %s", rpcFailure(resp))
	}
	var last addResult
	dec := json.NewDecoder(bufio.NewReader(io.LimitReader(resp.Body, 1<<20)))
	for {
		var r addResult
		if err := dec.Decode(&r); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return "", fmt.Errorf("ipfs: kubo add: answer: %w", err)
		}
		last = r
	}
	// Kubo reports a failure after a 200 in a trailer.
	if e := resp.Trailer.Get("X-Stream-Error"); e != "" {
		return "", fmt.Errorf("ipfs: kubo add: %s", e)
	}
	want := b.Sum()
	if last.Hash != want {
		return "", fmt.Errorf("ipfs: kubo add: node answered CID %q where Kubo's default profile gives %s", last.Hash, want)
	}
	return want, nil
}

// Get opens the content under cid without asking the network: a node that does not hold it
// answers at once instead of searching.
func (k *Kubo) Get(ctx context.Context, cid string) (launch.Object, error) {
	if _, err := launch.ParseCID(cid); err != nil {
		return launch.Object{}, err
	}
	q := url.Values{"arg": {cid}, "offline": {"true"}}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, k.cfg.API+"/api/v0/cat?"+q.Encode(), nil)
	if err != nil {
		return launch.Object{}, fmt.Errorf("ipfs: kubo cat: %w", err)
	}
	resp, err := k.cfg.Client.Do(req)
	if err != nil {
		return launch.Object{}, unreachable("cat", err)
	}
	if resp.StatusCode != http.StatusOK {
		defer resp.Body.Close()
		msg := rpcFailure(resp)
		if strings.Contains(msg, "not found") || strings.Contains(msg, "could not find") {
			return launch.Object{}, fmt.Errorf("%w: no content %s", curvekit.ErrNotFound, cid)
		}
		return launch.Object{}, fmt.Errorf("ipfs: kubo cat: %s", msg)
	}
	// Kubo keeps no media type: it is read from the first bytes.
	br := bufio.NewReaderSize(resp.Body, 512)
	head, _ := br.Peek(512)
	size := int64(-1)
	if s := resp.Header.Get("X-Content-Length"); s != "" {
		fmt.Sscan(s, &size)
	}
	return launch.Object{Body: readCloser{br, resp.Body}, Type: launch.TypeOf(head), Size: size}, nil
}

// unreachable is the error of an RPC call the node did not answer (refused, timed out, cut).
func unreachable(call string, cause error) error {
	return &unavailableError{call: call, cause: cause}
}

// unavailableError tells the client that IPFS is unavailable, and the log why: its message
// leaves out the node's address and the low-level cause, which its LogValue carries.
type unavailableError struct {
	call  string
	cause error
}

func (e *unavailableError) Error() string {
	return curvekit.ErrUnavailable.Error() + ": the IPFS node is unreachable; retry later"
}

func (e *unavailableError) Unwrap() []error { return []error{curvekit.ErrUnavailable, e.cause} }

// LogValue is what a log line shows: the message and the cause.
func (e *unavailableError) LogValue() slog.Value {
	return slog.StringValue(fmt.Sprintf("%s (kubo %s: %v)", e.Error(), e.call, e.cause))
}

// Ping checks that the node answers its RPC (POST /api/v0/version), for readiness.
func (k *Kubo) Ping(ctx context.Context) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, k.cfg.API+"/api/v0/version", nil)
	if err != nil {
		return err
	}
	resp, err := k.cfg.Client.Do(req)
	if err != nil {
		return unreachable("version", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return unreachable("version", errors.New(rpcFailure(resp)))
	}
	return nil
}

// errRequestEnded stops the body's writer once the node has answered.
var errRequestEnded = errors.New("ipfs: request ended")

type readCloser struct {
	io.Reader
	io.Closer
}

// rpcFailure reads Kubo's error message, or names the status when the body is not one.
func rpcFailure(resp *http.Response) string {
	var e rpcError
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	if json.Unmarshal(body, &e) == nil && e.Message != "" {
		return fmt.Sprintf("%s (HTTP %d)", e.Message, resp.StatusCode)
	}
	return fmt.Sprintf("HTTP %d", resp.StatusCode)
}
