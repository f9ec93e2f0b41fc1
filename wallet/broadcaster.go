package wallet

import (
	"context"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
)

// Broadcaster is the chain as the wallet needs it: identity, nonces, fees, and sending signed
// transactions.
type Broadcaster interface {
	// ChainID returns the chain's id.
	ChainID(ctx context.Context) (uint64, error)
	// PendingNonce returns the account's next nonce, pending transactions included.
	PendingNonce(ctx context.Context, account common.Address) (uint64, error)
	// SuggestFees suggests EIP-1559 fee caps for a transaction sent now.
	SuggestFees(ctx context.Context) (Fees, error)
	// EstimateGas estimates the gas of a call from the wallet. A call that would revert is an
	// error wrapping curvekit.ErrInvalid.
	EstimateGas(ctx context.Context, from common.Address, tx *Tx) (uint64, error)
	// Send broadcasts a signed transaction. The same transaction sent again is success. A
	// nonce the chain has already used is an error wrapping curvekit.ErrConflict; a transaction
	// the chain refuses for a reason the sender can fix (funds, gas, fees) wraps
	// curvekit.ErrInvalid with a client-safe message.
	Send(ctx context.Context, tx *types.Transaction) error
}

// Fees are EIP-1559 fee caps in wei per gas.
type Fees struct {
	MaxFeePerGas         *big.Int
	MaxPriorityFeePerGas *big.Int
}
