package market

import (
	"testing"

	"github.com/holiman/uint256"

	"github.com/curvekit/curvekit/curve"
)

func TestDerivedValues(t *testing.T) {
	p, err := curve.DefaultParams(18)
	if err != nil {
		t.Fatal(err)
	}
	dec := func(s string) uint256.Int { return *uint256.MustFromDecimal(s) }
	var max uint256.Int
	max.SetAllOne()
	launched := Token{Decimals: 18, TotalSupply: p.TokenSupply, Params: p, State: p.Initial()}

	half := launched
	half.State.RealQuote = dec("42000000000000000000")

	grad := launched
	grad.State = curve.State{VirtualQuote: p.VirtualQuote0, VirtualToken: p.VirtualToken0, Graduated: true}
	grad.PoolReserveQuote = dec("90000000000000000000")
	grad.PoolReserveToken = dec("200000000000000000000000000")
	grad.TotalSupply = dec("999999000000000000000000000")

	emptyPool := grad
	emptyPool.PoolReserveToken = uint256.Int{}

	huge := launched
	huge.State.VirtualQuote, huge.State.VirtualToken = max, *uint256.NewInt(1)

	over := launched
	over.State.RealQuote = max
	noThreshold := launched
	noThreshold.Params.GraduationQuote = uint256.Int{}

	tests := []struct {
		name           string
		tok            Token
		spot, mcap     uint256.Int
		progress       uint16
		phaseGraduated bool
	}{
		{"launch", launched, dec("27958993476"), dec("27958993476234855545"), 0, false},
		{"curve reserves, not real ones, price it", half, dec("27958993476"), dec("27958993476234855545"), 4941, false},
		{"graduated: the pool prices it", grad, dec("450000000000"), dec("449999550000000000000"), 10_000, true},
		{"empty pool", emptyPool, uint256.Int{}, uint256.Int{}, 10_000, true},
		{"overflow saturates", huge, max, max, 0, false},
		{"progress is capped", over, dec("27958993476"), dec("27958993476234855545"), 10_000, false},
		{"no threshold", noThreshold, dec("27958993476"), dec("27958993476234855545"), 0, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.tok.SpotPrice(); got != tc.spot {
				t.Errorf("SpotPrice = %s, want %s", got.Dec(), tc.spot.Dec())
			}
			if got := tc.tok.MarketCap(); got != tc.mcap {
				t.Errorf("MarketCap = %s, want %s", got.Dec(), tc.mcap.Dec())
			}
			if got := tc.tok.Progress(); got != tc.progress {
				t.Errorf("Progress = %d, want %d", got, tc.progress)
			}
			if got := tc.tok.Phase() == PhaseGraduated; got != tc.phaseGraduated {
				t.Errorf("graduated = %v, want %v", got, tc.phaseGraduated)
			}
		})
	}
}
