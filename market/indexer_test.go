package market_test

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/google/go-cmp/cmp"
	"github.com/holiman/uint256"

	"github.com/curvekit/curvekit"
	"github.com/curvekit/curvekit/adapters/bunstore"
	"github.com/curvekit/curvekit/adapters/evm"
	"github.com/curvekit/curvekit/adapters/evm/devnet"
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
	ix, err := market.NewIndexer(ctx, market.IndexerConfig{Chain: chain, Store: store, BatchBlocks: 7})
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
