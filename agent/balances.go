package agent

import (
	"context"

	"github.com/ethereum/go-ethereum/common"
	"github.com/holiman/uint256"
)

// Balances reads what a wallet holds, so that a composed trade can say plainly when the wallet
// falls short. Composing never requires the funds: the person confirming may fund the wallet
// first. The chain adapter (evm.Chain) implements it.
type Balances interface {
	// Balance returns owner's balance of asset, native ETH for the zero address.
	Balance(ctx context.Context, asset, owner common.Address) (uint256.Int, error)
}
