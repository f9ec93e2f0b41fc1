package httpapi

import (
	"bufio"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	rtmetrics "runtime/metrics"
	"runtime/pprof"
	"strings"
	"sync"
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

// The export's memory is measured in a server process of its own (this test binary started
// again, running TestExportHeapServer): the client that reads the export, and the test that
// built the store, allocate nothing in the heap measured. The server samples its own heap with
// runtime/metrics (which, unlike runtime.ReadMemStats, stops nothing) every millisecond.
const (
	exportHeapDB      = "CURVEKIT_EXPORT_HEAP_DB"      // the store the server process serves
	exportHeapProfile = "CURVEKIT_EXPORT_HEAP_PROFILE" // a directory: the server process writes its heap and allocation profiles there
)

// exportStart is the block time of the first trade of the export benchmarks' token; the j-th
// trade (from 0) is at exportStart+j.
const exportStart = int64(1_700_000_000)

// exportToken is the token the export benchmarks' store holds.
func exportToken(tb testing.TB) market.Token {
	p, err := curve.DefaultParams(18)
	if err != nil {
		tb.Fatal(err)
	}
	return market.Token{Address: common.HexToAddress("0xe1"), Curve: common.HexToAddress("0xc1"), Quote: market.Asset{Symbol: "ETH", Decimals: 18},
		Name: "Export", Symbol: "EXP", Decimals: 18, TotalSupply: p.TokenSupply, Params: p, State: p.Initial(), LaunchBlock: 1, CreatedAt: exportStart}
}

// buildExportStore writes a SQLite store at path with n trades of exportToken, one a second.
func buildExportStore(tb testing.TB, path string, n int) {
	ctx := context.Background()
	db, err := bunstore.Open(ctx, bunstore.Config{DSN: path})
	if err != nil {
		tb.Fatal(err)
	}
	defer db.Close()
	store := db.Market()
	tok := exportToken(tb)
	const per = 20_000
	for i := 0; i < n; i += per {
		batch := &market.Batch{Cursor: market.Cursor{Block: uint64(2 + i/per)}, Time: exportStart + int64(min(i+per, n))}
		if i == 0 {
			batch.Launches = []market.Token{tok}
		}
		for j := i; j < min(i+per, n); j++ {
			var h common.Hash
			binary.BigEndian.PutUint64(h[24:], uint64(j+1))
			batch.Trades = append(batch.Trades, market.Trade{Token: tok.Address, Block: uint64(2 + j/10), TxHash: h, LogIndex: uint(j % 10), Time: exportStart + int64(j),
				Trader: common.HexToAddress("0xa1"), Recipient: common.HexToAddress("0xa1"), Side: curvekit.Buy, Venue: curvekit.VenueCurve,
				QuoteAmount: *uint256.NewInt(uint64(j%1000+1) * 1e15), TokenAmount: *uint256.NewInt(1e18), Price: *uint256.NewInt(uint64(j%1000+1) * 1e15)})
		}
		if err := store.Apply(ctx, batch); err != nil {
			tb.Fatal(err)
		}
	}
}

// heapFigures are what the server process reports: its heap at rest (after two collections),
// and the peaks since: of the heap's objects (live and not yet collected, runtime.MemStats'
// HeapAlloc) and of the live heap (what the latest collection found reachable).
type heapFigures struct {
	IdleAlloc, IdleLive, PeakAlloc, PeakLive uint64
}

// TestExportHeapServer is the server process of BenchmarkExportMillionTrades and
// TestExportHeapDoesNotGrowWithTheExport; on its own it does nothing.
func TestExportHeapServer(t *testing.T) {
	path := os.Getenv(exportHeapDB)
	if path == "" {
		t.Skip("the server process of BenchmarkExportMillionTrades")
	}
	ctx := context.Background()
	db, err := bunstore.Open(ctx, bunstore.Config{DSN: path})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	builder, err := txbuild.New(txbuild.Config{ChainID: 1, Factory: common.HexToAddress("0xfa"), Router: common.HexToAddress("0xf0"), WETH: common.HexToAddress("0xee")})
	if err != nil {
		t.Fatal(err)
	}
	svc, err := market.NewService(market.ServiceConfig{Store: db.Market(), Builder: builder, Now: func() time.Time { return time.Unix(exportStart+10_000_000, 0) }})
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(Config{Market: svc, Limiter: newCountLimiter(), Policy: auth.DefaultPolicy(auth.Every(100_000, time.Minute)), Terms: fixedTerms{},
		Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}

	var mu sync.Mutex
	var fig heapFigures
	samples := []rtmetrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}, {Name: "/gc/heap/live:bytes"}}
	read := func() (alloc, live uint64) {
		rtmetrics.Read(samples)
		return samples[0].Value.Uint64(), samples[1].Value.Uint64()
	}
	go func() {
		for range time.Tick(time.Millisecond) {
			alloc, live := read()
			mu.Lock()
			fig.PeakAlloc, fig.PeakLive = max(fig.PeakAlloc, alloc), max(fig.PeakLive, live)
			mu.Unlock()
		}
	}()
	mux := http.NewServeMux()
	mux.Handle("/", s.Handler())
	// POST /_heap: come to rest and start the peaks there; GET /_heap: the figures since.
	mux.HandleFunc("/_heap", func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			runtime.GC()
			runtime.GC()
			mu.Lock()
			fig.IdleAlloc, fig.IdleLive = read()
			fig.PeakAlloc, fig.PeakLive = fig.IdleAlloc, fig.IdleLive
			mu.Unlock()
			return
		}
		if dir := os.Getenv(exportHeapProfile); dir != "" {
			for _, name := range []string{"allocs", "heap"} {
				f, err := os.Create(filepath.Join(dir, name+".pprof"))
				if err == nil {
					_ = pprof.Lookup(name).WriteTo(f, 0)
					f.Close()
				}
			}
		}
		mu.Lock()
		defer mu.Unlock()
		_ = json.NewEncoder(w).Encode(fig)
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	fmt.Printf("listening %s\n", ln.Addr())
	_ = http.Serve(ln, mux) // until the benchmark ends this process
}

// exportServer starts TestExportHeapServer on the store at path and returns its base URL.
func exportServer(b testing.TB, path string) string {
	base, _ := serverProcess(b, "TestExportHeapServer", exportHeapDB+"="+path)
	return base
}

// serverProcess runs the test named test of this binary, a server that prints "listening
// host:port" and serves until it is killed, with env added to its environment, and returns its
// base URL and process id. The process ends with b.
func serverProcess(b testing.TB, test string, env ...string) (string, int) {
	cmd := exec.Command(os.Args[0], "-test.run=^"+test+"$", "-test.count=1")
	cmd.Env = append(os.Environ(), env...)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	r := bufio.NewReader(out)
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			b.Fatalf("the server process: %v", err)
		}
		if addr, ok := strings.CutPrefix(strings.TrimSpace(line), "listening "); ok {
			go func() { _, _ = io.Copy(io.Discard, r) }()
			return "http://" + addr, cmd.Process.Pid
		}
	}
}

// BenchmarkExportMillionTrades exports a token's 1,000,000 trades (SQLite) over loopback as
// NDJSON and as CSV, and the first 100,000 of them, from a server in a process of its own, and
// reports the rate, the size, and the server's heap: at rest before the export, and its peaks
// during it, of the heap's objects (collected or not yet) and of the live heap, above rest.
// Building the store takes most of the time:
//
//	go test -run XXX -bench ExportMillionTrades -benchtime 1x ./adapters/httpapi
//
// With CURVEKIT_EXPORT_HEAP_PROFILE=dir, the server process writes its heap and allocation
// profiles there after each export (go tool pprof -sample_index=alloc_space dir/allocs.pprof).
func BenchmarkExportMillionTrades(b *testing.B) {
	const n = 1_000_000
	path := filepath.Join(b.TempDir(), "export.db")
	buildExportStore(b, path, n)
	base := exportServer(b, path)
	tok := exportToken(b)
	for _, size := range []int{100_000, n} {
		for _, format := range []string{"ndjson", "csv"} {
			b.Run(fmt.Sprintf("%s/%dk", format, size/1000), func(b *testing.B) {
				for range b.N {
					fig, took, bytes := exportOnce(b, base, fmt.Sprintf("/tokens/%s/trades.%s?to=%d", tok.Address.Hex(), format, exportStart+int64(size)), size+btoi(format == "csv"))
					b.ReportMetric(float64(size)/took.Seconds(), "trades/s")
					b.ReportMetric(float64(bytes)/1e6, "MB")
					b.ReportMetric(float64(fig.IdleAlloc)/1e6, "heap-idle-MB")
					b.ReportMetric((float64(fig.PeakAlloc)-float64(fig.IdleAlloc))/1e6, "heap-peak-above-idle-MB")
					b.ReportMetric((float64(fig.PeakLive)-float64(fig.IdleLive))/1e6, "live-peak-above-idle-MB")
				}
			})
		}
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// exportOnce brings the server to rest, reads the export at path to its end (it must hold
// lines lines), and returns the server's heap figures, the time it took and its size.
func exportOnce(b testing.TB, base, path string, lines int) (heapFigures, time.Duration, int) {
	resp, err := http.Post(base+"/_heap", "", nil)
	if err != nil {
		b.Fatal(err)
	}
	resp.Body.Close()
	began := time.Now()
	resp, err = http.Get(base + path)
	if err != nil {
		b.Fatal(err)
	}
	got, size := 0, 0
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
			got++
		}
	}
	resp.Body.Close()
	took := time.Since(began)
	if resp.StatusCode != http.StatusOK || got != lines {
		b.Fatalf("%s: status %d, %d lines, want %d", path, resp.StatusCode, got, lines)
	}
	resp, err = http.Get(base + "/_heap")
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	var fig heapFigures
	if err := json.NewDecoder(resp.Body).Decode(&fig); err != nil {
		b.Fatal(err)
	}
	return fig, took, size
}

// An export ten times longer holds no more of the server's heap: the live heap's peak above rest
// over 60,000 trades is within a generous 8 MB of its peak over 6,000 (an export that kept its
// lines would hold some 25 MB more). Measured in a server process of its own, as the benchmark.
func TestExportHeapDoesNotGrowWithTheExport(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a store of 60,000 trades")
	}
	if raceDetector {
		t.Skip("measures the heap of a server process, which the race detector's instrumentation would swell")
	}
	const n = 60_000
	path := filepath.Join(t.TempDir(), "export.db")
	buildExportStore(t, path, n)
	base := exportServer(t, path)
	tok := exportToken(t)
	grew := func(size int) float64 {
		fig, _, _ := exportOnce(t, base, fmt.Sprintf("/tokens/%s/trades.ndjson?to=%d", tok.Address.Hex(), exportStart+int64(size)), size)
		return (float64(fig.PeakLive) - float64(fig.IdleLive)) / 1e6
	}
	small, large := grew(n/10), grew(n)
	t.Logf("live heap above rest: %.2f MB over %d trades, %.2f MB over %d", small, n/10, large, n)
	if large > small+8 {
		t.Errorf("the live heap grew %.2f MB over %d trades, %.2f MB over %d", large, n, small, n/10)
	}
}
