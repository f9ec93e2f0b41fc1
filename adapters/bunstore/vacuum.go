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
// market store vacuums what it churns itself: after every vacuumEvery rows its writes replaced,
// one background VACUUM (ANALYZE) of those tables, while the writes go on (VACUUM takes no lock
// that a write waits for). Its cost follows the pages written since the last one, found through
// the visibility map, not the tables' size; ANALYZE keeps the planner's statistics current on a
// server that would never gather them otherwise.

// vacuumEvery is how many row versions the market's writes replace between two vacuums.
const vacuumEvery = 200_000

// vacuumTables are the tables whose rows batches replace, and trades, whose new pages a
// vacuum marks all-visible (index-only scans then skip the heap).
const vacuumTables = "tokens, holders, candle_bars, candle_levels, trades, fee_claims"

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
