package evm_test

import (
	"context"
	"errors"
	"math/big"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/holiman/uint256"

	"github.com/curvekit/curvekit"
	"github.com/curvekit/curvekit/adapters/evm"
	"github.com/curvekit/curvekit/adapters/evm/devnet"
	"github.com/curvekit/curvekit/curve"
	"github.com/curvekit/curvekit/market"
	"github.com/curvekit/curvekit/txbuild"
)

// harness ties a devnet to the adapter and a builder whose clock is the chain's own.
type harness struct {
	t       testing.TB
	ctx     context.Context
	dev     *devnet.Devnet
	chain   *evm.Chain
	builder *txbuild.Builder
}

func newHarness(t testing.TB) *harness {
	t.Helper()
	dev, err := devnet.Start(devnet.Config{Accounts: 8})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { dev.Close() })
	chain, err := evm.New(evm.Config{Client: dev.Client, Factory: dev.Addrs.Factory})
	if err != nil {
		t.Fatal(err)
	}
	h := &harness{t: t, ctx: context.Background(), dev: dev, chain: chain}
	h.builder, err = txbuild.New(txbuild.Config{
		ChainID: dev.ChainID.Uint64(), Factory: dev.Addrs.Factory, Router: dev.Addrs.Router, WETH: dev.Addrs.WETH,
		// Blocks are sealed faster than one a second, so the chain's clock runs ahead of the wall
		// clock: deadlines count from the head's timestamp.
		Now: func() time.Time {
			head, err := chain.Head(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			return time.Unix(head.Time, 0)
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// send signs exactly the unsigned transaction txbuild produced, mines it, and checks that the
// mined transaction carries txbuild's to, data, value and chain id unchanged.
func (h *harness) send(acc devnet.Account, tx *txbuild.Tx) (*types.Receipt, error) {
	h.t.Helper()
	if tx.From != (common.Address{}) && tx.From != acc.Address {
		h.t.Fatalf("tx from %s signed by %s", tx.From, acc.Address)
	}
	if tx.ChainID != h.dev.ChainID.Uint64() {
		h.t.Fatalf("tx chain id %d, devnet %s", tx.ChainID, h.dev.ChainID)
	}
	to := tx.To
	rcpt, err := h.dev.Send(h.ctx, acc.Key, &to, tx.Value.ToBig(), tx.Data)
	if rcpt != nil {
		mined, _, terr := h.dev.Client.TransactionByHash(h.ctx, rcpt.TxHash)
		if terr != nil {
			h.t.Fatal(terr)
		}
		if *mined.To() != tx.To || string(mined.Data()) != string(tx.Data) || mined.Value().Cmp(tx.Value.ToBig()) != 0 || mined.ChainId().Uint64() != tx.ChainID {
			h.t.Fatalf("mined tx differs from the built one")
		}
	}
	return rcpt, err
}

// sendPlan sends the approval (if any) and then the main transaction.
func (h *harness) sendPlan(acc devnet.Account, p *txbuild.Plan) (*types.Receipt, error) {
	h.t.Helper()
	if p.Approval != nil {
		if _, err := h.send(acc, p.Approval); err != nil {
			h.t.Fatalf("approval: %v", err)
		}
	}
	return h.send(acc, &p.Tx)
}

// events decodes the curvekit events of one receipt.
func (h *harness) events(rcpt *types.Receipt, kinds []market.EventKind, addrs ...common.Address) []market.Event {
	h.t.Helper()
	n := rcpt.BlockNumber.Uint64()
	evs, err := h.chain.Events(h.ctx, market.EventQuery{From: n, To: n, Kinds: kinds, Addresses: addrs})
	if err != nil {
		h.t.Fatal(err)
	}
	var out []market.Event
	for _, ev := range evs {
		if ev.TxHash == rcpt.TxHash {
			out = append(out, ev)
		}
	}
	return out
}

// token is a launched token as the test tracks it.
type token struct {
	addr, curve common.Address
	quote       common.Address // zero for ETH
	params      curve.Params
}

// launch launches a fresh token through a txbuild launch plan.
func (h *harness) launch(creator devnet.Account, quote common.Address, name string) token {
	h.t.Helper()
	plan, err := h.builder.Launch(txbuild.Launch{From: creator.Address, Name: name, Symbol: name[:3], URI: "ipfs://" + name, Quote: quote})
	if err != nil {
		h.t.Fatal(err)
	}
	rcpt, err := h.sendPlan(creator, &plan)
	if err != nil {
		h.t.Fatalf("launch %s: %v", name, err)
	}
	evs := h.events(rcpt, []market.EventKind{market.EventLaunched}, h.dev.Addrs.Factory)
	if len(evs) != 1 {
		h.t.Fatalf("launch %s: %d Launched events", name, len(evs))
	}
	info, err := h.chain.Launch(h.ctx, evs[0].Launched.Token)
	if err != nil {
		h.t.Fatal(err)
	}
	return token{addr: evs[0].Launched.Token, curve: evs[0].Launched.Curve, quote: quote, params: info.Params}
}

// market reads a token's tradable state from the chain.
func (h *harness) market(tk *token) txbuild.Market {
	h.t.Helper()
	m, err := h.chain.Market(h.ctx, tk.addr)
	if err != nil {
		h.t.Fatal(err)
	}
	return m
}

func (h *harness) balance(asset, owner common.Address) uint256.Int {
	h.t.Helper()
	b, err := h.chain.Balance(h.ctx, asset, owner)
	if err != nil {
		h.t.Fatal(err)
	}
	return b
}

func (h *harness) allowance(asset, owner, spender common.Address) *uint256.Int {
	h.t.Helper()
	if asset == (common.Address{}) {
		return nil
	}
	a, err := h.chain.Allowance(h.ctx, asset, owner, spender)
	if err != nil {
		h.t.Fatal(err)
	}
	return &a
}

// gasCost is what a receipt charged in ETH.
func gasCost(r *types.Receipt) uint256.Int {
	var c uint256.Int
	c.SetFromBig(new(big.Int).Mul(new(big.Int).SetUint64(r.GasUsed), r.EffectiveGasPrice))
	return c
}

// randAmount returns a random amount in [lo, hi) base units with wei-level digits.
func randAmount(r *rand.Rand, lo, hi *uint256.Int) uint256.Int {
	var span, z uint256.Int
	span.Sub(hi, lo)
	z.SetUint64(r.Uint64())
	z.Lsh(&z, 64)
	z.Or(&z, uint256.NewInt(r.Uint64()))
	z.Mod(&z, &span)
	z.Add(&z, lo)
	return z
}

func eq(t testing.TB, what string, got, want *uint256.Int) {
	t.Helper()
	if !got.Eq(want) {
		t.Fatalf("%s: chain %s, Go %s", what, got.Dec(), want.Dec())
	}
}

// tradeAndCheck builds one exact-input trade with txbuild, executes it from acc, and checks that
// the chain did exactly what the Go quote said, to the wei. It reports whether the trade ran on
// the pool.
func (h *harness) tradeAndCheck(acc devnet.Account, tk *token, side curvekit.Side, amount uint256.Int) (pool bool) {
	t := h.t
	t.Helper()
	m := h.market(tk)
	spender := tk.curve
	if m.State.Graduated {
		spender = h.dev.Addrs.Router
	}
	spent := tk.addr
	if side == curvekit.Buy {
		spent = tk.quote
	}
	q, plan, err := h.builder.Trade(&m, txbuild.Trade{Side: side, Amount: amount, SlippageBps: 100, From: acc.Address, Allowance: h.allowance(spent, acc.Address, spender)})
	if err != nil {
		t.Fatalf("build %s %s: %v", side, amount.Dec(), err)
	}
	quoteBefore, tokenBefore := h.balance(tk.quote, acc.Address), h.balance(tk.addr, acc.Address)
	if plan.Approval != nil {
		r, err := h.send(acc, plan.Approval)
		if err != nil {
			t.Fatalf("approval: %v", err)
		}
		if tk.quote == (common.Address{}) {
			c := gasCost(r)
			quoteBefore.Sub(&quoteBefore, &c)
		}
	}
	rcpt, err := h.send(acc, &plan.Tx)
	if err != nil {
		t.Fatalf("%s %s on %s: %v", side, amount.Dec(), q.Venue, err)
	}
	quoteAfter, tokenAfter := h.balance(tk.quote, acc.Address), h.balance(tk.addr, acc.Address)
	if tk.quote == (common.Address{}) {
		c := gasCost(rcpt)
		quoteAfter.Add(&quoteAfter, &c)
	}
	var quoteDelta, tokenDelta uint256.Int
	if side == curvekit.Buy {
		quoteDelta.Sub(&quoteBefore, &quoteAfter) // spent
		tokenDelta.Sub(&tokenAfter, &tokenBefore) // received
		var spentWant uint256.Int
		spentWant.Sub(&amount, &q.Refund)
		eq(t, "pairing asset spent", &quoteDelta, &spentWant)
		eq(t, "tokens received", &tokenDelta, &q.Out)
	} else {
		quoteDelta.Sub(&quoteAfter, &quoteBefore)
		tokenDelta.Sub(&tokenBefore, &tokenAfter)
		eq(t, "pairing asset received", &quoteDelta, &q.Out)
		eq(t, "tokens sold", &tokenDelta, &amount)
	}
	if q.Venue == curvekit.VenuePool {
		return true
	}
	// On the curve the event and the state must match the full Go quote.
	evs := h.events(rcpt, []market.EventKind{market.EventTrade, market.EventGraduated}, tk.curve)
	if len(evs) == 0 || evs[0].Kind != market.EventTrade {
		t.Fatalf("no Trade event")
	}
	ev := evs[0].Trade
	after := h.market(tk).State
	if side == curvekit.Buy {
		b, err := curve.QuoteBuy(&m.Params, &m.State, &amount)
		if err != nil {
			t.Fatal(err)
		}
		eq(t, "buy net", &ev.QuoteAmount, &b.Net)
		eq(t, "buy tokens", &ev.TokenAmount, &b.TokensOut)
		eq(t, "buy fee", &ev.Fee, &b.Fee)
		eq(t, "buy creator fee", &ev.CreatorFee, &b.CreatorFee)
		eq(t, "buy refund", &ev.Refund, &b.Refund)
		eq(t, "event vQ", &ev.VirtualQuote, &b.Traded.VirtualQuote)
		eq(t, "event vT", &ev.VirtualToken, &b.Traded.VirtualToken)
		eq(t, "event rQ", &ev.RealQuote, &b.Traded.RealQuote)
		eq(t, "event rT", &ev.RealToken, &b.Traded.RealToken)
		if after != b.After {
			t.Fatalf("state after buy: chain %+v, Go %+v", after, b.After)
		}
		if b.Graduates {
			if len(evs) != 2 || evs[1].Kind != market.EventGraduated {
				t.Fatalf("graduating buy without Graduated event")
			}
			g := evs[1].Graduated
			eq(t, "pool quote", &g.QuoteLiquidity, &b.Graduation.PoolQuote)
			eq(t, "pool token", &g.TokenLiquidity, &b.Graduation.PoolToken)
			eq(t, "burned", &g.TokensBurned, &b.Graduation.Burned)
		}
	} else {
		s, err := curve.QuoteSell(&m.Params, &m.State, &amount)
		if err != nil {
			t.Fatal(err)
		}
		eq(t, "sell gross", &ev.QuoteAmount, &s.Gross)
		eq(t, "sell fee", &ev.Fee, &s.Fee)
		eq(t, "sell creator fee", &ev.CreatorFee, &s.CreatorFee)
		if after != s.After {
			t.Fatalf("state after sell: chain %+v, Go %+v", after, s.After)
		}
	}
	eq(t, "quote fee", &ev.Fee, &q.Fee)
	eq(t, "quote creator fee", &ev.CreatorFee, &q.CreatorFee)
	return false
}

// TestGoQuotesEqualExecutionToTheWei runs at least 1,000 random buys and sells on ETH-paired and
// TUSD-paired curves, through graduation and on into the pool phase, each built by txbuild,
// signed by the test and executed on the in-process chain; every amount must match the Go quote.
func TestGoQuotesEqualExecutionToTheWei(t *testing.T) {
	if testing.Short() {
		t.Skip("runs 1,000 trades on the devnet")
	}
	h := newHarness(t)
	r := rand.New(rand.NewPCG(1, 2))
	traders := h.dev.Accounts[4:]
	const want = 1000
	const poolTradesPerToken = 40
	var curveTrades, poolTrades, graduations, launches int
	graduated := make(map[common.Address]int) // by pairing asset
	type live struct {
		token
		pool int
	}
	fresh := func(i int) *live {
		launches++
		quote, name := common.Address{}, "Ether"
		if i%2 == 1 {
			quote, name = h.dev.Addrs.USD, "Dollar"
		}
		return &live{token: h.launch(h.dev.Accounts[i%4], quote, name+string(rune('A'+launches)))}
	}
	tokens := []*live{fresh(0), fresh(1)}
	for n := 0; curveTrades+poolTrades < want; n++ {
		i := n % len(tokens)
		tk := tokens[i]
		acc := traders[r.IntN(len(traders))]
		side := curvekit.Buy
		held := h.balance(tk.addr, acc.Address)
		if !held.IsZero() && r.IntN(100) < 35 {
			side = curvekit.Sell
		}
		var amount uint256.Int
		if side == curvekit.Buy {
			// Up to a twelfth of the graduation threshold, any wei: a curve graduates within
			// a few dozen trades, and crossing buys overshoot it.
			hi := new(uint256.Int).Div(&tk.params.GraduationQuote, uint256.NewInt(12))
			amount = randAmount(r, uint256.NewInt(1), hi)
		} else {
			switch r.IntN(10) {
			case 0:
				amount = held // the whole balance
			default:
				third := new(uint256.Int).Div(&held, uint256.NewInt(3))
				amount = randAmount(r, uint256.NewInt(1), third.AddUint64(third, 2))
			}
		}
		m := h.market(&tk.token)
		if _, err := txbuild.QuoteTrade(&m, side, &amount); err != nil {
			// A dust sell that rounds to nothing is refused by Go exactly where the contract
			// reverts; check that too, then move on.
			if !errors.Is(err, curve.ErrTooSmall) {
				t.Fatalf("quote %s %s: %v", side, amount.Dec(), err)
			}
			continue
		}
		wasCurve := !m.State.Graduated
		if h.tradeAndCheck(acc, &tk.token, side, amount) {
			poolTrades++
			tk.pool++
		} else {
			curveTrades++
		}
		if wasCurve && h.market(&tk.token).State.Graduated {
			graduations++
			graduated[tk.quote]++
		}
		if tk.pool >= poolTradesPerToken {
			tokens[i] = fresh(i)
		}
	}
	t.Logf("%d curve trades, %d pool trades, %d graduations, %d launches, all equal to the wei", curveTrades, poolTrades, graduations, launches)
	if graduated[common.Address{}] == 0 || graduated[h.dev.Addrs.USD] == 0 || poolTrades == 0 {
		t.Fatalf("the run must cross graduation on both pairings: %v graduations, %d pool trades", graduated, poolTrades)
	}
}
