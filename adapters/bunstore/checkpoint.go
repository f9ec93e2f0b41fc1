package bunstore

import (
	"context"
	"database/sql"
	"sync"
	"time"
)

// SQLite appends each committed transaction to its write-ahead log, and by default the commit
// that takes the log past 1,000 pages also copies the log into the database file and syncs it
// (a checkpoint), inside that commit: at 100,000 tokens a live block's commit took 10.9 ms on
// average so, 4.2 ms with the checkpoints apart. So on a database file the store turns that off
// (wal_autocheckpoint(0), Config.sqliteDSN) and checkpoints in the background instead, on a
// connection of its own: after each market write, and every checkpointIdle for the other
// writers. A PASSIVE checkpoint waits for no reader or writer; it copies what no reader still
// needs, and the next one copies the rest, so the log stays near one write's pages.

// checkpointIdle is how often the log is checkpointed without a market write.
const checkpointIdle = time.Second

// checkpointer runs the background checkpoints of a SQLite database file; nil in memory and on
// PostgreSQL.
type checkpointer struct {
	db      *sql.DB
	kick    chan struct{}
	stop    chan struct{}
	stopped sync.Once
	done    sync.WaitGroup
}

func newCheckpointer(db *sql.DB) *checkpointer {
	c := &checkpointer{db: db, kick: make(chan struct{}, 1), stop: make(chan struct{})}
	c.done.Add(1)
	go c.run()
	return c
}

// wrote asks for a checkpoint after a committed write.
func (c *checkpointer) wrote() {
	if c == nil {
		return
	}
	select {
	case c.kick <- struct{}{}:
	default: // one is due already
	}
}

func (c *checkpointer) run() {
	defer c.done.Done()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	idle := time.NewTicker(checkpointIdle)
	defer idle.Stop()
	for {
		select {
		case <-c.stop:
			return
		case <-c.kick:
		case <-idle.C:
		}
		// An error (a busy lock, a closed database) leaves the next one to try again.
		_, _ = c.db.ExecContext(ctx, "PRAGMA wal_checkpoint(PASSIVE)")
	}
}

// close stops the checkpoints and closes their connection (the last connection of the pool to
// close checkpoints what is left); again, it does nothing.
func (c *checkpointer) close() {
	if c == nil {
		return
	}
	c.stopped.Do(func() {
		close(c.stop)
		c.done.Wait()
		c.db.Close()
	})
}
