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
// (market.FoldName), in name_fold and symbol_fold, each indexed (migration 0026).

// nameChunk bounds the folds one count statement names.
const nameChunk = 500

// CountNames counts the tokens of each folded name and symbol: an index range per fold, in one
// statement for a page's names and symbols.
func (s *Market) CountNames(ctx context.Context, names, symbols []string) (market.NameCounts, error) {
	out := market.NameCounts{Names: make(map[string]int, len(names)), Symbols: make(map[string]int, len(symbols))}
	for len(names)+len(symbols) > 0 {
		n, y := names[:min(len(names), nameChunk)], symbols[:min(len(symbols), nameChunk)]
		names, symbols = names[len(n):], symbols[len(y):]
		var parts []string
		var args []any
		if len(n) > 0 {
			parts = append(parts, "SELECT 0 AS kind, name_fold AS fold, COUNT(*) AS n FROM tokens WHERE name_fold IN (?) GROUP BY name_fold")
			args = append(args, bun.List(n))
		}
		if len(y) > 0 {
			parts = append(parts, "SELECT 1 AS kind, symbol_fold AS fold, COUNT(*) AS n FROM tokens WHERE symbol_fold IN (?) GROUP BY symbol_fold")
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
			if r.Kind == 0 {
				out.Names[r.Fold] = r.N
			} else {
				out.Symbols[r.Fold] = r.N
			}
		}
	}
	return out, nil
}

// foldNames computes the folds of the tokens stored before migration 0026, once, a page at a
// time (discovery.fold_names flags a store that has them to compute).
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
			for i, r := range part {
				if i == 0 {
					sb.WriteString(first)
				} else {
					sb.WriteString(", (?, ?, ?)")
				}
				args = append(args, r.Address, market.FoldName(r.Name), market.FoldName(r.Symbol))
			}
			sb.WriteString(") UPDATE tokens SET name_fold = v.name_fold, symbol_fold = v.symbol_fold FROM v WHERE tokens.address = v.address")
			if _, err := d.bun.NewRaw(sb.String(), args...).Exec(ctx); err != nil {
				return fmt.Errorf("bunstore: names: %w", err)
			}
		}
		after = rows[len(rows)-1].Address
	}
	_, err := d.bun.NewRaw(`UPDATE discovery SET fold_names = 0 WHERE id = 1`).Exec(ctx)
	return err
}
