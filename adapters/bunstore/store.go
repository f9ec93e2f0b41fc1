package bunstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"
	"github.com/uptrace/bun/dialect/sqlitedialect"
	"github.com/uptrace/bun/driver/pgdriver"
	_ "modernc.org/sqlite" // registers the "sqlite" driver

	"github.com/curvekit/curvekit/market"
)

// Store is the market.Store on bun. It is safe for concurrent use.
type Store struct {
	db      *bun.DB
	dialect dialectKind
}

var _ market.Store = (*Store)(nil)

// New opens the database cfg names, brings its schema up to date and returns the store. Close
// releases it.
func New(ctx context.Context, cfg Config) (*Store, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	cfg = cfg.withDefaults()
	s := &Store{dialect: cfg.dialect()}
	var sqldb *sql.DB
	switch s.dialect {
	case dialectPostgres:
		// OpenConnector reports a bad DSN as an error where pgdriver.WithDSN would panic.
		conn, err := pgdriver.NewDriver().OpenConnector(cfg.DSN)
		if err != nil {
			return nil, fmt.Errorf("bunstore: postgres DSN: %w", err)
		}
		sqldb = sql.OpenDB(conn)
		s.db = bun.NewDB(sqldb, pgdialect.New())
	default:
		var err error
		sqldb, err = sql.Open("sqlite", cfg.sqliteDSN())
		if err != nil {
			return nil, fmt.Errorf("bunstore: open sqlite: %w", err)
		}
		s.db = bun.NewDB(sqldb, sqlitedialect.New())
	}
	sqldb.SetMaxOpenConns(cfg.MaxOpenConns)
	sqldb.SetMaxIdleConns(cfg.MaxOpenConns)
	// An in-memory SQLite database dies with its connection: never recycle it.
	sqldb.SetConnMaxLifetime(0)
	sqldb.SetConnMaxIdleTime(0)

	if err := s.db.PingContext(ctx); err != nil {
		s.db.Close()
		return nil, fmt.Errorf("bunstore: connect: %w", err)
	}
	if err := s.migrate(ctx); err != nil {
		s.db.Close()
		return nil, err
	}
	return s, nil
}

// Close closes the database.
func (s *Store) Close() error {
	return s.db.Close()
}

// Bind records the chain on first use and refuses another one afterwards.
func (s *Store) Bind(ctx context.Context, chain market.ChainInfo) error {
	want := chainRow{
		ID:          1,
		ChainID:     strconv.FormatUint(chain.ChainID, 10),
		GenesisHash: chain.GenesisHash,
		Factory:     chain.Factory,
	}
	return s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		if _, err := tx.NewInsert().Model(&want).On("CONFLICT (id) DO NOTHING").Exec(ctx); err != nil {
			return fmt.Errorf("bunstore: bind: %w", err)
		}
		var got chainRow
		if err := tx.NewSelect().Model(&got).Where("id = 1").Scan(ctx); err != nil {
			return fmt.Errorf("bunstore: bind: %w", err)
		}
		if got != want {
			return fmt.Errorf("%w: bound to chain %s genesis %s factory %s, not chain %s genesis %s factory %s",
				market.ErrChainMismatch, got.ChainID, got.GenesisHash, got.Factory,
				want.ChainID, want.GenesisHash, want.Factory)
		}
		return nil
	})
}

// Reset deletes every row, the chain binding included.
func (s *Store) Reset(ctx context.Context) error {
	return s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		// Children before parents: trades and claims reference tokens.
		for _, table := range []string{"trades", "fee_claims", "tokens", "index_cursor", "chain"} {
			if _, err := tx.NewDelete().TableExpr(table).Where("1 = 1").Exec(ctx); err != nil {
				return fmt.Errorf("bunstore: reset %s: %w", table, err)
			}
		}
		return nil
	})
}

// Cursor returns the last written block, or the zero Cursor.
func (s *Store) Cursor(ctx context.Context) (market.Cursor, error) {
	var row cursorRow
	err := s.db.NewSelect().Model(&row).Where("id = 1").Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return market.Cursor{}, nil
	}
	if err != nil {
		return market.Cursor{}, fmt.Errorf("bunstore: cursor: %w", err)
	}
	return market.Cursor{Block: uint64(row.Block), Hash: row.Hash}, nil
}
