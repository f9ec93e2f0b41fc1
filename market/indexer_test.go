package market_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/big"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/holiman/uint256"

	"github.com/curvekit/curvekit"
	"github.com/curvekit/curvekit/adapters/bunstore"
	"github.com/curvekit/curvekit/adapters/evm"
	"github.com/curvekit/curvekit/adapters/evm/devnet"
	"github.com/curvekit/curvekit/contracts/bindings"
	"github.com/curvekit/curvekit/market"
	"github.com/curvekit/curvekit/txbuild"
)

// world is a devnet followed by an indexer into a SQLite store.
type world struct {
	t       *testing.T
	ctx     context.Context
	dev     *devnet.Devnet
	chain   *evm.Chain
	store   *bunstore.Market
	db      *bunstore.DB
	ix      *market.Indexer
	builder *txbuild.Builder
}

func newWorld(t *testing.T, dsn string) *world {
	t.Helper()
	ctx := context.Background()
	dev, err := devnet.Start(devnet.Config{Accounts: 6})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { dev.Close() })
	chain, err := evm.New(evm.Config{Client: dev.Client, Factory: dev.Addrs.Factory, Router: dev.Addrs.Router})
	if err != nil {
		t.Fatal(err)
	}
	if dsn == "" {
		dsn = filepath.Join(t.TempDir(), "market.db")
	}
	db, err := bunstore.Open(ctx, bunstore.Config{DSN: dsn})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	store := db.Market()
	ix, err := market.NewIndexer(ctx, market.IndexerConfig{Chain: chain, Store: store, BatchBlocks: 7, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	b, err := txbuild.New(txbuild.Config{
		ChainID: dev.ChainID.Uint64(), Factory: dev.Addrs.Factory, Router: dev.Addrs.Router, WETH: dev.Addrs.WETH,
		Now: func() time.Time {
			h, err := chain.Head(ctx)
			if err != nil {
				t.Fatal(err)
			}
			return time.Unix(h.Time, 0)
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	return &world{t: t, ctx: ctx, dev: dev, chain: chain, store: store, db: db, ix: ix, builder: b}
}

func (w *world) sync() {
	w.t.Helper()
	if _, err := w.ix.Sync(w.ctx); err != nil {
		w.t.Fatal(err)
	}
}

// trade builds an exact-input trade from the indexed state and sends it.
func (w *world) trade(acc devnet.Account, tokenAddr common.Address, side curvekit.Side, amount *uint256.Int) {
	w.t.Helper()
	tok, err := w.store.Token(w.ctx, tokenAddr)
	if err != nil {
		w.t.Fatal(err)
	}
	m := tok.Market()
	_, plan, err := w.builder.Trade(&m, txbuild.Trade{Side: side, Amount: *amount, SlippageBps: 100, From: acc.Address})
	if err != nil {
		w.t.Fatal(err)
	}
	for _, tx := range []*txbuild.Tx{plan.Approval, &plan.Tx} {
		if tx == nil {
			continue
		}
		to := tx.To
		if _, err := w.dev.Send(w.ctx, acc.Key, &to, tx.Value.ToBig(), tx.Data); err != nil {
			w.t.Fatalf("%s %s: %v", side, amount.Dec(), err)
		}
	}
}

// checkAgainstChain compares every indexed token's state with the contracts' own.
func (w *world) checkAgainstChain() {
	w.t.Helper()
	page, err := w.store.Tokens(w.ctx, market.TokenQuery{Sort: market.SortNewest, Limit: 100})
	if err != nil {
		w.t.Fatal(err)
	}
	for _, tok := range page.Tokens {
		st, err := w.chain.CurveState(w.ctx, tok.Curve)
		if err != nil {
			w.t.Fatal(err)
		}
		if diff := cmp.Diff(st, tok.State); diff != "" {
			w.t.Errorf("%s curve state (-chain +store):\n%s", tok.Symbol, diff)
		}
		if !st.Graduated {
			continue
		}
		quote := tok.Quote.Address
		if quote == (common.Address{}) {
			quote = w.dev.Addrs.WETH
		}
		rq, rt, err := w.chain.PoolReserves(w.ctx, tok.Pool, quote)
		if err != nil {
			w.t.Fatal(err)
		}
		if !rq.Eq(&tok.PoolReserveQuote) || !rt.Eq(&tok.PoolReserveToken) {
			w.t.Errorf("%s pool reserves: chain %s/%s, store %s/%s", tok.Symbol, rq.Dec(), rt.Dec(), tok.PoolReserveQuote.Dec(), tok.PoolReserveToken.Dec())
		}
	}
}

func TestIndexerFollowsTheDevnet(t *testing.T) {
	t.Parallel()
	w := newWorld(t, "")
	w.sync()
	page, err := w.store.Tokens(w.ctx, market.TokenQuery{Sort: market.SortNewest, Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]market.Phase{}
	for _, tok := range page.Tokens {
		got[tok.Symbol] = tok.Phase()
	}
	if diff := cmp.Diff(map[string]market.Phase{"DETH": market.PhaseCurve, "DUSD": market.PhaseCurve, "GRAD": market.PhaseGraduated}, got); diff != "" {
		t.Fatalf("indexed tokens (-want +got):\n%s", diff)
	}
	w.checkAgainstChain()

	// Trades on both curves and on the graduated pool, in both directions.
	trader := w.dev.Accounts[4]
	ether := uint256.NewInt(1e17)
	usd := uint256.NewInt(25_000_000) // 25 TUSD
	w.trade(trader, w.dev.ETHToken.Token, curvekit.Buy, ether)
	w.trade(trader, w.dev.USDToken.Token, curvekit.Buy, usd)
	w.trade(trader, w.dev.GraduatedToken.Token, curvekit.Buy, ether)
	w.sync()
	held, err := w.chain.Balance(w.ctx, w.dev.GraduatedToken.Token, trader.Address)
	if err != nil {
		t.Fatal(err)
	}
	half := new(uint256.Int).Div(&held, uint256.NewInt(2))
	w.trade(trader, w.dev.GraduatedToken.Token, curvekit.Sell, half)
	held, err = w.chain.Balance(w.ctx, w.dev.USDToken.Token, trader.Address)
	if err != nil {
		t.Fatal(err)
	}
	w.trade(trader, w.dev.USDToken.Token, curvekit.Sell, &held)
	w.sync()
	w.checkAgainstChain()

	trades, err := w.store.Trades(w.ctx, market.TradeQuery{Token: w.dev.GraduatedToken.Token, Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	var venues []string
	for _, tr := range trades.Trades {
		venues = append(venues, string(tr.Side)+"@"+string(tr.Venue))
	}
	// Newest first: the pool sell, the pool buy, then the launch's crossing buy and first buy.
	if diff := cmp.Diff([]string{"sell@pool", "buy@pool", "buy@curve", "buy@curve"}, venues); diff != "" {
		t.Fatalf("GRAD trades (-want +got):\n%s", diff)
	}
	if trades.Trades[0].Trader != trader.Address || trades.Trades[0].Recipient != trader.Address || !trades.Trades[0].TokenAmount.Eq(half) {
		t.Fatalf("pool sell recorded as %+v", trades.Trades[0])
	}

	// Indexing the same blocks again (a crash before the cursor moved) changes nothing.
	before, err := w.store.Trades(w.ctx, market.TradeQuery{Token: w.dev.USDToken.Token, Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	ix2, err := market.NewIndexer(w.ctx, market.IndexerConfig{Chain: w.chain, Store: w.store, BatchBlocks: 3})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.store.Reset(w.ctx); err != nil {
		t.Fatal(err)
	}
	ix2, err = market.NewIndexer(w.ctx, market.IndexerConfig{Chain: w.chain, Store: w.store, BatchBlocks: 3})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ix2.Sync(w.ctx); err != nil {
		t.Fatal(err)
	}
	after, err := w.store.Trades(w.ctx, market.TradeQuery{Token: w.dev.USDToken.Token, Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(before, after); diff != "" {
		t.Fatalf("re-index differs (-first +second):\n%s", diff)
	}
	w.checkAgainstChain()
}

func TestIndexerRefusesAnotherChain(t *testing.T) {
	t.Parallel()
	dsn := filepath.Join(t.TempDir(), "shared.db")
	a := newWorld(t, dsn)
	a.sync()
	a.db.Close()

	other, err := devnet.Start(devnet.Config{Accounts: 4})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	// A second devnet has another genesis: its chain id and factory may match, the chain does not.
	chain, err := evm.New(evm.Config{Client: other.Client, Factory: other.Addrs.Factory})
	if err != nil {
		t.Fatal(err)
	}
	db, err := bunstore.Open(a.ctx, bunstore.Config{DSN: dsn})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	store := db.Market()
	if _, err := market.NewIndexer(a.ctx, market.IndexerConfig{Chain: chain, Store: store}); !errors.Is(err, market.ErrChainMismatch) {
		t.Fatalf("another chain: %v, want ErrChainMismatch", err)
	}
	ix, err := market.NewIndexer(a.ctx, market.IndexerConfig{Chain: chain, Store: store, ResetOnChainChange: true})
	if err != nil {
		t.Fatalf("a new devnet must start a fresh store: %v", err)
	}
	if _, err := ix.Sync(a.ctx); err != nil {
		t.Fatal(err)
	}
	tok, err := store.Token(a.ctx, other.ETHToken.Token)
	if err != nil || tok.Symbol != "DETH" {
		t.Fatalf("fresh store: %+v, %v", tok, err)
	}
}

// logLine is one captured log record.
type logLine struct {
	Level slog.Level
	Msg   string
	Attrs map[string]string
}

// logTape captures log records, for tests of what the indexer says and how often.
type logTape struct {
	mu    sync.Mutex
	lines []logLine
}

func (l *logTape) Enabled(context.Context, slog.Level) bool { return true }
func (l *logTape) WithAttrs([]slog.Attr) slog.Handler       { return l }
func (l *logTape) WithGroup(string) slog.Handler            { return l }
func (l *logTape) Handle(_ context.Context, r slog.Record) error {
	line := logLine{Level: r.Level, Msg: r.Message, Attrs: map[string]string{}}
	r.Attrs(func(a slog.Attr) bool {
		line.Attrs[a.Key] = a.Value.String()
		return true
	})
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, line)
	return nil
}

// take returns the lines logged since the last take.
func (l *logTape) take() []logLine {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := l.lines
	l.lines = nil
	return out
}

func msgs(lines []logLine) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = l.Level.String() + " " + l.Msg
	}
	return out
}

// TestIndexerStartsAfreshOnANewChainWithTheSameGenesis is the quickstart's second run without
// the devnet's directory: a new devnet has the same chain id, genesis and factory as the one the
// store indexed, so only the blocks tell them apart.
func TestIndexerStartsAfreshOnANewChainWithTheSameGenesis(t *testing.T) {
	t.Parallel()
	old := newWorld(t, "")
	old.sync()
	old.trade(old.dev.Accounts[4], old.dev.ETHToken.Token, curvekit.Buy, uint256.NewInt(2e17))
	old.trade(old.dev.Accounts[4], old.dev.USDToken.Token, curvekit.Buy, uint256.NewInt(30_000_000))
	old.sync()

	fresh := newWorld(t, "")
	oldInfo, err := old.chain.Info(old.ctx)
	if err != nil {
		t.Fatal(err)
	}
	newInfo, err := fresh.chain.Info(fresh.ctx)
	if err != nil {
		t.Fatal(err)
	}
	if oldInfo != newInfo {
		t.Fatalf("the two devnets differ in identity (%+v, %+v): this test needs the same one", oldInfo, newInfo)
	}

	// Without ResetOnChainChange the store is refused, with the chain-mismatch error, each time.
	tape := &logTape{}
	ix, err := market.NewIndexer(old.ctx, market.IndexerConfig{Chain: fresh.chain, Store: old.store, Logger: slog.New(tape)})
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if _, err := ix.Sync(old.ctx); !errors.Is(err, market.ErrChainMismatch) {
			t.Fatalf("sync on a new chain: %v, want ErrChainMismatch", err)
		}
	}
	if diff := cmp.Diff([]string{"ERROR indexer sync failed"}, msgs(tape.take())); diff != "" {
		t.Fatalf("log of three failed syncs (-want +got):\n%s", diff)
	}

	// With it, NewIndexer empties the store before returning, saying so once, and reports the
	// old tokens so that caches and streams drop them.
	var reorged []common.Address
	ix, err = market.NewIndexer(old.ctx, market.IndexerConfig{
		Chain: fresh.chain, Store: old.store, ResetOnChainChange: true, Logger: slog.New(tape),
		OnSync: func(s market.Sync) { reorged = append(reorged, s.Reorged...) },
	})
	if err != nil {
		t.Fatal(err)
	}
	lines := tape.take()
	if len(lines) != 1 || lines[0].Level != slog.LevelWarn || !strings.Contains(lines[0].Msg, "new chain; starting afresh") {
		t.Fatalf("log of the reset: %+v, want one warning", lines)
	}
	if got := dumpStore(t, old.store); got.Cursor != (market.Cursor{}) || len(got.Tokens) != 0 {
		t.Fatalf("store after the reset still holds cursor %+v and %d tokens", got.Cursor, len(got.Tokens))
	}
	if len(reorged) != 3 {
		t.Fatalf("reset reported %v, want the 3 old tokens", reorged)
	}
	if st := ix.Status(); st.Resets != 1 || st.Indexed != 0 {
		t.Fatalf("status after the reset: %+v", st)
	}

	// Then it follows the new chain like a fresh store, and says nothing more about the reset.
	if _, err := ix.Sync(old.ctx); err != nil {
		t.Fatal(err)
	}
	fresh.sync()
	fresh.trade(fresh.dev.Accounts[5], fresh.dev.GraduatedToken.Token, curvekit.Buy, uint256.NewInt(1e17))
	for range 2 {
		if _, err := ix.Sync(old.ctx); err != nil {
			t.Fatal(err)
		}
	}
	fresh.sync()
	if diff := cmp.Diff(dumpStore(t, fresh.store), dumpStore(t, old.store)); diff != "" {
		t.Fatalf("reset store differs from a fresh index of the new chain (-fresh +reset):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"INFO indexer following the chain"}, msgs(tape.take())); diff != "" {
		t.Fatalf("log after the reset (-want +got):\n%s", diff)
	}
	if ix.Status().Resets != 1 {
		t.Fatalf("resets: %d, want 1", ix.Status().Resets)
	}
}

var errInjected = errors.New("injected chain outage")

// flakyChain fails Head while down is set, as a provider that throttles while throttled is.
type flakyChain struct {
	market.Chain
	down, throttled *atomic.Bool
}

func (c flakyChain) Head(ctx context.Context) (market.BlockRef, error) {
	if c.throttled != nil && c.throttled.Load() {
		return market.BlockRef{}, fmt.Errorf("%w: %w", curvekit.ErrThrottled, errInjected)
	}
	if c.down.Load() {
		return market.BlockRef{}, errInjected
	}
	return c.Chain.Head(ctx)
}

// TestIndexerStatusAndProgress follows Status and the log through catching up, lag, an outage
// and the recovery, on a clock the test moves.
func TestIndexerStatusAndProgress(t *testing.T) {
	t.Parallel()
	w := newWorld(t, "")
	w.sync()
	tape := &logTape{}
	now := time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	down, throttled := &atomic.Bool{}, &atomic.Bool{}
	db, err := bunstore.Open(w.ctx, bunstore.Config{DSN: filepath.Join(t.TempDir(), "status.db")})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ix, err := market.NewIndexer(w.ctx, market.IndexerConfig{
		Chain: flakyChain{Chain: w.chain, down: down, throttled: throttled}, Store: db.Market(), Confirmations: 2, BatchBlocks: 4,
		Now: clock, Logger: slog.New(tape),
	})
	if err != nil {
		t.Fatal(err)
	}
	// Readers poll Status while Syncs run (the race detector checks them).
	stop := make(chan struct{})
	var readers sync.WaitGroup
	readers.Add(1)
	go func() {
		defer readers.Done()
		for {
			select {
			case <-stop:
				return
			default:
				_ = ix.Status().Check(2)
			}
		}
	}()
	defer func() { close(stop); readers.Wait() }()

	if err := ix.Status().Check(100); err == nil || !strings.Contains(err.Error(), "not synced") {
		t.Fatalf("check before the first sync: %v", err)
	}
	step := func() {
		t.Helper()
		if _, err := ix.Sync(w.ctx); err != nil {
			t.Fatal(err)
		}
	}
	step()
	head, err := w.chain.Head(w.ctx)
	if err != nil {
		t.Fatal(err)
	}
	st := ix.Status()
	stored := 0
	for _, trades := range dumpStore(t, db.Market()).Trades {
		stored += len(trades)
	}
	want := market.IndexerStatus{Head: head.Number, Indexed: head.Number - 2, Lag: 2, LastSync: now, Blocks: head.Number - 1, Trades: uint64(stored)}
	if diff := cmp.Diff(want, st, cmpopts.EquateErrors()); diff != "" {
		t.Fatalf("status after catching up (-want +got):\n%s", diff)
	}
	if err := st.Check(1); err == nil || !strings.Contains(err.Error(), "2 blocks behind") {
		t.Fatalf("check with 1 block allowed: %v", err)
	}
	if err := st.Check(2); err != nil {
		t.Fatalf("check with 2 blocks allowed: %v", err)
	}
	if diff := cmp.Diff([]string{"INFO indexer following the chain"}, msgs(tape.take())); diff != "" {
		t.Fatalf("log of the first sync (-want +got):\n%s", diff)
	}

	// Progress is logged once per interval, whatever the number of syncs in between.
	trader := w.dev.Accounts[4]
	for range 3 {
		w.trade(trader, w.dev.ETHToken.Token, curvekit.Buy, uint256.NewInt(1e16))
		now = now.Add(9 * time.Second)
		step()
		w.sync()
	}
	if lines := tape.take(); len(lines) != 0 {
		t.Fatalf("logged within the progress interval: %v", msgs(lines))
	}
	w.dev.Mine()
	w.dev.Mine() // the last trade is now past the confirmations
	now = now.Add(3 * time.Second)
	step()
	lines := tape.take()
	if len(lines) != 1 || lines[0].Msg != "indexer progress" {
		t.Fatalf("log at the interval: %+v, want one progress line", lines)
	}
	st = ix.Status()
	// The three buys and what the confirmations held back at the first sync.
	if got := lines[0].Attrs; st.Trades-want.Trades < 3 || got["trades"] != fmt.Sprint(st.Trades-want.Trades) || got["blocks"] != fmt.Sprint(st.Blocks-want.Blocks) || got["lag"] != "2" || got["over"] != "30s" {
		t.Fatalf("progress line %v, status %+v", got, st)
	}

	// An outage: one error line, a reminder per interval, Status says since when (the first
	// failure of the run, not the latest) and why.
	down.Store(true)
	lastSync := st.LastSync
	first := now.Add(time.Second)
	for range 5 {
		now = now.Add(time.Second)
		if _, err := ix.Sync(w.ctx); !errors.Is(err, errInjected) {
			t.Fatalf("sync during the outage: %v", err)
		}
	}
	st = ix.Status()
	if st.Failures != 5 || !errors.Is(st.LastErr, errInjected) || !st.LastErrAt.Equal(now) || !st.LastSync.Equal(lastSync) ||
		!st.FailingSince.Equal(first) || st.Throttled {
		t.Fatalf("status during the outage: %+v", st)
	}
	if err := st.Check(100); err == nil || !strings.Contains(err.Error(), "failing since "+first.Format(time.RFC3339)+" (5 attempts)") {
		t.Fatalf("check during the outage: %v", err)
	}
	if diff := cmp.Diff([]string{"ERROR indexer sync failed"}, msgs(tape.take())); diff != "" {
		t.Fatalf("log of five failed syncs (-want +got):\n%s", diff)
	}
	now = now.Add(30 * time.Second)
	_, _ = ix.Sync(w.ctx)
	if diff := cmp.Diff([]string{"ERROR indexer still failing"}, msgs(tape.take())); diff != "" {
		t.Fatalf("log after an interval of failing (-want +got):\n%s", diff)
	}
	// The provider throttles: the same run of failures, said to be throttling.
	throttled.Store(true)
	now = now.Add(time.Second)
	_, _ = ix.Sync(w.ctx)
	throttled.Store(false)
	if st = ix.Status(); !st.Throttled || !st.FailingSince.Equal(first) || st.Failures != 7 {
		t.Fatalf("status while throttled: %+v", st)
	}
	if err := st.Check(100); err == nil || !strings.Contains(err.Error(), "indexer throttled by the chain's provider since "+first.Format(time.RFC3339)+" (7 attempts)") {
		t.Fatalf("check while throttled: %v", err)
	}

	// The chain falls behind no further: once back, the indexer catches up and says so.
	for range 5 {
		w.dev.Mine()
	}
	down.Store(false)
	now = now.Add(time.Second)
	step()
	st = ix.Status()
	if st.Failures != 0 || !st.LastSync.Equal(now) || !errors.Is(st.LastErr, errInjected) || st.Lag != 2 || !st.FailingSince.IsZero() || st.Throttled {
		t.Fatalf("status after the outage: %+v", st)
	}
	if err := st.Check(2); err != nil {
		t.Fatalf("check after the outage: %v", err)
	}
	// The progress line is due too: the last one was 36 s ago.
	lines = tape.take()
	if diff := cmp.Diff([]string{"INFO indexer recovered", "INFO indexer progress"}, msgs(lines)); diff != "" || lines[0].Attrs["failures"] != "7" || lines[1].Attrs["blocks"] != "5" {
		t.Fatalf("log of the recovery %+v (-want +got):\n%s", lines, diff)
	}
}

// TestIndexerContinuesARestartedDevnet is the quickstart's second run: the devnet kept in a
// directory beside the store continues its chain, so the store is neither reset nor refused and
// keeps everything it held.
func TestIndexerContinuesARestartedDevnet(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	dsn := filepath.Join(dir, "curvekit.db")
	tape := &logTape{}
	open := func() (*devnet.Devnet, *bunstore.DB, *market.Indexer) {
		t.Helper()
		dev, err := devnet.Start(devnet.Config{Accounts: 5, Dir: dsn + ".devnet"})
		if err != nil {
			t.Fatal(err)
		}
		chain, err := evm.New(evm.Config{Client: dev.Client, Factory: dev.Addrs.Factory, Router: dev.Addrs.Router})
		if err != nil {
			t.Fatal(err)
		}
		db, err := bunstore.Open(ctx, bunstore.Config{DSN: dsn})
		if err != nil {
			t.Fatal(err)
		}
		ix, err := market.NewIndexer(ctx, market.IndexerConfig{Chain: chain, Store: db.Market(), ResetOnChainChange: true, Logger: slog.New(tape)})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := ix.Sync(ctx); err != nil {
			t.Fatal(err)
		}
		return dev, db, ix
	}
	buy := func(dev *devnet.Devnet) {
		t.Helper()
		dl, err := dev.Deadline(ctx, time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		wei := big.NewInt(1e17)
		if _, err := dev.Send(ctx, dev.Accounts[4].Key, &dev.ETHToken.Curve, wei, bindings.NewBondingCurve().PackBuy(wei, big.NewInt(1), dl)); err != nil {
			t.Fatal(err)
		}
	}

	dev, db, ix := open()
	buy(dev)
	if _, err := ix.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	before := dumpStore(t, db.Market())
	db.Close()
	if err := dev.Close(); err != nil {
		t.Fatal(err)
	}
	tape.take()

	dev, db, ix = open()
	defer dev.Close()
	defer db.Close()
	if !dev.Resumed {
		t.Fatal("the devnet did not continue its chain")
	}
	if diff := cmp.Diff(before, dumpStore(t, db.Market())); diff != "" {
		t.Fatalf("store after the restart (-before +after):\n%s", diff)
	}
	if st := ix.Status(); st.Resets != 0 || st.Failures != 0 || st.Indexed != before.Cursor.Block {
		t.Fatalf("status after the restart: %+v", st)
	}
	if diff := cmp.Diff([]string{"INFO indexer following the chain"}, msgs(tape.take())); diff != "" {
		t.Fatalf("log of the restart (-want +got):\n%s", diff)
	}
	buy(dev)
	if _, err := ix.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	after := dumpStore(t, db.Market())
	if got, want := len(after.Trades[dev.ETHToken.Token]), len(before.Trades[dev.ETHToken.Token])+1; got != want {
		t.Fatalf("DETH trades after a buy on the restarted chain: %d, want %d", got, want)
	}
}
