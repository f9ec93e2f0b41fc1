package app

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/holiman/uint256"

	"github.com/curvekit/curvekit"
	"github.com/curvekit/curvekit/orders"
	"github.com/curvekit/curvekit/wallet"
)

// TestOrderFireRetriedAfterItsTradeWasSent: a sell fire approves the curve, then sells, which
// uses the approval up. A leader that sent the sell and stopped before recording it leaves the
// fire triggered; the next attempt under the same key is answered with that sell and its
// approval, and signs nothing: not a second approval for the allowance the sell used up.
//
// Without the look-up of the fire's earlier trade, the retry finds the allowance short, is
// answered with the first approval again and waits for a trade that never comes.
func TestOrderFireRetriedAfterItsTradeWasSent(t *testing.T) {
	ctx := context.Background()
	a := openOn(t, t.TempDir())
	defer a.Close()
	dn := a.Devnet
	deth := dn.ETHToken.Token
	const account = "acc_retriedsell"
	w := fundedWallet(t, a, account)
	tr := &orderTrader{app: a}
	trade := func(p orders.TradeParams) orders.TradeResult {
		t.Helper()
		p.AccountID, p.Wallet, p.Token, p.SlippageBps = account, w, deth, 2_000
		res, err := tr.Trade(ctx, p)
		if err != nil {
			t.Fatalf("Trade(%s): %v", p.Key, err)
		}
		dn.Mine()
		return res
	}
	sent := func() int {
		page, err := a.Wallets.Transactions(ctx, account, "", wallet.MaxTransactions)
		if err != nil {
			t.Fatal(err)
		}
		return len(page.Transactions)
	}
	if res := trade(orders.TradeParams{Side: curvekit.Buy, Amount: *uint256.NewInt(1e16), Key: "fire_buy"}); res.Pending ||
		len(res.Txs) != 1 || res.Txs[0] != (orders.FireTx{Kind: orders.TxTrade, Hash: res.TxHash}) {
		t.Fatalf("a buy on the curve: %+v; want its trade alone (no approval spends ETH)", res)
	}
	sell := orders.TradeParams{Side: curvekit.Sell, PercentBps: 5_000, Key: "fire_sell"}
	first := trade(sell)
	if !first.Pending || len(first.Txs) != 1 || first.Txs[0].Kind != orders.TxApprove {
		t.Fatalf("the sell's first step: %+v; want the curve's approval", first)
	}
	approve := first.Txs[0]
	sold := trade(sell)
	want := []orders.FireTx{approve, {Kind: orders.TxTrade, Hash: sold.TxHash}}
	if sold.Pending || sold.TxHash == (first.Txs[0].Hash) || !cmp.Equal(want, sold.Txs) {
		t.Fatalf("the sell once approved: %+v; want the approval, then the sell", sold)
	}
	if n := sent(); n != 3 {
		t.Fatalf("the wallet sent %d transactions, want 3 (buy, approval, sell)", n)
	}
	allowance, err := a.Chain.Allowance(ctx, deth, w, dn.ETHToken.Curve)
	if err != nil || !allowance.IsZero() {
		t.Fatalf("the curve's allowance after the sell: %s, %v; want it used up", allowance.Dec(), err)
	}
	// The leader stopped before recording the sell: the next attempt is answered with it.
	again := trade(sell)
	if again.Pending || again.TxHash != sold.TxHash || !cmp.Equal(want, again.Txs) {
		t.Errorf("the sell retried after it was sent: %+v; want the sent sell %s and its approval", again, sold.TxHash.Hex())
	}
	if n := sent(); n != 3 {
		t.Errorf("the retry signed: the wallet sent %d transactions, want 3", n)
	}
}
