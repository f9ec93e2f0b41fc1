package orderstest

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/curvekit/curvekit"
	"github.com/curvekit/curvekit/market"
	"github.com/curvekit/curvekit/orders"
	"github.com/curvekit/curvekit/push"
	"github.com/curvekit/curvekit/push/pushtest"
)

// orderEvents builds one event of each change, named after the fire and its state (or the order
// and its state, for an expiry or a cancellation), whose data is what the builder was shown: the order's state and
// fires as the step leaves them.
func orderEvents(o *orders.Order, f *orders.Fire) []push.Event {
	id, at := o.ID+"_"+string(o.State), o.UpdatedAt
	if f != nil {
		id, at = f.ID+"_"+string(f.State), f.UpdatedAt
	}
	fires := ""
	for _, x := range o.Fires {
		fires += fmt.Sprintf("%s:%s:%s,", x.ID, x.State, x.TxHash.Hex()[:6])
	}
	return []push.Event{{ID: id, Type: push.OrderSent, Time: at, Account: o.AccountID,
		Data: fmt.Appendf(nil, `{"state":%q,"fires":%q}`, o.State, fires)}}
}

// testOutbox: the events of a fire stored, of its moves, of an expiry and of a cancellation are
// recorded, in the push store of the
// same database, exactly when the step commits, built from the order as the step leaves it; a
// step refused (fenced, or a fire already final) records nothing, and a step repeated records its
// events once.
func testOutbox(t *testing.T, f Fixture) {
	ctx, s := context.Background(), f.Store
	l, ok, err := f.Lease.Acquire(ctx, "leader-1", time.Minute)
	if err != nil || !ok {
		t.Fatalf("Acquire: %v %v", ok, err)
	}
	a, b, c := Order("ord_a", "acc1", orders.Limit, 1), Order("ord_b", "acc1", orders.Limit, 2), Order("ord_c", "acc1", orders.Limit, 3)
	create(t, s, a)
	create(t, s, b)
	create(t, s, c)
	recorded := func(want ...string) {
		t.Helper()
		if got := pushtest.EventIDs(t, f.Events, "acc1"); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("events recorded %v, want %v", got, want)
		}
	}
	// A trigger records the event of each fire it stores; the same fire again (its order no
	// longer open) is skipped and records nothing more.
	for range 2 {
		if _, err := s.Trigger(ctx, orders.TriggerParams{Term: l.Term, Fires: []orders.Fire{fire(a, 0)}, At: at, Events: orderEvents}); err != nil {
			t.Fatal(err)
		}
	}
	recorded("ord_a_f0_triggered")
	if evs, err := f.Events.Events(ctx, "acc1", 0, 10); err != nil {
		t.Fatal(err)
	} else if want := `{"state":"triggered","fires":"ord_a_f0:triggered:0x0000,"}`; string(evs[0].Data) != want {
		t.Errorf("the triggered event was built from %s, want %s", evs[0].Data, want)
	}

	hash := common.HexToHash("0x1234")
	sent := orders.SettleParams{Term: l.Term, FireID: "ord_a_f0", State: orders.FireSent, TxHash: hash, OrderState: orders.Sent, At: at.Add(time.Second), Events: orderEvents}
	if err := s.SettleFire(ctx, sent); err != nil {
		t.Fatalf("SettleFire(sent): %v", err)
	}
	recorded("ord_a_f0_triggered", "ord_a_f0_sent")
	evs, err := f.Events.Events(ctx, "acc1", 0, 10)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"state":"sent","fires":"ord_a_f0:sent:0x0000,"}`; string(evs[1].Data) != want || !evs[1].Time.Equal(at.Add(time.Second)) {
		t.Errorf("the sent event was built from %s at %s, want %s at %s", evs[1].Data, evs[1].Time, want, at.Add(time.Second))
	}
	// The same step again (a leader retrying it) records nothing new.
	if err := s.SettleFire(ctx, sent); err != nil {
		t.Fatalf("SettleFire(sent) again: %v", err)
	}
	recorded("ord_a_f0_triggered", "ord_a_f0_sent")

	// A step under a term that ended is refused, and records nothing.
	if err := f.Lease.Release(ctx, "leader-1", l.Term); err != nil {
		t.Fatal(err)
	}
	l2, ok, err := f.Lease.Acquire(ctx, "leader-2", time.Minute)
	if err != nil || !ok {
		t.Fatalf("Acquire by leader-2: %v %v", ok, err)
	}
	filled := orders.SettleParams{Term: l.Term, FireID: "ord_a_f0", State: orders.FireFilled, OrderState: orders.Filled, At: at.Add(2 * time.Second), Events: orderEvents}
	if err := s.SettleFire(ctx, filled); !errors.Is(err, market.ErrFenced) {
		t.Fatalf("SettleFire under the old term: %v, want ErrFenced", err)
	}
	if _, err := s.Trigger(ctx, orders.TriggerParams{Term: l.Term, Expire: []string{"ord_b"}, At: at, Events: orderEvents}); !errors.Is(err, market.ErrFenced) {
		t.Fatalf("Trigger under the old term: %v, want ErrFenced", err)
	}
	recorded("ord_a_f0_triggered", "ord_a_f0_sent")

	filled.Term = l2.Term
	if err := s.SettleFire(ctx, filled); err != nil {
		t.Fatalf("SettleFire(filled): %v", err)
	}
	recorded("ord_a_f0_triggered", "ord_a_f0_sent", "ord_a_f0_filled")
	// A fire already final is a conflict: nothing is recorded, even under a new event id.
	failed := orders.SettleParams{Term: l2.Term, FireID: "ord_a_f0", State: orders.FireFailed, OrderState: orders.Failed, At: at.Add(3 * time.Second), Events: orderEvents}
	if err := s.SettleFire(ctx, failed); !errors.Is(err, curvekit.ErrConflict) {
		t.Fatalf("settling a filled fire: %v, want ErrConflict", err)
	}
	recorded("ord_a_f0_triggered", "ord_a_f0_sent", "ord_a_f0_filled")

	// An expiry records the order's event; expiring it again (it is no longer open) records
	// nothing more.
	expire := orders.TriggerParams{Term: l2.Term, Expire: []string{"ord_b"}, At: at.Add(4 * time.Second), Events: orderEvents}
	for range 2 {
		if _, err := s.Trigger(ctx, expire); err != nil {
			t.Fatalf("Trigger(expire): %v", err)
		}
	}
	recorded("ord_a_f0_triggered", "ord_a_f0_sent", "ord_a_f0_filled", "ord_b_expired")
	if _, err := s.CancelOrder(ctx, orders.CancelParams{AccountID: "acc1", ID: "ord_b", At: at, Events: orderEvents}); !errors.Is(err, curvekit.ErrConflict) {
		t.Fatalf("cancelling an expired order: %v, want ErrConflict", err)
	}
	recorded("ord_a_f0_triggered", "ord_a_f0_sent", "ord_a_f0_filled", "ord_b_expired")

	// A cancellation records the order's event with it; another account's cancel (not found)
	// and a second cancel (a conflict) record nothing.
	if _, err := s.CancelOrder(ctx, orders.CancelParams{AccountID: "acc2", ID: "ord_c", At: at, Events: orderEvents}); !errors.Is(err, curvekit.ErrNotFound) {
		t.Fatalf("cancelling another account's order: %v, want ErrNotFound", err)
	}
	cancel := orders.CancelParams{AccountID: "acc1", ID: "ord_c", At: at.Add(5 * time.Second), Events: orderEvents}
	if _, err := s.CancelOrder(ctx, cancel); err != nil {
		t.Fatalf("CancelOrder: %v", err)
	}
	if _, err := s.CancelOrder(ctx, cancel); !errors.Is(err, curvekit.ErrConflict) {
		t.Fatalf("cancelling it again: %v, want ErrConflict", err)
	}
	recorded("ord_a_f0_triggered", "ord_a_f0_sent", "ord_a_f0_filled", "ord_b_expired", "ord_c_cancelled")
	evs, err = f.Events.Events(ctx, "acc1", 0, 10)
	if err != nil {
		t.Fatal(err)
	}
	if last := evs[len(evs)-1]; string(last.Data) != `{"state":"cancelled","fires":""}` || !last.Time.Equal(at.Add(5*time.Second)) {
		t.Errorf("the cancellation's event was built from %s at %s", last.Data, last.Time)
	}
}
