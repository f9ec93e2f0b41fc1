package bunstore

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/uptrace/bun"
)

// A batch updates the rows of the tokens, holders and candle bars it touches, and PostgreSQL
// keeps each replaced row version until a VACUUM finds it dead. Autovacuum does that where it
// runs, but a server may have it off (some test and CI setups do), or let it lag behind a
// backfill, and then the tables and their indexes grow with every write: 648,644 dead token rows
// for 100,200 live ones after 2,000,000 trades, and the backfill slowed to a third. So the
// market store vacuums what it churns itself, as autovacuum would: after its writes may have
// replaced vacuumEvery rows, it asks the server's statistics how many rows of those tables are
// dead, and runs one background VACUUM (ANALYZE) of them when that is vacuumShare of their live
// rows (and at least vacuumEvery), while the writes go on (VACUUM takes no lock that a write
// waits for). A vacuum reads the pages written since the last one (the visibility map skips the
// others), but each index of a table with dead rows whole, so its cost grows with the tables;
// spacing the vacuums in proportion keeps their cost per row written flat, and the dead rows
// under that share. ANALYZE keeps the planner's statistics current on a server that would never
// gather them otherwise.

// vacuumEvery is how many rows the market's writes may replace between two looks at the dead
// rows, and the fewest dead rows a vacuum waits for.
const vacuumEvery = 200_000

// vacuumShare is the share of the churned tables' live rows that are dead when a vacuum runs.
const vacuumShare = 0.05

// vacuumTables are the tables whose rows batches replace, and trades, whose new pages a
// vacuum marks all-visible (index-only scans then skip the heap).
const vacuumTables = "tokens, holders, candle_bars, candle_levels, trades, fee_claims"

// churnedTables are the tables whose dead rows decide a vacuum, as SQL strings.
const churnedTables = "'tokens', 'holders', 'candle_bars', 'candle_levels'"

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
		// The writes' count is what they may have replaced (an upsert that inserts counts too):
		// the server's statistics say how many dead rows there are, and how many live.
		var dead, live int64
		if err := v.db.QueryRowContext(ctx, `SELECT CAST(COALESCE(SUM(n_dead_tup), 0) AS BIGINT),
			CAST(COALESCE(SUM(n_live_tup), 0) AS BIGINT) FROM pg_stat_user_tables
			WHERE schemaname = current_schema() AND relname IN (`+churnedTables+`)`).Scan(&dead, &live); err != nil {
			continue
		}
		if dead < max(v.every, int64(float64(live)*vacuumShare)) {
			continue
		}
		// VACUUM runs outside a transaction; an error (a table not there yet, a cancelled
		// context at Close) leaves the next one to try again.
		if _, err := v.db.ExecContext(ctx, "VACUUM (ANALYZE) "+vacuumTables); err == nil {
			v.vacuums.Add(1)
		}
	}
}

// close stops the vacuums and waits for a running one to end; again, it does nothing.
func (v *vacuumer) close() {
	if v == nil {
		return
	}
	v.stopped.Do(func() { close(v.stop) })
	v.done.Wait()
}
