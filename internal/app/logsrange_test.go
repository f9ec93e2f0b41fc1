package app_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"

	"github.com/curvekit/curvekit/adapters/evm/devnet"
	"github.com/curvekit/curvekit/adapters/evm/rpcfault"
	"github.com/curvekit/curvekit/internal/app"
)

// A chain node that refuses eth_getLogs over more than a few blocks, in words no known provider
// uses, neither stops the server at start (the pairing assets are read from the factory's
// events) nor stops its indexer: narrower ranges are asked for.
func TestServerStartsThroughRangeRefusalsInUnknownWords(t *testing.T) {
	d, err := devnet.Start(devnet.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	n := serveNode(t, d, "127.0.0.1:0")
	defer n.halt(t)
	proxy := rpcfault.New(rpcfault.Config{Upstream: "http://" + n.addr, RangeCap: 4, RangeRefusal: "block range is too wide"})
	node := httptest.NewServer(proxy)
	defer node.Close()
	cfg, err := app.ParseConfig([]string{"--db", filepath.Join(t.TempDir(), "server.db"), "--addr", "127.0.0.1:0",
		"--rpc-url", node.URL, "--factory", d.Addrs.Factory.Hex(), "--router", d.Addrs.Router.Hex()})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	a, err := app.New(ctx, cfg, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatalf("the server did not start: %v", err)
	}
	defer a.Close()
	if err := a.Replica.Sync(ctx); err != nil {
		t.Fatalf("indexer sync: %v", err)
	}
	if got, want := a.Replica.Status().Position.Block, d.Backend.Head().Number.Uint64(); got != want {
		t.Errorf("indexed to block %d, want the head %d", got, want)
	}
	srv := httptest.NewServer(a.API.Handler())
	defer srv.Close()
	resp, err := http.Get(srv.URL + "/config")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var conf struct {
		QuoteAssets []json.RawMessage `json:"quoteAssets"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&conf); err != nil || resp.StatusCode != http.StatusOK || len(conf.QuoteAssets) < 2 {
		t.Errorf("GET /config: %d %v, quote assets %s", resp.StatusCode, err, conf.QuoteAssets)
	}
	if proxy.Counts()["range"] == 0 {
		t.Errorf("no range was refused: %v", proxy.Counts())
	}
}
