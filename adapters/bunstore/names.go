package bunstore

import (
	"context"
	"fmt"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/uptrace/bun"

	"github.com/curvekit/curvekit/market"
)

// Names: every token keeps its name and symbol folded as a reader compares them
// (market.FoldName), in name_fold and symbol_fold, and token_names counts the tokens of each
// fold (migration 0026): Apply adds its new launches, Rollback takes away the launches it
// removes, and CountNames reads one row per fold.

// Kinds of token_names rows.
const (
	nameKind   = 0
	symbolKind = 1
)

// nameChunk bounds the folds one statement names.
const nameChunk = 500

// nameKey is a row of token_names.
type nameKey struct {
	kind int
	fold string
}

// nameDeltas are changes to the counts of token_names.
type nameDeltas map[nameKey]int

func (d nameDeltas) add(name, symbol string, n int) {
	d[nameKey{nameKind, name}] += n
	d[nameKey{symbolKind, symbol}] += n
}

// write adds the deltas to the stored counts, in one upsert per chunk.
func (d nameDeltas) write(ctx context.Context, tx bun.Tx) error {
	keys := make([]nameKey, 0, len(d))
	for k, n := range d {
		if n != 0 {
			keys = append(keys, k)
		}
	}
	for len(keys) > 0 {
		chunk := keys[:min(len(keys), nameChunk)]
		keys = keys[len(chunk):]
		var sb strings.Builder
		args := make([]any, 0, 3*len(chunk))
		sb.WriteString("INSERT INTO token_names (kind, fold, n) VALUES ")
		writeValues(&sb, "(?, ?, ?)", "(?, ?, ?)", len(chunk))
		for _, k := range chunk {
			args = append(args, k.kind, k.fold, d[k])
		}
		sb.WriteString(" ON CONFLICT (kind, fold) DO UPDATE SET n = token_names.n + EXCLUDED.n")
		if _, err := tx.NewRaw(sb.String(), args...).Exec(ctx); err != nil {
			return fmt.Errorf("names: %w", err)
		}
	}
	return nil
}

// launchedNames counts the names of the launches the store does not hold yet (a batch applied
// again launches nothing new). It runs before they are inserted.
func launchedNames(ctx context.Context, tx bun.Tx, launches []tokenRow) (nameDeltas, error) {
	d := nameDeltas{}
	for rows := launches; len(rows) > 0; {
		chunk := rows[:min(len(rows), nameChunk)]
		rows = rows[len(chunk):]
		addrs := make([]common.Address, len(chunk))
		for i := range chunk {
			addrs[i] = chunk[i].Address
		}
		var stored []common.Address
		if err := tx.NewSelect().TableExpr("tokens").Column("address").
			Where("address IN (?)", bun.List(addrs)).Scan(ctx, &stored); err != nil {
			return nil, fmt.Errorf("names: %w", err)
		}
		held := make(map[common.Address]bool, len(stored)+len(chunk))
		for _, a := range stored {
			held[a] = true
		}
		for i := range chunk {
			if r := &chunk[i]; !held[r.Address] {
				held[r.Address] = true // a batch that launches a token twice
				d.add(r.NameFold, r.SymbolFold, 1)
			}
		}
	}
	return d, nil
}

// removedNames counts, negatively, the names of the tokens launched after block to, which a
// rollback is about to remove.
func removedNames(ctx context.Context, tx bun.Tx, to int64) (nameDeltas, error) {
	var rows []struct {
		Name   string `bun:"name_fold"`
		Symbol string `bun:"symbol_fold"`
	}
	if err := tx.NewSelect().TableExpr("tokens").Column("name_fold", "symbol_fold").
		Where("launch_block > ?", to).Scan(ctx, &rows); err != nil {
		return nil, fmt.Errorf("names: %w", err)
	}
	d := nameDeltas{}
	for _, r := range rows {
		d.add(r.Name, r.Symbol, -1)
	}
	return d, nil
}

// CountNames counts the tokens of each folded name and symbol: one row of token_names each, in
// one statement for a page's names and symbols.
func (s *Market) CountNames(ctx context.Context, names, symbols []string) (market.NameCounts, error) {
	out := market.NameCounts{Names: make(map[string]int, len(names)), Symbols: make(map[string]int, len(symbols))}
	for len(names)+len(symbols) > 0 {
		n, y := names[:min(len(names), nameChunk)], symbols[:min(len(symbols), nameChunk)]
		names, symbols = names[len(n):], symbols[len(y):]
		var parts []string
		var args []any
		if len(n) > 0 {
			parts = append(parts, "SELECT kind, fold, n FROM token_names WHERE kind = 0 AND fold IN (?)")
			args = append(args, bun.List(n))
		}
		if len(y) > 0 {
			parts = append(parts, "SELECT kind, fold, n FROM token_names WHERE kind = 1 AND fold IN (?)")
			args = append(args, bun.List(y))
		}
		var rows []struct {
			Kind int    `bun:"kind"`
			Fold string `bun:"fold"`
			N    int    `bun:"n"`
		}
		if err := s.db.NewRaw(strings.Join(parts, " UNION ALL "), args...).Scan(ctx, &rows); err != nil {
			return market.NameCounts{}, fmt.Errorf("bunstore: names: %w", err)
		}
		for _, r := range rows {
			if r.Kind == nameKind {
				out.Names[r.Fold] = r.N
			} else {
				out.Symbols[r.Fold] = r.N
			}
		}
	}
	return out, nil
}

// foldNames computes the folds of the tokens stored before migration 0026, a page at a time,
// and then counts them all, once (discovery.fold_names flags a store that has them to compute).
func (d *DB) foldNames(ctx context.Context) error {
	var flag []int
	if err := d.bun.NewSelect().TableExpr("discovery").Column("fold_names").Where("id = 1").Scan(ctx, &flag); err != nil {
		return fmt.Errorf("bunstore: names: %w", err)
	}
	if len(flag) == 0 || flag[0] == 0 {
		return nil
	}
	const page = 2_000
	var after common.Address
	for {
		var rows []struct {
			Address common.Address `bun:"address"`
			Name    string         `bun:"name"`
			Symbol  string         `bun:"symbol"`
		}
		if err := d.bun.NewSelect().TableExpr("tokens").Column("address", "name", "symbol").
			Where("address > ?", after).OrderExpr("address").Limit(page).Scan(ctx, &rows); err != nil {
			return fmt.Errorf("bunstore: names: %w", err)
		}
		if len(rows) == 0 {
			break
		}
		first := "(?, ?, ?)"
		if d.dialect == dialectPostgres {
			first = "(CAST(? AS BYTEA), CAST(? AS TEXT), CAST(? AS TEXT))"
		}
		for chunk := rows; len(chunk) > 0; {
			part := chunk[:min(len(chunk), nameChunk)]
			chunk = chunk[len(part):]
			var sb strings.Builder
			args := make([]any, 0, 3*len(part))
			sb.WriteString("WITH v (address, name_fold, symbol_fold) AS (VALUES ")
			writeValues(&sb, first, "(?, ?, ?)", len(part))
			for _, r := range part {
				args = append(args, r.Address, market.FoldName(r.Name), market.FoldName(r.Symbol))
			}
			sb.WriteString(") UPDATE tokens SET name_fold = v.name_fold, symbol_fold = v.symbol_fold FROM v WHERE tokens.address = v.address")
			if _, err := d.bun.NewRaw(sb.String(), args...).Exec(ctx); err != nil {
				return fmt.Errorf("bunstore: names: %w", err)
			}
		}
		after = rows[len(rows)-1].Address
	}
	return d.bun.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		for _, q := range []string{
			`DELETE FROM token_names`,
			`INSERT INTO token_names (kind, fold, n) SELECT 0, name_fold, COUNT(*) FROM tokens GROUP BY name_fold`,
			`INSERT INTO token_names (kind, fold, n) SELECT 1, symbol_fold, COUNT(*) FROM tokens GROUP BY symbol_fold`,
			`UPDATE discovery SET fold_names = 0 WHERE id = 1`,
		} {
			if _, err := tx.ExecContext(ctx, q); err != nil {
				return fmt.Errorf("bunstore: names: %w", err)
			}
		}
		return nil
	})
}
