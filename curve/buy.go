package curve

import "github.com/holiman/uint256"

// Buy is the outcome of a curve buy (docs/CURVE.md, "Buy").
type Buy struct {
	In          uint256.Int // gross pairing asset the trader sends, fee included
	Net         uint256.Int // pairing asset added to the reserves (capped on the crossing buy)
	Fee         uint256.Int // CreatorFee + ProtocolFee
	CreatorFee  uint256.Int // accrues to the token's creator
	ProtocolFee uint256.Int // accrues to the protocol
	Refund      uint256.Int // returned on the crossing buy; In == Net + Fee + Refund
	TokensOut   uint256.Int // tokens the trader receives; minTokensOut is checked against it
	// ImpactBps is how far the average price (Net/TokensOut, fee excluded) sits above the spot
	// price before the trade, in bps, rounded down; it saturates at math.MaxUint64.
	ImpactBps uint64
	// Graduates reports that this buy brings the real quote reserve to GraduationQuote.
	Graduates bool
	// Traded is the state right after the trade, before graduation zeroes the real reserves:
	// the reserves the Trade event reports. It equals After unless Graduates.
	Traded State
	// After is the state the contract stores after the buy (and graduation, if any).
	After State
	// Graduation is the pool liquidity when Graduates, computed with the curve's own token
	// balance (Params.CurveTokenBalance); call Graduate with the real balance if someone may
	// have sent the curve tokens outside a trade. Zero unless Graduates.
	Graduation Graduation
}

// QuoteBuy quotes a buy of in (gross pairing-asset amount, fee included) on a curve with
// parameters p in state s. It fails with ErrGraduated, ErrZeroAmount, ErrOverflow, ErrTooSmall
// (no token out) or ErrInsufficientReserve exactly where the contract's buy reverts. On the
// crossing buy the net amount is capped at GraduationQuote - RealQuote, the rest beyond the fee is
// refunded, and the curve graduates; that buy also fails where the graduation would (see
// Params.Graduate). p should pass Validate; other parameters give errors, never a panic.
func QuoteBuy(p *Params, s *State, in *uint256.Int) (b Buy, err error) {
	if err = quoteBuy(&b, p, s, in); err != nil {
		return Buy{}, err
	}
	return b, nil
}

func quoteBuy(b *Buy, p *Params, s *State, in *uint256.Int) error {
	if s.Graduated {
		return ErrGraduated
	}
	if in.IsZero() {
		return ErrZeroAmount
	}
	b.In = *in
	var t uint256.Int
	// net = in * BPS / (BPS + feeBps); fee = in - net
	if mul64Over(&t, in, BPS) {
		return ErrOverflow
	}
	div64(&b.Net, &t, BPS+uint64(p.FeeBps))
	b.Fee.Sub(in, &b.Net) // net <= in
	// The crossing buy is capped at the graduation threshold.
	if _, over := t.AddOverflow(&s.RealQuote, &b.Net); over {
		return ErrOverflow
	}
	if !t.Lt(&p.GraduationQuote) {
		if _, under := b.Net.SubOverflow(&p.GraduationQuote, &s.RealQuote); under {
			return ErrOverflow
		}
		if mul64Over(&t, &b.Net, uint64(p.FeeBps)) {
			return ErrOverflow
		}
		ceilDivBPS(&b.Fee, &t)
		if _, under := b.Refund.SubOverflow(in, &b.Net); under {
			return ErrOverflow
		}
		if _, under := b.Refund.SubOverflow(&b.Refund, &b.Fee); under {
			return ErrOverflow
		}
	}
	// tokensOut = net * vT / (vQ + net)
	var num uint256.Int
	if mulOver(&num, &b.Net, &s.VirtualToken) {
		return ErrOverflow
	}
	a := &b.Traded
	if _, over := a.VirtualQuote.AddOverflow(&s.VirtualQuote, &b.Net); over {
		return ErrOverflow
	}
	if a.VirtualQuote.IsZero() {
		return ErrInsufficientReserve // division by zero
	}
	div(&b.TokensOut, &num, &a.VirtualQuote)
	if b.TokensOut.IsZero() {
		return ErrTooSmall
	}
	if b.TokensOut.Gt(&s.RealToken) {
		return ErrInsufficientReserve
	}
	if err := splitFee(&b.Fee, p.CreatorShareBps, &b.CreatorFee, &b.ProtocolFee); err != nil {
		return err
	}
	// vQ += net (above); vT -= tokensOut; rQ += net; rT -= tokensOut
	if _, under := a.VirtualToken.SubOverflow(&s.VirtualToken, &b.TokensOut); under {
		return ErrOverflow
	}
	if _, over := a.RealQuote.AddOverflow(&s.RealQuote, &b.Net); over {
		return ErrOverflow
	}
	a.RealToken.Sub(&s.RealToken, &b.TokensOut) // tokensOut <= rT checked above
	b.After = *a
	if a.RealQuote.Eq(&p.GraduationQuote) {
		bal, err := p.CurveTokenBalance(a)
		if err != nil {
			return err
		}
		if err := graduate(&b.Graduation, a, &bal); err != nil {
			return err
		}
		b.Graduates = true
		b.After.RealQuote.Clear()
		b.After.RealToken.Clear()
		b.After.Graduated = true
	}
	// Impact (net*vT - tokensOut*vQ) * BPS / (tokensOut*vQ), with vQ, vT before the trade.
	// tokensOut*vQ <= net*vT because tokensOut rounds down, so neither step overflows.
	mulOver(&t, &b.TokensOut, &s.VirtualQuote)
	num.Sub(&num, &t)
	b.ImpactBps = impactBps(&num, &t)
	return nil
}

// QuoteBuyExactOut quotes the smallest buy whose QuoteBuy yields at least tokensOut tokens:
// the returned Buy is QuoteBuy of that In. It fails with ErrInsufficientReserve when the curve
// cannot deliver that many tokens before it graduates, and otherwise as QuoteBuy.
func QuoteBuyExactOut(p *Params, s *State, tokensOut *uint256.Int) (Buy, error) {
	if s.Graduated {
		return Buy{}, ErrGraduated
	}
	if tokensOut.IsZero() {
		return Buy{}, ErrZeroAmount
	}
	// A buy never adds more than left = GraduationQuote - RealQuote to the reserves, and
	// floor(net*vT/(vQ+net)) >= T  <=>  net*(vT-T) >= T*vQ  <=>  net >= ceilDiv(T*vQ, vT-T).
	var left, rest, t, net, in uint256.Int
	if _, under := left.SubOverflow(&p.GraduationQuote, &s.RealQuote); under {
		return Buy{}, ErrInsufficientReserve
	}
	if _, under := rest.SubOverflow(&s.VirtualToken, tokensOut); under {
		return Buy{}, ErrInsufficientReserve
	}
	if s.VirtualQuote.IsZero() {
		// A degenerate curve: any net buys all of vT.
		if left.IsZero() {
			return Buy{}, ErrInsufficientReserve
		}
		net.SetOne()
	} else {
		// Deliverable before graduation iff left*(vT-T) >= T*vQ, i.e. floor(left*(vT-T)/vQ) >= T,
		// decided in 512 bits so that an overflow below cannot hide it.
		var most uint256.Int
		tOver := mulOver(&t, tokensOut, &s.VirtualQuote)
		if mulOver(&most, &left, &rest) {
			if q, over := most.MulDivOverflow(&left, &rest, &s.VirtualQuote); !over && q.Lt(tokensOut) {
				return Buy{}, ErrInsufficientReserve
			}
		} else if tOver || most.Lt(&t) {
			return Buy{}, ErrInsufficientReserve
		}
		if tOver {
			return Buy{}, ErrOverflow // so would net*vT for any net that delivers T
		}
		ceilDiv(&net, &t, &rest) // rest > 0, since left*rest >= T*vQ > 0
	}
	// floor(in*BPS/(BPS+feeBps)) >= net  <=>  in >= ceilDiv(net*(BPS+feeBps), BPS). If in makes
	// the buy cross, the cap leaves net' = GraduationQuote - RealQuote >= net, still enough.
	if mul64Over(&t, &net, BPS+uint64(p.FeeBps)) {
		return Buy{}, ErrOverflow // so would in*BPS
	}
	ceilDivBPS(&in, &t)
	return QuoteBuy(p, s, &in)
}

// splitFee sets creator = fee * shareBps / BPS and protocol = fee - creator.
func splitFee(fee *uint256.Int, shareBps uint16, creator, protocol *uint256.Int) error {
	if mul64Over(creator, fee, uint64(shareBps)) {
		return ErrOverflow
	}
	div64(creator, creator, BPS)
	if _, under := protocol.SubOverflow(fee, creator); under {
		return ErrOverflow // only with creatorShareBps > BPS
	}
	return nil
}
