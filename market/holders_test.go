package market_test

import (
	"math/big"
	"math/rand/v2"
	"path/filepath"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/google/go-cmp/cmp"
	"github.com/holiman/uint256"

	"github.com/curvekit/curvekit"
	"github.com/curvekit/curvekit/adapters/bunstore"
	"github.com/curvekit/curvekit/adapters/evm/devnet"
	"github.com/curvekit/curvekit/contracts/bindings"
	"github.com/curvekit/curvekit/market"
	"github.com/curvekit/curvekit/txbuild"
)

// holders walks every page of a token's holders in the store.
func (w *world) holders(tok common.Address) []market.Holding {
	w.t.Helper()
	var all []market.Holding
	q := market.HolderQuery{Token: tok, Limit: 3}
	for {
		page, err := w.store.Holders(w.ctx, q)
		if err != nil {
			w.t.Fatal(err)
		}
		all = append(all, page.Holders...)
		if page.Next == "" {
			return all
		}
		q.Cursor = page.Next
	}
}

// checkHolders compares every indexed holder's balance with balanceOf on the chain, and the
// holders' sum with the chain's total supply (so no holder is missing), and the count.
func (w *world) checkHolders() {
	w.t.Helper()
	page, err := w.store.Tokens(w.ctx, market.TokenQuery{Limit: 100})
	if err != nil {
		w.t.Fatal(err)
	}
	token := bindings.NewCurveToken()
	for _, tok := range page.Tokens {
		var sum uint256.Int
		hs := w.holders(tok.Address)
		for _, h := range hs {
			bal, err := w.chain.Balance(w.ctx, tok.Address, h.Holder)
			if err != nil {
				w.t.Fatal(err)
			}
			if !bal.Eq(&h.Balance) {
				w.t.Errorf("%s holder %s: store %s, balanceOf %s", tok.Symbol, h.Holder, h.Balance.Dec(), bal.Dec())
			}
			sum.Add(&sum, &h.Balance)
		}
		out, err := w.dev.Call(w.ctx, common.Address{}, tok.Address, token.PackTotalSupply())
		if err != nil {
			w.t.Fatal(err)
		}
		supply, err := token.UnpackTotalSupply(out)
		if err != nil {
			w.t.Fatal(err)
		}
		if sum.ToBig().Cmp(supply) != 0 {
			w.t.Errorf("%s: the holders hold %s, the supply is %s", tok.Symbol, sum.Dec(), supply)
		}
		st, err := w.store.HolderSummary(w.ctx, tok.Address)
		if err != nil {
			w.t.Fatal(err)
		}
		if st.Holders != len(hs) {
			w.t.Errorf("%s: %d holders counted, %d listed", tok.Symbol, st.Holders, len(hs))
		}
	}
}

// send sends a call of a token's function from acc.
func (w *world) send(acc devnet.Account, to common.Address, data []byte) {
	w.t.Helper()
	if _, err := w.dev.Send(w.ctx, acc.Key, &to, nil, data); err != nil {
		w.t.Fatal(err)
	}
}

// shake makes n random moves among the traders: buys, sells of part of a holding, transfers
// to one another and to the burn address, and burns.
func (w *world) shake(rng *rand.Rand, n int, traders []devnet.Account, tokens []common.Address) {
	w.t.Helper()
	token := bindings.NewCurveToken()
	for i := 0; i < n; i++ {
		acc := traders[rng.IntN(len(traders))]
		tok := tokens[rng.IntN(len(tokens))]
		held, err := w.chain.Balance(w.ctx, tok, acc.Address)
		if err != nil {
			w.t.Fatal(err)
		}
		part := new(uint256.Int).Div(&held, uint256.NewInt(uint64(2+rng.IntN(5))))
		move := rng.IntN(5)
		if part.IsZero() {
			move = 0
		}
		switch move {
		case 0:
			amount := uint256.NewInt(uint64(1+rng.IntN(20)) * 1e16)
			if tok == w.dev.USDToken.Token {
				amount = uint256.NewInt(uint64(1+rng.IntN(20)) * 1_000_000)
			}
			w.trade(acc, tok, curvekit.Buy, amount)
		case 1:
			w.trade(acc, tok, curvekit.Sell, part)
		case 2:
			other := traders[rng.IntN(len(traders))]
			w.send(acc, tok, token.PackTransfer(other.Address, part.ToBig()))
		case 3:
			w.send(acc, tok, token.PackTransfer(market.BurnAddress, part.ToBig()))
		case 4:
			w.send(acc, tok, token.PackBurn(part.ToBig()))
		}
		w.sync() // a quote from the store needs the previous trade indexed
	}
}

// Every holder's indexed balance equals balanceOf on the devnet after random trades, transfers
// and burns on both curves and the pool, a graduation, and a reorganization; and the holders
// add up to the supply.
func TestHoldersEqualTheChain(t *testing.T) {
	t.Parallel()
	w := newWorld(t, "")
	w.sync()
	w.checkHolders()
	rng := rand.New(rand.NewPCG(35, 1))
	traders := []devnet.Account{w.dev.Accounts[3], w.dev.Accounts[4], w.dev.Accounts[5]}
	tokens := []common.Address{w.dev.ETHToken.Token, w.dev.USDToken.Token, w.dev.GraduatedToken.Token}
	w.shake(rng, 20, traders, tokens)
	w.checkHolders()

	// DETH graduates: its curve's tokens go to the pool, the rest is burned.
	w.trade(w.dev.Accounts[5], w.dev.ETHToken.Token, curvekit.Buy, uint256.NewInt(15e18))
	w.sync()
	deth, err := w.store.Token(w.ctx, w.dev.ETHToken.Token)
	if err != nil {
		t.Fatal(err)
	}
	if !deth.State.Graduated || deth.GraduatedAt == 0 {
		t.Fatalf("DETH did not graduate: %+v", deth.State)
	}
	fork, err := w.chain.Head(w.ctx)
	if err != nil {
		t.Fatal(err)
	}
	w.shake(rng, 10, traders, tokens)
	w.checkHolders()

	// A reorganization: the chain forks below the last moves and grows with other ones.
	if err := w.dev.Backend.Fork(fork.Hash); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 12; i++ {
		w.dev.Mine()
	}
	w.sync()
	w.checkHolders()
	w.shake(rng, 8, traders, tokens)
	w.checkHolders()
	// And the store holds what a fresh index of the canonical chain holds (the block of a
	// balance's last change is the store's own: a rollback records the block it restored).
	fresh := newWorldOn(t, w)
	for _, tok := range tokens {
		if diff := cmp.Diff(balances(fresh.holders(tok)), balances(w.holders(tok))); diff != "" {
			t.Errorf("%s holders after the reorganization differ from a fresh index (-fresh +store):\n%s", tok, diff)
		}
	}
}

func balances(hs []market.Holding) []market.Holding {
	out := make([]market.Holding, len(hs))
	for i, h := range hs {
		h.Block = 0
		out[i] = h
	}
	return out
}

// newWorldOn is a second store indexing w's chain from scratch.
func newWorldOn(t *testing.T, w *world) *world {
	t.Helper()
	other := *w
	db, err := bunstore.Open(w.ctx, bunstore.Config{DSN: filepath.Join(t.TempDir(), "fresh.db")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	other.db, other.store = db, db.Market()
	ix, err := market.NewIndexer(w.ctx, market.IndexerConfig{Chain: w.chain, Store: other.store, BatchBlocks: 5})
	if err != nil {
		t.Fatal(err)
	}
	other.ix = ix
	other.sync()
	return &other
}

// The holders' labels: the curve, the pool, the burn address, the creator (whose first buy is
// in the launch transaction), a buyer within the sniper window, and a later buyer without one.
func TestHolderLabels(t *testing.T) {
	t.Parallel()
	w := newWorld(t, "")
	creator, sniper, later := w.dev.Accounts[3], w.dev.Accounts[4], w.dev.Accounts[5]
	plan, err := w.builder.Launch(txbuild.Launch{From: creator.Address, Name: "Labels", Symbol: "LBL", URI: "ipfs://labels", InitialBuy: *uint256.NewInt(1e17)})
	if err != nil {
		t.Fatal(err)
	}
	to := plan.Tx.To
	if _, err := w.dev.Send(w.ctx, creator.Key, &to, plan.Tx.Value.ToBig(), plan.Tx.Data); err != nil {
		t.Fatal(err)
	}
	w.sync()
	page, err := w.store.Tokens(w.ctx, market.TokenQuery{Search: "Labels", Limit: 1})
	if err != nil || len(page.Tokens) != 1 {
		t.Fatalf("the launch is not indexed: %v", err)
	}
	tok := page.Tokens[0]
	w.trade(sniper, tok.Address, curvekit.Buy, uint256.NewInt(2e17))
	w.sync()
	if err := w.dev.AdjustTime(time.Hour); err != nil {
		t.Fatal(err)
	}
	w.trade(later, tok.Address, curvekit.Buy, uint256.NewInt(3e17))
	w.sync()
	w.send(later, tok.Address, bindings.NewCurveToken().PackTransfer(market.BurnAddress, big.NewInt(1e18)))
	w.sync()

	svc, err := market.NewService(market.ServiceConfig{Store: w.store, Builder: w.builder, SniperWindow: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	hp, err := svc.Holders(w.ctx, market.HolderQuery{Token: tok.Address})
	if err != nil {
		t.Fatal(err)
	}
	got := map[common.Address]market.Label{}
	var shares float64
	for _, h := range hp.Holders {
		got[h.Holder] = h.Label
		shares += h.Share
	}
	want := map[common.Address]market.Label{
		tok.Curve: market.LabelCurve, market.BurnAddress: market.LabelBurn,
		creator.Address: market.LabelCreator, sniper.Address: market.LabelSniper, later.Address: "",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("labels (-want +got):\n%s", diff)
	}
	if shares < 0.999999 || shares > 1.000001 {
		t.Fatalf("the shares add up to %v", shares)
	}
	// The pool of a graduated token.
	gp, err := svc.Holders(w.ctx, market.HolderQuery{Token: w.dev.GraduatedToken.Token})
	if err != nil {
		t.Fatal(err)
	}
	grad, err := w.store.Token(w.ctx, w.dev.GraduatedToken.Token)
	if err != nil {
		t.Fatal(err)
	}
	pools := 0
	for _, h := range gp.Holders {
		if (h.Holder == grad.Pool) != (h.Label == market.LabelPool) {
			t.Fatalf("GRAD holder %+v; its pool is %s", h, grad.Pool)
		}
		if h.Label == market.LabelPool {
			pools++
		}
	}
	if pools != 1 {
		t.Fatalf("GRAD lists its pool %d times", pools)
	}
	// The token view's concentration: the creator's share and the top ten without the curve.
	v, err := svc.Token(w.ctx, tok.Address)
	if err != nil {
		t.Fatal(err)
	}
	c := v.Concentration
	if c == nil || c.Holders != 5 {
		t.Fatalf("concentration %+v, want 5 holders", c)
	}
	var top float64
	for _, h := range hp.Holders {
		if h.Label != market.LabelCurve {
			top += h.Share
		}
	}
	if d := c.Top10Share - top; d > 1e-12 || d < -1e-12 || c.CreatorShare != sharesOf(hp, creator.Address) {
		t.Fatalf("concentration %+v, want top ten %v and the creator's %v", c, top, sharesOf(hp, creator.Address))
	}
}

func sharesOf(p market.HoldersPage, a common.Address) float64 {
	for _, h := range p.Holders {
		if h.Holder == a {
			return h.Share
		}
	}
	return 0
}
