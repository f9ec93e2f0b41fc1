package push_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/curvekit/curvekit"
	"github.com/curvekit/curvekit/adapters/bunstore"
	"github.com/curvekit/curvekit/adapters/webhook"
	"github.com/curvekit/curvekit/internal/pgtest"
	"github.com/curvekit/curvekit/push"
	"github.com/curvekit/curvekit/wallet"
)

// keys wraps data keys with the wallet's keyring, as the server does.
type keys struct{ k *wallet.Keyring }

func (k keys) Wrap(ctx context.Context, dk, ad []byte) (uint32, []byte, error) {
	w, err := k.k.Wrap(ctx, dk, ad)
	return w.Version, w.Ciphertext, err
}

func (k keys) Unwrap(ctx context.Context, v uint32, c, ad []byte) ([]byte, error) {
	return k.k.Unwrap(ctx, wallet.Wrapped{Version: v, Ciphertext: c}, ad)
}

func newKeys(t testing.TB) keys {
	k, err := wallet.ParseKeyring("1:" + "11223344556677889900aabbccddeeff11223344556677889900aabbccddeeff")
	if err != nil {
		t.Fatal(err)
	}
	return keys{k}
}

// clock is a settable clock near the present (the verifier refuses timestamps five minutes off).
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// hook is a receiver: every request is verified with the Standard Webhooks library and kept;
// answer decides the status of the n-th request (from 1).
type hook struct {
	t       testing.TB
	srv     *httptest.Server
	mu      sync.Mutex
	secrets []string
	got     []received
	answer  func(n int) int
	strict  bool // verify the timestamp too
}

type received struct {
	id       string
	body     []byte
	verified []bool // per secret
}

func newHook(t testing.TB, answer func(n int) int) *hook {
	h := &hook{t: t, answer: answer, strict: true}
	h.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		h.mu.Lock()
		rec := received{id: r.Header.Get("webhook-id"), body: body}
		for _, s := range h.secrets {
			wh, err := standardwebhooks.NewWebhook(s)
			if err != nil {
				t.Errorf("secret %q: %v", s, err)
				continue
			}
			if h.strict {
				err = wh.Verify(body, r.Header)
			} else {
				err = wh.VerifyIgnoringTimestamp(body, r.Header)
			}
			rec.verified = append(rec.verified, err == nil)
		}
		h.got = append(h.got, rec)
		n := len(h.got)
		h.mu.Unlock()
		w.WriteHeader(h.answer(n))
		io.WriteString(w, `{"thanks":true}`)
	}))
	t.Cleanup(h.srv.Close)
	return h
}

func (h *hook) received() []received {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]received(nil), h.got...)
}

type world struct {
	db    *bunstore.DB
	svc   *push.Service
	clock *clock
}

func newWorld(t testing.TB, dsn string, cfg push.Config) *world {
	t.Helper()
	if dsn == "" {
		dsn = filepath.Join(t.TempDir(), "push.db")
	}
	db, err := bunstore.Open(context.Background(), bunstore.Config{DSN: dsn})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return newService(t, db, cfg)
}

func newService(t testing.TB, db *bunstore.DB, cfg push.Config) *world {
	c := &clock{now: time.Now().UTC()}
	client, err := webhook.New(webhook.Config{AllowLoopback: true, Timeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	cfg.Store, cfg.Keys, cfg.Client, cfg.Now = db.Push(), newKeys(t), client, c.Now
	if cfg.Holder == "" {
		cfg.Holder = "r1"
	}
	if cfg.Retries == nil {
		cfg.Retries = []time.Duration{time.Second, 2 * time.Second, 3 * time.Second, 4 * time.Second}
	}
	svc, err := push.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return &world{db: db, svc: svc, clock: c}
}

func (w *world) subscribe(t testing.TB, h *hook, account string, types ...push.Type) (push.Subscription, string) {
	t.Helper()
	sub, secret, err := w.svc.Create(context.Background(), push.CreateParams{AccountID: account, URL: h.srv.URL + "/in", Types: types})
	if err != nil {
		t.Fatal(err)
	}
	h.mu.Lock()
	h.secrets = append(h.secrets, secret)
	h.mu.Unlock()
	return sub, secret
}

func (w *world) send(t testing.TB) int {
	t.Helper()
	n, err := w.svc.SendOnce(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return n
}

var token = common.HexToAddress("0x00000000000000000000000000000000000000aa")

func tradeEvent(id string) push.Event {
	return push.Event{ID: id, Type: push.Trade, Time: time.Unix(1_790_000_000, 0), Token: token, Decimals: 18, Data: json.RawMessage(`{"side":"buy","quoteAmount":"0.5"}`)}
}

// A receiver that fails three times then succeeds gets the same webhook-id each time, every
// delivery verifies with the Standard Webhooks library, and the log shows each attempt.
func TestRetriesKeepTheIDAndVerify(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := newWorld(t, "", push.Config{})
	h := newHook(t, func(n int) int {
		if n <= 3 {
			return http.StatusInternalServerError
		}
		return http.StatusOK
	})
	sub, secret := w.subscribe(t, h, "acc1", push.Trade)
	if err := w.svc.Publish(ctx, tradeEvent("evt_trade_1")); err != nil {
		t.Fatal(err)
	}
	for i, wait := range []time.Duration{0, time.Second, 2 * time.Second, 3 * time.Second} {
		if i > 0 && w.send(t) != 0 {
			t.Fatalf("retry %d sent before it was due", i)
		}
		w.clock.Add(wait)
		if n := w.send(t); n != 1 {
			t.Fatalf("attempt %d: sent %d", i+1, n)
		}
	}
	got := h.received()
	if len(got) != 4 {
		t.Fatalf("receiver got %d requests, want 4", len(got))
	}
	for i, r := range got {
		if r.id != "evt_trade_1" || !r.verified[0] {
			t.Errorf("request %d: id %q, verified %v", i+1, r.id, r.verified)
		}
		var env struct {
			ID, Type, Timestamp string
			Data                json.RawMessage
		}
		if err := json.Unmarshal(r.body, &env); err != nil || env.ID != "evt_trade_1" || env.Type != "trade" || string(env.Data) != `{"side":"buy","quoteAmount":"0.5"}` ||
			env.Timestamp != "2026-09-21T14:13:20Z" {
			t.Errorf("body %s: %v", r.body, err)
		}
	}
	// A signature made with another secret does not verify: the check above can fail.
	other, _ := standardwebhooks.NewWebhook(push.NewSecret())
	hdr := http.Header{}
	sig, _ := push.Sign("evt_trade_1", time.Now().Unix(), got[0].body, secret)
	hdr.Set("webhook-id", "evt_trade_1")
	hdr.Set("webhook-timestamp", itoa(time.Now().Unix()))
	hdr.Set("webhook-signature", sig)
	if other.Verify(got[0].body, hdr) == nil {
		t.Error("another secret verified the signature")
	}
	page, err := w.svc.Deliveries(ctx, push.DeliveryQuery{AccountID: "acc1", SubscriptionID: sub.ID, Limit: 10})
	if err != nil || len(page.Deliveries) != 1 {
		t.Fatalf("log: %+v, %v", page, err)
	}
	d := page.Deliveries[0]
	if d.State != push.DeliverySucceeded || len(d.Attempts) != 4 || d.Attempts[0].Status != 500 || d.Attempts[3].Status != 200 || d.Attempts[3].Response != `{"thanks":true}` {
		t.Errorf("delivery %+v", d)
	}
	if s, _ := w.svc.Subscription(ctx, "acc1", sub.ID); !s.FailingSince.IsZero() || !s.Enabled {
		t.Errorf("after the success: %+v", s)
	}
	// The same cause published again is not delivered again.
	if err := w.svc.Publish(ctx, tradeEvent("evt_trade_1")); err != nil || w.send(t) != 0 {
		t.Errorf("the same event published again was sent again (%v)", err)
	}
}

func itoa(n int64) string { b, _ := json.Marshal(n); return string(b) }

// After a rotation both secrets sign for the overlap; after it, only the new one.
func TestRotation(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := newWorld(t, "", push.Config{})
	h := newHook(t, func(int) int { return 204 })
	h.strict = false
	sub, _ := w.subscribe(t, h, "acc1", push.Trade)
	_, fresh, err := w.svc.Rotate(ctx, "acc1", sub.ID)
	if err != nil {
		t.Fatal(err)
	}
	h.secrets = append(h.secrets, fresh)
	_ = w.svc.Publish(ctx, tradeEvent("evt_1"))
	w.send(t)
	w.clock.Add(24*time.Hour + time.Second)
	_ = w.svc.Publish(ctx, tradeEvent("evt_2"))
	w.send(t)
	got := h.received()
	if len(got) != 2 || !got[0].verified[0] || !got[0].verified[1] || got[1].verified[0] || !got[1].verified[1] {
		t.Errorf("verified by [old new]: during the overlap %v, after %v", got[0].verified, got[1].verified)
	}
	if _, _, err := w.svc.Rotate(ctx, "acc2", sub.ID); !errors.Is(err, curvekit.ErrNotFound) {
		t.Errorf("rotating another account's webhook: %v", err)
	}
}

// A minimum trade size has at most 18 decimals (a finer one is refused, not stored as given) and
// is kept in its shortest form.
func TestMinTradeSize(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := newWorld(t, "", push.Config{})
	h := newHook(t, func(int) int { return 204 })
	create := func(size string) (push.Subscription, error) {
		sub, _, err := w.svc.Create(ctx, push.CreateParams{AccountID: "acc1", URL: h.srv.URL + "/in", Types: []push.Type{push.Trade}, MinSize: size})
		return sub, err
	}
	for _, size := range []string{"0." + strings.Repeat("0", 39) + "1", "0.0000000000000000001", "1e-3", "-1"} {
		if sub, err := create(size); !errors.Is(err, curvekit.ErrInvalid) {
			t.Errorf("minTradeSize %q: %v, stored %q", size, err, sub.MinSize)
		}
	}
	sub, err := create("0.500000000000000000")
	if err != nil || sub.MinSize != "0.5" {
		t.Fatalf("minTradeSize 0.500000000000000000: %q %v", sub.MinSize, err)
	}
	if got, err := w.svc.Subscription(ctx, "acc1", sub.ID); err != nil || got.MinSize != "0.5" {
		t.Errorf("stored %q %v", got.MinSize, err)
	}
	fine := "0.000000000000000001"
	got, err := w.svc.Update(ctx, push.UpdateParams{AccountID: "acc1", ID: sub.ID, MinSize: &fine})
	if err != nil || got.MinSize != fine {
		t.Errorf("18 decimals: %q %v", got.MinSize, err)
	}
	finer := fine + "0001"
	if _, err := w.svc.Update(ctx, push.UpdateParams{AccountID: "acc1", ID: sub.ID, MinSize: &finer}); !errors.Is(err, curvekit.ErrInvalid) {
		t.Errorf("22 decimals by PATCH: %v", err)
	}
}

// A 410 disables the subscription and tells the account; so do five days of failures.
func TestDisabling(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := newWorld(t, "", push.Config{FailingLimit: 5 * 24 * time.Hour, Retries: []time.Duration{time.Hour, 200 * time.Hour}})
	gone := newHook(t, func(int) int { return http.StatusGone })
	failing := newHook(t, func(int) int { return http.StatusBadGateway })
	s1, _ := w.subscribe(t, gone, "acc1", push.Trade)
	s2, _ := w.subscribe(t, failing, "acc2", push.Trade)
	_ = w.svc.Publish(ctx, tradeEvent("evt_1"), tradeEvent("evt_2"))
	w.send(t) // gone: 2 deliveries, the first disables; failing: both fail
	if s, _ := w.svc.Subscription(ctx, "acc1", s1.ID); s.Enabled || s.DisabledReason == "" {
		t.Errorf("after a 410: %+v", s)
	}
	w.clock.Add(time.Hour)
	w.send(t)
	if s, _ := w.svc.Subscription(ctx, "acc2", s2.ID); !s.Enabled {
		t.Fatalf("disabled after an hour of failures")
	}
	w.clock.Add(200 * time.Hour)
	w.send(t)
	if s, _ := w.svc.Subscription(ctx, "acc2", s2.ID); s.Enabled || s.DisabledReason == "" {
		t.Errorf("after five days of failures: %+v", s)
	}
	for _, acc := range []string{"acc1", "acc2"} {
		evs, err := w.svc.Events(ctx, acc, 0, 10)
		if err != nil || len(evs) != 1 || evs[0].Type != push.WebhookDisabled {
			t.Errorf("%s's events: %+v, %v", acc, evs, err)
		}
	}
	// Both deliveries were claimed together; once disabled, nothing more is sent.
	before := len(gone.received())
	_ = w.svc.Publish(ctx, tradeEvent("evt_3"))
	w.send(t)
	if n := len(gone.received()); n != before || n > 2 {
		t.Errorf("the 410 receiver got %d requests, then %d", before, n)
	}
}

// A replica that claimed a delivery and died (kill -9: it never reports) loses nothing: once the
// claim lapses another replica makes the attempt, with the same webhook-id.
func TestDeadReplicaLosesNothing(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := newWorld(t, "", push.Config{Claim: 30 * time.Second})
	h := newHook(t, func(int) int { return 200 })
	w.subscribe(t, h, "acc1", push.Trade)
	_ = w.svc.Publish(ctx, tradeEvent("evt_1"))
	now := w.clock.Now()
	dead, err := w.db.Push().ClaimDeliveries(ctx, push.ClaimParams{Holder: "dead", Now: now, Until: now.Add(30 * time.Second), Limit: 10})
	if err != nil || len(dead) != 1 {
		t.Fatalf("claim: %d, %v", len(dead), err)
	}
	if w.send(t) != 0 {
		t.Fatal("a live claim was sent by another replica")
	}
	w.clock.Add(31 * time.Second)
	if w.send(t) != 1 {
		t.Fatal("the lapsed claim was not taken over")
	}
	if got := h.received(); len(got) != 1 || got[0].id != "evt_1" || !got[0].verified[0] {
		t.Errorf("received %+v", got)
	}
}

// Two senders on one store (two replicas) make each attempt once.
func TestTwoSendersDeliverEachOnce(t *testing.T) {
	t.Parallel()
	dsn := ""
	if pg := os.Getenv("CURVEKIT_TEST_POSTGRES"); pg != "" {
		dsn = pgtest.Schema(t, "push_test")
	}
	a := newWorld(t, dsn, push.Config{Holder: "a", Workers: 4, Poll: 10 * time.Millisecond})
	b := newService(t, a.db, push.Config{Holder: "b", Workers: 4, Poll: 10 * time.Millisecond})
	b.clock = a.clock
	const events = 40
	all := make(chan struct{})
	h := newHook(t, func(n int) int {
		if n == events*3 {
			close(all)
		}
		return 200
	})
	for i := range 3 {
		a.subscribe(t, h, "acc"+itoa(int64(i)), push.Trade)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var run sync.WaitGroup
	run.Go(func() { _ = a.svc.Run(ctx) })
	run.Go(func() { _ = b.svc.Run(ctx) })
	for i := range events {
		if err := a.svc.Publish(ctx, tradeEvent("evt_"+itoa(int64(i)))); err != nil {
			t.Fatal(err)
		}
	}
	select {
	case <-all:
	case <-time.After(30 * time.Second):
		t.Error("not everything was delivered in 30s")
	}
	// Anything sent twice would arrive within a poll or two more.
	cancel()
	run.Wait()
	seen := map[string]int{}
	for _, r := range h.received() {
		seen[r.id]++
		if !r.verified[0] && !r.verified[1] && !r.verified[2] {
			t.Errorf("%s did not verify", r.id)
		}
	}
	if len(h.received()) != events*3 || len(seen) != events {
		t.Fatalf("%d requests for %d events, want %d for %d", len(h.received()), len(seen), events*3, events)
	}
	for id, n := range seen {
		if n != 3 {
			t.Errorf("%s delivered %d times, want once to each of 3 subscriptions", id, n)
		}
	}
}

// Tail hands on every account event once, in the order of its number, whatever replica or
// goroutine recorded it; a number no event took (on PostgreSQL a refused duplicate takes one)
// holds it up for GapWait at most.
func TestTail(t *testing.T) {
	t.Parallel()
	dsn := ""
	if pg := os.Getenv("CURVEKIT_TEST_POSTGRES"); pg != "" {
		dsn = pgtest.Schema(t, "push_tail")
	}
	w := newWorld(t, dsn, push.Config{TailPoll: 20 * time.Millisecond, GapWait: 100 * time.Millisecond})
	other := newService(t, w.db, push.Config{Holder: "r2"}) // another replica recording
	ctx, cancel := context.WithCancel(context.Background())
	var mu sync.Mutex
	var got []push.Event
	const n = 40
	all := make(chan struct{})
	// The tail starts at the newest event: one recorded first marks where it stands.
	if err := w.svc.Publish(ctx, push.Event{ID: "evt_before", Type: push.JobCompleted, Time: time.Now(), Account: "acc0"}); err != nil {
		t.Fatal(err)
	}
	var run sync.WaitGroup
	run.Go(func() {
		_ = w.svc.Tail(ctx, func(e *push.Event) {
			mu.Lock()
			got = append(got, *e)
			if len(got) == n {
				close(all)
			}
			mu.Unlock()
		})
	})
	for w.svc.Position() == 0 {
		runtime.Gosched() // until the tail has read where it starts
	}
	var pub sync.WaitGroup
	for g := range 4 {
		pub.Go(func() {
			svc := w.svc
			if g%2 == 1 {
				svc = other.svc
			}
			for i := range n / 4 {
				id := fmt.Sprintf("evt_%d_%d", g, i)
				if err := svc.Publish(ctx, push.Event{ID: id, Type: push.JobCompleted, Time: time.Now(), Account: fmt.Sprintf("acc%d", g)}); err != nil {
					t.Error(err)
				}
				if i%5 != 0 {
					continue
				}
				// The same event again: recorded once; on PostgreSQL its refused insert takes a number.
				_ = svc.Publish(ctx, push.Event{ID: id, Type: push.JobCompleted, Time: time.Now(), Account: fmt.Sprintf("acc%d", g)})
			}
		})
	}
	pub.Wait()
	select {
	case <-all:
	case <-time.After(20 * time.Second):
	}
	cancel()
	run.Wait()
	mu.Lock()
	defer mu.Unlock()
	if len(got) != n {
		t.Fatalf("tail handed on %d events, want %d", len(got), n)
	}
	seen := map[string]bool{}
	for i, e := range got {
		if seen[e.ID] || i > 0 && e.Seq <= got[i-1].Seq || e.Account == "" {
			t.Fatalf("event %d: %+v after %+v", i, e, got[max(i-1, 0)])
		}
		seen[e.ID] = true
	}
}

// A replay since a time out of range is refused, not read as another time: before 1970, or
// beyond the clock (a time that overflowed the store's nanoseconds replayed everything).
func TestReplaySinceOutOfRange(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := newWorld(t, "", push.Config{})
	h := newHook(t, func(int) int { return 204 })
	h.strict = false
	sub, _ := w.subscribe(t, h, "acc1", push.Trade)
	_ = w.svc.Publish(ctx, tradeEvent("evt_1"))
	w.send(t)
	for _, since := range []int64{99_999_999_999_999, 1e13, 1e11, w.clock.Now().Add(push.ReplaySkew + time.Second).Unix(), -1} {
		n, err := w.svc.Replay(ctx, push.ReplayParams{AccountID: "acc1", SubscriptionID: sub.ID, Since: time.Unix(since, 0)})
		if !errors.Is(err, curvekit.ErrInvalid) || n != 0 {
			t.Errorf("replay since %d: %d, %v; want ErrInvalid", since, n, err)
		}
	}
	for since, want := range map[int64]int{0: 1, w.clock.Now().Add(time.Minute).Unix(): 0} {
		if n, err := w.svc.Replay(ctx, push.ReplayParams{AccountID: "acc1", SubscriptionID: sub.ID, Since: time.Unix(since, 0)}); err != nil || n != want {
			t.Errorf("replay since %d: %d, %v; want %d", since, n, err, want)
		}
	}
}
