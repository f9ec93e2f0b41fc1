package bunstore

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/google/go-cmp/cmp"
	"github.com/holiman/uint256"

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
			// The prices the changes compare, as stored.
			prices := func(d *DB) map[string][3]string {
				t.Helper()
				var rows []struct {
					Address  common.Address `bun:"address"`
					Last     *binAmount     `bun:"last_price"`
					Price1h  *binAmount     `bun:"price_1h"`
					Price24h *binAmount     `bun:"price_24h"`
				}
				if err := d.bun.NewSelect().TableExpr("tokens").Column("address", "last_price", "price_1h", "price_24h").Scan(ctx, &rows); err != nil {
					t.Fatal(err)
				}
				out := map[string][3]string{}
				nulls := 0
				for _, r := range rows {
					var p [3]string
					for i, v := range []*binAmount{r.Last, r.Price1h, r.Price24h} {
						if p[i] = "NULL"; v != nil {
							p[i] = (*uint256.Int)(v).Dec()
						} else {
							nulls++
						}
					}
					out[r.Address.Hex()] = p
				}
				if nulls == 3*len(rows) {
					t.Fatalf("no prices stored in %d tokens", len(rows))
				}
				return out
			}
			want, wantPrices := ranks(d), prices(d)
			if _, err := d.bun.ExecContext(ctx, `UPDATE tokens SET trend_log = -1e300, volume_24h = '0', volume_rank = 0,
				buys_24h = 0, sells_24h = 0, change_1h = 0, change_24h = 0, last_price = NULL, price_1h = NULL, price_24h = NULL`); err != nil {
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
			if diff := cmp.Diff(wantPrices, prices(d)); diff != "" {
				t.Fatalf("prices rebuilt on open (-kept by the batches +rebuilt):\n%s", diff)
			}
			var flag int
			if err := d.bun.NewRaw(`SELECT rebuild FROM discovery`).Scan(ctx, &flag); err != nil || flag != 0 {
				t.Fatalf("rebuild flag after open: %d, %v", flag, err)
			}
		})
	}
}
