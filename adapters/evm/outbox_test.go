package evm_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/ethereum/go-ethereum/core/types"

	"github.com/curvekit/curvekit/adapters/evm"
	"github.com/curvekit/curvekit/push"
	"github.com/curvekit/curvekit/push/pushtest"
	"github.com/curvekit/curvekit/wallet"
)

// lostAnswer hands a send to the node, then reports that no answer came: the transaction is
// taken, its sender never hears so.
type lostAnswer struct{ *evm.Broadcaster }

func (l lostAnswer) Send(ctx context.Context, tx *types.Transaction) error {
	if err := l.Broadcaster.Send(ctx, tx); err != nil {
		return err
	}
	return errors.New("the connection to the node broke before its answer")
}

// txEvents builds one event per change of a transaction, for the account acct.
type txEvents struct{ account string }

func (e txEvents) TransactionEvents(t *wallet.Transaction) []push.Event {
	state := string(t.State)
	if t.State == wallet.TxPending {
		state = "sent"
	}
	return []push.Event{{ID: "evt_" + t.ID + "_" + state, Type: push.WalletTransaction, Time: t.SentAt, Account: e.account, Data: []byte(`{}`)}}
}

func (txEvents) Committed() {}

// A send whose node answer was lost records no sent event when it is sent (nobody knows it
// was); once the tracker finds it mined, it records sent and mined together, in the
// settlement's transaction. A send that went normally records sent at once and mined later,
// each once.
func TestCustodialSentEventOfALostAnswer(t *testing.T) {
	t.Parallel()
	c := newCustodial(t)
	c.wallet("acct-lost", 1)
	c.mined()
	bc, err := evm.NewBroadcaster(evm.BroadcastConfig{Client: c.dev.Client})
	if err != nil {
		t.Fatal(err)
	}
	events := txEvents{account: "acct-lost"}
	lost, err := wallet.New(wallet.Config{Store: c.store, Broadcaster: lostAnswer{bc}, Keys: c.keys, Signer: c.signer, Notifier: events})
	if err != nil {
		t.Fatal(err)
	}
	to := c.dev.Accounts[4].Address
	if _, err := lost.SignAndSubmit(c.ctx, wallet.SignParams{AccountID: "acct-lost", Tx: c.transfer(to, 5, 21_000)}); err == nil {
		t.Fatal("a send whose answer was lost succeeded")
	}
	recorded := func(want ...string) {
		t.Helper()
		if got := pushtest.EventIDs(t, c.db.Push(), "acct-lost"); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("events %v, want %v", got, want)
		}
	}
	recorded()
	page, err := lost.Transactions(c.ctx, "acct-lost", "", 10)
	if err != nil || len(page.Transactions) != 1 {
		t.Fatalf("the followed transaction: %+v, %v", page.Transactions, err)
	}
	first := page.Transactions[0].ID
	c.mined(page.Transactions[0].Hash)
	if err := lost.TrackOnce(c.ctx); err != nil {
		t.Fatal(err)
	}
	recorded("evt_"+first+"_sent", "evt_"+first+"_mined")

	normal, err := wallet.New(wallet.Config{Store: c.store, Broadcaster: bc, Keys: c.keys, Signer: c.signer, Notifier: events})
	if err != nil {
		t.Fatal(err)
	}
	sub, err := normal.SignAndSubmit(c.ctx, wallet.SignParams{AccountID: "acct-lost", Tx: c.transfer(to, 6, 21_000)})
	if err != nil {
		t.Fatal(err)
	}
	page, err = normal.Transactions(c.ctx, "acct-lost", "", 1)
	if err != nil || len(page.Transactions) != 1 || page.Transactions[0].Hash != sub.Hash {
		t.Fatalf("the second transaction: %+v, %v", page.Transactions, err)
	}
	second := page.Transactions[0].ID
	recorded("evt_"+first+"_sent", "evt_"+first+"_mined", "evt_"+second+"_sent")
	c.mined(sub.Hash)
	if err := normal.TrackOnce(c.ctx); err != nil {
		t.Fatal(err)
	}
	recorded("evt_"+first+"_sent", "evt_"+first+"_mined", "evt_"+second+"_sent", "evt_"+second+"_mined")
}
