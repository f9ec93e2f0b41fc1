package stream

import (
	"sync"
	"sync/atomic"
	"testing"
)

// SubscribeAtMost never lets more than max subscribers onto a topic, however many ask at once; a
// closed subscription makes room; other topics are not counted.
func TestSubscribeAtMostUnderConcurrency(t *testing.T) {
	t.Parallel()
	h := newHub(t, 10)
	const topic, max = Topic("account:a"), 16
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		subs []*Subscription
		out  atomic.Int64
	)
	for range 64 {
		wg.Go(func() {
			s, _, ok := h.SubscribeAtMost(topic, max)
			if !ok {
				out.Add(1)
				return
			}
			mu.Lock()
			subs = append(subs, s)
			mu.Unlock()
		})
	}
	wg.Wait()
	if len(subs) != max || out.Load() != 64-max || h.Subscribers(topic) != max {
		t.Fatalf("%d subscribed, %d refused, %d on the topic; want %d, %d", len(subs), out.Load(), h.Subscribers(topic), max, 64-max)
	}
	if _, _, ok := h.SubscribeAtMost("account:b", max); !ok {
		t.Fatal("another topic was refused")
	}
	subs[0].Close()
	subs[0].Close() // closing twice frees one place only
	if _, _, ok := h.SubscribeAtMost(topic, max); !ok {
		t.Fatal("refused after a subscriber left")
	}
	if _, _, ok := h.SubscribeAtMost(topic, max); ok {
		t.Fatal("a second subscriber got the one place")
	}
	if s, _ := h.Subscribe(topic); s == nil || h.Subscribers(topic) != max+1 {
		t.Fatal("Subscribe is bounded")
	}
}
