package wallet

import (
	"fmt"
	"math/big"

	"github.com/curvekit/curvekit"
)

// PriceBump is the least rise, in percent, of both the tip and the fee cap that go-ethereum's
// transaction pool (and most others) takes to replace a pending transaction of the same nonce.
const PriceBump = 10

// ErrFeeCeiling refuses to send, or to replace, at fees above the configured ceiling.
var ErrFeeCeiling = fmt.Errorf("%w: fees above the ceiling", curvekit.ErrUnavailable)

// Cap fits suggested fees under ceiling (nil: no ceiling). The fee cap is lowered to the
// ceiling; when what the transaction needs to be mined now, the base fee plus the tip, is above
// the ceiling, nothing is sent and the error (ErrFeeCeiling) says by how much.
func Cap(suggested Fees, ceiling *big.Int) (Fees, error) {
	if ceiling == nil {
		return suggested, nil
	}
	need := new(big.Int).Set(suggested.MaxPriorityFeePerGas)
	if suggested.BaseFee != nil {
		need.Add(need, suggested.BaseFee)
	}
	if need.Cmp(ceiling) > 0 {
		return Fees{}, fmt.Errorf("%w: the chain needs %s gwei per gas now (base fee and tip), above this server's ceiling of %s gwei; retry when fees fall",
			ErrFeeCeiling, gwei(need), gwei(ceiling))
	}
	out := Fees{MaxFeePerGas: new(big.Int).Set(suggested.MaxFeePerGas), MaxPriorityFeePerGas: new(big.Int).Set(suggested.MaxPriorityFeePerGas), BaseFee: suggested.BaseFee}
	if out.MaxFeePerGas.Cmp(ceiling) > 0 {
		out.MaxFeePerGas.Set(ceiling)
	}
	return out, nil
}

// Bump prices the replacement of a transaction sent with old: the tip and the fee cap each rise
// by at least PriceBump percent (rounded up) and to at least what the chain suggests now, the
// fee cap at most to ceiling (nil: none). When the ceiling leaves less than the bump, nothing can
// replace it: ErrFeeCeiling.
func Bump(old, suggested Fees, ceiling *big.Int) (Fees, error) {
	minTip, minCap := bumped(old.MaxPriorityFeePerGas), bumped(old.MaxFeePerGas)
	tip := maxOf(minTip, suggested.MaxPriorityFeePerGas)
	feeCap := maxOf(minCap, suggested.MaxFeePerGas)
	feeCap = maxOf(feeCap, tip)
	if ceiling != nil && feeCap.Cmp(ceiling) > 0 {
		feeCap = new(big.Int).Set(ceiling)
	}
	if tip.Cmp(feeCap) > 0 {
		tip = new(big.Int).Set(feeCap)
	}
	if feeCap.Cmp(minCap) < 0 || tip.Cmp(minTip) < 0 {
		return Fees{}, fmt.Errorf("%w: a replacement needs a fee cap of %s gwei and a tip of %s gwei, above this server's ceiling of %s gwei",
			ErrFeeCeiling, gwei(minCap), gwei(minTip), gwei(ceiling))
	}
	return Fees{MaxFeePerGas: feeCap, MaxPriorityFeePerGas: tip, BaseFee: suggested.BaseFee}, nil
}

// bumped is v raised by PriceBump percent, rounded up.
func bumped(v *big.Int) *big.Int {
	if v == nil {
		return new(big.Int)
	}
	n := new(big.Int).Mul(v, big.NewInt(100+PriceBump))
	n.Add(n, big.NewInt(99))
	return n.Quo(n, big.NewInt(100))
}

func maxOf(a, b *big.Int) *big.Int {
	if b != nil && b.Cmp(a) > 0 {
		return new(big.Int).Set(b)
	}
	return new(big.Int).Set(a)
}

// gwei formats wei per gas in gwei, exactly.
func gwei(wei *big.Int) string {
	r := new(big.Rat).SetFrac(wei, big.NewInt(1_000_000_000))
	s := r.FloatString(9)
	for s[len(s)-1] == '0' {
		s = s[:len(s)-1]
	}
	if s[len(s)-1] == '.' {
		s = s[:len(s)-1]
	}
	return s
}
