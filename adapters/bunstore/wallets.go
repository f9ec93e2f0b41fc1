package bunstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/holiman/uint256"
	"github.com/uptrace/bun"

	"github.com/curvekit/curvekit"
	"github.com/curvekit/curvekit/wallet"
)

// Wallets is the wallet.Store on bun, a view on a DB. It is safe for concurrent use.
type Wallets struct {
	db      *bun.DB
	dialect dialectKind
}

var _ wallet.Store = (*Wallets)(nil)

// Wallets returns the wallet store on d.
func (d *DB) Wallets() *Wallets { return &Wallets{db: d.bun, dialect: d.dialect} }

type walletRow struct {
	bun.BaseModel `bun:"table:wallets"`

	ID         string         `bun:"id,pk"`
	AccountID  string         `bun:"account_id"`
	Address    common.Address `bun:"address"`
	KeyVersion int64          `bun:"key_version"`
	DataKey    []byte         `bun:"data_key"`
	PrivateKey []byte         `bun:"private_key"`
	NextNonce  int64          `bun:"next_nonce"`
	CreatedAt  int64          `bun:"created_at"` // Unix nanoseconds
}

func (r *walletRow) wallet() wallet.Wallet {
	return wallet.Wallet{
		ID: r.ID, AccountID: r.AccountID, Address: r.Address, KeyVersion: uint32(r.KeyVersion),
		DataKey: r.DataKey, PrivateKey: r.PrivateKey, CreatedAt: time.Unix(0, r.CreatedAt).UTC(),
	}
}

type releasedNonceRow struct {
	bun.BaseModel `bun:"table:wallet_released_nonces"`

	WalletID string `bun:"wallet_id,pk"`
	Nonce    int64  `bun:"nonce,pk"`
}

// walletLaunchRow is a launch the wallet signed, by the nonce reserved for it.
type walletLaunchRow struct {
	bun.BaseModel `bun:"table:wallet_launches"`

	WalletID string       `bun:"wallet_id,pk"`
	Nonce    int64        `bun:"nonce,pk"`
	SignedAt int64        `bun:"signed_at"` // Unix nanoseconds
	TxHash   *common.Hash `bun:"tx_hash"`   // nil until signed
}

type idempotencyRow struct {
	bun.BaseModel `bun:"table:wallet_idempotency"`

	AccountID   string `bun:"account_id,pk"`
	Key         string `bun:"idem_key,pk"`
	RequestHash []byte `bun:"request_hash"`
	Response    []byte `bun:"response,nullzero"`
	CreatedAt   int64  `bun:"created_at"`
}

func (r *idempotencyRow) record() wallet.Idempotency {
	return wallet.Idempotency{AccountID: r.AccountID, Key: r.Key, RequestHash: r.RequestHash, Response: r.Response, CreatedAt: time.Unix(0, r.CreatedAt).UTC()}
}

type exportRow struct {
	bun.BaseModel `bun:"table:wallet_exports"`

	AccountID  string         `bun:"account_id"`
	WalletID   string         `bun:"wallet_id"`
	Address    common.Address `bun:"address"`
	SignedInAt int64          `bun:"signed_in_at"`
	ExportedAt int64          `bun:"exported_at"`
}

// CreateWallet stores w unless its account has a wallet, and returns the account's wallet.
func (s *Wallets) CreateWallet(ctx context.Context, w wallet.Wallet) (wallet.Wallet, bool, error) {
	if w.ID == "" || w.AccountID == "" || len(w.DataKey) == 0 || len(w.PrivateKey) == 0 {
		return wallet.Wallet{}, false, fmt.Errorf("%w: wallet without id, account or sealed key", curvekit.ErrInvalid)
	}
	row := walletRow{
		ID: w.ID, AccountID: w.AccountID, Address: w.Address, KeyVersion: int64(w.KeyVersion),
		DataKey: w.DataKey, PrivateKey: w.PrivateKey, CreatedAt: w.CreatedAt.UnixNano(),
	}
	// The unique account_id makes the race's loser a no-op; both then read the winner.
	res, err := s.db.NewInsert().Model(&row).On("CONFLICT (account_id) DO NOTHING").Exec(ctx)
	if err != nil {
		return wallet.Wallet{}, false, fmt.Errorf("bunstore: create wallet: %w", err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return wallet.Wallet{}, false, fmt.Errorf("bunstore: create wallet: %w", err)
	}
	stored, err := s.WalletByAccount(ctx, w.AccountID)
	return stored, n == 1, err
}

// WalletByAccount returns the account's wallet, or curvekit.ErrNotFound.
func (s *Wallets) WalletByAccount(ctx context.Context, accountID string) (wallet.Wallet, error) {
	return s.walletWhere(ctx, "account_id = ?", accountID)
}

// Wallet returns the wallet with the id, or curvekit.ErrNotFound.
func (s *Wallets) Wallet(ctx context.Context, id string) (wallet.Wallet, error) {
	return s.walletWhere(ctx, "id = ?", id)
}

func (s *Wallets) walletWhere(ctx context.Context, where string, arg string) (wallet.Wallet, error) {
	var row walletRow
	err := s.db.NewSelect().Model(&row).Where(where, arg).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return wallet.Wallet{}, fmt.Errorf("%w: no wallet for this account", curvekit.ErrNotFound)
	}
	if err != nil {
		return wallet.Wallet{}, fmt.Errorf("bunstore: wallet: %w", err)
	}
	return row.wallet(), nil
}

// ReserveNonce hands out the wallet's next nonce (see wallet.Store).
func (s *Wallets) ReserveNonce(ctx context.Context, p wallet.ReserveNonceParams) (uint64, error) {
	if p.Pending > math.MaxInt64 {
		return 0, fmt.Errorf("%w: pending nonce %d out of range", curvekit.ErrInvalid, p.Pending)
	}
	pending := int64(p.Pending)
	var nonce int64
	err := s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		var row walletRow
		q := tx.NewSelect().Model(&row).Column("next_nonce").Where("id = ?", p.WalletID)
		if s.dialect == dialectPostgres {
			// Serializes reservations per wallet; SQLite's immediate transactions already do.
			q.For("UPDATE")
		}
		if err := q.Scan(ctx); errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("%w: wallet %s", curvekit.ErrNotFound, p.WalletID)
		} else if err != nil {
			return err
		}
		if p.Launch != nil {
			// Under the wallet's lock: no other reservation counts between this count and
			// this launch's record.
			if err := checkLaunchQuota(ctx, tx, p.WalletID, p.Launch); err != nil {
				return err
			}
		}
		if p.Spend != nil {
			// Under the wallet's lock too: the sums and this transaction's spends are one step.
			if err := checkSpends(ctx, tx, p.WalletID, p.Spend); err != nil {
				return err
			}
		}
		if _, err := tx.NewDelete().Model((*releasedNonceRow)(nil)).Where("wallet_id = ? AND nonce < ?", p.WalletID, pending).Exec(ctx); err != nil {
			return err
		}
		var released []releasedNonceRow
		if err := tx.NewSelect().Model(&released).Where("wallet_id = ?", p.WalletID).Order("nonce").Limit(1).Scan(ctx); err != nil {
			return err
		}
		if len(released) == 1 {
			nonce = released[0].Nonce
			if _, err := tx.NewDelete().Model(&released[0]).WherePK().Exec(ctx); err != nil {
				return err
			}
		} else {
			nonce = max(row.NextNonce, pending)
			if _, err := tx.NewUpdate().Model((*walletRow)(nil)).Set("next_nonce = ?", nonce+1).Where("id = ?", p.WalletID).Exec(ctx); err != nil {
				return err
			}
		}
		if p.Spend != nil {
			if err := recordSpends(ctx, tx, p.WalletID, nonce, p.Spend); err != nil {
				return err
			}
		}
		if p.Launch == nil {
			return nil
		}
		// A row left at this nonce belongs to a launch whose nonce came back without a
		// release; the nonce is this launch's now.
		launch := walletLaunchRow{WalletID: p.WalletID, Nonce: nonce, SignedAt: p.At.UnixNano()}
		_, err := tx.NewInsert().Model(&launch).
			On("CONFLICT (wallet_id, nonce) DO UPDATE").Set("signed_at = EXCLUDED.signed_at").Set("tx_hash = NULL").Exec(ctx)
		return err
	})
	if err != nil {
		var overSpent *wallet.SpendLimitError
		if errors.Is(err, curvekit.ErrNotFound) || errors.Is(err, wallet.ErrLaunchLimit) || errors.As(err, &overSpent) {
			return 0, err
		}
		return 0, fmt.Errorf("bunstore: reserve nonce: %w", err)
	}
	return uint64(nonce), nil
}

// checkLaunchQuota refuses a launch when the wallet's launches of the day, the indexed ones and
// those signed since q.Day whose hash is not among them, have reached q.Limit.
func checkLaunchQuota(ctx context.Context, tx bun.Tx, walletID string, q *wallet.LaunchQuota) error {
	var signed []walletLaunchRow
	if err := tx.NewSelect().Model(&signed).Column("tx_hash").
		Where("wallet_id = ? AND signed_at >= ?", walletID, q.Day.UnixNano()).Scan(ctx); err != nil {
		return err
	}
	used := len(q.Indexed)
	for _, r := range signed {
		if r.TxHash == nil || !slices.Contains(q.Indexed, *r.TxHash) {
			used++
		}
	}
	if used >= q.Limit {
		return &wallet.LaunchLimitError{Used: used, Limit: q.Limit}
	}
	return nil
}

// RecordLaunchTx stores the hash of the transaction signed for a reserved launch.
func (s *Wallets) RecordLaunchTx(ctx context.Context, p wallet.LaunchTxParams) error {
	if p.Nonce > math.MaxInt64 {
		return fmt.Errorf("%w: no launch reserved at nonce %d", curvekit.ErrNotFound, p.Nonce)
	}
	res, err := s.db.NewUpdate().Model((*walletLaunchRow)(nil)).Set("tx_hash = ?", p.Hash).
		Where("wallet_id = ? AND nonce = ?", p.WalletID, int64(p.Nonce)).Exec(ctx)
	if err != nil {
		return fmt.Errorf("bunstore: record launch tx: %w", err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return fmt.Errorf("bunstore: record launch tx: %w", err)
	} else if n == 0 {
		return fmt.Errorf("%w: no launch reserved at nonce %d", curvekit.ErrNotFound, p.Nonce)
	}
	return nil
}

// ReleaseNonce gives back a reserved nonce. A nonce the wallet never handed out is ignored.
func (s *Wallets) ReleaseNonce(ctx context.Context, walletID string, nonce uint64) error {
	if nonce > math.MaxInt64 {
		return nil
	}
	err := s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		if _, err := tx.NewDelete().Model((*walletLaunchRow)(nil)).Where("wallet_id = ? AND nonce = ?", walletID, int64(nonce)).Exec(ctx); err != nil {
			return err
		}
		if err := releaseUnrecorded(ctx, tx, walletID, int64(nonce), time.Now()); err != nil {
			return err
		}
		// A nonce at or above next_nonce was never handed out and is not taken back (it would
		// be handed out twice).
		_, err := tx.NewRaw(`INSERT INTO wallet_released_nonces (wallet_id, nonce)
			SELECT id, ? FROM wallets WHERE id = ? AND next_nonce > ?
			ON CONFLICT DO NOTHING`, int64(nonce), walletID, int64(nonce)).Exec(ctx)
		return err
	})
	if err != nil {
		return fmt.Errorf("bunstore: release nonce: %w", err)
	}
	return nil
}

// ClaimIdempotency records a pending request unless (p.AccountID, p.Key) has one.
func (s *Wallets) ClaimIdempotency(ctx context.Context, p wallet.ClaimParams) (wallet.Idempotency, bool, error) {
	row := idempotencyRow{AccountID: p.AccountID, Key: p.Key, RequestHash: p.RequestHash, CreatedAt: p.CreatedAt.UnixNano()}
	// A record released between our insert and our read is claimed again: a few rounds settle it.
	for range 5 {
		var n int64
		err := s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
			if !p.ExpiredBefore.IsZero() {
				if _, err := tx.NewDelete().Model((*idempotencyRow)(nil)).
					Where("account_id = ? AND idem_key = ? AND created_at < ?", p.AccountID, p.Key, p.ExpiredBefore.UnixNano()).
					Exec(ctx); err != nil {
					return err
				}
			}
			res, err := tx.NewInsert().Model(&row).On("CONFLICT (account_id, idem_key) DO NOTHING").Exec(ctx)
			if err != nil {
				return err
			}
			n, err = res.RowsAffected()
			return err
		})
		if err != nil {
			return wallet.Idempotency{}, false, fmt.Errorf("bunstore: claim idempotency key: %w", err)
		}
		if n == 1 {
			return row.record(), true, nil
		}
		rec, err := s.Idempotency(ctx, p.AccountID, p.Key)
		if errors.Is(err, curvekit.ErrNotFound) {
			continue
		}
		return rec, false, err
	}
	return wallet.Idempotency{}, false, fmt.Errorf("%w: idempotency key is contended; retry", curvekit.ErrConflict)
}

// CompleteIdempotency stores the response of a pending record.
func (s *Wallets) CompleteIdempotency(ctx context.Context, p wallet.CompleteParams) error {
	if len(p.Response) == 0 {
		return fmt.Errorf("%w: empty response", curvekit.ErrInvalid)
	}
	res, err := s.db.NewUpdate().Model((*idempotencyRow)(nil)).Set("response = ?", p.Response).
		Where("account_id = ? AND idem_key = ? AND response IS NULL", p.AccountID, p.Key).Exec(ctx)
	if err != nil {
		return fmt.Errorf("bunstore: complete idempotency key: %w", err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return fmt.Errorf("bunstore: complete idempotency key: %w", err)
	} else if n == 0 {
		return fmt.Errorf("%w: no pending request under this idempotency key", curvekit.ErrNotFound)
	}
	return nil
}

// ReleaseIdempotency deletes a pending record; a completed one stays.
func (s *Wallets) ReleaseIdempotency(ctx context.Context, accountID, key string) error {
	_, err := s.db.NewDelete().Model((*idempotencyRow)(nil)).
		Where("account_id = ? AND idem_key = ? AND response IS NULL", accountID, key).Exec(ctx)
	if err != nil {
		return fmt.Errorf("bunstore: release idempotency key: %w", err)
	}
	return nil
}

// Idempotency returns a record, or curvekit.ErrNotFound.
func (s *Wallets) Idempotency(ctx context.Context, accountID, key string) (wallet.Idempotency, error) {
	var row idempotencyRow
	err := s.db.NewSelect().Model(&row).Where("account_id = ? AND idem_key = ?", accountID, key).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return wallet.Idempotency{}, fmt.Errorf("%w: no request under this idempotency key", curvekit.ErrNotFound)
	}
	if err != nil {
		return wallet.Idempotency{}, fmt.Errorf("bunstore: idempotency key: %w", err)
	}
	return row.record(), nil
}

// RecordExport appends an export to the audit.
func (s *Wallets) RecordExport(ctx context.Context, e wallet.Export) error {
	row := exportRow{AccountID: e.AccountID, WalletID: e.WalletID, Address: e.Address, SignedInAt: e.SignedInAt.UnixNano(), ExportedAt: e.At.UnixNano()}
	if _, err := s.db.NewInsert().Model(&row).Exec(ctx); err != nil {
		return fmt.Errorf("bunstore: record export: %w", err)
	}
	return nil
}

// Exports returns an account's export audit, oldest first.
func (s *Wallets) Exports(ctx context.Context, accountID string) ([]wallet.Export, error) {
	var rows []exportRow
	if err := s.db.NewSelect().Model(&rows).Where("account_id = ?", accountID).OrderExpr("id").Scan(ctx); err != nil {
		return nil, fmt.Errorf("bunstore: exports: %w", err)
	}
	out := make([]wallet.Export, len(rows))
	for i, r := range rows {
		out[i] = wallet.Export{AccountID: r.AccountID, WalletID: r.WalletID, Address: r.Address, SignedInAt: time.Unix(0, r.SignedInAt).UTC(), At: time.Unix(0, r.ExportedAt).UTC()}
	}
	return out, nil
}

// RewrapWallet replaces a wallet's sealed key material if its version is still p.FromVersion.
func (s *Wallets) RewrapWallet(ctx context.Context, p wallet.RewrapParams) error {
	if len(p.DataKey) == 0 || len(p.PrivateKey) == 0 {
		return fmt.Errorf("%w: rewrap without sealed key", curvekit.ErrInvalid)
	}
	res, err := s.db.NewUpdate().Model((*walletRow)(nil)).
		Set("key_version = ?", int64(p.KeyVersion)).
		Set("data_key = ?", p.DataKey).
		Set("private_key = ?", p.PrivateKey).
		Where("id = ? AND key_version = ?", p.WalletID, int64(p.FromVersion)).
		Exec(ctx)
	if err != nil {
		return fmt.Errorf("bunstore: rewrap wallet: %w", err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return fmt.Errorf("bunstore: rewrap wallet: %w", err)
	} else if n == 1 {
		return nil
	}
	exists, err := s.db.NewSelect().Model((*walletRow)(nil)).Where("id = ?", p.WalletID).Exists(ctx)
	if err != nil {
		return fmt.Errorf("bunstore: rewrap wallet: %w", err)
	}
	if !exists {
		return fmt.Errorf("%w: wallet %s", curvekit.ErrNotFound, p.WalletID)
	}
	return fmt.Errorf("%w: wallet %s is no longer under key version %d", curvekit.ErrConflict, p.WalletID, p.FromVersion)
}

// walletTxRow is a transaction a wallet sent (migration 0012).
type walletTxRow struct {
	bun.BaseModel `bun:"table:wallet_transactions"`

	ID           string         `bun:"id,pk"`
	WalletID     string         `bun:"wallet_id"`
	From         common.Address `bun:"from_address"`
	Nonce        int64          `bun:"nonce"`
	ChainID      int64          `bun:"chain_id"`
	To           common.Address `bun:"to_address"`
	Value        string         `bun:"value"`
	Data         []byte         `bun:"data"`
	Gas          int64          `bun:"gas"`
	MaxFee       string         `bun:"max_fee"`
	MaxTip       string         `bun:"max_tip"`
	Hash         common.Hash    `bun:"hash"`
	Hashes       []byte         `bun:"hashes"` // 32 bytes each, oldest first
	State        string         `bun:"state"`
	SentAt       int64          `bun:"sent_at"`
	SentBlock    int64          `bun:"sent_block"`
	Block        int64          `bun:"block_number"`
	GasUsed      int64          `bun:"gas_used"`
	GasPrice     string         `bun:"gas_price"`
	ClaimedBy    string         `bun:"claimed_by"`
	ClaimedUntil int64          `bun:"claimed_until"`
	UpdatedAt    int64          `bun:"updated_at"`
}

func (r *walletTxRow) transaction() (wallet.Transaction, error) {
	t := wallet.Transaction{
		ID: r.ID, WalletID: r.WalletID, From: r.From, Nonce: uint64(r.Nonce), ChainID: uint64(r.ChainID), To: r.To,
		Data: r.Data, Gas: uint64(r.Gas), Hash: r.Hash, State: wallet.TxState(r.State),
		SentAt: time.Unix(0, r.SentAt).UTC(), SentBlock: uint64(r.SentBlock), Block: uint64(r.Block), GasUsed: uint64(r.GasUsed),
		UpdatedAt: time.Unix(0, r.UpdatedAt).UTC(), ClaimedBy: r.ClaimedBy,
	}
	if r.ClaimedUntil != 0 {
		t.ClaimedUntil = time.Unix(0, r.ClaimedUntil).UTC()
	}
	t.Hashes = splitHashes(r.Hashes)
	var fee, tip uint256.Int
	for _, f := range []struct {
		dst *uint256.Int
		src string
	}{{&t.Value, r.Value}, {&t.GasPrice, r.GasPrice}, {&fee, r.MaxFee}, {&tip, r.MaxTip}} {
		if err := f.dst.SetFromDecimal(f.src); err != nil {
			return wallet.Transaction{}, fmt.Errorf("bunstore: transaction %s: %w", r.ID, err)
		}
	}
	t.Fees = wallet.Fees{MaxFeePerGas: fee.ToBig(), MaxPriorityFeePerGas: tip.ToBig()}
	return t, nil
}

// decimal is a fee as stored: a decimal string, "0" for none.
func decimal(b *big.Int) string {
	if b == nil {
		return "0"
	}
	return b.String()
}

// RecordTransaction stores a signed transaction, pending, before it is broadcast.
func (s *Wallets) RecordTransaction(ctx context.Context, t wallet.Transaction) error {
	if t.ID == "" || t.Nonce > math.MaxInt64 || t.ChainID > math.MaxInt64 || t.Gas > math.MaxInt64 {
		return fmt.Errorf("%w: transaction without id or out of range", curvekit.ErrInvalid)
	}
	row := walletTxRow{
		ID: t.ID, WalletID: t.WalletID, From: t.From, Nonce: int64(t.Nonce), ChainID: int64(t.ChainID), To: t.To,
		Value: t.Value.Dec(), Data: t.Data, Gas: int64(t.Gas), MaxFee: decimal(t.Fees.MaxFeePerGas), MaxTip: decimal(t.Fees.MaxPriorityFeePerGas),
		Hash: t.Hash, Hashes: t.Hash.Bytes(), State: string(wallet.TxPending), SentAt: t.SentAt.UnixNano(),
		SentBlock: int64(min(t.SentBlock, math.MaxInt64)), GasPrice: "0", UpdatedAt: t.SentAt.UnixNano(),
		ClaimedBy: t.ClaimedBy, ClaimedUntil: nanos(t.ClaimedUntil),
	}
	_, err := s.db.NewRaw(`INSERT INTO wallet_transactions (id, wallet_id, from_address, nonce, chain_id, to_address, value, data, gas,
			max_fee, max_tip, hash, hashes, state, sent_at, sent_block, claimed_by, claimed_until, updated_at)
		SELECT ?, id, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ? FROM wallets WHERE id = ?`,
		row.ID, row.From, row.Nonce, row.ChainID, row.To, row.Value, row.Data, row.Gas, row.MaxFee, row.MaxTip,
		row.Hash, row.Hashes, row.State, row.SentAt, row.SentBlock, row.ClaimedBy, row.ClaimedUntil, row.UpdatedAt, row.WalletID).Exec(ctx)
	if err != nil {
		return fmt.Errorf("bunstore: record transaction: %w", err)
	}
	var n int64
	if n, err = s.db.NewSelect().Model((*walletTxRow)(nil)).Where("id = ?", t.ID).Count(ctx); err != nil {
		return fmt.Errorf("bunstore: record transaction: %w", err)
	}
	if n == 0 {
		return fmt.Errorf("%w: wallet %s", curvekit.ErrNotFound, t.WalletID)
	}
	return nil
}

// Transactions returns a page of a wallet's transactions, newest first.
func (s *Wallets) Transactions(ctx context.Context, q wallet.TransactionQuery) (wallet.TransactionPage, error) {
	limit := q.Limit
	if limit <= 0 {
		limit = 50
	}
	sel := s.db.NewSelect().Model((*walletTxRow)(nil)).Where("wallet_id = ?", q.WalletID)
	if q.Cursor != "" {
		at, id, ok := strings.Cut(q.Cursor, ".")
		sentAt, err := strconv.ParseInt(at, 10, 64)
		if !ok || err != nil || !plainID(id) {
			return wallet.TransactionPage{}, fmt.Errorf("%w: cursor: not one this list returned", curvekit.ErrInvalid)
		}
		sel.Where("(sent_at < ? OR (sent_at = ? AND id < ?))", sentAt, sentAt, id)
	}
	var rows []walletTxRow
	if err := sel.OrderExpr("sent_at DESC, id DESC").Limit(int64(limit+1)).Scan(ctx, &rows); err != nil {
		return wallet.TransactionPage{}, fmt.Errorf("bunstore: transactions: %w", err)
	}
	var page wallet.TransactionPage
	if len(rows) > limit {
		rows = rows[:limit]
		last := rows[limit-1]
		page.Next = strconv.FormatInt(last.SentAt, 10) + "." + last.ID
	}
	for i := range rows {
		t, err := rows[i].transaction()
		if err != nil {
			return wallet.TransactionPage{}, err
		}
		page.Transactions = append(page.Transactions, t)
	}
	return page, nil
}

// OpenTransactions returns up to limit pending or replaced transactions, oldest first.
func (s *Wallets) OpenTransactions(ctx context.Context, limit int) ([]wallet.Transaction, error) {
	var rows []walletTxRow
	if err := s.db.NewSelect().Model(&rows).Where("state IN (?, ?)", string(wallet.TxPending), string(wallet.TxReplaced)).
		OrderExpr("sent_at, id").Limit(int64(limit)).Scan(ctx); err != nil {
		return nil, fmt.Errorf("bunstore: open transactions: %w", err)
	}
	out := make([]wallet.Transaction, 0, len(rows))
	for i := range rows {
		t, err := rows[i].transaction()
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, nil
}

// changed turns an UPDATE's count into ErrConflict (it matched nothing) or ErrNotFound (there is
// no transaction id).
func (s *Wallets) changed(ctx context.Context, res sql.Result, err error, id, what string) error {
	if err != nil {
		return fmt.Errorf("bunstore: %s: %w", what, err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return fmt.Errorf("bunstore: %s: %w", what, err)
	} else if n == 1 {
		return nil
	}
	if n, err := s.db.NewSelect().Model((*walletTxRow)(nil)).Where("id = ?", id).Count(ctx); err != nil {
		return fmt.Errorf("bunstore: %s: %w", what, err)
	} else if n == 0 {
		return fmt.Errorf("%w: transaction %s", curvekit.ErrNotFound, id)
	}
	return fmt.Errorf("%w: transaction %s changed meanwhile", curvekit.ErrConflict, id)
}

// ClaimTransaction claims an open transaction for replacement (compare-and-set on its hash and
// the claim).
func (s *Wallets) ClaimTransaction(ctx context.Context, p wallet.ClaimTxParams) error {
	res, err := s.db.NewUpdate().Model((*walletTxRow)(nil)).
		Set("claimed_by = ?", p.Owner).Set("claimed_until = ?", p.Until.UnixNano()).
		Where("id = ? AND hash = ? AND state IN (?, ?)", p.ID, p.Hash, string(wallet.TxPending), string(wallet.TxReplaced)).
		Where("(claimed_by = ? OR claimed_by = '' OR claimed_until < ?)", p.Owner, p.Now.UnixNano()).Exec(ctx)
	return s.changed(ctx, res, err, p.ID, "claim transaction")
}

// ReleaseTransaction lets go of a pending transaction's claim, or of the record with it when
// the node refused the send.
func (s *Wallets) ReleaseTransaction(ctx context.Context, p wallet.ReleaseTxParams) error {
	if p.Owner == "" {
		return fmt.Errorf("%w: a release names the claim's owner", curvekit.ErrInvalid)
	}
	held := "id = ? AND claimed_by = ? AND state = ?"
	var res sql.Result
	var err error
	if p.Sent {
		// The transaction's events (sent) are committed with the release, or not at all.
		err = s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
			var err error
			res, err = tx.NewUpdate().Model((*walletTxRow)(nil)).Set("claimed_by = ''").Set("claimed_until = 0").
				Set("updated_at = ?", p.At.UnixNano()).Where(held, p.ID, p.Owner, string(wallet.TxPending)).Exec(ctx)
			if err != nil {
				return err
			}
			if n, err := res.RowsAffected(); err != nil || n != 1 {
				return err
			}
			_, err = recordEvents(ctx, tx, p.Events, p.At)
			return err
		})
	} else {
		res, err = s.db.NewDelete().Model((*walletTxRow)(nil)).Where(held, p.ID, p.Owner, string(wallet.TxPending)).Exec(ctx)
		if err == nil {
			if n, _ := res.RowsAffected(); n == 1 {
				// Refused by the node: nothing left the wallet.
				err = releaseTxSpends(ctx, s.db, p.ID, p.At)
			}
		}
	}
	return s.changed(ctx, res, err, p.ID, "release transaction")
}

// ReplaceTransaction records a replacement sent under the caller's claim.
func (s *Wallets) ReplaceTransaction(ctx context.Context, p wallet.ReplaceTxParams) error {
	err := s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		var row walletTxRow
		if err := tx.NewSelect().Model(&row).Column("hashes", "claimed_by", "state").Where("id = ?", p.ID).Scan(ctx); errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("%w: transaction %s", curvekit.ErrNotFound, p.ID)
		} else if err != nil {
			return err
		}
		if row.ClaimedBy != p.Owner || !wallet.TxState(row.State).Open() {
			return fmt.Errorf("%w: transaction %s is not claimed by %s or no longer open", curvekit.ErrConflict, p.ID, p.Owner)
		}
		hashes := row.Hashes
		if !slices.Contains(splitHashes(hashes), p.Hash) {
			hashes = append(hashes, p.Hash.Bytes()...)
		}
		res, err := tx.NewUpdate().Model((*walletTxRow)(nil)).
			Set("hash = ?", p.Hash).Set("hashes = ?", hashes).Set("state = ?", string(wallet.TxReplaced)).
			Set("max_fee = ?", decimal(p.Fees.MaxFeePerGas)).Set("max_tip = ?", decimal(p.Fees.MaxPriorityFeePerGas)).
			Set("sent_block = ?", int64(min(p.SentBlock, math.MaxInt64))).Set("claimed_by = ''").Set("claimed_until = 0").
			Set("updated_at = ?", p.At.UnixNano()).
			Where("id = ? AND claimed_by = ? AND state IN (?, ?)", p.ID, p.Owner, string(wallet.TxPending), string(wallet.TxReplaced)).Exec(ctx)
		return s.changed(ctx, res, err, p.ID, "replace transaction")
	})
	if err != nil && !errors.Is(err, curvekit.ErrConflict) && !errors.Is(err, curvekit.ErrNotFound) {
		return fmt.Errorf("bunstore: replace transaction: %w", err)
	}
	return err
}

func splitHashes(b []byte) []common.Hash {
	var out []common.Hash
	for i := 0; i+common.HashLength <= len(b); i += common.HashLength {
		out = append(out, common.BytesToHash(b[i:i+common.HashLength]))
	}
	return out
}

// SettleTransaction moves an open transaction to its final state.
func (s *Wallets) SettleTransaction(ctx context.Context, p wallet.SettleTxParams) error {
	if p.State.Open() || p.State == "" || p.Block > math.MaxInt64 || p.GasUsed > math.MaxInt64 {
		return fmt.Errorf("%w: %q is not a final state", curvekit.ErrInvalid, p.State)
	}
	var res sql.Result
	err := s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		var row walletTxRow
		if err := tx.NewSelect().Model(&row).Column("hashes").Where("id = ?", p.ID).Scan(ctx); errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("%w: transaction %s", curvekit.ErrNotFound, p.ID)
		} else if err != nil {
			return err
		}
		q := tx.NewUpdate().Model((*walletTxRow)(nil)).Set("state = ?", string(p.State)).
			Set("claimed_by = ''").Set("claimed_until = 0").Set("updated_at = ?", p.At.UnixNano()).
			Where("id = ? AND state IN (?, ?)", p.ID, string(wallet.TxPending), string(wallet.TxReplaced))
		if p.State != wallet.TxDropped {
			if !slices.Contains(splitHashes(row.Hashes), p.Hash) {
				return fmt.Errorf("%w: %s is not a hash of transaction %s", curvekit.ErrInvalid, p.Hash, p.ID)
			}
			q.Set("hash = ?", p.Hash).Set("block_number = ?", int64(p.Block)).Set("gas_used = ?", int64(p.GasUsed)).Set("gas_price = ?", decimal(p.GasPrice))
		}
		var err error
		if res, err = q.Exec(ctx); err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			return err
		}
		// The transaction's events (mined, failed, dropped) are committed with the settlement.
		if _, err := recordEvents(ctx, tx, p.Events, p.At); err != nil {
			return err
		}
		if p.State != wallet.TxFailed && p.State != wallet.TxDropped {
			return nil
		}
		// Nothing left the wallet: its spends are released with the settlement.
		return releaseTxSpends(ctx, tx, p.ID, p.At)
	})
	if errors.Is(err, curvekit.ErrNotFound) || errors.Is(err, curvekit.ErrInvalid) {
		return err
	}
	return s.changed(ctx, res, err, p.ID, "settle transaction")
}
