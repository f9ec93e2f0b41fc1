package bunstore_test

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/curvekit/curvekit/adapters/bunstore"
	"github.com/curvekit/curvekit/internal/pgtest"
	"github.com/curvekit/curvekit/market"
	"github.com/curvekit/curvekit/market/markettest"
)

// postgresEnv names the variable that holds a PostgreSQL DSN to test against; unset, the
// PostgreSQL tests are skipped.
const postgresEnv = "CURVEKIT_TEST_POSTGRES"

func TestSQLite(t *testing.T) {
	t.Parallel()
	markettest.Run(t, func(t *testing.T) market.Store { return newSQLite(t) })
}

func TestSQLiteMemory(t *testing.T) {
	t.Parallel()
	markettest.Run(t, func(t *testing.T) market.Store {
		return open(t, bunstore.Config{DSN: "file::memory:"})
	})
}

func TestPostgres(t *testing.T) {
	t.Parallel()
	markettest.Run(t, func(t *testing.T) market.Store { return newPostgres(t) })
}

func newSQLite(t testing.TB) *bunstore.Market {
	return open(t, bunstore.Config{DSN: filepath.Join(t.TempDir(), "market.db")})
}

func open(t testing.TB, cfg bunstore.Config) *bunstore.Market {
	t.Helper()
	return openDB(t, cfg).Market()
}

func openDB(t testing.TB, cfg bunstore.Config) *bunstore.DB {
	t.Helper()
	db, err := bunstore.Open(context.Background(), cfg)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// newPostgres returns a store in a schema of its own, dropped when the test ends.
func newPostgres(t testing.TB) *bunstore.Market {
	t.Helper()
	// Registered after the schema's cleanup, so it runs first: the store closes, then the
	// schema is dropped.
	return open(t, bunstore.Config{DSN: postgresSchema(t), MaxOpenConns: 4})
}

// postgresSchema is a schema of the test's own (see pgtest.Schema).
func postgresSchema(t testing.TB) string { return pgtest.Schema(t, "bunstore_test") }

func mustConnector(t testing.TB, dsn string) *sql.DB { return pgtest.Connect(t, dsn) }

func TestNewRefusesBadConfig(t *testing.T) {
	t.Parallel()
	for name, cfg := range map[string]bunstore.Config{
		"empty DSN":              {},
		"negative pool":          {DSN: filepath.Join(t.TempDir(), "x.db"), MaxOpenConns: -1},
		"negative busy timeout":  {DSN: filepath.Join(t.TempDir(), "x.db"), BusyTimeout: -1},
		"pooled memory database": {DSN: "file::memory:", MaxOpenConns: 2},
		"bad SQLite query":       {DSN: "x.db?a=%zz"},
		"bad postgres DSN":       {DSN: "postgres://u@h:5432/db?sslmode=sometimes"},
		"postgres unreachable":   {DSN: "postgres://postgres@127.0.0.1:1/test?sslmode=disable"},
	} {
		db, err := bunstore.Open(context.Background(), cfg)
		if err == nil {
			db.Close()
			t.Errorf("%s: Open succeeded", name)
			continue
		}
		t.Logf("%s: %v", name, err)
	}
}

// A store opened again finds its data and its migrations applied; stores opened at once on one
// database migrate it once.
func TestReopen(t *testing.T) {
	t.Parallel()
	t.Run("sqlite", func(t *testing.T) {
		t.Parallel()
		path := filepath.Join(t.TempDir(), "market.db")
		testReopen(t, path, "file:"+path+"?mode=rw")
	})
	t.Run("postgres", func(t *testing.T) {
		t.Parallel()
		dsn := postgresSchema(t)
		testReopen(t, dsn, dsn)
	})
}

func testReopen(t *testing.T, dsn, again string) {
	ctx := context.Background()
	const n = 4
	stores := make(chan *bunstore.DB, n)
	errs := make(chan error, n)
	for range n {
		go func() {
			s, err := bunstore.Open(ctx, bunstore.Config{DSN: dsn})
			if err != nil {
				errs <- err
				return
			}
			stores <- s
		}()
	}
	for range n {
		select {
		case err := <-errs:
			t.Fatalf("concurrent New: %v", err)
		case s := <-stores:
			s.Close()
		}
	}
	db := openDB(t, bunstore.Config{DSN: dsn})
	s := db.Market()
	if err := s.Bind(ctx, market.ChainInfo{ChainID: 1337}); err != nil {
		t.Fatal(err)
	}
	if err := s.Apply(ctx, &market.Batch{Cursor: market.Cursor{Block: 7}}); err != nil {
		t.Fatal(err)
	}
	db.Close()
	s = open(t, bunstore.Config{DSN: again})
	if cur, err := s.Cursor(ctx); err != nil || cur.Block != 7 {
		t.Fatalf("Cursor after reopening = %+v, %v; want block 7", cur, err)
	}
	if err := s.Bind(ctx, market.ChainInfo{ChainID: 1}); !errors.Is(err, market.ErrChainMismatch) {
		t.Fatalf("Bind to another chain after reopening: %v", err)
	}
}

// A new SQLite database and its WAL files are readable by their owner only; a DSN of another
// database's scheme is refused rather than taken for a file name.
func TestSQLiteFilesArePrivate(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "private.db")
	db := openDB(t, bunstore.Config{DSN: path})
	if err := db.Market().Bind(context.Background(), market.ChainInfo{ChainID: 1337}); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		st, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if mode := st.Mode().Perm(); mode != 0o600 {
			t.Errorf("%s has mode %o, want 600", filepath.Base(p), mode)
		}
	}
	for _, dsn := range []string{"mysql://x", "redis://127.0.0.1:6379", "sqlite3://x"} {
		if _, err := bunstore.Open(context.Background(), bunstore.Config{DSN: dsn}); err == nil || !strings.Contains(err.Error(), "unknown database scheme") {
			t.Errorf("Open(%q) = %v", dsn, err)
		}
	}
	if entries, _ := os.ReadDir("."); slices.ContainsFunc(entries, func(e os.DirEntry) bool { return strings.HasPrefix(e.Name(), "mysql:") }) {
		t.Error("a file named after the refused DSN was created")
	}
}
