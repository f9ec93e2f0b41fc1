package bunstore_test

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"net/url"
	"os"
	"path/filepath"
	"testing"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"
	"github.com/uptrace/bun/driver/pgdriver"

	"github.com/curvekit/curvekit/adapters/bunstore"
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

func newSQLite(t testing.TB) *bunstore.Store {
	return open(t, bunstore.Config{DSN: filepath.Join(t.TempDir(), "market.db")})
}

func open(t testing.TB, cfg bunstore.Config) *bunstore.Store {
	t.Helper()
	s, err := bunstore.New(context.Background(), cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// newPostgres returns a store in a schema of its own, dropped when the test ends.
func newPostgres(t testing.TB) *bunstore.Store {
	t.Helper()
	dsn := os.Getenv(postgresEnv)
	if dsn == "" {
		t.Skip(postgresEnv + " is not set")
	}
	var b [8]byte
	rand.Read(b[:])
	schema := "bunstore_test_" + hex.EncodeToString(b[:])
	admin := bun.NewDB(mustConnector(t, dsn), pgdialect.New())
	ctx := context.Background()
	if _, err := admin.ExecContext(ctx, "CREATE SCHEMA "+schema); err != nil {
		admin.Close()
		t.Fatalf("create schema: %v", err)
	}
	t.Cleanup(func() {
		if _, err := admin.ExecContext(ctx, "DROP SCHEMA "+schema+" CASCADE"); err != nil {
			t.Errorf("drop schema: %v", err)
		}
		admin.Close()
	})
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	// Registered after the schema's cleanup, so it runs first: the store closes, then the
	// schema is dropped.
	return open(t, bunstore.Config{DSN: u.String(), MaxOpenConns: 4})
}

func mustConnector(t testing.TB, dsn string) *sql.DB {
	t.Helper()
	conn, err := pgdriver.NewDriver().OpenConnector(dsn)
	if err != nil {
		t.Fatal(err)
	}
	return sql.OpenDB(conn)
}
