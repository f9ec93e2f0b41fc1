package bunstore

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"github.com/curvekit/curvekit/internal/pgtest"
)

// pgConnTx never hands its connection back inside a transaction: on a pool of one connection,
// whatever the failed transaction wrote is gone and the next statement runs on its own, whether
// fn failed in Go with the transaction open, PostgreSQL aborted it, or its context ended mid-
// statement (the connection is dropped, and its transaction with it: the last insert waits for
// that).
func TestConnTxRollsBackOnItsConnection(t *testing.T) {
	ctx := context.Background()
	d, err := Open(ctx, Config{DSN: pgtest.Schema(t, "bunstore_conntx"), MaxOpenConns: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	errGo := errors.New("refused in Go")
	for _, tc := range []struct {
		name string
		fn   func(ctx context.Context, c bun.Conn) error
	}{
		{"refused in Go", func(ctx context.Context, c bun.Conn) error {
			if _, err := c.ExecContext(ctx, "BEGIN; INSERT INTO agent_threads (id, wallet, created_at) VALUES ('t', '\\x00', 1)"); err != nil {
				return err
			}
			return errGo
		}},
		{"aborted by PostgreSQL", func(ctx context.Context, c bun.Conn) error {
			_, err := c.ExecContext(ctx, "BEGIN; INSERT INTO agent_threads (id, wallet, created_at) VALUES ('t', '\\x00', 1); SELECT 1/0; COMMIT")
			return err
		}},
		{"context ended mid-statement", func(ctx context.Context, c bun.Conn) error {
			if _, err := c.ExecContext(ctx, "BEGIN; INSERT INTO agent_threads (id, wallet, created_at) VALUES ('t', '\\x00', 1)"); err != nil {
				return err
			}
			ctx, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
			defer cancel()
			_, err := c.ExecContext(ctx, "SELECT pg_sleep(1)")
			return err
		}},
	} {
		if err := pgConnTx(ctx, d.bun, tc.fn); err == nil {
			t.Fatalf("%s: no error", tc.name)
		}
		var n int
		var xid *int64
		if err := d.bun.QueryRowContext(ctx, "SELECT count(*), txid_current_if_assigned() FROM agent_threads").Scan(&n, &xid); err != nil {
			t.Fatalf("%s: the next statement: %v", tc.name, err)
		}
		if n != 0 || xid != nil {
			t.Fatalf("%s: after the failure the pool sees %d rows, transaction %v; want 0 and none", tc.name, n, xid)
		}
	}
	// And a transaction that commits keeps its rows.
	if err := pgConnTx(ctx, d.bun, func(ctx context.Context, c bun.Conn) error {
		_, err := c.ExecContext(ctx, "BEGIN; INSERT INTO agent_threads (id, wallet, created_at) VALUES ('t', '\\x00', 1); COMMIT")
		return err
	}); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := d.bun.QueryRowContext(ctx, "SELECT count(*) FROM agent_threads").Scan(&n); err != nil || n != 1 {
		t.Fatalf("after a commit: %d rows, %v", n, err)
	}
}
