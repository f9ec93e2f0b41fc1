package wallet

import (
	"context"
	"crypto/ecdsa"
	"math/big"

	"github.com/ethereum/go-ethereum/core/types"
)

// Signer signs a transaction with an unsealed private key. The Service reaches it only after
// every check has passed; tests wrap it to count what reaches it.
type Signer interface {
	SignTx(ctx context.Context, tx *types.Transaction, key *ecdsa.PrivateKey) (*types.Transaction, error)
}

// ECDSASigner signs with go-ethereum's latest signer for the transaction's chain.
type ECDSASigner struct{}

// SignTx signs tx.
func (ECDSASigner) SignTx(_ context.Context, tx *types.Transaction, key *ecdsa.PrivateKey) (*types.Transaction, error) {
	chain := tx.ChainId()
	if chain == nil {
		chain = new(big.Int)
	}
	return types.SignTx(tx, types.LatestSignerForChainID(chain), key)
}
