package app_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/curvekit/curvekit/adapters/evm/devnet"
	"github.com/curvekit/curvekit/internal/app"
)

// logLines are the lines of l that contain s.
func logLines(l *lockedLog, s string) []string {
	var out []string
	for _, line := range strings.Split(l.String(), "\n") {
		if strings.Contains(line, s) {
			out = append(out, line)
		}
	}
	return out
}

// node serves a devnet's JSON-RPC on addr until stopped.
type node struct {
	addr string
	stop func()
	done chan error
}

func serveNode(t *testing.T, d *devnet.Devnet, addr string) *node {
	t.Helper()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	n := &node{addr: ln.Addr().String(), stop: cancel, done: make(chan error, 1)}
	go func() { n.done <- d.ServeRPC(ctx, ln) }()
	return n
}

func (n *node) halt(t *testing.T) {
	t.Helper()
	n.stop()
	if err := <-n.done; err != nil {
		t.Errorf("ServeRPC: %v", err)
	}
}

// TestChainNodeOutage: a server on --rpc-url whose node stops answers the routes that need the
// chain now with 503 "chain node unavailable, retry later" and a Retry-After, serves what the
// store holds as before, logs the outage once (not once per request), and says when the node
// answers again.
func TestChainNodeOutage(t *testing.T) {
	d, err := devnet.Start(devnet.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	n := serveNode(t, d, "127.0.0.1:0")
	rpcAddr := n.addr // kept for the node's restart

	logs := &lockedLog{}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := app.ParseConfig([]string{"--db", filepath.Join(t.TempDir(), "server.db"), "--addr", ln.Addr().String(),
		"--rpc-url", "http://" + rpcAddr, "--factory", d.Addrs.Factory.Hex(), "--router", d.Addrs.Router.Hex(),
		"--poll", "20ms", "--rate-limit", "100000000"})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	a, err := app.New(ctx, cfg, slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug})))
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	if err := a.Replica.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- a.Serve(ctx, ln) }()
	defer func() {
		cancel()
		if err := <-served; err != nil {
			t.Errorf("serve: %v", err)
		}
		a.Close()
	}()
	base := "http://" + ln.Addr().String()
	token, wallet := d.ETHToken.Token.Hex(), d.Accounts[4].Address.Hex()

	type exchange struct {
		name, method, path, body string
	}
	chainRoutes := []exchange{
		{"trade build", http.MethodPost, "/tokens/" + token + "/build-tx", `{"type":"buy","amount":"0.01","recipient":"` + wallet + `"}`},
		{"launch fee estimate", http.MethodGet, "/launch/estimate-fee?from=" + wallet, ""},
		{"launch build", http.MethodPost, "/launch/build-tx", `{"from":"` + wallet + `","name":"Outage Cat","symbol":"OCAT","uri":"https://example.invalid/o.json","initialBuy":"0.01"}`},
	}
	storeRoutes := []exchange{
		{"token list", http.MethodGet, "/tokens", ""},
		{"token", http.MethodGet, "/tokens/" + token, ""},
	}
	do := func(x exchange) (int, string, http.Header) {
		t.Helper()
		req, err := http.NewRequest(x.method, base+x.path, strings.NewReader(x.body))
		if err != nil {
			t.Fatal(err)
		}
		if x.body != "" {
			req.Header.Set("Content-Type", "application/json")
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b), resp.Header
	}
	for _, x := range append(chainRoutes, storeRoutes...) {
		if code, body, _ := do(x); code != http.StatusOK {
			t.Fatalf("%s with the node up: %d %s", x.name, code, body)
		}
	}

	n.halt(t)
	for round := range 3 {
		for _, x := range chainRoutes {
			code, body, h := do(x)
			var e struct {
				StatusCode int    `json:"statusCode"`
				Message    string `json:"message"`
			}
			_ = json.Unmarshal([]byte(body), &e)
			if code != http.StatusServiceUnavailable || e.StatusCode != code || e.Message != "chain node unavailable, retry later" || h.Get("Retry-After") == "" {
				t.Fatalf("%s with the node down (round %d): %d %s Retry-After %q", x.name, round, code, body, h.Get("Retry-After"))
			}
		}
		for _, x := range storeRoutes {
			if code, body, _ := do(x); code != http.StatusOK {
				t.Fatalf("%s with the node down: %d %s", x.name, code, body)
			}
		}
	}
	if got := logLines(logs, `msg="chain node unavailable"`); len(got) != 1 {
		t.Fatalf("outage log lines: %q, want one", got)
	}
	if got := append(logLines(logs, "httpapi: request failed"), logLines(logs, "level=WARN msg=\"httpapi: a dependency is unavailable\"")...); len(got) != 0 {
		t.Fatalf("requests logged one by one: %q", got)
	}

	// The node comes back: the routes answer again once its pause ends, and the log says so once.
	n = serveNode(t, d, rpcAddr)
	defer n.halt(t)
	deadline := time.Now().Add(30 * time.Second)
	for {
		code, body, _ := do(chainRoutes[0])
		if code == http.StatusOK {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("trade build after the node came back: %d %s", code, body)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if got := logLines(logs, `msg="chain node recovered"`); len(got) != 1 {
		t.Fatalf("recovery log lines: %q, want one", got)
	}
	if got := logLines(logs, `msg="chain node unavailable"`); len(got) != 1 {
		t.Fatalf("outage log lines after the recovery: %q, want one", got)
	}
}
