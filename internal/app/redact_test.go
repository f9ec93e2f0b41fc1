package app_test

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/curvekit/curvekit/internal/pgtest"
)

// The server started with a credential in every URL it takes (the database, the chain node, Redis,
// the Kubo node, the LLM) logs none of them, at start nor when each fails; /readyz says what failed
// in words, without a URL, host or port.
func TestNoCredentialReachesTheLog(t *testing.T) {
	chain, _ := serve(t, slog.New(slog.DiscardHandler), "--db", filepath.Join(t.TempDir(), "chain.db"), "--devnet-rpc-addr", "127.0.0.1:0")
	rpc, err := url.Parse(chain.DevnetRPCURL())
	if err != nil {
		t.Fatal(err)
	}
	// A provider's endpoint: its key in the path and the query, as hosted providers have it.
	node := httptest.NewServer(&httputil.ReverseProxy{Rewrite: func(r *httputil.ProxyRequest) {
		r.SetURL(rpc)
		r.Out.URL.Path, r.Out.URL.RawQuery = "/", ""
	}})
	defer node.Close()
	closed := closedPort(t)

	secrets := []string{"SECRETRPCKEY0123456789", "SECRETRPCQUERY", "SECRETIPFS", "SECRETLLMKEY0123456789", "SECRETLLMQUERY"}
	db := filepath.Join(t.TempDir(), "follower.db")
	if os.Getenv(pgtest.Env) != "" {
		u, err := url.Parse(pgtest.Schema(t, "redact"))
		if err != nil {
			t.Fatal(err)
		}
		u.User = url.UserPassword(u.User.Username(), "SECRETPG") // trust authentication ignores it
		db, secrets = u.String(), append(secrets, "SECRETPG")
	}
	args := []string{
		"--db", db,
		"--rpc-url", node.URL + "/v3/SECRETRPCKEY0123456789?apikey=SECRETRPCQUERY",
		"--factory", chain.Devnet.Addrs.Factory.Hex(), "--router", chain.Devnet.Addrs.Router.Hex(),
		"--ipfs-api", "http://kubo:SECRETIPFS@" + closed,
		"--llm-base-url", "http://" + closed + "/v1/SECRETLLMKEY0123456789?key=SECRETLLMQUERY", "--llm-model", "m",
	}
	if addr := os.Getenv("CURVEKIT_TEST_REDIS"); addr != "" {
		// A Redis user of the test's own, so that the URL carries a real password.
		admin := redis.NewClient(&redis.Options{Addr: addr})
		defer admin.Close()
		user := "curvekit-redact-" + strings.ReplaceAll(t.Name(), "/", "-")
		if err := admin.Do(t.Context(), "ACL", "SETUSER", user, "on", ">SECRETREDIS", "~*", "&*", "+@all").Err(); err != nil {
			t.Fatal(err)
		}
		defer admin.Do(context.Background(), "ACL", "DELUSER", user)
		args, secrets = append(args, "--redis", "redis://"+user+":SECRETREDIS@"+addr), append(secrets, "SECRETREDIS")
	}
	var logs lockedLog
	_, base := serve(t, slog.New(slog.NewTextHandler(&logs, nil)), args...)

	// Everything that fails says so in the log: the Kubo node (an upload), and the chain node
	// (it goes away).
	resp, err := http.Post(base+"/launch/metadata", "application/json", strings.NewReader(`{"name":"Cat","symbol":"CAT"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	node.Close()
	deadline := time.Now().Add(30 * time.Second)
	var ready string
	for !strings.Contains(ready, "chain node") && !strings.Contains(ready, "indexer failing") {
		if time.Now().After(deadline) {
			t.Fatalf("/readyz never said the chain node failed: %s\n%s", ready, logs.String())
		}
		time.Sleep(50 * time.Millisecond)
		resp, err := http.Get(base + "/readyz")
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		ready = string(raw)
	}
	nodeHost, _, _ := net.SplitHostPort(strings.TrimPrefix(node.URL, "http://"))
	for _, leak := range append(secrets, closed, strings.TrimPrefix(node.URL, "http://"), nodeHost+":") {
		if strings.Contains(ready, leak) {
			t.Errorf("/readyz shows %s: %s", leak, ready)
		}
	}
	log := logs.String()
	for _, s := range secrets {
		if strings.Contains(log, s) {
			t.Errorf("the log holds %s:\n%s", s, log)
		}
	}
	for _, want := range []string{"/REDACTED/REDACTED", "apikey=REDACTED", "kubo:REDACTED@", "llm=\"http://" + closed + "/REDACTED/REDACTED?key=REDACTED\"",
		"chain=" + node.URL + " "} {
		if !strings.Contains(log, want) {
			t.Errorf("the log never names %s, so it says nothing of where it failed:\n%s", want, log)
		}
	}
}

// closedPort is a loopback address where nothing listens.
func closedPort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}
