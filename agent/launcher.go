package agent

import (
	"context"

	"github.com/ethereum/go-ethereum/common"

	"github.com/curvekit/curvekit/launch"
	"github.com/curvekit/curvekit/txbuild"
)

// Launcher is what the launch and creator-fee tools need: *launch.Service implements it. Errors
// carry curvekit sentinels with client-safe messages (launch.ErrDailyLimit, launch.ErrNotCreator,
// every failing metadata field).
type Launcher interface {
	// UploadMetadata validates and pins a token's metadata document.
	UploadMetadata(ctx context.Context, m launch.Metadata) (launch.Upload, launch.Document, error)
	// ComposeLaunch checks the creator's daily limit and builds the factory's launch call.
	ComposeLaunch(ctx context.Context, p launch.LaunchParams) (txbuild.Plan, error)
	// ComposeClaim builds a creator fee claim, refusing anyone but the creator.
	ComposeClaim(ctx context.Context, p launch.ClaimParams) (launch.Claim, error)
	CreatorFees(ctx context.Context, wallet common.Address) ([]launch.AssetFees, error)
	Earnings(ctx context.Context, p launch.EarningsParams) (launch.Earnings, error)
	DailyLimit(ctx context.Context, wallet common.Address) (launch.DailyLimit, error)
}

var _ Launcher = (*launch.Service)(nil)
