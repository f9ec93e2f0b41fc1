package launch

import (
	"context"

	"github.com/ethereum/go-ethereum/common"
	"github.com/holiman/uint256"

	"github.com/curvekit/curvekit/market"
)

// Store reads what the indexer recorded about launches, creator fees and their claims. It returns
// curvekit.ErrNotFound for an unknown token; sums are exact (integers, never floats).
// launchtest.RunStore is the conformance suite every implementation passes.
type Store interface {
	// Token returns a launched token.
	Token(ctx context.Context, addr common.Address) (Token, error)
	// LaunchTxs returns the launch transaction hashes of the tokens creator launched with
	// CreatedAt >= since (Unix seconds), in launch order; none is nil.
	LaunchTxs(ctx context.Context, creator common.Address, since int64) ([]common.Hash, error)
	// CreatorFees returns every token creator launched, oldest first, with the creator fees its
	// trades accrued and the claims that paid them out: what the curve holds now is the
	// difference.
	CreatorFees(ctx context.Context, creator common.Address) ([]TokenFees, error)
	// Earnings sums the creator's fees earned (by trade time) and claimed (by claim time) in
	// [From, To) per UTC day and pairing asset, ordered by day then asset address; days and
	// assets with neither are absent.
	Earnings(ctx context.Context, q EarningsQuery) ([]DayFees, error)
}

// Token is what launch reads about a launched token.
type Token struct {
	Address   common.Address
	Curve     common.Address
	Creator   common.Address
	Quote     market.Asset
	Name      string
	Symbol    string
	URI       string
	CreatedAt int64 // block time, Unix seconds
}

// TokenFees is a token's creator fees: Earned by its trades, Claimed by its creator.
type TokenFees struct {
	Token   Token
	Earned  uint256.Int
	Claimed uint256.Int
}

// EarningsQuery selects a creator's fees in [From, To), Unix seconds.
type EarningsQuery struct {
	Creator  common.Address
	From, To int64
}

// DayFees is one UTC day's creator fees in one pairing asset.
type DayFees struct {
	Day     int64 // the day's first second, Unix
	Quote   market.Asset
	Earned  uint256.Int
	Claimed uint256.Int
}
