package curve

import (
	"math/bits"

	"github.com/holiman/uint256"
)

// Fast paths for the products and quotients the quotes take. uint256's general routines
// compute a 512-bit product to detect overflow and divide through a normalizing Knuth loop;
// trading amounts rarely exceed 128 bits and half the divisors are small constants, so these
// helpers do the same arithmetic with fewer machine operations. Results are identical; the
// tests compare them with math/big.

// mulOver sets z = x*y mod 2^256 and reports whether the product overflowed 256 bits.
func mulOver(z, x, y *uint256.Int) bool {
	if x[2]|x[3]|y[2]|y[3] == 0 {
		if x[1]|y[1] == 0 {
			hi, lo := bits.Mul64(x[0], y[0])
			z[0], z[1], z[2], z[3] = lo, hi, 0, 0
			return false
		}
		z.Mul(x, y) // at most 256 bits: exact
		return false
	}
	_, over := z.MulOverflow(x, y)
	return over
}

// mul64Over sets z = x*y mod 2^256 and reports whether the product overflowed 256 bits.
func mul64Over(z, x *uint256.Int, y uint64) bool {
	h0, l0 := bits.Mul64(x[0], y)
	h1, l1 := bits.Mul64(x[1], y)
	h2, l2 := bits.Mul64(x[2], y)
	h3, l3 := bits.Mul64(x[3], y)
	var c uint64
	z[0] = l0
	z[1], c = bits.Add64(l1, h0, 0)
	z[2], c = bits.Add64(l2, h1, c)
	z[3], c = bits.Add64(l3, h2, c)
	return h3|c != 0
}

// div64 sets z = floor(x/d) for d != 0.
func div64(z, x *uint256.Int, d uint64) {
	var r uint64
	for i := 3; i >= 0; i-- {
		if r == 0 && x[i] < d {
			r = x[i] // quotient word 0
			z[i] = 0
			continue
		}
		z[i], r = bits.Div64(r, x[i], d)
	}
}

// div sets z = floor(x/y), 0 if y is zero (as uint256's Div).
func div(z, x, y *uint256.Int) {
	switch {
	case y[3]|y[2]|y[1] == 0:
		if y[0] == 0 {
			z.Clear()
			return
		}
		div64(z, x, y[0])
	case x.Lt(y):
		z.Clear()
	case y[3]|y[2] == 0:
		div128(z, x, y)
	default:
		z.Div(x, y)
	}
}

// div128 sets z = floor(x/y) for a two-word divisor (y[1] != 0, y[2] == y[3] == 0): Knuth's
// algorithm D with the divisor normalized to a set top bit, one 3-by-2 step per quotient word.
func div128(z, x, y *uint256.Int) {
	s := uint(bits.LeadingZeros64(y[1]))
	// Go defines a shift by 64 as 0, so s == 0 needs no special case.
	v1, v0 := y[1]<<s|y[0]>>(64-s), y[0]<<s
	u4 := x[3] >> (64 - s)
	u3 := x[3]<<s | x[2]>>(64-s)
	u2 := x[2]<<s | x[1]>>(64-s)
	u1 := x[1]<<s | x[0]>>(64-s)
	u0 := x[0] << s
	// u4 < 2^s <= v1, so each step's top two words are below the divisor.
	var q2, q1, q0 uint64
	q2, u3, u2 = div3by2(u4, u3, u2, v1, v0)
	q1, u2, u1 = div3by2(u3, u2, u1, v1, v0)
	q0, _, _ = div3by2(u2, u1, u0, v1, v0)
	z[0], z[1], z[2], z[3] = q0, q1, q2, 0
}

// div3by2 returns q = floor((n2:n1:n0) / (v1:v0)) and the remainder (r1:r0), for a divisor
// with its top bit set and (n2:n1) < (v1:v0), so that q < 2^64.
func div3by2(n2, n1, n0, v1, v0 uint64) (q, r1, r0 uint64) {
	var rhat uint64
	refine := true
	if n2 == v1 { // the two-word estimate would be 2^64 or more
		q = ^uint64(0)
		var c uint64
		rhat, c = bits.Add64(n1, v1, 0) // (n2:n1) - q*v1
		refine = c == 0
	} else {
		q, rhat = bits.Div64(n2, n1, v1)
	}
	// Knuth's test: while q*v0 > (rhat:n0), q is too large. Afterwards q is at most one
	// too large.
	for refine {
		ph, pl := bits.Mul64(q, v0)
		if ph < rhat || (ph == rhat && pl <= n0) {
			break
		}
		q--
		var c uint64
		rhat, c = bits.Add64(rhat, v1, 0)
		refine = c == 0
	}
	// (n2:n1:n0) - q*(v1:v0); add the divisor back once if that went negative.
	p1h, p1l := bits.Mul64(q, v1)
	p0h, p0l := bits.Mul64(q, v0)
	m1, c := bits.Add64(p1l, p0h, 0)
	m2 := p1h + c
	var borrow uint64
	r0, borrow = bits.Sub64(n0, p0l, 0)
	r1, borrow = bits.Sub64(n1, m1, borrow)
	_, borrow = bits.Sub64(n2, m2, borrow)
	if borrow != 0 {
		q--
		r0, c = bits.Add64(r0, v0, 0)
		r1, _ = bits.Add64(r1, v1, c)
	}
	return q, r1, r0
}

// smallQuotient returns floor(x/y) when it is below 2^40, estimated in floating point and
// corrected exactly; ok is false when the quotient may be larger (or y is zero).
func smallQuotient(x, y *uint256.Int) (q uint64, ok bool) {
	nx, ny := x.BitLen(), y.BitLen()
	switch {
	case ny == 0 || nx-ny > 40:
		return 0, false
	case nx < ny:
		return 0, true
	}
	// Drop the same low bits from both so that y keeps its top 64: x keeps at most 105.
	var xs, ys uint256.Int
	k := uint(max(ny-64, 0))
	xs.Rsh(x, k)
	ys.Rsh(y, k)
	f := (float64(xs[1])*0x1p64 + float64(xs[0])) / float64(ys[0])
	// The estimate is within one of the quotient; step to it exactly.
	q = uint64(f)
	var lo, next uint256.Int
	for mul64Over(&lo, y, q) || lo.Gt(x) {
		q--
	}
	for {
		if _, c := next.AddOverflow(&lo, y); c || next.Gt(x) {
			return q, true
		}
		lo = next
		q++
	}
}
