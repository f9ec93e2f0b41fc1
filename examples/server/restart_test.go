package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/uptrace/bun/driver/pgdriver"

	"github.com/curvekit/curvekit/internal/app"
)

// syncBuffer is a log sink safe for the server's goroutines.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// runServer serves the app of args as the binary does while check runs against its base URL,
// then stops it.
func runServer(t *testing.T, args []string, logs *syncBuffer, check func(base string)) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := app.ParseConfig(append(args, "--addr", ln.Addr().String()))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	a, err := app.New(ctx, cfg, slog.New(slog.NewTextHandler(logs, nil)))
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- a.Serve(ctx, ln) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
		a.Close()
	}()
	check("http://" + ln.Addr().String())
}

// getJSON GETs url into out and returns the status.
func getJSON(t *testing.T, url string, out any) int {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	return resp.StatusCode
}

type tradePage struct {
	Trades []trade `json:"trades"`
}

// The quickstart's second run: the server runs with the simulator, trades land, it stops, and it
// starts again on the same database. The devnet continues its chain from beside the database, so
// the indexer meets the chain it recorded: no error, no reset, every trade from before is still
// served, and new trades keep landing.
func TestRestartContinuesTheChain(t *testing.T) {
	dir := t.TempDir()
	testRestart(t, []string{"--db", filepath.Join(dir, "curvekit.db"), "--simulate", "100ms", "--poll", "50ms"})
}

// The same on PostgreSQL, with the devnet's directory left to its default: named after the
// database, in the working directory.
func TestRestartContinuesTheChainOnPostgres(t *testing.T) {
	base := os.Getenv("CURVEKIT_TEST_POSTGRES")
	if base == "" {
		t.Skip("CURVEKIT_TEST_POSTGRES is not set")
	}
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	var b [6]byte
	rand.Read(b[:])
	name := "curvekit_restart_" + hex.EncodeToString(b[:])
	admin := sql.OpenDB(pgdriver.NewConnector(pgdriver.WithDSN(base)))
	// Closed by the cleanup that drops the database, which runs after this function returns.
	t.Cleanup(func() { admin.Close() })
	if _, err := admin.Exec("CREATE DATABASE " + name); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if _, err := admin.Exec("DROP DATABASE " + name + " WITH (FORCE)"); err != nil {
			t.Errorf("dropping the test's database: %v", err)
		}
	})
	u.Path = "/" + name
	t.Chdir(t.TempDir())
	testRestart(t, []string{"--db", u.String(), "--simulate", "100ms", "--poll", "50ms"})
	if st, err := os.Stat("curvekit-" + name + ".devnet"); err != nil || !st.IsDir() || st.Mode().Perm() != 0o700 {
		t.Fatalf("the devnet's default directory on PostgreSQL: %v", err)
	}
}

func testRestart(t *testing.T, args []string) {
	logs := &syncBuffer{}
	var token string
	var before []trade
	waitTrades := func(base string, atLeast int) []trade {
		t.Helper()
		deadline := time.Now().Add(60 * time.Second)
		for {
			var page tradePage
			getJSON(t, base+"/tokens/"+token+"/trades?limit=100", &page)
			if len(page.Trades) >= atLeast {
				return page.Trades
			}
			if time.Now().After(deadline) {
				t.Fatalf("only %d trades after 60s; logs:\n%s", len(page.Trades), logs)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	runServer(t, args, logs, func(base string) {
		var list struct {
			Tokens []struct{ Address string } `json:"tokens"`
		}
		deadline := time.Now().Add(30 * time.Second)
		for getJSON(t, base+"/tokens?phase=curve&quote=ETH&limit=1", &list); len(list.Tokens) == 0; getJSON(t, base+"/tokens?phase=curve&quote=ETH&limit=1", &list) {
			if time.Now().After(deadline) {
				t.Fatal("the demo tokens were never indexed")
			}
			time.Sleep(50 * time.Millisecond)
		}
		token = list.Tokens[0].Address
		before = waitTrades(base, 5)
	})
	runServer(t, args, logs, func(base string) {
		var ready map[string]any
		deadline := time.Now().Add(30 * time.Second)
		for getJSON(t, base+"/readyz", &ready) != http.StatusOK {
			if time.Now().After(deadline) {
				t.Fatalf("not ready after a restart: %v", ready)
			}
			time.Sleep(100 * time.Millisecond)
		}
		after := waitTrades(base, len(before)+3)
		seen := make(map[string]bool, len(after))
		for _, tr := range after {
			seen[tr.TxHash] = true
		}
		for _, tr := range before {
			if !seen[tr.TxHash] {
				t.Errorf("trade %s of the first run is gone after the restart", tr.TxHash)
			}
		}
	})
	out := logs.String()
	for _, bad := range []string{"level=ERROR", "starting afresh", "reorganized deeper"} {
		if strings.Contains(out, bad) {
			t.Errorf("log holds %q:\n%s", bad, out)
		}
	}
	if !strings.Contains(out, "devnet resumed") {
		t.Errorf("the second start did not resume the devnet:\n%s", out)
	}
}
