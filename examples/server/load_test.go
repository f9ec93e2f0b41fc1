package main

import (
	"io"
	"net"
	"net/http"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/uptrace/bunrouter"
)

// load sends GET url from conns concurrent keep-alive connections for d and returns the
// throughput and the 99th percentile latency.
func load(b *testing.B, url string, conns int, d time.Duration) (reqPerSec float64, p99 time.Duration) {
	b.Helper()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: conns, MaxConnsPerHost: conns}}
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
	sort.Slice(lats, func(i, j int) bool { return lats[i] < lats[j] })
	return float64(len(lats)) / d.Seconds(), lats[len(lats)*99/100]
}

// BenchmarkQuoteVersusBareRouter loads, over loopback and in one run, a bare bunrouter handler that
// returns a constant JSON body, GET /tokens/:address/quote and GET /tokens/:address on the
// reference server, in alternating rounds (bare, quote, token, then again), so that what the
// machine does meanwhile weighs on all three alike. It reports each round's ratios and their
// ranges over the rounds:
//
//	go test -run XXX -bench QuoteVersusBareRouter -benchtime 1x ./examples/server
func BenchmarkQuoteVersusBareRouter(b *testing.B) {
	const conns, d, rounds = 32, 3 * time.Second, 6
	s := startServer(b, "--poll", "500ms") // the default poll: the test's 20 ms one takes its own share of the CPU
	bare := bunrouter.New()
	body := []byte(`{"token":"0x0000000000000000000000000000000000000001","type":"buy","amountOut":"1"}`)
	bare.GET("/quote", func(w http.ResponseWriter, _ bunrouter.Request) error {
		w.Header().Set("Content-Type", "application/json")
		_, err := w.Write(body)
		return err
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	srv := &http.Server{Handler: bare}
	go srv.Serve(ln)
	defer srv.Close()

	token := s.base + "/tokens/" + s.app.dev.ETHToken.Token.Hex()
	urls := map[string]string{"bare": "http://" + ln.Addr().String() + "/quote", "quote": token + "/quote?type=buy&amount=0.5", "token": token}
	for i := 0; i < b.N; i++ {
		quoteRatio, tokenRatio := make([]float64, 0, rounds), make([]float64, 0, rounds)
		for r := range rounds {
			rps := map[string]float64{}
			for _, name := range []string{"bare", "quote", "token"} {
				var p99 time.Duration
				rps[name], p99 = load(b, urls[name], conns, d)
				b.Logf("round %d: %-5s %7.0f req/s, p99 %v", r+1, name, rps[name], p99)
			}
			quoteRatio = append(quoteRatio, rps["quote"]/rps["bare"])
			tokenRatio = append(tokenRatio, rps["token"]/rps["quote"])
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
