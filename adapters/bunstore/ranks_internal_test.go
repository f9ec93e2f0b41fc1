package bunstore

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/curvekit/curvekit/internal/pgtest"
	"github.com/curvekit/curvekit/market"
	"github.com/curvekit/curvekit/market/marketgen"
)

// rankedPages lists the first pages of every discovery order, alone and with the filters a
// list combines them with, following each order's cursor.
func rankedPages(t *testing.T, s *Market) map[string][]string {
	t.Helper()
	ctx := context.Background()
	out := map[string][]string{}
	for _, srt := range []market.TokenSort{market.SortVolume24h, market.SortTrending, market.SortGainers1h, market.SortGainers24h, market.SortLosers24h} {
		for name, f := range map[string]market.TokenQuery{"all": {}, "curve": {Phase: market.PhaseCurve}, "graduated": {Phase: market.PhaseGraduated}} {
			q := f
			q.Sort, q.Limit = srt, 15
			key := string(srt) + "/" + name
			for range 4 {
				p, err := s.Tokens(ctx, q)
				if err != nil {
					t.Fatalf("Tokens %+v: %v", q, err)
				}
				for _, tok := range p.Tokens {
					out[key] = append(out[key], tok.Address.Hex())
				}
				if q.Cursor = p.Next; q.Cursor == "" {
					break
				}
			}
		}
	}
	return out
}

// ranksDiffer counts the tokens whose token_ranks row is missing, left over, or holds other keys
// than the tokens row's figures.
func ranksDiffer(t *testing.T, d *DB) int {
	t.Helper()
	var n int
	if err := d.bun.NewRaw(`SELECT count(*) FROM tokens AS t FULL JOIN token_ranks AS r ON r.address = t.address
		WHERE r.address IS NULL OR t.address IS NULL
			OR (t.launch_block, t.launch_log, t.trend_log, t.volume_rank, t.change_1h, t.change_24h)
				IS DISTINCT FROM (r.launch_block, r.launch_log, r.trend_log, r.volume_rank, r.change_1h, r.change_24h)`).
		Scan(context.Background(), &n); err != nil {
		t.Fatal(err)
	}
	return n
}

// On PostgreSQL the discovery orders are read from token_ranks (migration 0034), which every
// write of the figures keeps equal to the tokens' own: launches, batches, the clock's steps and
// rollbacks. A store written before the migration (its orders indexed on tokens, no token_ranks)
// gets the table when it opens, and lists every order, page by page, as it did before.
func TestRanksMigratedAndKept(t *testing.T) {
	ctx := context.Background()
	dsn := pgtest.Schema(t, "bunstore_ranks")
	d, err := Open(ctx, Config{DSN: dsn})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	s := d.Market()
	g, err := marketgen.New(marketgen.Shape{Tokens: 300, Trades: 9_000, End: time.Now().Unix() - 3600, Span: 2 * 86400, Seed: 34})
	if err != nil {
		t.Fatal(err)
	}
	for b := g.NextSpan(400); b != nil; b = g.NextSpan(400) {
		if err := s.Apply(ctx, b); err != nil {
			t.Fatal(err)
		}
	}
	if n := ranksDiffer(t, d); n != 0 {
		t.Fatalf("after the fill, %d tokens' ranks differ from their figures", n)
	}
	before := rankedPages(t, s)
	if len(before["volume24h/all"]) < 40 || len(before["losers24h/graduated"]) == 0 {
		t.Fatalf("fixture: pages %v", before)
	}

	// The schema before migration 0034.
	for _, stmt := range []string{
		"DROP TABLE token_ranks",
		"CREATE INDEX tokens_trending ON tokens (trend_log, launch_block, launch_log, address)",
		"CREATE INDEX tokens_volume ON tokens (volume_rank, launch_block, launch_log, address)",
		"CREATE INDEX tokens_change_1h ON tokens (change_1h, launch_block, launch_log, address)",
		"CREATE INDEX tokens_change_24h ON tokens (change_24h, launch_block, launch_log, address)",
		"ALTER TABLE tokens RESET (fillfactor)",
		"DELETE FROM bunstore_migrations WHERE version = 34",
	} {
		if _, err := d.bun.ExecContext(ctx, stmt); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	migrated, err := Open(ctx, Config{DSN: dsn})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { migrated.Close() })
	if n := ranksDiffer(t, migrated); n != 0 {
		t.Fatalf("after the migration, %d tokens' ranks differ from their figures", n)
	}
	s = migrated.Market()
	if diff := cmp.Diff(before, rankedPages(t, s)); diff != "" {
		t.Fatalf("pages after the migration (-before +after):\n%s", diff)
	}

	// Live blocks, then a rollback of the last three, then more blocks.
	var times []int64
	for range 12 {
		b := g.Block(25, 1)
		if err := s.Apply(ctx, b); err != nil {
			t.Fatal(err)
		}
		times = append(times, b.Time)
	}
	if n := ranksDiffer(t, migrated); n != 0 {
		t.Fatalf("after live blocks, %d tokens' ranks differ from their figures", n)
	}
	recent, err := s.RecentBlocks(ctx, 4)
	if err != nil || len(recent) != 4 {
		t.Fatalf("RecentBlocks: %v %v", recent, err)
	}
	if err := s.Rollback(ctx, &market.Rollback{To: recent[3], Time: times[len(times)-4]}); err != nil {
		t.Fatal(err)
	}
	if n := ranksDiffer(t, migrated); n != 0 {
		t.Fatalf("after a rollback, %d tokens' ranks differ from their figures", n)
	}
	var dead int
	if err := migrated.bun.NewRaw("SELECT count(*) FROM token_ranks AS r WHERE NOT EXISTS (SELECT 1 FROM tokens AS t WHERE t.address = r.address)").Scan(ctx, &dead); err != nil || dead != 0 {
		t.Fatalf("ranks of tokens rolled back: %d %v", dead, err)
	}
}
