package curve

import (
	"errors"
	"testing"

	"github.com/holiman/uint256"
)

// The fuzzers take amounts as big-endian bytes (the last 32 count), so they reach every
// 256-bit value, and check each quote against the math/big reference and the spec's
// invariants. Each also replays its amounts on a reachable state of a valid curve, where the
// only acceptable failures are dust and graduation edge cases. Seeds, with edge values (0, 1,
// 2^256-1, just below and at graduation), are in testdata/fuzz/<FuzzName>/.

func fromBytes(b []byte) uint256.Int {
	var z uint256.Int
	z.SetBytes(b)
	return z
}

// fuzzCurve returns the default curve with a fuzzed fee and creator share, after a first buy
// of first (skipped if it fails) - a reachable state.
func fuzzCurve(t *testing.T, first *uint256.Int, feeBps, shareBps uint16) (Params, State) {
	p := mustDefault(t)
	p.FeeBps = 1 + feeBps%MaxFeeBps
	p.CreatorShareBps = shareBps % (BPS + 1)
	s := p.Initial()
	if b, err := checkBuyRef(t, &p, &s, first); err == nil {
		checkBuyProps(t, &p, &s, first, &b)
		s = b.After
	}
	return p, s
}

func FuzzQuoteBuy(f *testing.F) {
	f.Fuzz(func(t *testing.T, vQ, vT, rQ, rT, in, grad, supply, real0 []byte, feeBps, shareBps uint16, graduated bool) {
		p := Params{
			VirtualQuote0: fromBytes(vQ), VirtualToken0: fromBytes(vT), TokenSupply: fromBytes(supply),
			RealToken0: fromBytes(real0), GraduationQuote: fromBytes(grad), FeeBps: feeBps, CreatorShareBps: shareBps,
		}
		s := State{VirtualQuote: fromBytes(vQ), VirtualToken: fromBytes(vT), RealQuote: fromBytes(rQ), RealToken: fromBytes(rT), Graduated: graduated}
		amount := fromBytes(in)
		if (p.Validate() == nil) != refValidate(&p) {
			t.Fatalf("Validate disagrees with the reference: %v", p.Validate())
		}
		if b, err := checkBuyRef(t, &p, &s, &amount); err == nil {
			checkBuyProps(t, &p, &s, &amount, &b)
		}
		if !s.Graduated && !amount.IsZero() && p.FeeBps <= BPS {
			checkBuyExactOut(t, &p, &s, &amount)
		}

		// The same amounts on a reachable state of a valid curve.
		first := fromBytes(rQ)
		vp, vs := fuzzCurve(t, &first, feeBps, shareBps)
		b, err := checkBuyRef(t, &vp, &vs, &amount)
		switch {
		case err == nil:
			checkBuyProps(t, &vp, &vs, &amount, &b)
			if !b.Graduates {
				if back, err := checkSellRef(t, &vp, &b.After, &b.TokensOut); err == nil && back.Gross.Gt(&b.Net) {
					t.Fatalf("round trip profits")
				}
			}
		case errors.Is(err, ErrZeroAmount), errors.Is(err, ErrTooSmall), errors.Is(err, ErrGraduated):
		case errors.Is(err, ErrOverflow) && amount.BitLen() > 240: // in*BPS overflows
		default:
			t.Fatalf("buy %s on a valid curve: %v", amount.Dec(), err)
		}
		if !vs.Graduated && !amount.IsZero() {
			checkBuyExactOut(t, &vp, &vs, &amount)
		}
	})
}

func FuzzQuoteSell(f *testing.F) {
	f.Fuzz(func(t *testing.T, vQ, vT, rQ, rT, in []byte, feeBps, shareBps uint16, graduated bool) {
		p := mustDefault(t)
		p.FeeBps, p.CreatorShareBps = feeBps, shareBps
		s := State{VirtualQuote: fromBytes(vQ), VirtualToken: fromBytes(vT), RealQuote: fromBytes(rQ), RealToken: fromBytes(rT), Graduated: graduated}
		amount := fromBytes(in)
		if r, err := checkSellRef(t, &p, &s, &amount); err == nil {
			checkSellProps(t, &s, &r)
		}
		if !s.Graduated && !amount.IsZero() {
			checkSellExactOut(t, &p, &s, &amount)
		}

		// On a reachable state: sell part of what the first buy bought.
		first := fromBytes(rQ)
		vp, vs := fuzzCurve(t, &first, feeBps, shareBps)
		held := vs.VirtualToken
		held.Sub(&vp.VirtualToken0, &held) // tokens bought so far
		if held.IsZero() || vs.Graduated {
			return
		}
		var part uint256.Int
		part.AddUint64(&held, 1)
		part.Mod(&amount, &part)
		r, err := checkSellRef(t, &vp, &vs, &part)
		switch {
		case err == nil:
			checkSellProps(t, &vs, &r)
		case errors.Is(err, ErrZeroAmount), errors.Is(err, ErrTooSmall):
		default:
			t.Fatalf("sell %s of %s on a valid curve: %v", part.Dec(), held.Dec(), err)
		}
		if !amount.IsZero() {
			q := amount
			q.Mod(&q, vs.RealQuote.Clone().AddUint64(&vs.RealQuote, 1))
			if !q.IsZero() {
				checkSellExactOut(t, &vp, &vs, &q)
			}
		}
	})
}

func FuzzPool(f *testing.F) {
	f.Fuzz(func(t *testing.T, rQuote, rToken, in []byte, feeBps uint16, buy bool) {
		pool := Pool{ReserveQuote: fromBytes(rQuote), ReserveToken: fromBytes(rToken), FeeBps: feeBps}
		amount := fromBytes(in)
		if w, err := checkPoolRef(t, &pool, &amount, buy); err == nil {
			// Swapping back returns less than was put in.
			back, err := checkPoolRef(t, &w.After, &w.Out, !buy)
			if err == nil && back.Out.Gt(&amount) {
				t.Fatalf("pool round trip profits: %s -> %s -> %s", amount.Dec(), w.Out.Dec(), back.Out.Dec())
			}
		}
		// Exact-out quotes deliver at least what was asked.
		var eo Swap
		var err error
		if buy {
			eo, err = pool.QuoteBuyExactOut(&amount)
		} else {
			eo, err = pool.QuoteSellExactOut(&amount)
		}
		if err == nil && eo.Out.Lt(&amount) {
			t.Fatalf("exact-out swap delivers %s < %s", eo.Out.Dec(), amount.Dec())
		}
	})
}
