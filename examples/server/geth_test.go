package main

import (
	"context"
	"crypto/ecdsa"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/google/go-cmp/cmp"
	"github.com/holiman/uint256"

	"github.com/curvekit/curvekit"
	"github.com/curvekit/curvekit/contracts/bindings"
	"github.com/curvekit/curvekit/internal/app"
	"github.com/curvekit/curvekit/internal/gethtest"
)

// chainTrade is a trade as GET /trades lists it and as the chain's logs say it, field by field.
type chainTrade struct {
	TxHash      string `json:"txHash"`
	LogIndex    uint   `json:"logIndex"`
	Block       uint64 `json:"block"`
	Time        int64  `json:"time"`
	Side        string `json:"side"`
	Venue       string `json:"venue"`
	Trader      string `json:"trader"`
	Recipient   string `json:"recipient"`
	QuoteAmount string `json:"quoteAmount"`
	TokenAmount string `json:"tokenAmount"`
}

// gethLaunch is a token launched on geth: its curve, and its pool once it graduated.
type gethLaunch struct {
	token, curve, pool common.Address
}

// TestAgainstGeth runs the reference server against go-ethereum's own geth (--dev, a block a
// second): `curvekit deploy --out chain.json` onto it, two servers following it with --chain (the default indexer poll and
// 100 ms), two launches and trades composed by build-tx and signed here, one token graduating.
// Every buy receives exactly its quote; /trades equals the chain's logs field by field; a token
// stream sees each trade once. geth stopped makes build-tx and /readyz answer 503 (the indexer
// failing since a time that stays put); geth started again is followed without restarting the
// servers. geth rewound a few blocks, killed with -9 and started again on its data directory
// re-mines the last trades from its journal in other blocks, and the servers follow that
// reorganization exactly. The lag from a block's arrival to its trade in /trades is logged for
// both polls.
func TestAgainstGeth(t *testing.T) {
	gethtest.Require(t)
	began := time.Now()
	gethtest.Binary(t)
	started := time.Now()
	node := gethtest.Start(t)
	t.Logf("geth %v ready in %v", node.Args(), time.Since(started).Round(time.Millisecond))
	c := node.Client()
	ctx := context.Background()

	deployer, creator, alice, bob := newKey(t), newKey(t), newKey(t), newKey(t)
	node.Fund(new(big.Int).Mul(big.NewInt(300), big.NewInt(1e18)), deployer.addr, creator.addr, alice.addr, bob.addr)

	// curvekit deploy, as an operator runs it.
	dir := t.TempDir()
	cli := filepath.Join(dir, "curvekit")
	if out, err := exec.Command("go", "build", "-o", cli, "../../cmd/curvekit").CombinedOutput(); err != nil {
		t.Fatalf("build curvekit: %v\n%s", err, out)
	}
	keyFile := filepath.Join(dir, "deployer.key")
	if err := os.WriteFile(keyFile, []byte("0x"+hex.EncodeToString(crypto.FromECDSA(deployer.key))+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	deployStart := time.Now()
	profile := filepath.Join(dir, "chain.json")
	out, err := exec.Command(cli, "deploy", "--rpc-url", node.HTTP, "--key-file", keyFile, "--out", profile, "--json").Output()
	if err != nil {
		t.Fatalf("curvekit deploy: %v\n%s", err, out)
	}
	var dep struct {
		WETH       common.Address `json:"weth"`
		Factory    common.Address `json:"factory"`
		Router     common.Address `json:"router"`
		StartBlock uint64         `json:"startBlock"`
	}
	if err := json.Unmarshal(out, &dep); err != nil {
		t.Fatalf("deploy --json: %v\n%s", err, out)
	}
	t.Logf("curvekit deploy took %v", time.Since(deployStart).Round(time.Millisecond))

	// Two servers on the same node: the default indexer poll, and 100 ms.
	defaults, err := app.ParseConfig(nil)
	if err != nil {
		t.Fatal(err)
	}
	slow := startProcess(t, "--chain", profile, "--poll", defaults.Poll.String())
	fast := startProcess(t, "--chain", profile, "--poll", "100ms")
	servers := []*testServer{slow, fast}
	polls := []string{defaults.Poll.String() + " (default)", "100ms"}

	// When each block arrived, from geth's own newHeads subscription.
	heads := watchHeads(t, node.WS)

	lf := bindings.NewLaunchFactory()
	launch := func(name, symbol string, initial *big.Int) gethLaunch {
		r := newRPCWallet(t, c, creator.key).send(dep.Factory, initial, lf.PackLaunch(name, symbol, "ipfs://"+symbol, common.Address{}, initial, big.NewInt(1)))
		for _, l := range r.Logs {
			if ev, err := lf.UnpackLaunchedEvent(l); err == nil && l.Address == dep.Factory {
				for _, s := range servers {
					waitListed(t, s.base, ev.Token, r.TxHash)
				}
				return gethLaunch{token: ev.Token, curve: ev.Curve}
			}
		}
		t.Fatalf("launch %s: no Launched event", symbol)
		return gethLaunch{}
	}
	one := launch("Geth One", "GONE", big.NewInt(5e17))
	two := launch("Geth Two", "GTWO", big.NewInt(1e17))
	launches := []*gethLaunch{&one, &two}

	// Token streams of the fast server, opened once both tokens trade.
	streams := map[common.Address]*tradeStream{}
	for _, l := range launches {
		streams[l.token] = openTradeStream(t, fast.base, l.token)
	}

	lags := make([][]time.Duration, len(servers))
	// The trades sent while the streams are open, in order, by token, and the block each was
	// first mined in.
	sent := map[common.Address][]common.Hash{}
	var all []common.Hash
	minedIn := map[common.Hash]common.Hash{}
	trade := func(who keyed, l *gethLaunch, side, amount string) {
		t.Helper()
		b := fast.build(t, l.token, who.addr.Hex(), side, amount, "1")
		r := newRPCWallet(t, c, who.key).sendBuilt(b)
		sent[l.token] = append(sent[l.token], r.TxHash)
		all = append(all, r.TxHash)
		minedIn[r.TxHash] = r.BlockHash
		if side == "buy" {
			got := received(t, r, l.token, who.addr)
			if want := b.Quote.AmountOut; got != want {
				t.Errorf("buy %s of %s in %s: received %s tokens, quoted %s", amount, l.token, r.TxHash, got, want)
			}
		}
		if l.pool == (common.Address{}) {
			bc := bindings.NewBondingCurve()
			for _, lg := range r.Logs {
				if ev, err := bc.UnpackGraduatedEvent(lg); err == nil && lg.Address == l.curve {
					l.pool = ev.Pool
					t.Logf("%s graduated in block %d into pool %s", l.token, r.BlockNumber, ev.Pool)
				}
			}
		}
		var wg sync.WaitGroup
		for i, s := range servers {
			wg.Go(func() {
				seen := waitListed(t, s.base, l.token, r.TxHash)
				if at, ok := heads.at(r.BlockHash); ok {
					lags[i] = append(lags[i], seen.Sub(at))
				}
			})
		}
		wg.Wait()
	}

	// Buys and sells of both tokens from two wallets; the big buys graduate the first token, which
	// then trades on its pool through the router.
	for _, s := range []struct {
		who          keyed
		l            *gethLaunch
		side, amount string
	}{
		{alice, &one, "buy", "1"}, {bob, &two, "buy", "0.3"}, {bob, &one, "buy", "0.5"},
		{alice, &one, "sell", "1000000"}, {alice, &two, "buy", "0.2"}, {bob, &one, "sell", "500000"},
		{bob, &two, "sell", "100000"}, {alice, &one, "buy", "10"}, {alice, &two, "sell", "200000"},
		{bob, &one, "buy", "2"}, {alice, &one, "buy", "20"}, {bob, &two, "buy", "1"},
		{bob, &one, "sell", "1000000"}, {alice, &one, "buy", "30"}, {alice, &two, "buy", "0.7"},
		{alice, &one, "buy", "30"}, {bob, &one, "buy", "1"}, {alice, &one, "sell", "1000000"},
		{bob, &two, "sell", "300000"}, {bob, &one, "buy", "0.5"}, {alice, &two, "buy", "0.1"},
		{bob, &one, "sell", "100000"},
	} {
		trade(s.who, s.l, s.side, s.amount)
	}
	if one.pool == (common.Address{}) {
		t.Errorf("%s did not graduate", one.token)
	}
	for i, d := range lags {
		slices.Sort(d)
		if len(d) > 0 {
			t.Logf("block arrived -> trade in /trades at --poll %s: p50 %v, max %v over %d trades",
				polls[i], d[len(d)/2].Round(time.Millisecond), d[len(d)-1].Round(time.Millisecond), len(d))
		}
	}
	// differs compares every server's /trades with the chain's logs.
	differs := func() error {
		var errs []string
		for _, l := range launches {
			want := chainTrades(t, c, dep.WETH, dep.Router, *l, dep.StartBlock)
			for i, s := range servers {
				if diff := cmp.Diff(want, listed(t, s.base, l.token)); diff != "" {
					var r struct{ Checks map[string]string }
					getJSON(t, s.base+"/readyz", &r)
					errs = append(errs, fmt.Sprintf("/trades of %s at --poll %s differ from the chain's logs (-chain +server; /readyz %v):\n%s", l.token, polls[i], r.Checks, diff))
				}
			}
		}
		if errs != nil {
			return errors.New(strings.Join(errs, "\n"))
		}
		return nil
	}
	// agree waits until the servers agree with the chain, then checks the streams against them.
	agree := func(when string) {
		t.Helper()
		eventually(t, time.Minute, when+": the servers follow the chain", differs)
		for _, l := range launches {
			streams[l.token].atMostOnceBetweenResets(t, sent[l.token], listed(t, fast.base, l.token))
		}
	}
	if err := differs(); err != nil {
		t.Fatal(err)
	}
	for _, l := range launches {
		streams[l.token].once(t, sent[l.token])
	}

	// Stopped: what needs the node answers 503, and the indexer fails since a time that stays.
	node.Stop()
	eventually(t, time.Minute, "build-tx answers 503 while geth is down", func() error {
		a := fast.anon(t, http.MethodPost, "/tokens/"+two.token.Hex()+"/build-tx",
			fmt.Sprintf(`{"type":"buy","amount":"0.1","recipient":%q}`, alice.addr.Hex()))
		var e struct{ Message string }
		_ = json.Unmarshal(a.body, &e)
		if a.status != http.StatusServiceUnavailable || e.Message != "chain node unavailable, retry later" {
			return fmt.Errorf("%d %s", a.status, a.body)
		}
		return nil
	})
	since := regexp.MustCompile(`failing since (\S+)`)
	var first string
	eventually(t, time.Minute, "/readyz says since when the indexer fails", func() error {
		var r struct{ Checks map[string]string }
		if status := getJSON(t, fast.base+"/readyz", &r); status != http.StatusServiceUnavailable {
			return fmt.Errorf("/readyz %d %v", status, r.Checks)
		}
		m := since.FindStringSubmatch(r.Checks["indexer"])
		if m == nil {
			return fmt.Errorf("/readyz %v", r.Checks)
		}
		first = m[1]
		return nil
	})
	time.Sleep(3 * time.Second)
	var r struct{ Checks map[string]string }
	if status := getJSON(t, fast.base+"/readyz", &r); status != http.StatusServiceUnavailable {
		t.Fatalf("/readyz %d %v while geth is down", status, r.Checks)
	}
	if m := since.FindStringSubmatch(r.Checks["indexer"]); m == nil || m[1] != first {
		t.Fatalf("/readyz %v 3 s later; it said failing since %s", r.Checks, first)
	}

	// Started again: both servers recover by themselves and index new trades.
	node.Start()
	for _, s := range servers {
		eventually(t, time.Minute, "/readyz 200 after geth is back", func() error {
			var r struct{ Checks map[string]string }
			if status := getJSON(t, s.base+"/readyz", &r); status != http.StatusOK {
				return fmt.Errorf("/readyz %d %v", status, r.Checks)
			}
			return nil
		})
	}
	trade(bob, &two, "buy", "0.3")
	trade(alice, &one, "sell", "100000")
	agree("after the stop and start")
	// A reorganization: the chain rewound to before the last four trades, geth killed with -9
	// and started again on its data directory, where its journal mines them again in other
	// blocks. (With the archive state a kill alone loses at most the last block, and only now
	// and then.)
	before, err := c.HeaderByNumber(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	// A node that has just started may still be indexing its transactions: WaitMined asks again.
	back, err := gethtest.WaitMined(ctxTimeout(t, 30*time.Second), c, all[len(all)-4])
	if err != nil {
		t.Fatal(err)
	}
	node.SetHead(back.BlockNumber.Uint64() - 1)
	node.Kill()
	node.Start()
	after, err := c.HeaderByNumber(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("geth rewound from block %d to %d, killed, restarted at block %d", before.Number, back.BlockNumber.Uint64()-1, after.Number)
	eventually(t, time.Minute, "geth mines past its old head", func() error {
		h, err := c.HeaderByNumber(ctx, nil)
		if err != nil {
			return err
		}
		if h.Number.Cmp(before.Number) <= 0 {
			return fmt.Errorf("head %v", h.Number)
		}
		return nil
	})
	moved := 0
	for _, tx := range all {
		r, err := gethtest.WaitMined(ctxTimeout(t, 30*time.Second), c, tx)
		if r == nil {
			t.Fatalf("after the restart: %v", err)
		}
		if err != nil {
			t.Logf("mined again in another order: %v", err)
		}
		if r.BlockHash != minedIn[tx] {
			moved++
		}
	}
	t.Logf("after the restart %d of %d trades are in other blocks than before", moved, len(all))
	agree("after the reorganization")
	trade(alice, &two, "buy", "0.4")
	trade(bob, &one, "buy", "0.2")
	agree("after the reorganization and two trades")

	t.Logf("TestAgainstGeth took %v with %d trades", time.Since(began).Round(time.Second), len(all))
}

// keyed is a plain test key and its address.
type keyed struct {
	key  *ecdsa.PrivateKey
	addr common.Address
}

func newKey(t testing.TB) keyed {
	k, err := crypto.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	return keyed{key: k, addr: crypto.PubkeyToAddress(k.PublicKey)}
}

func ctxTimeout(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// eventually retries f every 100 ms until it returns nil, and fails t with its last error after d.
func eventually(t *testing.T, d time.Duration, what string, f func() error) {
	t.Helper()
	deadline := time.Now().Add(d)
	for {
		err := f()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %v: %v", what, d, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// received is what r's Transfer events of token paid to owner, in whole tokens (18 decimals).
func received(t *testing.T, r *types.Receipt, token, owner common.Address) string {
	t.Helper()
	ct := bindings.NewCurveToken()
	sum := new(uint256.Int)
	for _, l := range r.Logs {
		if ev, err := ct.UnpackTransferEvent(l); err == nil && l.Address == token && ev.To == owner {
			sum.Add(sum, uint256.MustFromBig(ev.Value))
		}
	}
	return curvekit.FormatAmount(sum, 18)
}

// waitListed polls GET /trades every 5 ms until tx is listed and returns when it saw it.
func waitListed(t *testing.T, base string, token common.Address, tx common.Hash) time.Time {
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		var page struct{ Trades []chainTrade }
		getJSON(t, base+"/tokens/"+token.Hex()+"/trades?limit=5", &page)
		for _, tr := range page.Trades {
			if tr.TxHash == tx.Hex() {
				return time.Now()
			}
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Errorf("%s: trade %s not in /trades after 30s", base, tx)
	return time.Now()
}

// listed is every trade of token in GET /trades, oldest first.
func listed(t *testing.T, base string, token common.Address) []chainTrade {
	t.Helper()
	var all []chainTrade
	cursor := ""
	for {
		var page struct {
			Trades     []chainTrade
			NextCursor *string
		}
		if status := getJSON(t, base+"/tokens/"+token.Hex()+"/trades?limit=100"+cursor, &page); status != http.StatusOK {
			t.Fatalf("/trades: %d", status)
		}
		all = append(all, page.Trades...)
		if page.NextCursor == nil {
			break
		}
		cursor = "&cursor=" + *page.NextCursor
	}
	slices.Reverse(all)
	return all
}

// chainTrades reads l's trades from the chain's logs alone: the curve's Trade events and the
// pool's Swap events (its trader is the transaction's sender, its recipient the router's `to`).
func chainTrades(t *testing.T, c *ethclient.Client, weth, router common.Address, l gethLaunch, from uint64) []chainTrade {
	t.Helper()
	routerABI, err := bindings.RouterMetaData.ParseABI()
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	bc, pair := bindings.NewBondingCurve(), bindings.NewPair()
	q := ethereum.FilterQuery{FromBlock: new(big.Int).SetUint64(from), Addresses: []common.Address{l.curve}}
	if l.pool != (common.Address{}) {
		q.Addresses = append(q.Addresses, l.pool)
	}
	logs, err := c.FilterLogs(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	times := map[uint64]int64{}
	var out []chainTrade
	for _, lg := range logs {
		tr := chainTrade{TxHash: lg.TxHash.Hex(), LogIndex: lg.Index, Block: lg.BlockNumber}
		if ev, err := bc.UnpackTradeEvent(&lg); err == nil && lg.Address == l.curve {
			tr.Side, tr.Venue = "sell", "curve"
			if ev.IsBuy {
				tr.Side = "buy"
			}
			tr.Trader, tr.Recipient = ev.Trader.Hex(), ev.Recipient.Hex()
			tr.QuoteAmount, tr.TokenAmount = units(ev.QuoteAmount), units(ev.TokenAmount)
		} else if ev, err := pair.UnpackSwapEvent(&lg); err == nil && lg.Address == l.pool {
			tokenIn, tokenOut, quoteIn, quoteOut := ev.Amount0In, ev.Amount0Out, ev.Amount1In, ev.Amount1Out
			if weth.Cmp(l.token) < 0 {
				tokenIn, tokenOut, quoteIn, quoteOut = quoteIn, quoteOut, tokenIn, tokenOut
			}
			tr.Venue, tr.Side, tr.QuoteAmount, tr.TokenAmount = "pool", "buy", units(quoteIn), units(tokenOut)
			if tokenIn.Sign() > 0 {
				tr.Side, tr.QuoteAmount, tr.TokenAmount = "sell", units(quoteOut), units(tokenIn)
			}
			tx, _, err := c.TransactionByHash(ctx, lg.TxHash)
			if err != nil {
				t.Fatal(err)
			}
			sender, err := types.Sender(types.LatestSignerForChainID(tx.ChainId()), tx)
			if err != nil {
				t.Fatal(err)
			}
			tr.Trader, tr.Recipient = sender.Hex(), ev.To.Hex()
			if m, err := routerABI.MethodById(tx.Data()); err == nil && tx.To() != nil && *tx.To() == router {
				// The router swaps on the trader's behalf: the recipient is its call's `to`.
				args, err := m.Inputs.Unpack(tx.Data()[4:])
				if err != nil {
					t.Fatal(err)
				}
				for i, in := range m.Inputs {
					if in.Name == "to" {
						tr.Recipient = args[i].(common.Address).Hex()
					}
				}
			}
		} else {
			continue
		}
		if _, ok := times[lg.BlockNumber]; !ok {
			h, err := c.HeaderByNumber(ctx, new(big.Int).SetUint64(lg.BlockNumber))
			if err != nil {
				t.Fatal(err)
			}
			times[lg.BlockNumber] = int64(h.Time)
		}
		tr.Time = times[lg.BlockNumber]
		out = append(out, tr)
	}
	return out
}

func units(v *big.Int) string { return curvekit.FormatAmount(uint256.MustFromBig(v), 18) }

// headWatch remembers when each block arrived on geth's newHeads subscription, by hash and by
// number (the first block of each number: a reorganization's replacement keeps its first time).
type headWatch struct {
	mu       sync.Mutex
	arrived  map[common.Hash]time.Time
	byNumber map[uint64]time.Time
}

func watchHeads(t testing.TB, ws string) *headWatch {
	t.Helper()
	c, err := ethclient.Dial(ws)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	h := &headWatch{arrived: map[common.Hash]time.Time{}, byNumber: map[uint64]time.Time{}}
	ch := make(chan *types.Header, 64)
	sub, err := c.SubscribeNewHead(context.Background(), ch)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(sub.Unsubscribe)
	go func() {
		for {
			select {
			case head := <-ch:
				now := time.Now()
				h.mu.Lock()
				h.arrived[head.Hash()] = now
				if _, ok := h.byNumber[head.Number.Uint64()]; !ok {
					h.byNumber[head.Number.Uint64()] = now
				}
				h.mu.Unlock()
			case <-sub.Err():
				return // geth went away: the lags are measured before
			}
		}
	}()
	return h
}

func (h *headWatch) at(block common.Hash) (time.Time, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	at, ok := h.arrived[block]
	return at, ok
}

// atNumber is when the first block of the given number arrived.
func (h *headWatch) atNumber(n uint64) (time.Time, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	at, ok := h.byNumber[n]
	return at, ok
}

// tradeStream reads a token stream (plain net/http, text/event-stream) until the test ends and
// keeps its resets and trades in order.
type tradeStream struct {
	mu     sync.Mutex
	events []streamEvent
}

type streamEvent struct {
	name   string // reset or trade
	reason string // of a reset
	trade  chainTrade
}

func openTradeStream(t *testing.T, base string, token common.Address) *tradeStream {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, base+"/tokens/"+token.Hex()+"/stream?res=1m", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		t.Fatalf("stream: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	s := &tradeStream{}
	done := make(chan struct{})
	t.Cleanup(func() { cancel(); <-done })
	go func() {
		defer close(done)
		defer resp.Body.Close()
		_ = readEvents(resp.Body, func(ev sseEvent) bool {
			se := streamEvent{name: ev.name}
			switch ev.name {
			case "reset":
				var r streamReset
				_ = json.Unmarshal([]byte(ev.data), &r)
				se.reason = r.Reason
			case "trade":
				_ = json.Unmarshal([]byte(ev.data), &se.trade)
			default:
				return true
			}
			s.mu.Lock()
			s.events = append(s.events, se)
			s.mu.Unlock()
			return true
		})
	}()
	return s
}

// trades returns the stream's trades and resets so far.
func (s *tradeStream) snapshot() []streamEvent {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.events)
}

// once checks that the stream, before any reorganization, delivered exactly the trades sent
// (each once, in order) after its connect reset.
func (s *tradeStream) once(t *testing.T, sent []common.Hash) {
	t.Helper()
	evs := s.snapshot()
	if len(evs) == 0 || evs[0].name != "reset" || evs[0].reason != "connect" {
		t.Fatalf("stream starts with %+v", evs)
	}
	var got, want []string
	for _, ev := range evs[1:] {
		if ev.name != "trade" {
			t.Fatalf("stream: %+v before any reorganization", ev)
		}
		got = append(got, ev.trade.TxHash)
	}
	for _, tx := range sent {
		want = append(want, tx.Hex())
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("stream's trades differ from those sent (-sent +stream):\n%s", diff)
	}
}

// atMostOnceBetweenResets checks that every trade sent came at least once, none twice between
// two resets, and that the trades the client holds (those after its last reset, as a client
// that drops its list on each reset holds them) are what /trades now lists, field by field.
func (s *tradeStream) atMostOnceBetweenResets(t *testing.T, sent []common.Hash, now []chainTrade) {
	t.Helper()
	listed := map[string]chainTrade{}
	for _, tr := range now {
		listed[tr.TxHash] = tr
	}
	delivered := map[string]int{}
	held := map[string]chainTrade{}
	resets := map[string]int{}
	for _, ev := range s.snapshot() {
		if ev.name == "reset" {
			resets[ev.reason]++
			clear(held)
			continue
		}
		if _, ok := held[ev.trade.TxHash]; ok {
			t.Errorf("stream delivered %s twice between resets", ev.trade.TxHash)
		}
		held[ev.trade.TxHash] = ev.trade
		delivered[ev.trade.TxHash]++
	}
	for _, tx := range sent {
		if delivered[tx.Hex()] == 0 {
			t.Errorf("stream never delivered %s", tx)
		}
	}
	again := 0
	for _, n := range delivered {
		if n > 1 {
			again++
		}
	}
	for tx, tr := range held {
		if diff := cmp.Diff(listed[tx], tr); diff != "" {
			t.Errorf("stream's trade %s differs from /trades (-trades +stream):\n%s", tx, diff)
		}
	}
	t.Logf("stream: resets %v; %d trades delivered, %d of them again after a reset", resets, len(delivered), again)
}
