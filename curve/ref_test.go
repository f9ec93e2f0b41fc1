package curve

import (
	"math/big"

	"github.com/holiman/uint256"
)

// A straightforward math/big transcription of docs/CURVE.md, written independently of the
// uint256 code: every operation is exact and then checked against 2^256 (or 0 for subtraction),
// in the order the spec lists them. Division by zero, a panic on chain, maps to
// ErrInsufficientReserve. Tests compare every uint256 result, error included, against it.

var (
	bigMax    = new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 256), big.NewInt(1))
	bigMax112 = new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 112), big.NewInt(1))
	bigBPS    = big.NewInt(BPS)
	bigE18    = big.NewInt(1e18)
)

type refErr struct{ err error }

// ref wraps big.Int arithmetic that records the first failure and keeps going harmlessly.
type ref struct{ err error }

func (r *ref) fail(err error) {
	if r.err == nil {
		r.err = err
	}
}

func (r *ref) chk(x *big.Int) *big.Int {
	if x.Sign() < 0 || x.Cmp(bigMax) > 0 {
		r.fail(ErrOverflow)
	}
	return x
}

func (r *ref) mul(a, b *big.Int) *big.Int { return r.chk(new(big.Int).Mul(a, b)) }
func (r *ref) add(a, b *big.Int) *big.Int { return r.chk(new(big.Int).Add(a, b)) }
func (r *ref) sub(a, b *big.Int) *big.Int { return r.chk(new(big.Int).Sub(a, b)) }
func (r *ref) div(a, b *big.Int) *big.Int {
	if b.Sign() == 0 {
		r.fail(ErrInsufficientReserve)
		return new(big.Int)
	}
	return new(big.Int).Quo(a, b)
}
func (r *ref) ceilDiv(a, b *big.Int) *big.Int {
	if b.Sign() == 0 {
		r.fail(ErrInsufficientReserve)
		return new(big.Int)
	}
	q, m := new(big.Int).QuoRem(a, b, new(big.Int))
	if m.Sign() != 0 {
		q.Add(q, big.NewInt(1))
	}
	return q
}
func (r *ref) require(ok bool, err error) {
	if !ok {
		r.fail(err)
	}
}

func b(x *uint256.Int) *big.Int { return x.ToBig() }
func bu(x uint16) *big.Int      { return big.NewInt(int64(x)) }

type bigState struct{ vQ, vT, rQ, rT *big.Int }

type refBuyResult struct {
	net, fee, refund, tokensOut, creatorFee, protocolFee *big.Int
	traded, after                                        bigState
	graduates                                            bool
	poolToken, poolQuote, burned                         *big.Int
}

func refBuy(p *Params, s *State, inU *uint256.Int) (res refBuyResult, err error) {
	if s.Graduated {
		return res, ErrGraduated
	}
	if inU.IsZero() {
		return res, ErrZeroAmount
	}
	r := &ref{}
	in := b(inU)
	vQ, vT, rQ, rT, G := b(&s.VirtualQuote), b(&s.VirtualToken), b(&s.RealQuote), b(&s.RealToken), b(&p.GraduationQuote)
	fb := bu(p.FeeBps)
	net := r.div(r.mul(in, bigBPS), new(big.Int).Add(bigBPS, fb))
	fee := r.sub(in, net)
	refund := new(big.Int)
	if r.add(rQ, net).Cmp(G) >= 0 {
		net = r.sub(G, rQ)
		fee = r.ceilDiv(r.mul(net, fb), bigBPS)
		refund = r.sub(r.sub(in, net), fee)
	}
	tokensOut := r.div(r.mul(net, vT), r.add(vQ, net))
	if r.err != nil {
		return res, r.err
	}
	r.require(tokensOut.Sign() > 0, ErrTooSmall)
	if r.err != nil {
		return res, r.err
	}
	r.require(tokensOut.Cmp(rT) <= 0, ErrInsufficientReserve)
	creatorFee := r.div(r.mul(fee, bu(p.CreatorShareBps)), bigBPS)
	protocolFee := r.sub(fee, creatorFee)
	res.traded = bigState{r.add(vQ, net), r.sub(vT, tokensOut), r.add(rQ, net), r.sub(rT, tokensOut)}
	if r.err != nil {
		return res, r.err
	}
	res.after = res.traded
	if res.traded.rQ.Cmp(G) == 0 {
		res.graduates = true
		kept := new(big.Int).Sub(b(&p.TokenSupply), b(&p.RealToken0))
		if kept.Sign() < 0 {
			return res, ErrInvalidParams
		}
		balance := r.add(res.traded.rT, kept)
		if r.err != nil {
			return res, r.err
		}
		res.poolToken, res.burned, res.poolQuote, err = refGraduate(res.traded, balance)
		if err != nil {
			return res, err
		}
		res.after = bigState{res.traded.vQ, res.traded.vT, new(big.Int), new(big.Int)}
	}
	res.net, res.fee, res.refund, res.tokensOut, res.creatorFee, res.protocolFee = net, fee, refund, tokensOut, creatorFee, protocolFee
	return res, nil
}

func refGraduate(s bigState, balance *big.Int) (poolToken, burned, poolQuote *big.Int, err error) {
	r := &ref{}
	poolToken = r.div(r.mul(s.rQ, s.vT), s.vQ)
	if r.err != nil {
		return nil, nil, nil, r.err
	}
	if poolToken.Cmp(balance) > 0 {
		poolToken = new(big.Int).Set(balance)
	}
	burned = new(big.Int).Sub(balance, poolToken)
	poolQuote = s.rQ
	// Uniswap V2 mint: uint112 reserves, sqrt(amount0*amount1) - 1000 > 0.
	if poolQuote.Cmp(bigMax112) > 0 || poolToken.Cmp(bigMax112) > 0 {
		return nil, nil, nil, ErrOverflow
	}
	if new(big.Int).Sqrt(new(big.Int).Mul(poolQuote, poolToken)).Cmp(big.NewInt(1000)) <= 0 {
		return nil, nil, nil, ErrTooSmall
	}
	return poolToken, burned, poolQuote, nil
}

type refSellResult struct {
	gross, fee, out, creatorFee, protocolFee *big.Int
	after                                    bigState
}

func refSell(p *Params, s *State, amountU *uint256.Int) (res refSellResult, err error) {
	if s.Graduated {
		return res, ErrGraduated
	}
	if amountU.IsZero() {
		return res, ErrZeroAmount
	}
	r := &ref{}
	amount := b(amountU)
	vQ, vT, rQ, rT := b(&s.VirtualQuote), b(&s.VirtualToken), b(&s.RealQuote), b(&s.RealToken)
	gross := r.div(r.mul(amount, vQ), r.add(vT, amount))
	fee := r.ceilDiv(r.mul(gross, bu(p.FeeBps)), bigBPS)
	out := r.sub(gross, fee)
	if r.err != nil {
		return res, r.err
	}
	r.require(out.Sign() > 0, ErrTooSmall)
	if r.err != nil {
		return res, r.err
	}
	r.require(gross.Cmp(rQ) <= 0, ErrInsufficientReserve)
	creatorFee := r.div(r.mul(fee, bu(p.CreatorShareBps)), bigBPS)
	protocolFee := r.sub(fee, creatorFee)
	res.after = bigState{r.sub(vQ, gross), r.add(vT, amount), r.sub(rQ, gross), r.add(rT, amount)}
	if r.err != nil {
		return res, r.err
	}
	res.gross, res.fee, res.out, res.creatorFee, res.protocolFee = gross, fee, out, creatorFee, protocolFee
	return res, nil
}

// refAmountOut is getAmountOut plus the pair's checks on the swap it prices (output > 0; the
// caller checks uint112 balances).
func refAmountOut(in, rIn, rOut *big.Int, fee uint16) (*big.Int, error) {
	if fee > MaxFeeBps {
		return nil, ErrInvalidParams
	}
	if in.Sign() == 0 {
		return nil, ErrZeroAmount
	}
	if rIn.Sign() == 0 || rOut.Sign() == 0 {
		return nil, ErrInsufficientReserve
	}
	r := &ref{}
	withFee := r.mul(in, big.NewInt(int64(BPS-int(fee))))
	out := r.div(r.mul(withFee, rOut), r.add(r.mul(rIn, bigBPS), withFee))
	if r.err != nil {
		return nil, r.err
	}
	if out.Sign() == 0 {
		return nil, ErrTooSmall
	}
	return out, nil
}

func refAmountIn(out, rIn, rOut *big.Int, fee uint16) (*big.Int, error) {
	if fee > MaxFeeBps {
		return nil, ErrInvalidParams
	}
	if out.Sign() == 0 {
		return nil, ErrZeroAmount
	}
	if rIn.Sign() == 0 || rOut.Sign() == 0 || out.Cmp(rOut) >= 0 {
		return nil, ErrInsufficientReserve
	}
	r := &ref{}
	in := r.add(r.div(r.mul(r.mul(rIn, out), bigBPS), r.mul(r.sub(rOut, out), big.NewInt(int64(BPS-int(fee))))), big.NewInt(1))
	if r.err != nil {
		return nil, r.err
	}
	return in, nil
}

// refValidate is the spec's list of valid parameters.
func refValidate(p *Params) bool {
	vQ0, vT0, sup, rT0, G := b(&p.VirtualQuote0), b(&p.VirtualToken0), b(&p.TokenSupply), b(&p.RealToken0), b(&p.GraduationQuote)
	for _, x := range []*big.Int{vQ0, vT0, sup, rT0, G} {
		if x.Sign() == 0 {
			return false
		}
	}
	if p.FeeBps == 0 || p.FeeBps > MaxFeeBps || p.CreatorShareBps > BPS {
		return false
	}
	if rT0.Cmp(sup) > 0 || rT0.Cmp(vT0) >= 0 {
		return false
	}
	r := &ref{}
	lack := r.sub(vT0, r.ceilDiv(r.mul(vQ0, vT0), r.add(vQ0, G)))
	return r.err == nil && lack.Cmp(rT0) <= 0
}
