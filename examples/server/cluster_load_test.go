package main

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/curvekit/curvekit/stream"
)

// TestClusterLoad holds CURVEKIT_CLUSTER_LOAD (e.g. 20000) global-stream subscribers through nginx
// on the cluster of examples/cluster, spread by nginx over its servers, and measures what each
// server holds per connection (heap, stacks and goroutines, from its own metrics), how late events
// reach the subscribers (each sync's refresh, from its first arrival at any subscriber to its
// arrival at each), and a failover under that load: the leader killed, the time until subscribers
// of the other servers get new events, and the reconnections. It is a measurement, run by hand:
//
//	CURVEKIT_CLUSTER_LOAD=20000 go test -run TestClusterLoad -v -timeout 20m ./examples/server
func TestClusterLoad(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("CURVEKIT_CLUSTER_LOAD"))
	if n <= 0 {
		t.Skip("a measurement: set CURVEKIT_CLUSTER_LOAD to a number of subscribers")
	}
	// Two sockets per subscriber in nginx, one in this process, one in a server: raise the
	// limit this process and what it starts may open.
	lim := syscall.Rlimit{Cur: 4*uint64(n) + 10_000, Max: 4*uint64(n) + 10_000}
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		t.Fatalf("raise the open files limit to %d: %v", lim.Cur, err)
	}
	const lease = 2 * time.Second
	c := startCluster(t, lease)
	leader, _ := c.leader(0, 10*time.Second)
	servers := append([]int{c.chain}, c.replicas...)
	before := map[int]serverMem{}
	for _, p := range servers {
		before[p] = readMem(t, p)
	}

	type sub struct {
		upstream string
	}
	var (
		mu       sync.Mutex
		arrivals = map[string][]time.Time{} // refresh id -> arrival at each subscriber
		blocks   = map[string]uint64{}
		subs     = make([]sub, n)
		open     atomic.Int64
		reconn   atomic.Int64
	)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: -1, DisableCompression: true}}
	var wg sync.WaitGroup
	started := time.Now()
	for i := range n {
		wg.Go(func() {
			first := true
			for ctx.Err() == nil {
				req, _ := http.NewRequestWithContext(ctx, http.MethodGet, c.base+"/tokens/stream", nil)
				resp, err := client.Do(req)
				if err != nil {
					time.Sleep(200 * time.Millisecond)
					continue
				}
				mu.Lock()
				subs[i].upstream = resp.Header.Get("X-Curvekit-Replica")
				mu.Unlock()
				if first {
					open.Add(1)
					first = false
				} else {
					reconn.Add(1)
				}
				r := bufio.NewReaderSize(resp.Body, 1024)
				var id, event string
				for {
					line, err := r.ReadString('\n')
					if err != nil {
						break
					}
					line = strings.TrimSuffix(line, "\n")
					switch {
					case strings.HasPrefix(line, "id: "):
						id = line[4:]
					case strings.HasPrefix(line, "event: "):
						event = line[7:]
					case line == "" && event == "refresh" && id != "":
						at := time.Now()
						mu.Lock()
						arrivals[id] = append(arrivals[id], at)
						if pid, err := stream.ParseID(id); err == nil {
							blocks[id] = pid.Pos.Block
						}
						mu.Unlock()
						id, event = "", ""
					case line == "":
						id, event = "", ""
					}
				}
				resp.Body.Close()
				time.Sleep(100 * time.Millisecond)
			}
		})
		if i%500 == 499 {
			time.Sleep(100 * time.Millisecond) // connect at about 5,000 a second
		}
	}
	for open.Load() < int64(n) {
		if time.Since(started) > 5*time.Minute {
			t.Fatalf("%d of %d subscribers connected", open.Load(), n)
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Logf("%d subscribers connected through nginx in %v", n, time.Since(started).Round(time.Millisecond))
	time.Sleep(2 * time.Second)
	per := map[string]int{}
	mu.Lock()
	for _, s := range subs {
		per[s.upstream]++
	}
	mu.Unlock()
	for _, p := range servers {
		after := readMem(t, p)
		conns := per[fmt.Sprintf("127.0.0.1:%d", p)]
		if conns == 0 {
			continue
		}
		b := before[p]
		t.Logf("%s: %d subscribers; per subscriber %.1f KB (heap %.1f KB, stacks %.1f KB), %.2f goroutines; resident set %.0f MB",
			c.name(p), conns, float64(after.heap+after.stack-b.heap-b.stack)/float64(conns)/1024,
			float64(after.heap-b.heap)/float64(conns)/1024, float64(after.stack-b.stack)/float64(conns)/1024,
			(after.goroutines-b.goroutines)/float64(conns), after.rss/(1<<20))
	}

	// Event delays under load: for the syncs from now on, each arrival after the first.
	mu.Lock()
	clear(arrivals)
	mu.Unlock()
	time.Sleep(10 * time.Second)
	mu.Lock()
	var delays []time.Duration
	events := 0
	for _, at := range arrivals {
		if len(at) < n*9/10 {
			continue // at the edge of the window
		}
		events++
		first := slices.MinFunc(at, func(a, b time.Time) int { return a.Compare(b) })
		for _, a := range at {
			delays = append(delays, a.Sub(first))
		}
	}
	mu.Unlock()
	if len(delays) == 0 {
		t.Fatal("no event reached the subscribers")
	}
	slices.Sort(delays)
	t.Logf("%d syncs, %d deliveries: delay after the first subscriber p50 %v, p99 %v, max %v", events, len(delays),
		delays[len(delays)/2], delays[len(delays)*99/100], delays[len(delays)-1])

	// Failover under load.
	mu.Lock()
	var committed uint64
	for _, b := range blocks {
		committed = max(committed, b)
	}
	mu.Unlock()
	killedAt := fmt.Sprintf("127.0.0.1:%d", leader)
	c.signal(c.name(leader), syscall.SIGKILL)
	killed := time.Now()
	time.Sleep(300 * time.Millisecond)
	mu.Lock()
	for _, b := range blocks {
		committed = max(committed, b)
	}
	mu.Unlock()
	next, term := c.leader(leader, 3*lease)
	took := time.Since(killed)
	deadline := time.Now().Add(5 * lease)
	var firstNew time.Time
	for firstNew.IsZero() && time.Now().Before(deadline) {
		mu.Lock()
		for id, at := range arrivals {
			if blocks[id] > committed {
				firstNew = slices.MinFunc(at, func(a, b time.Time) int { return a.Compare(b) })
			}
		}
		mu.Unlock()
		time.Sleep(10 * time.Millisecond)
	}
	if firstNew.IsZero() {
		t.Fatalf("no new event within %v of the kill", 5*lease)
	}
	time.Sleep(3 * time.Second)
	mu.Lock()
	moved := 0
	for _, s := range subs {
		if s.upstream == killedAt {
			moved++
		}
	}
	mu.Unlock()
	t.Logf("failover under load (lease %v): %s killed; %s leads (term %d) after %v; first new event %v after the kill; %d reconnections, %d subscribers still on the dead server",
		lease, c.name(leader), c.name(next), term, took.Round(time.Millisecond), firstNew.Sub(killed).Round(time.Millisecond), reconn.Load(), moved)
	cancel()
	wg.Wait()
}

type serverMem struct {
	heap, stack, rss, goroutines float64
}

// readMem reads a server's heap in use, stacks in use, resident set and goroutines from its
// Prometheus metrics (port + 100).
func readMem(t *testing.T, port int) serverMem {
	t.Helper()
	resp, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d/metrics", port+100))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var m serverMem
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		name, value, ok := strings.Cut(sc.Text(), " ")
		if !ok {
			continue
		}
		v, err := strconv.ParseFloat(value, 64)
		if err != nil {
			continue
		}
		switch name {
		case "go_memstats_heap_alloc_bytes":
			m.heap = v
		case "go_memstats_stack_inuse_bytes":
			m.stack = v
		case "process_resident_memory_bytes":
			m.rss = v
		case "go_goroutines":
			m.goroutines = v
		}
	}
	return m
}
