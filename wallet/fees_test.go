package wallet_test

import (
	"errors"
	"math/big"
	"strings"
	"testing"

	"github.com/curvekit/curvekit"
	"github.com/curvekit/curvekit/wallet"
)

func fees(feeCap, tip int64) wallet.Fees {
	return wallet.Fees{MaxFeePerGas: big.NewInt(feeCap), MaxPriorityFeePerGas: big.NewInt(tip)}
}

func TestBump(t *testing.T) {
	const g = 1_000_000_000
	for _, tc := range []struct {
		name             string
		old, suggested   wallet.Fees
		ceiling          int64 // 0: none
		wantCap, wantTip int64
		refused          bool
	}{
		{name: "ten percent when the chain asks less", old: fees(2*g, g), suggested: fees(g, g/2), wantCap: 2.2 * g, wantTip: 1.1 * g},
		{name: "rounded up", old: fees(15, 5), suggested: fees(1, 1), wantCap: 17, wantTip: 6},
		{name: "what the chain asks when it is more", old: fees(g/2, g/2), suggested: fees(3*g, 2*g), wantCap: 3 * g, wantTip: 2 * g},
		{name: "tip and cap each the larger", old: fees(2*g, g/10), suggested: fees(g, g), wantCap: 2.2 * g, wantTip: g},
		{name: "capped at the ceiling", old: fees(2*g, g), suggested: fees(4*g, g), ceiling: 3 * g, wantCap: 3 * g, wantTip: 1.1 * g},
		{name: "ceiling exactly the bump", old: fees(2*g, g), suggested: fees(g, g), ceiling: 2.2 * g, wantCap: 2.2 * g, wantTip: 1.1 * g},
		{name: "refused under the bump", old: fees(2*g, g), suggested: fees(g, g), ceiling: 2.1 * g, refused: true},
		{name: "refused when tip and cap are equal and cannot rise", old: fees(2*g, 2*g), suggested: fees(g, g), ceiling: 2.19 * g, refused: true},
		{name: "tip never above the cap", old: fees(g, g/2), suggested: fees(g, 5*g), ceiling: 2 * g, wantCap: 2 * g, wantTip: 2 * g},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var ceiling *big.Int
			if tc.ceiling != 0 {
				ceiling = big.NewInt(tc.ceiling)
			}
			got, err := wallet.Bump(tc.old, tc.suggested, ceiling)
			if tc.refused {
				if !errors.Is(err, wallet.ErrFeeCeiling) || !errors.Is(err, curvekit.ErrUnavailable) {
					t.Fatalf("Bump = %v, %v; want ErrFeeCeiling", got, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.MaxFeePerGas.Int64() != tc.wantCap || got.MaxPriorityFeePerGas.Int64() != tc.wantTip {
				t.Fatalf("Bump = cap %s tip %s, want %d %d", got.MaxFeePerGas, got.MaxPriorityFeePerGas, tc.wantCap, tc.wantTip)
			}
			// What geth's pool checks: each at least old·110/100.
			for _, f := range []struct{ old, got *big.Int }{{tc.old.MaxFeePerGas, got.MaxFeePerGas}, {tc.old.MaxPriorityFeePerGas, got.MaxPriorityFeePerGas}} {
				min := new(big.Int).Quo(new(big.Int).Mul(f.old, big.NewInt(110)), big.NewInt(100))
				if f.got.Cmp(min) < 0 {
					t.Errorf("%s is less than 110%% of %s", f.got, f.old)
				}
			}
			if ceiling != nil && got.MaxFeePerGas.Cmp(ceiling) > 0 {
				t.Errorf("fee cap %s above the ceiling %s", got.MaxFeePerGas, ceiling)
			}
		})
	}
}

func TestCap(t *testing.T) {
	const g = 1_000_000_000
	s := fees(5*g, g)
	s.BaseFee = big.NewInt(2 * g)
	got, err := wallet.Cap(s, big.NewInt(4*g))
	if err != nil || got.MaxFeePerGas.Int64() != 4*g || got.MaxPriorityFeePerGas.Int64() != g {
		t.Fatalf("Cap under a ceiling above the need: %v, %v", got, err)
	}
	if _, err := wallet.Cap(s, big.NewInt(2.5*g)); !errors.Is(err, wallet.ErrFeeCeiling) {
		t.Fatalf("Cap with the need above the ceiling: %v, want ErrFeeCeiling", err)
	} else if want := "the chain needs 3 gwei per gas now (base fee and tip), above this server's ceiling of 2.5 gwei"; !strings.Contains(err.Error(), want) {
		t.Fatalf("message %q lacks %q", err, want)
	}
	if got, err := wallet.Cap(s, nil); err != nil || got.MaxFeePerGas.Int64() != 5*g {
		t.Fatalf("Cap without a ceiling: %v, %v", got, err)
	}
}
