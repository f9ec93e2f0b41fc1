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

// A store migrated to the stored discovery figures computes them once, on open, from the trades
// it holds: the same figures the batches would have kept. The store is filled, its figures are
// wiped as migration 0021 leaves them on an older store, and it is opened again.
func TestDiscoveryRebuiltOnOpen(t *testing.T) {
	dsns := map[string]string{"sqlite": filepath.Join(t.TempDir(), "m.db")}
	if os.Getenv(pgtest.Env) != "" {
		dsns["postgres"] = pgtest.Schema(t, "bunstore_rebuild")
	}
	for name, dsn := range dsns {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			d, err := Open(ctx, Config{DSN: dsn})
			if err != nil {
				t.Fatal(err)
			}
			g, err := marketgen.New(marketgen.Shape{Tokens: 60, Trades: 4_000, End: time.Now().Unix(), Span: 2 * 86400, Seed: 3})
			if err != nil {
				t.Fatal(err)
			}
			for b := g.NextSpan(300); b != nil; b = g.NextSpan(300) {
				if err := d.Market().Apply(ctx, b); err != nil {
					t.Fatal(err)
				}
			}
			ranks := func(d *DB) map[string]market.Ranks {
				t.Helper()
				out := map[string]market.Ranks{}
				q := market.TokenQuery{Sort: market.SortTrending, Limit: market.MaxLimit}
				for {
					page, err := d.Market().Tokens(ctx, q)
					if err != nil {
						t.Fatal(err)
					}
					for i, tok := range page.Tokens {
						r := page.Ranks[i]
						r.Trend = float64(float32(r.Trend)) // summed in another order
						out[tok.Address.Hex()] = r
					}
					if q.Cursor = page.Next; q.Cursor == "" {
						return out
					}
				}
			}
			want := ranks(d)
			if _, err := d.bun.ExecContext(ctx, `UPDATE tokens SET trend_log = -1e300, volume_24h = '0', volume_rank = 0,
				buys_24h = 0, sells_24h = 0, change_1h = 0, change_24h = 0`); err != nil {
				t.Fatal(err)
			}
			if _, err := d.bun.ExecContext(ctx, `UPDATE discovery SET rebuild = 1`); err != nil {
				t.Fatal(err)
			}
			d.Close()
			d, err = Open(ctx, Config{DSN: dsn})
			if err != nil {
				t.Fatal(err)
			}
			defer d.Close()
			got := ranks(d)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Fatalf("figures rebuilt on open (-kept by the batches +rebuilt):\n%s", diff)
			}
			var flag int
			if err := d.bun.NewRaw(`SELECT rebuild FROM discovery`).Scan(ctx, &flag); err != nil || flag != 0 {
				t.Fatalf("rebuild flag after open: %d, %v", flag, err)
			}
		})
	}
}
