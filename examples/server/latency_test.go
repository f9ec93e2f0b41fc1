package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math/big"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/google/go-cmp/cmp"

	"github.com/curvekit/curvekit/adapters/evm"
	"github.com/curvekit/curvekit/contracts/bindings"
	"github.com/curvekit/curvekit/internal/gethtest"
)

// TestDevnetHeadsWakeTheIndexer serves the devnet with an indexer poll of an hour: only the
// devnet's own new heads, heard through the same subscription as a node's over WebSocket, can
// bring a trade to a token stream, and each trade arrives there once, in order.
func TestDevnetHeadsWakeTheIndexer(t *testing.T) {
	t.Parallel()
	s := startServer(t, "--poll", "1h")
	if s.app.Heads == nil {
		t.Fatal("the devnet server has no head subscription")
	}
	dev := s.app.dev
	token := dev.ETHToken.Token
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, s.base+"/tokens/"+token.Hex()+"/stream?res=1m", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	trades := make(chan string, 16)
	connected := make(chan struct{})
	go func() {
		_ = readEvents(resp.Body, func(ev sseEvent) bool {
			switch ev.name {
			case "reset":
				close(connected)
			case "trade":
				var v struct {
					TxHash string `json:"txHash"`
				}
				_ = json.Unmarshal([]byte(ev.data), &v)
				trades <- v.TxHash
			}
			return true
		})
		close(trades)
	}()
	<-connected
	acc := dev.Accounts[5]
	var sent, got []string
	for range 3 {
		before := dev.Backend.Head().Number.Uint64()
		if err := s.send(acc, token, "buy", "0.01"); err != nil {
			t.Fatal(err)
		}
		b, err := dev.Client.BlockByNumber(ctx, nil)
		if err != nil || b.NumberU64() != before+1 || len(b.Transactions()) != 1 {
			t.Fatalf("the buy's block: %v %v", b, err)
		}
		sent = append(sent, b.Transactions()[0].Hash().Hex())
		select {
		case tx := <-trades:
			got = append(got, tx)
		case <-time.After(20 * time.Second): // a bound on a lost event, not a measure
			t.Fatalf("trade %s did not reach the stream within 20s with a poll of an hour (heads %+v)", sent[len(sent)-1], s.app.Heads.Status())
		}
	}
	if diff := cmp.Diff(sent, got); diff != "" {
		t.Errorf("stream's trades (-sent +stream):\n%s", diff)
	}
	if st := s.app.Heads.Status(); !st.Subscribed || st.Heads < 3 {
		t.Errorf("heads status %+v, want subscribed with at least 3 heads", st)
	}
	families, err := s.app.Metrics.Gather()
	if err != nil {
		t.Fatal(err)
	}
	metrics := map[string]float64{}
	for _, f := range families {
		for _, m := range f.GetMetric() {
			metrics[f.GetName()] = m.GetGauge().GetValue() + m.GetCounter().GetValue()
		}
	}
	if metrics["curvekit_chain_heads_subscribed"] != 1 || metrics["curvekit_chain_heads_total"] < 3 {
		t.Errorf("metrics: heads_subscribed %v, heads_total %v; want 1 and at least 3",
			metrics["curvekit_chain_heads_subscribed"], metrics["curvekit_chain_heads_total"])
	}
}

// gethChain is geth --dev --dev.period 1 with the reference contracts deployed and one token
// launched, a trader funded, and an observer of its newHeads.
type gethChain struct {
	node   *gethtest.Node
	dep    evm.Deployment
	token  gethLaunch
	trader rpcWallet
	heads  *headWatch
}

// startGethChain starts geth and sets the chain up (a few seconds: geth mines a block a second).
func startGethChain(t testing.TB) *gethChain {
	t.Helper()
	node := gethtest.Start(t)
	c := node.Client()
	deployer, creator, trader := newKey(t), newKey(t), newKey(t)
	node.Fund(new(big.Int).Mul(big.NewInt(100), big.NewInt(1e18)), deployer.addr, creator.addr, trader.addr)
	ctx := context.Background()
	dep, err := evm.Deploy(ctx, evm.DeployParams{Client: c, Key: deployer.key, Poll: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	lf := bindings.NewLaunchFactory()
	initial := big.NewInt(1e17)
	r := newRPCWallet(t, c, creator.key).send(dep.Factory, initial, lf.PackLaunch("Latency", "LAT", "ipfs://LAT", common.Address{}, initial, big.NewInt(1)))
	g := &gethChain{node: node, dep: dep, trader: newRPCWallet(t, c, trader.key), heads: watchHeads(t, node.WS)}
	for _, l := range r.Logs {
		if ev, err := lf.UnpackLaunchedEvent(l); err == nil && l.Address == dep.Factory {
			g.token = gethLaunch{token: ev.Token, curve: ev.Curve}
		}
	}
	if g.token.token == (common.Address{}) {
		t.Fatal("the launch emitted no Launched event")
	}
	return g
}

// flags are a server's flags to follow the chain at url (WebSocket: it hears new heads; HTTP: it
// polls) with the default --poll of 500 ms.
func (g *gethChain) flags(url string) []string {
	return []string{"--rpc-url", url, "--factory", g.dep.Factory.Hex(), "--router", g.dep.Router.Hex(),
		"--start-block", strconv.FormatUint(g.dep.StartBlock, 10), "--poll", "500ms"}
}

// buy sends one buy of the token and waits until it is mined: one trade per block.
func (g *gethChain) buy(t testing.TB) *types.Receipt {
	t.Helper()
	deadline := big.NewInt(time.Now().Add(time.Hour).Unix())
	value := big.NewInt(1e15)
	return g.trader.send(g.token.curve, value, bindings.NewBondingCurve().PackBuy(value, big.NewInt(1), deadline))
}

// screen is one set of subscribers of the token's stream on one server.
type screen struct {
	name        string
	base        string
	subscribers int
	clients     []*loadChild
}

// screens is what chainToScreen saw: each screen's delays from a block's arrival at the observer
// to its trade's arrival at each subscriber, and what went wrong.
type screens struct {
	delays map[string][]time.Duration
	// first are the delays to the first subscriber of each trade: the indexer's part (sync,
	// commit, announce, the hub), before the fan-out to the others.
	first    map[string][]time.Duration
	problems []string
}

// chainToScreen connects every screen's subscribers (client processes of their own), sends
// trades buys, one a block, and collects when each trade reached each subscriber. Every
// subscriber must receive each trade exactly once, with no reconnection.
func chainToScreen(t testing.TB, g *gethChain, all []*screen, trades int) screens {
	t.Helper()
	for _, s := range all {
		for left := s.subscribers; left > 0; left -= loadPerChild {
			s.clients = append(s.clients, startStreamClients(t, s.base+"/tokens/"+g.token.token.Hex()+"/stream?res=1m", "trade", min(left, loadPerChild)))
		}
	}
	for _, s := range all {
		for _, ch := range s.clients {
			ch.waitOpen(t)
		}
	}
	blocks := map[uint64]bool{}
	for range trades {
		blocks[g.buy(t).BlockNumber.Uint64()] = true
	}
	out := screens{delays: map[string][]time.Duration{}, first: map[string][]time.Duration{}}
	for _, s := range all {
		// Until every subscriber holds every trade, or 30 s after the last trade: a bound on a
		// lost event, not a measure.
		var (
			arrivals map[string][]int64
			reconn   int
		)
		for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
			arrivals, reconn = dumpAll(t, s.clients)
			complete := len(arrivals) >= len(blocks)
			for _, at := range arrivals {
				complete = complete && len(at) >= s.subscribers
			}
			if complete || time.Now().After(deadline) {
				break
			}
		}
		if reconn > 0 {
			out.problems = append(out.problems, fmt.Sprintf("%s: %d reconnections", s.name, reconn))
		}
		got := map[uint64]bool{}
		for id, at := range arrivals {
			b := blockOf(id)
			got[b] = true
			if !blocks[b] {
				out.problems = append(out.problems, fmt.Sprintf("%s: a trade of block %d, which no buy was mined in (id %s)", s.name, b, id))
				continue
			}
			if len(at) != s.subscribers {
				out.problems = append(out.problems, fmt.Sprintf("%s: the trade of block %d reached %d times %d subscribers", s.name, b, len(at), s.subscribers))
			}
			known, ok := g.heads.atNumber(b)
			if !ok {
				out.problems = append(out.problems, fmt.Sprintf("%s: block %d never reached the observer", s.name, b))
				continue
			}
			for _, a := range at {
				out.delays[s.name] = append(out.delays[s.name], time.Unix(0, a).Sub(known))
			}
			out.first[s.name] = append(out.first[s.name], time.Unix(0, slices.Min(at)).Sub(known))
		}
		for b := range blocks {
			if !got[b] {
				out.problems = append(out.problems, fmt.Sprintf("%s: the trade of block %d reached no subscriber", s.name, b))
			}
		}
		for _, ch := range s.clients {
			ch.send("QUIT")
			_ = ch.cmd.Wait()
		}
	}
	return out
}

// percentiles are the p50, p99 and max of d, sorted in place.
func percentiles(d []time.Duration) (p50, p99, top time.Duration) {
	slices.Sort(d)
	return d[len(d)/2], d[len(d)*99/100], d[len(d)-1]
}

// TestChainToScreen runs the measurement of BenchmarkChainToScreen small, for its correctness
// only: a server hearing geth's new heads over WebSocket and one polling it over HTTP, a few
// subscribers of the token stream on each, and a few trades, each reaching every subscriber
// exactly once.
func TestChainToScreen(t *testing.T) {
	gethtest.Require(t)
	t.Parallel()
	g := startGethChain(t)
	ws, poll := startProcess(t, g.flags(g.node.WS)...), startProcess(t, g.flags(g.node.HTTP)...)
	got := chainToScreen(t, g, []*screen{{name: "ws", base: ws.base, subscribers: 5}, {name: "poll", base: poll.base, subscribers: 5}}, 3)
	for _, p := range got.problems {
		t.Error(p)
	}
	for name, d := range got.delays {
		p50, _, top := percentiles(d)
		t.Logf("%s: block known -> trade on the stream p50 %v, max %v over %d deliveries (not a measurement)", name, p50, top, len(d))
	}
}

// BenchmarkChainToScreen measures how soon a trade reaches the screens of its token's stream
// after its block became known (geth's own newHeads, heard by an observer): geth --dev
// --dev.period 1, one buy a block, each subscriber a connection of its own from client
// processes. First 1,000 subscribers on each of two servers side by side, one hearing new heads
// over WebSocket, one polling over HTTP, both with --poll 500ms, on SQLite; then 20,000
// subscribers through nginx on two replicas hearing new heads, on PostgreSQL and Redis (the
// leader indexes and announces, the other follows the store). It runs once whatever b.N is:
//
//	CURVEKIT_TEST_GETH=1 CURVEKIT_TEST_POSTGRES=... CURVEKIT_TEST_REDIS=... \
//	  go test -run '^$' -bench ChainToScreen -benchtime 1x -timeout 20m ./examples/server
func BenchmarkChainToScreen(b *testing.B) {
	gethtest.Require(b)
	g := startGethChain(b)
	report := func(b *testing.B, got screens, names ...string) {
		for _, p := range got.problems {
			b.Error(p)
		}
		for _, name := range names {
			d := got.delays[name]
			if len(d) == 0 {
				b.Fatalf("%s: no delivery", name)
			}
			p50, p99, top := percentiles(d)
			f50, _, ftop := percentiles(got.first[name])
			b.Logf("%s: block known -> trade on the stream p50 %v, p99 %v, max %v over %d deliveries; to the first subscriber of each trade p50 %v, max %v",
				name, p50.Round(100*time.Microsecond), p99.Round(100*time.Microsecond), top.Round(100*time.Microsecond), len(d),
				f50.Round(100*time.Microsecond), ftop.Round(100*time.Microsecond))
			b.ReportMetric(float64(p50.Microseconds())/1000, name+"-p50-ms")
			b.ReportMetric(float64(p99.Microseconds())/1000, name+"-p99-ms")
			b.ReportMetric(float64(top.Microseconds())/1000, name+"-max-ms")
		}
	}
	b.Run("subscribers=1000", func(b *testing.B) {
		ws, poll := startProcess(b, g.flags(g.node.WS)...), startProcess(b, g.flags(g.node.HTTP)...)
		got := chainToScreen(b, g, []*screen{{name: "ws", base: ws.base, subscribers: 1000}, {name: "poll", base: poll.base, subscribers: 1000}}, 30)
		report(b, got, "ws", "poll")
	})
	b.Run("subscribers=20000", func(b *testing.B) {
		pg, redis := os.Getenv("CURVEKIT_TEST_POSTGRES"), os.Getenv("CURVEKIT_TEST_REDIS")
		if _, err := exec.LookPath("nginx"); err != nil || pg == "" || redis == "" {
			b.Skip("two replicas behind nginx need nginx, CURVEKIT_TEST_POSTGRES and CURVEKIT_TEST_REDIS")
		}
		dir := b.TempDir()
		db := fmt.Sprintf("curvekit_latency_%d", rand.Uint32())
		if out, err := exec.Command("psql", "-q", pg, "-c", "CREATE DATABASE "+db).CombinedOutput(); err != nil {
			b.Fatalf("create database: %v\n%s", err, out)
		}
		b.Cleanup(func() { _ = exec.Command("psql", "-q", pg, "-c", "DROP DATABASE IF EXISTS "+db+" WITH (FORCE)").Run() })
		u, err := url.Parse(pg)
		if err != nil {
			b.Fatal(err)
		}
		u.Path = "/" + db
		var replicas []*testServer
		for range 2 {
			replicas = append(replicas, startProcess(b, append(g.flags(g.node.WS), "--db", u.String(), "--redis", redis, "--db-conns", "4",
				"--master-key-file", filepath.Join(dir, "master.key"), "--ipfs-dir", filepath.Join(dir, "ipfs"), "--trusted-proxies", "127.0.0.1")...))
		}
		base := startNginx(b, dir, replicas[0].base, replicas[1].base)
		got := chainToScreen(b, g, []*screen{{name: "ws", base: base, subscribers: 20000}}, 20)
		report(b, got, "ws")
	})
}

// startNginx runs nginx with examples/cluster's configuration in front of the servers at bases
// (round robin), and returns its URL.
func startNginx(t testing.TB, dir string, bases ...string) string {
	t.Helper()
	conf, err := os.ReadFile("../cluster/nginx.conf")
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	listen := ln.Addr().String()
	ln.Close()
	var upstreams strings.Builder
	for _, b := range bases {
		fmt.Fprintf(&upstreams, "        server %s max_fails=1 fail_timeout=5s;\n", strings.TrimPrefix(b, "http://"))
	}
	rendered := strings.NewReplacer("__DIR__", dir, "__LISTEN__", listen, "__CHAIN__", strings.TrimPrefix(bases[0], "http://"),
		"__UPSTREAMS__\n", upstreams.String()).Replace(string(conf))
	if err := os.MkdirAll(filepath.Join(dir, "nginx-tmp"), 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "nginx.conf")
	if err := os.WriteFile(path, []byte(rendered), 0o644); err != nil {
		t.Fatal(err)
	}
	var logs syncBuffer
	cmd := exec.Command("nginx", "-p", dir, "-c", path, "-e", filepath.Join(dir, "nginx-error.log"))
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGQUIT)
		_ = cmd.Wait()
	})
	base := "http://" + listen
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if resp, err := http.Get(base + "/healthz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return base
			}
		}
		if time.Now().After(deadline) {
			raw, _ := os.ReadFile(filepath.Join(dir, "nginx-error.log"))
			t.Fatalf("nginx does not answer: %s\n%s", logs.String(), raw)
		}
	}
}
