package market

import (
	"context"
	"math"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
)

// The trending score. Each trade weighs 1 + log2(1 + its notional in whole units of the pairing
// asset): every trade counts, larger ones more, a whale's no more than a few dozen small ones. A
// token keeps two sums of its trades' weights, each decaying exponentially with the trade's age:
// Hour with a time constant of one hour, Day with one of a day. Its score is
//
//	Hour + Day/24
//
// so that the last hour's trading leads and the day's keeps a token in view. Stores keep the sums
// current at every batch (multiply every token's sums by the decay since the previous batch, add
// the batch's trades), never by reading trades when a list is asked for; a score below
// TrendFloor is 0, which drops tokens idle for a day or so out of the ranking.
const (
	TrendHour  = 3600.0  // seconds: the time constant of Trend.Hour
	TrendDay   = 86400.0 // seconds: the time constant of Trend.Day
	TrendFloor = 0.001
)

// Trend is a token's pair of decaying trade sums, expressed at one time.
type Trend struct {
	Hour, Day float64
}

// Score is the trending score of t.
func (t Trend) Score() float64 { return t.Hour + t.Day/24 }

// Decay returns t expressed dt seconds later.
func (t Trend) Decay(dt float64) Trend {
	if dt <= 0 {
		return t
	}
	return Trend{Hour: t.Hour * math.Exp(-dt/TrendHour), Day: t.Day * math.Exp(-dt/TrendDay)}
}

// TradeWeight is what one trade adds to the trending sums when it happens.
func TradeWeight(tr *Trade, quoteDecimals uint8) float64 {
	q, _ := new(big.Float).SetInt(tr.QuoteAmount.ToBig()).Float64()
	return 1 + math.Log2(1+q/math.Pow10(int(quoteDecimals)))
}

// TrendOf adds the batch's trades, each decayed from its time to at, per token. The pairing
// asset's decimals come from the batch's launches and updates (every traded token has one).
func TrendOf(b *Batch, at int64) map[common.Address]Trend {
	decimals := make(map[common.Address]uint8, len(b.Updates)+len(b.Launches))
	for i := range b.Launches {
		decimals[b.Launches[i].Address] = b.Launches[i].Quote.Decimals
	}
	for i := range b.Updates {
		decimals[b.Updates[i].Address] = b.Updates[i].Quote.Decimals
	}
	out := make(map[common.Address]Trend)
	for i := range b.Trades {
		tr := &b.Trades[i]
		weight := TradeWeight(tr, decimals[tr.Token])
		w := Trend{Hour: weight, Day: weight}.Decay(float64(at - tr.Time))
		t := out[tr.Token]
		t.Hour += w.Hour
		t.Day += w.Day
		out[tr.Token] = t
	}
	return out
}

// Ranks are the discovery values a token list shows beside each token: its trending score and
// its price changes over the last hour and day (display values; 0.1 = +10%). The change compares
// the last trade's price with the price of the last trade at least an hour (a day) before the
// last indexed block, or the curve's opening price when there is none. Stores keep them current
// at every batch, as of its last block.
type Ranks struct {
	Trend               float64
	Change1h, Change24h float64
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
	v, err := s.tokenDay(ctx, k.Token)
	if err != nil {
		return KingView{}, err
	}
	return KingView{Since: k.Since, Token: v}, nil
}
