package market_test

import (
	"context"
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/holiman/uint256"

	"github.com/curvekit/curvekit"
	"github.com/curvekit/curvekit/adapters/bunstore"
	"github.com/curvekit/curvekit/curve"
	"github.com/curvekit/curvekit/market"
)

// synthChain is a chain of pre-built events: tokens launched in block 1, then trades.
type synthChain struct {
	info   market.ChainInfo
	blocks uint64
	events []market.Event // chain order
	params curve.Params
}

func (c *synthChain) Info(context.Context) (market.ChainInfo, error) { return c.info, nil }
func (c *synthChain) Head(ctx context.Context) (market.BlockRef, error) {
	return c.Block(ctx, c.blocks)
}
func (c *synthChain) Block(_ context.Context, n uint64) (market.BlockRef, error) {
	if n > c.blocks {
		return market.BlockRef{}, curvekit.ErrNotFound
	}
	var h common.Hash
	binary.BigEndian.PutUint64(h[24:], n+1)
	return market.BlockRef{Number: n, Hash: h, Time: 1_700_000_000 + int64(n)}, nil
}
func (c *synthChain) Events(_ context.Context, q market.EventQuery) ([]market.Event, error) {
	want := map[market.EventKind]bool{}
	for _, k := range q.Kinds {
		want[k] = true
	}
	var out []market.Event
	for _, ev := range c.events {
		if ev.Block >= q.From && ev.Block <= q.To && want[ev.Kind] {
			out = append(out, ev)
		}
	}
	return out, nil
}
func (c *synthChain) Launch(context.Context, common.Address) (market.LaunchInfo, error) {
	return market.LaunchInfo{Params: c.params, TotalSupply: c.params.TokenSupply, Decimals: 18, Quote: market.Asset{Symbol: "ETH", Decimals: 18}, PoolFeeBps: 30}, nil
}
func (c *synthChain) StateAt(_ context.Context, t market.Token, _ uint64) (market.Token, error) {
	return t, nil
}
func (c *synthChain) BalancesAt(_ context.Context, _ common.Address, holders []common.Address, _ uint64) ([]uint256.Int, error) {
	return make([]uint256.Int, len(holders)), nil
}

// newSynthChain builds tokens launches and trades trades spread over blocks of perBlock trades,
// each trade a real curve buy so the stored states are what a chain would report. With
// transfers, each token also mints its supply to its curve, and each buy moves its tokens from
// the curve to the buyer, as the contracts' Transfers do.
func newSynthChain(b *testing.B, tokens, trades, perBlock int, transfers bool) *synthChain {
	p, err := curve.DefaultParams(18)
	if err != nil {
		b.Fatal(err)
	}
	c := &synthChain{params: p, info: market.ChainInfo{ChainID: 1, Factory: common.HexToAddress("0xfa")}}
	binary.BigEndian.PutUint64(c.info.GenesisHash[24:], 1)
	states := make([]curve.State, tokens)
	addr := func(kind byte, i int) common.Address {
		var a common.Address
		a[0] = kind
		binary.BigEndian.PutUint64(a[12:], uint64(i))
		return a
	}
	for i := 0; i < tokens; i++ {
		states[i] = p.Initial()
		if transfers {
			c.events = append(c.events, market.Event{Kind: market.EventTransfer, Address: addr(1, i), Block: 1, LogIndex: uint(2 * i), Time: 1_700_000_001,
				Transfer: &market.TransferEvent{To: addr(2, i), Value: p.TokenSupply}})
		}
		c.events = append(c.events, market.Event{Kind: market.EventLaunched, Address: c.info.Factory, Block: 1, LogIndex: uint(2*i + 1), Time: 1_700_000_001,
			Launched: &market.LaunchedEvent{Token: addr(1, i), Curve: addr(2, i), Creator: addr(3, i), Name: "Bench", Symbol: "BNCH"}})
	}
	in := uint256.NewInt(1e15)
	for n := 0; n < trades; n++ {
		i := n % tokens
		buy, err := curve.QuoteBuy(&p, &states[i], in)
		if err != nil {
			b.Fatal(err)
		}
		states[i] = buy.After
		block := uint64(2 + n/perBlock)
		var tx common.Hash
		binary.BigEndian.PutUint64(tx[24:], uint64(n+1))
		if transfers {
			c.events = append(c.events, market.Event{Kind: market.EventTransfer, Address: addr(1, i), Block: block, TxHash: tx, LogIndex: uint(2 * (n % perBlock)), Time: 1_700_000_000 + int64(block),
				Transfer: &market.TransferEvent{From: addr(2, i), To: addr(4, n%50), Value: buy.TokensOut}})
		}
		c.events = append(c.events, market.Event{Kind: market.EventTrade, Address: addr(2, i), Block: block, TxHash: tx, LogIndex: uint(2*(n%perBlock) + 1), Time: 1_700_000_000 + int64(block),
			Trade: &market.TradeEvent{Trader: addr(4, n%50), Recipient: addr(4, n%50), IsBuy: true, QuoteAmount: buy.Net, TokenAmount: buy.TokensOut, Fee: buy.Fee, CreatorFee: buy.CreatorFee,
				VirtualQuote: buy.After.VirtualQuote, VirtualToken: buy.After.VirtualToken, RealQuote: buy.After.RealQuote, RealToken: buy.After.RealToken}})
		c.blocks = block
	}
	return c
}

func (c *synthChain) firstToken() common.Address {
	for _, ev := range c.events {
		if ev.Launched != nil {
			return ev.Launched.Token
		}
	}
	return common.Address{}
}

// BenchmarkIndexer measures the indexer end to end (events to folded batches to committed
// store transactions) in trades per second, on SQLite and, with CURVEKIT_TEST_POSTGRES, on
// PostgreSQL, with the trades alone and with the token Transfers that come with them (the
// holders' balances):
//
//	go test -run XXX -bench Indexer -benchtime 3x ./market
func BenchmarkIndexer(b *testing.B) {
	const trades = 20_000
	chains := map[string]*synthChain{
		"trades":          newSynthChain(b, 20, trades, 10, false),
		"tradesTransfers": newSynthChain(b, 20, trades, 10, true),
	}
	dsns := map[string]func(b *testing.B) string{
		"sqlite": func(b *testing.B) string { return filepath.Join(b.TempDir(), "bench.db") },
	}
	if pg := os.Getenv("CURVEKIT_TEST_POSTGRES"); pg != "" {
		dsns["postgres"] = func(b *testing.B) string { return pg }
	}
	for name, dsn := range dsns {
		for kind, chain := range chains {
			b.Run(name+"/"+kind, func(b *testing.B) {
				ctx := context.Background()
				var total time.Duration
				for i := 0; i < b.N; i++ {
					db, err := bunstore.Open(ctx, bunstore.Config{DSN: dsn(b)})
					if err != nil {
						b.Fatal(err)
					}
					store := db.Market()
					if err := store.Reset(ctx); err != nil {
						b.Fatal(err)
					}
					ix, err := market.NewIndexer(ctx, market.IndexerConfig{Chain: chain, Store: store, BatchBlocks: 100})
					if err != nil {
						b.Fatal(err)
					}
					start := time.Now()
					if _, err := ix.Sync(ctx); err != nil {
						b.Fatal(err)
					}
					total += time.Since(start)
					page, err := store.Trades(ctx, market.TradeQuery{Token: chain.firstToken(), Limit: 1})
					if err != nil || len(page.Trades) != 1 {
						b.Fatalf("nothing indexed: %v", err)
					}
					db.Close()
				}
				b.ReportMetric(float64(trades*b.N)/total.Seconds(), "trades/s")
			})
		}
	}
}
