package stream

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/curvekit/curvekit/candles"
	"github.com/curvekit/curvekit/market"
)

// latencyWriter discards what a connection writes, noting for each live bar how long after its
// publication it was written.
type latencyWriter struct {
	pubAt  []atomic.Int64 // unix nanoseconds, by message number (the id's block)
	mu     *sync.Mutex
	lats   *[]time.Duration
	mine   []time.Duration
	events *atomic.Int64
	got    *sync.WaitGroup
	want   int64 // the last message number
}

func (w *latencyWriter) Write(evs []Event) error {
	now := time.Now().UnixNano()
	w.events.Add(int64(len(evs)))
	for i := range evs {
		e := &evs[i]
		if e.Name != EventBar || e.ID == "" {
			continue
		}
		end := 0
		for end < len(e.ID) && e.ID[end] != '-' {
			end++
		}
		n, _ := strconv.ParseInt(e.ID[:end], 10, 64)
		if n < benchBase || n-benchBase >= int64(len(w.pubAt)) {
			continue // the replay's bar
		}
		w.mine = append(w.mine, time.Duration(now-w.pubAt[n-benchBase].Load()))
		if n == w.want {
			w.mu.Lock()
			*w.lats = append(*w.lats, w.mine...)
			w.mu.Unlock()
			w.mine = w.mine[:0]
			w.got.Done()
		}
	}
	return nil
}

func (w *latencyWriter) Heartbeat() error { return nil }

const benchBase = 1_000_000

// fanout is a token with subs connections running, each in its own goroutine as under the HTTP
// server, and a way to publish bars to them.
type fanout struct {
	e      *env
	topic  Topic
	now    int64 // the token's last trade time: published bars are in its buckets
	pubAt  []atomic.Int64
	lats   []time.Duration
	mu     sync.Mutex
	events atomic.Int64
	got    sync.WaitGroup
	cancel context.CancelFunc
	done   sync.WaitGroup
	bar    []byte
	trade  []byte
}

func newFanout(b *testing.B, subs, msgs int) (*fanout, uint64) {
	e := newEnv(b, 1000)
	w := &world{env: e, ch: newChain(1_800_000_000)}
	tk := newToken(1)
	w.tok = &tk
	w.all = map[common.Address]*market.Token{}
	w.all[tk.Address] = w.tok
	e.store.commit(&market.Batch{Launches: []market.Token{tk}})
	w.trade(60)
	f := &fanout{e: e, topic: TokenTopic(tk.Address), now: w.ch.time, pubAt: make([]atomic.Int64, msgs)}
	// Payloads of the real size: the JSON of a bar and of a trade as adapters/httpapi writes them.
	f.bar = []byte(`{"time":1800000000,"open":3.3333333333333334e-08,"high":3.3333333333333334e-08,"low":3.1e-08,"close":3.2e-08,"volume":"1.1","trades":2}`)
	f.trade = []byte(`{"txHash":"0x9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08","logIndex":4,"block":300,"time":1800000000,"side":"buy","venue":"curve","trader":"0x7ade000000000000000000000000000000000008","recipient":"0x7ade000000000000000000000000000000000008","quoteAmount":"20","tokenAmount":"5000","fee":"0.2","creatorFee":"0.1","refund":"0","price":0.004}`)

	runtime.GC()
	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	ctx, cancel := context.WithCancel(context.Background())
	f.cancel = cancel
	f.got.Add(subs)
	for range subs {
		c, err := e.s.Token(ctx, TokenRequest{Token: tk.Address, Resolution: candles.Res1m})
		if err != nil {
			b.Fatal(err)
		}
		wr := &latencyWriter{pubAt: f.pubAt, mu: &f.mu, lats: &f.lats, events: &f.events, got: &f.got, want: benchBase + int64(msgs) - 1}
		f.done.Add(1)
		go func() {
			defer f.done.Done()
			_ = c.Run(ctx, wr)
		}()
	}
	for e.hub.Subscribers(f.topic) < subs {
		time.Sleep(time.Millisecond)
	}
	time.Sleep(100 * time.Millisecond) // every connection has written its replay and waits
	runtime.GC()
	runtime.GC()
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	perSub := (after.HeapAlloc + after.StackInuse - before.HeapAlloc - before.StackInuse) / uint64(subs)
	f.events.Store(0)
	return f, perSub
}

// publish sends message i: a trade in the token's current minute, its bar at every resolution.
func (f *fanout) publish(i int) {
	id := ID{Pos: Pos{Block: uint64(benchBase + i)}, Time: f.now, Tag: 1}
	m := &Message{Kind: KindTrade, ID: id, IDText: id.String(), Data: f.trade}
	for r := range m.Bars {
		m.Bars[r].Bar = Bar{Bar: candles.Bar{Time: candles.Resolutions()[r].Bucket(f.now)}, Data: f.bar}
	}
	f.pubAt[i].Store(time.Now().UnixNano())
	f.e.hub.Publish(f.topic, m)
}

// wait waits until every connection has written the last message.
func (f *fanout) wait(b *testing.B) {
	done := make(chan struct{})
	go func() { f.got.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(time.Minute):
		b.Fatal("the connections did not all write the last message")
	}
}

func (f *fanout) stop() {
	f.cancel()
	f.done.Wait()
}

func percentile(d []time.Duration, p float64) time.Duration {
	slices.Sort(d)
	return d[int(float64(len(d)-1)*p)]
}

// BenchmarkFanout10k: 10,000 connections on one token, each in its own goroutine (as under the
// HTTP server) turning hub messages into events for a writer that discards them. A bar is
// published every 20 ms (a busy token); reported: the p50 and p99 delay from Publish to the
// write of the bar event, over every connection and bar; and the memory one idle connection
// holds (heap and goroutine stack, measured with runtime.MemStats around opening them).
//
//	go test ./stream -run '^$' -bench Fanout10k -benchtime 1x
func BenchmarkFanout10k(b *testing.B) {
	const subs, msgs = 10_000, 100
	for range b.N {
		f, perSub := newFanout(b, subs, msgs)
		for i := range msgs {
			f.publish(i)
			time.Sleep(20 * time.Millisecond)
		}
		f.wait(b)
		f.stop()
		b.ReportMetric(float64(percentile(f.lats, 0.5).Microseconds())/1000, "p50-ms")
		b.ReportMetric(float64(percentile(f.lats, 0.99).Microseconds())/1000, "p99-ms")
		b.ReportMetric(float64(perSub), "B/sub")
		b.ReportMetric(float64(len(f.lats)), "bars")
	}
}

// BenchmarkHubThroughput: how many events per second 10,000 connections on one token write when
// trades are published as fast as they drain (bursts of 100 messages, half the buffer).
//
//	go test ./stream -run '^$' -bench HubThroughput -benchtime 1x
func BenchmarkHubThroughput(b *testing.B) {
	const subs, msgs = 10_000, 1000
	for range b.N {
		f, _ := newFanout(b, subs, msgs)
		start := time.Now()
		for i := range msgs {
			f.publish(i)
			if i%100 == 99 {
				// Wait until every connection has written this burst.
				for f.events.Load() < int64(subs)*2*int64(i+1) {
					time.Sleep(100 * time.Microsecond)
				}
			}
		}
		f.wait(b)
		d := time.Since(start)
		f.stop()
		b.ReportMetric(float64(msgs)/d.Seconds(), "msgs/s")
		b.ReportMetric(float64(f.events.Load())/d.Seconds(), "events/s")
		b.ReportMetric(float64(subs)*float64(msgs)/d.Seconds(), "deliveries/s")
	}
}

// BenchmarkPublish is the cost of one Publish to 10,000 subscribers that keep up (the hub's part
// of a fan-out, under its lock).
func BenchmarkPublish(b *testing.B) {
	h, err := NewHub(HubConfig{Buffer: 1000})
	if err != nil {
		b.Fatal(err)
	}
	const subs = 10_000
	ss := make([]*Subscription, subs)
	for i := range ss {
		ss[i], _ = h.Subscribe("t")
	}
	m := &Message{Kind: KindTrade}
	bufs := make([][]*Message, subs)
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		h.Publish("t", m)
		if i%8 == 7 { // the subscribers take what arrived, as a connection does
			b.StopTimer()
			for j, s := range ss {
				bufs[j], _ = s.Take(bufs[j])
			}
			b.StartTimer()
		}
	}
}

// BenchmarkResume opens a 1m token stream with the Last-Event-ID of its newest trade over 2000
// trades in 1000 minutes: the default resume replays the whole window (1000 bars), the partial one
// only the resumed bucket. Reported: events and payload bytes per resume.
func BenchmarkResume(b *testing.B) {
	for _, partial := range []bool{false, true} {
		b.Run(fmt.Sprintf("partial=%v", partial), func(b *testing.B) {
			e := newEnv(b, 100)
			ch := newChain(1_800_000_000)
			tk := newToken(1)
			all := map[common.Address]*market.Token{tk.Address: &tk}
			e.store.commit(&market.Batch{Launches: []market.Token{tk}})
			var last market.Trade
			for i := range 2000 {
				ch.next(30)
				last = ch.trade(&tk, 1000+uint64(i%50), 250)
				e.store.commit(batchOf(ch, all, last))
			}
			req := TokenRequest{Token: tk.Address, Resolution: candles.Res1m, LastEventID: IDOf(&last, last.Time).String(), Partial: partial}
			var events, size int
			b.ResetTimer()
			for range b.N {
				c, err := e.s.Token(context.Background(), req)
				if err != nil {
					b.Fatal(err)
				}
				events = len(c.first)
				size = 0
				for _, ev := range c.first {
					size += len(ev.Data)
				}
				c.Close()
			}
			b.ReportMetric(float64(events), "events/op")
			b.ReportMetric(float64(size), "payload-B/op")
		})
	}
}
