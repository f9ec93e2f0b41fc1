package stream

import (
	"errors"
	"sync"
	"testing"
	"time"
)

func tradeMsg(block uint64, at int64) *Message {
	id := ID{Pos: Pos{Block: block}, Time: at, Tag: 1}
	return &Message{Kind: KindTrade, ID: id, IDText: id.String()}
}

func newHub(t *testing.T, buffer int) *Hub {
	t.Helper()
	h, err := NewHub(HubConfig{Buffer: buffer})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func TestHubDeliversAfterTheCursor(t *testing.T) {
	t.Parallel()
	h := newHub(t, 10)
	const topic = Topic("t")
	h.Publish(topic, tradeMsg(1, 100))
	s, cur := h.Subscribe(topic)
	if cur.Last.Block != 1 || cur.Time != 100 {
		t.Fatalf("cursor %+v, want block 1 time 100", cur)
	}
	h.Publish(topic, tradeMsg(2, 90)) // an older time does not move the hub's time back
	h.Publish("other", tradeMsg(3, 200))
	if m := recv(t, s); m.ID.Block != 2 {
		t.Fatalf("got block %d, want 2", m.ID.Block)
	}
	if m, ok := poll(s); ok {
		t.Fatalf("unexpected message %+v", m)
	}
	if c := h.Cursor(topic); c.Last.Block != 2 || c.Time != 200 {
		t.Fatalf("cursor %+v", c)
	}
	h.Publish(topic, &Message{Kind: KindReset})
	if c := h.Cursor(topic); !c.Last.IsZero() {
		t.Fatalf("a reset left the cursor at %+v", c.Last)
	}
	if m := recv(t, s); m.Kind != KindReset {
		t.Fatalf("got %+v, want the reset", m)
	}
	h.Rewind()
	if c := h.Cursor(topic); c.Time != 0 {
		t.Fatalf("rewound time %d", c.Time)
	}
	s.Close()
	s.Close() // twice is fine
	if n := h.Subscribers(topic); n != 0 {
		t.Fatalf("%d subscribers after Close", n)
	}
	if _, ended := drained(s); !ended {
		t.Fatal("subscription runs after Close")
	}
	if err := s.Err(); err != nil {
		t.Fatalf("Err after Close = %v", err)
	}
}

// Subscribing concurrently with publishing loses nothing and duplicates nothing: each subscriber
// receives exactly the messages after its cursor.
func TestHubSubscribeRacesPublish(t *testing.T) {
	t.Parallel()
	h := newHub(t, 2000)
	const topic = Topic("t")
	const n = 1000
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 1; i <= n; i++ {
			h.Publish(topic, tradeMsg(uint64(i), int64(i)))
		}
	}()
	type got struct {
		cur  Cursor
		s    *Subscription
		seen []uint64
	}
	subs := make([]*got, 50)
	for i := range subs {
		s, cur := h.Subscribe(topic)
		subs[i] = &got{cur: cur, s: s}
		time.Sleep(10 * time.Microsecond)
	}
	wg.Wait()
	for _, g := range subs {
		msgs, _ := drained(g.s)
		g.s.Close()
		for _, m := range msgs {
			g.seen = append(g.seen, m.ID.Block)
		}
		for i, b := range g.seen {
			if b != g.cur.Last.Block+uint64(i)+1 {
				t.Fatalf("cursor %d: message %d is block %d", g.cur.Last.Block, i, b)
			}
		}
		if len(g.seen) != n-int(g.cur.Last.Block) {
			t.Fatalf("cursor %d: %d messages", g.cur.Last.Block, len(g.seen))
		}
	}
}

// A subscriber that stops reading is cut off when its buffer is full; the others, and the
// publisher, never wait for it.
func TestHubCutsOffSlowSubscriber(t *testing.T) {
	t.Parallel()
	h := newHub(t, 4)
	const topic = Topic("t")
	slow, _ := h.Subscribe(topic)
	fast, _ := h.Subscribe(topic)
	var got []uint64
	for i := 1; i <= 10; i++ {
		start := time.Now()
		h.Publish(topic, tradeMsg(uint64(i), int64(i)))
		if d := time.Since(start); d > time.Second {
			t.Fatalf("Publish took %v", d)
		}
		got = append(got, recv(t, fast).ID.Block)
	}
	if len(got) != 10 || got[9] != 10 {
		t.Fatalf("fast subscriber got %v", got)
	}
	msgs, ended := drained(slow)
	if n := len(msgs); n != 4 || !ended {
		t.Fatalf("slow subscriber drained %d messages (ended %v), want its buffer of 4", len(msgs), ended)
	}
	if !errors.Is(slow.Err(), ErrSlow) {
		t.Fatalf("slow Err = %v", slow.Err())
	}
	if h.Subscribers(topic) != 1 {
		t.Fatalf("%d subscribers, want the fast one", h.Subscribers(topic))
	}
	slow.Close() // after the cut-off: no panic, no effect
	if h.Subscribers(topic) != 1 {
		t.Fatal("Close of a cut-off subscriber removed another")
	}
}

func TestHubClose(t *testing.T) {
	t.Parallel()
	h := newHub(t, 4)
	a, _ := h.Subscribe("a")
	h.Close()
	if _, ended := drained(a); !ended || !errors.Is(a.Err(), ErrClosed) {
		t.Fatalf("after Close: ended %v, Err %v", ended, a.Err())
	}
	b, _ := h.Subscribe("a")
	if _, ended := drained(b); !ended || !errors.Is(b.Err(), ErrClosed) {
		t.Fatalf("subscribe after Close: ended %v, Err %v", ended, b.Err())
	}
	if n := h.Publish("a", tradeMsg(1, 1)); n != 0 {
		t.Fatalf("Publish after Close delivered %d", n)
	}
	h.Close()
}

func TestNewHubRejectsNegativeBuffer(t *testing.T) {
	t.Parallel()
	if _, err := NewHub(HubConfig{Buffer: -1}); err == nil {
		t.Fatal("no error")
	}
}

// A subscriber's queue grows while it lags and is released once it catches up, so idle
// subscribers hold no buffer; Take reuses the array it is given.
func TestSubscriptionQueueShrinks(t *testing.T) {
	t.Parallel()
	h := newHub(t, 1000)
	s, _ := h.Subscribe("t")
	for i := range 500 {
		h.Publish("t", tradeMsg(uint64(i+1), 1))
	}
	<-s.Ready()
	msgs, ended := s.Take(nil)
	if len(msgs) != 500 || ended {
		t.Fatalf("took %d (ended %v)", len(msgs), ended)
	}
	s.mu.Lock()
	if cap(s.queue) != 0 {
		t.Errorf("queue keeps capacity %d after a 500-message catch-up", cap(s.queue))
	}
	s.mu.Unlock()
	small := make([]*Message, 0, 4)
	h.Publish("t", tradeMsg(501, 1))
	got, _ := s.Take(small)
	h.Publish("t", tradeMsg(502, 1))
	again, _ := s.Take(got)
	if len(got) != 1 || len(again) != 1 || again[0].ID.Block != 502 {
		t.Fatalf("takes %v, %v", got, again)
	}
	if &again[0] != &small[:1][0] {
		t.Error("Take did not reuse the array it was given")
	}
}

func TestTotalSubscribers(t *testing.T) {
	h, err := NewHub(HubConfig{})
	if err != nil {
		t.Fatal(err)
	}
	a, _ := h.Subscribe(Topic("a"))
	h.Subscribe(Topic("a"))
	h.Subscribe(Topic("b"))
	if n := h.TotalSubscribers(); n != 3 {
		t.Fatalf("TotalSubscribers = %d, want 3", n)
	}
	a.Close()
	if n := h.TotalSubscribers(); n != 2 {
		t.Fatalf("after one closed: %d, want 2", n)
	}
}
