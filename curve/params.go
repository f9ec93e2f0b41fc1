package curve

import (
	"fmt"

	"github.com/holiman/uint256"
)

const (
	// BPS is the basis-point denominator: 10,000 bps = 100%.
	BPS = 10_000
	// MaxFeeBps is the highest trading fee the curve and the pool factory accept (10%).
	MaxFeeBps = 1_000
	// DefaultFeeBps is the default curve trading fee (1%).
	DefaultFeeBps = 100
	// DefaultCreatorShareBps is the default creator share of each curve fee (50%).
	DefaultCreatorShareBps = 5_000
	// DefaultPoolFeeBps is the default pool fee (0.3%, as Uniswap V2).
	DefaultPoolFeeBps = 30
)

// Params are the constants fixed into a curve at launch (docs/CURVE.md, "Parameters").
type Params struct {
	VirtualQuote0   uint256.Int // initial virtual quote reserve, pairing-asset base units
	VirtualToken0   uint256.Int // initial virtual token reserve, token base units (18 decimals)
	TokenSupply     uint256.Int // tokens minted to the curve at launch
	RealToken0      uint256.Int // tokens for sale; TokenSupply-RealToken0 is kept for the pool
	GraduationQuote uint256.Int // real quote reserve at which the curve graduates
	FeeBps          uint16      // curve trading fee, 1..MaxFeeBps
	CreatorShareBps uint16      // creator's share of each fee, 0..BPS
}

// State is a curve's mutable state (docs/CURVE.md, "State").
type State struct {
	VirtualQuote uint256.Int // vQ
	VirtualToken uint256.Int // vT
	RealQuote    uint256.Int // rQ: pairing asset held for trading, fees excluded
	RealToken    uint256.Int // rT: tokens still for sale
	Graduated    bool
}

var (
	bpsInt    = uint256.NewInt(BPS)
	tokenUnit = *uint256.NewInt(1e18) // one whole token in base units
)

// DefaultParams returns the spec defaults (pump.fun's curve shape, 1e9 supply) with the quote
// amounts - 30 units of virtual quote reserve, 85 units to graduate - scaled to a pairing asset
// with quoteDecimals decimals. It fails with ErrInvalidParams when the scaled values overflow or
// no longer pass Validate (above 48 decimals).
func DefaultParams(quoteDecimals uint8) (Params, error) {
	p := Params{FeeBps: DefaultFeeBps, CreatorShareBps: DefaultCreatorShareBps}
	p.VirtualToken0.Mul(uint256.NewInt(1_073_000_000), &tokenUnit)
	p.RealToken0.Mul(uint256.NewInt(793_100_000), &tokenUnit)
	p.TokenSupply.Mul(uint256.NewInt(1_000_000_000), &tokenUnit)
	unit := uint256.NewInt(1)
	ten := uint256.NewInt(10)
	for range quoteDecimals {
		if _, over := unit.MulOverflow(unit, ten); over {
			return Params{}, fmt.Errorf("%w: %d quote decimals: %w", ErrInvalidParams, quoteDecimals, ErrOverflow)
		}
	}
	if _, over := p.VirtualQuote0.MulOverflow(uint256.NewInt(30), unit); over {
		return Params{}, fmt.Errorf("%w: %d quote decimals: %w", ErrInvalidParams, quoteDecimals, ErrOverflow)
	}
	if _, over := p.GraduationQuote.MulOverflow(uint256.NewInt(85), unit); over {
		return Params{}, fmt.Errorf("%w: %d quote decimals: %w", ErrInvalidParams, quoteDecimals, ErrOverflow)
	}
	if err := p.Validate(); err != nil {
		return Params{}, err
	}
	return p, nil
}

// Validate reports, wrapping ErrInvalidParams, the first rule of docs/CURVE.md ("Valid
// parameters") that p breaks; the factory refuses exactly these parameters. The last rule
// guarantees that the curve can always deliver the tokens it sells before graduation:
//
//	virtualToken0 - ceilDiv(virtualQuote0*virtualToken0, virtualQuote0+graduationQuote) <= realToken0
//
// A product or sum in it that overflows also wraps ErrOverflow.
func (p *Params) Validate() error {
	switch {
	case p.VirtualQuote0.IsZero():
		return fmt.Errorf("%w: virtualQuote0 is zero", ErrInvalidParams)
	case p.VirtualToken0.IsZero():
		return fmt.Errorf("%w: virtualToken0 is zero", ErrInvalidParams)
	case p.TokenSupply.IsZero():
		return fmt.Errorf("%w: tokenSupply is zero", ErrInvalidParams)
	case p.RealToken0.IsZero():
		return fmt.Errorf("%w: realToken0 is zero", ErrInvalidParams)
	case p.GraduationQuote.IsZero():
		return fmt.Errorf("%w: graduationQuote is zero", ErrInvalidParams)
	case p.FeeBps == 0:
		return fmt.Errorf("%w: feeBps is zero", ErrInvalidParams)
	case p.FeeBps > MaxFeeBps:
		return fmt.Errorf("%w: feeBps %d above %d", ErrInvalidParams, p.FeeBps, MaxFeeBps)
	case p.CreatorShareBps > BPS:
		return fmt.Errorf("%w: creatorShareBps %d above %d", ErrInvalidParams, p.CreatorShareBps, BPS)
	case p.RealToken0.Gt(&p.TokenSupply):
		return fmt.Errorf("%w: realToken0 above tokenSupply", ErrInvalidParams)
	case !p.RealToken0.Lt(&p.VirtualToken0):
		return fmt.Errorf("%w: realToken0 not below virtualToken0", ErrInvalidParams)
	}
	var k, d, minVT, lack uint256.Int
	if _, over := k.MulOverflow(&p.VirtualQuote0, &p.VirtualToken0); over {
		return fmt.Errorf("%w: virtualQuote0*virtualToken0: %w", ErrInvalidParams, ErrOverflow)
	}
	if _, over := d.AddOverflow(&p.VirtualQuote0, &p.GraduationQuote); over {
		return fmt.Errorf("%w: virtualQuote0+graduationQuote: %w", ErrInvalidParams, ErrOverflow)
	}
	ceilDiv(&minVT, &k, &d)
	// minVT <= virtualToken0 because virtualQuote0 <= d, so this cannot underflow.
	lack.Sub(&p.VirtualToken0, &minVT)
	if lack.Gt(&p.RealToken0) {
		return fmt.Errorf("%w: the curve cannot deliver the %s tokens it sells before graduation with realToken0 %s",
			ErrInvalidParams, lack.Dec(), p.RealToken0.Dec())
	}
	return nil
}

// Initial returns the state at launch: vQ = virtualQuote0, vT = virtualToken0, rQ = 0,
// rT = realToken0.
func (p *Params) Initial() State {
	return State{VirtualQuote: p.VirtualQuote0, VirtualToken: p.VirtualToken0, RealToken: p.RealToken0}
}

// CurveTokenBalance returns the token balance the curve holds in state s when nobody has sent it
// tokens outside a trade: rT + (tokenSupply - realToken0). QuoteBuy graduates with this balance.
func (p *Params) CurveTokenBalance(s *State) (uint256.Int, error) {
	var kept, bal uint256.Int
	if _, under := kept.SubOverflow(&p.TokenSupply, &p.RealToken0); under {
		return uint256.Int{}, ErrInvalidParams
	}
	if _, over := bal.AddOverflow(&s.RealToken, &kept); over {
		return uint256.Int{}, ErrOverflow
	}
	return bal, nil
}

// ceilDivBPS sets z = ceilDiv(a, BPS).
func ceilDivBPS(z, a *uint256.Int) {
	if a.IsZero() {
		z.Clear()
		return
	}
	var t uint256.Int
	t.SubUint64(a, 1)
	div64(z, &t, BPS)
	z.AddUint64(z, 1)
}

// ceilDiv sets z = ceil(a/b) as the spec writes it so that it cannot overflow:
// a == 0 ? 0 : (a-1)/b + 1. b must not be zero.
func ceilDiv(z, a, b *uint256.Int) *uint256.Int {
	if a.IsZero() {
		return z.Clear()
	}
	var t uint256.Int
	t.SubUint64(a, 1)
	div(z, &t, b)
	return z.AddUint64(z, 1)
}
