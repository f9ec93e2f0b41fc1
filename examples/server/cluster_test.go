package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math/big"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/ethclient"
	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/curvekit/curvekit/adapters/evm/devnet"
	"github.com/curvekit/curvekit/candles"
	"github.com/curvekit/curvekit/stream"
)

// cluster is examples/cluster running for a test: the chain host, three replicas and nginx.
type cluster struct {
	t        *testing.T
	dir      string
	env      []string
	base     string // nginx
	chain    int    // the chain host's API port
	rpc      string // the devnet's JSON-RPC
	replicas []int  // the replicas' API ports
}

// startCluster runs examples/cluster/cluster.sh on free loopback ports, against a database of
// its own on the test PostgreSQL and the test Redis (env adds to cluster.sh's settings), and stops
// it when the test ends. Without
// nginx it skips, unless CURVEKIT_TEST_CLUSTER=1 (CI) makes that a failure.
func startCluster(t *testing.T, lease time.Duration, env ...string) *cluster {
	t.Helper()
	pg, redis := os.Getenv("CURVEKIT_TEST_POSTGRES"), os.Getenv("CURVEKIT_TEST_REDIS")
	_, noNginx := exec.LookPath("nginx")
	if pg == "" || redis == "" || noNginx != nil {
		if os.Getenv("CURVEKIT_TEST_CLUSTER") == "1" {
			t.Fatalf("the cluster test needs nginx (%v), CURVEKIT_TEST_POSTGRES and CURVEKIT_TEST_REDIS", noNginx)
		}
		t.Skip("the cluster test needs nginx, CURVEKIT_TEST_POSTGRES and CURVEKIT_TEST_REDIS")
	}
	dir := t.TempDir()
	bin := mustServerBinary(t)
	port := freePorts(t, 6)
	db := fmt.Sprintf("curvekit_cluster_%d", rand.Uint32())
	c := &cluster{t: t, dir: dir, base: fmt.Sprintf("http://127.0.0.1:%d", port), chain: port + 1,
		rpc: fmt.Sprintf("http://127.0.0.1:%d", port+2), replicas: []int{port + 3, port + 4, port + 5}}
	c.env = append(os.Environ(), "CLUSTER_DIR="+dir, "CLUSTER_PORT="+strconv.Itoa(port), "CLUSTER_PG="+pg, "CLUSTER_DB="+db,
		"CLUSTER_REDIS="+redis, "CLUSTER_LEASE="+lease.String(), "CLUSTER_SIMULATE=250ms", "CLUSTER_BIN="+bin,
		// Everything the test sends through nginx comes from one address: no practical limit
		// but for signing, whose budget per wallet is the one checked across replicas.
		// Webhooks reach the test's receiver on loopback.
		// Its own rate-limit buckets in the shared Redis: nginx forwards every client as
		// 127.0.0.1, whose sign-in budget other runs may have spent.
		fmt.Sprintf("CLUSTER_FLAGS=--rate-limit 1000000 --webhook-allow-loopback --redis-prefix curvekit-cluster-%d:", rand.Uint32()))
	c.env = append(c.env, env...)
	t.Cleanup(func() {
		c.script("stop")
		_ = exec.Command("psql", "-q", pg, "-c", "DROP DATABASE IF EXISTS "+db).Run()
		if t.Failed() {
			for _, name := range []string{"chain", "replica1", "replica2", "replica3", "nginx-error"} {
				raw, _ := os.ReadFile(filepath.Join(dir, name+".log"))
				lines := strings.Split(strings.TrimSpace(string(raw)), "\n")
				t.Logf("%s.log, last lines:\n%s", name, strings.Join(lines[max(0, len(lines)-15):], "\n"))
			}
		}
	})
	c.script("start")
	return c
}

// freePorts finds n consecutive free loopback ports, and the n after base+100 (the cluster's
// metrics ports), and returns the first.
func freePorts(t *testing.T, n int) int {
	t.Helper()
	for range 50 {
		base := 30000 + rand.IntN(25000)
		free := true
		for p := base; p < base+100+n && free; p++ {
			if p == base+n {
				p = base + 100 // the servers' metrics ports
			}
			ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", p))
			if err != nil {
				free = false
				continue
			}
			ln.Close()
		}
		if free {
			return base
		}
	}
	t.Fatal("no free ports")
	return 0
}

func (c *cluster) script(verb string) {
	c.t.Helper()
	cmd := exec.Command("bash", "../cluster/cluster.sh", verb)
	cmd.Env = c.env
	out, err := cmd.CombinedOutput()
	if err != nil {
		c.t.Fatalf("cluster.sh %s: %v\n%s", verb, err, out)
	}
}

func (c *cluster) pid(name string) int {
	c.t.Helper()
	raw, err := os.ReadFile(filepath.Join(c.dir, name+".pid"))
	if err != nil {
		c.t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(raw)))
	if err != nil {
		c.t.Fatal(err)
	}
	return pid
}

func (c *cluster) signal(name string, sig syscall.Signal) {
	c.t.Helper()
	if err := syscall.Kill(c.pid(name), sig); err != nil {
		c.t.Fatalf("%s: %v", name, err)
	}
}

// headsOnlyOn checks that the leader, and no other live replica, hears the chain's new heads
// (its metrics: subscribed, and heads counted); the replicas in gone are not asked.
func (c *cluster) headsOnlyOn(leader int, gone ...int) {
	c.t.Helper()
	eventually(c.t, 10*time.Second, "the leader hears new heads", func() error {
		for _, p := range c.replicas {
			if slices.Contains(gone, p) {
				continue
			}
			m := readMetrics(c.t, p, "curvekit_chain_heads_subscribed", "curvekit_chain_heads_total")
			if want := p == leader; (m["curvekit_chain_heads_subscribed"] == 1) != want || want && m["curvekit_chain_heads_total"] == 0 {
				return fmt.Errorf("%s (leader: %v): %v", c.name(p), want, m)
			}
		}
		return nil
	})
}

// replicaView is the replica part of GET /readyz.
type replicaView struct {
	Role   string `json:"role"`
	Holder string `json:"holder"`
	Term   uint64 `json:"term"`
	Block  uint64 `json:"block"`
}

// roles reads GET /readyz of each replica by port; a replica that does not answer is absent.
func (c *cluster) roles() map[int]replicaView {
	out := map[int]replicaView{}
	client := &http.Client{Timeout: 500 * time.Millisecond}
	for _, p := range append([]int{c.chain}, c.replicas...) {
		resp, err := client.Get(fmt.Sprintf("http://127.0.0.1:%d/readyz", p))
		if err != nil {
			continue
		}
		var body struct{ Replica replicaView }
		_ = json.NewDecoder(resp.Body).Decode(&body)
		resp.Body.Close()
		out[p] = body.Replica
	}
	return out
}

// leader waits until exactly one replica other than skip leads, and returns its port and term.
func (c *cluster) leader(skip int, within time.Duration) (int, uint64) {
	c.t.Helper()
	deadline := time.Now().Add(within)
	for {
		var leaders []int
		roles := c.roles()
		for p, r := range roles {
			if r.Role == "leader" && p != skip {
				leaders = append(leaders, p)
			}
		}
		if len(leaders) == 1 {
			return leaders[0], roles[leaders[0]].Term
		}
		if time.Now().After(deadline) {
			c.t.Fatalf("no single leader: %+v", roles)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// head is the chain's head block, from the devnet's JSON-RPC.
func (c *cluster) head() uint64 {
	c.t.Helper()
	eth, err := ethclient.Dial(c.rpc)
	if err != nil {
		c.t.Fatal(err)
	}
	defer eth.Close()
	n, err := eth.BlockNumber(context.Background())
	if err != nil {
		c.t.Fatal(err)
	}
	return n
}

func (c *cluster) name(port int) string {
	if port == c.chain {
		return "chain"
	}
	return fmt.Sprintf("replica%d", slices.Index(c.replicas, port)+1)
}

// clusterClient is a token stream client through nginx that reconnects with its Last-Event-ID
// whenever its connection ends, as EventSource does, and notes which replica served it and when
// each trade arrived.
type clusterClient struct {
	*protocolClient
	mu       sync.Mutex
	upstream string
	served   map[string]int
	arrivals []arrival
	last     stream.Pos
}

type arrival struct {
	at       time.Time
	pos      stream.Pos
	upstream string
}

func newClusterClient(token common.Address, dropAll bool) *clusterClient {
	c := &clusterClient{protocolClient: newProtocolClient(token, candles.Res1m, 0, dropAll), served: map[string]int{}}
	c.onConnect = func(resp *http.Response) {
		c.mu.Lock()
		c.upstream = resp.Header.Get("X-Curvekit-Replica")
		c.served[c.upstream]++
		c.mu.Unlock()
	}
	c.onTrade = func(p stream.Pos) {
		c.mu.Lock()
		c.arrivals = append(c.arrivals, arrival{at: time.Now(), pos: p, upstream: c.upstream})
		c.last = p
		c.mu.Unlock()
	}
	// A token the simulator did not trade while the client listened has its newest trade in
	// the replay's bars alone.
	c.onBase = func(p stream.Pos) {
		c.mu.Lock()
		if c.last.Less(p) {
			c.last = p
		}
		c.mu.Unlock()
	}
	return c
}

func (c *clusterClient) run(ctx context.Context, base string) {
	for ctx.Err() == nil && c.err == nil {
		_ = c.connect(ctx, base, nil, nil)
		c.mu.Lock()
		c.cuts++
		c.mu.Unlock()
		time.Sleep(100 * time.Millisecond) // EventSource's reconnection delay, shortened
	}
}

func (c *clusterClient) lastTrade() stream.Pos {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.last
}

// The cluster of examples/cluster, driven from outside: SSE clients through nginx on every
// replica; sign-in, keys, revocation, the wallet's nonces and idempotency and the signing budget
// across replicas; the leader killed mid-stream (failover measured from the kill to the first
// new event on a surviving replica); the next leader frozen past its lease and resumed (it must
// step down, its writes fenced); and at the end every client's bars equal GET /candles and each
// trade reached each client exactly once.
func TestCluster(t *testing.T) {
	const lease = 2 * time.Second
	c := startCluster(t, lease)
	nx := &testServer{t: t, base: c.base}
	first, term1 := c.leader(0, 10*time.Second)
	t.Logf("cluster up: leader %s (term %d)", c.name(first), term1)
	c.headsOnlyOn(first)

	var tokens struct {
		Tokens []struct{ Address common.Address }
	}
	nx.get("/tokens?limit=10", &tokens)
	if len(tokens.Tokens) < 3 {
		t.Fatalf("tokens: %+v", tokens)
	}

	// Stream clients through nginx until each of the four servers serves at least one.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var clients []*clusterClient
	var running sync.WaitGroup
	servedBy := func() map[string]int {
		n := map[string]int{}
		for _, cl := range clients {
			cl.mu.Lock()
			if cl.upstream != "" {
				n[cl.upstream]++
			}
			cl.mu.Unlock()
		}
		return n
	}
	for i := 0; len(clients) < 12 || len(servedBy()) < 4; i++ {
		if i == 40 {
			t.Fatalf("40 streams through nginx reached only %v", servedBy())
		}
		cl := newClusterClient(tokens.Tokens[i%3].Address, i%2 == 0)
		clients = append(clients, cl)
		running.Go(func() { cl.run(ctx, c.base) })
		time.Sleep(50 * time.Millisecond)
	}
	t.Logf("%d streams through nginx, by replica: %v", len(clients), servedBy())

	crossProcess(t, c, nx)

	// Jobs for the agent's runners on every replica, in flight when the leader dies.
	b, _ := nx.signIn(t, "jobs")
	key := b.newKey(`{}`).Key
	var jobs []string
	for i := range 12 {
		jobs = append(jobs, nx.submitJob(t, key, fmt.Sprintf("price of DETH %d", i)))
	}

	// The leader dies mid-stream.
	time.Sleep(time.Second)
	c.signal(c.name(first), syscall.SIGKILL)
	killed := time.Now()
	killedAt := fmt.Sprintf("127.0.0.1:%d", first)
	// The dead leader indexed no block the chain made after its death: an event of a later
	// block comes from the new leader.
	committed := c.head()
	second, term2 := c.leader(first, 3*lease)
	took := time.Since(killed)
	if term2 <= term1 {
		t.Fatalf("term after the kill %d, before %d", term2, term1)
	}
	c.headsOnlyOn(second, first)
	var firstNew time.Time
	deadline := time.Now().Add(3 * lease)
	for firstNew.IsZero() && time.Now().Before(deadline) {
		for _, cl := range clients {
			cl.mu.Lock()
			for _, a := range cl.arrivals {
				if a.at.After(killed) && a.upstream != killedAt && a.pos.Block > committed && (firstNew.IsZero() || a.at.Before(firstNew)) {
					firstNew = a.at
				}
			}
			cl.mu.Unlock()
		}
		time.Sleep(10 * time.Millisecond)
	}
	if firstNew.IsZero() {
		t.Fatalf("no new event on a surviving replica within %v of the kill", 3*lease)
	}
	t.Logf("failover (lease %v): %s killed; %s leads (term %d) after %v; first new event on a surviving replica %v after the kill",
		lease, c.name(first), c.name(second), term2, took.Round(time.Millisecond), firstNew.Sub(killed).Round(time.Millisecond))

	// Every job completes, once, though one runner died.
	for _, id := range jobs {
		if j := nx.pollJob(t, key, id); j.Status != "completed" {
			t.Errorf("job %s after the kill: %+v", id, j)
		}
	}

	// The new leader freezes past its lease, and resumes: another leads meanwhile, and the
	// frozen one steps down instead of writing.
	c.signal(c.name(second), syscall.SIGSTOP)
	third, term3 := c.leader(second, 3*lease)
	time.Sleep(lease)
	c.signal(c.name(second), syscall.SIGCONT)
	deadline = time.Now().Add(3 * lease)
	for c.roles()[second].Role != "follower" {
		if time.Now().After(deadline) {
			t.Fatalf("the resumed leader: %+v", c.roles())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if p, term := c.leader(0, lease); p != third || term != term3 || term3 <= term2 {
		t.Fatalf("after the resume %s leads in term %d; before, %s in %d", c.name(p), term, c.name(third), term3)
	}
	raw, _ := os.ReadFile(filepath.Join(c.dir, c.name(second)+".log"))
	var why []string
	for line := range strings.SplitSeq(string(raw), "\n") {
		if strings.Contains(line, "stepped down") || strings.Contains(line, "leadership lost") {
			why = append(why, line[strings.Index(line, "msg="):])
		}
	}
	if len(why) == 0 {
		t.Fatalf("the resumed leader's log says nothing of stepping down:\n%s", raw)
	}
	t.Logf("frozen leader %s, resumed: %s; %s leads (term %d)", c.name(second), strings.Join(why, "; "), c.name(third), term3)

	// The chain stops (the chain host with it): once every client holds its token's newest
	// trade, each is compared with REST.
	time.Sleep(time.Second)
	c.signal("chain", syscall.SIGINT)
	time.Sleep(2 * time.Second)
	newest := map[common.Address]stream.Pos{}
	all := map[common.Address][]trade{}
	for _, tok := range tokens.Tokens[:3] {
		all[tok.Address] = nx.allTrades(tok.Address)
		if n := len(all[tok.Address]); n > 0 {
			last := all[tok.Address][n-1]
			newest[tok.Address] = stream.Pos{Block: last.Block, Log: last.LogIndex}
		}
	}
	deadline = time.Now().Add(20 * time.Second)
	for _, cl := range clients {
		for cl.lastTrade() != newest[cl.token] {
			if time.Now().After(deadline) {
				t.Fatalf("%s holds trade %v, the store's newest is %v", cl.name, cl.lastTrade(), newest[cl.token])
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	cancel()
	running.Wait()
	trades := 0
	for _, cl := range clients {
		if cl.err != nil {
			t.Fatal(cl.err)
		}
		if cl.rebuilding { // cut between a reset and its replay's end: finish the replay
			if err := cl.connect(context.Background(), c.base, nil, func(p *protocolClient) bool { return !p.rebuilding }); err != nil {
				t.Fatal(err)
			}
		}
		cl.check(t, nx, all[cl.token])
		trades += len(cl.tape)
	}
	var servers []string
	for _, cl := range clients {
		for u := range cl.served {
			servers = append(servers, u)
		}
	}
	sort.Strings(servers)
	t.Logf("%d clients hold %d trades between them, each once, bars equal to GET /candles; connections served by %v",
		len(clients), trades, slices.Compact(servers))
}

// crossProcess checks what replicas share through PostgreSQL and Redis, by sending to them
// directly: a session made through nginx works on every replica, a key revoked on one is refused
// on the other at once, and a wallet's 30 concurrent signatures split over two replicas get
// distinct nonces and all mine, the signing budget is one across them, and a retry with the same
// Idempotency-Key on the other replica sends nothing.
func crossProcess(t *testing.T, c *cluster, nx *testServer) {
	t.Helper()
	a := &testServer{t: t, base: fmt.Sprintf("http://127.0.0.1:%d", c.replicas[0])}
	bb := &testServer{t: t, base: fmt.Sprintf("http://127.0.0.1:%d", c.replicas[1])}
	br, m := nx.signIn(t, "cluster")
	onA, onB := *br, *br
	onA.s, onB.s = a, bb

	k := onA.newKey(`{}`)
	id := nx.submitJob(t, k.Key, "price of DETH")
	wantStatus(t, "the key on B", bb.anon(t, http.MethodGet, "/agent/job/"+id, "", "X-API-Key", k.Key), http.StatusOK)
	wantStatus(t, "revoke on A", onA.do(http.MethodDelete, "/api-keys/"+k.ID, ""), http.StatusOK)
	wantStatus(t, "the revoked key on B", bb.anon(t, http.MethodGet, "/agent/job/"+id, "", "X-API-Key", k.Key), http.StatusUnauthorized)

	// Wallets are funded from a devnet account over the chain's JSON-RPC.
	eth, err := ethclient.Dial(c.rpc)
	if err != nil {
		t.Fatal(err)
	}
	defer eth.Close()
	ctx := context.Background()
	mined := func(h common.Hash) *types.Receipt {
		t.Helper()
		// The chain mines at once; the deadline is for a machine busy with other work.
		for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); {
			if r, err := eth.TransactionReceipt(ctx, h); err == nil {
				return r
			}
			time.Sleep(25 * time.Millisecond)
		}
		t.Fatalf("transaction %s not mined within 30 s", h)
		return nil
	}
	fund := func(wallet string) common.Address {
		t.Helper()
		funder, err := devnet.DeriveAccount(1)
		if err != nil {
			t.Fatal(err)
		}
		nonce, err := eth.PendingNonceAt(ctx, funder.Address)
		if err != nil {
			t.Fatal(err)
		}
		head, err := eth.HeaderByNumber(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		to := common.HexToAddress(wallet)
		chainID := big.NewInt(1337)
		tx, err := types.SignTx(types.NewTx(&types.DynamicFeeTx{ChainID: chainID, Nonce: nonce, GasTipCap: big.NewInt(1e9),
			GasFeeCap: new(big.Int).Add(new(big.Int).Mul(head.BaseFee, big.NewInt(2)), big.NewInt(1e9)), Gas: 21_000, To: &to,
			Value: new(big.Int).Mul(big.NewInt(10), big.NewInt(1e18))}), types.LatestSignerForChainID(chainID), funder.Key)
		if err != nil {
			t.Fatal(err)
		}
		if err := eth.SendTransaction(ctx, tx); err != nil {
			t.Fatal(err)
		}
		mined(tx.Hash())
		return to
	}
	fund(m.User.Wallet)
	// The account subscribes to its wallet's transactions and the market's trades: every
	// replica sends deliveries, and each event reaches the receiver once.
	hookURL, hooked := webhookReceiver(t)
	hookAns := onA.do(http.MethodPost, "/webhooks", `{"url":"`+hookURL+`","types":["wallet.transaction","trade"]}`)
	wantStatus(t, "POST /webhooks on A", hookAns, http.StatusCreated)
	var hook webhookView
	hookAns.decode(t, &hook)

	const n = 30
	subs := make([]submission, n)
	budget := signingBudget{first: time.Now()}
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			on := &onA
			if i%2 == 1 {
				on = &onB
			}
			body := fmt.Sprintf(`{"to":%q,"value":"%d","chainId":1337}`, common.BigToAddress(big.NewInt(int64(5000+i))).Hex(), 5000+i)
			ans := on.do(http.MethodPost, "/wallet/sign-and-submit", body)
			if ans.status != http.StatusOK {
				t.Errorf("submission %d: %d %s", i, ans.status, ans.body)
				return
			}
			ans.decode(t, &subs[i])
		})
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	// One signing budget across the replicas: 30 spent, the 31st is refused on either.
	budget.spent = n
	for _, on := range []*browser{&onA, &onB} {
		budget.exhaust(t, http.StatusOK, func() answer {
			return on.do(http.MethodPost, "/wallet/sign-and-submit", `{"to":"0x0000000000000000000000000000000000001387","value":"1","chainId":1337}`)
		})
	}
	nonces := make([]int, n)
	for i, s := range subs {
		nonces[i] = int(s.Nonce)
		if r := mined(common.HexToHash(s.Hash)); r.Status != types.ReceiptStatusSuccessful {
			t.Fatalf("submission %d reverted", i)
		}
	}
	sort.Ints(nonces)
	for i, got := range nonces {
		if got != i {
			t.Fatalf("nonces over two replicas %v, want 0..%d each once", nonces, n-1)
		}
	}
	// A second wallet submits once on A with an Idempotency-Key; the retry goes to B: the same
	// answer, nothing sent.
	other, m2 := nx.signIn(t, "cluster-retry")
	w2 := fund(m2.User.Wallet)
	retryA, retryB := *other, *other
	retryA.s, retryB.s = a, bb
	body := fmt.Sprintf(`{"to":%q,"value":"7","chainId":1337}`, common.BigToAddress(big.NewInt(7000)).Hex())
	firstAns := retryA.do(http.MethodPost, "/wallet/sign-and-submit", body, "Idempotency-Key", "cluster-order-1")
	wantStatus(t, "the first submission on A", firstAns, http.StatusOK)
	var once, again submission
	firstAns.decode(t, &once)
	mined(common.HexToHash(once.Hash))
	retry := retryB.do(http.MethodPost, "/wallet/sign-and-submit", body, "Idempotency-Key", "cluster-order-1")
	wantStatus(t, "the retry on B", retry, http.StatusOK)
	retry.decode(t, &again)
	if again.Hash != once.Hash || !again.Replayed {
		t.Fatalf("the retry on B: %s, the first on A: %+v", retry.body, once)
	}
	if sent, err := eth.NonceAt(ctx, w2, nil); err != nil || sent != 1 {
		t.Fatalf("the wallet sent %d transactions (%v), want 1", sent, err)
	}
	t.Logf("across replicas: key revoked on A refused on B; %d signatures split over A and B with nonces 0..%d, all mined; the retry on B replayed; the 31st refused on both", n, n-1)
	clusterWebhooks(t, hooked, hook.Secret, subs)
}

// clusterWebhooks waits until the receiver heard each submission sent and mined, then checks
// that no event reached it twice, whichever replica sent it.
func clusterWebhooks(t *testing.T, hooked <-chan delivery, secret string, subs []submission) {
	t.Helper()
	wh, err := standardwebhooks.NewWebhook(secret)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{}
	for _, s := range subs {
		want[s.Hash+" pending"], want[s.Hash+" mined"] = true, true
	}
	seen := map[string]int{}
	trades := 0
	timeout := time.After(60 * time.Second)
	for len(want) > 0 {
		select {
		case d := <-hooked:
			if err := wh.Verify(d.body, d.header); err != nil {
				t.Fatalf("delivery %s does not verify: %v", d.id, err)
			}
			seen[d.id]++
			switch d.env.Type {
			case "trade":
				trades++
			case "wallet.transaction":
				var tx struct{ Hash, State string }
				_ = json.Unmarshal(d.env.Data, &tx)
				delete(want, tx.Hash+" "+tx.State)
			}
		case <-timeout:
			t.Fatalf("after 60s, %d of the submissions' events never arrived: %v", len(want), want)
		}
	}
	// Two seconds more of deliveries (trades keep coming), then no id may have come twice.
	for end := time.After(2 * time.Second); ; {
		select {
		case d := <-hooked:
			seen[d.id]++
			continue
		case <-end:
		}
		break
	}
	for id, k := range seen {
		if k != 1 {
			t.Errorf("event %s delivered %d times", id, k)
		}
	}
	t.Logf("webhooks across replicas: %d events (%d trades) each delivered once, every one verified", len(seen), trades)
}
