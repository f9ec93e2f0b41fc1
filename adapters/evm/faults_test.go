package evm_test

import (
	"context"
	"errors"
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

	"github.com/curvekit/curvekit"
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
	return stored(t, db.Market()), ix.Status(), took
}

// stored reads what an indexer stored in s: every token and its trades.
func stored(t testing.TB, s market.Store) indexed {
	t.Helper()
	ctx := context.Background()
	out := indexed{Trades: map[string][]market.Trade{}}
	var err error
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
	return out
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
	// The lagging endpoint served calls (some cut), and no call or log range past its head. A
	// header beyond its head may be asked of it ("lag-header"), when no endpoint free to ask has
	// the block: the capped one paused after a burst of 429s or cut connections, which the load's
	// timing decides (Pool.call: "a header is asked for all the same"); its null then costs no
	// rollback, as the equal stores and the empty log show.
	if c := lagging.Counts(); c["drop"] == 0 || c["lag"] != 0 {
		t.Errorf("the lagging endpoint: %v, want calls served and no call past its head", c)
	}
	t.Logf("faults: capped %v, lagging %v", capped.Counts(), lagging.Counts())
}

// Through a pool, a provider's head that drops back is a node behind, not a shorter chain: a block
// the pool saw the chain reach is unavailable (not reached yet), never "not found", however often
// it is asked, and is served again once the head is back.
func TestPoolWaitsForAHeadThatDropsBack(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d, url := tradedChain(t, 1, 40)
	proxy := rpcfault.New(rpcfault.Config{Upstream: url})
	srv := httptest.NewServer(proxy)
	defer srv.Close()
	pool, err := evm.NewPool(evm.PoolConfig{Endpoints: []evm.Endpoint{{Name: "provider", Client: dial(t, srv.URL)}},
		Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	chain, err := evm.New(evm.Config{Client: pool, Factory: d.Addrs.Factory, Router: d.Addrs.Router})
	if err != nil {
		t.Fatal(err)
	}
	head, err := chain.Head(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if b, err := chain.Block(ctx, head.Number); err != nil || b.Hash != head.Hash {
		t.Fatalf("the head's block: %+v %v", b, err)
	}
	proxy.DropBack(10)
	for i := range 3 {
		if _, err := chain.Block(ctx, head.Number); !errors.Is(err, curvekit.ErrUnavailable) || errors.Is(err, curvekit.ErrNotFound) {
			t.Errorf("read %d of block %d with the head 10 blocks back: %v, want an error matching ErrUnavailable only", i+1, head.Number, err)
		}
	}
	if h, err := chain.Head(ctx); err != nil || h.Number != head.Number-10 {
		t.Errorf("the head dropped back: %+v %v, want block %d", h, err, head.Number-10)
	}
	proxy.DropBack(0)
	if b, err := chain.Block(ctx, head.Number); err != nil || b.Hash != head.Hash {
		t.Errorf("block %d with the head back: %+v %v", head.Number, b, err)
	}
}

// A provider whose head drops back 20 blocks (a load balancer whose backends stand at different
// heights) serves a node that is behind, not a chain that reorganized: the indexer rolls nothing
// back and waits, running or restarted (a short stored history included), while the chain goes
// on; once the head is back it indexes on, and its store ends equal to one indexed straight from
// the node.
func TestIndexerWaitsForAHeadThatDropsBack(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d, url := tradedChain(t, 30, 120)
	proxy := rpcfault.New(rpcfault.Config{Upstream: url})
	srv := httptest.NewServer(proxy)
	defer srv.Close()
	var hits []string
	log := slog.New(logCounter{words: []string{"reorganized", "rolled back", "afresh"}, hits: &hits})
	// indexer is a server's indexer of the store through a pool of the one provider, as the
	// server builds it: a new one is a restarted server.
	indexer := func(store market.Store, batch uint64) *market.Indexer {
		pool, err := evm.NewPool(evm.PoolConfig{Endpoints: []evm.Endpoint{{Name: "provider", Client: dial(t, srv.URL)}},
			Logger: slog.New(slog.DiscardHandler)})
		if err != nil {
			t.Fatal(err)
		}
		chain, err := evm.New(evm.Config{Client: pool, Factory: d.Addrs.Factory, Router: d.Addrs.Router})
		if err != nil {
			t.Fatal(err)
		}
		ix, err := market.NewIndexer(ctx, market.IndexerConfig{Chain: chain, Store: store, BatchBlocks: batch, Logger: log})
		if err != nil {
			t.Fatal(err)
		}
		return ix
	}
	// Two stores: one that recorded a cursor every 10 blocks, one that recorded only the head
	// (a short history: none of its cursors is at or below the head that dropped back).
	_, long := indexing(t, d, dial(t, url))
	_, short := indexing(t, d, dial(t, url))
	running := indexer(long.Market(), 10)
	head := d.Backend.Head().Number.Uint64()
	if cur, err := running.Sync(ctx); err != nil || cur.Block != head {
		t.Fatalf("first sync: %+v %v, want block %d", cur, err, head)
	}
	if cur, err := indexer(short.Market(), 2_000).Sync(ctx); err != nil || cur.Block != head {
		t.Fatalf("first sync of the short store: %+v %v, want block %d", cur, err, head)
	}
	before := stored(t, long.Market())

	proxy.DropBack(20)
	// The chain goes on meanwhile: a trade above the indexed blocks.
	deadline, err := d.Deadline(ctx, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	value := big.NewInt(3e15)
	if _, err := d.Send(ctx, d.Accounts[1].Key, &d.ETHToken.Curve, value, bindings.NewBondingCurve().PackBuy(value, big.NewInt(1), deadline)); err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]struct {
		ix *market.Indexer
		db *bunstore.DB
	}{"running": {running, long}, "restarted": {indexer(long.Market(), 10), long}, "restarted on a short history": {indexer(short.Market(), 2_000), short}} {
		for i := range 3 {
			cur, err := c.ix.Sync(ctx)
			if err == nil || !errors.Is(err, curvekit.ErrUnavailable) || cur.Block != head {
				t.Errorf("%s: sync %d with the head dropped back: %+v %v, want block %d and an error matching ErrUnavailable", name, i+1, cur, err, head)
			}
		}
		if cur, err := c.db.Market().Cursor(ctx); err != nil || cur.Block != head {
			t.Errorf("%s: the store's cursor %+v %v, want block %d", name, cur, err, head)
		}
	}
	if diff := cmp.Diff(before, stored(t, long.Market())); diff != "" {
		t.Errorf("the store changed while the head stood back (-before +after):\n%s", diff)
	}
	if len(hits) > 0 {
		t.Errorf("the head that dropped back was taken for a reorganization: %q", hits)
	}
	if c := proxy.Counts(); c["lag"]+c["lag-header"] == 0 {
		t.Errorf("the proxy never answered from the lower head: %v", c)
	}

	proxy.DropBack(0)
	want, _, _ := catchUp(t, d, dial(t, url), 2_000, slog.New(slog.DiscardHandler))
	for name, c := range map[string]struct {
		ix *market.Indexer
		db *bunstore.DB
	}{"running": {running, long}, "short": {indexer(short.Market(), 2_000), short}} {
		if _, err := c.ix.Sync(ctx); err != nil {
			t.Fatalf("%s: sync with the head back: %v", name, err)
		}
		if diff := cmp.Diff(want, stored(t, c.db.Market())); diff != "" {
			t.Errorf("%s: indexed across the drop (-straight +across):\n%s", name, diff)
		}
	}
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

// One endpoint down and the other 20 blocks behind the indexed block: the pool says so once
// ("failing; using the others"), and the syncs that wait for the lagging one are no outage: no
// "unavailable"/"recovered" pair is logged at every retry of the dead endpoint.
func TestPoolLogsADeadAndALaggingEndpointOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d, url := tradedChain(t, 10, 60)
	lagging := httptest.NewServer(rpcfault.New(rpcfault.Config{Upstream: url, Lag: 20}))
	defer lagging.Close()
	dead := httptest.NewServer(rpcfault.New(rpcfault.Config{Upstream: url}))
	deadURL := dead.URL
	var lines []string
	poolLog := slog.New(logCounter{words: []string{"unavailable", "recovered", "failing", "answers again"}, hits: &lines})
	pool, err := evm.NewPool(evm.PoolConfig{
		Endpoints: []evm.Endpoint{{Name: "dead", Client: dial(t, deadURL)}, {Name: "lagging", Client: dial(t, lagging.URL)}},
		Backoff:   time.Millisecond, MaxBackoff: 2 * time.Millisecond, Logger: poolLog,
	})
	if err != nil {
		t.Fatal(err)
	}
	chain, db := indexing(t, d, pool)
	ix, err := market.NewIndexer(ctx, market.IndexerConfig{Chain: chain, Store: db.Market(), Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	head := d.Backend.Head().Number.Uint64()
	if cur, err := ix.Sync(ctx); err != nil || cur.Block != head {
		t.Fatalf("first sync: %+v %v", cur, err)
	}
	dead.CloseClientConnections()
	dead.Close()
	for i := range 10 {
		time.Sleep(5 * time.Millisecond) // the dead endpoint's pause ends: it is asked again
		if _, err := ix.Sync(ctx); !errors.Is(err, curvekit.ErrUnavailable) {
			t.Fatalf("sync %d: %v, want an error matching ErrUnavailable", i+1, err)
		}
	}
	want := []string{"chain endpoint failing; using the others"}
	if diff := cmp.Diff(want, lines); diff != "" {
		t.Errorf("the pool's log (-want +got):\n%s", diff)
	}
}

// A provider that refuses wide eth_getLogs ranges in words no table knows ("block range is too
// wide") is answered by narrower ranges, as one whose words are known: the store ends equal to
// one indexed straight from the node.
func TestIndexerNarrowsARefusalInUnknownWords(t *testing.T) {
	t.Parallel()
	d, url := tradedChain(t, 20, 300)
	want, _, _ := catchUp(t, d, dial(t, url), 2_000, slog.New(slog.DiscardHandler))
	proxy := rpcfault.New(rpcfault.Config{Upstream: url, RangeCap: 40, RangeRefusal: "block range is too wide"})
	srv := httptest.NewServer(proxy)
	defer srv.Close()
	got, _, _ := catchUp(t, d, dial(t, srv.URL), 2_000, slog.New(slog.DiscardHandler))
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("indexed through refusals in unknown words (-straight +through):\n%s", diff)
	}
	if proxy.Counts()["range"] == 0 {
		t.Fatalf("no range was refused: %v", proxy.Counts())
	}
}
