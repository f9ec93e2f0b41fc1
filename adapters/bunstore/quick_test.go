package bunstore

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"github.com/curvekit/curvekit/agent"
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
	// Both plan prepared statements once, generically, unless the DSN says otherwise.
	for name, db := range map[string]*bun.DB{"main": d.bun, "quick": d.quick} {
		if got := setting(db, "plan_cache_mode"); got != "force_generic_plan" {
			t.Errorf("%s pool: plan_cache_mode %s", name, got)
		}
	}
	chosen, err := Open(context.Background(), Config{DSN: pgtest.Schema(t, "bunstore_plans") + "&plan_cache_mode=auto"})
	if err != nil {
		t.Fatal(err)
	}
	defer chosen.Close()
	for name, db := range map[string]*bun.DB{"main": chosen.bun, "quick": chosen.quick} {
		if got := setting(db, "plan_cache_mode"); got != "auto" {
			t.Errorf("%s pool with plan_cache_mode=auto in the DSN: %s", name, got)
		}
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
	var written int
	if err := d.bun.NewRaw(`SELECT (SELECT count(*) FROM agent_jobs) + (SELECT count(*) FROM agent_memory) +
		(SELECT count(*) FROM agent_threads) + (SELECT count(*) FROM pg_locks WHERE locktype = 'advisory')`).Scan(context.Background(), &written); err != nil || written != 0 {
		t.Errorf("after Warm: %d rows or advisory locks, %v; want none", written, err)
	}
	if n := d.quick.Stats().MaxOpenConnections; n != 2 {
		t.Errorf("quick pool holds %d, want half the main pool's 4", n)
	}
	// Every connection has the hot statements prepared: each pool's connections, all held at
	// once, list them in their sessions.
	for name, pool := range map[string]struct {
		db   *bun.DB
		want []string
	}{"main": {d.bun, []string{d.agentSQL.getJob, d.agentSQL.completeJob, keyByHashPG}}, "quick": {d.quick, []string{d.agentSQL.claim}}} {
		var conns []bun.Conn
		for range pool.db.Stats().MaxOpenConnections {
			c, err := pool.db.Conn(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			conns = append(conns, c)
		}
		for i, c := range conns {
			var got []string
			if err := c.NewRaw("SELECT statement FROM pg_prepared_statements").Scan(context.Background(), &got); err != nil {
				t.Fatal(err)
			}
			for _, q := range pool.want {
				if !slices.Contains(got, q) {
					t.Errorf("%s pool, connection %d: not prepared: %.60s", name, i, q)
				}
			}
		}
	}
}

// On SQLite, Warm opens the pool's connections and takes no lock the server's first writes would
// wait for.
func TestWarmSQLite(t *testing.T) {
	d, err := Open(context.Background(), Config{DSN: filepath.Join(t.TempDir(), "warm.db"), MaxOpenConns: 4})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if err := d.Warm(context.Background()); err != nil {
		t.Fatal(err)
	}
	if st := d.bun.Stats(); st.OpenConnections != 4 || st.Idle != 4 {
		t.Errorf("after Warm: %d open, %d idle, want 4 of each", st.OpenConnections, st.Idle)
	}
	if _, err := d.bun.ExecContext(context.Background(), "INSERT INTO agent_threads (id, wallet, created_at) VALUES ('t', x'00', 1)"); err != nil {
		t.Fatal(err)
	}
}

// On SQLite the agent's writes queue in process: a write waits while another holds the turn,
// gives up when its context ends, and goes through once the turn is free.
func TestAgentWritesQueueOnSQLite(t *testing.T) {
	ctx := context.Background()
	d, err := Open(ctx, Config{DSN: filepath.Join(t.TempDir(), "gate.db")})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	a := d.Agent()
	release, err := a.writing(ctx)
	if err != nil {
		t.Fatal(err)
	}
	p := &agent.InsertJobParams{ID: "job-1", ThreadID: "thr", Prompt: "p", CreatedAt: time.UnixMilli(1), MaxPending: 5}
	short, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	if _, err := a.InsertJob(short, p); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a write while another holds the turn: %v, want the context's end", err)
	}
	release()
	if _, err := a.InsertJob(ctx, p); err != nil {
		t.Fatalf("the write once the turn is free: %v", err)
	}
}
