package evm_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/holiman/uint256"

	"github.com/curvekit/curvekit"
	"github.com/curvekit/curvekit/adapters/evm/devnet"
	"github.com/curvekit/curvekit/curve"
	"github.com/curvekit/curvekit/market"
	"github.com/curvekit/curvekit/txbuild"
)

func wantRevert(t *testing.T, err error, reason string) {
	t.Helper()
	if err == nil {
		t.Fatalf("transaction succeeded, want a revert (%s)", reason)
	}
	var rev *devnet.RevertError
	if !errors.As(err, &rev) {
		t.Fatalf("err = %v, want a revert (%s)", err, reason)
	}
	if reason != "" && !strings.Contains(err.Error(), reason) {
		t.Fatalf("revert %v, want %s", err, reason)
	}
}

func ether(n uint64) uint256.Int {
	var z uint256.Int
	z.Mul(uint256.NewInt(n), uint256.NewInt(1e18))
	return z
}

// A buy built at 1% slippage reverts when a front-runner moves the price further than that, and
// goes through when the front-runner moves it less. A deadline in the past reverts.
func TestSlippageAndDeadline(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	victim, runner := h.dev.Accounts[4], h.dev.Accounts[5]
	for _, pairing := range []common.Address{{}, h.dev.Addrs.USD} {
		tk := h.launch(h.dev.Accounts[0], pairing, "Slippy")
		amount := new(uint256.Int).Div(&tk.params.GraduationQuote, uint256.NewInt(20))
		build := func(acc devnet.Account, amt *uint256.Int) txbuild.Plan {
			m := h.market(&tk)
			_, plan, err := h.builder.Trade(&m, txbuild.Trade{Side: curvekit.Buy, Amount: *amt, SlippageBps: 100, From: acc.Address, Allowance: h.allowance(tk.quote, acc.Address, tk.curve)})
			if err != nil {
				t.Fatal(err)
			}
			return plan
		}
		// Front-run large enough to move the price by more than 1%: the victim's output drops
		// by more than 1% and its min-out check reverts.
		plan := build(victim, amount)
		if plan.Approval != nil {
			if _, err := h.send(victim, plan.Approval); err != nil {
				t.Fatal(err)
			}
			plan.Approval = nil
		}
		big := new(uint256.Int).Div(&tk.params.GraduationQuote, uint256.NewInt(10))
		front := build(runner, big)
		if _, err := h.sendPlan(runner, &front); err != nil {
			t.Fatal(err)
		}
		_, err := h.send(victim, &plan.Tx)
		wantRevert(t, err, "InsufficientOutput")

		// A small front-run keeps the output within 1%: the same kind of build succeeds.
		plan = build(victim, amount)
		small := new(uint256.Int).Div(amount, uint256.NewInt(1000))
		front = build(runner, small)
		if _, err := h.sendPlan(runner, &front); err != nil {
			t.Fatal(err)
		}
		if _, err := h.sendPlan(victim, &plan); err != nil {
			t.Fatalf("buy after a small front-run: %v", err)
		}

		// A deadline already past reverts.
		head, err := h.chain.Head(h.ctx)
		if err != nil {
			t.Fatal(err)
		}
		m := h.market(&tk)
		_, late, err := h.builder.Trade(&m, txbuild.Trade{Side: curvekit.Buy, Amount: *amount, SlippageBps: 100, From: victim.Address, Deadline: head.Time - 1, Allowance: h.allowance(tk.quote, victim.Address, tk.curve)})
		if err != nil {
			t.Fatal(err)
		}
		_, err = h.sendPlan(victim, &late)
		wantRevert(t, err, "DeadlineExpired")
	}
}

// The buy that crosses graduation is capped and refunded exactly as quoted; afterwards curve
// trades are refused (by Go and by the contract) and router swaps deliver to the recipient given.
func TestGraduation(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	buyer, other, recipient := h.dev.Accounts[4], h.dev.Accounts[5], h.dev.Accounts[6]
	for _, pairing := range []common.Address{{}, h.dev.Addrs.USD} {
		tk := h.launch(h.dev.Accounts[1], pairing, "Grad")
		// Twice the threshold: the buy is capped at the threshold and the rest comes back.
		amount := new(uint256.Int).Mul(&tk.params.GraduationQuote, uint256.NewInt(2))
		m := h.market(&tk)
		q, err := txbuild.QuoteTrade(&m, curvekit.Buy, amount)
		if err != nil {
			t.Fatal(err)
		}
		if !q.Graduates || q.Refund.IsZero() {
			t.Fatalf("quote %+v: want a graduating buy with a refund", q)
		}
		h.tradeAndCheck(buyer, &tk, curvekit.Buy, *amount) // checks refund, tokens and events to the wei

		m = h.market(&tk)
		if !m.State.Graduated {
			t.Fatal("curve did not graduate")
		}
		if _, err := curve.QuoteBuy(&m.Params, &m.State, uint256.NewInt(1e6)); !errors.Is(err, curve.ErrGraduated) {
			t.Fatalf("Go curve buy after graduation: %v", err)
		}
		// The contract refuses a curve buy too, however it is built.
		b, err := h.builder.CurveBuy(txbuild.CurveBuy{From: other.Address, Curve: tk.curve, Quote: tk.quote, AmountIn: *uint256.NewInt(1e6)})
		if err != nil {
			t.Fatal(err)
		}
		if b.Approval != nil {
			if _, err := h.send(other, b.Approval); err != nil {
				t.Fatal(err)
			}
		}
		_, err = h.send(other, &b.Tx)
		wantRevert(t, err, "CurveGraduated")

		// A pool build needs a recipient; with one, the router pays it exactly the quote.
		if _, _, err := h.builder.Trade(&m, txbuild.Trade{Side: curvekit.Buy, Amount: *uint256.NewInt(1e6)}); !errors.Is(err, txbuild.ErrRecipientRequired) {
			t.Fatalf("pool build without recipient: %v", err)
		}
		in := new(uint256.Int).Div(&tk.params.GraduationQuote, uint256.NewInt(50))
		q, plan, err := h.builder.Trade(&m, txbuild.Trade{Side: curvekit.Buy, Amount: *in, SlippageBps: 100, From: other.Address, Recipient: recipient.Address, Allowance: h.allowance(tk.quote, other.Address, h.dev.Addrs.Router)})
		if err != nil {
			t.Fatal(err)
		}
		before := h.balance(tk.addr, recipient.Address)
		rcpt, err := h.sendPlan(other, &plan)
		if err != nil {
			t.Fatal(err)
		}
		after := h.balance(tk.addr, recipient.Address)
		var got uint256.Int
		got.Sub(&after, &before)
		eq(t, "tokens delivered to the recipient", &got, &q.Out)
		if held := h.balance(tk.addr, other.Address); !held.IsZero() {
			t.Fatalf("the sender received %s tokens; the recipient should have", held.Dec())
		}
		pair, err := h.chain.Pool(h.ctx, tk.curve)
		if err != nil {
			t.Fatal(err)
		}
		swaps := h.events(rcpt, []market.EventKind{market.EventPoolSwap}, pair)
		if len(swaps) != 1 || swaps[0].Swap.To != recipient.Address {
			t.Fatalf("swap events %+v", swaps)
		}
	}
}

// Creator fees accrue in the pairing asset exactly as the Go quotes say; only the creator can
// claim, and the claim pays exactly what accrued. Selling one wei more than the balance reverts.
func TestCreatorFeesAndOverSell(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	creator, trader, stranger := h.dev.Accounts[2], h.dev.Accounts[4], h.dev.Accounts[5]
	for _, pairing := range []common.Address{{}, h.dev.Addrs.USD} {
		tk := h.launch(creator, pairing, "Fees")
		var accrued uint256.Int
		step := new(uint256.Int).Div(&tk.params.GraduationQuote, uint256.NewInt(40))
		for i := 0; i < 6; i++ {
			side, amount := curvekit.Buy, *step
			if i%3 == 2 {
				side = curvekit.Sell
				held := h.balance(tk.addr, trader.Address)
				amount.Div(&held, uint256.NewInt(2))
			}
			m := h.market(&tk)
			q, err := txbuild.QuoteTrade(&m, side, &amount)
			if err != nil {
				t.Fatal(err)
			}
			accrued.Add(&accrued, &q.CreatorFee)
			h.tradeAndCheck(trader, &tk, side, amount)
		}
		onChain, err := h.chain.CreatorFeesAccrued(h.ctx, tk.curve)
		if err != nil {
			t.Fatal(err)
		}
		eq(t, "creator fees accrued", &onChain, &accrued)

		claim, err := h.builder.ClaimCreatorFees(stranger.Address, tk.curve)
		if err != nil {
			t.Fatal(err)
		}
		_, err = h.send(stranger, &claim)
		wantRevert(t, err, "NotCreator")

		claim, err = h.builder.ClaimCreatorFees(creator.Address, tk.curve)
		if err != nil {
			t.Fatal(err)
		}
		before := h.balance(tk.quote, creator.Address)
		rcpt, err := h.send(creator, &claim)
		if err != nil {
			t.Fatal(err)
		}
		after := h.balance(tk.quote, creator.Address)
		if tk.quote == (common.Address{}) {
			c := gasCost(rcpt)
			after.Add(&after, &c)
		}
		var paid uint256.Int
		paid.Sub(&after, &before)
		eq(t, "claim paid", &paid, &accrued)
		if left, _ := h.chain.CreatorFeesAccrued(h.ctx, tk.curve); !left.IsZero() {
			t.Fatalf("%s still accrued after the claim", left.Dec())
		}

		// Balance + 1 wei: the token's transferFrom refuses it.
		held := h.balance(tk.addr, trader.Address)
		over := new(uint256.Int).AddUint64(&held, 1)
		m := h.market(&tk)
		_, plan, err := h.builder.Trade(&m, txbuild.Trade{Side: curvekit.Sell, Amount: *over, SlippageBps: 100, From: trader.Address})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := h.send(trader, plan.Approval); err != nil {
			t.Fatal(err)
		}
		_, err = h.send(trader, &plan.Tx)
		wantRevert(t, err, "ERC20InsufficientBalance")
		// The balance itself sells.
		h.tradeAndCheck(trader, &tk, curvekit.Sell, held)
	}
}

// BenchmarkQuoteVersusEthCall sets the Go quote beside an eth_call of the curve's own
// previewBuy on the devnet.
func BenchmarkQuoteVersusEthCall(b *testing.B) {
	h := newHarness(b)
	tk := h.launch(h.dev.Accounts[0], common.Address{}, "Bench")
	m := h.market(&tk)
	in := ether(1)
	b.Run("go", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := curve.QuoteBuy(&m.Params, &m.State, &in); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("eth_call", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := h.chain.PreviewBuy(h.ctx, tk.curve, &in); err != nil {
				b.Fatal(err)
			}
		}
	})
}
