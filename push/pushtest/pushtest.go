// Package pushtest is the conformance suite of push.Store: every implementation runs it (on each
// database it supports) and must pass unchanged.
package pushtest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/holiman/uint256"

	"github.com/curvekit/curvekit"
	"github.com/curvekit/curvekit/push"
)

// Fixture is an empty store and a way to make an account that holds a wallet (for events that
// name their account by its wallet).
type Fixture struct {
	Store push.Store
	// AddAccount makes an account whose custodial wallet is wallet and returns its id.
	AddAccount func(t *testing.T, wallet common.Address) string
}

// Run runs the suite; open returns a fresh fixture that t owns.
func Run(t *testing.T, open func(t *testing.T) Fixture) {
	t.Run("Subscriptions", func(t *testing.T) { t.Parallel(); testSubscriptions(t, open(t)) })
	t.Run("RecordMatchesAndDeduplicates", func(t *testing.T) { t.Parallel(); testRecord(t, open(t)) })
	t.Run("AccountEventsInOrder", func(t *testing.T) { t.Parallel(); testAccountEvents(t, open(t)) })
	t.Run("ClaimFinishRetry", func(t *testing.T) { t.Parallel(); testClaim(t, open(t)) })
	t.Run("ConcurrentClaimsAreDisjoint", func(t *testing.T) { t.Parallel(); testClaimRace(t, open(t)) })
	t.Run("DisableFailsPending", func(t *testing.T) { t.Parallel(); testDisable(t, open(t)) })
	t.Run("LogAndReplay", func(t *testing.T) { t.Parallel(); testLogReplay(t, open(t)) })
	t.Run("ReplayDuringAnAttempt", func(t *testing.T) { t.Parallel(); testReplayInFlight(t, open(t)) })
	t.Run("RelayMovesWithItsEvents", func(t *testing.T) { t.Parallel(); testRelay(t, open(t)) })
	t.Run("ConcurrentRelaysMoveOnce", func(t *testing.T) { t.Parallel(); testRelayRace(t, open(t)) })
}

// at is a fixed instant with sub-second precision, to catch stores that round times.
var at = time.Date(2026, 11, 26, 10, 30, 15, 123456789, time.UTC)

var (
	tokenA = common.HexToAddress("0x00000000000000000000000000000000000000aa")
	tokenB = common.HexToAddress("0x00000000000000000000000000000000000000bb")
)

func sub(id, account string, types ...push.Type) push.Subscription {
	return push.Subscription{ID: id, AccountID: account, URL: "https://example.com/" + id, Types: types, Enabled: true,
		Secret:    push.Sealed{Version: 2, DataKey: []byte("wrapped " + id), Ciphertext: []byte("sealed " + id)},
		CreatedAt: at, UpdatedAt: at}
}

func mustCreate(t *testing.T, s push.Store, x push.Subscription) {
	t.Helper()
	if err := s.CreateSubscription(context.Background(), x, 20); err != nil {
		t.Fatalf("CreateSubscription(%s): %v", x.ID, err)
	}
}

func trade(id string, token common.Address, size uint64) push.Event {
	e := push.Event{ID: id, Type: push.Trade, Time: at, Token: token, Decimals: 18, Data: []byte(`{"n":"` + id + `"}`)}
	e.Size.Mul(uint256.NewInt(size), curvekit.Pow10(15)) // size thousandths of a whole unit
	return e
}

func testSubscriptions(t *testing.T, f Fixture) {
	ctx, s := context.Background(), f.Store
	a := sub("wh_a", "acc1", push.Trade, push.JobCompleted)
	a.Tokens, a.MinSize = []common.Address{tokenA}, "0.5"
	mustCreate(t, s, a)
	got, err := s.Subscription(ctx, "acc1", "wh_a")
	if err != nil || got.URL != a.URL || len(got.Types) != 2 || got.Types[1] != push.JobCompleted || len(got.Tokens) != 1 || got.Tokens[0] != tokenA ||
		got.MinSize != "0.5" || !got.Enabled || string(got.Secret.Ciphertext) != "sealed wh_a" || got.Secret.Version != 2 || !got.CreatedAt.Equal(at) || !got.Previous.IsZero() {
		t.Fatalf("Subscription = %+v, %v", got, err)
	}
	if _, err := s.Subscription(ctx, "acc2", "wh_a"); !errors.Is(err, curvekit.ErrNotFound) {
		t.Errorf("another account's subscription: %v, want ErrNotFound", err)
	}
	for i := range 2 {
		if err := s.CreateSubscription(ctx, sub(fmt.Sprintf("wh_cap%d", i), "acc3", push.Trade), 2); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.CreateSubscription(ctx, sub("wh_cap2", "acc3", push.Trade), 2); !errors.Is(err, curvekit.ErrLimited) {
		t.Errorf("third of a cap of 2: %v, want ErrLimited", err)
	}
	got.Enabled, got.URL, got.Previous, got.PreviousUntil = false, "https://example.org/x", push.Sealed{Version: 1, DataKey: []byte("k"), Ciphertext: []byte("old")}, at.Add(time.Hour)
	if err := s.UpdateSubscription(ctx, got); err != nil {
		t.Fatal(err)
	}
	again, _ := s.Subscription(ctx, "acc1", "wh_a")
	if again.Enabled || again.URL != "https://example.org/x" || string(again.Previous.Ciphertext) != "old" || !again.PreviousUntil.Equal(at.Add(time.Hour)) {
		t.Errorf("after update: %+v", again)
	}
	got.AccountID = "acc2"
	if err := s.UpdateSubscription(ctx, got); !errors.Is(err, curvekit.ErrNotFound) {
		t.Errorf("update as another account: %v, want ErrNotFound", err)
	}
	list, err := s.Subscriptions(ctx, "acc3")
	if err != nil || len(list) != 2 || list[0].ID != "wh_cap0" {
		t.Errorf("Subscriptions = %v, %v", list, err)
	}
	if err := s.DeleteSubscription(ctx, "acc2", "wh_a"); !errors.Is(err, curvekit.ErrNotFound) {
		t.Errorf("delete as another account: %v", err)
	}
	if err := s.DeleteSubscription(ctx, "acc1", "wh_a"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Subscription(ctx, "acc1", "wh_a"); !errors.Is(err, curvekit.ErrNotFound) {
		t.Errorf("after delete: %v", err)
	}
}

func testRecord(t *testing.T, f Fixture) {
	ctx, s := context.Background(), f.Store
	all := sub("wh_all", "acc1", push.Trade, push.TokenLaunched)
	onlyA := sub("wh_a", "acc2", push.Trade)
	onlyA.Tokens = []common.Address{tokenA}
	big := sub("wh_big", "acc3", push.Trade)
	big.MinSize = "1.5"
	jobs := sub("wh_jobs", "acc4", push.JobCompleted)
	off := sub("wh_off", "acc5", push.Trade)
	off.Enabled = false
	for _, x := range []push.Subscription{all, onlyA, big, jobs, off} {
		mustCreate(t, s, x)
	}
	rec, err := s.Record(ctx, push.RecordParams{Now: at, Events: []push.Event{
		trade("t1", tokenA, 1000),                                                // all, onlyA
		trade("t2", tokenB, 1500),                                                // all, big (1.5 is not below the minimum)
		trade("t3", tokenB, 1499),                                                // all
		{ID: "j1", Type: push.JobCompleted, Time: at, Account: "acc9"},           // nobody's subscription: kept for acc9's stream
		{ID: "j2", Type: push.JobCompleted, Time: at, Account: "acc4"},           // jobs
		{ID: "l1", Type: push.FeesClaimable, Time: at, Token: tokenA, Data: nil}, // a market event nobody asked for: not stored
	}})
	if err != nil {
		t.Fatal(err)
	}
	if rec.Deliveries != 6 || len(rec.Events) != 5 {
		t.Fatalf("Record: %d deliveries, %d events (%v); want 6, 5", rec.Deliveries, len(rec.Events), rec.Events)
	}
	again, err := s.Record(ctx, push.RecordParams{Now: at, Events: []push.Event{trade("t1", tokenA, 1000), {ID: "j2", Type: push.JobCompleted, Time: at, Account: "acc4"}}})
	if err != nil || again.Deliveries != 0 || len(again.Events) != 0 {
		t.Errorf("recording the same events again: %+v, %v; want nothing new", again, err)
	}
	got, err := s.ClaimDeliveries(ctx, push.ClaimParams{Holder: "r1", Now: at, Until: at.Add(time.Minute), Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	pairs := map[string]bool{}
	for _, c := range got {
		pairs[c.Subscription.ID+"/"+c.Event.ID] = true
		if c.Event.ID == "t1" && string(c.Event.Data) != `{"n":"t1"}` {
			t.Errorf("claimed event data %s", c.Event.Data)
		}
	}
	want := []string{"wh_all/t1", "wh_a/t1", "wh_all/t2", "wh_big/t2", "wh_all/t3", "wh_jobs/j2"}
	for _, w := range want {
		if !pairs[w] {
			t.Errorf("no delivery %s among %v", w, pairs)
		}
	}
	if len(pairs) != len(want) {
		t.Errorf("deliveries %v, want %v", pairs, want)
	}
	// An event naming its account by wallet reaches that account's subscriptions; a wallet no
	// account holds is dropped.
	w := common.HexToAddress("0x1111111111111111111111111111111111111111")
	acc := f.AddAccount(t, w)
	mustCreate(t, s, sub("wh_w", acc, push.WalletTransaction))
	rec, err = s.Record(ctx, push.RecordParams{Now: at, Events: []push.Event{
		{ID: "w1", Type: push.WalletTransaction, Time: at, Wallet: w},
		{ID: "w2", Type: push.WalletTransaction, Time: at, Wallet: common.HexToAddress("0x2222222222222222222222222222222222222222")},
	}})
	if err != nil || rec.Deliveries != 1 || len(rec.Events) != 1 || rec.Events[0].Account != acc || rec.Events[0].Seq == 0 {
		t.Errorf("events by wallet: %+v, %v", rec, err)
	}
}

func testAccountEvents(t *testing.T, f Fixture) {
	ctx, s := context.Background(), f.Store
	if n, err := s.LastSeq(ctx); err != nil || n != 0 {
		t.Fatalf("LastSeq of an empty store = %d, %v", n, err)
	}
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			for i := range 5 {
				acc := fmt.Sprintf("acc%d", i%2)
				if _, err := s.Record(ctx, push.RecordParams{Now: at, Events: []push.Event{{ID: fmt.Sprintf("e%d_%d", w, i), Type: push.JobFailed, Time: at, Account: acc, Data: []byte(`{}`)}}}); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	all, err := s.EventsSince(ctx, 0, 100)
	if err != nil || len(all) != 20 {
		t.Fatalf("EventsSince = %d events, %v", len(all), err)
	}
	for i := 1; i < len(all); i++ {
		if all[i].Seq <= all[i-1].Seq {
			t.Fatalf("seq not increasing: %d after %d", all[i].Seq, all[i-1].Seq)
		}
	}
	last, _ := s.LastSeq(ctx)
	if last != all[19].Seq {
		t.Errorf("LastSeq = %d, want %d", last, all[19].Seq)
	}
	mine, err := s.Events(ctx, "acc1", all[0].Seq, 100)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range mine {
		if e.Account != "acc1" || e.Seq <= all[0].Seq {
			t.Errorf("Events(acc1) returned %+v", e)
		}
	}
	want := 0
	for _, e := range all[1:] {
		if e.Account == "acc1" {
			want++
		}
	}
	if len(mine) != want {
		t.Errorf("Events(acc1) after the first = %d events, want %d", len(mine), want)
	}
	page, _ := s.EventsSince(ctx, all[4].Seq, 3)
	if len(page) != 3 || page[0].Seq != all[5].Seq {
		t.Errorf("EventsSince page = %+v", page)
	}
}

func testClaim(t *testing.T, f Fixture) {
	ctx, s := context.Background(), f.Store
	mustCreate(t, s, sub("wh_1", "acc1", push.Trade))
	if _, err := s.Record(ctx, push.RecordParams{Now: at, Events: []push.Event{trade("t1", tokenA, 1)}}); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.ClaimDeliveries(ctx, push.ClaimParams{Holder: "r1", Now: at.Add(-time.Second), Until: at.Add(time.Minute), Limit: 10}); len(got) != 0 {
		t.Errorf("claimed %d deliveries before they were due", len(got))
	}
	got, err := s.ClaimDeliveries(ctx, push.ClaimParams{Holder: "r1", Now: at, Until: at.Add(time.Minute), Limit: 10})
	if err != nil || len(got) != 1 || got[0].Delivery.Tries != 0 || got[0].Delivery.Count != 0 || got[0].Subscription.ID != "wh_1" {
		t.Fatalf("claim = %+v, %v", got, err)
	}
	d := got[0].Delivery
	if again, _ := s.ClaimDeliveries(ctx, push.ClaimParams{Holder: "r2", Now: at.Add(30 * time.Second), Until: at.Add(time.Hour), Limit: 10}); len(again) != 0 {
		t.Errorf("a live claim was claimed again")
	}
	// The claim lapses (the holder died): another takes it, and the first one's late report
	// is refused.
	got, err = s.ClaimDeliveries(ctx, push.ClaimParams{Holder: "r2", Now: at.Add(time.Minute), Until: at.Add(2 * time.Minute), Limit: 10})
	if err != nil || len(got) != 1 || got[0].Delivery.ID != d.ID {
		t.Fatalf("claim after lapse = %+v, %v", got, err)
	}
	fail := push.FinishParams{DeliveryID: d.ID, Holder: "r1", State: push.DeliveryPending, NextAt: at.Add(2 * time.Hour), Failed: true,
		Attempt: push.Attempt{N: 1, At: at.Add(time.Minute), Status: 500, Latency: 3 * time.Millisecond, Response: "boom"}}
	if err := s.FinishAttempt(ctx, fail); !errors.Is(err, curvekit.ErrConflict) {
		t.Errorf("finish by a holder whose claim passed: %v, want ErrConflict", err)
	}
	fail.Holder = "r2"
	if err := s.FinishAttempt(ctx, fail); err != nil {
		t.Fatal(err)
	}
	if sub, _ := s.Subscription(ctx, "acc1", "wh_1"); !sub.FailingSince.Equal(at.Add(time.Minute + 3*time.Millisecond)) {
		t.Errorf("FailingSince = %v", sub.FailingSince)
	}
	if got, _ := s.ClaimDeliveries(ctx, push.ClaimParams{Holder: "r3", Now: at.Add(time.Hour), Until: at.Add(2 * time.Hour), Limit: 10}); len(got) != 0 {
		t.Errorf("claimed before its retry was due")
	}
	got, _ = s.ClaimDeliveries(ctx, push.ClaimParams{Holder: "r3", Now: at.Add(2 * time.Hour), Until: at.Add(3 * time.Hour), Limit: 10})
	if len(got) != 1 || got[0].Delivery.Tries != 1 || got[0].Delivery.Count != 1 || got[0].Subscription.FailingSince.IsZero() {
		t.Fatalf("retry claim = %+v", got)
	}
	ok := push.FinishParams{DeliveryID: d.ID, Holder: "r3", State: push.DeliverySucceeded, Attempt: push.Attempt{N: 2, At: at.Add(2 * time.Hour), Status: 204}}
	if err := s.FinishAttempt(ctx, ok); err != nil {
		t.Fatal(err)
	}
	if err := s.FinishAttempt(ctx, ok); !errors.Is(err, curvekit.ErrConflict) {
		t.Errorf("finishing a finished delivery: %v, want ErrConflict", err)
	}
	if sub, _ := s.Subscription(ctx, "acc1", "wh_1"); !sub.FailingSince.IsZero() {
		t.Errorf("FailingSince after a success = %v", sub.FailingSince)
	}
	if got, _ := s.ClaimDeliveries(ctx, push.ClaimParams{Holder: "r3", Now: at.Add(100 * time.Hour), Until: at.Add(101 * time.Hour), Limit: 10}); len(got) != 0 {
		t.Errorf("a succeeded delivery was claimed")
	}
}

func testClaimRace(t *testing.T, f Fixture) {
	ctx, s := context.Background(), f.Store
	mustCreate(t, s, sub("wh_1", "acc1", push.Trade))
	const n = 60
	events := make([]push.Event, n)
	for i := range events {
		events[i] = trade(fmt.Sprintf("t%d", i), tokenA, 1)
	}
	if _, err := s.Record(ctx, push.RecordParams{Now: at, Events: events}); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	seen := map[string]string{}
	var wg sync.WaitGroup
	for r := range 4 {
		wg.Go(func() {
			holder := fmt.Sprintf("r%d", r)
			for {
				got, err := s.ClaimDeliveries(ctx, push.ClaimParams{Holder: holder, Now: at, Until: at.Add(time.Minute), Limit: 7})
				if err != nil {
					t.Error(err)
					return
				}
				if len(got) == 0 {
					return
				}
				mu.Lock()
				for _, c := range got {
					if prev, dup := seen[c.Delivery.ID]; dup {
						t.Errorf("delivery %s claimed by %s and %s", c.Delivery.ID, prev, holder)
					}
					seen[c.Delivery.ID] = holder
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if len(seen) != n {
		t.Errorf("%d deliveries claimed, want %d", len(seen), n)
	}
}

func testDisable(t *testing.T, f Fixture) {
	ctx, s := context.Background(), f.Store
	mustCreate(t, s, sub("wh_1", "acc1", push.Trade))
	if _, err := s.Record(ctx, push.RecordParams{Now: at, Events: []push.Event{trade("t1", tokenA, 1), trade("t2", tokenA, 1)}}); err != nil {
		t.Fatal(err)
	}
	got, _ := s.ClaimDeliveries(ctx, push.ClaimParams{Holder: "r1", Now: at, Until: at.Add(time.Minute), Limit: 1})
	if len(got) != 1 {
		t.Fatalf("claimed %d", len(got))
	}
	// The account hears of it: the event is recorded with the disabling, by a holder of the
	// claim only.
	mustCreate(t, s, sub("wh_2", "acc1", push.WebhookDisabled))
	told := push.Event{ID: "evt_webhook.disabled_wh_1", Type: push.WebhookDisabled, Time: at, Account: "acc1", Data: []byte(`{"webhook":"wh_1"}`)}
	err := s.FinishAttempt(ctx, push.FinishParams{DeliveryID: got[0].Delivery.ID, Holder: "r2", State: push.DeliveryFailed, Failed: true, Disable: "gone",
		Attempt: push.Attempt{N: 1, At: at, Status: 410}, Events: []push.Event{told}})
	if !errors.Is(err, curvekit.ErrConflict) {
		t.Fatalf("FinishAttempt by another holder: %v, want ErrConflict", err)
	}
	if ids := EventIDs(t, s, "acc1"); len(ids) != 0 {
		t.Fatalf("a refused FinishAttempt recorded %v", ids)
	}
	err = s.FinishAttempt(ctx, push.FinishParams{DeliveryID: got[0].Delivery.ID, Holder: "r1", State: push.DeliveryFailed, Failed: true, Disable: "gone",
		Attempt: push.Attempt{N: 1, At: at, Status: 410}, Events: []push.Event{told}})
	if err != nil {
		t.Fatal(err)
	}
	if ids := EventIDs(t, s, "acc1"); fmt.Sprint(ids) != "[evt_webhook.disabled_wh_1]" {
		t.Errorf("events recorded with the disabling %v", ids)
	}
	if page, _ := s.Deliveries(ctx, push.DeliveryQuery{AccountID: "acc1", SubscriptionID: "wh_2", Limit: 10}); len(page.Deliveries) != 1 || page.Deliveries[0].EventID != told.ID {
		t.Errorf("the other webhook's deliveries %+v", page.Deliveries)
	}
	sub, _ := s.Subscription(ctx, "acc1", "wh_1")
	if sub.Enabled || sub.DisabledReason != "gone" {
		t.Errorf("after disable: enabled %v, reason %q", sub.Enabled, sub.DisabledReason)
	}
	page, _ := s.Deliveries(ctx, push.DeliveryQuery{AccountID: "acc1", SubscriptionID: "wh_1", Limit: 10})
	for _, d := range page.Deliveries {
		if d.State != push.DeliveryFailed {
			t.Errorf("delivery %s of a disabled subscription is %s", d.EventID, d.State)
		}
	}
}

func testLogReplay(t *testing.T, f Fixture) {
	ctx, s := context.Background(), f.Store
	mustCreate(t, s, sub("wh_1", "acc1", push.Trade))
	for i := range 5 {
		now := at.Add(time.Duration(i) * time.Second)
		if _, err := s.Record(ctx, push.RecordParams{Now: now, Events: []push.Event{trade(fmt.Sprintf("t%d", i), tokenA, 1)}}); err != nil {
			t.Fatal(err)
		}
	}
	got, _ := s.ClaimDeliveries(ctx, push.ClaimParams{Holder: "r1", Now: at.Add(time.Hour), Until: at.Add(2 * time.Hour), Limit: 10})
	for _, c := range got {
		err := s.FinishAttempt(ctx, push.FinishParams{DeliveryID: c.Delivery.ID, Holder: "r1", State: push.DeliverySucceeded,
			Attempt: push.Attempt{N: 1, At: at.Add(time.Hour), Status: 200, Latency: 42 * time.Millisecond, Response: `{"ok":true}`}})
		if err != nil {
			t.Fatal(err)
		}
	}
	var ids []string
	cursor := ""
	for {
		page, err := s.Deliveries(ctx, push.DeliveryQuery{AccountID: "acc1", SubscriptionID: "wh_1", Cursor: cursor, Limit: 2})
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range page.Deliveries {
			ids = append(ids, d.EventID)
			if d.State != push.DeliverySucceeded || d.EventType != push.Trade || len(d.Attempts) != 1 || d.Attempts[0].Status != 200 ||
				d.Attempts[0].Latency != 42*time.Millisecond || d.Attempts[0].Response != `{"ok":true}` {
				t.Errorf("delivery %+v", d)
			}
		}
		if page.Next == "" {
			break
		}
		cursor = page.Next
	}
	if fmt.Sprint(ids) != "[t4 t3 t2 t1 t0]" {
		t.Errorf("delivery log order %v", ids)
	}
	if page, _ := s.Deliveries(ctx, push.DeliveryQuery{AccountID: "acc2", SubscriptionID: "wh_1", Limit: 10}); len(page.Deliveries) != 0 {
		t.Errorf("another account read the log")
	}
	first, _ := s.Deliveries(ctx, push.DeliveryQuery{AccountID: "acc1", SubscriptionID: "wh_1", Limit: 1})
	one := first.Deliveries[0].ID
	now := at.Add(3 * time.Hour)
	if n, err := s.Replay(ctx, push.ReplayParams{AccountID: "acc1", SubscriptionID: "wh_1", DeliveryID: one, Now: now, Limit: 10}); err != nil || n != 1 {
		t.Fatalf("Replay one = %d, %v", n, err)
	}
	if _, err := s.Replay(ctx, push.ReplayParams{AccountID: "acc2", SubscriptionID: "wh_1", DeliveryID: one, Now: now, Limit: 10}); !errors.Is(err, curvekit.ErrNotFound) {
		t.Errorf("replay as another account: %v", err)
	}
	if n, err := s.Replay(ctx, push.ReplayParams{AccountID: "acc1", SubscriptionID: "wh_1", Since: at.Add(2 * time.Second), Now: now, Limit: 10}); err != nil || n != 3 {
		t.Errorf("Replay since = %d, %v; want 3", n, err)
	}
	got, _ = s.ClaimDeliveries(ctx, push.ClaimParams{Holder: "r1", Now: now, Until: now.Add(time.Minute), Limit: 10})
	if len(got) != 3 {
		t.Fatalf("claimed %d after replay, want 3", len(got))
	}
	for _, c := range got {
		if c.Delivery.Tries != 0 || c.Delivery.Count != 1 {
			t.Errorf("replayed delivery tries %d, count %d", c.Delivery.Tries, c.Delivery.Count)
		}
	}
	if _, err := s.Enqueue(ctx, "acc2", "wh_1", push.Event{ID: "p1", Type: push.Ping, Time: now}, now); !errors.Is(err, curvekit.ErrNotFound) {
		t.Errorf("enqueue to another account's subscription: %v", err)
	}
	d, err := s.Enqueue(ctx, "acc1", "wh_1", push.Event{ID: "p1", Type: push.Ping, Time: now, Data: []byte(`{}`)}, now)
	if err != nil || d.State != push.DeliveryPending || d.EventID != "p1" {
		t.Errorf("Enqueue = %+v, %v", d, err)
	}
}

func relayed(s push.Store, from, to string, ids ...string) error {
	evs := make([]push.Event, len(ids))
	for i, id := range ids {
		evs[i] = push.Event{ID: id, Type: push.JobCompleted, Time: at, Account: "acc1", Data: []byte(`{}`)}
	}
	_, err := s.Record(context.Background(), push.RecordParams{Now: at, Events: evs, Relay: &push.RelayMove{Source: "market", From: from, To: to}})
	return err
}

// testRelay: a relay's position moves in the transaction that records its events; a move from
// a position that is not the stored one records nothing.
func testRelay(t *testing.T, f Fixture) {
	ctx, s := context.Background(), f.Store
	if pos, ok, err := s.RelayPosition(ctx, "market"); err != nil || ok || pos != "" {
		t.Fatalf("RelayPosition of a new relay = %q, %v, %v", pos, ok, err)
	}
	if err := relayed(s, "", "10:aa", "r1"); err != nil {
		t.Fatalf("the first move: %v", err)
	}
	if err := relayed(s, "", "11:bb", "r2"); !errors.Is(err, curvekit.ErrConflict) {
		t.Errorf("a second first move: %v, want ErrConflict", err)
	}
	if err := relayed(s, "9:ff", "11:bb", "r2"); !errors.Is(err, curvekit.ErrConflict) {
		t.Errorf("a move from elsewhere: %v, want ErrConflict", err)
	}
	if err := relayed(s, "10:aa", "12:cc", "r3", "r1"); err != nil {
		t.Fatalf("a move on: %v", err)
	}
	if pos, ok, err := s.RelayPosition(ctx, "market"); err != nil || !ok || pos != "12:cc" {
		t.Errorf("RelayPosition = %q, %v, %v; want 12:cc", pos, ok, err)
	}
	if pos, ok, err := s.RelayPosition(ctx, "other"); err != nil || ok || pos != "" {
		t.Errorf("another relay's position = %q, %v, %v", pos, ok, err)
	}
	evs, err := s.Events(ctx, "acc1", 0, 10)
	var ids []string
	for _, e := range evs {
		ids = append(ids, e.ID)
	}
	if err != nil || fmt.Sprint(ids) != "[r1 r3]" {
		t.Errorf("events recorded = %v, %v; want [r1 r3] (a refused move records nothing, r1 once)", ids, err)
	}
	// Record without a relay leaves the position alone.
	if _, err := s.Record(ctx, push.RecordParams{Now: at, Events: []push.Event{{ID: "r4", Type: push.JobFailed, Time: at, Account: "acc1"}}}); err != nil {
		t.Fatal(err)
	}
	if pos, _, _ := s.RelayPosition(ctx, "market"); pos != "12:cc" {
		t.Errorf("RelayPosition after a plain Record = %q", pos)
	}
}

// testRelayRace: two relays moving from the same position at once: one moves it and records its
// events, the other records nothing.
func testRelayRace(t *testing.T, f Fixture) {
	s := f.Store
	if err := relayed(s, "", "1:aa"); err != nil {
		t.Fatal(err)
	}
	for round := range 5 {
		from := fmt.Sprintf("%d:aa", round+1)
		var wg sync.WaitGroup
		errs := make([]error, 4)
		for i := range errs {
			wg.Go(func() { errs[i] = relayed(s, from, fmt.Sprintf("%d:aa", round+2), fmt.Sprintf("race%d_%d", round, i)) })
		}
		wg.Wait()
		won := 0
		for _, err := range errs {
			switch {
			case err == nil:
				won++
			case !errors.Is(err, curvekit.ErrConflict):
				t.Fatalf("round %d: %v", round, err)
			}
		}
		if won != 1 {
			t.Fatalf("round %d: %d relays moved from %s, want 1", round, won, from)
		}
	}
	evs, err := s.Events(context.Background(), "acc1", 0, 100)
	if err != nil || len(evs) != 5 {
		t.Errorf("events of the winners = %d, %v; want 5", len(evs), err)
	}
}

// EventIDs are the ids of the account's events in the store, oldest first: what the suites of
// the sources whose stores record events with their changes (the outbox) compare.
func EventIDs(t testing.TB, s push.Store, accountID string) []string {
	t.Helper()
	evs, err := s.Events(context.Background(), accountID, 0, 1000)
	if err != nil {
		t.Fatalf("Events(%s): %v", accountID, err)
	}
	ids := make([]string, len(evs))
	for i := range evs {
		ids[i] = evs[i].ID
	}
	return ids
}

// testReplayInFlight: a replay asked while an attempt of the delivery is in flight is not
// absorbed by that attempt's outcome: the attempt is logged, and the delivery stays pending,
// due when the replay asked, with a fresh schedule.
func testReplayInFlight(t *testing.T, f Fixture) {
	ctx, s := context.Background(), f.Store
	mustCreate(t, s, sub("wh_1", "acc1", push.Trade))
	if _, err := s.Record(ctx, push.RecordParams{Now: at, Events: []push.Event{trade("t0", tokenA, 1)}}); err != nil {
		t.Fatal(err)
	}
	start := at.Add(time.Second)
	got, err := s.ClaimDeliveries(ctx, push.ClaimParams{Holder: "r1", Now: start, Until: start.Add(time.Minute), Limit: 10})
	if err != nil || len(got) != 1 {
		t.Fatalf("claimed %d, %v", len(got), err)
	}
	d := got[0].Delivery
	replayAt := start.Add(time.Second)
	if n, err := s.Replay(ctx, push.ReplayParams{AccountID: "acc1", SubscriptionID: "wh_1", DeliveryID: d.ID, Now: replayAt, Limit: 10}); err != nil || n != 1 {
		t.Fatalf("Replay during the attempt = %d, %v", n, err)
	}
	for _, outcome := range []push.FinishParams{
		{State: push.DeliverySucceeded, Attempt: push.Attempt{N: 1, At: start, Status: 200, Latency: 2 * time.Second}},
		{State: push.DeliveryPending, NextAt: replayAt.Add(time.Hour), Failed: true, Attempt: push.Attempt{N: 2, At: start.Add(5 * time.Second), Status: 500, Latency: time.Second}},
	} {
		outcome.DeliveryID, outcome.Holder = d.ID, "r1"
		if outcome.Attempt.N == 2 {
			// The second: an attempt claimed after the replay, whose outcome stands.
			again, err := s.ClaimDeliveries(ctx, push.ClaimParams{Holder: "r1", Now: replayAt.Add(time.Second), Until: replayAt.Add(time.Minute), Limit: 10})
			if err != nil || len(again) != 1 || again[0].Delivery.Tries != 0 || again[0].Delivery.Count != 1 {
				t.Fatalf("after the attempt the replay overlapped: claimed %+v, %v; want it again, tries 0, one attempt", again, err)
			}
		}
		if err := s.FinishAttempt(ctx, outcome); err != nil {
			t.Fatalf("FinishAttempt %d: %v", outcome.Attempt.N, err)
		}
	}
	page, err := s.Deliveries(ctx, push.DeliveryQuery{AccountID: "acc1", SubscriptionID: "wh_1", Limit: 10})
	if err != nil || len(page.Deliveries) != 1 {
		t.Fatalf("log %+v, %v", page, err)
	}
	if got := page.Deliveries[0]; got.State != push.DeliveryPending || len(got.Attempts) != 2 || got.Tries != 1 || !got.NextAt.Equal(replayAt.Add(time.Hour)) {
		t.Errorf("delivery after both attempts %+v", got)
	}
}
