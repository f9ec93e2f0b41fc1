package wallettest

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"testing"
	"time"

	"github.com/curvekit/curvekit"
	"github.com/curvekit/curvekit/push"
	"github.com/curvekit/curvekit/push/pushtest"
	"github.com/curvekit/curvekit/wallet"
)

// RunOutbox checks that a store commits a transaction's events with its change (push's outbox):
// the events of a release and of a settlement are recorded exactly when the change is, read back
// through events, the push store on the same database.
func RunOutbox(t *testing.T, open func(t *testing.T) (wallet.Store, push.Store)) {
	t.Run("EventsCommitWithTheirChange", func(t *testing.T) { t.Parallel(); s, e := open(t); testOutbox(t, s, e) })
}

func txEvent(id string) push.Event {
	return push.Event{ID: id, Type: push.WalletTransaction, Time: at, Account: "alice", Data: []byte(`{"id":"` + id + `"}`)}
}

func testOutbox(t *testing.T, s wallet.Store, events push.Store) {
	ctx := context.Background()
	w := create(t, s, newWallet("alice", 1))
	tx := sentTx(w, 0, at)
	tx.ClaimedBy, tx.ClaimedUntil = "send-1", at.Add(time.Minute)
	if err := s.RecordTransaction(ctx, tx); err != nil {
		t.Fatal(err)
	}
	recorded := func(want ...string) {
		t.Helper()
		if got := pushtest.EventIDs(t, events, "alice"); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("events recorded %v, want %v", got, want)
		}
	}
	release := wallet.ReleaseTxParams{ID: tx.ID, Owner: "send-1", Sent: true, At: at, Events: []push.Event{txEvent("sent")}}
	if err := s.ReleaseTransaction(ctx, release); err != nil {
		t.Fatalf("ReleaseTransaction: %v", err)
	}
	recorded("sent")
	// A release that changes nothing (the claim is gone) records nothing.
	release.Events = []push.Event{txEvent("sent-again")}
	if err := s.ReleaseTransaction(ctx, release); !errors.Is(err, curvekit.ErrConflict) {
		t.Fatalf("a second release: %v, want ErrConflict", err)
	}
	recorded("sent")
	// Nor does a settlement the store refuses, or one of a transaction already settled.
	settle := wallet.SettleTxParams{ID: tx.ID, State: wallet.TxMined, Hash: tx.Hash, Block: 15, GasUsed: 21_000, GasPrice: big.NewInt(1_000_000_000),
		At: at.Add(time.Second), Events: []push.Event{txEvent("mined")}}
	bad := settle
	bad.Hash, bad.Events = tx.Hash, []push.Event{txEvent("bad")}
	bad.Hash[0] ^= 1
	if err := s.SettleTransaction(ctx, bad); !errors.Is(err, curvekit.ErrInvalid) {
		t.Fatalf("a settlement with a foreign hash: %v, want ErrInvalid", err)
	}
	recorded("sent")
	if err := s.SettleTransaction(ctx, settle); err != nil {
		t.Fatalf("SettleTransaction: %v", err)
	}
	recorded("sent", "mined")
	settle.Events = []push.Event{txEvent("mined-again")}
	if err := s.SettleTransaction(ctx, settle); !errors.Is(err, curvekit.ErrConflict) {
		t.Fatalf("a second settlement: %v, want ErrConflict", err)
	}
	recorded("sent", "mined")
}
