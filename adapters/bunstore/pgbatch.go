package bunstore

import (
	"context"
	"database/sql/driver"
	"time"

	"github.com/uptrace/bun"
)

// PostgreSQL's simple query protocol, which pgdriver speaks, takes several statements in one
// message and answers them in one reply. The agent's busiest writes use that to cost one round
// trip per step instead of one per statement:
//
//   - Statements sent together without BEGIN run as one implicit transaction, and each still
//     takes its own snapshot (READ COMMITTED), so "SELECT pg_advisory_xact_lock(k); INSERT ...
//     WHERE (SELECT count(*) ...) < cap" counts after the lock is held and commits both at once.
//     An Exec reports the last statement's row count and the first error; rows of earlier
//     statements are read and dropped.
//   - A transaction that must decide between its steps (a fence that may have been lost) runs
//     on one connection with BEGIN sent in front of its first statement and COMMIT behind its
//     last: pgConnTx.
//
// A Query reads only the first statement that returns rows, so statements joined in front of
// one must return none (BEGIN, INSERT, UPDATE without RETURNING).

// pgConnTx runs fn on one connection of db. fn opens the transaction by sending "BEGIN; " in
// front of its first statement and commits it by sending "; COMMIT" behind its last, so a
// transaction of n statements costs n round trips instead of n+2. Unless fn returns nil, the
// transaction is rolled back (a ROLLBACK outside one is only a warning); a connection that
// cannot roll back is discarded, never returned to the pool inside a transaction, and
// PostgreSQL ends its transaction when it reads the connection's end.
//
// pgdriver does not cancel a statement when its context ends: it stops waiting for the answer.
// A failure of the statement that carried COMMIT, so, may hide a commit, as a lost answer to any
// COMMIT does; every other failure leaves nothing written.
func pgConnTx(ctx context.Context, db *bun.DB, fn func(ctx context.Context, c bun.Conn) error) error {
	c, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	if err = fn(ctx, c); err == nil {
		return nil
	}
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if _, rerr := c.ExecContext(rctx, "ROLLBACK"); rerr != nil {
		c.Raw(func(any) error { return driver.ErrBadConn })
	}
	return err
}
