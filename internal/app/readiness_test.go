package app_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"net"
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/curvekit/curvekit/adapters/evm/devnet"
	"github.com/curvekit/curvekit/internal/app"
)

// A server whose chain node stops: /readyz says the indexer fails, counting the attempts, and the
// log says so once, however many attempts /readyz is asked through, with the error once: not the
// reason again in front of it.
func TestReadinessLogsTheFailingIndexerOnce(t *testing.T) {
	d, err := devnet.Start(devnet.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	n := serveNode(t, d, "127.0.0.1:0")
	logs := &lockedLog{}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := app.ParseConfig([]string{"--db", filepath.Join(t.TempDir(), "server.db"), "--addr", ln.Addr().String(),
		"--rpc-url", "http://" + n.addr, "--factory", d.Addrs.Factory.Hex(), "--router", d.Addrs.Router.Hex(),
		"--poll", "20ms"})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	a, err := app.New(ctx, cfg, slog.New(slog.NewTextHandler(logs, nil)))
	if err != nil {
		cancel()
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
	ready := func() (int, string) {
		t.Helper()
		resp, err := http.Get(base + "/readyz")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var body struct {
			Checks map[string]string `json:"checks"`
		}
		if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
			t.Fatal(err)
		}
		return resp.StatusCode, body.Checks["indexer"]
	}
	deadline := time.Now().Add(30 * time.Second)
	for code, _ := ready(); code != http.StatusOK; code, _ = ready() {
		if time.Now().After(deadline) {
			t.Fatal("the server never became ready")
		}
		time.Sleep(20 * time.Millisecond)
	}

	before := len(logLines(logs, `msg="readiness check failing"`))
	n.halt(t)
	failing := map[string]bool{} // the reasons /readyz gave, each with its count of attempts
	for len(failing) < 3 {
		if time.Now().After(deadline) {
			t.Fatalf("/readyz gave %d reasons of a failing indexer: %v", len(failing), failing)
		}
		if code, why := ready(); code == http.StatusServiceUnavailable && strings.HasPrefix(why, "indexer failing since") {
			failing[why] = true
		}
		time.Sleep(20 * time.Millisecond)
	}
	lines := logLines(logs, `msg="readiness check failing"`)[before:]
	if len(lines) != 1 {
		t.Fatalf("readiness log lines: %q, want one", lines)
	}
	if got := len(regexp.MustCompile(`indexer failing since`).FindAllString(lines[0], -1)); got != 1 {
		t.Errorf("the line says the reason %d times: %s", got, lines[0])
	}
}
