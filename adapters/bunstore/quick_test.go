package bunstore

import (
	"context"
	"testing"

	"github.com/uptrace/bun"

	"github.com/curvekit/curvekit/internal/pgtest"
)

// On PostgreSQL the agent's quick writes run in sessions that commit without waiting for the
// journal's flush, in the DSN's schema; every other write waits for the flush.
func TestQuickPoolSkipsTheFlush(t *testing.T) {
	d, err := Open(context.Background(), Config{DSN: pgtest.Schema(t, "bunstore_quick")})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	setting := func(db *bun.DB, name string) string {
		var v string
		if err := db.QueryRowContext(context.Background(), "SELECT current_setting('"+name+"')").Scan(&v); err != nil {
			t.Fatal(err)
		}
		return v
	}
	if got := setting(d.quick, "synchronous_commit"); got != "off" {
		t.Errorf("quick pool: synchronous_commit %s", got)
	}
	if got := setting(d.bun, "synchronous_commit"); got != "on" {
		t.Errorf("main pool: synchronous_commit %s", got)
	}
	if a, b := setting(d.quick, "search_path"), setting(d.bun, "search_path"); a != b {
		t.Errorf("quick pool's search_path %q, the main pool's %q", a, b)
	}
}

// Warm opens every connection both pools may hold, and they stay open.
func TestWarmOpensThePools(t *testing.T) {
	d, err := Open(context.Background(), Config{DSN: pgtest.Schema(t, "bunstore_warm"), MaxOpenConns: 4})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if err := d.Warm(context.Background()); err != nil {
		t.Fatal(err)
	}
	for name, db := range map[string]*bun.DB{"main": d.bun, "quick": d.quick} {
		st := db.Stats()
		if st.OpenConnections != st.MaxOpenConnections || st.Idle != st.MaxOpenConnections {
			t.Errorf("%s pool after Warm: %d open, %d idle, want %d of each", name, st.OpenConnections, st.Idle, st.MaxOpenConnections)
		}
	}
	if n := d.quick.Stats().MaxOpenConnections; n != 2 {
		t.Errorf("quick pool holds %d, want half the main pool's 4", n)
	}
}
