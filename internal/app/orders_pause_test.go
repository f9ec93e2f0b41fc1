package app_test

import (
	"context"
	"math/big"
	"testing"
	"time"

	"github.com/holiman/uint256"

	"github.com/curvekit/curvekit"
	"github.com/curvekit/curvekit/account"
	"github.com/curvekit/curvekit/internal/app/apptest"
	"github.com/curvekit/curvekit/orders"
)

// On the devnet, a trader pauses the wallet and the price crosses a limit buy meanwhile: the fire
// is refused once (the activity log says WALLET_PAUSED), then held, triggered and unsent, for as
// long as the pause lasts. Once the account resumes and the price still reaches the trigger, the
// same fire goes out and fills: one transaction, the order filled.
func TestPausedWalletHoldsItsOrders(t *testing.T) {
	srv := apptest.Start(t, nil)
	a := srv.App
	ctx := context.Background()
	dn := a.Devnet
	deth := dn.ETHToken.Token
	const acct = "acc-paused-orders"
	wallet := fundedWallet(t, a, acct, new(big.Int).Mul(big.NewInt(2), big.NewInt(1e18)))
	stop := dn.MineEvery(20 * time.Millisecond)
	defer stop()
	trader := dn.Accounts[2]
	devTrade(t, a, trader, deth, curvekit.Buy, "1")

	tok, err := a.Store.Token(ctx, deth)
	if err != nil {
		t.Fatal(err)
	}
	p0 := orders.TokenPrice(&tok)
	var trigger uint256.Int
	trigger.Mul(&p0, uint256.NewInt(97))
	trigger.Div(&trigger, uint256.NewInt(100))
	limit, err := a.Orders.Place(ctx, orders.PlaceParams{AccountID: acct, Wallet: wallet, Request: orders.Request{
		Kind: "limit", Token: deth.Hex(), Side: "buy", Amount: "0.01", Price: orders.FormatPrice(&trigger, 18), Slippage: new(float64(5)),
	}})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.OrderEngine.Tick(ctx, a.Replica.Status().Term); err != nil {
		t.Fatal(err)
	}
	settings := func(patch string) {
		t.Helper()
		if _, err := a.Settings.Update(ctx, account.UpdateParams{AccountID: acct, Actor: account.Actor{SignedInAt: time.Now()}, Patch: []byte(patch)}); err != nil {
			t.Fatal(err)
		}
	}
	get := func() orders.Order {
		t.Helper()
		o, err := a.Orders.Order(ctx, acct, limit.ID)
		if err != nil {
			t.Fatal(err)
		}
		return o
	}
	refusals := func() int {
		page, err := a.Settings.Activity(ctx, acct, "", 50)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, e := range page.Entries {
			if e.Kind == account.KindRefusal && e.Code == string(curvekit.CodeWalletPaused) {
				n++
			}
		}
		return n
	}

	settings(`{"wallet":{"paused":true}}`)
	held, err := a.Chain.Balance(ctx, deth, trader.Address)
	if err != nil {
		t.Fatal(err)
	}
	var half uint256.Int
	half.Div(&held, uint256.NewInt(2))
	devTrade(t, a, trader, deth, curvekit.Sell, curvekit.FormatAmount(&half, 18))
	waitFor(t, "the paused fire refused", func() bool { return refusals() > 0 })
	// Ticks go by (the engine's clock runs every second in the server; these are more of them).
	for range 3 {
		if err := a.OrderEngine.Tick(ctx, a.Replica.Status().Term); err != nil {
			t.Fatal(err)
		}
	}
	if o := get(); o.State != orders.Triggered || len(o.Fires) != 1 || o.Fires[0].State != orders.FireTriggered {
		t.Fatalf("during the pause the order is %s with fires %+v", o.State, o.Fires)
	}
	if n := refusals(); n != 1 {
		t.Errorf("the held fire was refused %d times during the pause, want once", n)
	}
	if page, _ := a.Wallets.Transactions(ctx, acct, "", 10); len(page.Transactions) != 0 {
		t.Fatalf("a paused wallet sent %d transactions", len(page.Transactions))
	}

	settings(`{"wallet":{"paused":false}}`)
	waitFor(t, "the held limit buy filled", func() bool { return get().State == orders.Filled })
	o := get()
	if len(o.Fires) != 1 || o.Fires[0].ID != limit.ID+"_f0" || o.Fires[0].AmountOut.IsZero() {
		t.Fatalf("the limit buy's fires: %+v", o.Fires)
	}
	if page, err := a.Wallets.Transactions(ctx, acct, "", 10); err != nil || len(page.Transactions) != 1 {
		t.Errorf("the wallet sent %d transactions (%v), want the one buy", len(page.Transactions), err)
	}
}
