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
// and its state, for an expiry), whose data is what the builder was shown: the order's state and
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

// testOutbox: the events of a fire's move and of an expiry are recorded, in the push store of the
// same database, exactly when the step commits, built from the order as the step leaves it; a
// step refused (fenced, or a fire already final) records nothing, and a step repeated records its
// events once.
func testOutbox(t *testing.T, f Fixture) {
	ctx, s := context.Background(), f.Store
	l, ok, err := f.Lease.Acquire(ctx, "leader-1", time.Minute)
	if err != nil || !ok {
		t.Fatalf("Acquire: %v %v", ok, err)
	}
	a, b := Order("ord_a", "acc1", orders.Limit, 1), Order("ord_b", "acc1", orders.Limit, 2)
	create(t, s, a)
	create(t, s, b)
	if _, err := s.Trigger(ctx, orders.TriggerParams{Term: l.Term, Fires: []orders.Fire{fire(a, 0)}, At: at, Events: orderEvents}); err != nil {
		t.Fatal(err)
	}
	recorded := func(want ...string) {
		t.Helper()
		if got := pushtest.EventIDs(t, f.Events, "acc1"); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("events recorded %v, want %v", got, want)
		}
	}
	recorded() // a trigger's fires are no event; only its expiries are

	hash := common.HexToHash("0x1234")
	sent := orders.SettleParams{Term: l.Term, FireID: "ord_a_f0", State: orders.FireSent, TxHash: hash, OrderState: orders.Sent, At: at.Add(time.Second), Events: orderEvents}
	if err := s.SettleFire(ctx, sent); err != nil {
		t.Fatalf("SettleFire(sent): %v", err)
	}
	recorded("ord_a_f0_sent")
	evs, err := f.Events.Events(ctx, "acc1", 0, 10)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"state":"sent","fires":"ord_a_f0:sent:0x0000,"}`; string(evs[0].Data) != want || !evs[0].Time.Equal(at.Add(time.Second)) {
		t.Errorf("the sent event was built from %s at %s, want %s at %s", evs[0].Data, evs[0].Time, want, at.Add(time.Second))
	}
	// The same step again (a leader retrying it) records nothing new.
	if err := s.SettleFire(ctx, sent); err != nil {
		t.Fatalf("SettleFire(sent) again: %v", err)
	}
	recorded("ord_a_f0_sent")

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
	recorded("ord_a_f0_sent")

	filled.Term = l2.Term
	if err := s.SettleFire(ctx, filled); err != nil {
		t.Fatalf("SettleFire(filled): %v", err)
	}
	recorded("ord_a_f0_sent", "ord_a_f0_filled")
	// A fire already final is a conflict: nothing is recorded, even under a new event id.
	failed := orders.SettleParams{Term: l2.Term, FireID: "ord_a_f0", State: orders.FireFailed, OrderState: orders.Failed, At: at.Add(3 * time.Second), Events: orderEvents}
	if err := s.SettleFire(ctx, failed); !errors.Is(err, curvekit.ErrConflict) {
		t.Fatalf("settling a filled fire: %v, want ErrConflict", err)
	}
	recorded("ord_a_f0_sent", "ord_a_f0_filled")

	// An expiry records the order's event; expiring it again (it is no longer open) records
	// nothing more.
	expire := orders.TriggerParams{Term: l2.Term, Expire: []string{"ord_b"}, At: at.Add(4 * time.Second), Events: orderEvents}
	for range 2 {
		if _, err := s.Trigger(ctx, expire); err != nil {
			t.Fatalf("Trigger(expire): %v", err)
		}
	}
	recorded("ord_a_f0_sent", "ord_a_f0_filled", "ord_b_expired")
	if _, err := s.CancelOrder(ctx, orders.CancelParams{AccountID: "acc1", ID: "ord_b", At: at}); !errors.Is(err, curvekit.ErrConflict) {
		t.Fatalf("cancelling an expired order: %v, want ErrConflict", err)
	}
}
