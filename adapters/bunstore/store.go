package bunstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"

	"github.com/uptrace/bun"

	"github.com/curvekit/curvekit/market"
)

// Market is the market.Store on bun, a view on a DB. It is safe for concurrent use.
type Market struct {
	db      *bun.DB
	dialect dialectKind
	// fence is the lease term every write checks (see Fenced); 0 writes unfenced.
	fence uint64
	// vacuum is told how many rows each write replaced (vacuum.go); nil on SQLite.
	vacuum *vacuumer
	// checkpoint is told of each write (checkpoint.go); nil but on a SQLite file.
	checkpoint *checkpointer
	// commonMatches is how many tokens a search must match for SQLite to walk the list's order
	// and check each token's names (tokens.go); searchCommon by default, fewer in tests.
	commonMatches int
}

var _ market.Store = (*Market)(nil)

// Market returns the market store on d.
func (d *DB) Market() *Market {
	return &Market{db: d.bun, dialect: d.dialect, vacuum: d.vacuum, checkpoint: d.checkpoint, commonMatches: searchCommon}
}

// Bind records the chain on first use and refuses another one afterwards.
func (s *Market) Bind(ctx context.Context, chain market.ChainInfo) error {
	want := chainRow{
		ID:          1,
		ChainID:     strconv.FormatUint(chain.ChainID, 10),
		GenesisHash: chain.GenesisHash,
		Factory:     chain.Factory,
	}
	return s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		if err := s.checkFence(ctx, tx); err != nil {
			return err
		}
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
func (s *Market) Reset(ctx context.Context) error {
	return s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		if err := s.checkFence(ctx, tx); err != nil {
			return err
		}
		// Children before parents: trades, claims, holders, bars and search rows reference
		// tokens; the name counts go with them.
		for _, table := range []string{"candle_bars", "candle_bars_pending", "candle_levels", "candle_levels_pending", "trades", "trade_blocks", "fee_claims", "holders", "kings",
			"token_search", "token_names", "tokens", "index_cursor", "chain"} {
			if _, err := tx.NewDelete().TableExpr(table).Where("1 = 1").Exec(ctx); err != nil {
				return fmt.Errorf("bunstore: reset %s: %w", table, err)
			}
		}
		if _, err := tx.NewRaw("UPDATE discovery SET trend_at = 0").Exec(ctx); err != nil {
			return fmt.Errorf("bunstore: reset discovery: %w", err)
		}
		return nil
	})
}

// Cursor returns the last written block, or the zero Cursor.
func (s *Market) Cursor(ctx context.Context) (market.Cursor, error) {
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
