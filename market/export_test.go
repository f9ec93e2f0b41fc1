package market_test

import (
	"context"
	"encoding/binary"
	"math/rand/v2"
	"path/filepath"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/google/go-cmp/cmp"
	"github.com/holiman/uint256"

	"github.com/curvekit/curvekit"
	"github.com/curvekit/curvekit/adapters/bunstore"
	"github.com/curvekit/curvekit/candles"
	"github.com/curvekit/curvekit/curve"
	"github.com/curvekit/curvekit/internal/pgtest"
	"github.com/curvekit/curvekit/market"
	"github.com/curvekit/curvekit/txbuild"
)

// exportWorld is a store (at dsn) holding one token with n trades at random times (bursts and
// long quiet spells, several trades in a block), behind a service.
func exportWorld(t testing.TB, dsn string, n int) (*market.Service, market.Token, []market.Trade) {
	t.Helper()
	ctx := context.Background()
	db, err := bunstore.Open(ctx, bunstore.Config{DSN: dsn})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	store := db.Market()
	p, err := curve.DefaultParams(18)
	if err != nil {
		t.Fatal(err)
	}
	start := int64(1_700_000_000)
	tok := market.Token{Address: common.HexToAddress("0xe1"), Curve: common.HexToAddress("0xc1"), Quote: market.Asset{Symbol: "ETH", Decimals: 18},
		Name: "Export", Symbol: "EXP", Decimals: 18, TotalSupply: p.TokenSupply, Params: p, State: p.Initial(), LaunchBlock: 1, CreatedAt: start}
	rng := rand.New(rand.NewPCG(35, 3))
	var trades []market.Trade
	at, block, log := start, uint64(1), uint(0)
	for i := 0; i < n; i++ {
		log++
		if rng.IntN(3) > 0 {
			block, log = block+1, 0
			at += int64(rng.IntN(40))
			if rng.IntN(50) == 0 {
				at += int64(rng.IntN(3 * 86400)) // a long quiet spell
			}
		}
		var h common.Hash
		binary.BigEndian.PutUint64(h[24:], uint64(i+1))
		tr := market.Trade{Token: tok.Address, Block: block, TxHash: h, LogIndex: log, Time: at, Side: curvekit.Buy, Venue: curvekit.VenueCurve,
			QuoteAmount: *uint256.NewInt(uint64(1+rng.IntN(1000)) * 1e15), TokenAmount: *uint256.NewInt(1e18), Price: *uint256.NewInt(uint64(1+rng.IntN(1e6)) * 1e12)}
		trades = append(trades, tr)
	}
	b := &market.Batch{Cursor: market.Cursor{Block: block}, Launches: []market.Token{tok}, Trades: trades, Time: at}
	tok.LastTradeAt = at
	b.Updates = []market.Token{tok}
	if err := store.Apply(ctx, b); err != nil {
		t.Fatal(err)
	}
	builder, err := txbuild.New(txbuild.Config{ChainID: 1, Factory: common.HexToAddress("0xfa"), Router: common.HexToAddress("0xf0"), WETH: common.HexToAddress("0xee")})
	if err != nil {
		t.Fatal(err)
	}
	svc, err := market.NewService(market.ServiceConfig{Store: store, Builder: builder, Now: func() time.Time { return time.Unix(at+600, 0) }})
	if err != nil {
		t.Fatal(err)
	}
	return svc, tok, trades
}

// An export of trades is every trade in its range, oldest first, across the store's chunks, and
// resumes after any line's cursor; an export of bars is, for every window inside its range,
// exactly what Candles answers, quiet buckets included, and resumes after any bar.
func TestExportsEqualTheReads(t *testing.T) {
	t.Parallel()
	testExportsEqualTheReads(t, filepath.Join(t.TempDir(), "export.db"))
}

// The same on PostgreSQL.
func TestExportsEqualTheReadsOnPostgres(t *testing.T) {
	t.Parallel()
	testExportsEqualTheReads(t, pgtest.Schema(t, "export"))
}

func testExportsEqualTheReads(t *testing.T, dsn string) {
	if raceDetector {
		t.Skip("a single-goroutine property: the plain suite runs it")
	}
	ctx := context.Background()
	svc, tok, trades := exportWorld(t, dsn, 8*market.ExportChunk+345)
	collect := func(q market.ExportQuery) []market.Trade {
		var out []market.Trade
		if err := svc.ExportTrades(ctx, q, func(_ *market.Token, tr *market.Trade) error {
			out = append(out, *tr)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		return out
	}
	if diff := cmp.Diff(trades, collect(market.ExportQuery{Token: tok.Address})); diff != "" {
		t.Fatalf("the whole export (-trades +export):\n%s", diff)
	}
	for _, i := range []int{0, market.ExportChunk - 1, market.ExportChunk, len(trades) - 2} {
		got := collect(market.ExportQuery{Token: tok.Address, Cursor: market.PositionOf(&trades[i]).String()})
		if diff := cmp.Diff(trades[i+1:], got); diff != "" {
			t.Fatalf("resumed after trade %d (-want +got):\n%s", i, diff)
		}
	}
	from, to := trades[500].Time, trades[2100].Time
	var inRange []market.Trade
	for _, tr := range trades {
		if tr.Time >= from && tr.Time < to {
			inRange = append(inRange, tr)
		}
	}
	if diff := cmp.Diff(inRange, collect(market.ExportQuery{Token: tok.Address, From: from, To: to})); diff != "" {
		t.Fatalf("a range (-want +got):\n%s", diff)
	}

	for _, res := range []candles.Resolution{candles.Resolution(60), candles.Resolution(3600), candles.Resolution(86400)} {
		q := market.ExportQuery{Token: tok.Address, Resolution: res, From: trades[300].Time + 1, To: trades[len(trades)-1].Time + 3*res.Seconds()}
		var bars []candles.Bar
		if err := svc.ExportCandles(ctx, q, func(_ *market.Token, b *candles.Bar) error {
			bars = append(bars, *b)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		// The same bars, a window of at most MaxBars at a time.
		var want []candles.Bar
		for from := res.Bucket(q.From); from < q.To; from += market.MaxBars * res.Seconds() {
			to := min(from+(market.MaxBars-1)*res.Seconds(), res.Bucket(q.To-1))
			s, err := svc.Candles(ctx, market.CandleQuery{Token: tok.Address, Resolution: res, From: from, To: to})
			if err != nil {
				t.Fatal(err)
			}
			want = append(want, s.Bars...)
		}
		if diff := cmp.Diff(want, bars); diff != "" || len(bars) < 3 {
			t.Fatalf("%s bars (-candles +export), %d bars:\n%s", res, len(bars), diff)
		}
		mid := bars[len(bars)/2]
		q.Cursor = uint256.NewInt(uint64(mid.Time)).Dec()
		var tail []candles.Bar
		if err := svc.ExportCandles(ctx, q, func(_ *market.Token, b *candles.Bar) error {
			tail = append(tail, *b)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(bars[len(bars)/2+1:], tail); diff != "" {
			t.Fatalf("%s bars resumed (-want +got):\n%s", res, diff)
		}
	}
}

// An export of bars over any range, its end inside a bucket included, is the bars Candles answers
// for the same range (its To is exclusive, Candles' inclusive): a bar that starts before the end
// holds every trade of its bucket, as Candles' does, not only those before the end.
func TestExportedBarsEqualCandlesOverAnyRange(t *testing.T) {
	t.Parallel()
	testExportedBarsEqualCandlesOverAnyRange(t, filepath.Join(t.TempDir(), "export.db"))
}

// The same on PostgreSQL.
func TestExportedBarsEqualCandlesOverAnyRangeOnPostgres(t *testing.T) {
	t.Parallel()
	testExportedBarsEqualCandlesOverAnyRange(t, pgtest.Schema(t, "exportbars"))
}

func testExportedBarsEqualCandlesOverAnyRange(t *testing.T, dsn string) {
	if raceDetector {
		t.Skip("a single-goroutine property: the plain suite runs it")
	}
	ctx := context.Background()
	svc, tok, trades := exportWorld(t, dsn, 3*market.ExportChunk+45)
	present := trades[len(trades)-1].Time + 600 // the world's clock
	rng := rand.New(rand.NewPCG(14, 15))
	// candlesOver is what Candles answers for [from, to), a window of at most MaxBars at a time.
	candlesOver := func(res candles.Resolution, from, to int64) []candles.Bar {
		if to == 0 || to > present+1 {
			to = present + 1
		}
		var out []candles.Bar
		for from := res.Bucket(from); from < to; from += market.MaxBars * res.Seconds() {
			s, err := svc.Candles(ctx, market.CandleQuery{Token: tok.Address, Resolution: res, From: from,
				To: min(from+(market.MaxBars-1)*res.Seconds(), to-1)})
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, s.Bars...)
		}
		return out
	}
	type span struct{ from, to int64 }
	ranges := 0
	for _, res := range []candles.Resolution{candles.Resolution(60), candles.Resolution(300), candles.Resolution(3600), candles.Resolution(86400)} {
		var spans []span
		// Ends at a trade, a second after one and a second before one: inside a bucket that
		// holds trades on both sides of the end, for the finer resolutions.
		for range 15 {
			i := rng.IntN(len(trades))
			j := min(i+rng.IntN(100), len(trades)-1)
			from, to := trades[i].Time-int64(rng.IntN(int(res.Seconds()))), trades[j].Time
			spans = append(spans, span{from, to}, span{from, to + 1}, span{from, to - 1}, span{from, res.Bucket(to) + res.Seconds()})
		}
		// Any second, the present and beyond, and before the first trade.
		for range 8 {
			a := trades[0].Time - 3600 + rng.Int64N(present-trades[0].Time+7200)
			spans = append(spans, span{a, a + 1 + rng.Int64N(int64(res.Seconds())*300)})
		}
		spans = append(spans, span{trades[0].Time, 0}, span{trades[len(trades)/2].Time, 0}, span{present - 1, present + 1},
			span{trades[len(trades)-1].Time - 30, present + 99_999}, span{trades[0].Time - 7200, trades[0].Time})
		for _, sp := range spans {
			if sp.from >= sp.to && sp.to != 0 {
				continue
			}
			var got []candles.Bar
			q := market.ExportQuery{Token: tok.Address, Resolution: res, From: sp.from, To: sp.to}
			if err := svc.ExportCandles(ctx, q, func(_ *market.Token, b *candles.Bar) error {
				got = append(got, *b)
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(candlesOver(res, sp.from, sp.to), got); diff != "" {
				t.Fatalf("%s bars of [%d, %d) (-candles +export):\n%s", res, sp.from, sp.to, diff)
			}
			ranges++
		}
	}
	if ranges < 250 {
		t.Fatalf("%d ranges compared", ranges)
	}
}
