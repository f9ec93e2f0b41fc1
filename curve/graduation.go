package curve

import "github.com/holiman/uint256"

// Graduation is the liquidity a graduating curve moves into its pool (docs/CURVE.md,
// "Graduation"). The LP tokens go to the dead address, so the liquidity is locked for good.
type Graduation struct {
	PoolQuote uint256.Int // pairing asset deposited: the real quote reserve
	PoolToken uint256.Int // tokens deposited: min(rQ*vT/vQ, balance), the curve's last price
	Burned    uint256.Int // the rest of the curve's token balance, burned
}

// minLiquidityProduct is the smallest PoolQuote*PoolToken for which a Uniswap V2 pair mints LP
// tokens on its first deposit: floor(sqrt(product)) must exceed MINIMUM_LIQUIDITY (1000).
var minLiquidityProduct = uint256.NewInt(1001 * 1001)

// maxUint112 is the largest reserve a Uniswap V2 pair stores.
var maxUint112 = new(uint256.Int).SubUint64(new(uint256.Int).Lsh(uint256.NewInt(1), 112), 1)

// Graduate computes the graduation of a curve in state s: the state right after the crossing
// buy, with RealQuote == GraduationQuote and the real reserves not yet zeroed (Buy.Traded).
// tokenBalance is the curve's token balance at that moment; without outside transfers it is
// Params.CurveTokenBalance(s). It fails with ErrInvalidState for any other state, and with
// ErrOverflow or ErrTooSmall where the graduation would revert: a checked product overflows, or
// the Uniswap V2 pair refuses the deposit (a reserve above 2^112-1, or too little liquidity to
// mint more than MINIMUM_LIQUIDITY).
func (p *Params) Graduate(s *State, tokenBalance *uint256.Int) (Graduation, error) {
	if s.Graduated || !s.RealQuote.Eq(&p.GraduationQuote) {
		return Graduation{}, ErrInvalidState
	}
	var g Graduation
	if err := graduate(&g, s, tokenBalance); err != nil {
		return Graduation{}, err
	}
	return g, nil
}

func graduate(g *Graduation, s *State, balance *uint256.Int) error {
	// poolToken = min(rQ * vT / vQ, balance); burned = balance - poolToken; poolQuote = rQ
	if mulOver(&g.PoolToken, &s.RealQuote, &s.VirtualToken) {
		return ErrOverflow
	}
	if s.VirtualQuote.IsZero() {
		return ErrInsufficientReserve // division by zero
	}
	div(&g.PoolToken, &g.PoolToken, &s.VirtualQuote)
	if g.PoolToken.Gt(balance) {
		g.PoolToken = *balance
	}
	g.Burned.Sub(balance, &g.PoolToken)
	g.PoolQuote = s.RealQuote
	return checkPoolMint(&g.PoolQuote, &g.PoolToken)
}

// checkPoolMint reports whether a fresh Uniswap V2 pair accepts a first deposit of quote and
// token: both reserves fit in uint112 and floor(sqrt(quote*token)) > MINIMUM_LIQUIDITY.
func checkPoolMint(quote, token *uint256.Int) error {
	if quote.Gt(maxUint112) || token.Gt(maxUint112) {
		return ErrOverflow
	}
	var k uint256.Int
	mulOver(&k, quote, token) // < 2^224
	if k.Lt(minLiquidityProduct) {
		return ErrTooSmall
	}
	return nil
}

// Pool returns the pool the graduation opens, with the given pool fee.
func (g *Graduation) Pool(feeBps uint16) Pool {
	return Pool{ReserveQuote: g.PoolQuote, ReserveToken: g.PoolToken, FeeBps: feeBps}
}
