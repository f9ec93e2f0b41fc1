package auth

import (
	"context"

	"github.com/ethereum/go-ethereum/common"
)

// WalletCreator creates an account's custodial wallet at its first sign-in (the wallet package
// implements it). It must be idempotent per account: a sign-in that failed after creating the
// wallet calls it again, and must get the same address back.
type WalletCreator interface {
	CreateWallet(ctx context.Context, accountID string) (common.Address, error)
}

// WalletCreatorFunc adapts a function to WalletCreator, e.g. WalletCreatorFunc(wallets.Create).
type WalletCreatorFunc func(ctx context.Context, accountID string) (common.Address, error)

// CreateWallet calls f.
func (f WalletCreatorFunc) CreateWallet(ctx context.Context, accountID string) (common.Address, error) {
	return f(ctx, accountID)
}
