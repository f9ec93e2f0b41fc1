package bunstore_test

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/curvekit/curvekit/adapters/bunstore"
	"github.com/curvekit/curvekit/market"
	"github.com/curvekit/curvekit/market/marketgen"
)

// TestScaleFill fills a small store of a launchpad's shape through Apply and reads it back: the
// generator's history is one the store accepts whole, on both databases, and compactly: a trade
// with its indexes in at most 340 bytes, a holder pair in at most 450 (before migration 0023 they
// took 751 and 682 on PostgreSQL, 533 and 362 on SQLite).
func TestScaleFill(t *testing.T) {
	for name, open := range map[string]func(testing.TB) sizedStore{"sqlite": newSizedSQLite, "postgres": newSizedPostgres} {
		t.Run(name, func(t *testing.T) {
			st := open(t)
			s := st.Market
			ctx := context.Background()
			g, err := marketgen.New(marketgen.Shape{Tokens: 120, Trades: 4_000, End: time.Now().Unix(), Span: 86400, Seed: 1})
			if err != nil {
				t.Fatal(err)
			}
			perToken := map[common.Address]int{}
			for b := g.NextSpan(500); b != nil; b = g.NextSpan(500) {
				for _, tr := range b.Trades {
					perToken[tr.Token]++
				}
				if err := s.Apply(ctx, b); err != nil {
					t.Fatalf("Apply to block %d: %v", b.Cursor.Block, err)
				}
			}
			live := g.Block(25, 1)
			if err := s.Apply(ctx, live); err != nil {
				t.Fatalf("Apply of a live block: %v", err)
			}
			cur, err := s.Cursor(ctx)
			if err != nil || cur != live.Cursor {
				t.Fatalf("cursor %+v, %v; want %+v", cur, err, live.Cursor)
			}
			page, err := s.Tokens(ctx, market.TokenQuery{Limit: market.MaxLimit, Now: live.Time})
			if err != nil || len(page.Tokens) != market.MaxLimit {
				t.Fatalf("tokens page: %d, %v", len(page.Tokens), err)
			}
			// The busiest token's trades, walked page by page, are all stored.
			for _, tr := range live.Trades {
				perToken[tr.Token]++
			}
			var busiest common.Address
			for tok, n := range perToken {
				if n > perToken[busiest] {
					busiest = tok
				}
			}
			n, cursor := 0, ""
			for {
				tp, err := s.Trades(ctx, market.TradeQuery{Token: busiest, Cursor: cursor, Limit: market.MaxLimit})
				if err != nil {
					t.Fatal(err)
				}
				n += len(tp.Trades)
				if cursor = tp.Next; cursor == "" {
					break
				}
			}
			if n != perToken[busiest] || n < 100 {
				t.Fatalf("the busiest token has %d trades stored, %d generated", n, perToken[busiest])
			}
			// A store this small spreads the pages every table and index starts with over few
			// rows: 4,000 trades took 321 B each on PostgreSQL where 200,000 take 280.
			sz := st.sizes(t)
			t.Logf("%.0f B/trade (and %.0f for their blocks' hashes), %.0f B/holder", sz.perTrade(), float64(sz.blocks)/float64(sz.trades), sz.perHolder())
			if sz.perTrade() > 340 || sz.perHolder() > 450 {
				t.Errorf("%.0f B/trade and %.0f B/holder, want at most 340 and 450", sz.perTrade(), sz.perHolder())
			}
		})
	}
}

// BenchmarkScale fills a store of a launchpad's shape through Apply (the indexer's catch-up:
// batches of 2,000 blocks, as market.Indexer writes them), then times the write of one live
// block (25 trades, 1 launch, transfers at the shape's rate) 200 times. Each run does all of it
// once, so run it with -benchtime 1x. The store's size comes from CURVEKIT_SCALE_TOKENS and
// CURVEKIT_SCALE_TRADES (1,000 and 99,000 when unset); CURVEKIT_SCALE_DSN fills that PostgreSQL
// store alone (an empty one), and keeps it. README's "Scale" section gives the commands.
//
// It reports the fill's seconds (generating the history included), the backfill's trades/s (the
// time in Apply alone) over its first and last tenth and in all, the live block's p50 and p99 in
// milliseconds, and the bytes the store takes on disk per trade (B/trade: the trades table with
// its indexes; blocks-B/trade: the hashes of their blocks) and per holder pair (B/holder: the
// holders table with its indexes).
func BenchmarkScale(b *testing.B) {
	tokens, trades := envInt(b, "CURVEKIT_SCALE_TOKENS", 1_000), envInt(b, "CURVEKIT_SCALE_TRADES", 99_000)
	stores := map[string]func(testing.TB) sizedStore{"sqlite": newSizedSQLite, "postgres": newSizedPostgres}
	if dsn := os.Getenv("CURVEKIT_SCALE_DSN"); dsn != "" {
		// A store of the caller's, kept after the run to look into: a PostgreSQL DSN, or the
		// path of an SQLite file.
		stores = map[string]func(testing.TB) sizedStore{"dsn": func(t testing.TB) sizedStore {
			if strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://") {
				return sizedPostgres(t, dsn)
			}
			return sizedSQLite(t, dsn)
		}}
	}
	for name, open := range stores {
		b.Run(fmt.Sprintf("%s/tokens=%d/trades=%d", name, tokens, trades), func(b *testing.B) {
			benchScale(b, open(b), tokens, trades)
		})
	}
}

func benchScale(b *testing.B, st sizedStore, tokens, trades int) {
	s := st.Market
	ctx := context.Background()
	shape := marketgen.Shape{Tokens: tokens, Trades: trades, End: time.Now().Unix() - 400, Seed: 1}
	// A kept store that a run left part filled is resumed: the same history is generated again
	// (its End put back from the newest launch's block and time) and applied from the store's
	// cursor on.
	cur, err := s.Cursor(ctx)
	if err != nil {
		b.Fatal(err)
	}
	if cur.Block > 0 {
		newest, err := s.Tokens(ctx, market.TokenQuery{Sort: market.SortNewest, Limit: 1})
		if err != nil || len(newest.Tokens) == 0 {
			b.Fatalf("resuming a store at block %d: no token (%v)", cur.Block, err)
		}
		shape.End = marketgen.EndAt(shape, newest.Tokens[0].LaunchBlock, newest.Tokens[0].CreatedAt)
		if testing.Verbose() {
			fmt.Fprintf(os.Stderr, "resuming the store after block %d\n", cur.Block)
		}
	}
	g, err := marketgen.New(shape)
	if err != nil {
		b.Fatal(err)
	}
	type mark struct {
		trades int
		at     time.Duration
	}
	rate := func(from, to mark) float64 { return float64(to.trades-from.trades) / (to.at - from.at).Seconds() }
	// The backfill's rate counts the time in Apply alone, not the generator's.
	var (
		marks   []mark
		writing time.Duration
		written int
	)
	// CURVEKIT_SCALE_FILL_FOR bounds the backfill's time (a Go duration; 0s applies nothing
	// more): a large run can stop part way and time its live blocks at the size it reached. Those
	// blocks are not the history's, so such a store is not resumed; one whose fill was
	// interrupted before them is.
	fillFor := time.Duration(-1)
	if v := os.Getenv("CURVEKIT_SCALE_FILL_FOR"); v != "" {
		if fillFor, err = time.ParseDuration(v); err != nil || fillFor < 0 {
			b.Fatalf("CURVEKIT_SCALE_FILL_FOR=%q: want a duration such as 90m", v)
		}
	}
	start := time.Now()
	caughtUp := cur.Block == 0 // with the store's blocks generated again, when resuming
	for {
		if caughtUp && fillFor >= 0 && time.Since(start) >= fillFor {
			if testing.Verbose() {
				fmt.Fprintf(os.Stderr, "the fill stops after %s with %d trades written\n", fillFor, written)
			}
			break
		}
		batch := g.NextBlocks(2_000)
		if batch == nil {
			break
		}
		if batch.Cursor.Block <= cur.Block {
			if batch.Cursor.Block == cur.Block {
				if batch.Cursor.Hash != cur.Hash {
					b.Fatalf("resuming: block %d is %s in the store, %s in the history", cur.Block, cur.Hash, batch.Cursor.Hash)
				}
				caughtUp = true
			}
			continue
		}
		if !caughtUp {
			b.Fatalf("resuming: the store's cursor (block %d) ends no batch of the history: it holds the live blocks of a run whose fill stopped part way, and cannot be resumed", cur.Block)
		}
		t0 := time.Now()
		if err := s.Apply(ctx, batch); err != nil {
			b.Fatalf("Apply to block %d: %v", batch.Cursor.Block, err)
		}
		writing += time.Since(t0)
		written += len(batch.Trades)
		marks = append(marks, mark{written, writing})
		if testing.Verbose() && len(marks)%20 == 0 {
			// A large fill takes a while: -v shows how it goes.
			fmt.Fprintf(os.Stderr, "%s filled %d trades, %d tokens: %.0f trades/s lately, %s in all\n",
				time.Now().Format(time.TimeOnly), written, g.Launched(), rate(marks[len(marks)-20], marks[len(marks)-1]), time.Since(start).Round(time.Second))
		}
	}
	fill := time.Since(start)

	const live = 200
	times := make([]time.Duration, 0, live)
	b.ResetTimer()
	for range live {
		block := g.Block(25, 1)
		for block.Cursor.Block <= cur.Block { // written by the run that filled the store
			block = g.Block(25, 1)
		}
		t0 := time.Now()
		if err := s.Apply(ctx, block); err != nil {
			b.Fatalf("Apply of a live block: %v", err)
		}
		times = append(times, time.Since(t0))
	}
	b.StopTimer()
	slices.Sort(times)
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	b.ReportMetric(fill.Seconds(), "fill-s")
	if len(marks) > 0 { // none when a full store is resumed
		tenth := max(1, len(marks)/10)
		b.ReportMetric(rate(mark{}, marks[tenth-1]), "backfill-first-trades/s")
		b.ReportMetric(rate(marks[len(marks)-1-tenth], marks[len(marks)-1]), "backfill-last-trades/s")
		b.ReportMetric(float64(written)/writing.Seconds(), "backfill-trades/s")
	}
	b.ReportMetric(ms(times[live/2]), "block-p50-ms")
	b.ReportMetric(ms(times[live*99/100]), "block-p99-ms")
	sz := st.sizes(b)
	b.ReportMetric(sz.perTrade(), "B/trade")
	b.ReportMetric(float64(sz.blocks)/float64(sz.trades), "blocks-B/trade")
	b.ReportMetric(sz.perHolder(), "B/holder")
	b.ReportMetric(0, "ns/op")
}

func envInt(b *testing.B, name string, def int) int {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n <= 0 {
		b.Fatalf("%s=%q: want a positive integer", name, v)
	}
	return n
}

// sizedStore is a market store and what measures its tables on disk.
type sizedStore struct {
	*bunstore.Market
	sizes func(testing.TB) storeSizes
}

// storeSizes are bytes on disk, each table with its indexes, and row counts.
type storeSizes struct {
	trades, tradeBytes, blocks int64 // blocks: the bytes of trade_blocks
	holders, holderBytes       int64
}

func (z storeSizes) perTrade() float64  { return float64(z.tradeBytes) / float64(z.trades) }
func (z storeSizes) perHolder() float64 { return float64(z.holderBytes) / float64(z.holders) }

func newSizedSQLite(t testing.TB) sizedStore {
	return sizedSQLite(t, filepath.Join(t.TempDir(), "market.db"))
}

func sizedSQLite(t testing.TB, path string) sizedStore {
	m := open(t, bunstore.Config{DSN: path})
	return sizedStore{m, func(t testing.TB) storeSizes {
		db, err := sql.Open("sqlite", path)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		// dbstat counts the pages of a table and of each of its indexes.
		return measure(t, db, `SELECT COALESCE(SUM(pgsize), 0) FROM dbstat WHERE name IN
			(SELECT name FROM sqlite_schema WHERE tbl_name = ?)`)
	}}
}

func newSizedPostgres(t testing.TB) sizedStore { return sizedPostgres(t, postgresSchema(t)) }

func sizedPostgres(t testing.TB, dsn string) sizedStore {
	m := open(t, bunstore.Config{DSN: dsn, MaxOpenConns: 4})
	return sizedStore{m, func(t testing.TB) storeSizes {
		db := mustConnector(t, dsn)
		defer db.Close()
		return measure(t, db, "SELECT pg_total_relation_size($1::text::regclass)")
	}}
}

// measure counts the rows of trades and holders and sizes them and trade_blocks with size, a query
// of a table's name.
func measure(t testing.TB, db *sql.DB, size string) storeSizes {
	var z storeSizes
	for _, q := range []struct {
		n    *int64
		stmt string
	}{
		{&z.trades, "SELECT COUNT(*) FROM trades"},
		{&z.holders, "SELECT COUNT(*) FROM holders"},
	} {
		if err := db.QueryRow(q.stmt).Scan(q.n); err != nil {
			t.Fatal(err)
		}
	}
	for table, n := range map[string]*int64{"trades": &z.tradeBytes, "trade_blocks": &z.blocks, "holders": &z.holderBytes} {
		if err := db.QueryRow(size, table).Scan(n); err != nil {
			t.Fatalf("size of %s: %v", table, err)
		}
	}
	return z
}
