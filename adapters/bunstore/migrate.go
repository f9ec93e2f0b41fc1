package bunstore

import (
	"context"
	"embed"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strconv"
	"strings"

	"github.com/uptrace/bun"
)

// migrations holds the schema, one directory per dialect with the same versions in each:
// NNNN_name.sql files applied in order, each once, each in its own transaction.
//
//go:embed migrations
var migrations embed.FS

type migration struct {
	version int
	name    string
	sql     string
}

func loadMigrations(dir string) ([]migration, error) {
	entries, err := fs.ReadDir(migrations, dir)
	if err != nil {
		return nil, err
	}
	var out []migration
	for _, e := range entries {
		num, name, ok := strings.Cut(strings.TrimSuffix(e.Name(), ".sql"), "_")
		if !ok || !strings.HasSuffix(e.Name(), ".sql") {
			return nil, fmt.Errorf("bunstore: migration file %s is not NNNN_name.sql", e.Name())
		}
		v, err := strconv.Atoi(num)
		if err != nil {
			return nil, fmt.Errorf("bunstore: migration file %s: %w", e.Name(), err)
		}
		body, err := fs.ReadFile(migrations, path.Join(dir, e.Name()))
		if err != nil {
			return nil, err
		}
		out = append(out, migration{version: v, name: name, sql: string(body)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].version < out[j].version })
	for i := 1; i < len(out); i++ {
		if out[i].version == out[i-1].version {
			return nil, fmt.Errorf("bunstore: two migrations with version %d", out[i].version)
		}
	}
	return out, nil
}

// migrate applies the migrations the database has not seen, through db. Concurrent callers are
// safe: on Postgres an advisory lock serializes them, on SQLite the immediate transaction does.
func (d *DB) migrate(ctx context.Context, db *bun.DB) error {
	dir := "migrations/sqlite"
	if d.dialect == dialectPostgres {
		dir = "migrations/postgres"
	}
	all, err := loadMigrations(dir)
	if err != nil {
		return err
	}
	for _, m := range all {
		err := db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
			if d.dialect == dialectPostgres {
				// An arbitrary constant key ("curvekit" in ASCII) held until the transaction ends.
				if _, err := tx.ExecContext(ctx, "SELECT pg_advisory_xact_lock(7166824001451125611)"); err != nil {
					return err
				}
			}
			if _, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS bunstore_migrations (
				version    INTEGER PRIMARY KEY,
				name       TEXT    NOT NULL
			)`); err != nil {
				return err
			}
			var n int
			if err := tx.QueryRowContext(ctx, "SELECT count(*) FROM bunstore_migrations WHERE version = ?", m.version).Scan(&n); err != nil {
				return err
			}
			if n > 0 {
				return nil
			}
			// Raw driver call: bun would read the '?' in the SQL as placeholders.
			if _, err := tx.Tx.ExecContext(ctx, m.sql); err != nil {
				return err
			}
			_, err := tx.ExecContext(ctx, "INSERT INTO bunstore_migrations (version, name) VALUES (?, ?)", m.version, m.name)
			return err
		})
		if err != nil {
			return fmt.Errorf("bunstore: migration %04d_%s: %w", m.version, m.name, err)
		}
	}
	return nil
}
