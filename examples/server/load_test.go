package main

import (
	"io"
	"net"
	"net/http"
	"sort"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/uptrace/bunrouter"

	"github.com/curvekit/curvekit/internal/app"
)

// load sends GET url from conns concurrent keep-alive connections of client for d and returns
// the requests completed and their latencies.
func load(b *testing.B, client *http.Client, url string, conns int, d time.Duration) []time.Duration {
	b.Helper()
	var (
		mu   sync.Mutex
		lats []time.Duration
		wg   sync.WaitGroup
	)
	end := time.Now().Add(d)
	for i := 0; i < conns; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var mine []time.Duration
			for time.Now().Before(end) {
				start := time.Now()
				resp, err := client.Get(url)
				if err != nil {
					b.Error(err)
					return
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusOK {
					b.Errorf("GET %s: %d", url, resp.StatusCode)
					return
				}
				mine = append(mine, time.Since(start))
			}
			mu.Lock()
			lats = append(lats, mine...)
			mu.Unlock()
		}()
	}
	wg.Wait()
	if len(lats) == 0 {
		b.Fatal("no request completed")
	}
	return lats
}

// BenchmarkQuoteVersusBareRouter loads, over loopback and in one run, a bare bunrouter handler
// that returns the quote's answer as a constant (asked by the same request, the quote's path and
// query, and answering the same bytes and headers, from an http.Server with the reference
// server's settings, its header and idle deadlines), and GET
// /tokens/:address/quote and GET /tokens/:address on the reference server, in alternating slices
// (bare, quote, token, then again), so that what the machine does meanwhile weighs on all three
// alike. A round is fifteen such cycles of 200 ms slices, 3 s of each read in all: the slices
// cancel what drifts over seconds, the rounds show what is left. It reports each round's ratios and their ranges over the rounds, and the process's CPU
// time per request of each read:
//
//	go test -run XXX -bench QuoteVersusBareRouter -benchtime 1x ./examples/server
func BenchmarkQuoteVersusBareRouter(b *testing.B) {
	const conns, slice, cycles, rounds = 32, 200 * time.Millisecond, 15, 6
	s := startServer(b, "--poll", "500ms") // the default poll: the test's 20 ms one takes its own share of the CPU
	token := s.base + "/tokens/" + s.app.dev.ETHToken.Token.Hex()
	// The bare handler is asked the quote's own request and answers its own bytes with the same
	// headers: the two differ only in what computing the answer costs, not in what the clients
	// and net/http do with a longer request or answer.
	resp, err := http.Get(token + "/quote?type=buy&amount=0.5")
	if err != nil {
		b.Fatal(err)
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || resp.StatusCode != http.StatusOK {
		b.Fatalf("quote: %d %s %v", resp.StatusCode, body, err)
	}
	bare := bunrouter.New()
	bare.GET("/tokens/:address/quote", func(w http.ResponseWriter, _ bunrouter.Request) error {
		h := w.Header()
		h["Content-Type"] = applicationJSON
		h["X-Content-Type-Options"] = nosniff
		_, err := w.Write(body)
		return err
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	srv := app.NewHTTPServer(bare) // the reference server's own settings: only the handlers differ
	go srv.Serve(ln)
	defer srv.Close()

	names := []string{"bare", "quote", "token"}
	quote := "/tokens/" + s.app.dev.ETHToken.Token.Hex() + "/quote?type=buy&amount=0.5"
	urls := map[string]string{"bare": "http://" + ln.Addr().String() + quote, "quote": s.base + quote, "token": token}
	clients := map[string]*http.Client{}
	for _, name := range names {
		clients[name] = &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: conns, MaxConnsPerHost: conns}}
		load(b, clients[name], urls[name], conns, 100*time.Millisecond) // open the connections
	}
	for i := 0; i < b.N; i++ {
		quoteRatio, tokenRatio := make([]float64, 0, rounds), make([]float64, 0, rounds)
		for r := range rounds {
			lats := map[string][]time.Duration{}
			cpu := map[string]time.Duration{}
			for range cycles {
				for _, name := range names {
					before := cpuTime()
					lats[name] = append(lats[name], load(b, clients[name], urls[name], conns, slice)...)
					cpu[name] += cpuTime() - before
				}
			}
			for _, name := range names {
				if cpu[name] > 0 {
					b.Logf("round %d: %-5s %.1f µs of CPU per request (the process's, clients included)", r+1, name, float64(cpu[name].Microseconds())/float64(len(lats[name])))
				}
			}
			rps := map[string]float64{}
			for _, name := range names {
				l := lats[name]
				sort.Slice(l, func(i, j int) bool { return l[i] < l[j] })
				rps[name] = float64(len(l)) / (cycles * slice).Seconds()
				b.Logf("round %d: %-5s %7.0f req/s, p99 %v", r+1, name, rps[name], l[len(l)*99/100])
			}
			quoteRatio = append(quoteRatio, rps["quote"]/rps["bare"])
			tokenRatio = append(tokenRatio, rps["token"]/rps["quote"])
			b.Logf("round %d: quote/bare %.2f, token/quote %.2f", r+1, quoteRatio[r], tokenRatio[r])
		}
		sort.Float64s(quoteRatio)
		sort.Float64s(tokenRatio)
		b.Logf("quote/bare %.2f–%.2f, token/quote %.2f–%.2f over %d rounds", quoteRatio[0], quoteRatio[rounds-1], tokenRatio[0], tokenRatio[rounds-1], rounds)
		b.ReportMetric(quoteRatio[0], "quote/bare-min")
		b.ReportMetric(quoteRatio[rounds-1], "quote/bare-max")
		b.ReportMetric(tokenRatio[0], "token/quote-min")
		b.ReportMetric(tokenRatio[rounds-1], "token/quote-max")
	}
}

// BenchmarkDiscoveryVersusQuote loads, over loopback and in one run, GET /tokens/:address/quote
// and the discovery reads (the trending, gainers and losers orders, about to graduate, graduated
// since, the king of the hill) in alternating 200 ms slices, as BenchmarkQuoteVersusBareRouter
// does, and reports each read's request rate over the quote's: the lowest, highest and median of
// the rounds:
//
//	go test -run XXX -bench DiscoveryVersusQuote -benchtime 1x ./examples/server
func BenchmarkDiscoveryVersusQuote(b *testing.B) {
	const conns, slice, cycles, rounds = 32, 200 * time.Millisecond, 5, 4
	s := startServer(b, "--poll", "500ms")
	names := []string{"quote", "trending", "gainers1h", "losers24h", "graduating", "graduated", "king"}
	urls := map[string]string{
		"quote":      s.base + "/tokens/" + s.app.dev.ETHToken.Token.Hex() + "/quote?type=buy&amount=0.5",
		"trending":   s.base + "/tokens?sort=trending",
		"gainers1h":  s.base + "/tokens?sort=gainers1h",
		"losers24h":  s.base + "/tokens?sort=losers24h",
		"graduating": s.base + "/tokens?phase=curve&progressMin=80",
		"graduated":  s.base + "/tokens?graduatedSince=1&sort=marketCap",
		"king":       s.base + "/tokens/king",
	}
	clients := map[string]*http.Client{}
	for _, name := range names {
		clients[name] = &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: conns, MaxConnsPerHost: conns}}
		load(b, clients[name], urls[name], conns, 100*time.Millisecond)
	}
	for i := 0; i < b.N; i++ {
		ratios := map[string][]float64{}
		for r := range rounds {
			n := map[string]int{}
			for range cycles {
				for _, name := range names {
					n[name] += len(load(b, clients[name], urls[name], conns, slice))
				}
			}
			for _, name := range names[1:] {
				ratios[name] = append(ratios[name], float64(n[name])/float64(n["quote"]))
			}
			b.Logf("round %d: quote %.0f req/s", r+1, float64(n["quote"])/(cycles*slice).Seconds())
		}
		for _, name := range names[1:] {
			rs := ratios[name]
			sort.Float64s(rs)
			med := (rs[(len(rs)-1)/2] + rs[len(rs)/2]) / 2
			b.Logf("%s/quote %.2f–%.2f over %d rounds, median %.2f", name, rs[0], rs[len(rs)-1], rounds, med)
			b.ReportMetric(med, name+"/quote-median")
		}
	}
}

// cpuTime is the CPU time this process has used, user and system.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

var (
	applicationJSON = []string{"application/json"}
	nosniff         = []string{"nosniff"}
)

// discardWriter is a ResponseWriter that keeps nothing: what a benchmark of the handler alone
// needs, without a recorder's own allocations.
type discardWriter struct{ h http.Header }

func (w *discardWriter) Header() http.Header         { return w.h }
func (w *discardWriter) Write(p []byte) (int, error) { return len(p), nil }
func (w *discardWriter) WriteHeader(int)             {}

// BenchmarkReadHandler serves the reads of BenchmarkQuoteVersusBareRouter in process, through the
// whole pipeline but without sockets: the time and allocations that are the server's own.
//
//	go test -run XXX -bench ReadHandler -benchmem ./examples/server
func BenchmarkReadHandler(b *testing.B) {
	s := startServer(b, "--poll", "500ms")
	h := s.app.API.Handler()
	token := "/tokens/" + s.app.dev.ETHToken.Token.Hex()
	for _, c := range []struct{ name, target string }{{"quote", token + "/quote?type=buy&amount=0.5"}, {"token", token},
		{"trending", "/tokens?sort=trending"}, {"gainers1h", "/tokens?sort=gainers1h"}, {"graduating", "/tokens?phase=curve&progressMin=80"},
		{"graduated", "/tokens?graduatedSince=1"}, {"king", "/tokens/king"}} {
		b.Run(c.name, func(b *testing.B) {
			req := httptestRequest(b, c.target)
			w := &discardWriter{h: http.Header{}}
			b.ReportAllocs()
			for b.Loop() {
				clear(w.h)
				h.ServeHTTP(w, req)
			}
		})
	}
}

func httptestRequest(b *testing.B, target string) *http.Request {
	req, err := http.NewRequest(http.MethodGet, "http://127.0.0.1"+target, nil)
	if err != nil {
		b.Fatal(err)
	}
	req.RemoteAddr = "127.0.0.1:40000"
	req.RequestURI = target
	return req
}
