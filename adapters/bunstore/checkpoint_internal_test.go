package bunstore

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/curvekit/curvekit/market/marketgen"
)

// On a SQLite file no commit checkpoints the log (wal_autocheckpoint is 0 on the pool's
// connections); the store's own connection does, in the background, so the database file takes
// what the writes put in the log while the store is open.
func TestSQLiteCheckpointsInTheBackground(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "m.db")
	d, err := Open(ctx, Config{DSN: path})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	var auto int
	if err := d.bun.NewRaw("PRAGMA wal_autocheckpoint").Scan(ctx, &auto); err != nil || auto != 0 {
		t.Fatalf("wal_autocheckpoint %d (%v), want 0", auto, err)
	}
	g, err := marketgen.New(marketgen.Shape{Tokens: 60, Trades: 3_000, End: time.Now().Unix(), Span: 86400, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	s := d.Market()
	for b := g.NextSpan(1_000); b != nil; b = g.NextSpan(1_000) {
		if err := s.Apply(ctx, b); err != nil {
			t.Fatal(err)
		}
	}
	// The log holds every page the writes made; the file, once checkpointed, as many.
	wal, err := os.Stat(path + "-wal")
	if err != nil {
		t.Fatal(err)
	}
	var size int64
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if size = fi.Size(); size >= wal.Size()/4 {
			return
		}
	}
	t.Fatalf("the database file holds %d bytes after the writes, the log %d: no checkpoint ran", size, wal.Size())
}
