package market

import (
	"github.com/holiman/uint256"

	"github.com/curvekit/curvekit"
	"github.com/curvekit/curvekit/curve"
)

// The derived values below follow docs/CURVE.md ("Derived values"). They live here, on Token, so
// that the store's sort columns, the REST API and the streams all show the same numbers.

// SpotPrice returns the marginal price in pairing-asset base units per whole token (10^Decimals
// token base units): vQ*10^d/vT on the curve, poolReserveQuote*10^d/poolReserveToken once the token
// has graduated. It rounds down, is 0 when the token reserve is 0 or Decimals is above
// curvekit.MaxDecimals, and saturates at 2^256-1 (a display value never fails).
func (t *Token) SpotPrice() uint256.Int {
	if t.Decimals > curvekit.MaxDecimals {
		return uint256.Int{}
	}
	quote, token := &t.State.VirtualQuote, &t.State.VirtualToken
	if t.State.Graduated {
		quote, token = &t.PoolReserveQuote, &t.PoolReserveToken
	}
	return mulDivSat(quote, curvekit.Pow10(t.Decimals), token)
}

// MarketCap returns spot*TotalSupply/10^Decimals in pairing-asset base units, rounded down and
// saturating at 2^256-1 like SpotPrice.
func (t *Token) MarketCap() uint256.Int {
	if t.Decimals > curvekit.MaxDecimals {
		return uint256.Int{}
	}
	spot := t.SpotPrice()
	return mulDivSat(&spot, &t.TotalSupply, curvekit.Pow10(t.Decimals))
}

// Progress returns how far the curve is towards graduation in basis points:
// realQuote*10,000/graduationQuote rounded down, at most 10,000, and 10,000 once graduated.
func (t *Token) Progress() uint16 {
	if t.State.Graduated {
		return curve.BPS
	}
	p := mulDivSat(&t.State.RealQuote, uint256.NewInt(curve.BPS), &t.Params.GraduationQuote)
	if !p.LtUint64(curve.BPS) {
		return curve.BPS
	}
	return uint16(p.Uint64())
}

// mulDivSat returns x*y/d with a 512-bit intermediate, 0 when d is 0, 2^256-1 when the quotient
// does not fit.
func mulDivSat(x, y, d *uint256.Int) uint256.Int {
	var z uint256.Int
	if d.IsZero() {
		return z
	}
	if _, over := z.MulDivOverflow(x, y, d); over {
		z.SetAllOne()
	}
	return z
}
