package app

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"testing"
	"time"

	"github.com/curvekit/curvekit/orders"
	"github.com/curvekit/curvekit/orders/orderstest"
	"github.com/curvekit/curvekit/push"
)

// errKilled is the leader's death right after a commit.
var errKilled = errors.New("killed right after the commit")

// killedAfterCommit is the app's order events, on a leader that dies as soon as a step commits:
// before it tells push anything.
type killedAfterCommit struct{ *pushSources }

func (killedAfterCommit) Committed() { panic(errKilled) }

// TestOrderEventOfALeaderKilledAfterItsCommit: the orders engine of the leader (an engine of its
// own here, under the leader's term, whose Notifier dies when told of a commit) expires an order and
// dies right after the commit (before anything else runs: push is not told, the process is
// closed). The event was recorded with the expiry, so the server restarted on the same database
// delivers it, signed, with its stable id and the order as GET /orders/:id shows it.
func TestOrderEventOfALeaderKilledAfterItsCommit(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	rcv := newHookReceiver(t)

	const account = "acc_orders"
	a := openOn(t, dir)
	_, secret, err := a.Push.Create(ctx, push.CreateParams{AccountID: account, URL: rcv.url, Types: []push.Type{push.OrderExpired}})
	if err != nil {
		a.Close()
		t.Fatal(err)
	}
	o := orderstest.Order("ord_0123456789abcdef0123456789abcdef", account, orders.Limit, 0)
	o.ExpiresAt = time.Now().Add(-time.Minute) // on a token that has no price: it only expires
	if err := a.DB.Orders().CreateOrder(ctx, orders.CreateParams{Order: o, Max: 50}); err != nil {
		a.Close()
		t.Fatal(err)
	}
	term, ok := a.leading()
	if !ok {
		a.Close()
		t.Fatal("the server does not lead the indexer")
	}
	engine, err := orders.NewEngine(orders.EngineConfig{Store: a.DB.Orders(), Tokens: a.Store, Trader: &orderTrader{app: a},
		Notifier: killedAfterCommit{a.sources()}, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		a.Close()
		t.Fatal(err)
	}
	func() {
		defer func() {
			if r := recover(); r != nil && r != errKilled {
				panic(r)
			}
		}()
		_ = engine.Tick(ctx, term)
		t.Error("the tick committed no event")
	}()
	expired, err := a.Orders.Order(ctx, account, o.ID)
	a.Close()
	if err != nil || expired.State != orders.Expired {
		t.Fatalf("the order after the killed tick: %s, %v", expired.State, err)
	}

	// The restart: the sender finds the delivery recorded with the expiry and makes it.
	serve(t, openOn(t, dir))
	body, hdr := rcv.await(t, secret, "the expiry committed before the restart")
	var env struct {
		ID, Type string
		Data     struct{ ID, State string }
	}
	if err := json.Unmarshal(body, &env); err != nil {
		t.Fatal(err)
	}
	if env.Type != string(push.OrderExpired) || env.ID != "evt_order_"+o.ID+"_expired" || hdr.Get("webhook-id") != env.ID ||
		env.Data.ID != o.ID || env.Data.State != string(orders.Expired) {
		t.Errorf("delivered %s", body)
	}
}
