package app_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"mime/multipart"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/curvekit/curvekit/internal/app"
	"github.com/curvekit/curvekit/internal/openapitest"
	"github.com/curvekit/curvekit/launch"
)

// serve runs the wired server with args (and no simulated trades) on a loopback port until the
// test ends, and returns it with its base URL.
func serve(t *testing.T, log *slog.Logger, args ...string) (*app.App, string) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := app.ParseConfig(append([]string{"--addr", ln.Addr().String(), "--simulate", "0", "--poll", "20ms"}, args...))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	// Every exchange is checked against the server's own OpenAPI document.
	var checker *openapitest.Checker
	a, err := app.New(ctx, cfg, log, app.WithMiddleware(func(h http.Handler) http.Handler { return checker.Wrap(h) }))
	if err != nil {
		t.Fatal(err)
	}
	checker = openapitest.New(t, a.API.OpenAPI())
	done := make(chan error, 1)
	go func() { done <- a.Serve(ctx, ln) }()
	t.Cleanup(func() { cancel(); <-done; a.Close() })
	return a, "http://" + ln.Addr().String()
}

// The wired server pins uploads in the local store beside its database by default, answers with
// gateway URLs on its own /ipfs route, serves them there, and enforces the caps GET /config shows.
func TestLaunchWiring(t *testing.T) {
	db := filepath.Join(t.TempDir(), "launch.db")
	a, base := serve(t, slog.New(slog.DiscardHandler), "--db", db)

	img := append([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), bytes.Repeat([]byte{9}, 1000)...)
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	fw, _ := mw.CreateFormFile("file", "cat.png")
	fw.Write(img)
	mw.Close()
	resp, err := http.Post(base+"/launch/upload-image", mw.FormDataContentType(), &buf)
	if err != nil {
		t.Fatal(err)
	}
	var up struct {
		CID, ImageURL, GatewayURL string
	}
	json.NewDecoder(resp.Body).Decode(&up)
	resp.Body.Close()
	cid, _, _ := launch.CID(bytes.NewReader(img))
	if resp.StatusCode != http.StatusOK || up.CID != cid || up.GatewayURL != base+"/ipfs/"+cid {
		t.Fatalf("upload: %d %+v", resp.StatusCode, up)
	}
	if _, err := os.Stat(filepath.Join(db+".ipfs", cid[len(cid)-2:], cid)); err != nil {
		t.Fatalf("the local store beside the database holds no %s: %v", cid, err)
	}
	resp, err = http.Get(up.GatewayURL)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !bytes.Equal(got, img) || resp.Header.Get("Content-Type") != launch.PNG {
		t.Fatalf("GET %s: %d %s", up.GatewayURL, resp.StatusCode, resp.Header.Get("Content-Type"))
	}

	var conf struct {
		Subscription struct {
			Tiers map[string]struct {
				LaunchesPerDay int `json:"launchesPerDay"`
			} `json:"tiers"`
		} `json:"subscription"`
		Fees struct {
			CurveBps, CreatorShareBps, PoolBps uint16
		} `json:"fees"`
	}
	resp, err = http.Get(base + "/config")
	if err != nil {
		t.Fatal(err)
	}
	json.NewDecoder(resp.Body).Decode(&conf)
	resp.Body.Close()
	enforced := a.Launch.LaunchesPerDay()
	for tier, n := range enforced {
		if conf.Subscription.Tiers[string(tier)].LaunchesPerDay != n {
			t.Fatalf("tier %s: /config shows %d, the launch service enforces %d", tier, conf.Subscription.Tiers[string(tier)].LaunchesPerDay, n)
		}
	}
	if f := a.Launch.Fees(); f.CurveBps != conf.Fees.CurveBps || f.CreatorShareBps != conf.Fees.CreatorShareBps || f.PoolBps != conf.Fees.PoolBps {
		t.Fatalf("fees: /config %+v, launch service %+v", conf.Fees, f)
	}
}

// lockedLog collects a server's log lines from many goroutines.
type lockedLog struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *lockedLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *lockedLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// With the Kubo node unreachable, uploads, metadata and /ipfs/:cid answer 503 naming IPFS (not a
// 500), the log says why (the dial error, not a closed pipe), and /readyz reports the pinner.
func TestKuboUnreachable(t *testing.T) {
	// Port 1: nothing listens there, and no listener of this machine's tests can take it (they
	// bind port 0, which the kernel answers from the ephemeral range). A port picked and closed
	// here could be handed to the server under test itself, which then answered as the node.
	kubo := "http://127.0.0.1:1"
	var logs lockedLog
	_, base := serve(t, slog.New(slog.NewTextHandler(&logs, nil)), "--db", filepath.Join(t.TempDir(), "kubo.db"), "--ipfs-api", kubo)

	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	fw, _ := mw.CreateFormFile("file", "cat.png")
	fw.Write(append([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), bytes.Repeat([]byte{9}, 100_000)...))
	mw.Close()
	want := `{"statusCode":503,"message":"the IPFS node is unreachable; retry later"}` + "\n"
	for _, call := range []struct {
		name string
		do   func() (*http.Response, error)
	}{
		{"upload", func() (*http.Response, error) {
			return http.Post(base+"/launch/upload-image", mw.FormDataContentType(), bytes.NewReader(buf.Bytes()))
		}},
		{"metadata", func() (*http.Response, error) {
			return http.Post(base+"/launch/metadata", "application/json", strings.NewReader(`{"name":"Cat","symbol":"CAT"}`))
		}},
		{"read", func() (*http.Response, error) {
			return http.Get(base + "/ipfs/bafkreibm6jg3ux5qumhcn2b3flc3tyu6dmlb4xa7u5bf44yegnrjhc4yeq")
		}},
	} {
		resp, err := call.do()
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusServiceUnavailable || string(body) != want {
			t.Errorf("%s: %d %s", call.name, resp.StatusCode, body)
		}
	}
	resp, err := http.Get(base + "/readyz")
	if err != nil {
		t.Fatal(err)
	}
	var ready struct {
		Status string
		Checks map[string]string
	}
	json.NewDecoder(resp.Body).Decode(&ready)
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable || ready.Checks["ipfs"] != "IPFS node unreachable" {
		t.Errorf("readyz: %d %+v", resp.StatusCode, ready)
	}
	log := logs.String()
	if !strings.Contains(log, "planner=offline") {
		t.Errorf("the log does not name the offline planner:\n%s", log)
	}
	if !strings.Contains(log, "connection refused") || strings.Contains(log, "closed pipe") || strings.Contains(log, "level=ERROR") {
		t.Errorf("the log does not say why:\n%s", log)
	}
}
