package bunstore

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/driver/pgdriver"

	"github.com/curvekit/curvekit/agent"
	"github.com/curvekit/curvekit/market"
)

// syncChannel is the PostgreSQL channel of the indexer's announcements.
const syncChannel = "curvekit_sync"

// Announcer is market.Announcer on PostgreSQL's LISTEN/NOTIFY: the replicas already share the
// database, so announcements need no other service, and NOTIFY is delivered only to listeners
// connected when it is sent, which the follower's catch-up by position makes harmless.
type Announcer struct{ db *bun.DB }

var _ market.Announcer = (*Announcer)(nil)

// Announcer returns the announcer on d; announcements need PostgreSQL (on SQLite there is one
// process, which indexes itself).
func (d *DB) Announcer() (*Announcer, error) {
	if d.dialect != dialectPostgres {
		return nil, errors.New("bunstore: announcements between replicas need PostgreSQL")
	}
	return &Announcer{db: d.bun}, nil
}

// Announce implements market.Announcer. The payload is "block:hash".
func (a *Announcer) Announce(ctx context.Context, c market.Cursor) error {
	if err := pgdriver.Notify(ctx, a.db, syncChannel, strconv.FormatUint(c.Block, 10)+":"+c.Hash.Hex()); err != nil {
		return fmt.Errorf("bunstore: announce: %w", err)
	}
	return nil
}

// Listen implements market.Announcer on a dedicated connection, which the driver pings and
// reconnects (listening again) when it fails.
func (a *Announcer) Listen(ctx context.Context, heard func(market.Cursor)) error {
	return listen(ctx, a.db, syncChannel, func(payload string) {
		block, hash, found := strings.Cut(payload, ":")
		b, err := strconv.ParseUint(block, 10, 64)
		if !found || err != nil || len(hash) != 66 {
			return
		}
		heard(market.Cursor{Block: b, Hash: common.HexToHash(hash)})
	})
}

// listen calls heard with each notification's payload on channel until ctx ends.
func listen(ctx context.Context, db *bun.DB, channel string, heard func(payload string)) error {
	ln := pgdriver.NewListener(db)
	defer ln.Close()
	if err := ln.Listen(ctx, channel); err != nil {
		return fmt.Errorf("bunstore: listen: %w", err)
	}
	ch := ln.Channel()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case n, ok := <-ch:
			if !ok {
				return nil
			}
			heard(n.Payload)
		}
	}
}

// jobsChannel is the PostgreSQL channel of new agent jobs.
const jobsChannel = "curvekit_jobs"

// JobSignal is agent.JobSignal on PostgreSQL's LISTEN/NOTIFY: a submitted job wakes the runners
// of every replica at once.
type JobSignal struct{ db *bun.DB }

var _ agent.JobSignal = (*JobSignal)(nil)

// JobSignal returns the job signal on d; it needs PostgreSQL (on SQLite the one process's runner
// is woken in process).
func (d *DB) JobSignal() (*JobSignal, error) {
	if d.dialect != dialectPostgres {
		return nil, errors.New("bunstore: job signals between replicas need PostgreSQL")
	}
	return &JobSignal{db: d.bun}, nil
}

// Signal implements agent.JobSignal.
func (j *JobSignal) Signal(ctx context.Context) error {
	if err := pgdriver.Notify(ctx, j.db, jobsChannel, ""); err != nil {
		return fmt.Errorf("bunstore: signal a job: %w", err)
	}
	return nil
}

// Listen implements agent.JobSignal.
func (j *JobSignal) Listen(ctx context.Context, heard func()) error {
	return listen(ctx, j.db, jobsChannel, func(string) { heard() })
}
