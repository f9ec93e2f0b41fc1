package wallet

import (
	"math/big"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/holiman/uint256"

	"github.com/curvekit/curvekit/push"
)

// TxState is where a sent transaction stands.
type TxState string

// The states of a sent transaction. Pending and replaced are open: the tracker follows them until
// one of the others, which are final.
const (
	// TxPending is sent and not yet mined.
	TxPending TxState = "pending"
	// TxReplaced is sent again with the same nonce and higher fees, and not yet mined.
	TxReplaced TxState = "replaced"
	// TxMined is mined with status 1 under Hash, one of its hashes.
	TxMined TxState = "mined"
	// TxFailed is mined with status 0 (reverted) under Hash: its fee is paid.
	TxFailed TxState = "failed"
	// TxDropped will never be mined: another transaction, none of its hashes, used its nonce.
	TxDropped TxState = "dropped"
)

// Open reports whether the transaction may still be mined.
func (s TxState) Open() bool { return s == TxPending || s == TxReplaced }

// Transaction is a transaction a custodial wallet sent, with every hash it was sent under: a
// replacement keeps the record (same nonce) and adds a hash, so it is never counted twice.
type Transaction struct {
	// ID is random, chosen when the transaction is signed.
	ID       string
	WalletID string
	From     common.Address
	Nonce    uint64
	ChainID  uint64
	To       common.Address
	Value    uint256.Int
	Data     []byte
	Gas      uint64
	// Fees are the caps of Hash, the current send.
	Fees Fees
	// Hash is the latest send, or the one mined once the transaction is mined or failed.
	Hash common.Hash
	// Hashes are every hash it was sent under, oldest first; Hash is among them.
	Hashes []common.Hash
	State  TxState
	// SentAt is when it was first signed; SentBlock the chain's head when Hash was sent.
	SentAt    time.Time
	SentBlock uint64
	// Block, GasUsed and GasPrice (the effective gas price) are set once mined or failed.
	Block    uint64
	GasUsed  uint64
	GasPrice uint256.Int
	// UpdatedAt is when the record last changed.
	UpdatedAt time.Time
	// ClaimedBy holds the transaction until ClaimedUntil: its sender from the moment it is
	// recorded until the node has answered the send, or a replica while it replaces it. The
	// tracker leaves a transaction that another holds alone. Empty when none does.
	ClaimedBy    string
	ClaimedUntil time.Time
}

// FeePaid is gas used times the effective gas price: zero until mined.
func (t *Transaction) FeePaid() uint256.Int {
	var f uint256.Int
	f.Mul(uint256.NewInt(t.GasUsed), &t.GasPrice)
	return f
}

// TransactionQuery asks for a page of a wallet's transactions, newest first.
type TransactionQuery struct {
	WalletID string
	// Cursor is the Next of the previous page; empty for the first.
	Cursor string
	Limit  int
}

// TransactionPage is a page of transactions; Next is empty after the last.
type TransactionPage struct {
	Transactions []Transaction
	Next         string
}

// ClaimTxParams claims an open transaction for replacement.
type ClaimTxParams struct {
	ID string
	// Hash is the send the claimer saw unmined: a claim fails once another replaced it.
	Hash  common.Hash
	Owner string
	// Now and Until bound the claim: another owner may claim once Until has passed.
	Now, Until time.Time
}

// ReleaseTxParams lets go of the claim a sender holds from RecordTransaction on.
type ReleaseTxParams struct {
	ID    string
	Owner string
	// Sent says the node took the send: the record stays, for the tracker to follow. Else the
	// node refused it and the record is deleted, so that its nonce may be used again.
	Sent bool
	At   time.Time
	// Events, with Sent, are recorded (as push.Store.Record records events) in the
	// transaction that lets go of the claim, and only if it does.
	Events []push.Event
}

// ReplaceTxParams records a replacement sent under a claim.
type ReplaceTxParams struct {
	ID        string
	Owner     string
	Hash      common.Hash
	Fees      Fees
	SentBlock uint64
	At        time.Time
}

// SettleTxParams ends an open transaction.
type SettleTxParams struct {
	ID    string
	State TxState
	// Hash, Block, GasUsed and GasPrice are the mined send's, for TxMined and TxFailed.
	Hash     common.Hash
	Block    uint64
	GasUsed  uint64
	GasPrice *big.Int
	At       time.Time
	// Events are recorded (as push.Store.Record records events) in the transaction that
	// settles, and only if it does.
	Events []push.Event
}
