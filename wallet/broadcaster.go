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
	// SuggestFees prices a transaction sent now from the node's fee market: the next block's
	// base fee, the tip the node suggests, and a fee cap above their sum.
	SuggestFees(ctx context.Context) (Fees, error)
	// BlockNumber returns the number of the chain's head.
	BlockNumber(ctx context.Context) (uint64, error)
	// Nonce returns the account's nonce at the head: the count of its mined transactions.
	// A chain client that cannot tell answers an error wrapping errors.ErrUnsupported.
	Nonce(ctx context.Context, account common.Address) (uint64, error)
	// Receipt returns what the chain recorded of a mined transaction; curvekit.ErrNotFound
	// while it is not mined.
	Receipt(ctx context.Context, hash common.Hash) (Receipt, error)
	// EstimateGas estimates the gas of a call from the wallet. A call that would revert is an
	// error wrapping curvekit.ErrInvalid.
	EstimateGas(ctx context.Context, from common.Address, tx *Tx) (uint64, error)
	// Simulate runs tx from the wallet against the pending state, without sending it: whether
	// it reverts (and why), the gas it used and its logs. A node that cannot run it answers an
	// error.
	Simulate(ctx context.Context, from common.Address, tx *Tx) (Simulation, error)
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
	// BaseFee is the base fee the fees were priced against (the next block's), when known:
	// a transaction needs BaseFee plus its tip per gas to be mined.
	BaseFee *big.Int
}

// Receipt is a mined transaction as the chain recorded it.
type Receipt struct {
	// Status is 1 for success, 0 for a transaction that reverted (its fee paid all the same).
	Status  uint64
	Block   uint64
	GasUsed uint64
	// GasPrice is the effective gas price paid: base fee plus the tip given.
	GasPrice *big.Int
}
