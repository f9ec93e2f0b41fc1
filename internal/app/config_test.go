package app_test

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/curvekit/curvekit/internal/app"
)

// Every bad value is refused before anything is created: the working directory stays empty (no
// database, devnet, master key or IPFS store), and the message names the flag and the value.
func TestBadConfigCreatesNothing(t *testing.T) {
	for _, tc := range []struct{ flag, value string }{
		{"--addr", "notanaddress"},
		{"--addr", "127.0.0.1:99999"},
		{"--metrics-addr", "nope"},
		{"--devnet-rpc-addr", "8545"},
		{"--redis", "127.0.0.1"},
		{"--db", "mysql://x"},
		{"--public-url", "localhost:8080"},
		{"--ipfs-api", "ftp://node"},
		{"--rpc-url", "127.0.0.1:8545"},
		{"--llm-base-url", "api.openai.com"},
		{"--oauth-issuer", "accounts.example"},
		{"--fault", "orders.beforeSend:explode"},
		{"--fault", "orders.nowhere:exit"},
	} {
		t.Run(strings.TrimPrefix(tc.flag, "--")+"="+tc.value, func(t *testing.T) {
			dir := t.TempDir()
			args := []string{"--db", filepath.Join(dir, "curvekit.db"), "--simulate", "0", tc.flag, tc.value}
			if tc.flag == "--rpc-url" {
				args = append(args, "--factory", "0x01", "--router", "0x02")
			}
			cfg, err := app.ParseConfig(args)
			if err == nil {
				var a *app.App
				if a, err = app.New(context.Background(), cfg, slog.New(slog.DiscardHandler)); err == nil {
					a.Close()
				}
			}
			if err == nil || !strings.Contains(err.Error(), tc.flag) || !strings.Contains(err.Error(), tc.value) {
				t.Fatalf("%s %s: %v", tc.flag, tc.value, err)
			}
			if entries, _ := os.ReadDir(dir); len(entries) != 0 {
				t.Fatalf("%s %s left %v behind", tc.flag, tc.value, entries)
			}
		})
	}
}

// A Redis address where nothing answers stops the server at start with a clear error, before
// the devnet or the master key are created.
func TestRedisCheckedAtStart(t *testing.T) {
	dir := t.TempDir()
	cfg, err := app.ParseConfig([]string{"--db", filepath.Join(dir, "curvekit.db"), "--simulate", "0", "--redis", "127.0.0.1:1"})
	if err != nil {
		t.Fatal(err)
	}
	a, err := app.New(context.Background(), cfg, slog.New(slog.DiscardHandler))
	if err == nil {
		a.Close()
		t.Fatal("started with Redis unreachable")
	}
	if !strings.Contains(err.Error(), "--redis 127.0.0.1:1: ratelimit: Redis does not answer") {
		t.Fatalf("error: %v", err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Fatalf("left %v behind", entries)
	}
}
