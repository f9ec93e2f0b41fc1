package bunstore_test

import (
	"github.com/curvekit/curvekit"

	"context"
	"encoding/binary"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/holiman/uint256"

	"github.com/curvekit/curvekit/adapters/bunstore"
	"github.com/curvekit/curvekit/curve"
	"github.com/curvekit/curvekit/market"
)

// BenchmarkApply writes indexer-style batches - 500 trades over 20 tokens, their updates and the
// cursor - and reports trades/s.
func BenchmarkApply(b *testing.B) {
	b.Run("sqlite", func(b *testing.B) { benchApply(b, newSQLite(b)) })
	b.Run("postgres", func(b *testing.B) { benchApply(b, newPostgres(b)) })
}

func benchApply(b *testing.B, s *bunstore.Market) {
	const tokens, perBatch = 20, 500
	ctx := context.Background()
	p, err := curve.DefaultParams(18)
	if err != nil {
		b.Fatal(err)
	}
	launches := make([]market.Token, tokens)
	for i := range launches {
		launches[i] = market.Token{
			Address: benchAddr(1, i), Curve: benchAddr(2, i), Creator: benchAddr(3, i),
			Quote: market.Asset{Symbol: "ETH", Decimals: 18}, Name: "Bench", Symbol: "BCH", Decimals: 18,
			TotalSupply: p.TokenSupply, Params: p, State: p.Initial(), LaunchBlock: 1, LaunchLog: uint(i),
		}
	}
	if err := s.Apply(ctx, &market.Batch{Cursor: market.Cursor{Block: 1}, Launches: launches}); err != nil {
		b.Fatal(err)
	}
	var (
		seq   uint64
		block uint64 = 1
	)
	b.ResetTimer()
	for b.Loop() {
		batch := &market.Batch{Trades: make([]market.Trade, perBatch), Updates: launches}
		for j := range batch.Trades {
			seq++
			if j%25 == 0 {
				block++
			}
			var tx common.Hash
			binary.BigEndian.PutUint64(tx[24:], seq)
			var quote uint256.Int
			quote.Mul(uint256.NewInt(seq%1000+1), uint256.NewInt(1e15))
			batch.Trades[j] = market.Trade{
				Token: launches[j%tokens].Address, Block: block, TxHash: tx, LogIndex: uint(j % 25),
				Time: 1_800_000_000 + int64(block)*2, Trader: benchAddr(4, j), Recipient: benchAddr(4, j),
				Side: curvekit.Buy, Venue: curvekit.VenueCurve, QuoteAmount: quote, TokenAmount: p.VirtualToken0,
				Fee: quote, CreatorFee: quote, Price: quote, ReserveQuote: p.VirtualQuote0, ReserveToken: p.VirtualToken0,
			}
		}
		batch.Cursor = market.Cursor{Block: block}
		if err := s.Apply(ctx, batch); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*perBatch)/b.Elapsed().Seconds(), "trades/s")
}

func benchAddr(kind byte, n int) common.Address {
	var a common.Address
	a[0] = kind
	binary.BigEndian.PutUint64(a[12:], uint64(n))
	return a
}
