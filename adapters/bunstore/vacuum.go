package bunstore

import (
	"context"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"
)

// A batch updates the rows of the tokens, holders and candle bars it touches, and PostgreSQL
// keeps each replaced row version until a VACUUM finds it dead. Autovacuum does that where it
// runs, but a server may have it off (some test and CI setups do), or let it lag behind a
// backfill, and then the tables and their indexes grow with every write: 648,644 dead token rows
// for 100,200 live ones after 2,000,000 trades, and the backfill slowed to a third. So the
// market store vacuums what it writes itself, as autovacuum would: after its writes may have
// replaced vacuumEvery rows, it asks the server's statistics about each table, and runs one
// background VACUUM (ANALYZE) of the tables that need one, while the writes go on (VACUUM takes
// no lock that a write waits for):
//
//   - when its dead rows are 50 and vacuumShare of its live ones: the tables whose rows are
//     replaced (tokens and their ranks, holders, the bars);
//   - when the rows inserted since its last vacuum are 1,000 and appendShare of its live ones:
//     every table, trades and fee claims only so; the vacuum marks the new pages all-visible,
//     and ANALYZE keeps the table's statistics current;
//   - and of the others, those with analyzeShare of their rows changed since their statistics
//     were taken are analyzed alone.
//
// A vacuum reads the pages written since the last one (the visibility map skips the others), but
// each index of a table with dead rows whole, so its cost grows with the table; spacing each
// table's vacuums in proportion to its own size keeps their cost per row written flat, and no
// vacuum passes over the indexes of a table that did not churn. The bases (autovacuum's
// thresholds) keep a small table from waiting for a large number: with a floor of 50,000 dead
// rows, the tokens of a store of 1,200 carried 16,000 dead index entries, which a page of the
// curve's tokens by market cap read (20 ms).

// vacuumEvery is how many rows the market's writes may replace between two looks at the
// tables' statistics: a table is vacuumed once a look at most.
const vacuumEvery = 200_000

// vacuumShare is the share of a churned table's live rows that are dead when it is vacuumed
// (autovacuum's scale factor): a vacuum passes over every index of its table, so the tokens
// table, which each batch updates a row of per token traded, would otherwise spend more time in
// vacuums than in writes.
const vacuumShare = 0.2

// appendShare is the share of an appended table's live rows inserted since its last vacuum
// when it is vacuumed again (autovacuum's insert scale factor).
const appendShare = 0.2

// analyzeShare is the share of a table's live rows changed since its statistics were taken
// when they are taken again without a vacuum (autovacuum's analyze scale factor, with its base
// of 50 rows): a table that grows from nothing, such as the search rows, would otherwise keep the
// statistics of its first rows until a vacuum, and the planner then took a name shared by a
// fifth of 50,000 tokens for one in two hundred (210 ms a search, 4 ms with statistics).
const analyzeShare = 0.1

// vacuumTables are the tables the market's writes add to or replace rows of.
var vacuumTables = []string{"tokens", "token_ranks", "holders", "candle_bars", "candle_levels", "trades", "fee_claims", "token_search", "token_names"}

// vacuumer runs the market's vacuums on PostgreSQL; nil on SQLite, which reuses freed pages by
// itself.
type vacuumer struct {
	db      *bun.DB
	every   int64 // vacuumEvery, but in tests
	churn   atomic.Int64
	kick    chan struct{}
	stop    chan struct{}
	stopped sync.Once
	done    sync.WaitGroup
	vacuums atomic.Int64 // completed, for tests
}

func newVacuumer(db *bun.DB) *vacuumer {
	v := &vacuumer{db: db, every: vacuumEvery, kick: make(chan struct{}, 1), stop: make(chan struct{})}
	v.done.Add(1)
	go v.run()
	return v
}

// wrote counts rows a committed write replaced and starts a vacuum when enough have been.
func (v *vacuumer) wrote(rows int) {
	if v == nil || rows <= 0 {
		return
	}
	if v.churn.Add(int64(rows)) < v.every {
		return
	}
	select {
	case v.kick <- struct{}{}:
	default: // one is waiting already
	}
}

func (v *vacuumer) run() {
	defer v.done.Done()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		<-v.stop
		cancel()
	}()
	for {
		select {
		case <-v.stop:
			return
		case <-v.kick:
		}
		v.churn.Store(0)
		// The trades' BRIN index on block_number summarizes the page ranges written since the
		// last look: a range no summary covers is read by every scan of the index (Touched,
		// Rollback).
		_, _ = v.db.ExecContext(ctx, "SELECT brin_summarize_new_values('trades_block')")
		tables, stale, err := v.due(ctx)
		if err != nil {
			continue
		}
		// VACUUM runs outside a transaction; an error (a cancelled context at Close) leaves
		// the next one to try again.
		if len(tables) > 0 {
			if _, err := v.db.ExecContext(ctx, "VACUUM (ANALYZE) "+strings.Join(tables, ", ")); err == nil {
				v.vacuums.Add(1)
			}
		}
		if len(stale) > 0 {
			_, _ = v.db.ExecContext(ctx, "ANALYZE "+strings.Join(stale, ", "))
		}
	}
}

// due returns the tables that need a vacuum, and those of the others whose statistics are
// stale, by the server's statistics.
func (v *vacuumer) due(ctx context.Context) (vacuum, analyze []string, err error) {
	rows, err := v.db.QueryContext(ctx, `SELECT relname, n_live_tup, n_dead_tup, n_ins_since_vacuum, n_mod_since_analyze
		FROM pg_stat_user_tables WHERE schemaname = current_schema() AND relname = ANY (?)`,
		pgdialect.Array(vacuumTables))
	if err != nil {
		return nil, nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var name string
		var live, dead, inserted, changed int64
		if err := rows.Scan(&name, &live, &dead, &inserted, &changed); err != nil {
			return nil, nil, err
		}
		switch {
		case dead >= 50+int64(float64(live)*vacuumShare) || inserted >= 1_000+int64(float64(live)*appendShare):
			vacuum = append(vacuum, name)
		case changed >= 50+int64(float64(live)*analyzeShare):
			analyze = append(analyze, name)
		}
	}
	slices.Sort(vacuum)
	slices.Sort(analyze)
	return vacuum, analyze, rows.Err()
}

// close stops the vacuums and waits for a running one to end; again, it does nothing.
func (v *vacuumer) close() {
	if v == nil {
		return
	}
	v.stopped.Do(func() { close(v.stop) })
	v.done.Wait()
}
