package orders_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/google/go-cmp/cmp"
	"github.com/holiman/uint256"

	"github.com/curvekit/curvekit"
	"github.com/curvekit/curvekit/adapters/bunstore"
	"github.com/curvekit/curvekit/internal/pgtest"
	"github.com/curvekit/curvekit/market"
	. "github.com/curvekit/curvekit/orders"
)

// chainTrader stands for the custodial wallet on a chain: a trade is sent once per key (a
// second call with the key answers the first transaction, as sign-and-submit's idempotency
// does), and what was sent is kept in order.
type chainTrader struct {
	mu     sync.Mutex
	byKey  map[string]common.Hash
	sent   []TradeParams
	calls  int
	refuse error // when set, every trade is refused with it
	// outcomes are what became of sent transactions; absent, pending.
	outcomes map[common.Hash]Outcome
}

func (c *chainTrader) Outcome(_ context.Context, p OutcomeParams) (Outcome, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.outcomes[p.Hash], nil
}

func newChainTrader() *chainTrader {
	return &chainTrader{byKey: map[string]common.Hash{}, outcomes: map[common.Hash]Outcome{}}
}

func (c *chainTrader) Trade(_ context.Context, p TradeParams) (TradeResult, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.calls++
	if c.refuse != nil {
		return TradeResult{}, c.refuse
	}
	if h, ok := c.byKey[p.Key]; ok {
		return TradeResult{TxHash: h}, nil
	}
	h := common.BytesToHash([]byte(p.Key))
	c.byKey[p.Key] = h
	c.sent = append(c.sent, p)
	return TradeResult{TxHash: h}, nil
}

func (c *chainTrader) keys() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []string
	for _, p := range c.sent {
		out = append(out, p.Key)
	}
	return out
}

// tokens answers a token's price now: reserves whose spot price is the given value.
type tokens map[common.Address]uint64

func (ts tokens) Token(_ context.Context, addr common.Address) (market.Token, error) {
	p, ok := ts[addr]
	if !ok {
		return market.Token{}, curvekit.ErrNotFound
	}
	t := market.Token{Address: addr, Decimals: 18}
	t.State.VirtualQuote.SetUint64(p)
	t.State.VirtualToken = oneE36
	return t, nil
}

// oneE36 as a token reserve makes the scaled spot price equal to the quote reserve (18 decimals).
var oneE36 = func() uint256.Int {
	var v uint256.Int
	v.Exp(uint256.NewInt(10), uint256.NewInt(36))
	return v
}()

// trade is a trade of token whose price after it is price.
func trade(token common.Address, block uint64, log uint, price uint64) market.Trade {
	t := market.Trade{Token: token, Block: block, LogIndex: log, Side: curvekit.Buy, TxHash: common.BigToHash(uint256.NewInt(block*1000 + uint64(log)).ToBig())}
	t.ReserveQuote.SetUint64(price)
	t.ReserveToken = oneE36
	return t
}

func sync1(trades ...market.Trade) market.Sync {
	return market.Sync{Batch: &market.Batch{Trades: trades}}
}

type world struct {
	db     *bunstore.DB
	trader *chainTrader
	tokens tokens
	now    time.Time
}

func (w *world) engine(t *testing.T) *Engine {
	t.Helper()
	return w.engineWith(t, w.trader)
}

// engineWith is an engine whose wallet is trader.
func (w *world) engineWith(t *testing.T, trader Trader) *Engine {
	t.Helper()
	e, err := NewEngine(EngineConfig{Store: w.db.Orders(), Trader: trader, Tokens: w.tokens, Now: func() time.Time { return w.now },
		Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// engineOver is an engine on the world's wallet that catches up through h, as the server's does.
func (w *world) engineOver(t testing.TB, h History) *Engine {
	t.Helper()
	e, err := NewEngine(EngineConfig{Store: w.db.Orders(), Trader: w.trader, Tokens: w.tokens, History: h,
		Now: func() time.Time { return w.now }, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func (w *world) lead(t testing.TB, holder string) uint64 {
	t.Helper()
	l, ok, err := w.db.Lease().Acquire(context.Background(), holder, time.Hour)
	if err != nil || !ok {
		t.Fatalf("Acquire(%s): %v %v", holder, ok, err)
	}
	return l.Term
}

func (w *world) handOver(t *testing.T, from string, term uint64, to string) uint64 {
	t.Helper()
	if err := w.db.Lease().Release(context.Background(), from, term); err != nil {
		t.Fatal(err)
	}
	return w.lead(t, to)
}

func (w *world) place(t testing.TB, o Order) Order {
	t.Helper()
	o.AccountID, o.Wallet, o.State, o.Decimals, o.QuoteDecimals = "acc1", common.HexToAddress("0xa11e"), Open, 18, 18
	o.CreatedAt, o.UpdatedAt = w.now, w.now
	if o.Kind.Timed() {
		o.NextAt = w.now
	}
	if err := w.db.Orders().CreateOrder(context.Background(), CreateParams{Order: o, Max: 1_000}); err != nil {
		t.Fatal(err)
	}
	return o
}

func (w *world) order(t *testing.T, id string) Order {
	t.Helper()
	o, err := w.db.Orders().Order(context.Background(), "acc1", id)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

func newWorld(t testing.TB, dsn string) *world {
	db, err := bunstore.Open(context.Background(), bunstore.Config{DSN: dsn, MaxOpenConns: 4})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return &world{db: db, trader: newChainTrader(), tokens: tokens{}, now: time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)}
}

func databases(t *testing.T, run func(t *testing.T, w *world)) {
	t.Run("SQLite", func(t *testing.T) {
		t.Parallel()
		run(t, newWorld(t, filepath.Join(t.TempDir(), "orders.db")))
	})
	t.Run("PostgreSQL", func(t *testing.T) {
		t.Parallel()
		run(t, newWorld(t, pgtest.Schema(t, "orders_test")))
	})
}

var tokA, tokB = common.HexToAddress("0x0a"), common.HexToAddress("0x0b")

func priceOrder(id string, kind Kind, side curvekit.Side, price uint64) Order {
	o := Order{ID: id, Kind: kind, Token: tokA, Side: side, SlippageBps: 100}
	o.Amount.SetUint64(1_000)
	o.Price.SetUint64(price)
	return o
}

// Two replicas and a change of leader in the middle: the first leader records a fire and stops
// before sending it (a crash between claim and send); the second sends it once and fires the
// rest; the first, back with its old term, can record and settle nothing, and what it sends is
// the same fire under the same key, which the wallet answers with the first transaction.
func TestEngineLeaderChangeNeverFiresTwice(t *testing.T) {
	t.Parallel()
	databases(t, func(t *testing.T, w *world) {
		ctx := context.Background()
		w.tokens[tokA] = 1_000
		w.place(t, priceOrder("ord_buy", Limit, curvekit.Buy, 900))
		w.place(t, priceOrder("ord_stop", StopLoss, curvekit.Sell, 800))
		w.place(t, priceOrder("ord_tp", TakeProfit, curvekit.Sell, 1_200))
		a, b := w.engine(t), w.engine(t)
		termA := w.lead(t, "a")
		if err := a.Sync(ctx, termA, sync1(trade(tokA, 10, 0, 950), trade(tokA, 10, 1, 880))); err != nil {
			t.Fatal(err)
		}
		if got := w.order(t, "ord_buy"); got.State != Triggered || len(got.Fires) != 1 || got.Fires[0].Price.Uint64() != 880 || got.Fires[0].Block != 10 || got.Fires[0].LogIndex != 1 {
			t.Fatalf("after the first sync: %s %+v", got.State, got.Fires)
		}
		// a stops here, before sending. b takes the lease.
		termB := w.handOver(t, "a", termA, "b")
		if err := b.Tick(ctx, termB); err != nil {
			t.Fatal(err)
		}
		if got := w.order(t, "ord_buy"); got.State != Sent || got.Fires[0].State != FireSent {
			t.Fatalf("after b's tick: %s %+v", got.State, got.Fires)
		}
		// a is back, still believing in its term: a price through the stop records nothing.
		if err := a.Sync(ctx, termA, sync1(trade(tokA, 11, 0, 700))); !errors.Is(err, market.ErrFenced) {
			t.Errorf("the old leader's sync: %v, want ErrFenced", err)
		}
		// Its clock finds nothing due, so it writes nothing (a write would be fenced).
		if err := a.Tick(ctx, termA); err != nil && !errors.Is(err, market.ErrFenced) {
			t.Errorf("the old leader's tick: %v", err)
		}
		if got := w.order(t, "ord_stop"); got.State != Open {
			t.Fatalf("the fenced leader fired the stop: %s", got.State)
		}
		// b sees the same sync (it indexes it now) and fires the stop once.
		if err := b.Sync(ctx, termB, sync1(trade(tokA, 11, 0, 700))); err != nil {
			t.Fatal(err)
		}
		if err := b.Tick(ctx, termB); err != nil {
			t.Fatal(err)
		}
		if err := b.Sync(ctx, termB, sync1(trade(tokA, 12, 0, 1_300))); err != nil {
			t.Fatal(err)
		}
		if err := b.Tick(ctx, termB); err != nil {
			t.Fatal(err)
		}
		want := []string{"ord_buy_f0", "ord_stop_f0", "ord_tp_f0"}
		if diff := cmp.Diff(want, w.trader.keys()); diff != "" {
			t.Errorf("transactions sent (-want +got):\n%s", diff)
		}
		for _, id := range []string{"ord_buy", "ord_stop", "ord_tp"} {
			if got := w.order(t, id); len(got.Fires) != 1 || got.Fires[0].State != FireSent {
				t.Errorf("%s: %s with %d fires", id, got.State, len(got.Fires))
			}
		}
	})
}

// sentAndFroze plays a leader, a, that records the fire of a limit buy (ord_buy), sends its
// trade and freezes past its lease before recording that it sent it; b takes the lease. It
// returns what a sent and b's term.
func (w *world) sentAndFroze(t *testing.T) (TradeResult, uint64) {
	t.Helper()
	ctx := context.Background()
	w.tokens[tokA] = 1_000
	w.place(t, priceOrder("ord_buy", Limit, curvekit.Buy, 900))
	a := w.engine(t)
	termA := w.lead(t, "a")
	if err := a.Sync(ctx, termA, sync1(trade(tokA, 10, 0, 850))); err != nil {
		t.Fatal(err)
	}
	first, _ := w.trader.Trade(ctx, TradeParams{Key: "ord_buy_f0"})
	return first, w.handOver(t, "a", termA, "b")
}

// A leader that sent a fire and stopped before recording it as sent (after send, before the
// receipt): the next leader sends it again under the same key, which answers the first
// transaction; its fill settles the order once.
func TestEngineCrashAfterSend(t *testing.T) {
	t.Parallel()
	databases(t, func(t *testing.T, w *world) {
		ctx := context.Background()
		first, termB := w.sentAndFroze(t)
		b := w.engine(t)
		if err := b.Tick(ctx, termB); err != nil {
			t.Fatal(err)
		}
		got := w.order(t, "ord_buy")
		if got.Fires[0].State != FireSent || got.Fires[0].TxHash != first.TxHash || len(w.trader.keys()) != 1 {
			t.Fatalf("after the takeover: %+v, %d sent", got.Fires[0], len(w.trader.keys()))
		}
		fill := trade(tokA, 11, 0, 870)
		fill.TxHash, fill.TokenAmount, fill.QuoteAmount = first.TxHash, *uint256.NewInt(5), *uint256.NewInt(1_000)
		if err := b.Sync(ctx, termB, sync1(fill)); err != nil {
			t.Fatal(err)
		}
		got = w.order(t, "ord_buy")
		if got.State != Filled || got.Fires[0].State != FireFilled || got.Fires[0].AmountIn.Uint64() != 1_000 || got.Fires[0].AmountOut.Uint64() != 5 {
			t.Errorf("after the fill: %s %+v", got.State, got.Fires[0])
		}
	})
}

// A fire's transaction mined under a new hash (its fees bumped) fills by that hash; one that
// reverts fails the fire, and its price order, with TX_REVERTED.
func TestEngineFollowsTransactions(t *testing.T) {
	t.Parallel()
	databases(t, func(t *testing.T, w *world) {
		ctx := context.Background()
		w.tokens[tokA] = 1_000
		w.place(t, priceOrder("ord_bumped", Limit, curvekit.Buy, 900))
		w.place(t, priceOrder("ord_reverts", StopLoss, curvekit.Sell, 900))
		e := w.engine(t)
		term := w.lead(t, "a")
		if err := e.Sync(ctx, term, sync1(trade(tokA, 10, 0, 850))); err != nil {
			t.Fatal(err)
		}
		if err := e.Tick(ctx, term); err != nil {
			t.Fatal(err)
		}
		bumped, reverts := w.trader.byKey["ord_bumped_f0"], w.trader.byKey["ord_reverts_f0"]
		replacement := common.HexToHash("0xbeef")
		w.trader.outcomes[bumped] = Outcome{State: "mined", Hash: replacement}
		w.trader.outcomes[reverts] = Outcome{State: "reverted", Hash: reverts}
		if err := e.Tick(ctx, term); err != nil {
			t.Fatal(err)
		}
		fill := trade(tokA, 11, 0, 860)
		fill.TxHash = replacement
		if err := e.Sync(ctx, term, sync1(fill)); err != nil {
			t.Fatal(err)
		}
		if got := w.order(t, "ord_bumped"); got.State != Filled || got.Fires[0].State != FireFilled {
			t.Errorf("bumped: %s %+v", got.State, got.Fires)
		}
		if got := w.order(t, "ord_reverts"); got.State != Failed || got.Reason != "TX_REVERTED" || got.Fires[0].Code != "TX_REVERTED" {
			t.Errorf("reverted: %s %q %+v", got.State, got.Reason, got.Fires)
		}
	})
}

// history stands for the market's store behind the indexer: the syncs it committed, in order.
type history struct {
	mu    sync.Mutex
	syncs []market.Sync
}

func (h *history) commit(s market.Sync) market.Sync {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.syncs = append(h.syncs, s)
	return s
}

func (h *history) Cursor(context.Context) (market.Cursor, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.syncs) == 0 {
		return market.Cursor{}, nil
	}
	return h.syncs[len(h.syncs)-1].Cursor, nil
}

func (h *history) Since(_ context.Context, prev market.Cursor) (market.Sync, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := market.Sync{Batch: &market.Batch{}}
	for _, s := range h.syncs {
		if s.Cursor.Block > prev.Block {
			out.Batch.Trades = append(out.Batch.Trades, s.Batch.Trades...)
			out.Cursor = s.Cursor
		}
	}
	return out, nil
}

// block is a committed sync of one block at time sec, its trades at the given prices.
func block(n uint64, sec int64, prices ...uint64) market.Sync {
	s := market.Sync{Batch: &market.Batch{}, Cursor: market.Cursor{Block: n, Hash: common.BigToHash(uint256.NewInt(n).ToBig())}}
	for i, p := range prices {
		tr := trade(tokA, n, uint(i), p)
		tr.Time = sec
		s.Batch.Trades = append(s.Batch.Trades, tr)
	}
	return s
}

// The leader evaluates a commit after the indexer made it; one that stops in between leaves
// trades no leader evaluated. The engine keeps how far it evaluated with its fires, and the next
// leader evaluates the rest first, in chain order, each order from the first trade of its time:
// a stop-loss crossed and recovered within the gap fires at its trade, a trailing stop follows
// the gap's high and fires at its trail, a take-profit placed during the gap fires on a later
// trade of it, and a limit buy placed after the gap's dip does not fire on it. Nothing fires
// twice when the same commit reaches the new leader again, and a reorganization moves the
// position back.
func TestEngineEvaluatesTheTradesNoLeaderDid(t *testing.T) {
	t.Parallel()
	databases(t, func(t *testing.T, w *world) {
		ctx := context.Background()
		h := &history{}
		engine := func() *Engine { return w.engineOver(t, h) }
		sec := w.now.Unix()
		w.tokens[tokA] = 1_000
		h.commit(block(5, sec, 1_000))
		w.place(t, priceOrder("ord_stop", StopLoss, curvekit.Sell, 930))
		trailing := priceOrder("ord_trail", TrailingStop, curvekit.Sell, 0)
		trailing.TrailBps, trailing.High = 1_000, *uint256.NewInt(1_000)
		w.place(t, trailing)

		a := engine()
		termA := w.lead(t, "a")
		if err := a.Tick(ctx, termA); err != nil {
			t.Fatal(err)
		}
		if err := a.Sync(ctx, termA, h.commit(block(6, sec+2, 950))); err != nil {
			t.Fatal(err)
		}
		if pos, ok, err := w.db.Orders().Position(ctx); !ok || err != nil || pos.Block != 6 {
			t.Fatalf("the position after block 6: %+v %v %v", pos, ok, err)
		}
		// The indexer commits blocks 7 and 8; leader a stops before evaluating them. A
		// take-profit and a limit buy are placed between them.
		h.commit(block(7, sec+4, 920, 1_000))
		w.now = w.now.Add(5 * time.Second)
		w.place(t, priceOrder("ord_tp", TakeProfit, curvekit.Sell, 1_200))
		w.place(t, priceOrder("ord_late", Limit, curvekit.Buy, 925))
		last := h.commit(block(8, sec+6, 1_300, 1_150))
		w.tokens[tokA] = 1_150

		b := engine()
		termB := w.handOver(t, "a", termA, "b")
		if err := b.Tick(ctx, termB); err != nil {
			t.Fatal(err)
		}
		if err := b.Sync(ctx, termB, last); err != nil { // the same commit, observed again
			t.Fatal(err)
		}
		if err := b.Tick(ctx, termB); err != nil {
			t.Fatal(err)
		}
		want := map[string]struct {
			block uint64
			price uint64
		}{"ord_stop": {7, 920}, "ord_trail": {8, 1_150}, "ord_tp": {8, 1_300}}
		for id, wf := range want {
			o := w.order(t, id)
			if len(o.Fires) != 1 || o.Fires[0].Block != wf.block || o.Fires[0].Price.Uint64() != wf.price {
				t.Errorf("%s fired %+v; want once, at block %d, price %d", id, o.Fires, wf.block, wf.price)
			}
		}
		if o := w.order(t, "ord_late"); o.State != Open || len(o.Fires) != 0 {
			t.Errorf("the limit buy placed after the dip: %s %+v", o.State, o.Fires)
		}
		if got := w.trader.keys(); len(got) != 3 {
			t.Errorf("sent %v, want the three fires once each", got)
		}
		if pos, _, _ := w.db.Orders().Position(ctx); pos != last.Cursor {
			t.Errorf("the position after the catch-up: %+v, want block 8", pos)
		}
		// A reorganization back to block 7: the position follows it.
		if err := b.Sync(ctx, termB, market.Sync{Cursor: market.Cursor{Block: 7, Hash: common.HexToHash("0x07")}}); err != nil {
			t.Fatal(err)
		}
		if pos, _, _ := w.db.Orders().Position(ctx); pos.Block != 7 {
			t.Errorf("the position after the rollback: %+v, want block 7", pos)
		}
	})
}

// A price order's fire that reverted on a curve that graduated under it (the graduating trade
// mined first in the block) is not the order's end: the fire fails with TX_REVERTED and the
// order opens again. Checked against the price then, a stop-loss still below its trigger fires
// at once, a second fire with its own key; a take-profit the price has left waits for the next
// trade that reaches it. Each then fills once, and a new leader fires neither again.
func TestEngineRefiresAPriceOrderTheGraduationReverted(t *testing.T) {
	t.Parallel()
	databases(t, func(t *testing.T, w *world) {
		ctx := context.Background()
		w.tokens[tokA] = 1_000
		w.place(t, priceOrder("ord_stop", StopLoss, curvekit.Sell, 900))
		w.place(t, priceOrder("ord_tp", TakeProfit, curvekit.Sell, 1_100))
		e := w.engine(t)
		term := w.lead(t, "a")
		if err := e.Sync(ctx, term, sync1(trade(tokA, 10, 0, 850), trade(tokA, 10, 1, 1_150))); err != nil {
			t.Fatal(err)
		}
		if err := e.Tick(ctx, term); err != nil {
			t.Fatal(err)
		}
		for _, id := range []string{"ord_stop_f0", "ord_tp_f0"} {
			h := w.trader.byKey[id]
			w.trader.outcomes[h] = Outcome{State: "reverted", Hash: h, Graduated: true}
		}
		w.tokens[tokA] = 850 // the pool's price: below the stop, below the take-profit
		if err := e.Tick(ctx, term); err != nil {
			t.Fatal(err)
		}
		if got := w.trader.keys(); !slices.Equal(got, []string{"ord_stop_f0", "ord_tp_f0", "ord_stop_f1"}) {
			t.Fatalf("sent %v, want the stop-loss's second fire at once and nothing more", got)
		}
		stop, tp := w.order(t, "ord_stop"), w.order(t, "ord_tp")
		if stop.State != Sent || len(stop.Fires) != 2 || stop.Fires[0].State != FireFailed || stop.Fires[0].Code != "TX_REVERTED" ||
			!strings.Contains(stop.Fires[0].Error, "graduated") || stop.Fires[1].State != FireSent {
			t.Errorf("the stop-loss after its revert: %s %+v", stop.State, stop.Fires)
		}
		if tp.State != Open || len(tp.Fires) != 1 || tp.Fires[0].Code != "TX_REVERTED" || tp.Reason != "" {
			t.Errorf("the take-profit after its revert: %s %q %+v", tp.State, tp.Reason, tp.Fires)
		}
		// A new leader takes over: it follows the stop-loss's second fire, sent already, and
		// fires the take-profit again only when a trade reaches its trigger.
		e2 := w.engine(t)
		term2 := w.handOver(t, "a", term, "b")
		if err := e2.Tick(ctx, term2); err != nil {
			t.Fatal(err)
		}
		if err := e2.Sync(ctx, term2, sync1(trade(tokA, 12, 0, 1_200))); err != nil {
			t.Fatal(err)
		}
		if err := e2.Tick(ctx, term2); err != nil {
			t.Fatal(err)
		}
		if got := w.trader.keys(); !slices.Equal(got, []string{"ord_stop_f0", "ord_tp_f0", "ord_stop_f1", "ord_tp_f1"}) {
			t.Fatalf("sent %v, want the take-profit's second fire once the price reached it again", got)
		}
		fills := []market.Trade{trade(tokA, 13, 0, 1_150), trade(tokA, 13, 1, 1_100)}
		fills[0].TxHash, fills[1].TxHash = w.trader.byKey["ord_stop_f1"], w.trader.byKey["ord_tp_f1"]
		if err := e2.Sync(ctx, term2, sync1(fills...)); err != nil {
			t.Fatal(err)
		}
		for _, id := range []string{"ord_stop", "ord_tp"} {
			if got := w.order(t, id); got.State != Filled || len(got.Fires) != 2 || got.Fires[1].State != FireFilled {
				t.Errorf("%s: %s %+v", id, got.State, got.Fires)
			}
		}
		if n := len(w.trader.keys()); n != 4 {
			t.Errorf("%d trades sent, want 4", n)
		}
	})
}

// DCA fires on the clock Times times, each once its interval is due, and is filled after the
// last fill; a TWAP's slices add up to its total; an open order past its expiry expires; a
// refusal fails a price order and lets a time order go on.
func TestEngineClock(t *testing.T) {
	t.Parallel()
	databases(t, func(t *testing.T, w *world) {
		ctx := context.Background()
		w.tokens[tokA] = 1_000
		dca := Order{ID: "ord_dca", Kind: DCA, Token: tokA, Side: curvekit.Buy, Every: time.Minute, Times: 3}
		dca.Amount.SetUint64(10)
		twap := Order{ID: "ord_twap", Kind: TWAP, Token: tokA, Side: curvekit.Buy, Over: 3 * time.Minute, Slices: 3}
		twap.Amount.SetUint64(100)
		w.place(t, dca)
		w.place(t, twap)
		exp := priceOrder("ord_exp", Limit, curvekit.Buy, 1)
		exp.ExpiresAt = w.now.Add(90 * time.Second)
		w.place(t, exp)
		e := w.engine(t)
		term := w.lead(t, "a")
		block := uint64(100)
		filled := map[string]bool{}
		fillAll := func() {
			var trades []market.Trade
			for _, p := range w.trader.sent {
				if _, done := filled[p.Key]; done {
					continue
				}
				filled[p.Key] = true
				block++
				tr := trade(tokB, block, 0, 1)
				tr.TxHash = common.BytesToHash([]byte(p.Key))
				trades = append(trades, tr)
			}
			if err := e.Sync(ctx, term, sync1(trades...)); err != nil {
				t.Fatal(err)
			}
		}
		for minute := range 4 {
			if err := e.Tick(ctx, term); err != nil {
				t.Fatal(err)
			}
			fillAll()
			// A second tick in the same minute fires nothing more.
			if err := e.Tick(ctx, term); err != nil {
				t.Fatal(err)
			}
			if n := len(w.trader.sent); n != 2*min(minute+1, 3) {
				t.Fatalf("minute %d: %d sent", minute, n)
			}
			w.now = w.now.Add(time.Minute)
		}
		var twapTotal uint256.Int
		for _, p := range w.trader.sent {
			if p.Key[:8] == "ord_twap" {
				twapTotal.Add(&twapTotal, &p.Amount)
			}
		}
		if twapTotal.Uint64() != 100 {
			t.Errorf("TWAP slices sum to %d", twapTotal.Uint64())
		}
		for _, id := range []string{"ord_dca", "ord_twap"} {
			if got := w.order(t, id); got.State != Filled || got.Fired != 3 || len(got.Fires) != 3 {
				t.Errorf("%s: %s, fired %d", id, got.State, got.Fired)
			}
		}
		if got := w.order(t, "ord_exp"); got.State != Expired {
			t.Errorf("past its expiry: %s", got.State)
		}

		// A pause: the price order's fire is held, unsent; a DCA's slice is skipped and it goes on.
		w.trader.refuse = curvekit.WithCode(curvekit.CodeWalletPaused, fmt.Errorf("%w: the wallet is paused", curvekit.ErrForbidden))
		stop := w.place(t, priceOrder("ord_stop", StopLoss, curvekit.Sell, 500))
		dca2 := dca
		dca2.ID, dca2.Times = "ord_dca2", 2
		w.place(t, dca2)
		if err := e.Tick(ctx, term); err != nil {
			t.Fatal(err)
		}
		if err := e.Sync(ctx, term, sync1(trade(tokA, 500, 0, 400))); err != nil {
			t.Fatal(err)
		}
		if err := e.Tick(ctx, term); err != nil {
			t.Fatal(err)
		}
		if got := w.order(t, stop.ID); got.State != Triggered || got.Reason != "" || len(got.Fires) != 1 || got.Fires[0].State != FireTriggered {
			t.Errorf("stop refused by a pause: %s %q %+v", got.State, got.Reason, got.Fires)
		}
		if got := w.order(t, "ord_dca2"); got.State != Open || got.Fired != 1 || got.Fires[0].State != FireFailed || got.Fires[0].Code != "WALLET_PAUSED" {
			t.Errorf("refused DCA slice: %s fired %d", got.State, got.Fired)
		}
		// Any other refusal fails a price order with its code.
		w.trader.refuse = curvekit.WithCode(curvekit.CodePerTxLimitExceeded, fmt.Errorf("%w: above the cap", curvekit.ErrForbidden))
		capped := w.place(t, priceOrder("ord_capped", TakeProfit, curvekit.Sell, 1))
		if err := e.Tick(ctx, term); err != nil {
			t.Fatal(err)
		}
		if got := w.order(t, capped.ID); got.State != Failed || got.Reason != "PER_TX_LIMIT_EXCEEDED" || got.Fires[0].Code != "PER_TX_LIMIT_EXCEEDED" {
			t.Errorf("refused take-profit: %s %q %+v", got.State, got.Reason, got.Fires)
		}

		// An order placed beyond its trigger fires at the next tick, at the price now.
		w.trader.refuse = nil
		w.tokens[tokB] = 1_000
		now := priceOrder("ord_now", Limit, curvekit.Buy, 2_000)
		now.Token = tokB
		w.place(t, now)
		if err := e.Tick(ctx, term); err != nil {
			t.Fatal(err)
		}
		if got := w.order(t, "ord_now"); got.State != Sent || got.Fires[0].Price.Uint64() != 1_000 {
			t.Errorf("a marketable order: %s %+v", got.State, got.Fires)
		}
	})
}

// pauses is the accounts' pause switch, as their settings hold it.
type pauses struct {
	mu     sync.Mutex
	paused map[string]bool
	asked  int
}

func (p *pauses) Paused(_ context.Context, account string) (bool, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.asked++
	return p.paused[account], nil
}

func (p *pauses) set(account string, paused bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.paused[account] = paused
}

// A paused wallet holds its price orders: prices cross three triggers during the pause and
// their fires wait, unsent and not retried, until the account resumes. Then each trigger is
// checked against the price now: the limit buy the price still reaches is sent under its first
// fire's id; the stop-loss the price came back above fails that fire with WALLET_PAUSED and waits
// for its trigger again, firing once the price reaches it; the order whose expiry passed during
// the pause expires; the one cancelled during it sends nothing. One transaction per order.
func TestEnginePauseHoldsPriceOrders(t *testing.T) {
	t.Parallel()
	databases(t, func(t *testing.T, w *world) {
		ctx := context.Background()
		w.tokens[tokA] = 1_000
		ps := &pauses{paused: map[string]bool{}}
		e, err := NewEngine(EngineConfig{Store: w.db.Orders(), Trader: w.trader, Tokens: w.tokens, Pauses: ps,
			Now: func() time.Time { return w.now }, Logger: slog.New(slog.DiscardHandler)})
		if err != nil {
			t.Fatal(err)
		}
		w.place(t, priceOrder("ord_buy", Limit, curvekit.Buy, 500))
		w.place(t, priceOrder("ord_stop", StopLoss, curvekit.Sell, 450))
		w.place(t, priceOrder("ord_gone", Limit, curvekit.Buy, 500))
		exp := priceOrder("ord_exp", Limit, curvekit.Buy, 500)
		exp.ExpiresAt = w.now.Add(90 * time.Second)
		w.place(t, exp)
		term := w.lead(t, "a")
		if err := e.Tick(ctx, term); err != nil {
			t.Fatal(err)
		}

		ps.set("acc1", true)
		w.trader.refuse = curvekit.WithCode(curvekit.CodeWalletPaused, fmt.Errorf("%w: the wallet is paused", curvekit.ErrForbidden))
		if err := e.Sync(ctx, term, sync1(trade(tokA, 10, 0, 400))); err != nil {
			t.Fatal(err)
		}
		if err := e.Tick(ctx, term); err != nil {
			t.Fatal(err)
		}
		refused := w.trader.calls
		if refused != 4 {
			t.Fatalf("%d sends tried, want the 4 fires once each", refused)
		}
		for range 3 {
			w.now = w.now.Add(time.Minute)
			if err := e.Tick(ctx, term); err != nil {
				t.Fatal(err)
			}
		}
		if w.trader.calls != refused {
			t.Errorf("held fires were tried %d more times during the pause", w.trader.calls-refused)
		}
		for _, id := range []string{"ord_buy", "ord_stop", "ord_gone", "ord_exp"} {
			if got := w.order(t, id); got.State != Triggered || len(got.Fires) != 1 || got.Fires[0].State != FireTriggered || got.Fires[0].Price.Uint64() != 400 {
				t.Errorf("%s during the pause: %s %+v", id, got.State, got.Fires)
			}
		}
		if _, err := w.db.Orders().CancelOrder(ctx, CancelParams{AccountID: "acc1", ID: "ord_gone", At: w.now}); err != nil {
			t.Fatal(err)
		}

		// The account resumes with the price at 480: the limit buy (500) is still reached, the
		// stop-loss (450) no longer.
		w.tokens[tokA] = 480
		ps.set("acc1", false)
		w.trader.refuse = nil
		if err := e.Tick(ctx, term); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff([]string{"ord_buy_f0"}, w.trader.keys()); diff != "" {
			t.Errorf("sent at the resume (-want +got):\n%s", diff)
		}
		if got := w.order(t, "ord_buy"); got.State != Sent || len(got.Fires) != 1 || got.Fires[0].State != FireSent {
			t.Errorf("the limit buy after the resume: %s %+v", got.State, got.Fires)
		}
		stop := w.order(t, "ord_stop")
		if stop.State != Open || stop.Reason != "" || len(stop.Fires) != 1 || stop.Fires[0].State != FireFailed || stop.Fires[0].Code != "WALLET_PAUSED" {
			t.Errorf("the stop-loss after the resume: %s %q %+v", stop.State, stop.Reason, stop.Fires)
		}
		if got := w.order(t, "ord_exp"); got.State != Expired || got.Fires[0].State != FireFailed || got.Fires[0].Code != "WALLET_PAUSED" {
			t.Errorf("the order that expired during the pause: %s %+v", got.State, got.Fires)
		}
		if got := w.order(t, "ord_gone"); got.State != Cancelled || got.Fires[0].State != FireFailed || got.Fires[0].Code != "cancelled" {
			t.Errorf("the order cancelled during the pause: %s %+v", got.State, got.Fires)
		}

		// The stop fires when the price reaches it again: a fire of its own, once.
		if err := e.Sync(ctx, term, sync1(trade(tokA, 20, 0, 440))); err != nil {
			t.Fatal(err)
		}
		for range 2 {
			if err := e.Tick(ctx, term); err != nil {
				t.Fatal(err)
			}
		}
		if diff := cmp.Diff([]string{"ord_buy_f0", "ord_stop_f1"}, w.trader.keys()); diff != "" {
			t.Errorf("sent in all (-want +got):\n%s", diff)
		}
		if got := w.order(t, "ord_stop"); got.State != Sent || len(got.Fires) != 2 || got.Fires[1].Price.Uint64() != 440 || got.Fires[1].Block != 20 {
			t.Errorf("the stop-loss at its trigger: %s %+v", got.State, got.Fires)
		}
	})
}

// The reference model: random price paths over random price orders, fed to the engine a sync
// at a time by leaders that now and then die between the indexer's commit and their evaluation,
// or between evaluating and sending; the engine fires exactly the orders the model fires, each
// once, at the price that fired it, for the order's amount.
func TestEngineAgreesWithModel(t *testing.T) {
	t.Parallel()
	databases(t, func(t *testing.T, w *world) {
		ctx := context.Background()
		r := rand.New(rand.NewPCG(7, 33))
		toks := []common.Address{tokA, tokB}
		m := &model{high: map[string]uint256.Int{}, last: map[common.Address]uint256.Int{}}
		placed := map[string]*Order{}
		for _, tok := range toks {
			w.tokens[tok] = 1_000
		}
		for i := range 60 {
			o := randomOrder(r, i, toks)
			if o.Kind == TrailingStop {
				o.High.SetUint64(1_000)
				m.high[o.ID] = o.High
			}
			o.Amount.SetUint64(uint64(1 + r.IntN(1_000)))
			w.place(t, *o)
			placed[o.ID] = o
			m.add(o)
		}
		want := map[string]uint64{}
		for _, tok := range toks {
			for _, id := range m.price(tok, uint256.NewInt(1_000)) {
				want[id] = 1_000
			}
		}
		// The leader dies now and then: right after the indexer's commit (its evaluation never
		// happens) or after the evaluation and before the sends. The next one takes over a
		// block later and catches up from the evaluated position.
		h := &history{}
		engine := func() *Engine { return w.engineOver(t, h) }
		h.commit(block(0, w.now.Unix()))
		e, leader := engine(), 0
		term := w.lead(t, "leader-0")
		if err := e.Tick(ctx, term); err != nil { // leading from block 0: marketable orders fire at 1,000
			t.Fatal(err)
		}
		var dead bool
		deaths := 0
		price := map[common.Address]uint64{tokA: 1_000, tokB: 1_000}
		for n := uint64(1); n <= 40; n++ {
			if dead {
				leader++
				e, term, dead = engine(), w.handOver(t, fmt.Sprintf("leader-%d", leader-1), term, fmt.Sprintf("leader-%d", leader)), false
			}
			s := block(n, w.now.Unix()+int64(n))
			for log := range uint(1 + r.IntN(4)) {
				tok := toks[r.IntN(2)]
				price[tok] = max(1, uint64(int64(price[tok])+int64(r.IntN(121))-60))
				tr := trade(tok, n, log, price[tok])
				tr.Time = w.now.Unix() + int64(n)
				s.Batch.Trades = append(s.Batch.Trades, tr)
				for _, id := range m.price(tok, uint256.NewInt(price[tok])) {
					want[id] = price[tok]
				}
			}
			h.commit(s)
			w.tokens[tokA], w.tokens[tokB] = price[tokA], price[tokB]
			switch r.IntN(10) {
			case 0: // dies after the indexer's commit
				dead, deaths = true, deaths+1
				continue
			case 1: // dies after evaluating, before sending
				dead, deaths = true, deaths+1
				if err := e.Sync(ctx, term, s); err != nil {
					t.Fatal(err)
				}
				continue
			}
			if err := e.Sync(ctx, term, s); err != nil {
				t.Fatal(err)
			}
			if err := e.Tick(ctx, term); err != nil {
				t.Fatal(err)
			}
		}
		if dead {
			e, term = engine(), w.handOver(t, fmt.Sprintf("leader-%d", leader), term, "leader-last")
		}
		if err := e.Tick(ctx, term); err != nil {
			t.Fatal(err)
		}
		if deaths < 3 {
			t.Errorf("the leader died %d times: too few to tell anything", deaths)
		}
		got := map[string]uint64{}
		for id := range placed {
			o := w.order(t, id)
			if len(o.Fires) > 1 {
				t.Errorf("%s fired %d times", id, len(o.Fires))
			}
			if len(o.Fires) == 1 {
				got[id] = o.Fires[0].Price.Uint64()
			}
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("fires (-model +engine):\n%s", diff)
		}
		sent := w.trader.keys()
		if len(sent) != len(want) || len(slices.Compact(slices.Sorted(slices.Values(sent)))) != len(sent) {
			t.Errorf("%d trades sent for %d fires", len(sent), len(want))
		}
		for _, p := range w.trader.sent {
			id := p.Key[:len(p.Key)-3]
			if p.Amount != placed[id].Amount || p.Side != placed[id].Side || p.Token != placed[id].Token {
				t.Errorf("%s sent %+v for %+v", p.Key, p, placed[id])
			}
		}
		if len(want) < 10 || len(want) == len(placed) {
			t.Errorf("the path fired %d of %d orders: too few or all to tell anything", len(want), len(placed))
		}
	})
}

type panickingTrader struct{ *chainTrader }

func (panickingTrader) Trade(context.Context, TradeParams) (TradeResult, error) { panic("a bug below") }

// A trade that panics fails its fire and its order; the engine goes on with the others.
func TestEngineSurvivesAPanickingTrade(t *testing.T) {
	t.Parallel()
	w := newWorld(t, filepath.Join(t.TempDir(), "orders.db"))
	ctx := context.Background()
	w.tokens[tokA] = 1_000
	w.place(t, priceOrder("ord_a", Limit, curvekit.Buy, 900))
	e := w.engineWith(t, panickingTrader{w.trader})
	term := w.lead(t, "a")
	if err := e.Sync(ctx, term, sync1(trade(tokA, 10, 0, 850))); err != nil {
		t.Fatal(err)
	}
	if err := e.Tick(ctx, term); err != nil {
		t.Fatal(err)
	}
	if got := w.order(t, "ord_a"); got.State != Failed || got.Fires[0].State != FireFailed || got.Fires[0].Code != "REFUSED" {
		t.Errorf("after a panicking trade: %s %+v", got.State, got.Fires)
	}
}

// slowTrader is a wallet whose sign-and-submit takes as long as the test wants: each trade
// announces itself on entered and waits for release.
type slowTrader struct {
	*chainTrader
	entered chan string
	release chan struct{}
}

func (s slowTrader) Trade(ctx context.Context, p TradeParams) (TradeResult, error) {
	s.entered <- p.Key
	<-s.release
	return s.chainTrader.Trade(ctx, p)
}

// A slow sign-and-submit does not hold up the next sync: while the leader's clock waits on a
// fire's trade, the next sync is evaluated and its fire recorded; a trade the sync indexed
// before its send was recorded fills the fire all the same, and each fire is sent once.
func TestEngineSlowSendDoesNotDelaySync(t *testing.T) {
	t.Parallel()
	databases(t, func(t *testing.T, w *world) {
		ctx := context.Background()
		w.tokens[tokA] = 1_000
		w.place(t, priceOrder("ord_a", Limit, curvekit.Buy, 900))
		w.place(t, priceOrder("ord_b", Limit, curvekit.Buy, 800))
		slow := slowTrader{chainTrader: w.trader, entered: make(chan string, 4), release: make(chan struct{})}
		e := w.engineWith(t, slow)
		term := w.lead(t, "a")
		if err := e.Sync(ctx, term, sync1(trade(tokA, 10, 0, 850))); err != nil {
			t.Fatal(err)
		}
		ticked := make(chan error, 1)
		go func() { ticked <- e.Tick(ctx, term) }()
		if key := <-slow.entered; key != "ord_a_f0" {
			t.Fatalf("sending %s", key)
		}
		// ord_a's trade is on its way and not back. The next sync takes the price through
		// ord_b's trigger and carries ord_a's transaction, mined already.
		fill := trade(tokB, 11, 0, 1)
		fill.TxHash, fill.TokenAmount, fill.QuoteAmount = common.BytesToHash([]byte("ord_a_f0")), *uint256.NewInt(7), *uint256.NewInt(1_000)
		synced := make(chan error, 1)
		go func() { synced <- e.Sync(ctx, term, sync1(trade(tokA, 11, 1, 750), fill)) }()
		select {
		case err := <-synced:
			if err != nil {
				t.Fatal(err)
			}
		case <-time.After(time.Minute):
			close(slow.release)
			t.Fatal("the sync waited for the send of an earlier fire")
		}
		if got := w.order(t, "ord_b"); got.State != Triggered || len(got.Fires) != 1 {
			t.Fatalf("ord_b while ord_a's trade is out: %s %+v", got.State, got.Fires)
		}
		close(slow.release)
		if err := <-ticked; err != nil {
			t.Fatal(err)
		}
		if err := e.Tick(ctx, term); err != nil {
			t.Fatal(err)
		}
		if got := w.order(t, "ord_a"); got.State != Filled || got.Fires[0].State != FireFilled || got.Fires[0].AmountOut.Uint64() != 7 {
			t.Errorf("ord_a, indexed before its send was recorded: %s %+v", got.State, got.Fires)
		}
		if got := w.order(t, "ord_b"); got.State != Sent {
			t.Errorf("ord_b: %s", got.State)
		}
		if diff := cmp.Diff([]string{"ord_a_f0", "ord_b_f0"}, w.trader.keys()); diff != "" {
			t.Errorf("transactions sent (-want +got):\n%s", diff)
		}
	})
}

// refusingTrader refuses the trades whose keys refuse says, as the wallet's guard would; asked
// keeps what each key asked to spend, refused or not.
type refusingTrader struct {
	*chainTrader
	refuse func(key string) bool
	asked  map[string]uint64
}

func (r refusingTrader) Trade(ctx context.Context, p TradeParams) (TradeResult, error) {
	r.chainTrader.mu.Lock()
	r.asked[p.Key] = p.Amount.Uint64()
	r.chainTrader.mu.Unlock()
	if r.refuse(p.Key) {
		return TradeResult{}, curvekit.WithCode(curvekit.CodeDailyLimitExceeded, fmt.Errorf("%w: over the daily cap", curvekit.ErrForbidden))
	}
	return r.chainTrader.Trade(ctx, p)
}

// timeFire is a time order's fire as the model expects it: when, for how much, refused or not.
type timeFire struct {
	At      time.Time
	Amount  uint64
	Refused bool
}

// The reference model for time orders: random DCAs and TWAPs, placed at random moments, some
// with an expiry, some cancelled, some of their fires refused, under a clock that moves by
// random steps. The model says from the order's own terms which fire is due at each tick (one
// per order per tick, the next once the previous settled) and what it spends; the engine fires
// exactly those, at those ticks, for those amounts, and the order ends as the model says.
func TestEngineTimeOrdersAgreeWithModel(t *testing.T) {
	t.Parallel()
	databases(t, func(t *testing.T, w *world) {
		ctx := context.Background()
		r := rand.New(rand.NewPCG(11, 33))
		w.tokens[tokA] = 1_000
		refused := func(key string) bool { // a fixed fifth of the fires, by key
			var h uint32
			for _, c := range []byte(key) {
				h = h*31 + uint32(c)
			}
			return h%5 == 0
		}
		asked := map[string]uint64{}
		e := w.engineWith(t, refusingTrader{w.trader, refused, asked})
		term := w.lead(t, "a")

		type modelOrder struct {
			o         Order
			fired     int
			cancelled bool
			expired   bool
		}
		var placed []*modelOrder
		want := map[string][]timeFire{}
		place := func(i int) {
			o := Order{ID: fmt.Sprintf("ord_t%03d", i), Token: tokA, Side: curvekit.Buy, SlippageBps: 100}
			if r.IntN(2) == 0 {
				o.Kind, o.Every, o.Times = DCA, time.Duration(1+r.IntN(60))*time.Minute, 1+r.IntN(6)
				o.Amount.SetUint64(uint64(1 + r.IntN(1_000)))
			} else {
				o.Kind, o.Over, o.Slices = TWAP, time.Duration(1+r.IntN(60))*time.Minute, 2+r.IntN(5)
				o.Amount.SetUint64(uint64(o.Slices + r.IntN(10_000)))
			}
			if r.IntN(2) == 0 {
				o.Side = curvekit.Sell
			}
			if r.IntN(4) == 0 {
				o.ExpiresAt = w.now.Add(time.Duration(1+r.IntN(90)) * time.Minute)
			}
			placed = append(placed, &modelOrder{o: w.place(t, o)})
			want[o.ID] = []timeFire{}
		}
		// due and amount are the model's reading of the order's terms.
		due := func(m *modelOrder) time.Time {
			if m.o.Kind == DCA {
				return m.o.CreatedAt.Add(time.Duration(m.fired) * m.o.Every)
			}
			return m.o.CreatedAt.Add(time.Duration(m.fired) * m.o.Over / time.Duration(m.o.Slices))
		}
		amount := func(m *modelOrder) uint64 {
			total := m.o.Amount.Uint64()
			if m.o.Kind == DCA {
				return total
			}
			share := total / uint64(m.o.Slices)
			if m.fired == m.o.Slices-1 {
				share += total % uint64(m.o.Slices)
			}
			return share
		}
		count := func(m *modelOrder) int { return max(m.o.Times, m.o.Slices) }
		for i := range 8 {
			place(i)
		}
		filled, block := map[string]bool{}, uint64(100)
		for tick := range 150 {
			if tick%15 == 7 {
				place(8 + tick)
			}
			if tick%20 == 13 { // the owner cancels a live order
				for _, m := range placed {
					if !m.cancelled && !m.expired && m.fired < count(m) && m.fired > 0 {
						if _, err := w.db.Orders().CancelOrder(ctx, CancelParams{AccountID: "acc1", ID: m.o.ID, At: w.now}); err != nil {
							t.Fatal(err)
						}
						m.cancelled = true
						break
					}
				}
			}
			for _, m := range placed {
				switch {
				case m.cancelled || m.expired || m.fired == count(m):
				case !m.o.ExpiresAt.IsZero() && !m.o.ExpiresAt.After(w.now):
					m.expired = true
				case !due(m).After(w.now):
					id := FireID(m.o.ID, m.fired)
					want[m.o.ID] = append(want[m.o.ID], timeFire{At: w.now, Amount: amount(m), Refused: refused(id)})
					m.fired++
				}
			}
			if err := e.Tick(ctx, term); err != nil {
				t.Fatal(err)
			}
			// Every transaction sent is mined and indexed before the next tick.
			var trades []market.Trade
			for _, key := range w.trader.keys() {
				if !filled[key] {
					filled[key] = true
					block++
					tr := trade(tokB, block, 0, 1)
					tr.TxHash = common.BytesToHash([]byte(key))
					trades = append(trades, tr)
				}
			}
			if err := e.Sync(ctx, term, sync1(trades...)); err != nil {
				t.Fatal(err)
			}
			w.now = w.now.Add(time.Duration(1+r.IntN(600)) * time.Second)
		}

		got := map[string][]timeFire{}
		var fires, refusals int
		for _, m := range placed {
			o := w.order(t, m.o.ID)
			got[o.ID] = []timeFire{}
			for _, f := range o.Fires {
				tf := timeFire{At: f.CreatedAt, Amount: asked[f.ID], Refused: f.State == FireFailed}
				if tf.Refused {
					refusals++
				} else if f.State != FireFilled {
					t.Errorf("%s: %s", f.ID, f.State)
				}
				got[o.ID] = append(got[o.ID], tf)
				fires++
			}
			wantState := Open
			switch {
			case m.cancelled:
				wantState = Cancelled
			case m.expired:
				wantState = Expired
			case m.fired == count(m) && want[o.ID][m.fired-1].Refused:
				wantState = Failed
			case m.fired == count(m):
				wantState = Filled
			}
			if o.State != wantState {
				t.Errorf("%s (%s, %d of %d): %s, want %s", o.ID, o.Kind, m.fired, count(m), o.State, wantState)
			}
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("fires (-model +engine):\n%s", diff)
		}
		if sent := w.trader.keys(); len(sent) != fires-refusals || len(slices.Compact(slices.Sorted(slices.Values(sent)))) != len(sent) {
			t.Errorf("%d transactions for %d fires, %d refused", len(sent), fires, refusals)
		}
		t.Logf("%d orders, %d fires, %d refused", len(placed), fires, refusals)
		if fires < 30 || refusals == 0 {
			t.Errorf("%d fires, %d refused: too few to tell anything", fires, refusals)
		}
	})
}

// The leader that takes over from one that sent a fire and froze may index the fire's trade
// before it records the fire as sent (the trade was mined while no one led): no sync brings the
// trade again, and the fire is filled from the indexed trade the transaction's outcome names.
func TestEngineFillsATradeIndexedBeforeTheTakeover(t *testing.T) {
	t.Parallel()
	databases(t, func(t *testing.T, w *world) {
		ctx := context.Background()
		first, termB := w.sentAndFroze(t)
		b := w.engine(t)
		fill := trade(tokA, 11, 0, 870)
		fill.TxHash, fill.TokenAmount, fill.QuoteAmount = first.TxHash, *uint256.NewInt(5), *uint256.NewInt(1_000)
		// b indexes the block with the fire's trade before its clock looks at the fire.
		if err := b.Sync(ctx, termB, sync1(fill)); err != nil {
			t.Fatal(err)
		}
		if err := b.Tick(ctx, termB); err != nil {
			t.Fatal(err)
		}
		if got := w.order(t, "ord_buy"); got.State != Sent {
			t.Fatalf("after the takeover: %s", got.State)
		}
		w.trader.mu.Lock()
		w.trader.outcomes[first.TxHash] = Outcome{State: "mined", Hash: first.TxHash, Trade: &fill}
		w.trader.mu.Unlock()
		if err := b.Tick(ctx, termB); err != nil {
			t.Fatal(err)
		}
		got := w.order(t, "ord_buy")
		if got.State != Filled || got.Fires[0].State != FireFilled || got.Fires[0].AmountOut.Uint64() != 5 || len(w.trader.keys()) != 1 {
			t.Errorf("after the outcome: %s %+v, %d sent", got.State, got.Fires[0], len(w.trader.keys()))
		}
	})
}

// BenchmarkEngineSync is a whole sync on the leader, store included: 10,000 open price orders
// across 100 tokens, a sync of 50 trades whose prices cross no trigger, evaluated and its
// position recorded (one fenced write). Reported per sync, on each database.
func BenchmarkEngineSync(b *testing.B) {
	run := func(b *testing.B, w *world) {
		ctx := context.Background()
		r := rand.New(rand.NewPCG(1, 2))
		tokens := make([]common.Address, 100)
		for i := range tokens {
			tokens[i] = common.BigToAddress(uint256.NewInt(uint64(i + 1)).ToBig())
			w.tokens[tokens[i]] = 2_000
		}
		for i := range 10_000 {
			o := randomOrder(r, i, tokens)
			o.Amount.SetUint64(1)
			if o.Kind == TrailingStop {
				o.High.SetUint64(2_000)
				o.TrailBps = 6_000 // far below: a drift of a few percent never reaches it
			} else if o.Side == curvekit.Buy {
				o.Price.SetUint64(uint64(100 + r.IntN(1_000))) // limit buys well below
			} else if o.Kind == StopLoss {
				o.Price.SetUint64(uint64(100 + r.IntN(1_000)))
			} else {
				o.Price.SetUint64(uint64(3_000 + r.IntN(1_000))) // limit sells, take-profits above
			}
			o.AccountID, o.Wallet, o.State, o.Decimals, o.QuoteDecimals = "acc1", common.HexToAddress("0xa11e"), Open, 18, 18
			o.CreatedAt, o.UpdatedAt = w.now, w.now
			if err := w.db.Orders().CreateOrder(ctx, CreateParams{Order: *o, Max: 10_000}); err != nil {
				b.Fatal(err)
			}
		}
		e := w.engineOver(b, &history{})
		term := w.lead(b, "a")
		if err := e.Tick(ctx, term); err != nil {
			b.Fatal(err)
		}
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			s := market.Sync{Batch: &market.Batch{}, Cursor: market.Cursor{Block: uint64(i + 1)}}
			for j := range 50 {
				s.Batch.Trades = append(s.Batch.Trades, trade(tokens[r.IntN(len(tokens))], uint64(i+1), uint(j), uint64(1_960+r.IntN(80))))
			}
			if err := e.Sync(ctx, term, s); err != nil {
				b.Fatal(err)
			}
		}
		b.StopTimer()
		if n := len(w.trader.keys()); n != 0 {
			b.Fatalf("%d orders fired", n)
		}
	}
	b.Run("SQLite", func(b *testing.B) { run(b, newWorld(b, filepath.Join(b.TempDir(), "orders.db"))) })
	b.Run("PostgreSQL", func(b *testing.B) { run(b, newWorld(b, pgtest.Schema(b, "orders_bench"))) })
}
