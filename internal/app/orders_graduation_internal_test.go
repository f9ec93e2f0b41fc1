package app

import (
	"context"
	"errors"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/holiman/uint256"

	"github.com/curvekit/curvekit"
	"github.com/curvekit/curvekit/market"
	"github.com/curvekit/curvekit/orders"
	"github.com/curvekit/curvekit/wallet"
)

// TestOrderFireAcrossTheGraduationWindow walks a fire's sell through the moments when the
// token's venue moves under it, with the indexer held still so that each is reached on purpose:
//   - built on the curve, and the curve graduated on chain before the send: the simulation
//     refuses, nothing is signed, and the trader answers "unavailable" (the engine tries again);
//   - the curve graduated on chain and not yet indexed: the build cannot price either venue,
//     and the answer is again "unavailable";
//   - once the indexer has the pool: the router's approval, then the sell on the pool, which
//     sells the whole balance.
//
// A fire's transaction that reverted is told apart the same way: a curve trade whose curve has
// graduated since was moved under (its price order fires again), any other revert was not.
//
// Without the trader's handling the first two refusals fail the fire, and its order with it.
func TestOrderFireAcrossTheGraduationWindow(t *testing.T) {
	ctx := context.Background()
	a := openOn(t, t.TempDir())
	defer a.Close()
	dn := a.Devnet
	deth := dn.ETHToken.Token
	const account = "acc_gradwindow"
	w := fundedWallet(t, a, account)
	graduate := func() {
		for i := 0; ; i++ {
			if grad, err := a.Market.GraduatedNow(ctx, deth); err != nil || grad {
				if err != nil {
					t.Error(err)
				}
				return
			}
			if i == 50 {
				t.Error("DETH did not graduate")
				return
			}
			acc := dn.Accounts[3]
			built, err := a.Market.BuildTx(ctx, deth, market.BuildRequest{Side: curvekit.Buy, Amount: "1", SlippageBps: 5_000, Wallet: acc.Address, Recipient: acc.Address})
			if err != nil {
				t.Error(err)
				return
			}
			to := built.Plan.Tx.To
			if _, err := dn.Send(ctx, acc.Key, &to, built.Plan.Tx.Value.ToBig(), built.Plan.Tx.Data); err != nil {
				t.Error(err)
				return
			}
		}
	}
	tr := &orderTrader{app: a}
	trade := func(p orders.TradeParams) (orders.TradeResult, error) {
		p.AccountID, p.Wallet, p.Token, p.SlippageBps = account, w, deth, 2_000
		res, err := tr.Trade(ctx, p)
		if err == nil {
			dn.Mine()
		}
		return res, err
	}
	sent := func() int {
		page, err := a.Wallets.Transactions(ctx, account, "", wallet.MaxTransactions)
		if err != nil {
			t.Fatal(err)
		}
		return len(page.Transactions)
	}

	// The wallet buys DETH, and approves the curve for its sell.
	if _, err := trade(orders.TradeParams{Side: curvekit.Buy, Amount: *uint256.NewInt(1e16), Key: "fire_buy"}); err != nil {
		t.Fatal(err)
	}
	sell := orders.TradeParams{Side: curvekit.Sell, PercentBps: 10_000, Key: "fire_sell"}
	if res, err := trade(sell); err != nil || !res.Pending {
		t.Fatalf("the sell's first step: %+v, %v; want the curve's approval", res, err)
	}
	if err := a.Replica.Sync(ctx); err != nil {
		t.Fatal(err)
	}

	tok, err := a.Store.Token(ctx, deth)
	if err != nil {
		t.Fatal(err)
	}
	onCurve := &wallet.Transaction{To: tok.Curve}
	if again, err := tr.revertedOnAGraduatedCurve(ctx, deth, onCurve); err != nil || again {
		t.Errorf("a curve trade that reverted before the graduation counts as moved under: %v, %v", again, err)
	}

	// Built on the curve; the curve graduates before the send.
	tr.built = graduate
	_, err = trade(sell)
	tr.built = nil
	if !errors.Is(err, curvekit.ErrUnavailable) || curvekit.CodeOf(err) != curvekit.CodeSimulationReverted {
		t.Fatalf("the sell built on the curve that graduated before its send: %v; want unavailable, with the simulation's refusal", err)
	}
	if n := sent(); n != 2 {
		t.Errorf("the wallet sent %d transactions, want 2 (the buy, the approval)", n)
	}
	// A curve trade that reverted now is one the graduation moved under; a pool trade is not.
	if again, err := tr.revertedOnAGraduatedCurve(ctx, deth, onCurve); err != nil || !again {
		t.Errorf("a curve trade that reverted after the graduation: %v, %v; want moved under", again, err)
	}
	if again, _ := tr.revertedOnAGraduatedCurve(ctx, deth, &wallet.Transaction{To: a.router}); again {
		t.Error("a router trade that reverted counts as moved under by the graduation")
	}
	// Graduated on chain, not yet indexed.
	if _, err = trade(sell); !errors.Is(err, curvekit.ErrUnavailable) || !errors.Is(err, market.ErrGraduating) {
		t.Fatalf("the sell while the graduation is not indexed: %v; want unavailable", err)
	}
	// Indexed: the router's approval, then the sell on the pool.
	if err := a.Replica.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if res, err := trade(sell); err != nil || !res.Pending {
		t.Fatalf("the sell's step after the graduation: %+v, %v; want the router's approval", res, err)
	}
	res, err := trade(sell)
	if err != nil || res.Pending {
		t.Fatalf("the sell on the pool: %+v, %v", res, err)
	}
	if err := a.Replica.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	page, err := a.Store.Trades(ctx, market.TradeQuery{Token: deth, Limit: 5})
	if err != nil {
		t.Fatal(err)
	}
	var venue curvekit.Venue
	for _, x := range page.Trades {
		if x.TxHash == res.TxHash {
			venue = x.Venue
		}
	}
	if venue != curvekit.VenuePool {
		t.Errorf("the sell %s traded on %q, want the pool", res.TxHash, venue)
	}
	if left, _ := a.Chain.Balance(ctx, deth, w); !left.IsZero() {
		t.Errorf("the wallet still holds %s DETH", left.Dec())
	}
	if n := sent(); n != 4 {
		t.Errorf("the wallet sent %d transactions, want 4 (buy, two approvals, sell)", n)
	}
}

// fundedWallet creates account's custodial wallet and sends it 1 ETH from a devnet account.
func fundedWallet(t *testing.T, a *App, account string) common.Address {
	t.Helper()
	ctx := context.Background()
	w, err := a.Wallets.Create(ctx, account)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Devnet.Send(ctx, a.Devnet.Accounts[1].Key, &w, big.NewInt(1e18), nil); err != nil {
		t.Fatal(err)
	}
	return w
}
