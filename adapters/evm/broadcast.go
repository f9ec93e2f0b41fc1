package evm

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"strings"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/curvekit/curvekit"
	"github.com/curvekit/curvekit/wallet"
)

// BroadcastConfig configures a Broadcaster.
type BroadcastConfig struct {
	Client Client
}

// Broadcaster implements wallet.Broadcaster: it reads nonces and fees and sends the custodial
// wallets' signed transactions. It translates the node's refusals into curvekit's sentinels,
// matching on the messages go-ethereum's transaction pool gives (over JSON-RPC only the message
// survives).
type Broadcaster struct {
	client Client
}

var _ wallet.Broadcaster = (*Broadcaster)(nil)

// NewBroadcaster returns a Broadcaster for cfg.
func NewBroadcaster(cfg BroadcastConfig) (*Broadcaster, error) {
	if cfg.Client == nil {
		return nil, errors.New("evm: a client is required")
	}
	return &Broadcaster{client: cfg.Client}, nil
}

// ChainID returns the chain's id.
func (b *Broadcaster) ChainID(ctx context.Context) (uint64, error) {
	id, err := b.client.ChainID(ctx)
	if err != nil {
		return 0, fmt.Errorf("evm: chain id: %w", err)
	}
	if !id.IsUint64() {
		return 0, fmt.Errorf("evm: chain id %s does not fit 64 bits", id)
	}
	return id.Uint64(), nil
}

// PendingNonce returns account's next nonce, pending transactions included.
func (b *Broadcaster) PendingNonce(ctx context.Context, account common.Address) (uint64, error) {
	n, err := b.client.PendingNonceAt(ctx, account)
	if err != nil {
		return 0, fmt.Errorf("evm: pending nonce of %s: %w", account, err)
	}
	return n, nil
}

// SuggestFees prices a transaction from the node's fee market: the tip the node suggests
// (eth_maxPriorityFeePerGas), the next block's base fee from eth_feeHistory (the head's, raised by
// the most one block can add, where the node lacks it), and a fee cap of twice that base fee plus
// the tip, which stays valid through several blocks of rising base fee.
func (b *Broadcaster) SuggestFees(ctx context.Context) (wallet.Fees, error) {
	tip, err := b.client.SuggestGasTipCap(ctx)
	if err != nil {
		return wallet.Fees{}, fmt.Errorf("evm: tip cap: %w", err)
	}
	base, err := b.nextBaseFee(ctx)
	if err != nil {
		return wallet.Fees{}, err
	}
	feeCap := new(big.Int).Add(new(big.Int).Mul(base, big.NewInt(2)), tip)
	return wallet.Fees{MaxFeePerGas: feeCap, MaxPriorityFeePerGas: tip, BaseFee: base}, nil
}

// nextBaseFee is the base fee of the block after the head.
func (b *Broadcaster) nextBaseFee(ctx context.Context) (*big.Int, error) {
	if fh, ok := b.client.(ethereum.FeeHistoryReader); ok {
		// The last base fee of a history is the next block's.
		// Percentiles as an empty list: geth refuses a call without them.
		h, err := fh.FeeHistory(ctx, 1, nil, []float64{})
		if err == nil && len(h.BaseFee) > 0 && h.BaseFee[len(h.BaseFee)-1] != nil {
			return h.BaseFee[len(h.BaseFee)-1], nil
		}
	}
	head, err := b.client.HeaderByNumber(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("evm: head: %w", err)
	}
	if head.BaseFee == nil {
		return new(big.Int), nil
	}
	// A full block raises the base fee by at most an eighth (EIP-1559).
	next := new(big.Int).Mul(head.BaseFee, big.NewInt(9))
	return next.Quo(next.Add(next, big.NewInt(7)), big.NewInt(8)), nil
}

// BlockNumber returns the number of the chain's head.
func (b *Broadcaster) BlockNumber(ctx context.Context) (uint64, error) {
	n, err := b.client.BlockNumber(ctx)
	if err != nil {
		return 0, fmt.Errorf("evm: block number: %w", err)
	}
	return n, nil
}

// nonceReader is what reads an account's nonce at a block; go-ethereum's clients have it.
type nonceReader interface {
	NonceAt(ctx context.Context, account common.Address, block *big.Int) (uint64, error)
}

// Nonce returns the account's nonce at the head; errors.ErrUnsupported when the client cannot
// read it.
func (b *Broadcaster) Nonce(ctx context.Context, account common.Address) (uint64, error) {
	r, ok := b.client.(nonceReader)
	if !ok {
		return 0, fmt.Errorf("evm: nonce of %s: %w", account, errors.ErrUnsupported)
	}
	n, err := r.NonceAt(ctx, account, nil)
	if err != nil {
		return 0, fmt.Errorf("evm: nonce of %s: %w", account, err)
	}
	return n, nil
}

// Receipt returns the receipt of a mined transaction, or curvekit.ErrNotFound.
func (b *Broadcaster) Receipt(ctx context.Context, hash common.Hash) (wallet.Receipt, error) {
	r, err := b.client.TransactionReceipt(ctx, hash)
	err = NotYetIndexed(err)
	if errors.Is(err, ethereum.NotFound) {
		return wallet.Receipt{}, fmt.Errorf("%w: transaction %s is not mined", curvekit.ErrNotFound, hash)
	}
	if err != nil {
		return wallet.Receipt{}, fmt.Errorf("evm: receipt of %s: %w", hash, err)
	}
	out := wallet.Receipt{Status: r.Status, GasUsed: r.GasUsed, GasPrice: r.EffectiveGasPrice}
	if r.BlockNumber != nil {
		out.Block = r.BlockNumber.Uint64()
	}
	if out.GasPrice == nil {
		out.GasPrice = new(big.Int)
	}
	return out, nil
}

// EstimateGas estimates tx sent from from; a call that would revert or that the sender cannot
// pay for is curvekit.ErrInvalid.
func (b *Broadcaster) EstimateGas(ctx context.Context, from common.Address, tx *wallet.Tx) (uint64, error) {
	to := tx.To
	g, err := b.client.EstimateGas(ctx, ethereum.CallMsg{From: from, To: &to, Value: tx.Value.ToBig(), Data: tx.Data})
	if err != nil {
		msg := err.Error()
		if strings.Contains(msg, "revert") || strings.Contains(msg, "insufficient funds") || strings.Contains(msg, "gas required exceeds") {
			return 0, fmt.Errorf("%w: the transaction would fail: %s", curvekit.ErrInvalid, clientSafe(msg))
		}
		return 0, fmt.Errorf("evm: estimate gas: %w", err)
	}
	return g, nil
}

// refusals maps the transaction pool's messages to what the sender can do about them.
var refusals = []struct {
	text string
	err  error
}{
	{"nonce too low", curvekit.ErrConflict},
	{"replacement transaction underpriced", curvekit.ErrConflict},
	{"insufficient funds", curvekit.ErrInvalid},
	{"intrinsic gas too low", curvekit.ErrInvalid},
	{"floor data gas", curvekit.ErrInvalid},
	{"exceeds block gas limit", curvekit.ErrInvalid},
	{"gas limit too high", curvekit.ErrInvalid},
	{"max fee per gas less than block base fee", curvekit.ErrInvalid},
	{"max priority fee per gas higher than max fee per gas", curvekit.ErrInvalid},
	{"transaction underpriced", curvekit.ErrInvalid},
	{"oversized data", curvekit.ErrInvalid},
	{"invalid sender", curvekit.ErrInvalid},
}

// Send broadcasts a signed transaction; the same transaction again is success.
func (b *Broadcaster) Send(ctx context.Context, tx *types.Transaction) error {
	err := b.client.SendTransaction(ctx, tx)
	if err == nil {
		return nil
	}
	msg := err.Error()
	if strings.Contains(msg, "already known") {
		return nil
	}
	for _, r := range refusals {
		if strings.Contains(msg, r.text) {
			return fmt.Errorf("%w: the chain refused the transaction: %s", r.err, clientSafe(msg))
		}
	}
	return fmt.Errorf("evm: send %s: %w", tx.Hash(), err)
}

// clientSafe trims a node's message to one short line.
func clientSafe(msg string) string {
	msg, _, _ = strings.Cut(msg, "\n")
	if len(msg) > 300 {
		msg = msg[:300]
	}
	return msg
}
