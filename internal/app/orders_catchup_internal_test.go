package app

import (
	"context"
	"math/big"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/holiman/uint256"

	"github.com/curvekit/curvekit"
	"github.com/curvekit/curvekit/adapters/evm/devnet"
	"github.com/curvekit/curvekit/market"
	"github.com/curvekit/curvekit/orders"
)

// TestOrdersOfALeaderKilledAfterTheIndexersCommit: the indexer's leader commits a sell that takes
// DETH's price through a stop-loss and a buy that takes it back, and dies before its orders
// engine evaluates that commit (here: the blocks are committed by an indexer without observers,
// and the server is closed). The price now is above the stop. The server restarted on the same
// database and devnet evaluates what its last evaluation did not reach, fires the stop-loss at
// the sell's trade, and the wallet's DETH is sold on chain, once.
func TestOrdersOfALeaderKilledAfterTheIndexersCommit(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	a := openOn(t, dir)
	dn := a.Devnet
	deth := dn.ETHToken.Token
	const account = "acc_catchup"
	w, err := a.Wallets.Create(ctx, account)
	if err != nil {
		a.Close()
		t.Fatal(err)
	}
	if _, err := dn.Send(ctx, dn.Accounts[1].Key, &w, big.NewInt(1e18), nil); err != nil {
		a.Close()
		t.Fatal(err)
	}
	fail := func(format string, args ...any) {
		t.Helper()
		a.Close()
		t.Fatalf(format, args...)
	}
	// The wallet buys DETH and a trader lifts the price; both are indexed and evaluated.
	if _, err := (&orderTrader{app: a}).Trade(ctx, orders.TradeParams{AccountID: account, Wallet: w, Token: deth, Side: curvekit.Buy,
		Amount: *uint256.NewInt(1e16), SlippageBps: 2_000, Key: "fire_buy"}); err != nil {
		fail("the wallet's buy: %v", err)
	}
	dn.Mine()
	trader := dn.Accounts[3]
	if err := devSend(ctx, a, trader, deth, curvekit.Buy, "3"); err != nil {
		fail("%v", err)
	}
	if err := a.Replica.Sync(ctx); err != nil {
		fail("%v", err)
	}
	tok, err := a.Store.Token(ctx, deth)
	if err != nil {
		fail("%v", err)
	}
	high := orders.TokenPrice(&tok)
	stop := new(uint256.Int).Div(new(uint256.Int).Mul(&high, uint256.NewInt(95)), uint256.NewInt(100))
	o, err := a.Orders.Place(ctx, orders.PlaceParams{AccountID: account, Wallet: w, Request: orders.Request{
		Kind: "stop-loss", Token: deth.Hex(), Percent: new(float64(100)), Price: orders.FormatPrice(stop, 18), Slippage: new(float64(20))}})
	if err != nil {
		fail("%v", err)
	}
	term, _ := a.leading()
	if err := a.OrderEngine.Tick(ctx, term); err != nil {
		fail("%v", err)
	}

	// Committed, not evaluated: the trader sells everything (the price falls through the stop)
	// and buys back.
	held, err := a.Chain.Balance(ctx, deth, trader.Address)
	if err != nil {
		fail("%v", err)
	}
	if err := devSend(ctx, a, trader, deth, curvekit.Sell, curvekit.FormatAmount(&held, 18)); err != nil {
		fail("%v", err)
	}
	if err := devSend(ctx, a, trader, deth, curvekit.Buy, "3"); err != nil {
		fail("%v", err)
	}
	ix, err := market.NewIndexer(ctx, market.IndexerConfig{Chain: a.Chain, Store: a.Store})
	if err != nil {
		fail("%v", err)
	}
	if _, err := ix.Sync(ctx); err != nil {
		fail("%v", err)
	}
	page, err := a.Store.Trades(ctx, market.TradeQuery{Token: deth, Limit: 2})
	if err != nil || len(page.Trades) != 2 || page.Trades[1].Side != curvekit.Sell {
		fail("the last trades: %+v, %v", page.Trades, err)
	}
	dip := page.Trades[1]
	if tok, _ = a.Store.Token(ctx, deth); func() bool { now := orders.TokenPrice(&tok); return now.Cmp(stop) <= 0 }() {
		fail("the price is at the stop again: the restart would fire it without evaluating the gap")
	}
	if got, _ := a.Orders.Order(ctx, account, o.ID); got.State != orders.Open {
		fail("the stop-loss before the restart: %s", got.State)
	}
	a.Close()

	// The restart.
	b := openOn(t, dir)
	serve(t, b)
	stopMining := b.Devnet.MineEvery(20 * time.Millisecond)
	defer stopMining()
	deadline := time.Now().Add(20 * time.Second)
	var got orders.Order
	for {
		if got, err = b.Orders.Order(ctx, account, o.ID); err == nil && got.State == orders.Filled {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the stop-loss after the restart: %+v, %v", got, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if len(got.Fires) != 1 || got.Fires[0].Block != dip.Block || got.Fires[0].LogIndex != dip.LogIndex {
		t.Errorf("the stop-loss fired %+v; want once, at the sell of block %d", got.Fires, dip.Block)
	}
	if left, _ := b.Chain.Balance(ctx, deth, w); !left.IsZero() {
		t.Errorf("the wallet still holds %s DETH", left.Dec())
	}
}

// devSend trades token from a devnet account (the approval first when needed), mined at once
// and not indexed.
func devSend(ctx context.Context, a *App, acc devnet.Account, token common.Address, side curvekit.Side, amount string) error {
	built, err := a.Market.BuildTx(ctx, token, market.BuildRequest{Side: side, Amount: amount, SlippageBps: 5_000, Wallet: acc.Address, Recipient: acc.Address})
	if err != nil {
		return err
	}
	if ap := built.Plan.Approval; ap != nil {
		to := ap.To
		if _, err := a.Devnet.Send(ctx, acc.Key, &to, ap.Value.ToBig(), ap.Data); err != nil {
			return err
		}
	}
	to := built.Plan.Tx.To
	_, err = a.Devnet.Send(ctx, acc.Key, &to, built.Plan.Tx.Value.ToBig(), built.Plan.Tx.Data)
	return err
}
