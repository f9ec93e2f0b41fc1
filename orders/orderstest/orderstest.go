// Package orderstest is the conformance suite of orders.Store: every implementation runs it (on
// each database it supports) and must pass unchanged.
package orderstest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/google/go-cmp/cmp"
	"github.com/holiman/uint256"

	"github.com/curvekit/curvekit"
	"github.com/curvekit/curvekit/market"
	"github.com/curvekit/curvekit/orders"
	"github.com/curvekit/curvekit/push"
)

// Fixture is an empty store and the indexer lease of the same database, whose terms fence the
// engine's writes, and the push store of that database, where the store records the events of
// its steps (the outbox).
type Fixture struct {
	Store  orders.Store
	Lease  market.Lease
	Events push.Store
}

// Run runs the suite; open returns a fresh fixture that t owns.
func Run(t *testing.T, open func(t *testing.T) Fixture) {
	t.Run("CreateAndRead", func(t *testing.T) { t.Parallel(); testCreate(t, open(t)) })
	t.Run("LimitsPerClass", func(t *testing.T) { t.Parallel(); testLimits(t, open(t)) })
	t.Run("ConcurrentCreatesKeepTheLimit", func(t *testing.T) { t.Parallel(); testLimitRace(t, open(t)) })
	t.Run("PagesAndFilters", func(t *testing.T) { t.Parallel(); testPages(t, open(t)) })
	t.Run("Cancel", func(t *testing.T) { t.Parallel(); testCancel(t, open(t)) })
	t.Run("TriggerOnceUnderTheTerm", func(t *testing.T) { t.Parallel(); testTrigger(t, open(t)) })
	t.Run("SettleFires", func(t *testing.T) { t.Parallel(); testSettle(t, open(t)) })
	t.Run("FireTransactions", func(t *testing.T) { t.Parallel(); testFireTxs(t, open(t)) })
	t.Run("PositionMovesWithTheFires", func(t *testing.T) { t.Parallel(); testPosition(t, open(t)) })
	t.Run("EventsCommitWithTheirChange", func(t *testing.T) { t.Parallel(); testOutbox(t, open(t)) })
}

// at is a fixed instant with sub-second precision, to catch stores that round times.
var at = time.Date(2026, 11, 26, 10, 30, 15, 123456789, time.UTC)

var (
	tokenA  = common.HexToAddress("0x00000000000000000000000000000000000000aa")
	tokenB  = common.HexToAddress("0x00000000000000000000000000000000000000bb")
	walletA = common.HexToAddress("0x000000000000000000000000000000000000a11e")
	usdc    = common.HexToAddress("0x00000000000000000000000000000000000000cc")
)

func big(s string) uint256.Int {
	v, err := uint256.FromDecimal(s)
	if err != nil {
		panic(err)
	}
	return *v
}

// Order is a complete order of every field, placed at at plus i milliseconds.
func Order(id, account string, kind orders.Kind, i int) orders.Order {
	o := orders.Order{
		ID: id, AccountID: account, KeyID: "key_" + id, Wallet: walletA, Kind: kind, Token: tokenA, Quote: usdc, QuoteDecimals: 6, Decimals: 18,
		Side: curvekit.Sell, Amount: big("123456789012345678901234567890"), Price: big("4000000000000000000000"),
		SlippageBps: 150, State: orders.Open, CreatedAt: at.Add(time.Duration(i) * time.Millisecond),
		ExpiresAt: at.Add(48 * time.Hour), Fires: []orders.Fire{},
	}
	o.UpdatedAt = o.CreatedAt
	switch kind {
	case orders.TrailingStop:
		o.Price, o.TrailBps, o.High = uint256.Int{}, 1_000, big("5000000000000000000001")
	case orders.DCA:
		o.Side, o.Price, o.Every, o.Times, o.NextAt = curvekit.Buy, uint256.Int{}, time.Hour, 5, o.CreatedAt
	case orders.TWAP:
		o.Side, o.Price, o.Over, o.Slices, o.NextAt = curvekit.Buy, uint256.Int{}, 10*time.Minute, 5, o.CreatedAt
	case orders.StopLoss:
		o.Amount, o.Percent = uint256.Int{}, 5_000
	}
	return o
}

func create(t *testing.T, s orders.Store, o orders.Order) {
	t.Helper()
	if err := s.CreateOrder(context.Background(), orders.CreateParams{Order: o, Max: 50}); err != nil {
		t.Fatalf("CreateOrder(%s): %v", o.ID, err)
	}
}

func testCreate(t *testing.T, f Fixture) {
	ctx, s := context.Background(), f.Store
	for i, k := range orders.Kinds {
		o := Order(fmt.Sprintf("ord_%d", i), "acc1", k, i)
		create(t, s, o)
		got, err := s.Order(ctx, "acc1", o.ID)
		if err != nil {
			t.Fatalf("Order(%s): %v", o.ID, err)
		}
		if diff := cmp.Diff(o, got); diff != "" {
			t.Errorf("%s read back (-want +got):\n%s", k, diff)
		}
	}
	if _, err := s.Order(ctx, "acc2", "ord_0"); !errors.Is(err, curvekit.ErrNotFound) {
		t.Errorf("another account's order: %v, want ErrNotFound", err)
	}
	if _, err := s.Order(ctx, "acc1", "ord_missing"); !errors.Is(err, curvekit.ErrNotFound) {
		t.Errorf("a missing order: %v, want ErrNotFound", err)
	}
	if err := s.CreateOrder(ctx, orders.CreateParams{Order: Order("ord_0", "acc1", orders.Limit, 0), Max: 50}); err == nil {
		t.Error("a second order with the same id was stored")
	}
	live, err := s.Live(ctx)
	if err != nil || len(live) != len(orders.Kinds) || live[0].ID != "ord_0" || live[5].ID != "ord_5" {
		t.Fatalf("Live = %d orders, %v", len(live), err)
	}
}

func testLimits(t *testing.T, f Fixture) {
	ctx, s := context.Background(), f.Store
	put := func(id string, kind orders.Kind, i int) error {
		return s.CreateOrder(ctx, orders.CreateParams{Order: Order(id, "acc1", kind, i), Max: 2})
	}
	for i, k := range []orders.Kind{orders.Limit, orders.TrailingStop, orders.DCA, orders.TWAP} {
		if err := put(fmt.Sprintf("ord_%d", i), k, i); err != nil {
			t.Fatalf("order %d of its class: %v", i, err)
		}
	}
	if err := put("ord_p3", orders.StopLoss, 10); !errors.Is(err, curvekit.ErrLimited) {
		t.Errorf("a third price order: %v, want ErrLimited", err)
	}
	if err := put("ord_t3", orders.DCA, 11); !errors.Is(err, curvekit.ErrLimited) {
		t.Errorf("a third time order: %v, want ErrLimited", err)
	}
	if err := s.CreateOrder(ctx, orders.CreateParams{Order: Order("ord_other", "acc2", orders.Limit, 12), Max: 2}); err != nil {
		t.Errorf("another account's first order: %v", err)
	}
	if _, err := s.CancelOrder(ctx, orders.CancelParams{AccountID: "acc1", ID: "ord_0", At: at}); err != nil {
		t.Fatal(err)
	}
	if err := put("ord_p4", orders.StopLoss, 13); err != nil {
		t.Errorf("a price order after cancelling one: %v", err)
	}
}

func testLimitRace(t *testing.T, f Fixture) {
	var wg sync.WaitGroup
	var mu sync.Mutex
	var ok, limited int
	for i := range 8 {
		wg.Go(func() {
			err := f.Store.CreateOrder(context.Background(), orders.CreateParams{Order: Order(fmt.Sprintf("ord_%d", i), "acc1", orders.Limit, i), Max: 3})
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				ok++
			case errors.Is(err, curvekit.ErrLimited):
				limited++
			default:
				t.Errorf("CreateOrder: %v", err)
			}
		})
	}
	wg.Wait()
	if ok != 3 || limited != 5 {
		t.Errorf("8 concurrent creations under a limit of 3: %d stored, %d limited", ok, limited)
	}
}

func testPages(t *testing.T, f Fixture) {
	ctx, s := context.Background(), f.Store
	for i := range 7 {
		o := Order(fmt.Sprintf("ord_%d", i), "acc1", orders.Kinds[i%len(orders.Kinds)], i)
		if i%2 == 1 {
			o.Token = tokenB
		}
		create(t, s, o)
	}
	create(t, s, Order("ord_x", "acc2", orders.Limit, 20))
	var ids []string
	q := orders.Query{AccountID: "acc1", Limit: 3}
	for range 5 {
		p, err := s.Orders(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range p.Orders {
			ids = append(ids, o.ID)
		}
		if p.Next == "" {
			break
		}
		q.Cursor = p.Next
	}
	if diff := cmp.Diff([]string{"ord_6", "ord_5", "ord_4", "ord_3", "ord_2", "ord_1", "ord_0"}, ids); diff != "" {
		t.Errorf("pages newest first (-want +got):\n%s", diff)
	}
	p, err := s.Orders(ctx, orders.Query{AccountID: "acc1", Token: tokenB, Limit: 10})
	if err != nil || len(p.Orders) != 3 || p.Next != "" {
		t.Errorf("token filter: %d orders, next %q, %v", len(p.Orders), p.Next, err)
	}
	p, err = s.Orders(ctx, orders.Query{AccountID: "acc1", Kind: orders.DCA, Limit: 10})
	if err != nil || len(p.Orders) != 1 || p.Orders[0].ID != "ord_4" {
		t.Errorf("kind filter: %+v, %v", p.Orders, err)
	}
	if _, err := s.CancelOrder(ctx, orders.CancelParams{AccountID: "acc1", ID: "ord_2", At: at}); err != nil {
		t.Fatal(err)
	}
	p, err = s.Orders(ctx, orders.Query{AccountID: "acc1", State: orders.Cancelled, Limit: 10})
	if err != nil || len(p.Orders) != 1 || p.Orders[0].ID != "ord_2" {
		t.Errorf("state filter: %+v, %v", p.Orders, err)
	}
	if _, err := s.Orders(ctx, orders.Query{AccountID: "acc1", Cursor: "nonsense", Limit: 10}); !errors.Is(err, curvekit.ErrInvalid) {
		t.Errorf("a malformed cursor: %v, want ErrInvalid", err)
	}
	p, err = s.Orders(ctx, orders.Query{Wallet: walletA, Kind: orders.DCA, Limit: 10})
	if err != nil || len(p.Orders) != 1 || p.Orders[0].ID != "ord_4" {
		t.Errorf("by wallet: %+v, %v", p.Orders, err)
	}
	p, err = s.Orders(ctx, orders.Query{Wallet: tokenA, Limit: 10})
	if err != nil || len(p.Orders) != 0 {
		t.Errorf("another wallet: %+v, %v", p.Orders, err)
	}
	p, err = s.Orders(ctx, orders.Query{AccountID: "nobody", Limit: 10})
	if err != nil || p.Orders == nil || len(p.Orders) != 0 {
		t.Errorf("an account without orders: %#v, %v (want an empty, non-nil list)", p.Orders, err)
	}
}

func testCancel(t *testing.T, f Fixture) {
	ctx, s := context.Background(), f.Store
	create(t, s, Order("ord_1", "acc1", orders.Limit, 1))
	if _, err := s.CancelOrder(ctx, orders.CancelParams{AccountID: "acc2", ID: "ord_1", At: at}); !errors.Is(err, curvekit.ErrNotFound) {
		t.Errorf("cancelling another account's order: %v, want ErrNotFound", err)
	}
	later := at.Add(time.Minute)
	got, err := s.CancelOrder(ctx, orders.CancelParams{AccountID: "acc1", ID: "ord_1", At: later})
	if err != nil || got.State != orders.Cancelled || !got.UpdatedAt.Equal(later) {
		t.Fatalf("CancelOrder = %s at %s, %v", got.State, got.UpdatedAt, err)
	}
	if _, err := s.CancelOrder(ctx, orders.CancelParams{AccountID: "acc1", ID: "ord_1", At: later}); !errors.Is(err, curvekit.ErrConflict) {
		t.Errorf("cancelling a cancelled order: %v, want ErrConflict", err)
	}
	live, err := s.Live(ctx)
	if err != nil || len(live) != 0 {
		t.Errorf("Live after cancelling = %d, %v", len(live), err)
	}
}

func fire(o orders.Order, n int) orders.Fire {
	return orders.Fire{ID: orders.FireID(o.ID, n), OrderID: o.ID, N: n, Price: big("3999999999999999999999"), Block: 42, LogIndex: 7,
		CreatedAt: at.Add(time.Second), UpdatedAt: at.Add(time.Second)}
}

func testTrigger(t *testing.T, f Fixture) {
	ctx, s := context.Background(), f.Store
	l, ok, err := f.Lease.Acquire(ctx, "leader-1", time.Minute)
	if err != nil || !ok {
		t.Fatalf("Acquire: %v %v", ok, err)
	}
	a, b, c, d := Order("ord_a", "acc1", orders.Limit, 1), Order("ord_b", "acc1", orders.TrailingStop, 2), Order("ord_c", "acc1", orders.DCA, 3), Order("ord_d", "acc1", orders.Limit, 4)
	for _, o := range []orders.Order{a, b, c, d} {
		create(t, s, o)
	}
	if _, err := s.CancelOrder(ctx, orders.CancelParams{AccountID: "acc1", ID: "ord_d", At: at}); err != nil {
		t.Fatal(err)
	}
	next := at.Add(time.Hour)
	stored, err := s.Trigger(ctx, orders.TriggerParams{
		Term: l.Term, Fires: []orders.Fire{fire(a, 0), fire(c, 0), fire(d, 0)}, NextAt: map[string]time.Time{"ord_c": next},
		Highs: map[string]uint256.Int{"ord_b": big("6000000000000000000000")}, At: at.Add(time.Second),
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(stored) != 2 || stored[0].ID != "ord_a_f0" || stored[1].ID != "ord_c_f0" || stored[0].Term != l.Term || stored[0].State != orders.FireTriggered {
		t.Fatalf("Trigger stored %+v; want the fires of ord_a and ord_c (ord_d is cancelled)", stored)
	}
	got, _ := s.Order(ctx, "acc1", "ord_a")
	want := fire(a, 0)
	want.State, want.Term = orders.FireTriggered, l.Term
	if got.State != orders.Triggered || got.Fired != 1 || len(got.Fires) != 1 || !cmp.Equal(want, got.Fires[0]) {
		t.Errorf("triggered order = %s fired %d, fires %s", got.State, got.Fired, cmp.Diff([]orders.Fire{want}, got.Fires))
	}
	if got, _ := s.Order(ctx, "acc1", "ord_c"); !got.NextAt.Equal(next) {
		t.Errorf("NextAt = %s, want %s", got.NextAt, next)
	}
	if got, _ := s.Order(ctx, "acc1", "ord_b"); got.High != big("6000000000000000000000") || got.State != orders.Open {
		t.Errorf("trailing stop's high = %s (%s)", got.High.Dec(), got.State)
	}
	// The same fire again (a leader retrying its sync) records nothing.
	again, err := s.Trigger(ctx, orders.TriggerParams{Term: l.Term, Fires: []orders.Fire{fire(a, 0)}, At: at})
	if err != nil || len(again) != 0 {
		t.Errorf("the same fire again stored %d, %v", len(again), err)
	}
	pending, err := s.Fires(ctx, orders.FireTriggered, orders.FireSent)
	if err != nil || len(pending) != 2 {
		t.Errorf("Fires = %d, %v", len(pending), err)
	}

	// A new term fences the old leader out, in the write's own transaction.
	if err := f.Lease.Release(ctx, "leader-1", l.Term); err != nil {
		t.Fatal(err)
	}
	l2, ok, err := f.Lease.Acquire(ctx, "leader-2", time.Minute)
	if err != nil || !ok || l2.Term <= l.Term {
		t.Fatalf("Acquire by leader-2: %+v %v %v", l2, ok, err)
	}
	if _, err := s.Trigger(ctx, orders.TriggerParams{Term: l.Term, Fires: []orders.Fire{fire(b, 0)}, Expire: []string{"ord_b"}, At: at}); !errors.Is(err, market.ErrFenced) {
		t.Errorf("Trigger under the old term: %v, want ErrFenced", err)
	}
	if got, _ := s.Order(ctx, "acc1", "ord_b"); got.State != orders.Open || len(got.Fires) != 0 {
		t.Errorf("the fenced trigger wrote: %s, %d fires", got.State, len(got.Fires))
	}
	if err := s.SettleFire(ctx, orders.SettleParams{Term: l.Term, FireID: "ord_a_f0", State: orders.FireSent, At: at}); !errors.Is(err, market.ErrFenced) {
		t.Errorf("SettleFire under the old term: %v, want ErrFenced", err)
	}
	stored, err = s.Trigger(ctx, orders.TriggerParams{Term: l2.Term, Expire: []string{"ord_b"}, At: at.Add(2 * time.Second)})
	if err != nil || len(stored) != 0 {
		t.Fatal(err)
	}
	if got, _ := s.Order(ctx, "acc1", "ord_b"); got.State != orders.Expired {
		t.Errorf("expired order is %s", got.State)
	}
}

// testPosition: the evaluated position is absent at first, moves with the fires of the
// evaluation that reached it (alone too: a sync that fired nothing), backwards too (a
// reorganization), and a fenced leader moves nothing.
func testPosition(t *testing.T, f Fixture) {
	ctx, s := context.Background(), f.Store
	if _, ok, err := s.Position(ctx); ok || err != nil {
		t.Fatalf("Position of an empty store: %v, %v", ok, err)
	}
	l, ok, err := f.Lease.Acquire(ctx, "leader-1", time.Minute)
	if err != nil || !ok {
		t.Fatalf("Acquire: %v %v", ok, err)
	}
	a := Order("ord_a", "acc1", orders.Limit, 1)
	create(t, s, a)
	at10 := market.Cursor{Block: 10, Hash: common.HexToHash("0x0a0a")}
	if _, err := s.Trigger(ctx, orders.TriggerParams{Term: l.Term, Fires: []orders.Fire{fire(a, 0)}, Position: &at10, At: at}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []market.Cursor{{Block: 12, Hash: common.HexToHash("0x0c0c")}, {Block: 11, Hash: common.HexToHash("0x0b0b")}} {
		if _, err := s.Trigger(ctx, orders.TriggerParams{Term: l.Term, Position: &want, At: at}); err != nil {
			t.Fatal(err)
		}
		if got, ok, err := s.Position(ctx); !ok || err != nil || got != want {
			t.Errorf("Position = %+v %v %v, want %+v", got, ok, err, want)
		}
	}
	if err := f.Lease.Release(ctx, "leader-1", l.Term); err != nil {
		t.Fatal(err)
	}
	if _, _, err := f.Lease.Acquire(ctx, "leader-2", time.Minute); err != nil {
		t.Fatal(err)
	}
	beyond := market.Cursor{Block: 99, Hash: common.HexToHash("0x6363")}
	if _, err := s.Trigger(ctx, orders.TriggerParams{Term: l.Term, Position: &beyond, At: at}); !errors.Is(err, market.ErrFenced) {
		t.Errorf("Trigger under the old term: %v, want ErrFenced", err)
	}
	if got, _, _ := s.Position(ctx); got.Block != 11 {
		t.Errorf("a fenced leader moved the position to %d", got.Block)
	}
}

func testSettle(t *testing.T, f Fixture) {
	ctx, s := context.Background(), f.Store
	a, c := Order("ord_a", "acc1", orders.Limit, 1), Order("ord_c", "acc1", orders.DCA, 2)
	create(t, s, a)
	create(t, s, c)
	if _, err := s.Trigger(ctx, orders.TriggerParams{Fires: []orders.Fire{fire(a, 0), fire(c, 0)}, At: at}); err != nil {
		t.Fatal(err)
	}
	hash := common.HexToHash("0x1234")
	steps := []orders.SettleParams{
		{FireID: "ord_a_f0", State: orders.FireSent, TxHash: hash, OrderState: orders.Sent, At: at},
		{FireID: "ord_a_f0", State: orders.FireFilled, AmountIn: big("1000"), AmountOut: big("7"), OrderState: orders.Filled, At: at.Add(time.Second)},
		{FireID: "ord_c_f0", State: orders.FireFailed, Code: "forbidden", Error: "paused", OrderState: orders.Open, At: at},
	}
	for _, p := range steps {
		if err := s.SettleFire(ctx, p); err != nil {
			t.Fatalf("SettleFire(%s %s): %v", p.FireID, p.State, err)
		}
	}
	got, _ := s.Order(ctx, "acc1", "ord_a")
	fa := got.Fires[0]
	if got.State != orders.Filled || fa.State != orders.FireFilled || fa.TxHash != hash || fa.AmountIn != big("1000") || fa.AmountOut != big("7") {
		t.Errorf("filled = %s %+v", got.State, fa)
	}
	got, _ = s.Order(ctx, "acc1", "ord_c")
	if got.State != orders.Open || got.Fires[0].Code != "forbidden" || got.Fires[0].Error != "paused" || got.Fired != 1 {
		t.Errorf("a DCA whose fire failed = %s %+v", got.State, got.Fires[0])
	}
	if err := s.SettleFire(ctx, orders.SettleParams{FireID: "ord_a_f0", State: orders.FireFailed, At: at}); !errors.Is(err, curvekit.ErrConflict) {
		t.Errorf("settling a filled fire: %v, want ErrConflict", err)
	}
	// A cancelled order stays cancelled when its fire in flight settles.
	d := Order("ord_d", "acc1", orders.Limit, 3)
	create(t, s, d)
	if _, err := s.Trigger(ctx, orders.TriggerParams{Fires: []orders.Fire{fire(d, 0)}, At: at}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.CancelOrder(ctx, orders.CancelParams{AccountID: "acc1", ID: "ord_d", At: at}); err != nil {
		t.Fatal(err)
	}
	if err := s.SettleFire(ctx, orders.SettleParams{FireID: "ord_d_f0", State: orders.FireSent, TxHash: hash, OrderState: orders.Sent, At: at}); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.Order(ctx, "acc1", "ord_d"); got.State != orders.Cancelled || got.Fires[0].State != orders.FireSent {
		t.Errorf("cancelled order after its fire was sent = %s, fire %s", got.State, got.Fires[0].State)
	}
	// A fire refused because the key that placed the order was revoked cancels the order, with
	// the code as its reason.
	e := Order("ord_e", "acc1", orders.DCA, 4)
	create(t, s, e)
	if _, err := s.Trigger(ctx, orders.TriggerParams{Fires: []orders.Fire{fire(e, 0)}, At: at}); err != nil {
		t.Fatal(err)
	}
	if err := s.SettleFire(ctx, orders.SettleParams{FireID: "ord_e_f0", State: orders.FireFailed, Code: "KEY_REVOKED", Error: "revoked",
		OrderState: orders.Cancelled, Reason: "KEY_REVOKED", At: at}); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.Order(ctx, "acc1", "ord_e"); got.State != orders.Cancelled || got.Reason != "KEY_REVOKED" || got.KeyID != "key_ord_e" {
		t.Errorf("an order whose key was revoked = %s %q (key %q)", got.State, got.Reason, got.KeyID)
	}
	if err := s.SettleFire(ctx, orders.SettleParams{FireID: "nope", State: orders.FireSent, At: at}); !errors.Is(err, curvekit.ErrNotFound) {
		t.Errorf("settling a missing fire: %v, want ErrNotFound", err)
	}
}

// testFireTxs: a fire lists every transaction it sent, in the order sent, each hash once
// however often a leader records it; the list is read with the order and with the pending
// fires, and is fenced as the fire's moves are.
func testFireTxs(t *testing.T, f Fixture) {
	ctx, s := context.Background(), f.Store
	l, ok, err := f.Lease.Acquire(ctx, "leader-1", time.Minute)
	if err != nil || !ok {
		t.Fatalf("Acquire: %v %v", ok, err)
	}
	a, b := Order("ord_a", "acc1", orders.StopLoss, 1), Order("ord_b", "acc1", orders.StopLoss, 2)
	create(t, s, a)
	create(t, s, b)
	if _, err := s.Trigger(ctx, orders.TriggerParams{Term: l.Term, Fires: []orders.Fire{fire(a, 0), fire(b, 0)}, At: at}); err != nil {
		t.Fatal(err)
	}
	approve := orders.FireTx{Kind: orders.TxApprove, Hash: common.HexToHash("0xa1")}
	trade := orders.FireTx{Kind: orders.TxTrade, Hash: common.HexToHash("0xb2")}
	for range 2 { // a retried tick records the approval once
		if err := s.RecordFireTx(ctx, orders.FireTxParams{Term: l.Term, FireID: "ord_a_f0", Tx: approve, At: at}); err != nil {
			t.Fatalf("RecordFireTx: %v", err)
		}
	}
	got, _ := s.Order(ctx, "acc1", "ord_a")
	if diff := cmp.Diff([]orders.FireTx{approve}, got.Fires[0].Txs); diff != "" || got.Fires[0].State != orders.FireTriggered || got.State != orders.Triggered {
		t.Errorf("after the approval the fire is %s (order %s), transactions (-want +got):\n%s", got.Fires[0].State, got.State, diff)
	}
	pending, err := s.Fires(ctx, orders.FireTriggered)
	if err != nil || len(pending) != 2 || !cmp.Equal([]orders.FireTx{approve}, pending[0].Txs) || pending[1].Txs != nil {
		t.Errorf("Fires = %+v, %v; want ord_a_f0 with its approval, ord_b_f0 with none", pending, err)
	}
	// The trade is recorded with the move to sent; the approval named again is not doubled.
	if err := s.SettleFire(ctx, orders.SettleParams{Term: l.Term, FireID: "ord_a_f0", State: orders.FireSent, TxHash: trade.Hash,
		Txs: []orders.FireTx{approve, trade}, OrderState: orders.Sent, At: at}); err != nil {
		t.Fatal(err)
	}
	if err := s.SettleFire(ctx, orders.SettleParams{Term: l.Term, FireID: "ord_b_f0", State: orders.FireSent, TxHash: common.HexToHash("0xc3"),
		Txs: []orders.FireTx{{Kind: orders.TxTrade, Hash: common.HexToHash("0xc3")}}, OrderState: orders.Sent, At: at}); err != nil {
		t.Fatal(err)
	}
	if err := s.SettleFire(ctx, orders.SettleParams{Term: l.Term, FireID: "ord_a_f0", State: orders.FireFilled, AmountIn: big("5"), AmountOut: big("3"),
		OrderState: orders.Filled, At: at.Add(time.Second)}); err != nil {
		t.Fatal(err)
	}
	p, err := s.Orders(ctx, orders.Query{AccountID: "acc1", Limit: 10})
	if err != nil || len(p.Orders) != 2 {
		t.Fatalf("Orders = %+v, %v", p.Orders, err)
	}
	want := map[string][]orders.FireTx{"ord_a": {approve, trade}, "ord_b": {{Kind: orders.TxTrade, Hash: common.HexToHash("0xc3")}}}
	for _, o := range p.Orders {
		if diff := cmp.Diff(want[o.ID], o.Fires[0].Txs); diff != "" {
			t.Errorf("%s's fire lists (-want +got):\n%s", o.ID, diff)
		}
	}
	if err := s.RecordFireTx(ctx, orders.FireTxParams{Term: l.Term, FireID: "ord_a_f0", Tx: orders.FireTx{Kind: orders.TxApprove, Hash: common.HexToHash("0xd4")}, At: at}); !errors.Is(err, curvekit.ErrConflict) {
		t.Errorf("a transaction of a filled fire: %v, want ErrConflict", err)
	}
	if err := s.RecordFireTx(ctx, orders.FireTxParams{Term: l.Term, FireID: "nope", Tx: approve, At: at}); !errors.Is(err, curvekit.ErrNotFound) {
		t.Errorf("a transaction of a missing fire: %v, want ErrNotFound", err)
	}
	// A leader whose term ended records nothing.
	if err := f.Lease.Release(ctx, "leader-1", l.Term); err != nil {
		t.Fatal(err)
	}
	if _, _, err := f.Lease.Acquire(ctx, "leader-2", time.Minute); err != nil {
		t.Fatal(err)
	}
	late := orders.FireTx{Kind: orders.TxApprove, Hash: common.HexToHash("0xe5")}
	if err := s.RecordFireTx(ctx, orders.FireTxParams{Term: l.Term, FireID: "ord_b_f0", Tx: late, At: at}); !errors.Is(err, market.ErrFenced) {
		t.Errorf("RecordFireTx under the old term: %v, want ErrFenced", err)
	}
	if got, _ := s.Order(ctx, "acc1", "ord_b"); len(got.Fires[0].Txs) != 1 {
		t.Errorf("the fenced leader recorded a transaction: %+v", got.Fires[0].Txs)
	}
}
