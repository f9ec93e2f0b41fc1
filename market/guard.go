package market

import (
	"context"

	"github.com/ethereum/go-ethereum/common"

	"github.com/curvekit/curvekit/txbuild"
)

// Guard tells what the account owning a wallet would refuse to sign, for a build's issues.
// internal/app implements it over the custodial wallet's guard (the account's settings).
type Guard interface {
	// Refusals returns, for each of txs in order (sent one after another by wallet), the
	// refusal the account's settings would answer its send now, an error carrying its
	// curvekit.Code, or nil. A wallet that no account owns gets no refusals.
	Refusals(ctx context.Context, wallet common.Address, txs []txbuild.Tx) ([]error, error)
}
