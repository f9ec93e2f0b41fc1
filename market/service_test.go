package market_test

import (
	"context"
	"errors"
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
	"github.com/curvekit/curvekit/market"
	"github.com/curvekit/curvekit/txbuild"
)

// serviceWorld is a market service over bunstore on SQLite with two launched tokens - one paired
// with ETH that traded once, one with an ERC-20 - and a clock at now.
func serviceWorld(t *testing.T, now int64) (*market.Service, common.Address, common.Address) {
	t.Helper()
	ctx := context.Background()
	db, err := bunstore.Open(ctx, bunstore.Config{DSN: filepath.Join(t.TempDir(), "svc.db")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	store := db.Market()
	if err := store.Bind(ctx, market.ChainInfo{ChainID: 1337}); err != nil {
		t.Fatal(err)
	}
	p, err := curve.DefaultParams(18)
	if err != nil {
		t.Fatal(err)
	}
	usd := common.HexToAddress("0x7d5d000000000000000000000000000000000005")
	tok := func(n byte, quote market.Asset) market.Token {
		return market.Token{
			Address: common.Address{0xaa, n}, Curve: common.Address{0xcc, n}, Creator: common.Address{0xc4},
			Quote: quote, Name: "T", Symbol: "T", Decimals: 18, TotalSupply: p.TokenSupply, Params: p, State: p.Initial(),
			LaunchBlock: 10, LaunchTx: common.Hash{n}, LaunchLog: uint(n), CreatedAt: now - 7200,
		}
	}
	eth, dollar := tok(1, market.Asset{Symbol: "ETH", Decimals: 18}), tok(2, market.Asset{Address: usd, Symbol: "USD", Decimals: 6})
	tr := market.Trade{
		Token: eth.Address, Block: 11, BlockHash: common.Hash{11}, LogIndex: 1, Time: now - 3600, TxHash: common.Hash{0x11},
		Side: curvekit.Buy, Trader: common.Address{7}, Recipient: common.Address{7},
	}
	tr.QuoteAmount.SetUint64(1e18)
	tr.TokenAmount.SetUint64(1e18)
	tr.Price.Mul(uint256.NewInt(1e18), uint256.NewInt(market.PriceScale))
	eth.LastTradeAt = tr.Time
	b := &market.Batch{Cursor: market.Cursor{Block: 11, Hash: common.Hash{11}}, Launches: []market.Token{eth, dollar}, Trades: []market.Trade{tr}, Updates: []market.Token{eth}}
	if err := store.Apply(ctx, b); err != nil {
		t.Fatal(err)
	}
	builder, err := txbuild.New(txbuild.Config{ChainID: 1337})
	if err != nil {
		t.Fatal(err)
	}
	svc, err := market.NewService(market.ServiceConfig{Store: store, Builder: builder, Now: func() time.Time { return time.Unix(now, 0) }})
	if err != nil {
		t.Fatal(err)
	}
	return svc, eth.Address, usd
}

// A to after the present counts as the present: the last bar is the current bucket, never one
// made up for the future, whatever the resolution.
func TestCandlesStopAtThePresent(t *testing.T) {
	t.Parallel()
	const now = 1_800_000_030
	svc, eth, _ := serviceWorld(t, now)
	ctx := context.Background()
	for _, res := range candles.Resolutions() {
		for _, to := range []int64{now + 1, now + 86400*30, 999_999_999_999} {
			s, err := svc.Candles(ctx, market.CandleQuery{Token: eth, Resolution: res, From: now - 7200, To: to})
			if err != nil {
				t.Fatalf("%s to=%d: %v", res, to, err)
			}
			if s.To != res.Bucket(now) || len(s.Bars) == 0 || s.Bars[len(s.Bars)-1].Time != res.Bucket(now) {
				t.Fatalf("%s to=%d: window to %d, %d bars, want the last at %d", res, to, s.To, len(s.Bars), res.Bucket(now))
			}
		}
	}
	// A window wholly after the present is refused, not filled.
	_, err := svc.Candles(ctx, market.CandleQuery{Token: eth, Resolution: candles.Res1m, From: now + 3600, To: now + 7200})
	if !errors.Is(err, curvekit.ErrInvalid) {
		t.Fatalf("future window: %v", err)
	}
}

// A quote asset that no token pairs with is not found (SPEC 7); native ETH and a known ERC-20
// are, even when the other filters leave the page empty.
func TestTokensUnknownQuoteAsset(t *testing.T) {
	t.Parallel()
	svc, _, usd := serviceWorld(t, 1_800_000_030)
	ctx := context.Background()
	unknown := common.HexToAddress("0x00000000000000000000000000000000000000aa")
	if _, err := svc.Tokens(ctx, market.TokenQuery{Quote: &unknown}); !errors.Is(err, curvekit.ErrNotFound) {
		t.Fatalf("unknown quote asset: %v", err)
	}
	ethAddr := common.Address{}
	for _, q := range []market.TokenQuery{
		{Quote: &usd},
		{Quote: &usd, Search: "no such name"},
		{Quote: &ethAddr, Phase: market.PhaseGraduated},
	} {
		if _, err := svc.Tokens(ctx, q); err != nil {
			t.Fatalf("%+v: %v", q, err)
		}
	}
	page, err := svc.Tokens(ctx, market.TokenQuery{Quote: &usd})
	if err != nil || len(page.Tokens) != 1 {
		t.Fatalf("known quote asset: %d tokens, %v", len(page.Tokens), err)
	}
}

// Candles at every resolution, over windows anywhere in a history with long quiet spells, equal
// candles.Range over the token's trades bar for bar, whichever stored span each resolution rolls
// up from (minutes for 1m to 15m, hours for 1h and 4h, days for 1d).
func TestCandlesEqualTheTradesAtEveryResolution(t *testing.T) {
	t.Parallel()
	svc, tok, trades := exportWorld(t, filepath.Join(t.TempDir(), "candles.db"), 3000)
	ctx := context.Background()
	in := make([]candles.Trade, len(trades))
	for i := range trades {
		in[i] = market.CandleTrade(&tok, &trades[i])
	}
	rng := rand.New(rand.NewPCG(27, 1))
	first, last := trades[0].Time, trades[len(trades)-1].Time
	for _, res := range candles.Resolutions() {
		for k := range 40 {
			q := market.CandleQuery{Token: tok.Address, Resolution: res}
			if k > 0 { // the first is the default window: the latest MaxBars buckets
				q.From = first - 3*res.Seconds() + rng.Int64N(last-first+6*res.Seconds())
				q.To = q.From + rng.Int64N(int64(market.MaxBars+50)*res.Seconds())
			}
			s, err := svc.Candles(ctx, q)
			if err != nil {
				t.Fatalf("%s [%d, %d]: %v", res, q.From, q.To, err)
			}
			want, err := candles.Range(in, candles.RangeParams{Resolution: res, From: s.From, To: s.To, Limit: market.MaxBars})
			if err != nil {
				t.Fatal(err)
			}
			if len(want) == 0 {
				want = nil
			}
			if diff := cmp.Diff(want, s.Bars); diff != "" {
				t.Fatalf("%s bars of [%d, %d] (-trades +candles):\n%s", res, s.From, s.To, diff)
			}
		}
	}
}
