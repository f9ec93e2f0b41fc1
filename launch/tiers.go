package launch

import (
	"github.com/curvekit/curvekit"

	"context"

	"github.com/ethereum/go-ethereum/common"
)

// Tiers tells a wallet's subscription tier. Accounts implement it; an unknown wallet is free, not
// an error.
type Tiers interface {
	Tier(ctx context.Context, wallet common.Address) (curvekit.Tier, error)
}

// StaticTiers is Tiers from a fixed list: the wallets in Pro are pro, every other is free.
type StaticTiers struct {
	Pro map[common.Address]bool
}

var _ Tiers = StaticTiers{}

// Tier implements Tiers.
func (s StaticTiers) Tier(_ context.Context, wallet common.Address) (curvekit.Tier, error) {
	if s.Pro[wallet] {
		return curvekit.TierPro, nil
	}
	return curvekit.TierFree, nil
}

// TiersFunc adapts a function (an accounts service's tier lookup) to Tiers.
type TiersFunc func(ctx context.Context, wallet common.Address) (curvekit.Tier, error)

// Tier implements Tiers.
func (f TiersFunc) Tier(ctx context.Context, wallet common.Address) (curvekit.Tier, error) {
	return f(ctx, wallet)
}
