// Package accounttest is the conformance suite of account.Store: every implementation runs it (on
// each database it supports) and must pass unchanged.
package accounttest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/curvekit/curvekit"
	"github.com/curvekit/curvekit/account"
	"github.com/curvekit/curvekit/push"
	"github.com/curvekit/curvekit/push/pushtest"
)

// Fixture is an empty store and the push store of the same database, where SaveSettings
// records the events of a change (the outbox).
type Fixture struct {
	Store  account.Store
	Events push.Store
}

// Run runs the suite; open returns a fresh fixture that t owns.
func Run(t *testing.T, open func(t *testing.T) Fixture) {
	t.Run("Settings", func(t *testing.T) { t.Parallel(); testSettings(t, open(t).Store) })
	t.Run("OneWinnerPerVersion", func(t *testing.T) { t.Parallel(); testSaveRace(t, open(t).Store) })
	t.Run("Activity", func(t *testing.T) { t.Parallel(); testActivity(t, open(t).Store) })
	t.Run("EventsCommitWithTheirChange", func(t *testing.T) { t.Parallel(); testOutbox(t, open(t)) })
}

// testOutbox: a saved change records its events in the same transaction; a save refused (a
// version another change took, or one out of order) records nothing, and the same change saved
// again records nothing twice.
func testOutbox(t *testing.T, f Fixture) {
	ctx := context.Background()
	change := func(v int64) account.SaveParams {
		return account.SaveParams{AccountID: "alice", Document: fmt.Appendf(nil, `{"v":%d}`, v), Version: v, At: at.Add(time.Duration(v) * time.Second),
			Activity: entry("alice", fmt.Sprint("o", v, "_", time.Now().UnixNano()), int(v), account.KindSettings),
			Events: []push.Event{{ID: fmt.Sprint("evt_settings_alice_", v), Type: push.SettingsChanged, Time: at, Account: "alice",
				Data: fmt.Appendf(nil, `{"version":%d}`, v)}}}
	}
	recorded := func(want ...string) {
		t.Helper()
		if got := pushtest.EventIDs(t, f.Events, "alice"); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("events recorded %v, want %v", got, want)
		}
	}
	if err := f.Store.SaveSettings(ctx, change(2)); !errors.Is(err, curvekit.ErrConflict) {
		t.Fatalf("SaveSettings of version 2 over none: %v, want ErrConflict", err)
	}
	recorded()
	if err := f.Store.SaveSettings(ctx, change(1)); err != nil {
		t.Fatalf("SaveSettings version 1: %v", err)
	}
	recorded("evt_settings_alice_1")
	// The same change again (a retry) is refused: its version is taken; nothing more is recorded.
	if err := f.Store.SaveSettings(ctx, change(1)); !errors.Is(err, curvekit.ErrConflict) {
		t.Fatalf("SaveSettings version 1 again: %v, want ErrConflict", err)
	}
	recorded("evt_settings_alice_1")
	if err := f.Store.SaveSettings(ctx, change(2)); err != nil {
		t.Fatalf("SaveSettings version 2: %v", err)
	}
	recorded("evt_settings_alice_1", "evt_settings_alice_2")
	evs, err := f.Events.Events(ctx, "alice", 0, 10)
	if err != nil {
		t.Fatal(err)
	}
	if string(evs[1].Data) != `{"version":2}` || evs[1].Type != push.SettingsChanged {
		t.Errorf("recorded %s %s", evs[1].Type, evs[1].Data)
	}
	// Another account's change is not alice's event.
	other := change(1)
	other.AccountID, other.Activity.AccountID, other.Events[0].ID, other.Events[0].Account = "bob", "bob", "evt_settings_bob_1", "bob"
	if err := f.Store.SaveSettings(ctx, other); err != nil {
		t.Fatalf("SaveSettings of bob: %v", err)
	}
	recorded("evt_settings_alice_1", "evt_settings_alice_2")
}

// at is a fixed instant with sub-second precision, to catch stores that round times.
var at = time.Date(2026, 11, 26, 10, 30, 15, 123456789, time.UTC)

func entry(account_, id string, n int, kind account.ActivityKind) account.Activity {
	a := account.Activity{ID: id, AccountID: account_, At: at.Add(time.Duration(n) * time.Second), Kind: kind, Message: "entry " + id, Actor: "session"}
	if kind == account.KindRefusal {
		a.Code = string(curvekit.CodeDailyLimitExceeded)
		a.Actor = "key k1"
	} else {
		a.Changes = []string{"wallet.paused", "wallet.limits.ETH"}
	}
	return a
}

func testSettings(t *testing.T, s account.Store) {
	ctx := context.Background()
	if _, err := s.Settings(ctx, "alice"); !errors.Is(err, curvekit.ErrNotFound) {
		t.Fatalf("Settings before any save: %v, want ErrNotFound", err)
	}
	doc := []byte(`{"wallet":{"paused":true}}`)
	if err := s.SaveSettings(ctx, account.SaveParams{AccountID: "alice", Document: doc, Version: 2, At: at, Activity: entry("alice", "a0", 0, account.KindSettings)}); !errors.Is(err, curvekit.ErrConflict) {
		t.Fatalf("SaveSettings of version 2 over none: %v, want ErrConflict", err)
	}
	if err := s.SaveSettings(ctx, account.SaveParams{AccountID: "alice", Document: doc, Version: 1, At: at, Activity: entry("alice", "a1", 1, account.KindSettings)}); err != nil {
		t.Fatalf("SaveSettings version 1: %v", err)
	}
	got, err := s.Settings(ctx, "alice")
	want := account.Record{AccountID: "alice", Document: doc, Version: 1, UpdatedAt: at}
	if err != nil || !cmp.Equal(got, want) {
		t.Fatalf("Settings = %+v, %v; want %+v", got, err, want)
	}
	doc2 := []byte(`{"wallet":{"paused":false}}`)
	for _, v := range []int64{1, 3} {
		if err := s.SaveSettings(ctx, account.SaveParams{AccountID: "alice", Document: doc2, Version: v, At: at, Activity: entry("alice", fmt.Sprint("x", v), 2, account.KindSettings)}); !errors.Is(err, curvekit.ErrConflict) {
			t.Fatalf("SaveSettings version %d over 1: %v, want ErrConflict", v, err)
		}
	}
	later := at.Add(time.Minute)
	if err := s.SaveSettings(ctx, account.SaveParams{AccountID: "alice", Document: doc2, Version: 2, At: later, Activity: entry("alice", "a2", 3, account.KindSettings)}); err != nil {
		t.Fatalf("SaveSettings version 2: %v", err)
	}
	if got, _ := s.Settings(ctx, "alice"); string(got.Document) != string(doc2) || got.Version != 2 || !got.UpdatedAt.Equal(later) {
		t.Fatalf("after version 2: %+v", got)
	}
	if _, err := s.Settings(ctx, "bob"); !errors.Is(err, curvekit.ErrNotFound) {
		t.Fatalf("another account's settings: %v", err)
	}
	// Only the saves that won logged their entry.
	page, err := s.Activity(ctx, account.ActivityQuery{AccountID: "alice", Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, e := range page.Entries {
		ids = append(ids, e.ID)
	}
	if !cmp.Equal(ids, []string{"a2", "a1"}) {
		t.Fatalf("activity after conflicts: %v, want [a2 a1]", ids)
	}
}

func testSaveRace(t *testing.T, s account.Store) {
	ctx := context.Background()
	const n = 12
	var wg sync.WaitGroup
	var mu sync.Mutex
	won := 0
	for i := range n {
		wg.Go(func() {
			err := s.SaveSettings(ctx, account.SaveParams{AccountID: "race", Document: []byte(fmt.Sprintf(`{"n":%d}`, i)), Version: 1, At: at,
				Activity: entry("race", fmt.Sprint("r", i), i, account.KindSettings)})
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				won++
			case !errors.Is(err, curvekit.ErrConflict):
				t.Errorf("save %d: %v", i, err)
			}
		})
	}
	wg.Wait()
	page, err := s.Activity(ctx, account.ActivityQuery{AccountID: "race", Limit: 100})
	if won != 1 || err != nil || len(page.Entries) != 1 {
		t.Fatalf("%d saves of version 1 won, %d entries logged (%v); want one each", won, len(page.Entries), err)
	}
}

func testActivity(t *testing.T, s account.Store) {
	ctx := context.Background()
	var want []account.Activity
	for i := range 7 {
		kind := account.KindRefusal
		if i%3 == 0 {
			kind = account.KindSettings
		}
		e := entry("carol", fmt.Sprintf("c%d", i), i/2, kind) // pairs share an instant: ordered by id
		if err := s.AppendActivity(ctx, e); err != nil {
			t.Fatal(err)
		}
		want = append([]account.Activity{e}, want...)
	}
	if err := s.AppendActivity(ctx, entry("dave", "d0", 0, account.KindRefusal)); err != nil {
		t.Fatal(err)
	}
	var got []account.Activity
	cursor := ""
	for pages := 0; ; pages++ {
		page, err := s.Activity(ctx, account.ActivityQuery{AccountID: "carol", Cursor: cursor, Limit: 3})
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, page.Entries...)
		if page.Next == "" {
			if pages != 2 {
				t.Fatalf("%d pages of 3 for 7 entries", pages+1)
			}
			break
		}
		cursor = page.Next
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("activity pages (-want +got):\n%s", diff)
	}
	for _, bad := range []string{"x", "bm90IG91cnM", cursor + "A"} {
		if _, err := s.Activity(ctx, account.ActivityQuery{AccountID: "carol", Cursor: bad, Limit: 3}); !errors.Is(err, curvekit.ErrInvalid) {
			t.Errorf("cursor %q: %v, want ErrInvalid", bad, err)
		}
	}
}
