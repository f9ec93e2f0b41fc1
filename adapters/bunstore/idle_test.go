package bunstore

import (
	"context"
	"testing"
	"time"

	"github.com/curvekit/curvekit/internal/pgtest"
)

// A writer frozen in the middle of a fenced write holds the lease's row locked. The server ends
// its idle transaction after IdleInTransaction, so the next holder takes the lease once it runs
// out instead of waiting for the frozen one to resume, and the frozen write never commits.
func TestFrozenWriteLetsTheLeaseGo(t *testing.T) {
	ctx := context.Background()
	d, err := Open(ctx, Config{DSN: pgtest.Schema(t, "bunstore_idle"), IdleInTransaction: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	var setting string
	if err := d.bun.QueryRowContext(ctx, "SELECT current_setting('idle_in_transaction_session_timeout')").Scan(&setting); err != nil || setting != "300ms" {
		t.Fatalf("idle_in_transaction_session_timeout %q, %v; want 300ms", setting, err)
	}
	lease := d.Lease()
	first, ok, err := lease.Acquire(ctx, "frozen", 200*time.Millisecond)
	if err != nil || !ok {
		t.Fatalf("Acquire: %v, %v", ok, err)
	}
	tx, err := d.bun.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := checkTerm(ctx, tx, d.dialect, first.Term); err != nil {
		t.Fatal(err)
	}
	// Frozen here, holding the row; the lease runs out.
	time.Sleep(250 * time.Millisecond)
	wait, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	next, ok, err := lease.Acquire(wait, "next", time.Second)
	if err != nil || !ok || next.Term != first.Term+1 {
		t.Fatalf("the next holder's Acquire: %+v, %v, %v; want term %d", next, ok, err, first.Term+1)
	}
	if err := tx.Commit(); err == nil {
		t.Fatal("the frozen write committed after the lease passed on")
	}
}
