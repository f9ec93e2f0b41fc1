package bunstore

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/driver/pgdriver"

	"github.com/curvekit/curvekit"
	"github.com/curvekit/curvekit/market"
)

// insertChunk bounds the rows of one multi-row INSERT; bun inlines the values, so this keeps
// statements around a megabyte.
const insertChunk = 1000

// Apply writes the batch and its cursor in one transaction.
func (s *Market) Apply(ctx context.Context, b *market.Batch) error {
	if b == nil {
		return fmt.Errorf("%w: nil batch", curvekit.ErrInvalid)
	}
	// Convert before the transaction opens: a value that cannot be stored fails fast.
	launches := make([]tokenRow, len(b.Launches))
	for i := range b.Launches {
		r, err := newTokenRow(&b.Launches[i])
		if err != nil {
			return err
		}
		launches[i] = r
	}
	updates := make([]tokenRow, len(b.Updates))
	for i := range b.Updates {
		r, err := newTokenRow(&b.Updates[i])
		if err != nil {
			return err
		}
		updates[i] = r
	}
	trades := make([]tradeRow, len(b.Trades))
	for i := range b.Trades {
		r, err := newTradeRow(&b.Trades[i])
		if err != nil {
			return err
		}
		trades[i] = r
	}
	claims := make([]claimRow, len(b.Claims))
	for i := range b.Claims {
		r, err := newClaimRow(&b.Claims[i])
		if err != nil {
			return err
		}
		claims[i] = r
	}
	cursorBlock, err := toInt64("cursor block", b.Cursor.Block)
	if err != nil {
		return err
	}

	// On PostgreSQL the transaction runs on a connection of its own, which COPY also uses.
	run := func(fn func(ctx context.Context, tx bun.Tx) error) error { return s.db.RunInTx(ctx, nil, fn) }
	var conn *bun.Conn
	if s.dialect == dialectPostgres {
		c, err := s.db.Conn(ctx)
		if err != nil {
			return fmt.Errorf("bunstore: apply batch to block %d: %w", b.Cursor.Block, err)
		}
		defer c.Close()
		conn = &c
		run = func(fn func(ctx context.Context, tx bun.Tx) error) error { return c.RunInTx(ctx, nil, fn) }
	}
	err = run(func(ctx context.Context, tx bun.Tx) error {
		if err := s.checkFence(ctx, tx); err != nil {
			return err
		}
		if err := s.lockDiscovery(ctx, tx); err != nil {
			return err
		}
		// A batch for blocks the store already holds is applied again: its rows change
		// nothing, and the discovery state it moved stays as it is.
		var stored []int64
		if err := tx.NewSelect().Model((*cursorRow)(nil)).Column("block_number").Where("id = 1").Scan(ctx, &stored); err != nil {
			return fmt.Errorf("cursor: %w", err)
		}
		after := int64(-1)
		if len(stored) == 1 {
			after = stored[0]
		}
		var m *move
		if fresh := cursorBlock > after; fresh {
			var err error
			if m, err = beginDiscovery(ctx, tx, b); err != nil {
				return err
			}
		}
		names, err := launchedNames(ctx, tx, launches)
		if err != nil {
			return err
		}
		if err := insertChunks(ctx, tx, launches, "CONFLICT (address) DO NOTHING"); err != nil {
			return fmt.Errorf("launches: %w", err)
		}
		if err := insertChunks(ctx, tx, searchRows(launches), "CONFLICT (address) DO NOTHING"); err != nil {
			return fmt.Errorf("launches: %w", err)
		}
		if s.dialect == dialectPostgres {
			if err := insertChunks(ctx, tx, rankRows(launches), "CONFLICT (address) DO NOTHING"); err != nil {
				return fmt.Errorf("launches: %w", err)
			}
		}
		if err := names.write(ctx, tx); err != nil {
			return err
		}
		if err := checkTokensExist(ctx, tx, b); err != nil {
			return err
		}
		if err := insertTrades(ctx, tx, conn, trades, after, m != nil); err != nil {
			return fmt.Errorf("trades: %w", err)
		}
		if err := writeBars(ctx, tx, b.Trades); err != nil {
			return err
		}
		if err := insertChunks(ctx, tx, claims, "CONFLICT DO NOTHING"); err != nil {
			return fmt.Errorf("claims: %w", err)
		}
		delta, err := writeHoldings(ctx, tx, b.Holdings)
		if err != nil {
			return err
		}
		if m == nil {
			// Applied again: the states and holder counts, not the discovery figures.
			if err := updateTokens(ctx, tx, updates, false); err != nil {
				return fmt.Errorf("updates: %w", err)
			}
			if err := countHolders(ctx, tx, delta); err != nil {
				return err
			}
		} else if err := finishDiscovery(ctx, tx, s.dialect, m, b, after, updates, delta); err != nil {
			return err
		}
		return writeCursor(ctx, tx, cursorBlock, b.Cursor.Hash)
	})
	if err != nil {
		return fmt.Errorf("bunstore: apply batch to block %d: %w", b.Cursor.Block, err)
	}
	// About the row versions the batch replaced: a token and its minute, five-minute, hour and
	// day bars per trade at most, a holder pair per holding.
	s.vacuum.wrote(len(b.Updates) + len(b.Holdings) + 5*len(b.Trades))
	s.checkpoint.wrote()
	return nil
}

// insertTrades writes trades the store does not hold, and the hash of each of their blocks it
// does not hold (a block's first trades write its hash, which stays until a rollback deletes the
// block's trades). On PostgreSQL (conn set), for a batch after the stored cursor (fresh), the
// trades of its blocks after the cursor go by COPY, once each: the store holds none of them.
// Should one be stored all the same (a batch applied before with a cursor below its own
// trades), the copy is undone and they are inserted.
func insertTrades(ctx context.Context, tx bun.Tx, conn *bun.Conn, trades []tradeRow, after int64, fresh bool) error {
	const skip = "CONFLICT DO NOTHING"
	if len(trades) == 0 {
		return nil
	}
	var blocks []tradeBlockRow
	seenBlock := make(map[int64]bool)
	for i := range trades {
		if t := &trades[i]; !seenBlock[t.Block] {
			seenBlock[t.Block] = true
			blocks = append(blocks, tradeBlockRow{Block: t.Block, Hash: t.BlockHash})
		}
	}
	if err := insertChunks(ctx, tx, blocks, skip); err != nil {
		return err
	}
	if conn == nil || !fresh {
		return insertChunks(ctx, tx, trades, skip)
	}
	type key struct {
		block int64
		log   int32
	}
	seen := make(map[key]bool, len(trades))
	var again, news []tradeRow
	for i := range trades {
		switch k := (key{trades[i].Block, trades[i].LogIndex}); {
		case trades[i].Block <= after:
			again = append(again, trades[i])
		case !seen[k]:
			seen[k] = true
			news = append(news, trades[i])
		}
	}
	if err := insertChunks(ctx, tx, again, skip); err != nil {
		return err
	}
	if len(news) == 0 {
		return nil
	}
	if _, err := tx.ExecContext(ctx, "SAVEPOINT copy_trades"); err != nil {
		return err
	}
	err := copyInto(ctx, *conn, "trades", tradeCopy(news))
	if pgErr := (pgdriver.Error{}); errors.As(err, &pgErr) && pgErr.Field('C') == "23505" {
		if _, err := tx.ExecContext(ctx, "ROLLBACK TO SAVEPOINT copy_trades"); err != nil {
			return err
		}
		return insertChunks(ctx, tx, news, skip)
	}
	if err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, "RELEASE SAVEPOINT copy_trades")
	return err
}

func insertChunks[T any](ctx context.Context, tx bun.Tx, rows []T, on string) error {
	for len(rows) > 0 {
		n := min(len(rows), insertChunk)
		chunk := rows[:n]
		if _, err := tx.NewInsert().Model(&chunk).On(on).Exec(ctx); err != nil {
			return err
		}
		rows = rows[n:]
	}
	return nil
}

// writeValues writes the row marks of a VALUES list of n rows to sb: the first row as first (on
// PostgreSQL, casts that type the list's columns, which it takes from its first row), the others
// as rest.
func writeValues(sb *strings.Builder, first, rest string, n int) {
	for i := range n {
		if i == 0 {
			sb.WriteString(first)
		} else {
			sb.WriteString(", " + rest)
		}
	}
}

// updateTokens writes the mutable columns of tokens that checkTokensExist found stored, in one
// statement: an upsert whose insert branch never runs is a bulk update that both dialects accept
// without per-column casts. A token updated twice in a batch keeps its last update, as the port
// says; the upsert itself may touch each row once. With figures, it writes the rows' discovery
// figures too and adds their Holders to the stored count, so that a batch writes each token
// once.
func updateTokens(ctx context.Context, tx bun.Tx, updates []tokenRow, figures bool) error {
	if len(updates) == 0 {
		return nil
	}
	last := make(map[common.Address]int, len(updates))
	for i := range updates {
		last[updates[i].Address] = i
	}
	rows := make([]tokenRow, 0, len(last))
	for i := range updates {
		if last[updates[i].Address] == i {
			rows = append(rows, updates[i])
		}
	}
	q := tx.NewInsert().Model(&rows).On("CONFLICT (address) DO UPDATE")
	for _, col := range tokenMutable {
		q.Set(col + " = EXCLUDED." + col)
	}
	if figures {
		for _, col := range figureColumns {
			q.Set(col + " = EXCLUDED." + col)
		}
		q.Set("holders = t.holders + EXCLUDED.holders")
	}
	_, err := q.Exec(ctx)
	return err
}

// checkTokensExist fails with ErrInvalid when the batch trades, claims or updates a token that is
// neither stored nor launched by it. It runs after the launches are inserted, so it asks the
// database alone. The foreign keys would catch a trade or a claim too, but with an error that
// differs per driver, and an update of a missing row would pass silently.
func checkTokensExist(ctx context.Context, tx bun.Tx, b *market.Batch) error {
	launched := make(map[common.Address]bool, len(b.Launches))
	for i := range b.Launches {
		launched[b.Launches[i].Address] = true
	}
	need := make(map[common.Address]string)
	for i := range b.Trades {
		if a := b.Trades[i].Token; !launched[a] {
			need[a] = "trade"
		}
	}
	for i := range b.Claims {
		if a := b.Claims[i].Token; !launched[a] {
			need[a] = "fee claim"
		}
	}
	for i := range b.Updates {
		if a := b.Updates[i].Address; !launched[a] {
			need[a] = "update"
		}
	}
	for i := range b.Holdings {
		if a := b.Holdings[i].Token; !launched[a] {
			need[a] = "holding"
		}
	}
	if len(need) == 0 {
		return nil
	}
	addrs := make([]common.Address, 0, len(need))
	for a := range need {
		addrs = append(addrs, a)
	}
	var found []common.Address
	if err := tx.NewSelect().Model((*tokenRow)(nil)).Column("address").
		Where("address IN (?)", bun.List(addrs)).Scan(ctx, &found); err != nil {
		return fmt.Errorf("check tokens: %w", err)
	}
	for _, a := range found {
		delete(need, a)
	}
	for a, what := range need {
		return fmt.Errorf("%w: %s of token %s, which is not launched", curvekit.ErrInvalid, what, a)
	}
	return nil
}

// keptBlocks is how many recent cursors the store remembers for tracing a reorganization back.
const keptBlocks = 1024

// writeCursor moves the cursor and records it among the recent blocks, forgetting old ones.
func writeCursor(ctx context.Context, tx bun.Tx, block int64, hash common.Hash) error {
	cur := cursorRow{ID: 1, Block: block, Hash: hash}
	if _, err := tx.NewInsert().Model(&cur).
		On("CONFLICT (id) DO UPDATE").
		Set("block_number = EXCLUDED.block_number").
		Set("block_hash = EXCLUDED.block_hash").
		Exec(ctx); err != nil {
		return fmt.Errorf("cursor: %w", err)
	}
	rec := blockRow{Block: block, Hash: hash}
	if _, err := tx.NewInsert().Model(&rec).
		On("CONFLICT (block_number) DO UPDATE").
		Set("block_hash = EXCLUDED.block_hash").
		Exec(ctx); err != nil {
		return fmt.Errorf("recent blocks: %w", err)
	}
	if _, err := tx.NewDelete().Model((*blockRow)(nil)).
		Where("block_number <= ?", block-keptBlocks).Exec(ctx); err != nil {
		return fmt.Errorf("recent blocks: %w", err)
	}
	return nil
}

// RecentBlocks returns the most recent cursors Apply wrote, newest first.
func (s *Market) RecentBlocks(ctx context.Context, limit int) ([]market.Cursor, error) {
	if limit <= 0 {
		return nil, fmt.Errorf("%w: limit must be positive", curvekit.ErrInvalid)
	}
	var rows []blockRow
	if err := s.db.NewSelect().Model(&rows).Order("block_number DESC").Limit(int64(limit)).Scan(ctx); err != nil {
		return nil, fmt.Errorf("bunstore: recent blocks: %w", err)
	}
	out := make([]market.Cursor, len(rows))
	for i, r := range rows {
		out[i] = market.Cursor{Block: uint64(r.Block), Hash: r.Hash}
	}
	return out, nil
}

// Touched returns the tokens with a launch, trade or fee claim in a block after the given one.
func (s *Market) Touched(ctx context.Context, after uint64) ([]common.Address, error) {
	b, err := toInt64("block", after)
	if err != nil {
		return nil, err
	}
	var out []common.Address
	err = s.db.NewRaw(`SELECT address FROM tokens WHERE launch_block > ?
		UNION SELECT token FROM trades WHERE block_number > ?
		UNION SELECT token FROM fee_claims WHERE block_number > ?`, b, b, b).Scan(ctx, &out)
	if err != nil {
		return nil, fmt.Errorf("bunstore: touched tokens: %w", err)
	}
	return out, nil
}

// Rollback undoes the blocks after r.To in one transaction.
func (s *Market) Rollback(ctx context.Context, r *market.Rollback) error {
	if r == nil {
		return fmt.Errorf("%w: nil rollback", curvekit.ErrInvalid)
	}
	to, err := toInt64("rollback block", r.To.Block)
	if err != nil {
		return err
	}
	states := make([]tokenRow, len(r.Tokens))
	addrs := make([]common.Address, len(r.Tokens))
	for i := range r.Tokens {
		if states[i], err = newTokenRow(&r.Tokens[i]); err != nil {
			return err
		}
		addrs[i] = r.Tokens[i].Address
	}
	err = s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		if err := s.checkFence(ctx, tx); err != nil {
			return err
		}
		if err := s.lockDiscovery(ctx, tx); err != nil {
			return err
		}
		if err := rollbackHoldings(ctx, tx, to, r.Holdings); err != nil {
			return err
		}
		if err := rollbackBars(ctx, tx, to); err != nil {
			return err
		}
		names, err := removedNames(ctx, tx, to)
		if err != nil {
			return err
		}
		if err := names.write(ctx, tx); err != nil {
			return err
		}
		var removed market.Removed
		for _, d := range []struct {
			q     *bun.DeleteQuery
			count *int
		}{
			{tx.NewDelete().Model((*tradeRow)(nil)).Where("block_number > ?", to), &removed.Trades},
			{tx.NewDelete().Model((*tradeBlockRow)(nil)).Where("block_number > ?", to), nil},
			{tx.NewDelete().Model((*claimRow)(nil)).Where("block_number > ?", to), &removed.Claims},
			{tx.NewDelete().Model((*tokenRow)(nil)).Where("launch_block > ?", to), &removed.Launches},
			{tx.NewDelete().Model((*blockRow)(nil)).Where("block_number > ?", to), nil},
		} {
			res, err := d.q.Exec(ctx)
			if err != nil {
				return fmt.Errorf("delete: %w", err)
			}
			if d.count != nil {
				n, err := res.RowsAffected()
				if err != nil {
					return fmt.Errorf("delete: %w", err)
				}
				*d.count = int(n)
			}
		}
		r.Removed = removed
		if len(states) > 0 {
			var n int
			if err := tx.NewSelect().Model((*tokenRow)(nil)).ColumnExpr("count(*)").
				Where("address IN (?)", bun.List(addrs)).Scan(ctx, &n); err != nil {
				return fmt.Errorf("check tokens: %w", err)
			}
			if n != len(states) {
				return fmt.Errorf("%w: rollback states a token launched after block %d or not at all", curvekit.ErrInvalid, to)
			}
			if err := updateTokens(ctx, tx, states, false); err != nil {
				return fmt.Errorf("token states: %w", err)
			}
			if _, err := tx.NewUpdate().Model((*tokenRow)(nil)).
				Set("last_trade_at = COALESCE((SELECT block_time FROM trades WHERE token_key(trades.token) = token_key(t.address) AND trades.token = t.address ORDER BY block_time / 3600 DESC, block_time DESC LIMIT 1), 0)").
				Where("address IN (?)", bun.List(addrs)).Exec(ctx); err != nil {
				return fmt.Errorf("last trade times: %w", err)
			}
		}
		if err := rediscover(ctx, tx, s.dialect, addrs, r.Time); err != nil {
			return err
		}
		return writeCursor(ctx, tx, to, r.To.Hash)
	})
	if err != nil {
		return fmt.Errorf("bunstore: roll back to block %d: %w", r.To.Block, err)
	}
	return nil
}
