package bunstore_test

import (
	"context"
	"encoding/binary"
	"os"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/holiman/uint256"

	"github.com/curvekit/curvekit"
	"github.com/curvekit/curvekit/adapters/bunstore"
	"github.com/curvekit/curvekit/candles"
	"github.com/curvekit/curvekit/curve"
	"github.com/curvekit/curvekit/market"
	"github.com/curvekit/curvekit/txbuild"
)

// BenchmarkCandles1h30d times a 1h candle request over 30 days of a busy token (272,000 trades,
// one every 9.5 s; CURVEKIT_BENCH_TRADES overrides the count) two ways in one run: "trades" is
// the computation before stored bars (every trade of the window read and folded), "bars" is
// market.Service.Candles, rolled up from the stored minute bars.
func BenchmarkCandles1h30d(b *testing.B) {
	b.Run("sqlite", func(b *testing.B) { benchCandles(b, newSQLite(b)) })
	b.Run("postgres", func(b *testing.B) { benchCandles(b, newPostgres(b)) })
}

func benchCandles(b *testing.B, s *bunstore.Market) {
	ctx := context.Background()
	n := 272_000
	if v, err := strconv.Atoi(os.Getenv("CURVEKIT_BENCH_TRADES")); err == nil && v > 0 {
		n = v
	}
	const end = int64(1_800_000_000)
	start := end - 30*86400
	p, err := curve.DefaultParams(18)
	if err != nil {
		b.Fatal(err)
	}
	tok := market.Token{
		Address: benchAddr(1, 0), Curve: benchAddr(2, 0), Creator: benchAddr(3, 0),
		Quote: market.Asset{Symbol: "ETH", Decimals: 18}, Name: "Bench", Symbol: "BCH", Decimals: 18,
		TotalSupply: p.TokenSupply, Params: p, State: p.Initial(), LaunchBlock: 1, CreatedAt: start,
	}
	if err := s.Apply(ctx, &market.Batch{Cursor: market.Cursor{Block: 1}, Launches: []market.Token{tok}}); err != nil {
		b.Fatal(err)
	}
	filled := time.Now()
	const perBatch = 2000
	for i := 0; i < n; i += perBatch {
		batch := &market.Batch{}
		for j := i; j < min(n, i+perBatch); j++ {
			var tx common.Hash
			binary.BigEndian.PutUint64(tx[24:], uint64(j))
			var quote, price uint256.Int
			quote.Mul(uint256.NewInt(uint64(j%1000+1)), uint256.NewInt(1e15))
			price.Mul(uint256.NewInt(uint64(1e6+j%7919)), uint256.NewInt(1e18))
			batch.Trades = append(batch.Trades, market.Trade{
				Token: tok.Address, Block: uint64(2 + j), TxHash: tx, Time: start + int64(j)*30*86400/int64(n),
				Side: curvekit.Buy, Venue: curvekit.VenueCurve, QuoteAmount: quote, Price: price,
			})
		}
		batch.Cursor = market.Cursor{Block: batch.Trades[len(batch.Trades)-1].Block}
		if err := s.Apply(ctx, batch); err != nil {
			b.Fatal(err)
		}
	}
	b.Logf("filled %d trades in %v", n, time.Since(filled).Round(time.Millisecond))
	builder, err := txbuild.New(txbuild.Config{ChainID: 1})
	if err != nil {
		b.Fatal(err)
	}
	svc, err := market.NewService(market.ServiceConfig{Store: s, Builder: builder, Now: func() time.Time { return time.Unix(end, 0) }})
	if err != nil {
		b.Fatal(err)
	}
	q := market.CandleQuery{Token: tok.Address, Resolution: candles.Res1h, From: start, To: end}
	var want []candles.Bar
	b.Run("trades", func(b *testing.B) {
		for b.Loop() {
			// What Candles did before: read the window's trades and the one before, fold them.
			from, to := candles.Res1h.Bucket(start), candles.Res1h.Bucket(end)
			r, err := s.TradesBetween(ctx, market.RangeQuery{Token: tok.Address, From: from, To: to + 3600})
			if err != nil {
				b.Fatal(err)
			}
			in := make([]candles.Trade, len(r.Trades))
			for i := range r.Trades {
				in[i] = market.CandleTrade(&tok, &r.Trades[i])
			}
			if want, err = candles.Range(in, candles.RangeParams{Resolution: candles.Res1h, From: from, To: to, Limit: market.MaxBars}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("bars", func(b *testing.B) {
		for b.Loop() {
			series, err := svc.Candles(ctx, q)
			if err != nil {
				b.Fatal(err)
			}
			if want != nil && (len(series.Bars) != len(want) || series.Bars[len(want)-1] != want[len(want)-1]) {
				b.Fatalf("%d bars, want %d", len(series.Bars), len(want))
			}
		}
	})
}

// BenchmarkCandleReads times market.Service.Candles over two busy tokens: "1h30d", 720 hourly
// bars of a token that traded every 9.5 s for 30 days (272,000 trades), and "1d1000d", 1,000
// daily bars of a token that traded every 5 minutes for 1,000 days (288,000 trades).
// CURVEKIT_BENCH_TRADES overrides both counts. Each run checks the bars against candles.Range
// over the window's trades once, before it is timed, and reports the mean and the 99th
// percentile of a request.
func BenchmarkCandleReads(b *testing.B) {
	b.Run("sqlite", func(b *testing.B) { benchCandleReads(b, newSQLite(b)) })
	b.Run("postgres", func(b *testing.B) { benchCandleReads(b, newPostgres(b)) })
}

func benchCandleReads(b *testing.B, s *bunstore.Market) {
	ctx := context.Background()
	const end = int64(1_800_000_000)
	for i, c := range []struct {
		name  string
		res   candles.Resolution
		span  int64 // seconds of history
		count int
	}{
		{"1h30d", candles.Res1h, 30 * 86400, 272_000},
		{"1d1000d", candles.Res1d, 1000 * 86400, 288_000},
	} {
		n := c.count
		if v, err := strconv.Atoi(os.Getenv("CURVEKIT_BENCH_TRADES")); err == nil && v > 0 {
			n = v
		}
		start := end - c.span
		tok := fillBusyToken(b, s, i+10, start, end, n)
		svc, err := market.NewService(market.ServiceConfig{Store: s, Builder: benchBuilder(b), Now: func() time.Time { return time.Unix(end, 0) }})
		if err != nil {
			b.Fatal(err)
		}
		q := market.CandleQuery{Token: tok.Address, Resolution: c.res, From: start, To: end}
		series, err := svc.Candles(ctx, q)
		if err != nil {
			b.Fatal(err)
		}
		// The reference: every trade of the window (and the one before it) folded.
		from, to := series.From, series.To
		r, err := s.TradesBetween(ctx, market.RangeQuery{Token: tok.Address, From: from, To: to + c.res.Seconds()})
		if err != nil {
			b.Fatal(err)
		}
		in := make([]candles.Trade, len(r.Trades))
		for i := range r.Trades {
			in[i] = market.CandleTrade(&tok, &r.Trades[i])
		}
		p := candles.RangeParams{Resolution: c.res, From: from, To: to, Limit: market.MaxBars}
		if r.Before != nil {
			seed := market.CandleTrade(&tok, r.Before)
			p.Seed = &seed
		}
		want, err := candles.Range(in, p)
		if err != nil {
			b.Fatal(err)
		}
		if len(series.Bars) != len(want) {
			b.Fatalf("%s: %d bars, want %d", c.name, len(series.Bars), len(want))
		}
		for i := range want {
			if series.Bars[i] != want[i] {
				b.Fatalf("%s: bar %d = %+v, want %+v", c.name, i, series.Bars[i], want[i])
			}
		}
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			var took []time.Duration
			for b.Loop() {
				t0 := time.Now()
				if _, err := svc.Candles(ctx, q); err != nil {
					b.Fatal(err)
				}
				took = append(took, time.Since(t0))
			}
			slices.Sort(took)
			b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/op")
			b.ReportMetric(float64(took[(len(took)*99+99)/100-1].Microseconds())/1000, "p99-ms")
		})
	}
}

func benchBuilder(b *testing.B) *txbuild.Builder {
	builder, err := txbuild.New(txbuild.Config{ChainID: 1})
	if err != nil {
		b.Fatal(err)
	}
	return builder
}

// fillBusyToken launches token number k and applies n trades spread evenly over [start, end),
// 2,000 a batch, with prices and volumes that vary from trade to trade.
func fillBusyToken(b *testing.B, s *bunstore.Market, k int, start, end int64, n int) market.Token {
	ctx := context.Background()
	p, err := curve.DefaultParams(18)
	if err != nil {
		b.Fatal(err)
	}
	tok := market.Token{
		Address: benchAddr(1, k), Curve: benchAddr(2, k), Creator: benchAddr(3, k),
		Quote: market.Asset{Symbol: "ETH", Decimals: 18}, Name: "Bench", Symbol: "BCH", Decimals: 18,
		TotalSupply: p.TokenSupply, Params: p, State: p.Initial(), LaunchBlock: uint64(k), CreatedAt: start,
	}
	cur, err := s.Cursor(ctx)
	if err != nil {
		b.Fatal(err)
	}
	block := cur.Block + 1
	if err := s.Apply(ctx, &market.Batch{Cursor: market.Cursor{Block: block}, Launches: []market.Token{tok}}); err != nil {
		b.Fatal(err)
	}
	filled := time.Now()
	const perBatch = 2000
	for i := 0; i < n; i += perBatch {
		batch := &market.Batch{}
		for j := i; j < min(n, i+perBatch); j++ {
			var tx common.Hash
			binary.BigEndian.PutUint64(tx[16:], uint64(k))
			binary.BigEndian.PutUint64(tx[24:], uint64(j))
			var quote, price uint256.Int
			quote.Mul(uint256.NewInt(uint64(j%1000+1)), uint256.NewInt(1e15))
			price.Mul(uint256.NewInt(uint64(1e6+j%7919)), uint256.NewInt(1e18))
			batch.Trades = append(batch.Trades, market.Trade{
				Token: tok.Address, Block: block + 1 + uint64(j), TxHash: tx, Time: start + int64(j)*(end-start)/int64(n),
				Side: curvekit.Buy, Venue: curvekit.VenueCurve, QuoteAmount: quote, Price: price,
			})
		}
		batch.Cursor = market.Cursor{Block: batch.Trades[len(batch.Trades)-1].Block}
		if err := s.Apply(ctx, batch); err != nil {
			b.Fatal(err)
		}
	}
	b.Logf("filled %d trades of token %d in %v", n, k, time.Since(filled).Round(time.Millisecond))
	return tok
}
