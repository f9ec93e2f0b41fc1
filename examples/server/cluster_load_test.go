package main

import (
	"bufio"
	"cmp"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
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

// loadPerChild is how many subscribers one client process holds: each is a socket of its own,
// within a limit of 20,000 open files per process.
const loadPerChild = 8000

// TestClusterLoad holds CURVEKIT_CLUSTER_LOAD (e.g. 20000) global-stream subscribers through nginx
// on the cluster of examples/cluster, spread by nginx over two replicas, from client processes of
// their own (TestClusterLoadClients), and measures what each server holds per connection (heap,
// stacks and goroutines, from its own metrics), how late events reach the subscribers (each
// sync's refresh, from its first arrival at any subscriber to its arrival at each), and a
// failover under that load: the leader killed, the time until subscribers get events of the new
// leader, and the reconnections. It is a measurement, run by hand:
//
//	CURVEKIT_CLUSTER_LOAD=20000 go test -run 'TestClusterLoad$' -v -timeout 20m ./examples/server
func TestClusterLoad(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("CURVEKIT_CLUSTER_LOAD"))
	if n <= 0 {
		t.Skip("a measurement: set CURVEKIT_CLUSTER_LOAD to a number of subscribers")
	}
	const lease = 2 * time.Second
	c := startCluster(t, lease, "CLUSTER_UPSTREAMS=replica1 replica2") // the subscribers on two replicas
	leader, _ := c.leader(0, 10*time.Second)
	servers := append([]int{c.chain}, c.replicas...)
	if !slices.Contains(c.replicas[:2], leader) {
		// The failover measured is that of a leader serving subscribers: stop the third
		// replica, which hands the lease to one of the two.
		c.signal(c.name(leader), syscall.SIGINT)
		leader, _ = c.leader(leader, 10*time.Second)
		servers = slices.DeleteFunc(servers, func(p int) bool { return p == c.replicas[2] })
	}
	before := map[int]serverMem{}
	for _, p := range servers {
		before[p] = readMem(t, p)
	}

	var children []*loadChild
	for left := n; left > 0; left -= loadPerChild {
		children = append(children, startLoadChild(t, c.base, min(left, loadPerChild)))
	}
	started := time.Now()
	per := map[string]int{}
	for _, ch := range children {
		for addr, k := range ch.waitOpen(t) {
			per[addr] += k
		}
	}
	t.Logf("%d subscribers connected through nginx from %d processes in %v", n, len(children), time.Since(started).Round(time.Millisecond))
	time.Sleep(2 * time.Second)
	for _, p := range servers {
		after := readMem(t, p)
		conns := per[fmt.Sprintf("127.0.0.1:%d", p)]
		if conns == 0 {
			continue
		}
		b := before[p]
		t.Logf("%s: %d subscribers; per subscriber %.1f KB (heap %.1f KB, stacks %.1f KB), %.2f goroutines; resident set %.0f MB",
			c.name(p), conns, (after.heap+after.stack-b.heap-b.stack)/float64(conns)/1024,
			(after.heap-b.heap)/float64(conns)/1024, (after.stack-b.stack)/float64(conns)/1024,
			(after.goroutines-b.goroutines)/float64(conns), after.rss/(1<<20))
	}

	// Event delays under load: the syncs of ten seconds, each arrival after the first.
	for _, ch := range children {
		ch.send("MARK")
	}
	time.Sleep(10 * time.Second)
	arrivals, _ := dumpAll(t, children)
	var delays []time.Duration
	events := 0
	for _, at := range arrivals {
		if len(at) < n*9/10 {
			continue // at the edge of the window
		}
		events++
		first := slices.Min(at)
		for _, a := range at {
			delays = append(delays, time.Duration(a-first))
		}
	}
	if len(delays) == 0 {
		t.Fatal("no event reached the subscribers")
	}
	slices.Sort(delays)
	t.Logf("%d syncs, %d deliveries: delay after the first subscriber p50 %v, p99 %v, max %v", events, len(delays),
		delays[len(delays)/2], delays[len(delays)*99/100], delays[len(delays)-1])

	// Failover under load.
	for _, ch := range children {
		ch.send("MARK")
	}
	time.Sleep(time.Second)
	c.signal(c.name(leader), syscall.SIGKILL)
	killed := time.Now().UnixNano()
	// The dead leader indexed no block the chain made after its death: an event of a later
	// block comes from the new leader.
	committed := c.head()
	next, term := c.leader(leader, 3*lease)
	took := time.Duration(time.Now().UnixNano() - killed)
	time.Sleep(3 * lease)
	arrivals, reconnects := dumpAll(t, children)
	var firstNew int64
	for id, at := range arrivals {
		if blockOf(id) > committed && (firstNew == 0 || slices.Min(at) < firstNew) {
			firstNew = slices.Min(at)
		}
	}
	if firstNew == 0 {
		t.Fatalf("no new event within %v of the kill", 3*lease)
	}
	t.Logf("failover under load (lease %v): %s killed with %d subscribers; %s leads (term %d) after %v; first new event %v after the kill; %d reconnections",
		lease, c.name(leader), per[fmt.Sprintf("127.0.0.1:%d", leader)], c.name(next), term, took.Round(time.Millisecond),
		time.Duration(firstNew-killed).Round(time.Millisecond), reconnects)
	for _, ch := range children {
		ch.send("QUIT")
		_ = ch.cmd.Wait()
	}
}

func blockOf(id string) uint64 {
	pid, err := stream.ParseID(id)
	if err != nil {
		return 0
	}
	return pid.Pos.Block
}

// loadChild is a client process of TestClusterLoad.
type loadChild struct {
	cmd   *exec.Cmd
	in    io.WriteCloser
	lines *bufio.Scanner
}

func startLoadChild(t *testing.T, base string, n int) *loadChild {
	return startStreamClients(t, base+"/tokens/stream", "refresh", n)
}

// startStreamClients starts a client process holding n subscribers of the stream at url that
// stamp the arrivals of the events named event.
func startStreamClients(t testing.TB, url, event string, n int) *loadChild {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestClusterLoadClients$")
	cmd.Env = append(os.Environ(), "CURVEKIT_LOAD_URL="+url, "CURVEKIT_LOAD_EVENT="+event, "CURVEKIT_LOAD_N="+strconv.Itoa(n))
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	lines := bufio.NewScanner(out)
	lines.Buffer(make([]byte, 1<<20), 64<<20)
	return &loadChild{cmd: cmd, in: in, lines: lines}
}

func (ch *loadChild) send(cmd string) { _, _ = fmt.Fprintln(ch.in, cmd) }

// waitOpen waits until every subscriber of the child is connected, and returns how many each
// server serves.
func (ch *loadChild) waitOpen(t testing.TB) map[string]int {
	t.Helper()
	per := map[string]int{}
	for ch.lines.Scan() {
		f := strings.Fields(ch.lines.Text())
		switch {
		case len(f) == 3 && f[0] == "UP":
			per[f[1]], _ = strconv.Atoi(f[2])
		case len(f) == 1 && f[0] == "OPEN":
			return per
		}
	}
	t.Fatalf("a client process ended before its subscribers connected: %v", ch.lines.Err())
	return nil
}

// dumpAll collects the arrivals since the last MARK from every child: refresh id -> arrival
// times (Unix nanoseconds), and the reconnections so far.
func dumpAll(t testing.TB, children []*loadChild) (map[string][]int64, int) {
	t.Helper()
	arrivals := map[string][]int64{}
	reconnects := 0
	for _, ch := range children {
		ch.send("DUMP")
		for done := false; !done && ch.lines.Scan(); {
			f := strings.Fields(ch.lines.Text())
			switch {
			case len(f) >= 2 && f[0] == "EV":
				for _, v := range f[2:] {
					at, _ := strconv.ParseInt(v, 10, 64)
					arrivals[f[1]] = append(arrivals[f[1]], at)
				}
			case len(f) == 2 && f[0] == "RECONN":
				k, _ := strconv.Atoi(f[1])
				reconnects += k
			case len(f) == 1 && f[0] == "END":
				done = true
			}
		}
	}
	return arrivals, reconnects
}

// TestClusterLoadClients is a client process of TestClusterLoad (and of the chain-to-screen
// measurements): it holds CURVEKIT_LOAD_N subscribers of the stream at CURVEKIT_LOAD_URL,
// reconnecting as EventSource does, stamps the arrival of every event named CURVEKIT_LOAD_EVENT
// (default refresh) by its id, and answers its parent's commands on stdin: MARK (forget the
// arrivals so far), DUMP (print them), QUIT.
func TestClusterLoadClients(t *testing.T) {
	url := os.Getenv("CURVEKIT_LOAD_URL")
	if url == "" {
		t.Skip("a client process of TestClusterLoad")
	}
	n, _ := strconv.Atoi(os.Getenv("CURVEKIT_LOAD_N"))
	stamped := cmp.Or(os.Getenv("CURVEKIT_LOAD_EVENT"), "refresh")
	var (
		mu       sync.Mutex
		arrivals = map[string][]int64{}
		up       = make([]string, n)
		open     atomic.Int64
		reconn   atomic.Int64
	)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: -1, DisableCompression: true}}
	for i := range n {
		go func() {
			first := true
			for ctx.Err() == nil {
				req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
				resp, err := client.Do(req)
				if err != nil {
					time.Sleep(200 * time.Millisecond)
					continue
				}
				mu.Lock()
				up[i] = resp.Header.Get("X-Curvekit-Replica")
				mu.Unlock()
				if first {
					open.Add(1)
					first = false
				} else {
					reconn.Add(1)
				}
				r := bufio.NewReaderSize(resp.Body, 512)
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
					case line == "":
						if event == stamped && id != "" {
							at := time.Now().UnixNano()
							mu.Lock()
							arrivals[id] = append(arrivals[id], at)
							mu.Unlock()
						}
						id, event = "", ""
					}
				}
				resp.Body.Close()
				time.Sleep(100 * time.Millisecond) // EventSource's reconnection delay, shortened
			}
		}()
		if i%500 == 499 {
			time.Sleep(100 * time.Millisecond)
		}
	}
	for open.Load() < int64(n) {
		time.Sleep(20 * time.Millisecond)
	}
	out := bufio.NewWriter(os.Stdout)
	mu.Lock()
	per := map[string]int{}
	for _, u := range up {
		per[u]++
	}
	mu.Unlock()
	for u, k := range per {
		fmt.Fprintf(out, "UP %s %d\n", u, k)
	}
	fmt.Fprintln(out, "OPEN")
	out.Flush()
	commands := bufio.NewScanner(os.Stdin)
	for commands.Scan() {
		switch commands.Text() {
		case "MARK":
			mu.Lock()
			clear(arrivals)
			mu.Unlock()
		case "DUMP":
			mu.Lock()
			for id, at := range arrivals {
				fmt.Fprintf(out, "EV %s", id)
				for _, a := range at {
					fmt.Fprintf(out, " %d", a)
				}
				fmt.Fprintln(out)
			}
			mu.Unlock()
			fmt.Fprintf(out, "RECONN %d\nEND\n", reconn.Load())
			out.Flush()
		case "QUIT":
			return
		}
	}
}

// readMetrics reads the named metrics of a server (its Prometheus endpoint at port + 100); a
// metric the server does not export is absent.
func readMetrics(t testing.TB, port int, names ...string) map[string]float64 {
	t.Helper()
	resp, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d/metrics", port+100))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out := map[string]float64{}
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		name, value, ok := strings.Cut(sc.Text(), " ")
		if !ok || !slices.Contains(names, name) {
			continue
		}
		if v, err := strconv.ParseFloat(value, 64); err == nil {
			out[name] = v
		}
	}
	return out
}

type serverMem struct {
	heap, stack, rss, goroutines float64
}

// readMem reads a server's heap in use, stacks in use, resident set and goroutines from its
// Prometheus metrics (port + 100).
func readMem(t *testing.T, port int) serverMem {
	t.Helper()
	m := readMetrics(t, port, "go_memstats_heap_alloc_bytes", "go_memstats_stack_inuse_bytes", "process_resident_memory_bytes", "go_goroutines")
	return serverMem{heap: m["go_memstats_heap_alloc_bytes"], stack: m["go_memstats_stack_inuse_bytes"],
		rss: m["process_resident_memory_bytes"], goroutines: m["go_goroutines"]}
}
