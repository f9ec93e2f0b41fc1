package curve

import "github.com/holiman/uint256"

// Pool is a graduated token's Uniswap-V2-style pool (docs/CURVE.md, "Pool"): the token against
// the pairing asset (WETH for ETH-paired tokens), with a fee in bps that stays in the pool.
type Pool struct {
	ReserveQuote uint256.Int // pairing-asset reserve
	ReserveToken uint256.Int // token reserve
	FeeBps       uint16      // pool fee, at most MaxFeeBps (DefaultPoolFeeBps = 30)
}

// Swap is the outcome of a pool swap through the router's exact-input swaps.
type Swap struct {
	In  uint256.Int // amount the trader sends (pairing asset for a buy, tokens for a sell)
	Out uint256.Int // amount the trader receives; amountOutMin is checked against it
	// ImpactBps is how far the average price, fee excluded, sits from the spot price before the
	// swap, in bps, rounded down (buys: above spot, saturating at math.MaxUint64; sells: below,
	// at most BPS).
	ImpactBps uint64
	After     Pool // the pool after the swap
}

// AmountOut is Uniswap V2's getAmountOut with a fee in bps:
//
//	in * (BPS - feeBps) * reserveOut / (reserveIn * BPS + in * (BPS - feeBps))
//
// It fails with ErrZeroAmount, ErrInsufficientReserve (an empty reserve), ErrOverflow,
// ErrTooSmall (zero out: the pair's swap would revert) or ErrInvalidParams (feeBps above
// MaxFeeBps).
func AmountOut(in, reserveIn, reserveOut *uint256.Int, feeBps uint16) (uint256.Int, error) {
	var out, num uint256.Int
	if err := amountOut(&out, &num, in, reserveIn, reserveOut, feeBps); err != nil {
		return uint256.Int{}, err
	}
	return out, nil
}

// amountOut sets out and num, the numerator in*(BPS-feeBps)*reserveOut.
func amountOut(out, num, in, rIn, rOut *uint256.Int, feeBps uint16) error {
	if feeBps > MaxFeeBps {
		return ErrInvalidParams
	}
	if in.IsZero() {
		return ErrZeroAmount
	}
	if rIn.IsZero() || rOut.IsZero() {
		return ErrInsufficientReserve
	}
	var withFee, den uint256.Int
	if mul64Over(&withFee, in, BPS-uint64(feeBps)) {
		return ErrOverflow
	}
	if mulOver(num, &withFee, rOut) {
		return ErrOverflow
	}
	if mul64Over(&den, rIn, BPS) {
		return ErrOverflow
	}
	if _, over := den.AddOverflow(&den, &withFee); over {
		return ErrOverflow
	}
	div(out, num, &den) // < rOut, since den > in*(BPS-feeBps)
	if out.IsZero() {
		return ErrTooSmall
	}
	return nil
}

// AmountIn is Uniswap V2's getAmountIn with a fee in bps, the input for an exact output:
//
//	reserveIn * out * BPS / ((reserveOut - out) * (BPS - feeBps)) + 1
//
// AmountOut(AmountIn(out)) >= out. The result is the smallest such input, or one more when the
// division is exact. It fails with ErrZeroAmount, ErrInsufficientReserve (an empty reserve or
// out >= reserveOut), ErrOverflow or ErrInvalidParams.
func AmountIn(out, reserveIn, reserveOut *uint256.Int, feeBps uint16) (uint256.Int, error) {
	if feeBps > MaxFeeBps {
		return uint256.Int{}, ErrInvalidParams
	}
	if out.IsZero() {
		return uint256.Int{}, ErrZeroAmount
	}
	if reserveIn.IsZero() || reserveOut.IsZero() || !out.Lt(reserveOut) {
		return uint256.Int{}, ErrInsufficientReserve
	}
	var num, den uint256.Int
	if _, over := num.MulOverflow(reserveIn, out); over {
		return uint256.Int{}, ErrOverflow
	}
	if _, over := num.MulOverflow(&num, bpsInt); over {
		return uint256.Int{}, ErrOverflow
	}
	den.Sub(reserveOut, out)
	var f uint256.Int
	f.SetUint64(BPS - uint64(feeBps))
	if _, over := den.MulOverflow(&den, &f); over {
		return uint256.Int{}, ErrOverflow
	}
	num.Div(&num, &den)
	f.SetOne()
	if _, over := num.AddOverflow(&num, &f); over {
		return uint256.Int{}, ErrOverflow
	}
	return num, nil
}

// QuoteBuy quotes buying tokens with quoteIn of the pairing asset (an exact-input router swap).
// Besides AmountOut's errors it fails with ErrOverflow when a reserve would exceed 2^112-1,
// which the pair refuses.
func (p *Pool) QuoteBuy(quoteIn *uint256.Int) (w Swap, err error) {
	if err = p.swap(&w, quoteIn, true); err != nil {
		return Swap{}, err
	}
	return w, nil
}

// QuoteSell quotes selling tokensIn tokens for the pairing asset (an exact-input router swap).
// Errors as QuoteBuy.
func (p *Pool) QuoteSell(tokensIn *uint256.Int) (w Swap, err error) {
	if err = p.swap(&w, tokensIn, false); err != nil {
		return Swap{}, err
	}
	return w, nil
}

// QuoteBuyExactOut quotes the exact-input buy of AmountIn(tokensOut) of the pairing asset, whose
// Out is at least tokensOut.
func (p *Pool) QuoteBuyExactOut(tokensOut *uint256.Int) (Swap, error) {
	in, err := AmountIn(tokensOut, &p.ReserveQuote, &p.ReserveToken, p.FeeBps)
	if err != nil {
		return Swap{}, err
	}
	return p.QuoteBuy(&in)
}

// QuoteSellExactOut quotes the exact-input sell of AmountIn(quoteOut) tokens, whose Out is at
// least quoteOut.
func (p *Pool) QuoteSellExactOut(quoteOut *uint256.Int) (Swap, error) {
	in, err := AmountIn(quoteOut, &p.ReserveToken, &p.ReserveQuote, p.FeeBps)
	if err != nil {
		return Swap{}, err
	}
	return p.QuoteSell(&in)
}

func (p *Pool) swap(w *Swap, in *uint256.Int, buy bool) error {
	rIn, rOut := &p.ReserveToken, &p.ReserveQuote
	newIn, newOut := &w.After.ReserveToken, &w.After.ReserveQuote
	if buy {
		rIn, rOut = rOut, rIn
		newIn, newOut = newOut, newIn
	}
	var num uint256.Int
	if err := amountOut(&w.Out, &num, in, rIn, rOut, p.FeeBps); err != nil {
		return err
	}
	w.In = *in
	w.After.FeeBps = p.FeeBps
	if _, over := newIn.AddOverflow(rIn, in); over || newIn.Gt(maxUint112) {
		return ErrOverflow
	}
	newOut.Sub(rOut, &w.Out)
	if newOut.Gt(maxUint112) {
		return ErrOverflow
	}
	// Impact, fee excluded: the numerator is in*(BPS-fee)*rOut - out*rIn*BPS, which is >= 0
	// because out rounds down. Buys divide by out*rIn*BPS (average price above spot), sells by
	// in*(BPS-fee)*rOut (proceeds below spot).
	var t, diff uint256.Int
	mulOver(&t, &w.Out, rIn)
	mul64Over(&t, &t, BPS)
	diff.Sub(&num, &t)
	if buy {
		w.ImpactBps = impactBps(&diff, &t)
	} else {
		w.ImpactBps = impactBps(&diff, &num)
	}
	return nil
}
