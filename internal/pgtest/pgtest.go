// Package pgtest gives tests a PostgreSQL schema of their own on the server that
// CURVEKIT_TEST_POSTGRES names (.ci/run sets it for the local server), dropped when the test ends.
package pgtest

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"net/url"
	"os"
	"testing"

	"github.com/uptrace/bun/driver/pgdriver"
)

// Env names the variable that holds the DSN; unset, PostgreSQL tests skip.
const Env = "CURVEKIT_TEST_POSTGRES"

// Schema creates a schema named after prefix, drops it when t ends, and returns a DSN whose
// search_path is that schema. It skips t when CURVEKIT_TEST_POSTGRES is not set.
func Schema(t testing.TB, prefix string) string {
	t.Helper()
	dsn := os.Getenv(Env)
	if dsn == "" {
		t.Skip(Env + " is not set")
	}
	admin := Connect(t, dsn)
	var b [8]byte
	_, _ = rand.Read(b[:])
	schema := prefix + "_" + hex.EncodeToString(b[:])
	if _, err := admin.ExecContext(context.Background(), "CREATE SCHEMA "+schema); err != nil {
		admin.Close()
		t.Fatalf("create schema: %v", err)
	}
	t.Cleanup(func() {
		if _, err := admin.ExecContext(context.Background(), "DROP SCHEMA "+schema+" CASCADE"); err != nil {
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
	return u.String()
}

// Connect opens a plain database/sql handle on dsn.
func Connect(t testing.TB, dsn string) *sql.DB {
	t.Helper()
	conn, err := pgdriver.NewDriver().OpenConnector(dsn)
	if err != nil {
		t.Fatal(err)
	}
	return sql.OpenDB(conn)
}
