package httpapi

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tmaxmax/go-sse"

	"github.com/curvekit/curvekit/candles"
	"github.com/curvekit/curvekit/stream"
)

// BenchmarkSSEFanout serves one token's stream to many SSE clients over loopback sockets and
// publishes a bar every interval. The clients run in a child process (TestSSEClientProcess), so
// that the memory measured here - heap and goroutine stacks of this process, before and after the
// connections are open and idle - is the server's alone. Each bar carries its publication time;
// the child reports the delay to parsing it, p50 and p99 over every client and bar.
//
// Every variant serves the same path (net/http keeps each connection's request line), and the
// stream runs with the server's in-memory rate limiter.
//
// The bare-net-http case serves a handler that only sends the headers and a comment, then waits
// for the client to leave: what net/http itself holds per connection (its buffers, the request,
// and the two goroutines of a connection), the floor under the stream's own share.
//
//	go test ./adapters/httpapi -run '^$' -bench SSEFanout -benchtime 1x
//
// CURVEKIT_BENCH_SSE_CONNS (default 10000) and CURVEKIT_BENCH_SSE_INTERVAL (default 100ms) tune
// it; CURVEKIT_BENCH_HEAPPROF names a file for the heap profile taken where memory is measured.
func BenchmarkSSEFanout(b *testing.B) {
	conns := 10_000
	if v := os.Getenv("CURVEKIT_BENCH_SSE_CONNS"); v != "" {
		conns, _ = strconv.Atoi(v)
	}
	interval := 100 * time.Millisecond
	if v := os.Getenv("CURVEKIT_BENCH_SSE_INTERVAL"); v != "" {
		interval, _ = time.ParseDuration(v)
	}
	if os.Getenv("CURVEKIT_BENCH_HEAPPROF") != "" {
		runtime.MemProfileRate = 1
	}
	// Every variant serves the same path: net/http keeps the request line of each connection.
	path := "/tokens/" + tusdToken.Hex() + "/stream"
	b.Run("stream", func(b *testing.B) {
		for range b.N {
			e := newStreamEnv(b, streamOptions{memoryLimiter: true})
			sseFanout(b, e.srv, path, conns, 50, interval, func() int {
				return e.hub.Subscribers(stream.TokenTopic(tusdToken))
			}, func(i int) { publishBar(e.hub, i) })
		}
	})
	// go-sse v0.11.0 on the same sockets and client: its default provider, one topic, each bar
	// published as a trade and a bar event, as the stream sends them. OnSession writes an opening
	// comment (go-sse sends nothing at connect), so the client's opening read returns.
	b.Run("go-sse", func(b *testing.B) {
		for range b.N {
			var n atomic.Int64
			gs := &sse.Server{OnSession: func(w http.ResponseWriter, _ *http.Request) ([]string, bool) {
				w.Header().Set("Content-Type", "text/event-stream")
				_, _ = w.Write([]byte(stream.Heartbeat))
				_ = http.NewResponseController(w).Flush()
				n.Add(1)
				return []string{sse.DefaultTopic}, true
			}}
			srv := httptest.NewServer(gs)
			sseFanout(b, srv, path, conns, 50, interval, func() int {
				if int(n.Load()) < conns {
					return int(n.Load())
				}
				time.Sleep(500 * time.Millisecond) // the provider registers the last sessions
				return conns
			}, func(i int) {
				trade := &sse.Message{Type: sse.Type("trade")}
				trade.AppendData(string(benchTrade))
				bar := &sse.Message{Type: sse.Type("bar")}
				bar.AppendData(fmt.Sprintf(`{"time":%d,"open":3.3e-08,"high":3.4e-08,"low":3.1e-08,"close":3.2e-08,"volume":"1.1","trades":%d,"pub":%d}`,
					candles.Res5m.Bucket(now), i, time.Now().UnixNano()))
				_ = gs.Publish(trade)
				_ = gs.Publish(bar)
			})
			_ = gs.Shutdown(context.Background())
			srv.Close()
		}
	})
	b.Run("bare-net-http", func(b *testing.B) {
		for range b.N {
			var n atomic.Int64
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/event-stream")
				_, _ = w.Write([]byte(stream.Heartbeat))
				_ = http.NewResponseController(w).Flush()
				n.Add(1)
				<-r.Context().Done()
			}))
			sseFanout(b, srv, path, conns, 0, 0, func() int { return int(n.Load()) }, nil)
			srv.Close()
		}
	})
}

// sseFanout opens conns connections to path from a child process, measures this process's
// memory per connection once they are all open and idle, then publishes msgs bars and reports
// what the child saw.
func sseFanout(b *testing.B, srv *httptest.Server, path string, conns, msgs int, interval time.Duration, open func() int, publish func(int)) {
	runtime.GC()
	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)

	child := exec.Command(os.Args[0], "-test.run=^TestSSEClientProcess$")
	child.Env = append(os.Environ(), "CURVEKIT_SSE_URL="+srv.URL+path,
		"CURVEKIT_SSE_CONNS="+strconv.Itoa(conns), "CURVEKIT_SSE_MSGS="+strconv.Itoa(msgs))
	out, err := child.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	child.Stderr = os.Stderr
	stdin, err := child.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := child.Start(); err != nil {
		b.Fatal(err)
	}
	lines := bufio.NewScanner(out)
	expect := func(prefix string) string {
		for lines.Scan() {
			if l := lines.Text(); strings.HasPrefix(l, prefix) {
				return l
			}
		}
		b.Fatalf("the client process ended before %q: %v", prefix, lines.Err())
		return ""
	}
	expect("READY")
	for open() < conns {
		time.Sleep(time.Millisecond)
	}
	time.Sleep(100 * time.Millisecond) // every connection has written its opening and waits
	// Each collection halves the stacks that use less than a quarter of theirs, at most once:
	// enough of them for every stack to settle at what its parked goroutine needs, as a server
	// running for a while does.
	for range 5 {
		runtime.GC()
	}
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	goroutines := float64(runtime.NumGoroutine()) / float64(conns)
	if f := os.Getenv("CURVEKIT_BENCH_HEAPPROF"); f != "" && publish != nil {
		w, _ := os.Create(f)
		_ = pprof.Lookup("heap").WriteTo(w, 0)
		w.Close()
	}
	b.ReportMetric(float64(after.HeapAlloc+after.StackInuse-before.HeapAlloc-before.StackInuse)/float64(conns), "server-B/conn")
	b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/float64(conns), "heap-B/conn")
	b.ReportMetric(float64(after.StackInuse-before.StackInuse)/float64(conns), "stack-B/conn")
	b.ReportMetric(goroutines, "goroutines/conn")

	start := time.Now()
	for i := range msgs {
		publish(i)
		time.Sleep(interval)
	}
	if publish == nil {
		stdin.Close() // the child hangs up
		if err := child.Wait(); err != nil {
			b.Fatal(err)
		}
		return
	}
	result := expect("RESULT")
	elapsed := time.Since(start)
	if err := child.Wait(); err != nil {
		b.Fatal(err)
	}
	var p50, p99 float64
	var n, cut int
	if _, err := fmt.Sscanf(result, "RESULT p50=%g p99=%g n=%d cut=%d", &p50, &p99, &n, &cut); err != nil {
		b.Fatalf("%q: %v", result, err)
	}
	b.ReportMetric(p50, "p50-ms")
	b.ReportMetric(p99, "p99-ms")
	b.ReportMetric(float64(n), "bars")
	b.ReportMetric(float64(cut), "cut-off")
	b.ReportMetric(float64(conns)*2*float64(msgs)/elapsed.Seconds(), "events/s")
}

// publishBar publishes trade message i of the fixture token: a trade and its bar, which carries
// the publication time for the client process to measure the delay.
func publishBar(hub *stream.Hub, i int) {
	id := stream.ID{Pos: stream.Pos{Block: uint64(1_000_000 + i)}, Time: now, Tag: 1}
	m := &stream.Message{Kind: stream.KindTrade, ID: id, IDText: id.String(), Data: benchTrade}
	bar := fmt.Appendf(nil, `{"time":%d,"open":3.3e-08,"high":3.4e-08,"low":3.1e-08,"close":3.2e-08,"volume":"1.1","trades":%d,"pub":%d}`,
		candles.Res5m.Bucket(now), i, time.Now().UnixNano())
	for r := range m.Bars {
		m.Bars[r].Bar.Bar = candles.Bar{Time: candles.Resolutions()[r].Bucket(now)}
		m.Bars[r].Bar.Data = bar
	}
	hub.Publish(stream.TokenTopic(tusdToken), m)
}

// benchTrade is a trade payload of the real size.
var benchTrade = []byte(`{"txHash":"0x9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08","logIndex":4,"block":300,"time":1800000000,"side":"buy","venue":"curve","trader":"0x7ade000000000000000000000000000000000008","recipient":"0x7ade000000000000000000000000000000000008","quoteAmount":"20","tokenAmount":"5000","fee":"0.2","creatorFee":"0.1","refund":"0","price":0.004}`)

// TestSSEClientProcess is the client side of BenchmarkSSEFanout, run in a child process.
func TestSSEClientProcess(t *testing.T) {
	url := os.Getenv("CURVEKIT_SSE_URL")
	if url == "" {
		t.Skip("the client process of BenchmarkSSEFanout")
	}
	conns, _ := strconv.Atoi(os.Getenv("CURVEKIT_SSE_CONNS"))
	msgs, _ := strconv.Atoi(os.Getenv("CURVEKIT_SSE_MSGS"))
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: -1, DisableCompression: true}}
	var (
		mu    sync.Mutex
		lats  []float64
		cut   int
		ready sync.WaitGroup
		done  sync.WaitGroup
	)
	ready.Add(conns)
	done.Add(conns)
	hangup := make(chan struct{}) // closed when the benchmark closes stdin
	go func() {
		_, _ = io.Copy(io.Discard, os.Stdin)
		close(hangup)
	}()
	for i := range conns {
		go func() {
			defer done.Done()
			resp, err := client.Get(url)
			if err != nil {
				fmt.Fprintln(os.Stderr, "client", i, err)
				os.Exit(1)
			}
			defer resp.Body.Close()
			r := bufio.NewReader(resp.Body)
			// The opening: up to the first blank line.
			for {
				line, err := r.ReadSlice('\n')
				if err != nil {
					fmt.Fprintln(os.Stderr, "client", i, err)
					os.Exit(1)
				}
				if len(line) == 1 {
					break
				}
			}
			ready.Done()
			if msgs == 0 {
				<-hangup
				return
			}
			var mine []float64
			for len(mine) < msgs {
				line, err := r.ReadSlice('\n')
				if err != nil {
					mu.Lock()
					cut++
					mu.Unlock()
					return
				}
				if j := bytes.Index(line, []byte(`"pub":`)); j >= 0 {
					k := j + 6
					for k < len(line) && line[k] >= '0' && line[k] <= '9' {
						k++
					}
					pub, _ := strconv.ParseInt(string(line[j+6:k]), 10, 64)
					mine = append(mine, float64(time.Now().UnixNano()-pub)/1e6)
				}
			}
			mu.Lock()
			lats = append(lats, mine...)
			mu.Unlock()
		}()
	}
	ready.Wait()
	fmt.Println("READY")
	done.Wait()
	if msgs == 0 {
		return
	}
	slices.Sort(lats)
	if len(lats) == 0 {
		fmt.Printf("RESULT p50=0 p99=0 n=0 cut=%d\n", cut)
		return
	}
	fmt.Printf("RESULT p50=%g p99=%g n=%d cut=%d\n", lats[len(lats)/2], lats[len(lats)*99/100], len(lats), cut)
}
