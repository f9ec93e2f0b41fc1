package txbuild

import (
	"fmt"

	"github.com/ethereum/go-ethereum/common"
	"github.com/holiman/uint256"

	"github.com/curvekit/curvekit"
	"github.com/curvekit/curvekit/curve"
)

// Market is what pricing and building need to know about one token.
type Market struct {
	Token common.Address
	Curve common.Address
	// Quote is the pairing asset: the zero address for native ETH.
	Quote  common.Address
	Params curve.Params
	State  curve.State
	// Pool prices the token once State.Graduated.
	Pool curve.Pool
}

// Venue reports where the token trades now.
func (m *Market) Venue() curvekit.Venue {
	if m.State.Graduated {
		return curvekit.VenuePool
	}
	return curvekit.VenueCurve
}

// Quote prices a hypothetical exact-input trade. Amounts are base units; In is the pairing asset
// for a buy and tokens for a sell, Out the other one.
type Quote struct {
	Side  curvekit.Side
	Venue curvekit.Venue
	In    uint256.Int
	Out   uint256.Int
	// Fee is the trading fee in the pairing asset (the curve's fee with its creator share; on the
	// pool, the part of In the pool keeps on a buy, or of the output value on a sell, rounded
	// down: informational).
	Fee        uint256.Int
	CreatorFee uint256.Int
	// Refund is the pairing asset returned by a curve buy that crosses graduation.
	Refund    uint256.Int
	ImpactBps uint64
	// Graduates reports that this buy graduates the curve.
	Graduates bool
}

// QuoteTrade prices an exact-input trade of amount on the market's current venue. Errors wrap the
// curve package's sentinels (curve.ErrTooSmall, curve.ErrInsufficientReserve, ...).
func QuoteTrade(m *Market, side curvekit.Side, amount *uint256.Int) (Quote, error) {
	q := Quote{Side: side, Venue: m.Venue(), In: *amount}
	switch {
	case side != curvekit.Buy && side != curvekit.Sell:
		return Quote{}, fmt.Errorf("%w: type must be buy or sell", curvekit.ErrInvalid)
	case q.Venue == curvekit.VenueCurve && side == curvekit.Buy:
		r, err := curve.QuoteBuy(&m.Params, &m.State, amount)
		if err != nil {
			return Quote{}, err
		}
		q.Out, q.Fee, q.CreatorFee, q.Refund = r.TokensOut, r.Fee, r.CreatorFee, r.Refund
		q.ImpactBps, q.Graduates = r.ImpactBps, r.Graduates
	case q.Venue == curvekit.VenueCurve:
		r, err := curve.QuoteSell(&m.Params, &m.State, amount)
		if err != nil {
			return Quote{}, err
		}
		q.Out, q.Fee, q.CreatorFee, q.ImpactBps = r.Out, r.Fee, r.CreatorFee, r.ImpactBps
	case side == curvekit.Buy:
		r, err := m.Pool.QuoteBuy(amount)
		if err != nil {
			return Quote{}, err
		}
		q.Out, q.ImpactBps = r.Out, r.ImpactBps
		q.Fee.Mul(amount, uint256.NewInt(uint64(m.Pool.FeeBps)))
		q.Fee.Div(&q.Fee, uint256.NewInt(curve.BPS))
	default:
		r, err := m.Pool.QuoteSell(amount)
		if err != nil {
			return Quote{}, err
		}
		q.Out, q.ImpactBps = r.Out, r.ImpactBps
		// The fee is taken from the tokens in; valued at the output price it is about
		// Out * fee / (BPS - fee).
		q.Fee.Mul(&r.Out, uint256.NewInt(uint64(m.Pool.FeeBps)))
		q.Fee.Div(&q.Fee, uint256.NewInt(uint64(curve.BPS-m.Pool.FeeBps)))
	}
	return q, nil
}

// Trade describes an exact-input trade to build.
type Trade struct {
	Side   curvekit.Side
	Amount uint256.Int
	// SlippageBps is the tolerance applied to the quoted output (DefaultSlippageBps is 1%).
	SlippageBps uint16
	// From is the sending wallet. On the curve the output goes to the sender.
	From common.Address
	// Recipient receives a pool swap's output; required once the token trades on the pool.
	// Defaults to From.
	Recipient common.Address
	// Deadline in Unix seconds; 0 means now plus the configured validity.
	Deadline int64
	// Allowance of the asset spent, already granted to the curve or the router; nil when unknown.
	Allowance *uint256.Int
}

// Trade quotes t on the market's venue and builds it with a minimum output of the quote less
// the slippage tolerance. On the pool it needs a recipient (ErrRecipientRequired).
func (b *Builder) Trade(m *Market, t Trade) (Quote, Plan, error) {
	if t.SlippageBps > MaxSlippageBps {
		return Quote{}, Plan{}, fmt.Errorf("%w: slippage above %d%%", curvekit.ErrInvalid, MaxSlippageBps/100)
	}
	if t.Recipient == (common.Address{}) {
		t.Recipient = t.From
	}
	if m.Venue() == curvekit.VenuePool && t.Recipient == (common.Address{}) {
		return Quote{}, Plan{}, ErrRecipientRequired
	}
	q, err := QuoteTrade(m, t.Side, &t.Amount)
	if err != nil {
		return Quote{}, Plan{}, err
	}
	minOut := MinOut(&q.Out, t.SlippageBps)
	var plan Plan
	switch {
	case m.Venue() == curvekit.VenueCurve && t.Side == curvekit.Buy:
		plan, err = b.CurveBuy(CurveBuy{From: t.From, Curve: m.Curve, Quote: m.Quote, AmountIn: t.Amount, MinTokensOut: minOut, Deadline: t.Deadline, Allowance: t.Allowance})
	case m.Venue() == curvekit.VenueCurve:
		plan, err = b.CurveSell(CurveSell{From: t.From, Curve: m.Curve, Token: m.Token, TokenAmount: t.Amount, MinQuoteOut: minOut, Deadline: t.Deadline, Allowance: t.Allowance})
	default:
		quote := m.Quote
		if quote == (common.Address{}) {
			quote = b.cfg.WETH
		}
		path := []common.Address{quote, m.Token}
		if t.Side == curvekit.Sell {
			path[0], path[1] = m.Token, quote
		}
		plan, err = b.Swap(Swap{From: t.From, Path: path, AmountIn: t.Amount, MinOut: minOut, Recipient: t.Recipient, Deadline: t.Deadline, Allowance: t.Allowance})
	}
	if err != nil {
		return Quote{}, Plan{}, err
	}
	return q, plan, nil
}
