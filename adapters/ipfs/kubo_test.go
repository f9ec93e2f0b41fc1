package ipfs_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/curvekit/curvekit"
	"github.com/curvekit/curvekit/adapters/ipfs"
	"github.com/curvekit/curvekit/launch"
	"github.com/curvekit/curvekit/launch/launchtest"
)

// fakeKubo speaks the part of Kubo's RPC the pinner uses, as Kubo 0.43 does: POST only (405
// otherwise), /api/v0/add with a multipart field file answering {"Name","Hash","Size"} lines,
// /api/v0/cat answering the bytes with X-Content-Length, errors as {"Message","Code","Type"}.
// For the vectors' content it answers the CIDs a real Kubo gave, so the pinner's own CID
// computation is checked against Kubo and not against itself.
type fakeKubo struct {
	mu      sync.Mutex
	blocks  map[string][]byte
	adds    int
	profile string // "" for Kubo's default; "unixfs-v1-2025" answers other CIDs above one chunk
}

var (
	kuboOnce  sync.Once
	kuboKnown map[[32]byte]string
)

func recorded(t testing.TB) map[[32]byte]string {
	kuboOnce.Do(func() {
		kuboKnown = map[[32]byte]string{}
		for _, v := range launchtest.Vectors(t, vectors) {
			h := sha256.New()
			io.Copy(h, launchtest.VectorContent(v.Size))
			kuboKnown[[32]byte(h.Sum(nil))] = v.CID
		}
	})
	return kuboKnown
}

func newFakeKubo(t *testing.T) (*fakeKubo, *httptest.Server) {
	known := recorded(t)
	f := &fakeKubo{blocks: map[string][]byte{}}
	mux := http.NewServeMux()
	rpcErr := func(w http.ResponseWriter, status int, msg string) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		json.NewEncoder(w).Encode(map[string]any{"Message": msg, "Code": 0, "Type": "error"})
	}
	mux.HandleFunc("/api/v0/add", func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		q := r.URL.Query()
		if q.Get("cid-version") != "1" || q.Get("raw-leaves") != "true" || q.Get("chunker") != "size-262144" || q.Get("pin") != "true" {
			rpcErr(w, http.StatusBadRequest, "fake kubo: this fake answers only cid-version=1 raw-leaves=true chunker=size-262144 pin=true")
			return
		}
		mr, err := r.MultipartReader()
		if err != nil {
			rpcErr(w, http.StatusBadRequest, "request is not multipart: "+err.Error())
			return
		}
		part, err := mr.NextPart()
		if err != nil || part.FormName() != "file" {
			rpcErr(w, http.StatusBadRequest, "file argument 'path' is required")
			return
		}
		body, err := io.ReadAll(part)
		if err != nil {
			rpcErr(w, http.StatusInternalServerError, "reading file: "+err.Error())
			return
		}
		if _, err := mr.NextPart(); err != io.EOF {
			rpcErr(w, http.StatusBadRequest, "unexpected end of multipart body")
			return
		}
		cid, ok := known[sha256.Sum256(body)]
		if !ok {
			cid, _, _ = launch.CID(bytes.NewReader(body))
		}
		if f.profile == "unixfs-v1-2025" && len(body) > launch.ChunkSize {
			// Other chunking gives another root; any other CID stands for it here.
			cid, _, _ = launch.CID(strings.NewReader(cid))
		}
		f.mu.Lock()
		f.blocks[cid] = body
		f.adds++
		f.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Trailer", "X-Stream-Error")
		json.NewEncoder(w).Encode(map[string]string{"Name": part.FileName(), "Hash": cid, "Size": strconv.Itoa(len(body))})
	})
	mux.HandleFunc("/api/v0/cat", func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		arg := r.URL.Query().Get("arg")
		f.mu.Lock()
		body, ok := f.blocks[arg]
		f.mu.Unlock()
		if !ok {
			rpcErr(w, http.StatusInternalServerError, "block was not found locally (offline): ipld: could not find "+arg)
			return
		}
		w.Header().Set("X-Content-Length", strconv.Itoa(len(body)))
		w.Header().Set("Content-Type", "text/plain")
		w.Write(body)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return f, srv
}

func newKubo(t *testing.T, api string) *ipfs.Kubo {
	k, err := ipfs.NewKubo(ipfs.KuboConfig{API: api})
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func TestKubo(t *testing.T) {
	launchtest.RunPinner(t, vectors, func(t *testing.T) launch.Pinner {
		_, srv := newFakeKubo(t)
		return newKubo(t, srv.URL)
	})
}

// A node whose import profile differs (Kubo's unixfs-v1-2025) would give CIDs the local store
// never gives: the pinner refuses the answer instead of storing a URI that differs by node.
func TestKuboOtherProfileRefused(t *testing.T) {
	f, srv := newFakeKubo(t)
	f.profile = "unixfs-v1-2025"
	k := newKubo(t, srv.URL)
	if _, err := k.Pin(context.Background(), launch.Content{Body: launchtest.VectorContent(launch.ChunkSize + 1)}); err == nil || !strings.Contains(err.Error(), "default profile") {
		t.Fatalf("Pin with another profile = %v, want a CID mismatch", err)
	}
	if cid, err := k.Pin(context.Background(), launch.Content{Body: strings.NewReader("hello")}); err != nil || cid != "bafkreibm6jg3ux5qumhcn2b3flc3tyu6dmlb4xa7u5bf44yegnrjhc4yeq" {
		t.Fatalf("one chunk: %s, %v", cid, err)
	}
}

func TestKuboErrors(t *testing.T) {
	ctx := context.Background()
	// A node answering with its error body: the message is passed on.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.WriteHeader(http.StatusInternalServerError)
		fmt.Fprint(w, `{"Message":"repo is full","Code":0,"Type":"error"}`)
	}))
	defer srv.Close()
	if _, err := newKubo(t, srv.URL).Pin(ctx, launch.Content{Body: strings.NewReader("x")}); err == nil || !strings.Contains(err.Error(), "repo is full") {
		t.Fatalf("Pin against a failing node = %v", err)
	}
	// A node that is down.
	down := httptest.NewServer(http.NotFoundHandler())
	down.Close()
	if _, err := newKubo(t, down.URL).Pin(ctx, launch.Content{Body: strings.NewReader(strings.Repeat("x", 1<<20))}); !errors.Is(err, curvekit.ErrUnavailable) ||
		err.Error() != "unavailable: the IPFS node is unreachable; retry later" {
		t.Fatalf("Pin against a closed port = %v", err)
	}
	if _, err := newKubo(t, down.URL).Get(ctx, "bafkreibm6jg3ux5qumhcn2b3flc3tyu6dmlb4xa7u5bf44yegnrjhc4yeq"); !errors.Is(err, curvekit.ErrUnavailable) {
		t.Fatalf("Get against a closed port = %v", err)
	}
	if err := newKubo(t, down.URL).Ping(ctx); !errors.Is(err, curvekit.ErrUnavailable) {
		t.Fatalf("Ping against a closed port = %v", err)
	}
	for _, bad := range []string{"", "ftp://node", "127.0.0.1:5001"} {
		if _, err := ipfs.NewKubo(ipfs.KuboConfig{API: bad}); err == nil {
			t.Fatalf("NewKubo(%q) accepted", bad)
		}
	}
	if _, err := ipfs.NewStore(ipfs.StoreConfig{}); err == nil {
		t.Fatal("NewStore without a directory accepted")
	}
}

// The fake answers GET as Kubo does; the pinner never uses it.
func TestFakeKuboRefusesGet(t *testing.T) {
	_, srv := newFakeKubo(t)
	resp, err := http.Get(srv.URL + "/api/v0/add")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Fatalf("GET /api/v0/add = %d, want 405", resp.StatusCode)
	}
}
