package bunstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/ethereum/go-ethereum/common"
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
	var row walletRow
	err := s.db.NewSelect().Model(&row).Where("account_id = ?", accountID).Scan(ctx)
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
		if errors.Is(err, curvekit.ErrNotFound) || errors.Is(err, wallet.ErrLaunchLimit) {
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
