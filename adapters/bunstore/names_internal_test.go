package bunstore

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/curvekit/curvekit/internal/pgtest"
	"github.com/curvekit/curvekit/market"
	"github.com/curvekit/curvekit/market/marketgen"
)

// A store whose tokens were stored before their names were folded and counted (migration 0026
// flags it) folds and counts them once when it opens, as launches do.
func TestNamesFoldedOnOpen(t *testing.T) {
	dsns := map[string]string{"sqlite": filepath.Join(t.TempDir(), "m.db")}
	if os.Getenv(pgtest.Env) != "" {
		dsns["postgres"] = pgtest.Schema(t, "bunstore_fold")
	}
	for name, dsn := range dsns {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			d, err := Open(ctx, Config{DSN: dsn})
			if err != nil {
				t.Fatal(err)
			}
			g, err := marketgen.New(marketgen.Shape{Tokens: 800, Trades: 1_600, End: time.Now().Unix(), Span: 86400, Seed: 4})
			if err != nil {
				t.Fatal(err)
			}
			var names, symbols []string
			for b := g.NextBlocks(2_000); b != nil; b = g.NextBlocks(2_000) {
				if err := d.Market().Apply(ctx, b); err != nil {
					t.Fatal(err)
				}
				for _, tok := range b.Launches {
					names, symbols = append(names, market.FoldName(tok.Name)), append(symbols, market.FoldName(tok.Symbol))
				}
			}
			want, err := d.Market().CountNames(ctx, names, symbols)
			if err != nil {
				t.Fatal(err)
			}
			if len(want.Names) < 100 {
				t.Fatalf("fixture: %d names counted", len(want.Names))
			}
			if _, err := d.bun.ExecContext(ctx, `DELETE FROM token_names`); err != nil {
				t.Fatal(err)
			}
			if _, err := d.bun.ExecContext(ctx, `UPDATE tokens SET name_fold = NULL, symbol_fold = NULL`); err != nil {
				t.Fatal(err)
			}
			if _, err := d.bun.ExecContext(ctx, `UPDATE discovery SET fold_names = 1`); err != nil {
				t.Fatal(err)
			}
			d.Close()
			d, err = Open(ctx, Config{DSN: dsn})
			if err != nil {
				t.Fatal(err)
			}
			defer d.Close()
			got, err := d.Market().CountNames(ctx, names, symbols)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Fatalf("names folded on open (-at launch +on open):\n%s", diff)
			}
			var flag int
			if err := d.bun.NewRaw(`SELECT fold_names FROM discovery`).Scan(ctx, &flag); err != nil || flag != 0 {
				t.Fatalf("fold flag after open: %d, %v", flag, err)
			}
		})
	}
}
