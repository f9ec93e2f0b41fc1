package push_test

import (
	"context"
	"fmt"
	"math/big"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/curvekit/curvekit/internal/pgtest"
	"github.com/curvekit/curvekit/push"
)

// BenchmarkDeliveryLatency measures, on one replica with 1,000 subscriptions (each filtered on a
// token of its own) and a receiver on loopback, the time from Publish (the commit that records
// an event) to the receiver's hearing it, for events published at 200 a second, each matching
// one subscription. Run it with -benchtime=1000x (5 s of events); it reports p50, p99 and max
// latency, and allocations per event (publish, claim, send, record).
func BenchmarkDeliveryLatency(b *testing.B) {
	b.Run("SQLite", func(b *testing.B) { benchLatency(b, "") })
	if os.Getenv("CURVEKIT_TEST_POSTGRES") != "" {
		b.Run("Postgres", func(b *testing.B) { benchLatency(b, pgtest.Schema(b, "push_bench")) })
	}
}

func benchLatency(b *testing.B, dsn string) {
	const subs = 1000
	w := newWorld(b, dsn, push.Config{Workers: 32, Poll: time.Second})
	w.clock = nil // the wall clock: latency is real time
	ws := newService(b, w.db, push.Config{Workers: 32, Poll: time.Second, Now: time.Now})
	var mu sync.Mutex
	sent := map[string]time.Time{}
	var lat []time.Duration
	done := make(chan struct{})
	target := b.N
	srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		at := time.Now()
		id := r.Header.Get("webhook-id")
		mu.Lock()
		if t0, ok := sent[id]; ok {
			lat = append(lat, at.Sub(t0))
			if len(lat) == target {
				close(done)
			}
		}
		mu.Unlock()
		rw.WriteHeader(http.StatusNoContent)
	}))
	b.Cleanup(srv.Close)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	tokens := make([]common.Address, subs)
	for i := range subs {
		tokens[i] = common.BigToAddress(big.NewInt(int64(i + 1)))
		if _, _, err := ws.svc.Create(ctx, push.CreateParams{AccountID: fmt.Sprintf("acc%d", i), URL: srv.URL, Types: []push.Type{push.Trade}, Tokens: []common.Address{tokens[i]}}); err != nil {
			b.Fatal(err)
		}
	}
	var run sync.WaitGroup
	run.Go(func() { _ = ws.svc.Run(ctx) })
	var before runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	b.ReportAllocs()
	b.ResetTimer()
	tick := time.NewTicker(5 * time.Millisecond) // 200 a second
	for i := range b.N {
		<-tick.C
		e := tradeEvent(fmt.Sprintf("evt_bench_%d", i))
		e.Token = tokens[i%subs]
		mu.Lock()
		sent[e.ID] = time.Now()
		mu.Unlock()
		if err := ws.svc.Publish(ctx, e); err != nil {
			b.Fatal(err)
		}
	}
	tick.Stop()
	select {
	case <-done:
	case <-time.After(time.Minute):
		b.Fatalf("%d of %d delivered in a minute", len(lat), b.N)
	}
	b.StopTimer()
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	cancel()
	run.Wait()
	slices.Sort(lat)
	q := func(p float64) float64 {
		return float64(lat[min(len(lat)-1, int(p*float64(len(lat))))].Microseconds()) / 1000
	}
	b.ReportMetric(q(0.5), "p50-ms")
	b.ReportMetric(q(0.99), "p99-ms")
	b.ReportMetric(float64(lat[len(lat)-1].Microseconds())/1000, "max-ms")
	b.ReportMetric(float64(after.Mallocs-before.Mallocs)/float64(b.N), "allocs/event")
}

// BenchmarkDeadReceiver publishes events for a receiver that never answers (each attempt runs
// into the client's timeout) and reports the heap in use before and after: deliveries wait in
// the database, and the sender holds at most Workers of them.
func BenchmarkDeadReceiver(b *testing.B) {
	w := newWorld(b, "", push.Config{})
	ws := newService(b, w.db, push.Config{Workers: 8, Poll: 50 * time.Millisecond, Now: time.Now})
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	b.Cleanup(func() { close(release); srv.Close() })
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if _, _, err := ws.svc.Create(ctx, push.CreateParams{AccountID: "acc", URL: srv.URL, Types: []push.Type{push.Trade}}); err != nil {
		b.Fatal(err)
	}
	var run sync.WaitGroup
	run.Go(func() { _ = ws.svc.Run(ctx) })
	heap := func() float64 {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return float64(m.HeapInuse) / (1 << 20)
	}
	// Warm: the workers hold their first deliveries.
	for i := range 100 {
		_ = ws.svc.Publish(ctx, tradeEvent(fmt.Sprintf("evt_warm_%d", i)))
	}
	time.Sleep(200 * time.Millisecond)
	h0 := heap()
	b.ResetTimer()
	for i := range b.N {
		if err := ws.svc.Publish(ctx, tradeEvent(fmt.Sprintf("evt_dead_%d", i))); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	h1 := heap()
	cancel()
	close(release)
	release = make(chan struct{})
	run.Wait()
	b.ReportMetric(h0, "heap-before-MiB")
	b.ReportMetric(h1, "heap-after-MiB")
}
