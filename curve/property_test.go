package curve

import (
	"errors"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/holiman/uint256"
)

// ---- cross-checks against the math/big reference (ref_test.go) ----

func sameErr(got, want error) bool {
	if want == nil {
		return got == nil
	}
	return errors.Is(got, want)
}

func eqBig(t testing.TB, what string, got *uint256.Int, want *big.Int) {
	t.Helper()
	if got.ToBig().Cmp(want) != 0 {
		t.Fatalf("%s = %s, reference %s", what, got.Dec(), want)
	}
}

func eqState(t testing.TB, what string, got *State, want bigState) {
	t.Helper()
	eqBig(t, what+".VirtualQuote", &got.VirtualQuote, want.vQ)
	eqBig(t, what+".VirtualToken", &got.VirtualToken, want.vT)
	eqBig(t, what+".RealQuote", &got.RealQuote, want.rQ)
	eqBig(t, what+".RealToken", &got.RealToken, want.rT)
}

// checkBuyRef runs QuoteBuy and the reference and fails unless they agree on the error and
// every amount.
func checkBuyRef(t testing.TB, p *Params, s *State, in *uint256.Int) (Buy, error) {
	t.Helper()
	got, err := QuoteBuy(p, s, in)
	want, werr := refBuy(p, s, in)
	if !sameErr(err, werr) {
		t.Fatalf("QuoteBuy(%+v, %+v, %s) error %v, reference %v", p, s, in.Dec(), err, werr)
	}
	if err != nil {
		if got != (Buy{}) {
			t.Fatalf("QuoteBuy returned a non-zero Buy with error %v", err)
		}
		return got, err
	}
	if got.In != *in {
		t.Fatalf("In = %s, want %s", got.In.Dec(), in.Dec())
	}
	eqBig(t, "Net", &got.Net, want.net)
	eqBig(t, "Fee", &got.Fee, want.fee)
	eqBig(t, "Refund", &got.Refund, want.refund)
	eqBig(t, "TokensOut", &got.TokensOut, want.tokensOut)
	eqBig(t, "CreatorFee", &got.CreatorFee, want.creatorFee)
	eqBig(t, "ProtocolFee", &got.ProtocolFee, want.protocolFee)
	eqState(t, "Traded", &got.Traded, want.traded)
	eqState(t, "After", &got.After, want.after)
	if got.Graduates != want.graduates || got.After.Graduated != want.graduates || got.Traded.Graduated {
		t.Fatalf("Graduates = %v (After.Graduated %v), reference %v", got.Graduates, got.After.Graduated, want.graduates)
	}
	if want.graduates {
		eqBig(t, "PoolToken", &got.Graduation.PoolToken, want.poolToken)
		eqBig(t, "PoolQuote", &got.Graduation.PoolQuote, want.poolQuote)
		eqBig(t, "Burned", &got.Graduation.Burned, want.burned)
	} else if got.Graduation != (Graduation{}) {
		t.Fatalf("Graduation set without graduating")
	}
	// Impact, exactly, from pre-trade reserves.
	vQ, vT := b(&s.VirtualQuote), b(&s.VirtualToken)
	ov := new(big.Int).Mul(want.tokensOut, vQ)
	imp := new(big.Int).Sub(new(big.Int).Mul(want.net, vT), ov)
	if ov.Sign() == 0 {
		imp.SetInt64(0) // vQ == 0: no spot price to compare with
	} else {
		imp.Mul(imp, bigBPS).Quo(imp, ov)
	}
	if !imp.IsUint64() {
		imp.SetUint64(^uint64(0))
	}
	if got.ImpactBps != imp.Uint64() {
		t.Fatalf("ImpactBps = %d, reference %s", got.ImpactBps, imp)
	}
	return got, nil
}

func checkSellRef(t testing.TB, p *Params, s *State, amount *uint256.Int) (Sell, error) {
	t.Helper()
	got, err := QuoteSell(p, s, amount)
	want, werr := refSell(p, s, amount)
	if !sameErr(err, werr) {
		t.Fatalf("QuoteSell(%+v, %+v, %s) error %v, reference %v", p, s, amount.Dec(), err, werr)
	}
	if err != nil {
		if got != (Sell{}) {
			t.Fatalf("QuoteSell returned a non-zero Sell with error %v", err)
		}
		return got, err
	}
	if got.TokensIn != *amount {
		t.Fatalf("TokensIn = %s, want %s", got.TokensIn.Dec(), amount.Dec())
	}
	eqBig(t, "Gross", &got.Gross, want.gross)
	eqBig(t, "Fee", &got.Fee, want.fee)
	eqBig(t, "Out", &got.Out, want.out)
	eqBig(t, "CreatorFee", &got.CreatorFee, want.creatorFee)
	eqBig(t, "ProtocolFee", &got.ProtocolFee, want.protocolFee)
	eqState(t, "After", &got.After, want.after)
	if got.After.Graduated {
		t.Fatalf("a sell graduated")
	}
	num := new(big.Int).Mul(b(amount), b(&s.VirtualQuote))
	imp := new(big.Int).Sub(num, new(big.Int).Mul(want.gross, b(&s.VirtualToken)))
	if num.Sign() == 0 {
		imp.SetInt64(0)
	} else {
		imp.Mul(imp, bigBPS).Quo(imp, num)
	}
	if got.ImpactBps != imp.Uint64() || got.ImpactBps > BPS {
		t.Fatalf("ImpactBps = %d, reference %s", got.ImpactBps, imp)
	}
	return got, nil
}

// checkPoolRef quotes a pool swap and checks it against the reference formula, the pair's own
// checks (uint112 balances and the K inequality) and AmountIn.
func checkPoolRef(t testing.TB, pool *Pool, in *uint256.Int, buy bool) (Swap, error) {
	t.Helper()
	var got Swap
	var err error
	rIn, rOut := b(&pool.ReserveToken), b(&pool.ReserveQuote)
	if buy {
		rIn, rOut = rOut, rIn
		got, err = pool.QuoteBuy(in)
	} else {
		got, err = pool.QuoteSell(in)
	}
	want, werr := refAmountOut(b(in), rIn, rOut, pool.FeeBps)
	var b0, b1 *big.Int
	if werr == nil {
		b0 = new(big.Int).Add(rIn, b(in))
		b1 = new(big.Int).Sub(rOut, want)
		if b0.Cmp(bigMax112) > 0 || b1.Cmp(bigMax112) > 0 {
			werr = ErrOverflow
		}
	}
	if !sameErr(err, werr) {
		t.Fatalf("pool swap(%+v, %s, buy=%v) error %v, reference %v", pool, in.Dec(), buy, err, werr)
	}
	if err != nil {
		return got, err
	}
	eqBig(t, "Out", &got.Out, want)
	newIn, newOut := &got.After.ReserveToken, &got.After.ReserveQuote
	if buy {
		newIn, newOut = newOut, newIn
	}
	eqBig(t, "After in-reserve", newIn, b0)
	eqBig(t, "After out-reserve", newOut, b1)
	if got.After.FeeBps != pool.FeeBps || got.In != *in {
		t.Fatalf("After.FeeBps or In wrong: %+v", got)
	}
	// The pair's check: (b0*BPS - in*p) * (b1*BPS) >= r0*r1*BPS^2.
	fee := big.NewInt(int64(pool.FeeBps))
	adj0 := new(big.Int).Sub(new(big.Int).Mul(b0, bigBPS), new(big.Int).Mul(b(in), fee))
	adj1 := new(big.Int).Mul(b1, bigBPS)
	k := new(big.Int).Mul(new(big.Int).Mul(rIn, rOut), new(big.Int).Mul(bigBPS, bigBPS))
	if new(big.Int).Mul(adj0, adj1).Cmp(k) < 0 {
		t.Fatalf("swap breaks the pair's K check")
	}
	// Impact, fee excluded.
	num := new(big.Int).Mul(new(big.Int).Mul(b(in), big.NewInt(int64(BPS-int(pool.FeeBps)))), rOut)
	ob := new(big.Int).Mul(new(big.Int).Mul(want, rIn), bigBPS)
	imp := new(big.Int).Sub(num, ob)
	if buy {
		imp.Mul(imp, bigBPS).Quo(imp, ob)
	} else {
		imp.Mul(imp, bigBPS).Quo(imp, num)
	}
	if !imp.IsUint64() {
		imp.SetUint64(^uint64(0))
	}
	if got.ImpactBps != imp.Uint64() {
		t.Fatalf("pool ImpactBps = %d, reference %s", got.ImpactBps, imp)
	}
	// AmountIn for this output is enough, and two less is not.
	ain, err := AmountIn(&got.Out, newIn.Clone().Sub(newIn, in), newOut.Clone().Add(newOut, &got.Out), pool.FeeBps)
	wain, werr := refAmountIn(want, rIn, rOut, pool.FeeBps)
	if !sameErr(err, werr) {
		t.Fatalf("AmountIn error %v, reference %v", err, werr)
	}
	if err == nil {
		eqBig(t, "AmountIn", &ain, wain)
		if o, err := AmountOut(&ain, uint256.MustFromBig(rIn), uint256.MustFromBig(rOut), pool.FeeBps); err != nil || o.Lt(&got.Out) {
			t.Fatalf("AmountOut(AmountIn(out)) = %s, %v; want >= %s", o.Dec(), err, got.Out.Dec())
		}
		if ain.GtUint64(2) {
			less := ain.Clone().SubUint64(&ain, 2)
			if o, err := AmountOut(less, uint256.MustFromBig(rIn), uint256.MustFromBig(rOut), pool.FeeBps); err == nil && !o.Lt(&got.Out) {
				t.Fatalf("AmountIn(out)-2 still yields %s >= %s", o.Dec(), got.Out.Dec())
			}
		}
	}
	return got, nil
}

// ---- random generation ----

func randBits(r *rand.Rand, bits int) uint256.Int {
	var z uint256.Int
	for i := range z {
		z[i] = r.Uint64()
	}
	if bits <= 0 {
		return uint256.Int{}
	}
	if bits < 256 {
		z.Rsh(&z, uint(256-r.IntN(bits)-1)) // between 1 and bits bits
	}
	return z
}

// randBelow returns a uniform-ish value in [0, n).
func randBelow(r *rand.Rand, n *uint256.Int) uint256.Int {
	if n.IsZero() {
		return uint256.Int{}
	}
	z := randBits(r, 256)
	z.Mod(&z, n)
	return z
}

func randRange(r *rand.Rand, lo, hi *uint256.Int) uint256.Int { // [lo, hi]
	var span uint256.Int
	span.Sub(hi, lo)
	span.AddUint64(&span, 1)
	if span.IsZero() { // the full range
		return randBits(r, 256)
	}
	z := randBelow(r, &span)
	return *z.Add(&z, lo)
}

// randParams returns valid parameters: default-shaped ones for a random pairing-asset
// precision, or random magnitudes (up to 2^110 each, so every product the curve takes fits)
// with realToken0 chosen between the "can always deliver" bound and virtualToken0.
func randParams(r *rand.Rand) Params {
	if r.IntN(4) == 0 {
		p, err := DefaultParams(uint8(r.IntN(19)))
		if err != nil {
			panic(err)
		}
		p.FeeBps = uint16(1 + r.IntN(MaxFeeBps))
		p.CreatorShareBps = uint16(r.IntN(BPS + 1))
		return p
	}
	for {
		var p Params
		p.VirtualQuote0 = randBits(r, 1+r.IntN(110))
		p.VirtualToken0 = randBits(r, 2+r.IntN(109))
		p.GraduationQuote = randBits(r, 1+r.IntN(110))
		if p.VirtualQuote0.IsZero() || p.VirtualToken0.LtUint64(2) || p.GraduationQuote.IsZero() {
			continue
		}
		var k, d, minVT, lack, hi uint256.Int
		k.Mul(&p.VirtualQuote0, &p.VirtualToken0)
		d.Add(&p.VirtualQuote0, &p.GraduationQuote)
		ceilDiv(&minVT, &k, &d)
		lack.Sub(&p.VirtualToken0, &minVT)
		if lack.IsZero() {
			lack.SetOne()
		}
		hi.SubUint64(&p.VirtualToken0, 1)
		if r.IntN(3) == 0 {
			p.RealToken0 = lack // the tightest valid choice
		} else {
			p.RealToken0 = randRange(r, &lack, &hi)
		}
		extra := randBits(r, r.IntN(110))
		p.TokenSupply.Add(&p.RealToken0, &extra)
		p.FeeBps = uint16(1 + r.IntN(MaxFeeBps))
		p.CreatorShareBps = uint16(r.IntN(BPS + 1))
		if err := p.Validate(); err != nil {
			panic(err)
		}
		return p
	}
}

// randBuyIn picks a buy amount: tiny, a random share of what is left to graduation, or one
// of the amounts around the exact graduation hit.
func randBuyIn(r *rand.Rand, p *Params, s *State) uint256.Int {
	var left, in uint256.Int
	left.Sub(&p.GraduationQuote, &s.RealQuote)
	// gross for net = left: ceilDiv(left*(BPS+f), BPS)
	var t uint256.Int
	t.Mul(&left, uint256.NewInt(BPS+uint64(p.FeeBps)))
	var hit uint256.Int
	ceilDiv(&hit, &t, bpsInt)
	switch r.IntN(6) {
	case 0:
		in.SetUint64(1 + r.Uint64N(1000))
	case 1:
		in = hit
		if r.IntN(2) == 0 && hit.GtUint64(1) {
			in.SubUint64(&in, 1)
		} else if r.IntN(2) == 0 {
			in.AddUint64(&in, 1+r.Uint64N(3))
		}
	case 2:
		in.Mul(&hit, uint256.NewInt(1+r.Uint64N(3))) // crosses
	default:
		var lim uint256.Int
		lim.Rsh(&hit, uint(r.IntN(12)))
		if lim.IsZero() {
			lim.SetOne()
		}
		in = randRange(r, uint256.NewInt(1), &lim)
	}
	if in.IsZero() {
		in.SetOne()
	}
	return in
}

// ---- properties ----

// graduationRefused reports whether err is a crossing buy's graduation that the pool refuses
// (too little liquidity for Uniswap V2's first mint). Spec-valid parameters with a tiny
// graduationQuote get there: Validate does not rule them out.
func graduationRefused(p *Params, s *State, in *uint256.Int, err error) bool {
	if !errors.Is(err, ErrTooSmall) {
		return false
	}
	var net uint256.Int
	net.Mul(in, bpsInt)
	net.Div(&net, uint256.NewInt(BPS+uint64(p.FeeBps)))
	net.Add(&net, &s.RealQuote)
	return !net.Lt(&p.GraduationQuote)
}

func bigK(s *State) *big.Int { return new(big.Int).Mul(b(&s.VirtualQuote), b(&s.VirtualToken)) }

// checkBuyProps checks the spec invariants of a successful buy from s.
func checkBuyProps(t testing.TB, p *Params, s *State, in *uint256.Int, got *Buy) {
	t.Helper()
	var sum uint256.Int
	sum.Add(&got.Net, &got.Fee)
	sum.Add(&sum, &got.Refund)
	if sum != *in {
		t.Fatalf("net+fee+refund = %s, in %s", sum.Dec(), in.Dec())
	}
	sum.Add(&got.CreatorFee, &got.ProtocolFee)
	if sum != got.Fee {
		t.Fatalf("creator+protocol = %s, fee %s", sum.Dec(), got.Fee.Dec())
	}
	a := &got.Traded
	if bigK(a).Cmp(bigK(s)) < 0 {
		t.Fatalf("buy decreased vQ*vT")
	}
	// spot vQ/vT does not fall: vQ'*vT >= vQ*vT'
	if new(big.Int).Mul(b(&a.VirtualQuote), b(&s.VirtualToken)).Cmp(new(big.Int).Mul(b(&s.VirtualQuote), b(&a.VirtualToken))) < 0 {
		t.Fatalf("buy lowered the price")
	}
	var d0, d1 uint256.Int
	if *d0.Sub(&a.VirtualQuote, &a.RealQuote) != *d1.Sub(&s.VirtualQuote, &s.RealQuote) {
		t.Fatalf("vQ - rQ changed")
	}
	if *d0.Sub(&a.VirtualToken, &a.RealToken) != *d1.Sub(&s.VirtualToken, &s.RealToken) {
		t.Fatalf("vT - rT changed")
	}
	if *d0.Sub(&a.RealQuote, &s.RealQuote) != got.Net || *d1.Sub(&s.RealToken, &a.RealToken) != got.TokensOut {
		t.Fatalf("reserves moved by other than net and tokensOut")
	}
	if got.Graduates != a.RealQuote.Eq(&p.GraduationQuote) || (!got.Refund.IsZero() && !got.Graduates) {
		t.Fatalf("graduation flag %v with rQ %s", got.Graduates, a.RealQuote.Dec())
	}
	if got.Graduates {
		g := &got.Graduation
		bal, _ := p.CurveTokenBalance(a)
		if *d0.Add(&g.PoolToken, &g.Burned) != bal || g.PoolQuote != p.GraduationQuote {
			t.Fatalf("graduation does not conserve the curve's balance: %+v", g)
		}
		g2, err := p.Graduate(a, &bal)
		if err != nil || g2 != *g {
			t.Fatalf("Graduate disagrees with QuoteBuy: %+v %v", g2, err)
		}
		if !got.After.RealQuote.IsZero() || !got.After.RealToken.IsZero() || got.After.VirtualQuote != a.VirtualQuote || got.After.VirtualToken != a.VirtualToken {
			t.Fatalf("After on graduation: %+v", got.After)
		}
	} else if got.After != *a {
		t.Fatalf("After != Traded without graduation")
	}
}

func checkSellProps(t testing.TB, s *State, got *Sell) {
	t.Helper()
	var sum uint256.Int
	if *sum.Add(&got.Out, &got.Fee) != got.Gross {
		t.Fatalf("out+fee != gross")
	}
	if *sum.Add(&got.CreatorFee, &got.ProtocolFee) != got.Fee {
		t.Fatalf("creator+protocol != fee")
	}
	a := &got.After
	if bigK(a).Cmp(bigK(s)) < 0 {
		t.Fatalf("sell decreased vQ*vT")
	}
	if new(big.Int).Mul(b(&a.VirtualQuote), b(&s.VirtualToken)).Cmp(new(big.Int).Mul(b(&s.VirtualQuote), b(&a.VirtualToken))) > 0 {
		t.Fatalf("sell raised the price")
	}
	var d0, d1 uint256.Int
	if *d0.Sub(&a.VirtualQuote, &a.RealQuote) != *d1.Sub(&s.VirtualQuote, &s.RealQuote) ||
		*d0.Sub(&a.VirtualToken, &a.RealToken) != *d1.Sub(&s.VirtualToken, &s.RealToken) {
		t.Fatalf("sell broke vQ - rQ or vT - rT")
	}
	if *d0.Sub(&s.RealQuote, &a.RealQuote) != got.Gross || *d1.Sub(&a.RealToken, &s.RealToken) != got.TokensIn {
		t.Fatalf("reserves moved by other than gross and amount")
	}
}

// bigSearch returns the smallest x in [1, hi] with ok(x), or nil; ok must be monotone.
func bigSearch(hi *big.Int, ok func(*big.Int) bool) *big.Int {
	if !ok(hi) {
		return nil
	}
	lo := big.NewInt(1) // invariant: answer in [lo, hi]
	hi = new(big.Int).Set(hi)
	for lo.Cmp(hi) < 0 {
		mid := new(big.Int).Add(lo, hi)
		mid.Rsh(mid, 1)
		if ok(mid) {
			hi = mid
		} else {
			lo = mid.Add(mid, big.NewInt(1))
		}
	}
	return lo
}

// checkBuyExactOut checks QuoteBuyExactOut(tokens) against a binary search over the spec's
// pure buy formula (cap included, reverts ignored): it must return the smallest input that
// buys at least tokens, refuse with ErrInsufficientReserve when no input does, and otherwise
// fail only as QuoteBuy of that input fails.
func checkBuyExactOut(t testing.TB, p *Params, s *State, tokens *uint256.Int) {
	t.Helper()
	got, err := QuoteBuyExactOut(p, s, tokens)
	vQ, vT, rQ, G := b(&s.VirtualQuote), b(&s.VirtualToken), b(&s.RealQuote), b(&p.GraduationQuote)
	bpsFee := big.NewInt(BPS + int64(p.FeeBps))
	left := new(big.Int).Sub(G, rQ)
	out := func(in *big.Int) *big.Int {
		net := new(big.Int).Quo(new(big.Int).Mul(in, bigBPS), bpsFee)
		if net.Cmp(left) > 0 {
			net = left
		}
		den := new(big.Int).Add(vQ, net)
		if den.Sign() == 0 {
			return den
		}
		return new(big.Int).Quo(new(big.Int).Mul(net, vT), den)
	}
	hi := new(big.Int).Mul(left, bpsFee) // enough to cross
	hi.Add(hi, big.NewInt(BPS))
	hi.Quo(hi, bigBPS)
	var want *big.Int
	if left.Sign() > 0 { // otherwise every buy reverts
		want = bigSearch(hi, func(in *big.Int) bool { return out(in).Cmp(b(tokens)) >= 0 })
	}
	if want == nil {
		if !errors.Is(err, ErrInsufficientReserve) {
			t.Fatalf("QuoteBuyExactOut(%s) = %+v, %v; no input buys that many", tokens.Dec(), got, err)
		}
		return
	}
	wantIn := uint256.MustFromBig(want)
	_, qerr := QuoteBuy(p, s, wantIn)
	if err != nil || qerr != nil {
		if !sameErr(err, qerr) {
			t.Fatalf("QuoteBuyExactOut(%s) error %v, QuoteBuy(%s) error %v", tokens.Dec(), err, want, qerr)
		}
		return
	}
	if got.In != *wantIn || got.TokensOut.Lt(tokens) {
		t.Fatalf("QuoteBuyExactOut(%s) = in %s out %s, want in %s", tokens.Dec(), got.In.Dec(), got.TokensOut.Dec(), want)
	}
	// Directly: one less buys fewer tokens (or fails).
	less := new(uint256.Int).SubUint64(&got.In, 1)
	if fewer, err := QuoteBuy(p, s, less); !less.IsZero() && err == nil && !fewer.TokensOut.Lt(tokens) {
		t.Fatalf("QuoteBuyExactOut(%s) = %s is not minimal", tokens.Dec(), got.In.Dec())
	}
}

// checkSellExactOut checks QuoteSellExactOut(quote) the same way against the spec's pure sell
// formula.
func checkSellExactOut(t testing.TB, p *Params, s *State, quote *uint256.Int) {
	t.Helper()
	got, err := QuoteSellExactOut(p, s, quote)
	vQ, vT := b(&s.VirtualQuote), b(&s.VirtualToken)
	fee := bu(p.FeeBps)
	if p.FeeBps >= BPS {
		if !errors.Is(err, ErrTooSmall) {
			t.Fatalf("QuoteSellExactOut with fee %d: %v", p.FeeBps, err)
		}
		return
	}
	out := func(a *big.Int) *big.Int {
		gross := new(big.Int).Quo(new(big.Int).Mul(a, vQ), new(big.Int).Add(vT, a))
		f := new(big.Int).Mul(gross, fee)
		f.Add(f, big.NewInt(BPS-1)).Quo(f, bigBPS)
		return gross.Sub(gross, f)
	}
	hi := new(big.Int).Lsh(big.NewInt(1), 300)
	want := bigSearch(hi, func(a *big.Int) bool { return out(a).Cmp(b(quote)) >= 0 })
	if want == nil {
		if !errors.Is(err, ErrInsufficientReserve) {
			t.Fatalf("QuoteSellExactOut(%s) = %+v, %v; no amount pays that much", quote.Dec(), got, err)
		}
		return
	}
	wantIn, overflow := uint256.FromBig(want)
	var qerr error
	if overflow {
		qerr = ErrOverflow
	} else {
		_, qerr = QuoteSell(p, s, wantIn)
	}
	if err != nil || qerr != nil {
		// Refused exactly when the smallest sufficient sell reverts (the error may differ:
		// QuoteSellExactOut sees gross > rQ before amount*vQ overflows).
		if err == nil || qerr == nil {
			t.Fatalf("QuoteSellExactOut(%s) error %v, QuoteSell(%s) error %v", quote.Dec(), err, want, qerr)
		}
		return
	}
	if got.TokensIn != *wantIn || got.Out.Lt(quote) {
		t.Fatalf("QuoteSellExactOut(%s) = in %s out %s, want in %s", quote.Dec(), got.TokensIn.Dec(), got.Out.Dec(), want)
	}
	less := new(uint256.Int).SubUint64(&got.TokensIn, 1)
	if fewer, err := QuoteSell(p, s, less); !less.IsZero() && err == nil && !fewer.Out.Lt(quote) {
		t.Fatalf("QuoteSellExactOut(%s) = %s is not minimal", quote.Dec(), got.TokensIn.Dec())
	}
}

// TestCurveProperties trades random valid curves from launch to graduation and checks every
// quote against the reference and the spec's invariants, then trades the pool.
func TestCurveProperties(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(1, 2))
	curves := 400
	if testing.Short() {
		curves = 50
	}
	for range curves {
		p := randParams(r)
		s := p.Initial()
		var held uint256.Int // tokens traders hold
		var gradBuy Buy
		for step := 0; step < 60 && !s.Graduated; step++ {
			if held.IsZero() || r.IntN(3) != 0 {
				in := randBuyIn(r, &p, &s)
				got, err := checkBuyRef(t, &p, &s, &in)
				if err != nil {
					// Valid parameters and a reachable state: only dust fails, or a graduation
					// the pool refuses.
					if !errors.Is(err, ErrTooSmall) {
						t.Fatalf("buy %s on %+v %+v: %v", in.Dec(), p, s, err)
					}
					continue
				}
				checkBuyProps(t, &p, &s, &in, &got)
				// Initial offsets hold on every reachable state.
				var d uint256.Int
				if *d.Sub(&got.Traded.VirtualQuote, &got.Traded.RealQuote) != p.VirtualQuote0 {
					t.Fatalf("vQ - rQ != virtualQuote0")
				}
				// More in, not fewer out.
				var more uint256.Int
				more.AddUint64(&in, 1+r.Uint64N(1<<20))
				if m, err := checkBuyRef(t, &p, &s, &more); err != nil {
					if !graduationRefused(&p, &s, &more, err) {
						t.Fatalf("buying %s fails where %s does not: %v", more.Dec(), in.Dec(), err)
					}
				} else if m.TokensOut.Lt(&got.TokensOut) {
					t.Fatalf("buying %s gives fewer than %s", more.Dec(), in.Dec())
				}
				checkBuyExactOut(t, &p, &s, &got.TokensOut)
				if !got.Graduates {
					// The price rose: the same amount again buys no more.
					if again, err := QuoteBuy(&p, &got.After, &in); err == nil && again.TokensOut.Gt(&got.TokensOut) {
						t.Fatalf("second identical buy got more tokens")
					}
					// Buy then sell back never profits: gross <= net.
					if back, err := checkSellRef(t, &p, &got.After, &got.TokensOut); err == nil {
						if back.Gross.Gt(&got.Net) || !back.Out.Lt(&got.In) {
							t.Fatalf("round trip profits: in %s net %s, back gross %s out %s", got.In.Dec(), got.Net.Dec(), back.Gross.Dec(), back.Out.Dec())
						}
					} else if !errors.Is(err, ErrTooSmall) {
						t.Fatalf("selling back: %v", err)
					}
				} else {
					gradBuy = got
				}
				held.Add(&held, &got.TokensOut)
				s = got.After
			} else {
				amount := randRange(r, uint256.NewInt(1), &held)
				got, err := checkSellRef(t, &p, &s, &amount)
				if err != nil {
					if !errors.Is(err, ErrTooSmall) {
						t.Fatalf("sell %s on %+v %+v: %v", amount.Dec(), p, s, err)
					}
					continue
				}
				checkSellProps(t, &s, &got)
				var more uint256.Int
				more.AddUint64(&amount, 1+r.Uint64N(1<<20))
				if m, err := checkSellRef(t, &p, &s, &more); err == nil && m.Out.Lt(&got.Out) {
					t.Fatalf("selling more gives less")
				}
				checkSellExactOut(t, &p, &s, &got.Out)
				if r.IntN(4) == 0 {
					q := randRange(r, uint256.NewInt(1), &s.RealQuote)
					checkSellExactOut(t, &p, &s, &q)
				}
				held.Sub(&held, &amount)
				s = got.After
			}
			if !s.Graduated && r.IntN(3) == 0 {
				// Random exact-out buy, possibly beyond what the curve can sell.
				var lim uint256.Int
				lim.Add(&s.RealToken, uint256.NewInt(2))
				tok := randRange(r, uint256.NewInt(1), &lim)
				checkBuyExactOut(t, &p, &s, &tok)
			}
		}
		if !s.Graduated {
			continue
		}
		if _, err := QuoteBuy(&p, &s, uint256.NewInt(1)); !errors.Is(err, ErrGraduated) {
			t.Fatalf("buy after graduation: %v", err)
		}
		if bps, _ := p.ProgressBps(&s); bps != BPS {
			t.Fatalf("progress after graduation %d", bps)
		}
		// The pool opens at (or above) the curve's last price.
		g := &gradBuy.Graduation
		if new(big.Int).Mul(b(&g.PoolQuote), b(&gradBuy.Traded.VirtualToken)).Cmp(new(big.Int).Mul(b(&g.PoolToken), b(&gradBuy.Traded.VirtualQuote))) < 0 {
			t.Fatalf("pool opens below the curve's last price")
		}
		fees := []uint16{0, 1, DefaultPoolFeeBps, MaxFeeBps}
		pool := g.Pool(fees[r.IntN(len(fees))])
		poolTokens := held
		for range 20 {
			buy := poolTokens.IsZero() || r.IntN(2) == 0
			var in uint256.Int
			if buy {
				var lim uint256.Int
				lim.Rsh(&pool.ReserveQuote, uint(r.IntN(10)))
				in = randRange(r, uint256.NewInt(1), lim.AddUint64(&lim, 1))
			} else {
				in = randRange(r, uint256.NewInt(1), &poolTokens)
			}
			got, err := checkPoolRef(t, &pool, &in, buy)
			if err != nil {
				if !errors.Is(err, ErrTooSmall) {
					t.Fatalf("pool swap: %v", err)
				}
				continue
			}
			if buy {
				poolTokens.Add(&poolTokens, &got.Out)
				// Exact-out buy of what we just got costs at most one more than we paid
				// (AmountIn rounds up by adding 1, even when the division is exact).
				eo, err := pool.QuoteBuyExactOut(&got.Out)
				if err != nil || eo.In.Gt(new(uint256.Int).AddUint64(&in, 1)) || eo.Out.Lt(&got.Out) {
					t.Fatalf("pool exact-out buy %+v %v", eo, err)
				}
			} else {
				poolTokens.Sub(&poolTokens, &in)
				eo, err := pool.QuoteSellExactOut(&got.Out)
				if err != nil || eo.In.Gt(new(uint256.Int).AddUint64(&in, 1)) || eo.Out.Lt(&got.Out) {
					t.Fatalf("pool exact-out sell %+v %v", eo, err)
				}
			}
			pool = got.After
		}
	}
}

// TestArbitraryStatesMatchReference feeds wild parameters, states and amounts (any bit length,
// inconsistent on purpose) and requires the exact same error or result as the reference.
func TestArbitraryStatesMatchReference(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(3, 4))
	iters := 200_000
	if testing.Short() {
		iters = 20_000
	}
	bits := func() int { return []int{0, 1, 8, 64, 100, 128, 200, 256}[r.IntN(8)] }
	for range iters {
		p := Params{
			VirtualQuote0: randBits(r, bits()), VirtualToken0: randBits(r, bits()), TokenSupply: randBits(r, bits()),
			RealToken0: randBits(r, bits()), GraduationQuote: randBits(r, bits()),
			FeeBps: uint16(r.IntN(MaxFeeBps + 1)), CreatorShareBps: uint16(r.IntN(BPS + 1)),
		}
		if r.IntN(20) == 0 {
			p.FeeBps, p.CreatorShareBps = uint16(r.Uint32()), uint16(r.Uint32())
		}
		if (p.Validate() == nil) != refValidate(&p) {
			t.Fatalf("Validate disagrees with the reference on %+v: %v", p, p.Validate())
		}
		s := State{VirtualQuote: randBits(r, bits()), VirtualToken: randBits(r, bits()), RealQuote: randBits(r, bits()), RealToken: randBits(r, bits()), Graduated: r.IntN(50) == 0}
		if r.IntN(4) == 0 {
			s.RealQuote = p.GraduationQuote
			s.RealQuote.SubUint64(&s.RealQuote, r.Uint64N(3))
		}
		in := randBits(r, bits())
		if got, err := checkBuyRef(t, &p, &s, &in); err == nil {
			checkBuyProps(t, &p, &s, &in, &got)
		}
		if got, err := checkSellRef(t, &p, &s, &in); err == nil {
			checkSellProps(t, &s, &got)
		}
		pool := Pool{ReserveQuote: randBits(r, bits()), ReserveToken: randBits(r, bits()), FeeBps: uint16(r.IntN(MaxFeeBps + 2))}
		_, _ = checkPoolRef(t, &pool, &in, r.IntN(2) == 0)
		if r.IntN(16) == 0 && !s.Graduated && !in.IsZero() {
			checkBuyExactOut(t, &p, &s, &in)
			checkSellExactOut(t, &p, &s, &in)
		}
	}
}
