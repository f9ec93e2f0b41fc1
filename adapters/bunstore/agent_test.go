package bunstore_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/google/go-cmp/cmp"

	"github.com/curvekit/curvekit/adapters/bunstore"
	"github.com/curvekit/curvekit/agent"
	"github.com/curvekit/curvekit/agent/agenttest"
)

func agentStores(db *bunstore.DB) agenttest.Stores {
	a := db.Agent()
	return agenttest.Stores{Jobs: a, Memory: a, Threads: a, Changes: a, Events: db.Push()}
}

func TestAgentSQLite(t *testing.T) {
	t.Parallel()
	agenttest.Run(t, func(t *testing.T) agenttest.Stores {
		return agentStores(openDB(t, bunstore.Config{DSN: filepath.Join(t.TempDir(), "agent.db")}))
	})
}

func TestAgentPostgres(t *testing.T) {
	t.Parallel()
	agenttest.Run(t, func(t *testing.T) agenttest.Stores {
		return agentStores(openDB(t, bunstore.Config{DSN: postgresSchema(t), MaxOpenConns: 4}))
	})
}

// The migration that made threads per account keeps the threads and turns that were there: each
// stays its wallet's, numbered on from its last turn, and the same id in another wallet is new.
func TestAgentThreadsKeptByMigrationSQLite(t *testing.T) {
	t.Parallel()
	dsn := filepath.Join(t.TempDir(), "old.db")
	raw, err := sql.Open("sqlite", dsn)
	if err != nil {
		t.Fatal(err)
	}
	testThreadsKeptByMigration(t, raw, "sqlite", dsn)
}

func TestAgentThreadsKeptByMigrationPostgres(t *testing.T) {
	t.Parallel()
	dsn := postgresSchema(t)
	testThreadsKeptByMigration(t, mustConnector(t, dsn), "postgres", dsn)
}

// testThreadsKeptByMigration builds the schema as migrations 0001 to 0009 left it, with threads
// and turns, in raw, then opens the store on dsn, which migrates the rest.
func testThreadsKeptByMigration(t *testing.T, raw *sql.DB, dialect, dsn string) {
	ctx := context.Background()
	exec := oldSchema(t, raw, dialect, 9)
	a, b := common.HexToAddress("0xaa"), common.HexToAddress("0xbb")
	exec("INSERT INTO agent_threads (id, wallet, created_at) VALUES (?, ?, 1), (?, ?, 2)", "chat-1", a[:], "notes", b[:])
	exec("INSERT INTO agent_turns (thread_id, seq, prompt, response, at) VALUES (?, 1, 'q1', 'r1', 10), (?, 2, 'q2', 'r2', 11), (?, 1, 'n1', 'm1', 12)",
		"chat-1", "chat-1", "notes")
	if err := raw.Close(); err != nil {
		t.Fatal(err)
	}

	s := openDB(t, bunstore.Config{DSN: dsn}).Agent()
	turn := func(p, r string, ms int64) agent.Turn {
		return agent.Turn{Prompt: p, Response: r, At: time.UnixMilli(ms).UTC()}
	}
	for _, w := range []common.Address{a, b} {
		if err := s.AppendTurn(ctx, &agent.AppendTurnParams{Thread: "chat-1", Wallet: w, Turn: turn("new", "", 20)}); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		w      common.Address
		thread string
		want   []agent.Turn
	}{
		{a, "chat-1", []agent.Turn{turn("q1", "r1", 10), turn("q2", "r2", 11), turn("new", "", 20)}},
		{b, "chat-1", []agent.Turn{turn("new", "", 20)}},
		{b, "notes", []agent.Turn{turn("n1", "m1", 12)}},
		{a, "notes", []agent.Turn{}},
	} {
		got, err := s.Turns(ctx, &agent.TurnsParams{Wallet: tc.w, Thread: tc.thread, Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%s's %s after the migration (-want +got):\n%s", tc.w, tc.thread, diff)
		}
	}
}
