package bunstore

import (
	"context"
	"database/sql"
	"fmt"
	"sync"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"
	"github.com/uptrace/bun/dialect/sqlitedialect"
	"github.com/uptrace/bun/driver/pgdriver"
	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

// DB is one database, opened once: every port's store (Market, and the others beside it) is a
// view on it and shares its pool and schema. It is safe for concurrent use.
type DB struct {
	bun     *bun.DB
	dialect dialectKind
	// keyByHash is the API-key lookup, which runs on every request that carries a key,
	// prepared once: parsing it anew took half the lookup's time on SQLite.
	keyByHash preparedQuery
}

// Open opens the database cfg names, brings its schema up to date and returns it. Close releases
// it.
func Open(ctx context.Context, cfg Config) (*DB, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	cfg = cfg.withDefaults()
	d := &DB{dialect: cfg.dialect()}
	var sqldb *sql.DB
	switch d.dialect {
	case dialectPostgres:
		// OpenConnector reports a bad DSN as an error where pgdriver.WithDSN would panic.
		conn, err := pgdriver.NewDriver().OpenConnector(cfg.DSN)
		if err != nil {
			return nil, fmt.Errorf("bunstore: postgres DSN: %w", err)
		}
		sqldb = sql.OpenDB(conn)
		d.bun = bun.NewDB(sqldb, pgdialect.New())
	default:
		var err error
		sqldb, err = sql.Open("sqlite", cfg.sqliteDSN())
		if err != nil {
			return nil, fmt.Errorf("bunstore: open sqlite: %w", err)
		}
		d.bun = bun.NewDB(sqldb, sqlitedialect.New())
	}
	sqldb.SetMaxOpenConns(cfg.MaxOpenConns)
	sqldb.SetMaxIdleConns(cfg.MaxOpenConns)
	// An in-memory SQLite database dies with its connection: never recycle it.
	sqldb.SetConnMaxLifetime(0)
	sqldb.SetConnMaxIdleTime(0)

	if err := d.bun.PingContext(ctx); err != nil {
		d.bun.Close()
		return nil, fmt.Errorf("bunstore: connect: %w", err)
	}
	if err := d.migrate(ctx); err != nil {
		d.bun.Close()
		return nil, err
	}
	return d, nil
}

// Close closes the database.
func (d *DB) Close() error {
	d.keyByHash.close()
	return d.bun.Close()
}

// preparedQuery is a statement prepared at its first successful use and kept until Close (a
// failed preparation is tried again next time). database/sql prepares it again on each pooled
// connection as needed.
type preparedQuery struct {
	mu   sync.Mutex
	stmt *sql.Stmt
}

func (p *preparedQuery) get(ctx context.Context, db *bun.DB, query string) (*sql.Stmt, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.stmt == nil {
		stmt, err := db.DB.PrepareContext(ctx, query)
		if err != nil {
			return nil, err
		}
		p.stmt = stmt
	}
	return p.stmt, nil
}

func (p *preparedQuery) close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.stmt != nil {
		p.stmt.Close()
		p.stmt = nil
	}
}

// Ping checks that the database answers (the server's readiness probe).
func (d *DB) Ping(ctx context.Context) error {
	if err := d.bun.PingContext(ctx); err != nil {
		return fmt.Errorf("bunstore: ping: %w", err)
	}
	return nil
}

// Postgres reports whether d is PostgreSQL (else SQLite).
func (d *DB) Postgres() bool { return d.dialect == dialectPostgres }
