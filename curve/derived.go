package curve

import (
	"math"

	"github.com/holiman/uint256"
)

// SpotPrice returns the curve's spot price in pairing-asset base units per whole token (1e18
// token base units): vQ * 1e18 / vT. It fails with ErrOverflow if vQ*1e18 overflows and with
// ErrInsufficientReserve if vT is zero.
func (s *State) SpotPrice() (uint256.Int, error) {
	return spotPrice(&s.VirtualQuote, &s.VirtualToken)
}

// MarketCap returns vQ * totalSupply / vT in pairing-asset base units: the spot price times the
// supply, without first rounding the price to whole base units (which would lose most digits for
// a cheap token quoted in a 6-decimal asset). After graduation pass the supply net of the burned
// tokens. It fails with ErrInsufficientReserve if vT is zero and with ErrOverflow if the result
// does not fit in 256 bits.
func (s *State) MarketCap(totalSupply *uint256.Int) (uint256.Int, error) {
	return marketCap(&s.VirtualQuote, totalSupply, &s.VirtualToken)
}

// ProgressBps returns the graduation progress rQ * BPS / graduationQuote in bps, BPS once
// graduated. It fails with ErrInvalidParams for a zero graduationQuote and with ErrOverflow if
// the product or the result (for rQ far above the threshold) overflows.
func (p *Params) ProgressBps(s *State) (uint64, error) {
	if s.Graduated {
		return BPS, nil
	}
	if p.GraduationQuote.IsZero() {
		return 0, ErrInvalidParams
	}
	var t uint256.Int
	if _, over := t.MulOverflow(&s.RealQuote, bpsInt); over {
		return 0, ErrOverflow
	}
	t.Div(&t, &p.GraduationQuote)
	v, over := t.Uint64WithOverflow()
	if over {
		return 0, ErrOverflow
	}
	return v, nil
}

// SpotPrice returns the pool's spot price in pairing-asset base units per whole token:
// ReserveQuote * 1e18 / ReserveToken.
func (p *Pool) SpotPrice() (uint256.Int, error) {
	return spotPrice(&p.ReserveQuote, &p.ReserveToken)
}

// MarketCap returns ReserveQuote * totalSupply / ReserveToken in pairing-asset base units (see
// State.MarketCap).
func (p *Pool) MarketCap(totalSupply *uint256.Int) (uint256.Int, error) {
	return marketCap(&p.ReserveQuote, totalSupply, &p.ReserveToken)
}

func spotPrice(quote, token *uint256.Int) (uint256.Int, error) {
	var z uint256.Int
	if token.IsZero() {
		return z, ErrInsufficientReserve
	}
	if _, over := z.MulOverflow(quote, &tokenUnit); over {
		return uint256.Int{}, ErrOverflow
	}
	z.Div(&z, token)
	return z, nil
}

// marketCap returns quote * supply / token with a 512-bit intermediate.
func marketCap(quote, supply, token *uint256.Int) (uint256.Int, error) {
	var z uint256.Int
	if token.IsZero() {
		return z, ErrInsufficientReserve
	}
	if _, over := z.MulDivOverflow(quote, supply, token); over {
		return uint256.Int{}, ErrOverflow
	}
	return z, nil
}

// impactBps returns floor(diff * BPS / den), saturated at math.MaxUint64, 0 if den is zero.
// The contracts never compute it, so it must not fail: the product may exceed 256 bits.
func impactBps(diff, den *uint256.Int) uint64 {
	if den.IsZero() || diff.IsZero() {
		return 0
	}
	var q uint256.Int
	if mul64Over(&q, diff, BPS) {
		if _, over := q.MulDivOverflow(diff, bpsInt, den); over {
			return math.MaxUint64
		}
	} else if v, ok := smallQuotient(&q, den); ok {
		return v // the usual case: skips a long division
	} else {
		div(&q, &q, den)
	}
	v, over := q.Uint64WithOverflow()
	if over {
		return math.MaxUint64
	}
	return v
}
