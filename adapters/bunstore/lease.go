package bunstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"github.com/curvekit/curvekit/market"
)

// leaseName is the indexer's row of the leases table.
const leaseName = "indexer"

// Lease is market.Lease on the database: one row, changed by single statements that compare and
// set on the database's clock, so two replicas can never both take it.
type Lease struct {
	db      *bun.DB
	dialect dialectKind
}

var _ market.Lease = (*Lease)(nil)

// Lease returns the indexer's lease on d.
func (d *DB) Lease() *Lease { return &Lease{db: d.bun, dialect: d.dialect} }

// nowMS is the database's clock in Unix milliseconds.
func (l *Lease) nowMS() string {
	if l.dialect == dialectPostgres {
		return "CAST(EXTRACT(EPOCH FROM clock_timestamp()) * 1000 AS BIGINT)"
	}
	return "CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER)"
}

func leadership(holder string, term, since, expires int64) market.Leadership {
	return market.Leadership{Holder: holder, Term: uint64(term), Since: time.UnixMilli(since), Expires: time.UnixMilli(expires)}
}

// Acquire implements market.Lease.
func (l *Lease) Acquire(ctx context.Context, holder string, ttl time.Duration) (market.Leadership, bool, error) {
	now := l.nowMS()
	// The row is inserted on first use; afterwards it changes hands only when expired, and keeps
	// its term only for its own live holder.
	q := fmt.Sprintf(`INSERT INTO leases (name, holder, term, since_ms, expires_ms) VALUES (?, ?, 1, %[1]s, %[1]s + ?)
ON CONFLICT (name) DO UPDATE SET
  term = CASE WHEN leases.holder = excluded.holder AND leases.expires_ms >= %[1]s THEN leases.term ELSE leases.term + 1 END,
  since_ms = CASE WHEN leases.holder = excluded.holder AND leases.expires_ms >= %[1]s THEN leases.since_ms ELSE excluded.since_ms END,
  holder = excluded.holder,
  expires_ms = excluded.expires_ms
WHERE leases.holder = excluded.holder OR leases.expires_ms < %[1]s
RETURNING term, since_ms, expires_ms`, now)
	var term, since, expires int64
	err := l.db.QueryRowContext(ctx, q, leaseName, holder, ttl.Milliseconds()).Scan(&term, &since, &expires)
	if errors.Is(err, sql.ErrNoRows) {
		return market.Leadership{}, false, nil
	}
	if err != nil {
		return market.Leadership{}, false, fmt.Errorf("bunstore: acquire lease: %w", err)
	}
	return leadership(holder, term, since, expires), true, nil
}

// Renew implements market.Lease.
func (l *Lease) Renew(ctx context.Context, holder string, term uint64, ttl time.Duration) (bool, error) {
	now := l.nowMS()
	res, err := l.db.ExecContext(ctx, fmt.Sprintf(`UPDATE leases SET expires_ms = %[1]s + ?
WHERE name = ? AND holder = ? AND term = ? AND expires_ms >= %[1]s`, now), ttl.Milliseconds(), leaseName, holder, int64(term))
	if err != nil {
		return false, fmt.Errorf("bunstore: renew lease: %w", err)
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

// Release implements market.Lease.
func (l *Lease) Release(ctx context.Context, holder string, term uint64) error {
	_, err := l.db.ExecContext(ctx, fmt.Sprintf(`UPDATE leases SET expires_ms = %s - 1 WHERE name = ? AND holder = ? AND term = ?`, l.nowMS()),
		leaseName, holder, int64(term))
	if err != nil {
		return fmt.Errorf("bunstore: release lease: %w", err)
	}
	return nil
}

// Current implements market.Lease.
func (l *Lease) Current(ctx context.Context) (market.Leadership, error) {
	var holder string
	var term, since, expires int64
	err := l.db.QueryRowContext(ctx, `SELECT holder, term, since_ms, expires_ms FROM leases WHERE name = ?`, leaseName).Scan(&holder, &term, &since, &expires)
	if errors.Is(err, sql.ErrNoRows) {
		return market.Leadership{}, nil
	}
	if err != nil {
		return market.Leadership{}, fmt.Errorf("bunstore: read lease: %w", err)
	}
	return leadership(holder, term, since, expires), nil
}

// Fenced returns the market store writing under term: each of its writes (Bind, Reset, Apply,
// Rollback) first reads the lease's term in its own transaction (locking the row on PostgreSQL,
// so a takeover waits for the write or the write sees the takeover) and fails with
// market.ErrFenced when it is no longer term.
func (s *Market) Fenced(term uint64) *Market {
	fenced := *s
	fenced.fence = term
	return &fenced
}

// checkFence is the fenced store's check, run first in a write's transaction.
func (s *Market) checkFence(ctx context.Context, tx bun.Tx) error {
	return checkTerm(ctx, tx, s.dialect, s.fence)
}

// checkTerm fails with market.ErrFenced unless term is the indexer lease's term, reading it in
// tx (locking the row on PostgreSQL, so a takeover waits for tx or tx sees the takeover). Term
// 0 checks nothing.
func checkTerm(ctx context.Context, tx bun.Tx, dialect dialectKind, fence uint64) error {
	if fence == 0 {
		return nil
	}
	q := `SELECT term FROM leases WHERE name = ?`
	if dialect == dialectPostgres {
		q += ` FOR UPDATE`
	}
	var term int64
	if err := tx.QueryRowContext(ctx, q, leaseName).Scan(&term); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("%w: no lease is held", market.ErrFenced)
		}
		return fmt.Errorf("bunstore: read lease term: %w", err)
	}
	if uint64(term) != fence {
		return fmt.Errorf("%w: this indexer's term %d, the lease's %d", market.ErrFenced, fence, term)
	}
	return nil
}
