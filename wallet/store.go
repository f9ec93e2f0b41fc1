package wallet

import (
	"context"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/holiman/uint256"
)

// Store keeps wallets, their nonces, idempotency records and the export audit. Each method is one
// atomic operation, safe under concurrency across processes sharing the database.
type Store interface {
	// CreateWallet stores w unless its account already has a wallet, and returns the account's
	// wallet either way (created reports which): one wallet per account, whoever wins a race.
	CreateWallet(ctx context.Context, w Wallet) (stored Wallet, created bool, err error)
	// Wallet returns the wallet with the id, or curvekit.ErrNotFound.
	Wallet(ctx context.Context, id string) (Wallet, error)
	// WalletByAccount returns the account's wallet, or curvekit.ErrNotFound.
	WalletByAccount(ctx context.Context, accountID string) (Wallet, error)
	// RewrapWallet replaces a wallet's sealed key material when its key version is still
	// p.FromVersion; otherwise it changes nothing and returns curvekit.ErrConflict (another
	// process rewrapped it first). Unknown wallet: curvekit.ErrNotFound.
	RewrapWallet(ctx context.Context, p RewrapParams) error
	// ReserveNonce hands out the wallet's next nonce, never the same one twice while it is
	// reserved: the lowest released nonce at or above p.Pending when there is one, else
	// max(the wallet's next nonce, p.Pending), advancing the next nonce past it. Released
	// nonces below p.Pending are dropped (the chain has used them). Unknown wallet:
	// curvekit.ErrNotFound.
	//
	// With p.Launch set the nonce is a launch's. In the same transaction, serialized with every
	// other reservation of the wallet, the store counts the launches of the day: the indexed
	// ones (p.Launch.Indexed) and those the wallet signed at or after p.Launch.Day whose hash is
	// not among them (in flight, or signed but not yet hashed). When that count reaches
	// p.Launch.Limit it reserves nothing and returns a *LaunchLimitError; otherwise it records
	// a signed launch at the nonce, at p.At.
	//
	// With p.Spend set, in the same transaction, each asset with a daily cap sums the wallet's
	// spends recorded at or after p.Spend.Since and not released, plus this transaction's spends
	// of it (CheckOnly ones included); when a sum passes its cap it reserves nothing and returns
	// a *SpendLimitError. Otherwise it records the spends that are not CheckOnly at the nonce for
	// the transaction p.Spend.TxID, at p.Spend.At. Spends recorded before p.Spend.Since may be
	// forgotten.
	ReserveNonce(ctx context.Context, p ReserveNonceParams) (uint64, error)
	// Spent sums, by asset, the wallet's spends recorded at or after since and not released:
	// what ReserveNonce would count against the daily caps now. It reads; it reserves nothing.
	Spent(ctx context.Context, walletID string, since time.Time) (map[common.Address]uint256.Int, error)
	// RecordLaunchTx stores the hash of the transaction signed for the launch reserved at
	// p.Nonce, so that it counts once when the indexer records it. curvekit.ErrNotFound when no
	// launch is reserved there.
	RecordLaunchTx(ctx context.Context, p LaunchTxParams) error
	// ReleaseNonce gives back a reserved nonce whose transaction the chain did not take, so the
	// next reservation reuses it and no gap stays; a launch reserved at it no longer counts, and
	// the spends recorded at it for a transaction that has no record (never recorded, or deleted
	// as refused) are released, once. A recorded transaction's spends stay until it settles.
	ReleaseNonce(ctx context.Context, walletID string, nonce uint64) error
	// RecordTransaction stores a transaction signed by a wallet before it is broadcast, in state
	// pending with its one hash, claimed by t.ClaimedBy until t.ClaimedUntil. Unknown wallet:
	// curvekit.ErrNotFound.
	RecordTransaction(ctx context.Context, t Transaction) error
	// ReleaseTransaction lets go of a pending transaction's claim when p.Owner still holds it:
	// the claim is cleared when p.Sent, else the record is deleted and its spends released. curvekit.ErrConflict when
	// the claim is no longer p.Owner's (it lapsed and another took the transaction over, or the
	// transaction was settled meanwhile); unknown: curvekit.ErrNotFound.
	ReleaseTransaction(ctx context.Context, p ReleaseTxParams) error
	// Transactions returns a page of a wallet's transactions, newest first (by SentAt, then
	// ID). A cursor the store did not return is curvekit.ErrInvalid.
	Transactions(ctx context.Context, q TransactionQuery) (TransactionPage, error)
	// OpenTransactions returns up to limit transactions of every wallet in an open state
	// (pending, replaced), oldest first.
	OpenTransactions(ctx context.Context, limit int) ([]Transaction, error)
	// ClaimTransaction claims an open transaction for replacement when its current hash is
	// still p.Hash and no other owner holds an unexpired claim (a compare-and-set, so one
	// replica replaces it); else curvekit.ErrConflict. Unknown: curvekit.ErrNotFound.
	ClaimTransaction(ctx context.Context, p ClaimTxParams) error
	// ReplaceTransaction records a replacement sent under p.Owner's claim: p.Hash becomes the
	// current hash, appended to the hashes, with its fees and block; the state is replaced
	// and the claim is let go. curvekit.ErrConflict when the claim is not p.Owner's or the
	// transaction is no longer open.
	ReplaceTransaction(ctx context.Context, p ReplaceTxParams) error
	// SettleTransaction moves an open transaction to a final state (mined and failed with the
	// mined hash, which must be one of its hashes, and its receipt; dropped). Failed and
	// dropped release the transaction's spends, once: nothing left the wallet. curvekit.ErrConflict
	// when it is no longer open; curvekit.ErrInvalid for a hash not its own or a state not final.
	SettleTransaction(ctx context.Context, p SettleTxParams) error
	// ClaimIdempotency records a pending request under (p.AccountID, p.Key) when there is none,
	// or when the one there was created before p.ExpiredBefore, and reports claimed; otherwise
	// it returns the existing record untouched.
	ClaimIdempotency(ctx context.Context, p ClaimParams) (rec Idempotency, claimed bool, err error)
	// CompleteIdempotency stores the response of the pending record (p.AccountID, p.Key).
	// curvekit.ErrNotFound when there is no pending record.
	CompleteIdempotency(ctx context.Context, p CompleteParams) error
	// ReleaseIdempotency deletes a pending record, so a retry may try again; a completed record
	// stays.
	ReleaseIdempotency(ctx context.Context, accountID, key string) error
	// Idempotency returns the record (accountID, key), or curvekit.ErrNotFound.
	Idempotency(ctx context.Context, accountID, key string) (Idempotency, error)
	// RecordExport appends an export to the audit.
	RecordExport(ctx context.Context, e Export) error
	// Exports returns an account's export audit, oldest first.
	Exports(ctx context.Context, accountID string) ([]Export, error)
}

// Wallet is a custodial wallet as stored: its key sealed (see the package documentation).
type Wallet struct {
	// ID is random, chosen before the wallet is stored, so the seal can bind it.
	ID        string
	AccountID string
	Address   common.Address
	// KeyVersion is the master key version that wrapped DataKey.
	KeyVersion uint32
	// DataKey is the wallet's data key wrapped by the master key.
	DataKey []byte
	// PrivateKey is the private key sealed with the data key.
	PrivateKey []byte
	CreatedAt  time.Time
}

// RewrapParams is a wallet's key sealed again under another master key version.
type RewrapParams struct {
	WalletID    string
	FromVersion uint32
	KeyVersion  uint32
	DataKey     []byte
	PrivateKey  []byte
}

// ReserveNonceParams asks for a nonce of a wallet.
type ReserveNonceParams struct {
	WalletID string
	// Pending is the chain's pending nonce of the wallet: nonces below it are used.
	Pending uint64
	// Launch, when set, reserves the nonce for a launch under the wallet's daily quota.
	Launch *LaunchQuota
	// Spend, when set, are the transaction's spends under the account's daily caps.
	Spend *SpendQuota
	// At is when the launch is signed, the instant that places it in a day.
	At time.Time
}

// LaunchTxParams is the transaction signed for a launch reserved at a nonce.
type LaunchTxParams struct {
	WalletID string
	Nonce    uint64
	Hash     common.Hash
}

// ClaimParams claims an idempotency key for a request.
type ClaimParams struct {
	AccountID string
	Key       string
	// RequestHash identifies the request body: the same key with another hash is a conflict.
	RequestHash []byte
	CreatedAt   time.Time
	// ExpiredBefore: a record under the key created before this instant is replaced; the zero
	// time keeps records forever.
	ExpiredBefore time.Time
}

// CompleteParams stores the response of a claimed request.
type CompleteParams struct {
	AccountID string
	Key       string
	Response  []byte
}

// Idempotency is a request seen under an idempotency key; Response is empty while pending.
type Idempotency struct {
	AccountID   string
	Key         string
	RequestHash []byte
	Response    []byte
	CreatedAt   time.Time
}

// Done reports whether the request completed.
func (r *Idempotency) Done() bool { return len(r.Response) > 0 }

// Export is one private key export, as audited.
type Export struct {
	AccountID string
	WalletID  string
	Address   common.Address
	// SignedInAt is when the session that exported signed in.
	SignedInAt time.Time
	At         time.Time
}
