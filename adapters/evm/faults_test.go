package evm_test

import (
	"context"
	"log/slog"
	"math/big"
	"net"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/google/go-cmp/cmp"

	"github.com/curvekit/curvekit/adapters/bunstore"
	"github.com/curvekit/curvekit/adapters/evm"
	"github.com/curvekit/curvekit/adapters/evm/devnet"
	"github.com/curvekit/curvekit/adapters/evm/rpcfault"
	"github.com/curvekit/curvekit/contracts/bindings"
	"github.com/curvekit/curvekit/market"
)

// tradedChain is a devnet served over JSON-RPC with trades spread over blocks: every account
// buys DETH in turn, with empty blocks between, until blocks blocks stand on the chain.
func tradedChain(t testing.TB, trades, blocks int) (*devnet.Devnet, string) {
	t.Helper()
	d, err := devnet.Start(devnet.Config{Accounts: 8})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	ctx := context.Background()
	crv := bindings.NewBondingCurve()
	gap := max(blocks/max(trades, 1)-1, 0)
	for i := range trades {
		acc := d.Accounts[i%len(d.Accounts)]
		deadline, err := d.Deadline(ctx, time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		value := big.NewInt(int64(1+i%5) * 1e15)
		if _, err := d.Send(ctx, acc.Key, &d.ETHToken.Curve, value, crv.PackBuy(value, big.NewInt(1), deadline)); err != nil {
			t.Fatal(err)
		}
		for range gap {
			d.Mine()
		}
	}
	for d.Backend.Head().Number.Uint64() < uint64(blocks) {
		d.Mine()
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	rctx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- d.ServeRPC(rctx, ln) }()
	t.Cleanup(func() {
		stop()
		if err := <-done; err != nil {
			t.Errorf("ServeRPC: %v", err)
		}
	})
	return d, "http://" + ln.Addr().String()
}

// dial returns a client of url, closed with the test.
func dial(t testing.TB, url string) *ethclient.Client {
	t.Helper()
	c, err := ethclient.Dial(url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

// indexed is what an indexer stored: every token and its trades.
type indexed struct {
	Cursor market.Cursor
	Tokens []market.Token
	Trades map[string][]market.Trade
}

// indexing is what an indexer of d's chain through client needs: the chain and a new store
// (SQLite in a file), closed with the test.
func indexing(t testing.TB, d *devnet.Devnet, client evm.Client) (*evm.Chain, *bunstore.DB) {
	t.Helper()
	chain, err := evm.New(evm.Config{Client: client, Factory: d.Addrs.Factory, Router: d.Addrs.Router})
	if err != nil {
		t.Fatal(err)
	}
	db, err := bunstore.Open(context.Background(), bunstore.Config{DSN: filepath.Join(t.TempDir(), "index.db")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return chain, db
}

// catchUp indexes d's chain through client into a new store until it reaches the head, retrying
// failed syncs, and returns what it stored, the indexer's status and how long it took.
func catchUp(t testing.TB, d *devnet.Devnet, client evm.Client, batch uint64, log *slog.Logger) (indexed, market.IndexerStatus, time.Duration) {
	t.Helper()
	ctx := context.Background()
	chain, db := indexing(t, d, client)
	start := time.Now()
	ix, err := market.NewIndexer(ctx, market.IndexerConfig{Chain: chain, Store: db.Market(), BatchBlocks: batch, Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	head := d.Backend.Head().Number.Uint64()
	for tries := 0; ; tries++ {
		cur, err := ix.Sync(ctx)
		if err == nil && cur.Block >= head {
			break
		}
		if tries > 10_000 {
			t.Fatalf("the indexer never caught up: at %d of %d: %v", cur.Block, head, err)
		}
	}
	took := time.Since(start)
	out := indexed{Trades: map[string][]market.Trade{}}
	s := db.Market()
	if out.Cursor, err = s.Cursor(ctx); err != nil {
		t.Fatal(err)
	}
	page, err := s.Tokens(ctx, market.TokenQuery{Sort: market.SortNewest, Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	out.Tokens = page.Tokens
	for _, tok := range out.Tokens {
		q := market.TradeQuery{Token: tok.Address, Limit: 100}
		for {
			p, err := s.Trades(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			out.Trades[tok.Symbol] = append(out.Trades[tok.Symbol], p.Trades...)
			if p.Next == "" {
				break
			}
			q.Cursor = p.Next
		}
	}
	return out, ix.Status(), took
}

// logCounter counts the log records whose message contains any of its words.
type logCounter struct {
	slog.Handler
	words []string
	hits  *[]string
}

func (h logCounter) Handle(ctx context.Context, r slog.Record) error {
	for _, w := range h.words {
		if strings.Contains(r.Message, w) {
			*h.hits = append(*h.hits, r.Message)
		}
	}
	return nil
}

func (h logCounter) Enabled(context.Context, slog.Level) bool { return true }

// TestIndexerThroughProviderFaults indexes the same chain twice: straight from the node, and
// through a pool of two endpoints behind the fault proxy, one with range and result caps, bursts
// of 429, latency and connections cut mid-answer, the other 20 blocks behind and cutting
// connections too. Both stores end equal, trade by trade and field by field; the lagging
// endpoint causes no rollback.
func TestIndexerThroughProviderFaults(t *testing.T) {
	t.Parallel()
	d, url := tradedChain(t, 60, 600)
	want, _, _ := catchUp(t, d, dial(t, url), 2_000, slog.New(slog.DiscardHandler))
	if n := len(want.Trades["DETH"]); n < 60 {
		t.Fatalf("the reference run indexed %d DETH trades, want at least 60", n)
	}

	capped := rpcfault.New(rpcfault.Config{Upstream: url, RangeCap: 50, ResultCap: 3, BurstEvery: 9, BurstLen: 2,
		Latency: time.Millisecond, DropEvery: 13})
	lagging := rpcfault.New(rpcfault.Config{Upstream: url, Lag: 20, DropEvery: 17})
	a, b := httptest.NewServer(capped), httptest.NewServer(lagging)
	defer a.Close()
	defer b.Close()
	var hits []string
	log := slog.New(logCounter{words: []string{"reorganized", "rolled back", "afresh"}, hits: &hits})
	pool, err := evm.NewPool(evm.PoolConfig{
		Endpoints: []evm.Endpoint{{Name: "lagging", Client: dial(t, b.URL)}, {Name: "capped", Client: dial(t, a.URL)}},
		Backoff:   5 * time.Millisecond, MaxBackoff: 50 * time.Millisecond, Logger: slog.New(slog.DiscardHandler),
	})
	if err != nil {
		t.Fatal(err)
	}
	got, st, _ := catchUp(t, d, pool, 2_000, log)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("indexed through faults (-straight +through faults):\n%s", diff)
	}
	if len(hits) > 0 || st.Resets > 0 {
		t.Fatalf("the lagging endpoint was taken for a reorganization: %q, resets %d", hits, st.Resets)
	}
	for kind, proxy := range map[string]*rpcfault.Proxy{"range": capped, "results": capped, "429": capped, "drop": capped} {
		if proxy.Counts()[kind] == 0 {
			t.Errorf("no %s fault was injected: %v", kind, proxy.Counts())
		}
	}
	// The lagging endpoint served calls (some cut), but none beyond its head.
	if c := lagging.Counts(); c["drop"] == 0 || c["lag"] != 0 {
		t.Errorf("the lagging endpoint: %v, want calls served and none past its head", c)
	}
	t.Logf("faults: capped %v, lagging %v", capped.Counts(), lagging.Counts())
}

// TestIndexerCatchUpRate measures the indexer's catch-up over CURVEKIT_CATCHUP_BLOCKS blocks
// (default 50,000) through the fault proxy with a 2,000-block eth_getLogs cap against no cap,
// and the failover between two endpoints when the first stops. It only reports (timing is not
// asserted); it runs when CURVEKIT_CATCHUP_BLOCKS is set.
func TestIndexerCatchUpRate(t *testing.T) {
	blocks, _ := strconv.Atoi(os.Getenv("CURVEKIT_CATCHUP_BLOCKS"))
	if blocks == 0 {
		t.Skip("set CURVEKIT_CATCHUP_BLOCKS (e.g. 50000) to measure")
	}
	trades := max(blocks/250, 1)
	start := time.Now()
	d, url := tradedChain(t, trades, blocks)
	t.Logf("chain: %d blocks, %d trades, built in %s", blocks, trades, time.Since(start).Round(time.Millisecond))
	for _, c := range []struct {
		name  string
		cap   uint64
		batch uint64
	}{{"no cap, batches of 10,000", 0, 10_000}, {"2,000-block cap, batches of 10,000", 2_000, 10_000}, {"2,000-block cap, batches of 2,000", 2_000, 2_000}} {
		proxy := rpcfault.New(rpcfault.Config{Upstream: url, RangeCap: c.cap})
		srv := httptest.NewServer(proxy)
		got, st, took := catchUp(t, d, dial(t, srv.URL), c.batch, slog.New(slog.DiscardHandler))
		srv.Close()
		n := 0
		for _, trs := range got.Trades {
			n += len(trs)
		}
		t.Logf("%s: %d blocks, %d trades in %s: %.0f blocks/s, %.0f trades/s (refusals %d)", c.name, st.Blocks, n,
			took.Round(time.Millisecond), float64(st.Blocks)/took.Seconds(), float64(n)/took.Seconds(), proxy.Counts()["range"])
	}

	// Failover: the first endpoint stops; the next call goes to the second.
	first, second := httptest.NewServer(rpcfault.New(rpcfault.Config{Upstream: url})), httptest.NewServer(rpcfault.New(rpcfault.Config{Upstream: url}))
	defer second.Close()
	pool, err := evm.NewPool(evm.PoolConfig{Endpoints: []evm.Endpoint{{Name: "first", Client: dial(t, first.URL)}, {Name: "second", Client: dial(t, second.URL)}},
		Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := pool.ChainID(ctx); err != nil {
		t.Fatal(err)
	}
	first.CloseClientConnections()
	first.Close()
	var worst, total time.Duration
	const calls = 20
	for i := range calls {
		s := time.Now()
		if _, err := pool.HeaderByNumber(ctx, big.NewInt(int64(i+1))); err != nil {
			t.Fatal(err)
		}
		took := time.Since(s)
		worst, total = max(worst, took), total+took
		if i == 0 {
			t.Logf("failover: the first call after the first endpoint stopped took %s", took.Round(time.Microsecond))
		}
	}
	t.Logf("failover: %d calls after it, mean %s, worst %s", calls, (total / calls).Round(time.Microsecond), worst.Round(time.Microsecond))
}
