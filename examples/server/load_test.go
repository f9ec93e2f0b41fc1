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

// BenchmarkQuoteVersusBareRouter loads GET /tokens/:address/quote on the reference server beside
// a bare bunrouter handler that returns a constant JSON body, in the same run, over loopback:
//
//	go test -run XXX -bench QuoteVersusBareRouter -benchtime 1x ./examples/server
func BenchmarkQuoteVersusBareRouter(b *testing.B) {
	const conns, d = 32, 5 * time.Second
	s := startServer(b)
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

	quoteURL := s.base + "/tokens/" + s.app.dev.ETHToken.Token.Hex() + "/quote?type=buy&amount=0.5"
	for i := 0; i < b.N; i++ {
		bareRPS, bareP99 := load(b, "http://"+ln.Addr().String()+"/quote", conns, d)
		quoteRPS, quoteP99 := load(b, quoteURL, conns, d)
		b.ReportMetric(bareRPS, "bare-req/s")
		b.ReportMetric(float64(bareP99.Microseconds()), "bare-p99-µs")
		b.ReportMetric(quoteRPS, "quote-req/s")
		b.ReportMetric(float64(quoteP99.Microseconds()), "quote-p99-µs")
		b.ReportMetric(quoteRPS/bareRPS, "quote/bare")
	}
}
