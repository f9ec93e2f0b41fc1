package curve

import (
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/holiman/uint256"
)

func TestArith(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(5, 6))
	two256 := new(big.Int).Lsh(big.NewInt(1), 256)
	for range 200_000 {
		x, y := randBits(r, r.IntN(257)), randBits(r, r.IntN(257))
		switch r.IntN(8) {
		case 0:
			y.SetUint64(r.Uint64N(1 << uint(1+r.IntN(63))))
		case 1, 2:
			y = randBits(r, 65+r.IntN(64)) // two-word divisors: div128
		case 3:
			// divisors with all-ones words stress Knuth's corrections
			y = uint256.Int{^uint64(0), ^uint64(0) >> uint(r.IntN(64)), 0, 0}
			x = uint256.Int{^uint64(0), r.Uint64(), ^uint64(0), ^uint64(0) >> uint(r.IntN(64))}
		}
		var z uint256.Int
		over := mulOver(&z, &x, &y)
		p := new(big.Int).Mul(x.ToBig(), y.ToBig())
		if over != (p.Cmp(two256) >= 0) || z.ToBig().Cmp(new(big.Int).Mod(p, two256)) != 0 {
			t.Fatalf("mulOver(%s, %s) = %s, %v", x.Dec(), y.Dec(), z.Dec(), over)
		}
		z = x
		over = mul64Over(&z, &z, y[0])
		p = new(big.Int).Mul(x.ToBig(), new(big.Int).SetUint64(y[0]))
		if over != (p.Cmp(two256) >= 0) || z.ToBig().Cmp(new(big.Int).Mod(p, two256)) != 0 {
			t.Fatalf("mul64Over(%s, %d) = %s, %v", x.Dec(), y[0], z.Dec(), over)
		}
		if q, ok := smallQuotient(&x, &y); ok {
			if want := new(big.Int).Quo(x.ToBig(), y.ToBig()); !want.IsUint64() || want.Uint64() != q {
				t.Fatalf("smallQuotient(%s, %s) = %d, want %s", x.Dec(), y.Dec(), q, want)
			}
		}
		if r.IntN(2) == 0 && !y.IsZero() {
			// a nearby dividend, so that quotients are small and the float path runs
			m := uint256.NewInt(r.Uint64N(1 << uint(r.IntN(45))))
			var near uint256.Int
			if _, over := near.MulOverflow(&y, m); !over {
				near.Add(&near, uint256.NewInt(r.Uint64()))
				if q, ok := smallQuotient(&near, &y); ok {
					if want := new(big.Int).Quo(near.ToBig(), y.ToBig()); !want.IsUint64() || want.Uint64() != q {
						t.Fatalf("smallQuotient(%s, %s) = %d, want %s", near.Dec(), y.Dec(), q, want)
					}
				}
			}
		}
		z = x
		div(&z, &z, &y)
		want := new(big.Int)
		if !y.IsZero() {
			want.Quo(x.ToBig(), y.ToBig())
		}
		if z.ToBig().Cmp(want) != 0 {
			t.Fatalf("div(%s, %s) = %s, want %s", x.Dec(), y.Dec(), z.Dec(), want)
		}
	}
}
