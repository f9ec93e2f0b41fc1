package market

import (
	"context"
	"math"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/holiman/uint256"
)

// The trending score. Each trade weighs 1 + log2(1 + its notional in whole units of the pairing
// asset): every trade counts, larger ones more, a whale's no more than a few dozen small ones. A
// token's score at time T is the sum of its trades' weights, each halved for every TrendHalfLife
// of its age:
//
//	score(T) = Σ weight · 2^-((T - t) / TrendHalfLife)
//
// Every token's score decays by the same factor as time passes, so the order of any two tokens
// changes only when one of them trades. Stores keep the score's logarithm against a fixed epoch,
//
//	TrendLog = log2(Σ weight · 2^(t / TrendHalfLife))
//
// which a trade moves (AddTrend) and time passing does not: a list orders by it and rewrites
// nothing, and the score shown is TrendScore(TrendLog, T). A token without trades has NoTrend.
const TrendHalfLife = 2 * 3600.0 // seconds

// NoTrend is the TrendLog of a token without trades: below any trade's, and a score of 0.
const NoTrend = -1e300

// TrendHorizon is how far back a store that adds a token's score up again from its trades (after
// a reorganization) reads them: a trade older than 48 half-lives weighs less than 2^-48 of what
// it did, below a float's precision beside any newer trade.
const TrendHorizon = int64(48 * TrendHalfLife)

// TradeWeight is what one trade adds to the trending score when it happens.
func TradeWeight(tr *Trade, quoteDecimals uint8) float64 {
	q, _ := new(big.Float).SetInt(tr.QuoteAmount.ToBig()).Float64()
	return 1 + math.Log2(1+q/math.Pow10(int(quoteDecimals)))
}

// OpenPrice is the curve's opening price in the scale of Trade.Price (pairing-asset base units
// per whole token, times PriceScale), as a float: the reference of a price change before the
// token's first trade in the window.
func OpenPrice(t *Token) float64 {
	if t.Params.VirtualToken0.IsZero() {
		return 0
	}
	q, _ := new(big.Float).SetInt(t.Params.VirtualQuote0.ToBig()).Float64()
	v, _ := new(big.Float).SetInt(t.Params.VirtualToken0.ToBig()).Float64()
	return q * math.Pow10(int(t.Decimals)+18) / v
}

// TrendTerm is the TrendLog of one trade of the given weight at block time t.
func TrendTerm(weight float64, t int64) float64 {
	return math.Log2(weight) + float64(t)/TrendHalfLife
}

// AddTrend returns the TrendLog of the sum of two scores given by their TrendLogs.
func AddTrend(a, b float64) float64 {
	if a < b {
		a, b = b, a
	}
	if b <= NoTrend {
		return a
	}
	return a + math.Log2(1+math.Exp2(b-a))
}

// TrendScore is the score at time at of a token whose TrendLog is l.
func TrendScore(l float64, at int64) float64 {
	if l <= NoTrend {
		return 0
	}
	return math.Exp2(l - float64(at)/TrendHalfLife)
}

// Ranks are the discovery values a token list shows beside each token: its trending score and
// its price changes over the last hour and day (display values; 0.1 = +10%). The change compares
// the last trade's price with the price of the last trade at least an hour (a day) before the
// last indexed block, or the curve's opening price when there is none. Stores keep them current
// at every batch, as of its last block, by recomputing them only for the tokens whose last trade
// or reference trade the batch moved.
type Ranks struct {
	Trend               float64
	Change1h, Change24h float64
	// Volume24h, Buys24h and Sells24h sum the trades of the day up to the last indexed block
	// (both ends included), exactly.
	Volume24h         uint256.Int
	Buys24h, Sells24h int
}

// King is the king of the hill of a pairing asset: its curve-phase token with the highest market
// cap, and the block time since which it holds the crown (the block time of the batch in which
// it took it; a batch covers one block when the indexer follows the head).
type King struct {
	Quote common.Address
	Token common.Address
	Since int64
}

// KingView is a king of the hill: its token's view with its day, and the block time since which
// it holds the crown.
type KingView struct {
	Since int64
	Token View
}

// King returns the king of the hill of the pairing asset quote (the zero address: ETH), with its
// token's view and day; curvekit.ErrNotFound while no token of that asset trades on its curve.
func (s *Service) King(ctx context.Context, quote common.Address) (KingView, error) {
	k, err := s.cfg.Store.King(ctx, quote)
	if err != nil {
		return KingView{}, err
	}
	v, _, err := s.tokenDay(ctx, k.Token)
	if err != nil {
		return KingView{}, err
	}
	return KingView{Since: k.Since, Token: v}, nil
}
