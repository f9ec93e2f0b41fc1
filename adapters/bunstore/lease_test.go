package bunstore_test

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/curvekit/curvekit/adapters/bunstore"
	"github.com/curvekit/curvekit/market"
	"github.com/curvekit/curvekit/market/markettest"
)

var chain = market.ChainInfo{ChainID: 1337, GenesisHash: common.Hash{1}, Factory: common.Address{2}}

// batch is a batch that only moves the cursor to block n.
func batch(n uint64) *market.Batch {
	return &market.Batch{Cursor: market.Cursor{Block: n, Hash: common.Hash{byte(n)}}}
}

func TestLeaseSQLite(t *testing.T) {
	t.Parallel()
	markettest.RunLease(t, func(t *testing.T) market.Lease {
		return openDB(t, bunstore.Config{DSN: filepath.Join(t.TempDir(), "lease.db")}).Lease()
	})
}

func TestLeasePostgres(t *testing.T) {
	t.Parallel()
	markettest.RunLease(t, func(t *testing.T) market.Lease {
		return openDB(t, bunstore.Config{DSN: postgresSchema(t)}).Lease()
	})
}

// A fenced store writes while its term is the lease's, and refuses every write, in the write's
// own transaction, once the lease has passed to a newer term: a leader paused past its lease
// can never commit again.
func TestFencedWrites(t *testing.T) {
	for name, dsn := range map[string]func(t *testing.T) string{
		"SQLite":   func(t *testing.T) string { return filepath.Join(t.TempDir(), "fence.db") },
		"Postgres": func(t *testing.T) string { return postgresSchema(t) },
	} {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			db := openDB(t, bunstore.Config{DSN: dsn(t)})
			lease := db.Lease()
			a, ok, err := lease.Acquire(ctx, "a", 100*time.Millisecond)
			if err != nil || !ok {
				t.Fatal(ok, err)
			}
			fenced := db.Market().Fenced(a.Term)
			if err := fenced.Bind(ctx, chain); err != nil {
				t.Fatalf("a write under the live term: %v", err)
			}
			if err := fenced.Apply(ctx, batch(1)); err != nil {
				t.Fatalf("apply under the live term: %v", err)
			}
			time.Sleep(200 * time.Millisecond) // a is paused past its lease
			if _, ok, err := lease.Acquire(ctx, "b", time.Minute); err != nil || !ok {
				t.Fatal(ok, err)
			}
			for what, write := range map[string]func() error{
				"apply":    func() error { return fenced.Apply(ctx, batch(2)) },
				"rollback": func() error { return fenced.Rollback(ctx, &market.Rollback{To: market.Cursor{}}) },
				"reset":    func() error { return fenced.Reset(ctx) },
				"bind":     func() error { return fenced.Bind(ctx, chain) },
			} {
				if err := write(); !errors.Is(err, market.ErrFenced) {
					t.Errorf("%s by the paused leader: %v, want ErrFenced", what, err)
				}
			}
			cur, err := db.Market().Cursor(ctx)
			if err != nil || cur.Block != 1 {
				t.Fatalf("the store moved under a fenced write: %+v %v", cur, err)
			}
		})
	}
}
