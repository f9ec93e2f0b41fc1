package launch

import (
	"context"

	"github.com/ethereum/go-ethereum/common"
)

// Tier names a subscription tier (SPEC 8: free and pro differ in daily launches).
type Tier string

const (
	TierFree Tier = "free"
	TierPro  Tier = "pro"
)

// Tiers tells a wallet's subscription tier. Accounts implement it; an unknown wallet is free, not
// an error.
type Tiers interface {
	Tier(ctx context.Context, wallet common.Address) (Tier, error)
}

// StaticTiers is Tiers from a fixed list: the wallets in Pro are pro, every other is free.
type StaticTiers struct {
	Pro map[common.Address]bool
}

var _ Tiers = StaticTiers{}

// Tier implements Tiers.
func (s StaticTiers) Tier(_ context.Context, wallet common.Address) (Tier, error) {
	if s.Pro[wallet] {
		return TierPro, nil
	}
	return TierFree, nil
}

// TiersFunc adapts a function (an accounts service's tier lookup) to Tiers.
type TiersFunc func(ctx context.Context, wallet common.Address) (Tier, error)

// Tier implements Tiers.
func (f TiersFunc) Tier(ctx context.Context, wallet common.Address) (Tier, error) {
	return f(ctx, wallet)
}
