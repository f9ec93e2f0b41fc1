package curve

import "github.com/holiman/uint256"

// Sell is the outcome of a curve sell (docs/CURVE.md, "Sell").
type Sell struct {
	TokensIn    uint256.Int // tokens the trader sells
	Gross       uint256.Int // pairing asset taken from the reserves, fee included
	Fee         uint256.Int // CreatorFee + ProtocolFee
	CreatorFee  uint256.Int // accrues to the token's creator
	ProtocolFee uint256.Int // accrues to the protocol
	Out         uint256.Int // pairing asset the trader receives: Gross - Fee
	// ImpactBps is how far the average price (Gross/TokensIn, fee excluded) sits below the spot
	// price before the trade, in bps, rounded down; at most BPS.
	ImpactBps uint64
	After     State // the state the contract stores after the sell
}

// QuoteSell quotes a sell of tokensIn tokens on a curve with parameters p in state s. It fails
// with ErrGraduated, ErrZeroAmount, ErrOverflow, ErrTooSmall (nothing out after the fee) or
// ErrInsufficientReserve exactly where the contract's sell reverts.
func QuoteSell(p *Params, s *State, tokensIn *uint256.Int) (r Sell, err error) {
	if err = quoteSell(&r, p, s, tokensIn); err != nil {
		return Sell{}, err
	}
	return r, nil
}

func quoteSell(r *Sell, p *Params, s *State, amount *uint256.Int) error {
	if s.Graduated {
		return ErrGraduated
	}
	if amount.IsZero() {
		return ErrZeroAmount
	}
	r.TokensIn = *amount
	a := &r.After
	// gross = amount * vQ / (vT + amount)
	var num, t uint256.Int
	if mulOver(&num, amount, &s.VirtualQuote) {
		return ErrOverflow
	}
	if _, over := a.VirtualToken.AddOverflow(&s.VirtualToken, amount); over {
		return ErrOverflow
	}
	div(&r.Gross, &num, &a.VirtualToken) // vT + amount >= amount > 0
	// fee = ceilDiv(gross * feeBps, BPS); out = gross - fee
	if mul64Over(&t, &r.Gross, uint64(p.FeeBps)) {
		return ErrOverflow
	}
	ceilDivBPS(&r.Fee, &t)
	if _, under := r.Out.SubOverflow(&r.Gross, &r.Fee); under {
		return ErrOverflow // only with feeBps > BPS
	}
	if r.Out.IsZero() {
		return ErrTooSmall
	}
	if r.Gross.Gt(&s.RealQuote) {
		return ErrInsufficientReserve
	}
	if err := splitFee(&r.Fee, p.CreatorShareBps, &r.CreatorFee, &r.ProtocolFee); err != nil {
		return err
	}
	// vQ -= gross; vT += amount (above); rQ -= gross; rT += amount
	if _, under := a.VirtualQuote.SubOverflow(&s.VirtualQuote, &r.Gross); under {
		return ErrOverflow
	}
	a.RealQuote.Sub(&s.RealQuote, &r.Gross) // gross <= rQ checked above
	if _, over := a.RealToken.AddOverflow(&s.RealToken, amount); over {
		return ErrOverflow
	}
	// Impact (amount*vQ - gross*vT) * BPS / (amount*vQ), with vQ, vT before the trade.
	// gross*vT <= amount*vQ because gross rounds down, so neither step overflows.
	mulOver(&t, &r.Gross, &s.VirtualToken)
	t.Sub(&num, &t)
	r.ImpactBps = impactBps(&t, &num)
	return nil
}

// QuoteSellExactOut quotes the smallest sell whose QuoteSell yields at least quoteOut of the
// pairing asset: the returned Sell is QuoteSell of that TokensIn. It fails with
// ErrInsufficientReserve when the curve does not hold enough to pay quoteOut, and otherwise as
// QuoteSell.
func QuoteSellExactOut(p *Params, s *State, quoteOut *uint256.Int) (Sell, error) {
	if s.Graduated {
		return Sell{}, ErrGraduated
	}
	if quoteOut.IsZero() {
		return Sell{}, ErrZeroAmount
	}
	if p.FeeBps >= BPS {
		return Sell{}, ErrTooSmall // the fee takes everything
	}
	// out = gross - ceil(gross*f/BPS) = floor(gross*(BPS-f)/BPS), and gross is at most rQ (or
	// the sell reverts) and at most vQ-1 (vQ if vT == 0): refuse what no amount can pay.
	var gross, t, d, amount uint256.Int
	gross = s.VirtualQuote
	if !s.VirtualToken.IsZero() && !gross.IsZero() {
		gross.SubUint64(&gross, 1)
	}
	if gross.Gt(&s.RealQuote) {
		gross = s.RealQuote
	}
	d.SetUint64(BPS - uint64(p.FeeBps))
	if mul64Over(&t, &gross, d[0]) {
		t.MulDivOverflow(&gross, &d, bpsInt)
	} else {
		div64(&t, &t, BPS)
	}
	if t.Lt(quoteOut) {
		return Sell{}, ErrInsufficientReserve
	}
	// out >= Q  <=>  gross >= Q + ceilDiv(Q*f, BPS-f); Q*f overflowing means gross*f would too.
	if mul64Over(&t, quoteOut, uint64(p.FeeBps)) {
		return Sell{}, ErrOverflow
	}
	ceilDiv(&gross, &t, &d)
	gross.Add(&gross, quoteOut) // <= the bound above
	if s.VirtualToken.IsZero() {
		amount.SetOne() // a degenerate curve: any amount is paid all of vQ
	} else {
		// floor(a*vQ/(vT+a)) >= g  <=>  a*(vQ-g) >= g*vT  <=>  a >= ceilDiv(g*vT, vQ-g)
		d.Sub(&s.VirtualQuote, &gross) // > 0: g <= vQ-1
		if mulOver(&t, &gross, &s.VirtualToken) {
			return Sell{}, ErrOverflow // so would a*vQ for any a that pays g
		}
		ceilDiv(&amount, &t, &d)
	}
	return QuoteSell(p, s, &amount)
}
