package bunstore

import (
	"context"
	"encoding/json"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"github.com/curvekit/curvekit/internal/pgtest"
	"github.com/curvekit/curvekit/market"
	"github.com/curvekit/curvekit/market/marketgen"
)

// statementLog records the statements a store runs, as run (arguments inlined).
type statementLog struct {
	mu   sync.Mutex
	on   bool
	seen map[string]bool
	list []string
}

func (l *statementLog) BeforeQuery(ctx context.Context, _ *bun.QueryEvent) context.Context {
	return ctx
}

func (l *statementLog) AfterQuery(_ context.Context, e *bun.QueryEvent) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.on || e.Err != nil || l.seen[e.Query] {
		return
	}
	l.seen[e.Query] = true
	l.list = append(l.list, e.Query)
}

func (l *statementLog) record(on bool) {
	l.mu.Lock()
	l.on = on
	l.mu.Unlock()
}

// marketTables are the tables that grow with the market.
var marketTables = map[string]bool{"tokens": true, "trades": true, "holders": true, "fee_claims": true, "candle_bars": true, "candle_levels": true, "token_names": true}

// planNode is a node of EXPLAIN (FORMAT JSON).
type planNode struct {
	Type      string     `json:"Node Type"`
	Relation  string     `json:"Relation Name"`
	Index     string     `json:"Index Name"`
	IndexCond string     `json:"Index Cond"`
	Plans     []planNode `json:"Plans"`
}

// wholeReads returns the nodes of plan that read a market table whole: a sequential scan, or an
// index scan with no condition on the index that no Limit above it stops.
func wholeReads(n planNode, limited bool) []string {
	var out []string
	if marketTables[n.Relation] {
		switch n.Type {
		case "Seq Scan":
			out = append(out, n.Type+" on "+n.Relation)
		case "Index Scan", "Index Only Scan":
			if n.IndexCond == "" && !limited {
				out = append(out, n.Type+" using "+n.Index+" on "+n.Relation+", unbounded")
			}
		}
	}
	limited = limited || n.Type == "Limit"
	for _, c := range n.Plans {
		out = append(out, wholeReads(c, limited)...)
	}
	return out
}

// explainAll fails t for each statement in log whose PostgreSQL plan reads a whole market table
// even when sequential scans are priced out (enable_seqscan off): a statement that has no index
// to serve it. Store sizes do not matter to that question, so a small store answers it.
func explainAll(t *testing.T, d *DB, log *statementLog) {
	t.Helper()
	ctx := context.Background()
	log.mu.Lock()
	list := append([]string(nil), log.list...)
	log.mu.Unlock()
	sort.Strings(list)
	checked := 0
	for _, q := range list {
		head := strings.ToUpper(strings.TrimSpace(q))
		if !strings.HasPrefix(head, "SELECT") && !strings.HasPrefix(head, "UPDATE") &&
			!strings.HasPrefix(head, "DELETE") && !strings.HasPrefix(head, "WITH") && !strings.HasPrefix(head, "INSERT") {
			continue
		}
		var plan string
		err := d.bun.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
			if _, err := tx.ExecContext(ctx, "SET LOCAL enable_seqscan = off"); err != nil {
				return err
			}
			return tx.NewRaw("EXPLAIN (FORMAT JSON) "+q).Scan(ctx, &plan)
		})
		if err != nil {
			t.Errorf("EXPLAIN %.200s: %v", q, err)
			continue
		}
		var top []struct {
			Plan planNode `json:"Plan"`
		}
		if err := json.Unmarshal([]byte(plan), &top); err != nil || len(top) != 1 {
			t.Fatalf("EXPLAIN %.200s: %v", q, err)
		}
		checked++
		if bad := wholeReads(top[0].Plan, false); len(bad) > 0 {
			t.Errorf("a statement reads a whole table (%s):\n%s", strings.Join(bad, "; "), q)
		}
	}
	if checked < 10 {
		t.Fatalf("only %d statements checked", checked)
	}
}

// Every statement an Apply or a Rollback runs on PostgreSQL is served by an index: the write's
// cost is its block's, whatever the store holds.
// openPostgres opens a store on a PostgreSQL schema of its own (named from prefix), closed with t.
func openPostgres(t *testing.T, prefix string) *DB {
	t.Helper()
	d, err := Open(context.Background(), Config{DSN: pgtest.Schema(t, prefix)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

func TestWritePathUsesIndexes(t *testing.T) {
	ctx := context.Background()
	d := openPostgres(t, "bunstore_plans")
	log := &statementLog{seen: map[string]bool{}}
	d.bun.AddQueryHook(log)
	s := d.Market()
	g, err := marketgen.New(marketgen.Shape{Tokens: 200, Trades: 8_000, End: time.Now().Unix() - 3600, Span: 2 * 86400, Seed: 9})
	if err != nil {
		t.Fatal(err)
	}
	for b := g.NextSpan(500); b != nil; b = g.NextSpan(500) {
		if err := s.Apply(ctx, b); err != nil {
			t.Fatal(err)
		}
	}
	log.record(true)
	var cursors []market.Cursor
	for range 5 {
		b := g.Block(25, 1)
		if err := s.Apply(ctx, b); err != nil {
			t.Fatal(err)
		}
		cursors = append(cursors, b.Cursor)
	}
	// A rollback of the last three blocks, with the tokens' stored states (the plans do not
	// depend on them).
	to := cursors[1]
	touched, err := s.Touched(ctx, to.Block)
	if err != nil {
		t.Fatal(err)
	}
	r := &market.Rollback{To: to, Time: time.Now().Unix()}
	for _, a := range touched {
		tok, err := s.Token(ctx, a)
		if err != nil {
			t.Fatal(err)
		}
		if tok.LaunchBlock <= to.Block {
			r.Tokens = append(r.Tokens, tok)
		}
	}
	changed, err := s.HoldersChanged(ctx, to.Block)
	if err != nil {
		t.Fatal(err)
	}
	bal, err := s.Balances(ctx, changed)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range changed {
		r.Holdings = append(r.Holdings, market.Holding{Token: k.Token, Holder: k.Holder, Balance: bal[k], Block: to.Block})
	}
	if err := s.Rollback(ctx, r); err != nil {
		t.Fatal(err)
	}
	log.record(false)
	explainAll(t, d, log)
}

// A fresh batch whose trades after the cursor are stored already (a batch applied before
// carried them under a lower cursor) is written all the same: the copy that meets them is
// undone and the trades inserted, each once.
func TestCopiedTradesMeetStoredOnes(t *testing.T) {
	ctx := context.Background()
	d := openPostgres(t, "bunstore_copy")
	s := d.Market()
	g, err := marketgen.New(marketgen.Shape{Tokens: 5, Trades: 60, End: time.Now().Unix(), Span: 3600, Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	first := g.NextSpan(30)
	if err := s.Apply(ctx, first); err != nil {
		t.Fatal(err)
	}
	next := g.NextSpan(30)
	if len(next.Trades) < 2 {
		t.Fatalf("fixture: %d trades", len(next.Trades))
	}
	early := *next
	early.Cursor = first.Cursor // not fresh: inserted, the cursor stays
	early.Trades = next.Trades[:1]
	early.Updates, early.Holdings, early.Launches = nil, nil, next.Launches
	if err := s.Apply(ctx, &early); err != nil {
		t.Fatal(err)
	}
	if err := s.Apply(ctx, next); err != nil {
		t.Fatalf("a fresh batch holding a stored trade: %v", err)
	}
	var n int
	if err := d.bun.NewRaw("SELECT count(*) FROM trades").Scan(ctx, &n); err != nil || n != len(first.Trades)+len(next.Trades) {
		t.Fatalf("%d trades stored, want %d (%v)", n, len(first.Trades)+len(next.Trades), err)
	}
}

// The market store vacuums the tables its writes churn on a server whose autovacuum is off (as
// this one's is): the dead row versions of the tokens a backfill rewrites do not pile up.
func TestWritesVacuumWhatTheyChurn(t *testing.T) {
	ctx := context.Background()
	d := openPostgres(t, "bunstore_vacuum")
	// The history is fixed (its hours and days with it, and so the level rows it replaces), and
	// each table it writes churns past the threshold.
	d.vacuum.every = 1_000
	// The migration that made the search rows took their statistics: forget that.
	if _, err := d.bun.ExecContext(ctx, "SELECT pg_stat_reset_single_table_counters('token_search'::regclass)"); err != nil {
		t.Fatal(err)
	}
	s := d.Market()
	g, err := marketgen.New(marketgen.Shape{Tokens: 100, Trades: 6_000, End: 1_790_000_000, Span: 86400, Seed: 4})
	if err != nil {
		t.Fatal(err)
	}
	for b := g.NextSpan(200); b != nil; b = g.NextSpan(200) {
		if err := s.Apply(ctx, b); err != nil {
			t.Fatal(err)
		}
	}
	// Each table is vacuumed when its own statistics say so, by its dead rows or the rows added
	// since; fee_claims, which the generator never writes, is not. The server's statistics lag
	// the writes by up to a second, so the store is made to look again while the test waits.
	// The search rows and name counts, a row or two per launch, are too few for a vacuum, but
	// their statistics are taken: they grew from nothing.
	want := []string{"candle_bars", "candle_levels", "holders", "token_ranks", "tokens", "trades"}
	wantAnalyzed := []string{"token_names", "token_search"}
	var vacuumed, analyzed []string
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		d.vacuum.wrote(int(d.vacuum.every))
		vacuumed, analyzed = nil, nil
		if err := d.bun.NewRaw(`SELECT relname FROM pg_stat_user_tables WHERE schemaname = current_schema()
			AND last_vacuum IS NOT NULL AND last_analyze IS NOT NULL ORDER BY relname`).Scan(ctx, &vacuumed); err != nil {
			t.Fatal(err)
		}
		if err := d.bun.NewRaw(`SELECT relname FROM pg_stat_user_tables WHERE schemaname = current_schema()
			AND last_vacuum IS NULL AND last_analyze IS NOT NULL ORDER BY relname`).Scan(ctx, &analyzed); err != nil {
			t.Fatal(err)
		}
		if slices.Equal(vacuumed, want) && slices.Equal(analyzed, wantAnalyzed) {
			break
		}
	}
	if !slices.Equal(vacuumed, want) || !slices.Equal(analyzed, wantAnalyzed) {
		t.Fatalf("tables vacuumed and analyzed: %v, want %v; analyzed alone: %v, want %v", vacuumed, want, analyzed, wantAnalyzed)
	}
}
