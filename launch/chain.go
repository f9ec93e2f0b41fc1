package launch

import (
	"context"

	"github.com/holiman/uint256"

	"github.com/curvekit/curvekit/txbuild"
)

// Chain is what the launch service reads from the chain as it is now. adapters/evm implements it.
type Chain interface {
	// LaunchFee is the factory's launch fee, wei.
	LaunchFee(ctx context.Context) (uint256.Int, error)
	// EstimateGas estimates an unsigned transaction; it fails when the call would fail now.
	EstimateGas(ctx context.Context, tx *txbuild.Tx) (uint64, error)
	// GasPrice is the head's base fee and the tip the node suggests, wei per gas.
	GasPrice(ctx context.Context) (GasPrice, error)
}

// GasPrice is the price of gas now.
type GasPrice struct {
	BaseFee uint256.Int
	Tip     uint256.Int
}
