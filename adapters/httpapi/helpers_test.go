package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/google/go-cmp/cmp"
	"github.com/holiman/uint256"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/curvekit/curvekit"
	"github.com/curvekit/curvekit/auth"
	"github.com/curvekit/curvekit/curve"
	"github.com/curvekit/curvekit/launch"
	"github.com/curvekit/curvekit/market"
	"github.com/curvekit/curvekit/txbuild"
)

// now is the clock of every test server: 24h windows end here and deadlines count from here.
const now int64 = 1_800_000_000

// Fixture addresses. They are written checksummed in the expected JSON.
var (
	factoryAddr = common.HexToAddress("0xfac7000000000000000000000000000000000001")
	routerAddr  = common.HexToAddress("0x7e70000000000000000000000000000000000002")
	wethAddr    = common.HexToAddress("0xe7e7000000000000000000000000000000000003")
	poolFactory = common.HexToAddress("0x9f00000000000000000000000000000000000004")
	tusdAddr    = common.HexToAddress("0x7d5d000000000000000000000000000000000005")

	ethToken  = common.HexToAddress("0xaaaa000000000000000000000000000000000001")
	ethCurve  = common.HexToAddress("0xaaaa0000000000000000000000000000000000c1")
	tusdToken = common.HexToAddress("0xbbbb000000000000000000000000000000000002")
	tusdCurve = common.HexToAddress("0xbbbb0000000000000000000000000000000000c2")
	gradToken = common.HexToAddress("0xcccc000000000000000000000000000000000003")
	gradCurve = common.HexToAddress("0xcccc0000000000000000000000000000000000c3")
	gradPool  = common.HexToAddress("0xcccc0000000000000000000000000000000000f3")
	creator   = common.HexToAddress("0xc4ea000000000000000000000000000000000007")
	trader    = common.HexToAddress("0x7ade000000000000000000000000000000000008")
	nobody    = common.HexToAddress("0xdead000000000000000000000000000000000009")
)

func wei(whole uint64, decimals uint8) uint256.Int {
	var z uint256.Int
	z.Exp(uint256.NewInt(10), uint256.NewInt(uint64(decimals)))
	z.Mul(&z, uint256.NewInt(whole))
	return z
}

func mustParams(t testing.TB, quoteDecimals uint8) curve.Params {
	t.Helper()
	p, err := curve.DefaultParams(quoteDecimals)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// fixtureTokens returns the three fixture tokens: ETH-paired on a fresh curve with trades, TUSD-paired
// (6 decimals) after a 10 TUSD buy, and an ETH-paired token that trades on its pool.
func fixtureTokens(t testing.TB) (eth, tusd, grad market.Token, ethTrades []market.Trade) {
	t.Helper()
	p := mustParams(t, 18)
	eth = market.Token{
		Address: ethToken, Curve: ethCurve, Creator: creator,
		Quote: market.Asset{Symbol: "ETH", Decimals: 18},
		Name:  "Frog Coin", Symbol: "FROG", URI: "ipfs://bafyfrog", Decimals: 18,
		TotalSupply: p.TokenSupply, Params: p, State: p.Initial(),
		LaunchBlock: 100, LaunchTx: common.HexToHash("0x01"), LaunchLog: 3,
		CreatedAt: now - 3*86400,
	}
	// Trades that do not move the fixture's state: the handlers only format them.
	ethTrades = []market.Trade{
		fixtureTrade(ethToken, 110, 1, now-2*86400, curvekit.Buy, wei(2, 18), wei(60_000_000, 18)),
		fixtureTrade(ethToken, 120, 4, now-3600, curvekit.Buy, wei(1, 18), wei(30_000_000, 18)),
		fixtureTrade(ethToken, 121, 2, now-600, curvekit.Sell, wei(1, 17), wei(3_000_000, 18)),
	}
	eth.LastTradeAt = now - 600

	// The TUSD token has sold tokens for 10 TUSD, so it can be sold back.
	pt := mustParams(t, 6)
	initial, in := pt.Initial(), wei(10, 6)
	bought, err := curve.QuoteBuy(&pt, &initial, &in)
	if err != nil {
		t.Fatal(err)
	}
	tusd = market.Token{
		Address: tusdToken, Curve: tusdCurve, Creator: creator,
		Quote: market.Asset{Address: tusdAddr, Symbol: "TUSD", Decimals: 6},
		Name:  "Dollar Dog", Symbol: "DDOG", URI: "ipfs://bafydog", Decimals: 18,
		TotalSupply: pt.TokenSupply, Params: pt, State: bought.After,
		LaunchBlock: 200, LaunchTx: common.HexToHash("0x02"), LaunchLog: 1,
		CreatedAt: now - 2*86400, LastTradeAt: now - 2*86400 + 60,
	}

	grad = market.Token{
		Address: gradToken, Curve: gradCurve, Creator: creator,
		Quote: market.Asset{Symbol: "ETH", Decimals: 18},
		Name:  "Graduate", Symbol: "GRAD", URI: "ipfs://bafygrad", Decimals: 18,
		TotalSupply: p.TokenSupply, Params: p,
		State: curve.State{VirtualQuote: wei(115, 18), VirtualToken: wei(279_900_000, 18), Graduated: true},
		Pool:  gradPool, PoolFeeBps: 30, PoolReserveQuote: wei(85, 18), PoolReserveToken: wei(206_900_000, 18),
		LaunchBlock: 300, LaunchTx: common.HexToHash("0x03"), LaunchLog: 5,
		CreatedAt: now - 86400, LastTradeAt: now - 7200,
	}
	return eth, tusd, grad, ethTrades
}

// fixtureTrade returns a trade with a 1% fee (half to the creator) and its scaled price.
func fixtureTrade(tok common.Address, block uint64, log uint, at int64, side curvekit.Side, quote, tokens uint256.Int) market.Trade {
	var fee, cfee, price uint256.Int
	fee.Div(&quote, uint256.NewInt(100))
	cfee.Div(&fee, uint256.NewInt(2))
	// price = quote * 10^18 (token decimals) * PriceScale / tokens
	price.Mul(&quote, uint256.NewInt(1e18))
	price.Mul(&price, uint256.NewInt(market.PriceScale))
	price.Div(&price, &tokens)
	venue := curvekit.VenueCurve
	return market.Trade{
		Token: tok, Block: block, LogIndex: log, Time: at,
		TxHash: common.BigToHash(uint256.NewInt(block*1000 + uint64(log)).ToBig()),
		Trader: trader, Recipient: trader, Side: side, Venue: venue,
		QuoteAmount: quote, TokenAmount: tokens, Fee: fee, CreatorFee: cfee, Price: price,
	}
}

// countLimiter is a fake auth.Limiter: each key admits Burst calls and then none (the tests run
// far inside one period). It records every key it is asked about.
type countLimiter struct {
	mu    sync.Mutex
	used  map[string]int
	keys  []string
	fails error
}

var _ auth.Limiter = (*countLimiter)(nil)

func newCountLimiter() *countLimiter { return &countLimiter{used: map[string]int{}} }

func (l *countLimiter) Allow(_ context.Context, key string, lim auth.Limit) (auth.Decision, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.keys = append(l.keys, key)
	if l.fails != nil {
		return auth.Decision{}, l.fails
	}
	if l.used[key] >= lim.Burst {
		return auth.Decision{RetryAfter: lim.Interval()}, nil
	}
	l.used[key]++
	return auth.Decision{Allowed: true, Remaining: lim.Burst - l.used[key]}, nil
}

func (l *countLimiter) seen() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.keys...)
}

// testEnv is a server on a real socket over the fake store.
type testEnv struct {
	store   *fakeStore
	limiter *countLimiter
	srv     *httptest.Server
	server  *Server
	logs    *bytes.Buffer
}

type envOptions struct {
	policy  auth.Policy
	proxies []netip.Prefix
	live    *fakeLive
	extra   []group
	// wrap, when set, wraps the API handler (to rewrite RemoteAddr as a dual-stack listener would).
	wrap    func(http.Handler) http.Handler
	limiter auth.Limiter
	auth    Authenticator
	// bodyTimeout is Config.BodyTimeout.
	bodyTimeout time.Duration
	mounts      []Mount
	metrics     prometheus.Registerer
	ready       []ReadyCheck
	// cacheTokens is market.ServiceConfig.CacheTokens: with it, discovery answers are kept.
	cacheTokens int
}

func newEnv(t testing.TB, o envOptions) *testEnv {
	t.Helper()
	eth, tusd, grad, trades := fixtureTokens(t)
	store := newFakeStore()
	store.add(eth, trades...)
	store.add(tusd)
	store.add(grad)
	clock := func() time.Time { return time.Unix(now, 0) }
	b, err := txbuild.New(txbuild.Config{ChainID: 1337, Factory: factoryAddr, Router: routerAddr, WETH: wethAddr, Now: clock})
	if err != nil {
		t.Fatal(err)
	}
	var live market.Live
	if o.live != nil {
		o.live.store = store
		live = o.live
	}
	svc, err := market.NewService(market.ServiceConfig{Store: store, Builder: b, Live: live, Now: clock, CacheTokens: o.cacheTokens})
	if err != nil {
		t.Fatal(err)
	}
	if o.policy == nil {
		o.policy = auth.DefaultPolicy(auth.Every(100_000, time.Minute))
	}
	lim := newCountLimiter()
	var limiter auth.Limiter = lim
	if o.limiter != nil {
		limiter = o.limiter
	}
	logs := &bytes.Buffer{}
	s, err := newServer(Config{
		Market: svc, Limiter: limiter, Policy: o.policy, TrustedProxies: o.proxies, Auth: o.auth, BodyTimeout: o.bodyTimeout,
		Mounts: o.mounts, Metrics: o.metrics, Ready: o.ready,
		Terms: fixedTerms{},
		Settings: Settings{
			Contracts:   Contracts{PoolFactory: poolFactory},
			QuoteAssets: []market.Asset{{Symbol: "ETH", Decimals: 18}, {Address: tusdAddr, Symbol: "TUSD", Decimals: 6}},
		},
		Logger: slog.New(slog.NewTextHandler(&lockedWriter{w: logs}, nil)),
	}, o.extra)
	if err != nil {
		t.Fatal(err)
	}
	h := s.Handler()
	if o.wrap != nil {
		h = o.wrap(h)
	}
	srv := httptest.NewUnstartedServer(h)
	srv.Config.ConnContext = ConnContext // as the reference server runs it
	srv.Start()
	t.Cleanup(srv.Close)
	return &testEnv{store: store, limiter: lim, srv: srv, server: s, logs: logs}
}

type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// response is what a test reads back.
type response struct {
	status int
	header http.Header
	body   []byte
}

func (e *testEnv) do(t *testing.T, method, path, body string, header ...string) response {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, e.srv.URL+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Add(header[i], header[i+1])
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := e.srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return response{status: res.StatusCode, header: res.Header, body: b}
}

func (e *testEnv) get(t *testing.T, path string, header ...string) response {
	t.Helper()
	return e.do(t, http.MethodGet, path, "", header...)
}

// want checks the status, the JSON content type and the body against the JSON text want,
// compared as decoded values so that key order and spacing do not matter.
func (r response) want(t *testing.T, status int, want string) {
	t.Helper()
	if r.status != status {
		t.Errorf("status %d, want %d; body %s", r.status, status, r.body)
	}
	if ct := r.header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("Content-Type %q, want application/json", ct)
	}
	var got, exp any
	if err := json.Unmarshal(r.body, &got); err != nil {
		t.Fatalf("body is not JSON: %v\n%s", err, r.body)
	}
	if err := json.Unmarshal([]byte(want), &exp); err != nil {
		t.Fatalf("want is not JSON: %v\n%s", err, want)
	}
	if diff := cmp.Diff(exp, got); diff != "" {
		t.Errorf("body mismatch (-want +got):\n%s\nbody: %s", diff, r.body)
	}
}

// json decodes the body into v.
func (r response) decode(t *testing.T, v any) {
	t.Helper()
	if err := json.Unmarshal(r.body, v); err != nil {
		t.Fatalf("decode %s: %v", r.body, err)
	}
}

// fixedTerms are launch terms for the tests' /config.
type fixedTerms struct{}

func (fixedTerms) LaunchesPerDay() map[curvekit.Tier]int {
	return map[curvekit.Tier]int{curvekit.TierFree: 3, curvekit.TierPro: 50}
}

func (fixedTerms) Fees() launch.Fees {
	return launch.Fees{CurveBps: 100, CreatorShareBps: 5000, PoolBps: 30}
}
