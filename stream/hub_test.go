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
	if m := <-s.C(); m.ID.Block != 2 {
		t.Fatalf("got block %d, want 2", m.ID.Block)
	}
	select {
	case m := <-s.C():
		t.Fatalf("unexpected message %+v", m)
	default:
	}
	if c := h.Cursor(topic); c.Last.Block != 2 || c.Time != 200 {
		t.Fatalf("cursor %+v", c)
	}
	h.Publish(topic, &Message{Kind: KindReset})
	if c := h.Cursor(topic); !c.Last.IsZero() {
		t.Fatalf("a reset left the cursor at %+v", c.Last)
	}
	if m := <-s.C(); m.Kind != KindReset {
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
	if _, ok := <-s.C(); ok {
		t.Fatal("channel open after Close")
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
		g.s.Close()
		for m := range g.s.C() {
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
		got = append(got, (<-fast.C()).ID.Block)
	}
	if len(got) != 10 || got[9] != 10 {
		t.Fatalf("fast subscriber got %v", got)
	}
	n := 0
	for range slow.C() {
		n++
	}
	if n != 4 {
		t.Fatalf("slow subscriber drained %d messages, want its buffer of 4", n)
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
	if _, ok := <-a.C(); ok || !errors.Is(a.Err(), ErrClosed) {
		t.Fatalf("after Close: open channel or Err %v", a.Err())
	}
	b, _ := h.Subscribe("a")
	if _, ok := <-b.C(); ok || !errors.Is(b.Err(), ErrClosed) {
		t.Fatalf("subscribe after Close: open channel or Err %v", b.Err())
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
