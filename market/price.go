package market

import (
	"errors"

	"github.com/holiman/uint256"

	"github.com/curvekit/curvekit/curve"
)

// The derived values below are curve's (docs/CURVE.md, "Derived values") applied to the phase the
// token is in. They live on Token so that the store's sort columns, the REST API and the streams
// all show the same numbers; unlike curve's, they never fail, because a list must still show a
// token whose reserves are empty or absurd.

// SpotPrice returns the marginal price in pairing-asset base units per whole token (1e18 token
// base units): the curve's vQ*1e18/vT, or the pool's reserveQuote*1e18/reserveToken once the
// token has graduated. It is 0 when the token reserve is 0 and 2^256-1 when it overflows.
func (t *Token) SpotPrice() uint256.Int {
	if t.State.Graduated {
		return saturate(t.pool().SpotPrice())
	}
	return saturate(t.State.SpotPrice())
}

// MarketCap returns the spot price times TotalSupply in pairing-asset base units, computed from
// the reserves without rounding the price first (vQ*supply/vT, or the pool's reserves); 0 and
// 2^256-1 in the same cases as SpotPrice.
func (t *Token) MarketCap() uint256.Int {
	if t.State.Graduated {
		return saturate(t.pool().MarketCap(&t.TotalSupply))
	}
	return saturate(t.State.MarketCap(&t.TotalSupply))
}

// Progress returns how far the curve is towards graduation in basis points,
// realQuote*10,000/graduationQuote: 10,000 once graduated and at most 10,000 before, 0 when the
// graduation threshold is 0.
func (t *Token) Progress() uint16 {
	p, err := t.Params.ProgressBps(&t.State)
	switch {
	case errors.Is(err, curve.ErrOverflow), err == nil && p > curve.BPS:
		return curve.BPS
	case err != nil:
		return 0
	}
	return uint16(p)
}

func (t *Token) pool() *curve.Pool {
	return &curve.Pool{ReserveQuote: t.PoolReserveQuote, ReserveToken: t.PoolReserveToken, FeeBps: t.PoolFeeBps}
}

// saturate turns curve's derived-value errors into the display values above: an overflow into
// 2^256-1, any other failure (an empty reserve) into 0.
func saturate(v uint256.Int, err error) uint256.Int {
	switch {
	case err == nil:
		return v
	case errors.Is(err, curve.ErrOverflow):
		var max uint256.Int
		return *max.SetAllOne()
	}
	return uint256.Int{}
}
