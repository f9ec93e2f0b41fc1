package bunstore

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/driver/pgdriver"

	"github.com/curvekit/curvekit"
	"github.com/curvekit/curvekit/agent"
)

var _ agent.JobChanges = (*Agent)(nil)

// jobChangesChannel is the PostgreSQL channel on which the ends of jobs, cancellations and
// returns to pending are announced (Agent.announce), the payload the job's id, or "" for any job.
const jobChangesChannel = "curvekit_job_changes"

// watchPing is what WatchJobs on PostgreSQL sends itself when it heard nothing for watchQuiet;
// it gives up when that ping does not come back within watchQuiet either. A payload no job id
// has (ids are letters, digits, '-' and '_').
const (
	watchPing  = "."
	watchQuiet = time.Second
)

// jobHub hands, on SQLite, each change to a job made through a DB to the WatchJobs calls on it.
// A server on SQLite is one process, so the DB it opened makes every change.
type jobHub struct {
	mu       sync.RWMutex
	watchers map[*func(string)]struct{}
}

func (h *jobHub) changed(id string) {
	h.mu.RLock()
	defer h.mu.RUnlock()
	for w := range h.watchers {
		(*w)(id)
	}
}

func (h *jobHub) watch(ctx context.Context, ready func(), changed func(string)) error {
	h.mu.Lock()
	if h.watchers == nil {
		h.watchers = make(map[*func(string)]struct{})
	}
	h.watchers[&changed] = struct{}{}
	h.mu.Unlock()
	defer func() {
		h.mu.Lock()
		delete(h.watchers, &changed)
		h.mu.Unlock()
	}()
	ready()
	<-ctx.Done()
	return ctx.Err()
}

// changed tells, on SQLite, this DB's watches that the job id changed; every write that changes
// a job calls it (or announce) once it committed, or failed in a way that leaves unknown what it
// changed. On PostgreSQL a claim, a heartbeat or a note goes unannounced: agent.JobChanges lets
// them reach other processes' polls late, and a NOTIFY each would cost them a round trip.
func (s *Agent) changed(id string) {
	if s.hub != nil {
		s.hub.changed(id)
	}
}

// announce reports a change every process must hear ("" for any job): a job ended, was cancelled
// or went back to pending. On PostgreSQL it is a NOTIFY of its own, right after the commit: a
// transaction that notifies holds a lock every notifying transaction takes until its commit is
// on disk, so writes whose commit waits for the disk, as an end's does, would commit one at a
// time if they notified themselves. A process that dies between the two leaves other replicas
// answering the job from memory as it was until their memory of it expires (a second).
func (s *Agent) announce(id string) {
	if s.hub != nil {
		s.hub.changed(id)
		return
	}
	s.outbox.add(id)
}

// announcements sends a DB's announcements on PostgreSQL, those that come while one is on its
// way together in the next NOTIFY, its payload their ids joined by commas: under a burst of ends
// a NOTIFY each was a round trip and a tenth of a millisecond of the database's time per job.
type announcements struct {
	db      *bun.DB
	mu      sync.Mutex
	ids     []string
	sending bool
	closed  bool           // by close: nothing more is sent
	sent    sync.WaitGroup // the sender, while one runs
}

// announcementBytes bounds a NOTIFY's payload, below PostgreSQL's 8,000 bytes.
const announcementBytes = 7000

func (a *announcements) add(id string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.closed {
		return
	}
	a.ids = append(a.ids, id)
	if !a.sending {
		a.sending = true
		a.sent.Go(a.send)
	}
}

// close waits until what was announced is sent, and ends the announcements.
func (a *announcements) close() {
	a.mu.Lock()
	a.closed = true
	a.mu.Unlock()
	a.sent.Wait()
}

// send sends what waits until nothing does.
func (a *announcements) send() {
	for {
		a.mu.Lock()
		ids := a.ids
		a.ids = nil
		if len(ids) == 0 {
			a.sending = false
			a.mu.Unlock()
			return
		}
		a.mu.Unlock()
		for len(ids) > 0 {
			payload, n := joinIDs(ids)
			ids = ids[n:]
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			err := pgdriver.Notify(ctx, a.db, jobChangesChannel, payload)
			cancel()
			if err != nil {
				slog.Warn("bunstore: announcing changes to jobs failed; other replicas see them within a second", "jobs", payload, "err", err)
			}
		}
	}
}

// joinIDs is the payload announcing the first n of ids: "" (any job) when one of them is "".
func joinIDs(ids []string) (payload string, n int) {
	var b strings.Builder
	for n < len(ids) {
		id := ids[n]
		if id == "" {
			return "", len(ids)
		}
		if b.Len() > 0 && b.Len()+1+len(id) > announcementBytes {
			break
		}
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(id)
		n++
	}
	return b.String(), n
}

// announceAfter announces the job id after a write that returned err, unless err says the write
// changed nothing (a lost lease, another wallet's job, an unknown one).
func (s *Agent) announceAfter(id string, err error) {
	for _, nothing := range []error{curvekit.ErrConflict, curvekit.ErrForbidden, curvekit.ErrNotFound} {
		if errors.Is(err, nothing) {
			return
		}
	}
	s.announce(id)
}

// WatchJobs implements agent.JobChanges. On SQLite it hears every change made through this DB (a
// server on SQLite is one process). On PostgreSQL it LISTENs, on a connection of its own, to what
// every process announces; it is ready once a notification it sent itself came back, which proves
// the LISTEN in effect, and it returns when the connection fails or when a notification it sent
// after a quiet second does not come back within another.
func (s *Agent) WatchJobs(ctx context.Context, ready func(), changed func(id string)) error {
	if s.hub != nil {
		return s.hub.watch(ctx, ready, changed)
	}
	ln := pgdriver.NewListener(s.db)
	defer ln.Close()
	stop := context.AfterFunc(ctx, func() { ln.Close() }) // a read in progress ends with it
	defer stop()
	if err := ln.Listen(ctx, jobChangesChannel); err != nil {
		return fmt.Errorf("bunstore: watch jobs: %w", err)
	}
	ping := func() error {
		if err := pgdriver.Notify(ctx, s.db, jobChangesChannel, watchPing); err != nil {
			return fmt.Errorf("bunstore: watch jobs: %w", err)
		}
		return nil
	}
	if err := ping(); err != nil {
		return err
	}
	// The LISTEN is sent without waiting for its answer, so the first pings may come before it
	// takes effect: until one comes back, another is sent every 50 ms, for 2 s.
	sent, isReady, tries := true, false, 1
	for {
		wait := watchQuiet
		if !isReady {
			wait = 50 * time.Millisecond
		}
		_, payload, err := ln.ReceiveTimeout(ctx, wait)
		switch {
		case ctx.Err() != nil:
			return ctx.Err()
		case errors.Is(err, os.ErrDeadlineExceeded) && !isReady && tries < 40:
			if err := ping(); err != nil {
				return err
			}
			tries++
			continue
		case errors.Is(err, os.ErrDeadlineExceeded) && !sent:
			if err := ping(); err != nil {
				return err
			}
			sent = true
			continue
		case errors.Is(err, os.ErrDeadlineExceeded):
			return errors.New("bunstore: watch jobs: a notification took longer than " + wait.String())
		case err != nil:
			return fmt.Errorf("bunstore: watch jobs: %w", err)
		}
		sent = false
		if payload == watchPing {
			if !isReady {
				isReady = true
				ready()
			}
			continue
		}
		if !isReady {
			continue
		}
		if payload == "" {
			changed("")
			continue
		}
		for id := range strings.SplitSeq(payload, ",") {
			changed(id)
		}
	}
}
