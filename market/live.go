package market

import (
	"context"

	"github.com/ethereum/go-ethereum/common"
	"github.com/holiman/uint256"

	"github.com/curvekit/curvekit/curve"
	"github.com/curvekit/curvekit/txbuild"
)

// Live reads the chain as it is now, for builds: the indexed state may be a poll interval
// behind, and a trade built on it would carry a stale minimum output. The chain adapter implements
// it; a Service without one builds from the indexed state, without allowance checks or gas
// estimates.
type Live interface {
	CurveState(ctx context.Context, curveAddr common.Address) (curve.State, error)
	PoolReserves(ctx context.Context, pair, quote common.Address) (reserveQuote, reserveToken uint256.Int, err error)
	Allowance(ctx context.Context, asset, owner, spender common.Address) (uint256.Int, error)
	EstimateGas(ctx context.Context, tx *txbuild.Tx) (uint64, error)
	// Balance returns owner's balance of asset, native ETH for the zero address.
	Balance(ctx context.Context, asset, owner common.Address) (uint256.Int, error)
}
