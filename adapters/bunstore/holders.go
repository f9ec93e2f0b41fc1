package bunstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/holiman/uint256"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"
	"github.com/uptrace/bun/dialect/pgdialect"

	"github.com/curvekit/curvekit"
	"github.com/curvekit/curvekit/market"
)

// holderRow is a (token, holder) pair's balance; see migrations/*/0015_holders_discovery.sql and
// 0023_compact_storage.sql.
type holderRow struct {
	bun.BaseModel `bun:"table:holders,alias:h"`

	Token   common.Address `bun:"token,pk"`
	Holder  common.Address `bun:"holder,pk"`
	Balance holderBalance  `bun:"balance"`
	Changed int64          `bun:"changed_block"`
}

// zeroBalance is a zero balance as the balance column stores it: rows above it hold tokens.
var zeroBalance = balanceOf(new(uint256.Int))

// dialectOf is the dialect of db, the store or a transaction.
func dialectOf(db bun.IDB) dialectKind {
	if db.Dialect().Name() == dialect.PG {
		return dialectPostgres
	}
	return dialectSQLite
}

// holderKeyChunk bounds the pairs one balance read asks for.
const holderKeyChunk = 500

// readBalances returns the stored balances of keys, reading with db (the store or a
// transaction): one probe of the primary key per pair.
func readBalances(ctx context.Context, db bun.IDB, keys []market.HolderKey) (map[market.HolderKey]uint256.Int, error) {
	out := make(map[market.HolderKey]uint256.Int, len(keys))
	// PostgreSQL types a list of values by its first row.
	first := "(?, ?)"
	if db.Dialect().Name() == dialect.PG {
		first = "(CAST(? AS BYTEA), CAST(? AS BYTEA))"
	}
	for len(keys) > 0 {
		chunk := keys[:min(len(keys), holderKeyChunk)]
		keys = keys[len(chunk):]
		var sb strings.Builder
		args := make([]any, 0, 2*len(chunk))
		sb.WriteString("WITH k (token, holder) AS (VALUES ")
		writeValues(&sb, first, "(?, ?)", len(chunk))
		for _, k := range chunk {
			args = append(args, k.Token, k.Holder)
		}
		// k first: SQLite takes a CROSS JOIN's order as written, and then probes the primary
		// key per pair, where it chose to scan every holder and look each up in k (three
		// quarters of a batch's time at 40,000 tokens). PostgreSQL plans it as any join.
		sb.WriteString(") SELECT h.token, h.holder, h.balance, h.changed_block FROM k CROSS JOIN holders AS h WHERE h.token = k.token AND h.holder = k.holder")
		var rows []holderRow
		if err := db.NewRaw(sb.String(), args...).Scan(ctx, &rows); err != nil {
			return nil, err
		}
		for i := range rows {
			v, err := rows[i].Balance.value(dialectOf(db))
			if err != nil {
				return nil, err
			}
			out[market.HolderKey{Token: rows[i].Token, Holder: rows[i].Holder}] = v
		}
	}
	return out, nil
}

func setList(set map[common.Address]bool) []common.Address {
	out := make([]common.Address, 0, len(set))
	for a := range set {
		out = append(out, a)
	}
	return out
}

// Balances returns the stored balances of the given pairs.
func (s *Market) Balances(ctx context.Context, keys []market.HolderKey) (map[market.HolderKey]uint256.Int, error) {
	out, err := readBalances(ctx, s.db, keys)
	if err != nil {
		return nil, fmt.Errorf("bunstore: balances: %w", err)
	}
	return out, nil
}

// writeHoldings stores holdings and returns how each token's holder count moves by the pairs
// that start or stop holding, read from the rows they replace: writing the same holdings again
// moves nothing.
func writeHoldings(ctx context.Context, tx bun.Tx, holdings []market.Holding) (map[common.Address]int64, error) {
	if len(holdings) == 0 {
		return nil, nil
	}
	rows, err := holderRows(holdings)
	if err != nil {
		return nil, err
	}
	keys := make([]market.HolderKey, len(holdings))
	for i := range holdings {
		keys[i] = market.HolderKey{Token: holdings[i].Token, Holder: holdings[i].Holder}
	}
	var old map[market.HolderKey]uint256.Int
	if dialectOf(tx) == dialectPostgres {
		old, err = replaceHolders(ctx, tx, rows)
	} else {
		old, err = readBalances(ctx, tx, keys)
	}
	if err != nil {
		return nil, fmt.Errorf("holders: %w", err)
	}
	delta := make(map[common.Address]int64)
	for i := range holdings {
		h := &holdings[i]
		was := old[keys[i]]
		switch {
		case was.IsZero() && !h.Balance.IsZero():
			delta[h.Token]++
		case !was.IsZero() && h.Balance.IsZero():
			delta[h.Token]--
		}
		// A pair moved twice in the list counts from what it held before the batch.
		old[keys[i]] = h.Balance
	}
	if dialectOf(tx) != dialectPostgres {
		if err := upsertHolders(ctx, tx, rows); err != nil {
			return nil, err
		}
	}
	return delta, nil
}

// replaceHolders writes rows over the stored pairs on PostgreSQL and returns the positive
// balances they replace, in one statement: the read of the pairs and their upsert share one
// snapshot, so the balances returned are those before the write, and the upsert finds the pages
// the read brought in. The pairs are probed one by one through the primary key (a lateral
// subquery the planner may not flatten): given them as a list, it may hash every holder. A pair
// listed twice keeps its last balance, as a write of the rows in order would leave it. The pairs,
// each once, go holderChunk at a time.
func replaceHolders(ctx context.Context, tx bun.Tx, rows []holderRow) (map[market.HolderKey]uint256.Int, error) {
	last := make(map[market.HolderKey]int, len(rows))
	for i := range rows {
		last[market.HolderKey{Token: rows[i].Token, Holder: rows[i].Holder}] = i
	}
	tokens := make([][]byte, 0, len(last))
	holders := make([][]byte, 0, len(last))
	balances := make([]string, 0, len(last))
	blocks := make([]int64, 0, len(last))
	for i := range rows {
		r := &rows[i]
		if last[market.HolderKey{Token: r.Token, Holder: r.Holder}] != i {
			continue
		}
		tokens = append(tokens, r.Token[:])
		holders = append(holders, r.Holder[:])
		balances = append(balances, r.Balance.v.Dec())
		blocks = append(blocks, r.Changed)
	}
	out := make(map[market.HolderKey]uint256.Int)
	for len(tokens) > 0 {
		n := min(len(tokens), holderChunk)
		if err := replaceHolderChunk(ctx, tx, tokens[:n], holders[:n], balances[:n], blocks[:n], out); err != nil {
			return nil, err
		}
		tokens, holders, balances, blocks = tokens[n:], holders[n:], balances[n:], blocks[n:]
	}
	return out, nil
}

// holderChunk bounds the pairs of one replaceHolders statement: a backfill batch of 2,000 blocks
// at 46 trades a block moves 80,000 pairs, which in one statement took seconds when the pages
// were cold, against the driver's read timeout; in statements of this size the rows cost the same.
const holderChunk = 5000

// replaceHolderChunk is one statement of replaceHolders, on distinct pairs; it adds the positive
// balances replaced to out.
func replaceHolderChunk(ctx context.Context, tx bun.Tx, tokens, holders [][]byte, balances []string, blocks []int64,
	out map[market.HolderKey]uint256.Int) error {
	var stored []holderRow
	if err := tx.NewRaw(`WITH k (token, holder, balance, changed_block) AS (
			SELECT * FROM unnest(CAST(? AS BYTEA[]), CAST(? AS BYTEA[]), CAST(? AS NUMERIC[]), CAST(? AS BIGINT[]))),
		old AS (SELECT h.token, h.holder, h.balance FROM k CROSS JOIN LATERAL
			(SELECT token, holder, balance FROM holders AS h WHERE h.token = k.token AND h.holder = k.holder OFFSET 0) AS h),
		w AS (INSERT INTO holders (token, holder, balance, changed_block) SELECT token, holder, balance, changed_block FROM k
			ON CONFLICT (token, holder) DO UPDATE SET balance = EXCLUDED.balance, changed_block = EXCLUDED.changed_block)
		SELECT token, holder, balance FROM old WHERE balance > 0`,
		pgdialect.Array(tokens), pgdialect.Array(holders), pgdialect.Array(balances), pgdialect.Array(blocks)).Scan(ctx, &stored); err != nil {
		return err
	}
	for i := range stored {
		v, err := stored[i].Balance.value(dialectPostgres)
		if err != nil {
			return err
		}
		out[market.HolderKey{Token: stored[i].Token, Holder: stored[i].Holder}] = v
	}
	return nil
}

// countHolders moves the holder counts of tokens by delta, in one statement.
func countHolders(ctx context.Context, tx bun.Tx, delta map[common.Address]int64) error {
	first := "(?, ?)"
	if tx.Dialect().Name() == dialect.PG {
		first = "(CAST(? AS BYTEA), CAST(? AS BIGINT))"
	}
	var sb strings.Builder
	var args []any
	for tok, d := range delta {
		if d == 0 {
			continue
		}
		if len(args) == 0 {
			sb.WriteString("WITH d (address, delta) AS (VALUES " + first)
		} else {
			sb.WriteString(", (?, ?)")
		}
		args = append(args, tok, d)
	}
	if len(args) == 0 {
		return nil
	}
	sb.WriteString(") UPDATE tokens SET holders = holders + d.delta FROM d WHERE tokens.address = d.address")
	if _, err := tx.NewRaw(sb.String(), args...).Exec(ctx); err != nil {
		return fmt.Errorf("holder count: %w", err)
	}
	return nil
}

func holderRows(holdings []market.Holding) ([]holderRow, error) {
	rows := make([]holderRow, len(holdings))
	for i := range holdings {
		h := &holdings[i]
		block, err := toInt64("holding block", h.Block)
		if err != nil {
			return nil, err
		}
		rows[i] = holderRow{Token: h.Token, Holder: h.Holder, Balance: balanceOf(&h.Balance), Changed: block}
	}
	return rows, nil
}

// upsertHolders writes rows over the stored ones, a chunk per statement.
func upsertHolders(ctx context.Context, tx bun.Tx, rows []holderRow) error {
	for len(rows) > 0 {
		chunk := rows[:min(len(rows), insertChunk)]
		if _, err := tx.NewInsert().Model(&chunk).On("CONFLICT (token, holder) DO UPDATE").
			Set("balance = EXCLUDED.balance").Set("changed_block = EXCLUDED.changed_block").Exec(ctx); err != nil {
			return fmt.Errorf("holders: %w", err)
		}
		rows = rows[len(chunk):]
	}
	return nil
}

// rollbackHoldings deletes the holders of the tokens launched after block to, writes the
// balances the chain held at to, and counts the holders of their tokens again.
func rollbackHoldings(ctx context.Context, tx bun.Tx, to int64, holdings []market.Holding) error {
	// The tokens first, then their holders by key: a planner may join the two by reading every
	// holder.
	var gone []common.Address
	if err := tx.NewSelect().Model((*tokenRow)(nil)).Column("address").Where("launch_block > ?", to).Scan(ctx, &gone); err != nil {
		return fmt.Errorf("holders: %w", err)
	}
	for len(gone) > 0 {
		chunk := gone[:min(len(gone), holderKeyChunk)]
		gone = gone[len(chunk):]
		if _, err := tx.NewDelete().Model((*holderRow)(nil)).Where("token IN (?)", bun.List(chunk)).Exec(ctx); err != nil {
			return fmt.Errorf("holders: %w", err)
		}
	}
	if len(holdings) == 0 {
		return nil
	}
	rows, err := holderRows(holdings)
	if err != nil {
		return err
	}
	tokens := map[common.Address]bool{}
	for i := range holdings {
		tokens[holdings[i].Token] = true
	}
	if err := upsertHolders(ctx, tx, rows); err != nil {
		return err
	}
	if _, err := tx.NewUpdate().Model((*tokenRow)(nil)).
		Set("holders = (SELECT COUNT(*) FROM holders WHERE holders.token = t.address AND holders.balance > ?)", zeroBalance).
		Where("address IN (?)", bun.List(setList(tokens))).Exec(ctx); err != nil {
		return fmt.Errorf("holder counts: %w", err)
	}
	return nil
}

// HoldersChanged returns the pairs a Transfer after the given block moved, of tokens launched at
// or before it.
func (s *Market) HoldersChanged(ctx context.Context, after uint64) ([]market.HolderKey, error) {
	b, err := toInt64("block", after)
	if err != nil {
		return nil, err
	}
	var rows []holderRow
	if err := s.db.NewSelect().Model(&rows).Column("h.token", "h.holder").
		Join("JOIN tokens AS t ON t.address = h.token").
		Where("h.changed_block > ? AND t.launch_block <= ?", b, b).
		Order("h.token", "h.holder").Scan(ctx); err != nil {
		return nil, fmt.Errorf("bunstore: changed holders: %w", err)
	}
	out := make([]market.HolderKey, len(rows))
	for i := range rows {
		out[i] = market.HolderKey{Token: rows[i].Token, Holder: rows[i].Holder}
	}
	return out, nil
}

// Holders returns a page of a token's holders, largest first: keyset pagination on (balance
// descending, holder ascending).
func (s *Market) Holders(ctx context.Context, q market.HolderQuery) (market.HolderPage, error) {
	limit := pageLimit(q.Limit)
	sel := s.db.NewSelect().Model((*holderRow)(nil)).
		Where("token_key(h.token) = ? AND h.token = ? AND h.balance > ?", tokenKey(q.Token), q.Token, zeroBalance).
		OrderExpr("h.balance DESC, h.holder ASC")
	if q.Cursor != "" {
		f, err := decodeCursor(q.Cursor, "h", 2)
		if err != nil {
			return market.HolderPage{}, err
		}
		var bal uint256.Int
		addr, err2 := hexutil.Decode(f[1])
		if err := scanDecimal(&bal, f[0]); err != nil || err2 != nil || len(addr) != common.AddressLength {
			return market.HolderPage{}, fmt.Errorf("%w: malformed cursor", curvekit.ErrInvalid)
		}
		// The first term bounds the index range; the second drops the rows of the cursor's
		// balance up to its holder.
		key := balanceOf(&bal)
		sel.Where("h.balance <= ? AND (h.balance < ? OR h.holder > ?)", key, key, common.BytesToAddress(addr))
	}
	var rows []holderRow
	if err := sel.Limit(int64(limit+1)).Scan(ctx, &rows); err != nil {
		return market.HolderPage{}, fmt.Errorf("bunstore: holders: %w", err)
	}
	if len(rows) == 0 {
		if _, err := s.Token(ctx, q.Token); err != nil {
			return market.HolderPage{}, err
		}
	}
	var page market.HolderPage
	more := len(rows) > limit
	if more {
		rows = rows[:limit]
	}
	page.Holders = make([]market.Holding, len(rows))
	for i := range rows {
		bal, err := rows[i].Balance.value(s.dialect)
		if err != nil {
			return market.HolderPage{}, fmt.Errorf("bunstore: holders: %w", err)
		}
		page.Holders[i] = market.Holding{Token: rows[i].Token, Holder: rows[i].Holder, Balance: bal, Block: uint64(rows[i].Changed)}
	}
	if more {
		last := &page.Holders[limit-1]
		page.Next = encodeCursor("h", last.Balance.Dec(), hexutil.Encode(last.Holder[:]))
	}
	return page, nil
}

// HolderSummary counts a token's holders and sums its ten largest balances, the curve's and the
// pool's excluded.
func (s *Market) HolderSummary(ctx context.Context, token common.Address) (market.HolderSummary, error) {
	var tok struct {
		Curve   common.Address `bun:"curve"`
		Pool    common.Address `bun:"pool"`
		Holders int64          `bun:"holders"`
	}
	err := s.db.NewSelect().Model((*tokenRow)(nil)).Column("curve", "pool", "holders").
		Where("address = ?", token).Scan(ctx, &tok)
	if errors.Is(err, sql.ErrNoRows) {
		return market.HolderSummary{}, fmt.Errorf("bunstore: token %s: %w", token, curvekit.ErrNotFound)
	}
	if err != nil {
		return market.HolderSummary{}, fmt.Errorf("bunstore: holder summary: %w", err)
	}
	var top []holderRow
	if err := s.db.NewSelect().Model((*holderRow)(nil)).Column("h.balance").
		Where("token_key(h.token) = ? AND h.token = ? AND h.balance > ?", tokenKey(token), token, zeroBalance).
		Where("h.holder NOT IN (?, ?)", tok.Curve, tok.Pool).
		OrderExpr("h.balance DESC").Limit(10).Scan(ctx, &top); err != nil {
		return market.HolderSummary{}, fmt.Errorf("bunstore: holder summary: %w", err)
	}
	out := market.HolderSummary{Holders: int(tok.Holders)}
	for i := range top {
		v, err := top[i].Balance.value(s.dialect)
		if err != nil {
			return market.HolderSummary{}, fmt.Errorf("bunstore: holder summary: %w", err)
		}
		out.Top10.Add(&out.Top10, &v) // ten balances of one token never exceed its supply
	}
	return out, nil
}
