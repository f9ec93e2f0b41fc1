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
//   - when its dead rows are vacuumShare of its live ones (and at least vacuumEvery/4): the
//     tables whose rows are replaced (tokens, holders, the bars);
//   - when the rows inserted since its last vacuum are appendShare of its live ones (and at least
//     vacuumEvery): every table, trades and fee claims only so; the vacuum marks the new pages
//     all-visible, and ANALYZE keeps the table's statistics current.
//
// A vacuum reads the pages written since the last one (the visibility map skips the others), but
// each index of a table with dead rows whole, so its cost grows with the table; spacing each
// table's vacuums in proportion to its own size keeps their cost per row written flat, and no
// vacuum passes over the indexes of a table that did not churn.

// vacuumEvery is how many rows the market's writes may replace between two looks at the
// tables' statistics, and the fewest new rows that make an appended table's vacuum.
const vacuumEvery = 200_000

// vacuumShare is the share of a churned table's live rows that are dead when it is vacuumed
// (autovacuum's scale factor): a vacuum passes over every index of its table, so the tokens
// table, which each batch updates a row of per token traded, would otherwise spend more time in
// vacuums than in writes.
const vacuumShare = 0.2

// appendShare is the share of an appended table's live rows inserted since its last vacuum
// when it is vacuumed again (autovacuum's insert scale factor).
const appendShare = 0.2

// vacuumTables are the tables the market's writes add to or replace rows of.
var vacuumTables = []string{"tokens", "holders", "candle_bars", "candle_levels", "trades", "fee_claims"}

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
		tables, err := v.due(ctx)
		if err != nil || len(tables) == 0 {
			continue
		}
		// VACUUM runs outside a transaction; an error (a cancelled context at Close) leaves
		// the next one to try again.
		if _, err := v.db.ExecContext(ctx, "VACUUM (ANALYZE) "+strings.Join(tables, ", ")); err == nil {
			v.vacuums.Add(1)
		}
	}
}

// due returns the tables that need a vacuum, by the server's statistics.
func (v *vacuumer) due(ctx context.Context) ([]string, error) {
	rows, err := v.db.QueryContext(ctx, `SELECT relname, n_live_tup, n_dead_tup, n_ins_since_vacuum
		FROM pg_stat_user_tables WHERE schemaname = current_schema() AND relname = ANY (?)`,
		pgdialect.Array(vacuumTables))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var due []string
	for rows.Next() {
		var name string
		var live, dead, inserted int64
		if err := rows.Scan(&name, &live, &dead, &inserted); err != nil {
			return nil, err
		}
		if dead >= max(v.every/4, int64(float64(live)*vacuumShare)) ||
			inserted >= max(v.every, int64(float64(live)*appendShare)) {
			due = append(due, name)
		}
	}
	slices.Sort(due)
	return due, rows.Err()
}

// close stops the vacuums and waits for a running one to end; again, it does nothing.
func (v *vacuumer) close() {
	if v == nil {
		return
	}
	v.stopped.Do(func() { close(v.stop) })
	v.done.Wait()
}
