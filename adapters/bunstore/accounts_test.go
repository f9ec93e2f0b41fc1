package bunstore_test

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/curvekit/curvekit/adapters/bunstore"
	"github.com/curvekit/curvekit/auth/authtest"
)

func TestAccountsSQLite(t *testing.T) {
	t.Parallel()
	authtest.Run(t, func(t *testing.T) authtest.Harness {
		path := filepath.Join(t.TempDir(), "accounts.db")
		db := openDB(t, bunstore.Config{DSN: path})
		return authtest.Harness{
			Accounts: db.Accounts(),
			Contents: func(t *testing.T) []byte {
				raw, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
				if err != nil {
					t.Fatal(err)
				}
				defer raw.Close()
				out := dumpTables(t, raw, "SELECT name FROM sqlite_master WHERE type = 'table'")
				// The files as well: a secret in a freed page or the WAL is still at rest.
				for _, f := range []string{path, path + "-wal"} {
					if b, err := os.ReadFile(f); err == nil {
						out = append(out, b...)
					}
				}
				return out
			},
		}
	})
}

func TestAccountsPostgres(t *testing.T) {
	t.Parallel()
	authtest.Run(t, func(t *testing.T) authtest.Harness {
		dsn := postgresSchema(t)
		db := openDB(t, bunstore.Config{DSN: dsn, MaxOpenConns: 8})
		return authtest.Harness{
			Accounts: db.Accounts(),
			Contents: func(t *testing.T) []byte {
				raw := mustConnector(t, dsn)
				defer raw.Close()
				return dumpTables(t, raw, "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()")
			},
		}
	})
}

// dumpTables returns every value of every table that listTables names, text and bytes alike.
func dumpTables(t *testing.T, db *sql.DB, listTables string) []byte {
	t.Helper()
	ctx := context.Background()
	var tables []string
	rows, err := db.QueryContext(ctx, listTables)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			t.Fatal(err)
		}
		tables = append(tables, name)
	}
	if err := rows.Close(); err != nil {
		t.Fatal(err)
	}
	if len(tables) == 0 {
		t.Fatal("no tables found")
	}
	var out bytes.Buffer
	for _, table := range tables {
		rows, err := db.QueryContext(ctx, "SELECT * FROM "+table)
		if err != nil {
			t.Fatalf("%s: %v", table, err)
		}
		cols, err := rows.Columns()
		if err != nil {
			t.Fatal(err)
		}
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		for rows.Next() {
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatalf("%s: %v", table, err)
			}
			for _, v := range vals {
				switch v := v.(type) {
				case []byte:
					out.Write(v)
				case nil:
				default:
					fmt.Fprint(&out, v)
				}
				out.WriteByte(0)
			}
		}
		if err := rows.Close(); err != nil {
			t.Fatal(err)
		}
	}
	return out.Bytes()
}
