package httpapi

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/curvekit/curvekit/adapters/bunstore"
	"github.com/curvekit/curvekit/auth"
	"github.com/curvekit/curvekit/internal/pgtest"
	"github.com/curvekit/curvekit/market"
	"github.com/curvekit/curvekit/market/marketgen"
	"github.com/curvekit/curvekit/txbuild"
)

// BenchmarkScaleReads times the public reads over HTTP against a store of realistic shape, as an
// API-only replica serves them on a cache miss (a market service that keeps no answer between
// requests), from a server in a process of its own (TestScaleReadServer): each read asked by 8
// clients at once, its p50 and p99 in milliseconds. It reads a store it fills itself on
// PostgreSQL (1,000 tokens and 99,000 trades, market/marketgen as BenchmarkScale fills it) and,
// in the same run, the store CURVEKIT_SCALE_DSN names when set (a PostgreSQL DSN or an SQLite
// file, e.g. one BenchmarkScale filled and kept):
//
//	CURVEKIT_TEST_POSTGRES=... CURVEKIT_SCALE_DSN=... \
//	  go test -run '^$' -bench BenchmarkScaleReads -benchtime 1x -timeout 0 ./adapters/httpapi
//
// Each read is asked readRounds times of each store in turn, so that what the machine does
// meanwhile (a checkpoint, another process) falls on both stores alike, and its figures are
// taken over all its rounds. The metrics of the small store are named small-*, those of the
// other dsn-*.
//
// It also reports the first GET /tokens of a service just started (first-tokens-ms), the server
// process's resident set after the warm-up (server-rss-MB), and its peak resident set while the 8
// concurrent requests of each candle read ran (candles-*-rss-MB; Linux's VmHWM, started afresh
// before each).
func BenchmarkScaleReads(b *testing.B) {
	targets := []*readTarget{prepareReads(b, "small", filledStore)}
	if dsn := os.Getenv("CURVEKIT_SCALE_DSN"); dsn != "" {
		targets = append(targets, prepareReads(b, "dsn", func(tb testing.TB) (*bunstore.DB, string) {
			d, err := bunstore.Open(context.Background(), bunstore.Config{DSN: dsn})
			if err != nil {
				tb.Fatal(err)
			}
			tb.Cleanup(func() { d.Close() })
			return d, dsn
		}))
	}
	b.ResetTimer()
	for _, t := range targets {
		t.reportSetup(b)
	}
	for i := range targets[0].reads {
		for _, t := range targets {
			t.times = t.times[:0]
			if t.candles(i) {
				resetPeakRSS(t.pid)
			}
		}
		for range readRounds {
			for _, t := range targets {
				t.round(b, i)
			}
		}
		for _, t := range targets {
			t.report(b, i)
		}
	}
	b.ReportMetric(0, "ns/op")
}

// readRounds is how many times BenchmarkScaleReads asks each read of each store, and
// readClients how many clients ask it at once, readEach times each, in each round: a read's
// p99 is then the tenth slowest of its 1,000 times.
const readRounds, readClients, readEach = 5, 8, 25

// filledStore fills a PostgreSQL schema with a launchpad of 1,000 tokens and 99,000 trades and
// returns it with its DSN.
func filledStore(tb testing.TB) (*bunstore.DB, string) {
	ctx := context.Background()
	dsn := pgtest.Schema(tb, "httpapi_scale")
	d, err := bunstore.Open(ctx, bunstore.Config{DSN: dsn})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { d.Close() })
	g, err := marketgen.New(marketgen.Shape{Tokens: 1_000, Trades: 99_000, End: time.Now().Unix() - 400, Seed: 1})
	if err != nil {
		tb.Fatal(err)
	}
	for batch := g.NextBlocks(2_000); batch != nil; batch = g.NextBlocks(2_000) {
		if err := d.Market().Apply(ctx, batch); err != nil {
			tb.Fatal(err)
		}
	}
	return d, dsn
}

// readHandler is the API-only server of the reads: a market service that keeps nothing between
// requests (no CacheTokens), no rate limit.
func readHandler(tb testing.TB, d *bunstore.DB) http.Handler {
	bld, err := txbuild.New(txbuild.Config{ChainID: 1337})
	if err != nil {
		tb.Fatal(err)
	}
	svc, err := market.NewService(market.ServiceConfig{Store: d.Market(), Builder: bld})
	if err != nil {
		tb.Fatal(err)
	}
	s, err := New(Config{
		Market: svc, Limiter: newCountLimiter(), Policy: auth.DefaultPolicy(auth.Every(1_000_000_000, time.Minute)),
		Terms:    fixedTerms{},
		Settings: Settings{QuoteAssets: []market.Asset{{Symbol: "ETH", Decimals: 18}}},
		Logger:   slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
	if err != nil {
		tb.Fatal(err)
	}
	return s.Handler()
}

// scaleReadDSN names the store TestScaleReadServer serves.
const scaleReadDSN = "CURVEKIT_SCALE_READ_DSN"

// TestScaleReadServer is BenchmarkScaleReads' server process: it serves the reads of the store
// scaleReadDSN names until the benchmark ends it, and skips when started otherwise.
func TestScaleReadServer(t *testing.T) {
	dsn := os.Getenv(scaleReadDSN)
	if dsn == "" {
		t.Skip("the server process of BenchmarkScaleReads")
	}
	d, err := bunstore.Open(context.Background(), bunstore.Config{DSN: dsn})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	fmt.Printf("listening %s\n", ln.Addr())
	srv := &http.Server{Handler: readHandler(t, d), ConnContext: ConnContext}
	_ = srv.Serve(ln) // until the benchmark ends this process
}

// readTarget is a store BenchmarkScaleReads reads: its server process, its reads (the same names
// in the same order for every store) and the times of the read being taken.
type readTarget struct {
	name  string
	base  string
	pid   int
	first time.Duration  // the first GET /tokens of a service just started
	held  map[string]int // the tokens of each list's page (name-tokens), the traded bars of each candle read (name-bars)
	reads []struct{ name, path string }

	client *http.Client
	n      atomic.Int64
	mu     sync.Mutex
	times  []time.Duration
}

// prepareReads opens a store, starts its server process and warms it up: one pass of every
// client over every read, so that what a first run costs (connections opened, pages read from
// disk) is not counted in the figures.
func prepareReads(b *testing.B, name string, open func(testing.TB) (*bunstore.DB, string)) *readTarget {
	d, dsn := open(b)
	t := &readTarget{name: name, held: map[string]int{},
		client: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 16}}}
	t.base, t.pid = serverProcess(b, "TestScaleReadServer", scaleReadDSN+"="+dsn)
	var list struct {
		Tokens []struct {
			Address string `json:"address"`
		} `json:"tokens"`
	}

	// The first list of a service just started.
	{
		fresh := httptest.NewUnstartedServer(readHandler(b, d))
		fresh.Config.ConnContext = ConnContext
		fresh.Start()
		defer fresh.Close()
		t0 := time.Now()
		res, err := t.client.Get(fresh.URL + "/tokens")
		if err != nil {
			b.Fatal(err)
		}
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
		t.first = time.Since(t0)
	}

	body, _ := t.get(b, "/tokens?sort=volume24h&limit=1")
	if err := json.Unmarshal(body, &list); err != nil || len(list.Tokens) == 0 {
		b.Fatalf("no busiest token: %v %s", err, body)
	}
	busiest := list.Tokens[0].Address
	// A deep page of its trades: 40 pages in.
	deep := ""
	for range 40 {
		body, _ := t.get(b, "/tokens/"+busiest+"/trades?limit=100"+deep)
		var p struct {
			Next string `json:"nextCursor"`
		}
		if err := json.Unmarshal(body, &p); err != nil || p.Next == "" {
			break
		}
		deep = "&cursor=" + url.QueryEscape(p.Next)
	}
	now := time.Now().Unix()
	t.reads = []struct{ name, path string }{
		{"volume24h", "/tokens?sort=volume24h"},
		{"marketCap", "/tokens?sort=marketCap"},
		{"trending", "/tokens?sort=trending"},
		{"losers24h", "/tokens?sort=losers24h"},
		{"gainers1h", "/tokens?sort=gainers1h"},
		{"newest", "/tokens?sort=newest"},
		{"graduatedSince", fmt.Sprintf("/tokens?graduatedSince=%d", now-86400)},
		{"phase-graduated", "/tokens?phase=graduated"},
		{"curve-marketCap", "/tokens?phase=curve&sort=marketCap"},
		{"about-to-graduate", "/tokens?phase=curve&progressMin=80&sort=progress"},
		// The small store has 3 to 7 tokens in these lists: pages of 3 compare like with like.
		{"graduatedSince-3", fmt.Sprintf("/tokens?graduatedSince=%d&limit=3", now-86400)},
		{"phase-graduated-3", "/tokens?phase=graduated&limit=3"},
		{"about-to-graduate-3", "/tokens?phase=curve&progressMin=80&sort=progress&limit=3"},
		{"quote-volume24h", "/tokens?quote=ETH&sort=volume24h"},
		{"search-none", "/tokens?q=zzqqxxv"},
		{"search-some", "/tokens?q=pepe"},
		{"king", "/tokens/king"},
		{"token", "/tokens/" + busiest},
		{"stats", "/tokens/" + busiest + "/stats"},
		{"holders", "/tokens/" + busiest + "/holders"},
		{"trades", "/tokens/" + busiest + "/trades"},
		{"trades-deep", "/tokens/" + busiest + "/trades?limit=100" + deep},
		{"candles-1h-30d", fmt.Sprintf("/tokens/%s/candles?res=1h&from=%d&to=%d", busiest, now-30*86400, now)},
		{"candles-1m-1d", fmt.Sprintf("/tokens/%s/candles?res=1m&from=%d&to=%d", busiest, now-86400, now)},
		{"candles-default", "/tokens/" + busiest + "/candles"},
		{"candles-1d", "/tokens/" + busiest + "/candles?res=1d"},
	}
	// A list's page may hold fewer tokens on the small store (it has a few graduates): each
	// list reports how many it holds, and each candle read how many of its bars hold trades
	// (those are the bars read from the store; the others are filled between them).
	for i, r := range t.reads {
		switch {
		case strings.HasPrefix(r.path, "/tokens?"):
			body, _ := t.get(b, r.path)
			if err := json.Unmarshal(body, &list); err != nil {
				b.Fatalf("GET %s: %v", r.path, err)
			}
			t.held[r.name+"-tokens"] = len(list.Tokens)
		case t.candles(i):
			body, _ := t.get(b, r.path)
			var series struct {
				Bars []struct {
					Trades int `json:"trades"`
				} `json:"bars"`
			}
			if err := json.Unmarshal(body, &series); err != nil {
				b.Fatalf("GET %s: %v", r.path, err)
			}
			for _, bar := range series.Bars {
				if bar.Trades > 0 {
					t.held[r.name+"-bars"]++
				}
			}
		}
	}
	var warm sync.WaitGroup
	for range readClients {
		warm.Go(func() {
			for _, r := range t.reads {
				t.get(b, r.path)
			}
		})
	}
	warm.Wait()
	return t
}

// get asks the store's server for path and returns the body and the time the answer took.
func (t *readTarget) get(b *testing.B, path string) ([]byte, time.Duration) {
	b.Helper()
	t0 := time.Now()
	res, err := t.client.Get(t.base + path)
	if err != nil {
		b.Fatal(err)
	}
	body, err := io.ReadAll(res.Body)
	res.Body.Close()
	el := time.Since(t0)
	if err != nil || res.StatusCode != http.StatusOK {
		b.Fatalf("GET %s: %d %v: %.300s", path, res.StatusCode, err, body)
	}
	return body, el
}

func (t *readTarget) candles(i int) bool { return strings.HasPrefix(t.reads[i].name, "candles") }

// reportSetup reports what prepareReads measured, and the server's resident set after it.
func (t *readTarget) reportSetup(b *testing.B) {
	b.ReportMetric(float64(t.first.Microseconds())/1000, t.name+"-first-tokens-ms")
	for name, n := range t.held {
		b.ReportMetric(float64(n), t.name+"-"+name)
	}
	if rss, ok := procStatus(t.pid, "VmRSS:"); ok {
		b.ReportMetric(float64(rss)/(1<<20), t.name+"-server-rss-MB")
	}
}

// round asks read i readClients at once, readEach times each, and keeps the times.
func (t *readTarget) round(b *testing.B, i int) {
	r := t.reads[i]
	sep := "?"
	if strings.Contains(r.path, "?") {
		sep = "&"
	}
	var wg sync.WaitGroup
	for range readClients {
		wg.Go(func() {
			for range readEach {
				// With a cache-buster, as browsers send them.
				_, el := t.get(b, fmt.Sprintf("%s%s_=%d", r.path, sep, t.n.Add(1)))
				t.mu.Lock()
				t.times = append(t.times, el)
				t.mu.Unlock()
			}
		})
	}
	wg.Wait()
}

// report reports read i's p50 and p99 over its rounds, and for a candle read the server's peak
// resident set meanwhile.
func (t *readTarget) report(b *testing.B, i int) {
	name := t.name + "-" + t.reads[i].name
	if t.candles(i) {
		if rss, ok := procStatus(t.pid, "VmHWM:"); ok {
			b.ReportMetric(float64(rss)/(1<<20), name+"-rss-MB")
		}
	}
	slices.Sort(t.times)
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	b.ReportMetric(ms(t.times[len(t.times)/2]), name+"-p50-ms")
	b.ReportMetric(ms(t.times[len(t.times)*99/100]), name+"-p99-ms")
}

// resetPeakRSS starts the peak resident set (VmHWM) of process pid afresh from what it holds now
// (Linux; elsewhere it does nothing).
func resetPeakRSS(pid int) {
	_ = os.WriteFile(fmt.Sprintf("/proc/%d/clear_refs", pid), []byte("5"), 0)
}

// procStatus is the figure of a memory line of process pid's status (e.g. "VmHWM:", the peak
// resident set since resetPeakRSS) in bytes, on Linux.
func procStatus(pid int, line string) (uint64, bool) {
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, false
	}
	for l := range strings.Lines(string(status)) {
		if v, ok := strings.CutPrefix(l, line); ok {
			kb, err := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return kb << 10, err == nil
		}
	}
	return 0, false
}
