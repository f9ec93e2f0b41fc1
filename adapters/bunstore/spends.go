package bunstore

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strconv"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/holiman/uint256"
	"github.com/uptrace/bun"

	"github.com/curvekit/curvekit/wallet"
)

// walletSpendRow is what a transaction of a wallet moves out of it in one asset (migration 0013).
type walletSpendRow struct {
	bun.BaseModel `bun:"table:wallet_spends"`

	ID         string         `bun:"id,pk"`
	WalletID   string         `bun:"wallet_id"`
	Nonce      int64          `bun:"nonce"`
	Asset      common.Address `bun:"asset"`
	Amount     string         `bun:"amount"`
	SpentAt    int64          `bun:"spent_at"`    // Unix nanoseconds
	ReleasedAt int64          `bun:"released_at"` // 0 while it counts
}

// checkSpends refuses q when, for an asset with a daily cap, the wallet's unreleased spends since
// q.Since and q's spends of it pass the cap. It runs under the wallet's lock.
func checkSpends(ctx context.Context, tx bun.Tx, walletID string, q *wallet.SpendQuota) error {
	// What left before the window no longer counts: forget it, so the sums stay short.
	if _, err := tx.NewDelete().Model((*walletSpendRow)(nil)).Where("wallet_id = ? AND spent_at < ?", walletID, q.Since.UnixNano()).Exec(ctx); err != nil {
		return err
	}
	adding := map[common.Address]*uint256.Int{}
	for i := range q.Spends {
		sp := &q.Spends[i]
		if q.Daily[sp.Asset] == nil {
			continue
		}
		sum, ok := adding[sp.Asset]
		if !ok {
			sum = new(uint256.Int)
			adding[sp.Asset] = sum
		}
		if _, over := sum.AddOverflow(sum, &sp.Amount); over {
			sum.SetAllOne()
		}
	}
	for asset, amount := range adding {
		sums, err := spentSince(ctx, tx, walletID, &asset, q.Since)
		if err != nil {
			return err
		}
		spent := sums[asset]
		total, over := new(uint256.Int).AddOverflow(&spent, amount)
		if limit := q.Daily[asset]; over || total.Gt(limit) {
			return &wallet.SpendLimitError{Asset: asset, Spent: spent, Amount: *amount, Cap: *limit}
		}
	}
	return nil
}

// spentSince sums the wallet's unreleased spends at or after since, by asset; only asset's when
// it is given. A sum that would overflow stays at the largest value.
func spentSince(ctx context.Context, db bun.IDB, walletID string, asset *common.Address, since time.Time) (map[common.Address]uint256.Int, error) {
	var rows []walletSpendRow
	q := db.NewSelect().Model(&rows).Column("asset", "amount").
		Where("wallet_id = ? AND released_at = 0 AND spent_at >= ?", walletID, since.UnixNano())
	if asset != nil {
		q = q.Where("asset = ?", *asset)
	}
	if err := q.Scan(ctx); err != nil {
		return nil, err
	}
	sums := map[common.Address]uint256.Int{}
	for _, r := range rows {
		v, err := uint256.FromDecimal(r.Amount)
		if err != nil {
			return nil, fmt.Errorf("spend of wallet %s: %w", walletID, err)
		}
		sum := sums[r.Asset]
		if _, over := sum.AddOverflow(&sum, v); over {
			sum.SetAllOne()
		}
		sums[r.Asset] = sum
	}
	return sums, nil
}

// Spent sums the wallet's spends that count against its daily caps (see wallet.Store).
func (w *Wallets) Spent(ctx context.Context, walletID string, since time.Time) (map[common.Address]uint256.Int, error) {
	return spentSince(ctx, w.db, walletID, nil, since)
}

// recordSpends stores q's spends at nonce, but those only held to the caps.
func recordSpends(ctx context.Context, tx bun.Tx, walletID string, nonce int64, q *wallet.SpendQuota) error {
	var rows []walletSpendRow
	for i := range q.Spends {
		sp := &q.Spends[i]
		if sp.CheckOnly || sp.Amount.IsZero() {
			continue
		}
		rows = append(rows, walletSpendRow{ID: spendID(q.TxID, i), WalletID: walletID, Nonce: nonce, Asset: sp.Asset, Amount: sp.Amount.Dec(), SpentAt: q.At.UnixNano()})
	}
	if len(rows) == 0 {
		return nil
	}
	_, err := tx.NewInsert().Model(&rows).Exec(ctx)
	return err
}

// A spend's id is its transaction's id, a dot and its index: the spends of a transaction are
// found by its id, whatever nonce it holds (a released nonce is used again by another).
func spendID(txID string, i int) string {
	if txID == "" {
		txID = randomRowID()
	}
	return txID + "." + strconv.Itoa(i)
}

// releaseTxSpends releases, once, the spends of the transaction txID that still count.
func releaseTxSpends(ctx context.Context, db bun.IDB, txID string, at time.Time) error {
	if !plainID(txID) {
		return nil // no spend has such an id
	}
	_, err := db.NewUpdate().Model((*walletSpendRow)(nil)).Set("released_at = ?", max(at.UnixNano(), 1)).
		Where("id LIKE ? AND released_at = 0", txID+".%").Exec(ctx)
	return err
}

// releaseUnrecorded releases, once, the spends at a wallet's nonce whose transaction has no
// record: it was never recorded, or was deleted as refused. A recorded one may still be mined.
func releaseUnrecorded(ctx context.Context, tx bun.Tx, walletID string, nonce int64, at time.Time) error {
	_, err := tx.NewUpdate().Model((*walletSpendRow)(nil)).Set("released_at = ?", max(at.UnixNano(), 1)).
		Where("wallet_id = ? AND nonce = ? AND released_at = 0", walletID, nonce).
		Where("NOT EXISTS (SELECT 1 FROM wallet_transactions t WHERE t.wallet_id = ?TableAlias.wallet_id AND ?TableAlias.id LIKE t.id || '.%')").
		Exec(ctx)
	return err
}

// randomRowID is 16 random bytes in hex.
func randomRowID() string {
	var id [16]byte
	_, _ = rand.Read(id[:]) // never fails (crypto/rand)
	return hex.EncodeToString(id[:])
}
