package app_test

import (
	"context"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/curvekit/curvekit"
	"github.com/curvekit/curvekit/account"
	"github.com/curvekit/curvekit/internal/app/apptest"
	"github.com/curvekit/curvekit/orders"
)

// An order's fire goes through the account's guard like any send: above the per-transaction cap
// it is refused, and the activity log names the fire, not a session.
func TestOrderFiresMeetTheGuard(t *testing.T) {
	srv := apptest.Start(t, nil)
	a := srv.App
	ctx := context.Background()
	dn := a.Devnet
	const acct = "acc-guarded-dca"
	wallet, err := a.Wallets.Create(ctx, acct)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := dn.Send(ctx, dn.Accounts[1].Key, &wallet, big.NewInt(1e18), nil); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Settings.Update(ctx, account.UpdateParams{AccountID: acct, Actor: account.Actor{SignedInAt: time.Now()},
		Patch: []byte(`{"wallet":{"limits":{"ETH":{"perTransaction":"0.0005"}}}}`)}); err != nil {
		t.Fatal(err)
	}
	o, err := a.Orders.Place(ctx, orders.PlaceParams{AccountID: acct, Wallet: wallet, Request: orders.Request{
		Kind: "dca", Token: dn.ETHToken.Token.Hex(), Side: "buy", Amount: "0.001", Every: "1m", Times: 2,
	}})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.OrderEngine.Tick(ctx, a.Replica.Status().Term); err != nil {
		t.Fatal(err)
	}
	var refusal account.Activity
	waitFor(t, "the fire's refusal in the activity log", func() bool {
		page, err := a.Settings.Activity(ctx, acct, "", 10)
		if err != nil || len(page.Entries) == 0 || page.Entries[0].Kind != account.KindRefusal {
			return false
		}
		refusal = page.Entries[0]
		return true
	})
	if refusal.Code != string(curvekit.CodePerTxLimitExceeded) || !strings.HasPrefix(refusal.Actor, "order fire ") {
		t.Fatalf("refusal %+v", refusal)
	}
	got, err := a.Orders.Order(ctx, acct, o.ID)
	if err != nil {
		t.Fatal(err)
	}
	if page, _ := a.Wallets.Transactions(ctx, acct, "", 10); len(page.Transactions) != 0 {
		t.Fatalf("a refused fire sent %d transactions (order %+v)", len(page.Transactions), got)
	}
}
