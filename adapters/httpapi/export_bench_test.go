package httpapi

import (
	"bufio"
	"context"
	"encoding/binary"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/holiman/uint256"

	"github.com/curvekit/curvekit"
	"github.com/curvekit/curvekit/adapters/bunstore"
	"github.com/curvekit/curvekit/auth"
	"github.com/curvekit/curvekit/curve"
	"github.com/curvekit/curvekit/market"
	"github.com/curvekit/curvekit/txbuild"
)

// BenchmarkExportMillionTrades exports a token's 1,000,000 trades (SQLite) over loopback as
// NDJSON and as CSV, and reports the rate, the size, and the server process's heap while it
// runs: sampled every 2 ms, its peak above the heap at rest before the export (after a GC).
// Building the store takes most of the time:
//
//	go test -run XXX -bench ExportMillionTrades -benchtime 1x ./adapters/httpapi
func BenchmarkExportMillionTrades(b *testing.B) {
	const n = 1_000_000
	ctx := context.Background()
	db, err := bunstore.Open(ctx, bunstore.Config{DSN: filepath.Join(b.TempDir(), "export.db")})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	store := db.Market()
	p, err := curve.DefaultParams(18)
	if err != nil {
		b.Fatal(err)
	}
	start := int64(1_700_000_000)
	tok := market.Token{Address: common.HexToAddress("0xe1"), Curve: common.HexToAddress("0xc1"), Quote: market.Asset{Symbol: "ETH", Decimals: 18},
		Name: "Export", Symbol: "EXP", Decimals: 18, TotalSupply: p.TokenSupply, Params: p, State: p.Initial(), LaunchBlock: 1, CreatedAt: start}
	const per = 20_000
	for i := 0; i < n; i += per {
		batch := &market.Batch{Cursor: market.Cursor{Block: uint64(2 + i/per)}, Time: start + int64(i+per)}
		if i == 0 {
			batch.Launches = []market.Token{tok}
		}
		for j := i; j < i+per; j++ {
			var h common.Hash
			binary.BigEndian.PutUint64(h[24:], uint64(j+1))
			batch.Trades = append(batch.Trades, market.Trade{Token: tok.Address, Block: uint64(2 + j/10), TxHash: h, LogIndex: uint(j % 10), Time: start + int64(j),
				Trader: common.HexToAddress("0xa1"), Recipient: common.HexToAddress("0xa1"), Side: curvekit.Buy, Venue: curvekit.VenueCurve,
				QuoteAmount: *uint256.NewInt(uint64(j%1000+1) * 1e15), TokenAmount: *uint256.NewInt(1e18), Price: *uint256.NewInt(uint64(j%1000+1) * 1e15)})
		}
		if err := store.Apply(ctx, batch); err != nil {
			b.Fatal(err)
		}
	}
	builder, err := txbuild.New(txbuild.Config{ChainID: 1, Factory: common.HexToAddress("0xfa"), Router: common.HexToAddress("0xf0"), WETH: common.HexToAddress("0xee")})
	if err != nil {
		b.Fatal(err)
	}
	svc, err := market.NewService(market.ServiceConfig{Store: store, Builder: builder, Now: func() time.Time { return time.Unix(start+n, 0) }})
	if err != nil {
		b.Fatal(err)
	}
	s, err := New(Config{Market: svc, Limiter: newCountLimiter(), Policy: auth.DefaultPolicy(auth.Every(100_000, time.Minute)), Terms: fixedTerms{},
		Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		b.Fatal(err)
	}
	srv := httptest.NewServer(s.Handler())
	defer srv.Close()
	for _, format := range []string{"ndjson", "csv"} {
		b.Run(format, func(b *testing.B) {
			for range b.N {
				runtime.GC()
				var ms runtime.MemStats
				runtime.ReadMemStats(&ms)
				idle := ms.HeapAlloc
				var peak atomic.Uint64
				stop := make(chan struct{})
				var wg sync.WaitGroup
				wg.Add(1)
				go func() {
					defer wg.Done()
					t := time.NewTicker(2 * time.Millisecond)
					defer t.Stop()
					for {
						select {
						case <-stop:
							return
						case <-t.C:
							var ms runtime.MemStats
							runtime.ReadMemStats(&ms)
							if ms.HeapAlloc > peak.Load() {
								peak.Store(ms.HeapAlloc)
							}
						}
					}
				}()
				began := time.Now()
				resp, err := http.Get(srv.URL + "/tokens/" + tok.Address.Hex() + "/trades." + format)
				if err != nil {
					b.Fatal(err)
				}
				lines, size := 0, 0
				r := bufio.NewReaderSize(resp.Body, 1<<16)
				for {
					l, err := r.ReadSlice('\n')
					size += len(l)
					if err == io.EOF {
						break
					}
					if err != nil && err != bufio.ErrBufferFull {
						b.Fatal(err)
					}
					if err == nil {
						lines++
					}
				}
				resp.Body.Close()
				took := time.Since(began)
				close(stop)
				wg.Wait()
				if want := n; format == "csv" && lines != want+1 || format == "ndjson" && lines != want {
					b.Fatalf("%d lines", lines)
				}
				b.ReportMetric(float64(n)/took.Seconds(), "trades/s")
				b.ReportMetric(float64(size)/1e6, "MB")
				b.ReportMetric(float64(idle)/1e6, "heap-idle-MB")
				b.ReportMetric(float64(peak.Load())/1e6, "heap-peak-MB")
			}
		})
	}
}
