package agent

import (
	"context"
	"sync"
	"time"
)

// JobChanges reports the changes to jobs that every process sharing a JobStore commits. With it
// a Service answers its clients' polls of a job in flight from memory until the job changes,
// instead of reading the store at each poll. bunstore.Agent implements it.
type JobChanges interface {
	// WatchJobs calls ready once every change committed from then on will be reported, and then
	// changed with the id of each job that changed, or "" when any job may have. It must report
	// every end (completed or failed), cancellation and return to pending, whichever process
	// committed it; it may leave out claims, heartbeats and progress notes, which then reach
	// other processes' polls as the memory of the job expires (liveFor: a second), and this
	// process's at once. A report sent after the commit may be lost with a process that dies
	// between the two; that too costs a poll elsewhere no more than liveFor. It returns when ctx
	// ends or when it can no longer promise to report every change (a lost connection, a
	// notification that did not arrive in time); a change committed after it returned may never
	// be reported.
	WatchJobs(ctx context.Context, ready func(), changed func(id string)) error
}

// Bounds of the jobs held in memory: liveKept jobs in flight (a job holds its prompt and history,
// up to 84 KB), each answered from memory for at most liveFor after the read that fetched it,
// whatever the watch reports; changedKept recent changes are remembered for the reads in flight
// when they were heard.
const (
	liveKept    = 1024
	liveFor     = time.Second
	changedKept = 4096
)

// liveJobs answers polls of the jobs in flight from memory while a JobChanges watch runs.
//
// A job read from the store is kept only if no change to it was heard since the read began:
// heard counts the changes, a read notes the count when it begins (since), and changed holds the
// count of each job's last change. A job that changes is dropped, so its next poll reads the
// store. When the watch stops, everything is dropped and nothing is kept until it is ready
// again, since changes may go unreported meanwhile.
type liveJobs struct {
	mu    sync.Mutex
	ready bool // a watch runs and reports every change
	heard uint64
	// forgot: reads that began before this count are refused, their changes possibly forgotten.
	forgot  uint64
	changed map[string]uint64
	jobs    jobRing[liveJob]
	keep    time.Duration // liveFor, but in tests
}

func newLiveJobs() *liveJobs {
	return &liveJobs{jobs: jobRing[liveJob]{size: liveKept}, keep: liveFor, changed: make(map[string]uint64)}
}

type liveJob struct {
	job  Job
	read time.Time // when the read that fetched it began
}

// since is the mark of a read about to begin.
type since struct {
	count uint64
	at    time.Time
}

func (l *liveJobs) begin() since {
	l.mu.Lock()
	defer l.mu.Unlock()
	return since{count: l.heard, at: time.Now()}
}

// put keeps j, read from the store by a read that began at s, unless it ended or something may
// have changed it since.
func (l *liveJobs) put(j Job, s since) {
	if j.Status.Terminal() {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.ready || s.count < l.forgot || l.changed[j.ID] > s.count {
		return
	}
	l.jobs.put(j.ID, liveJob{job: j, read: s.at})
}

func (l *liveJobs) get(id string) (Job, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	e, ok := l.jobs.get(id)
	if !ok || time.Since(e.read) > l.keep {
		return Job{}, false
	}
	return e.job, true
}

// change drops the job id ("" drops them all).
func (l *liveJobs) change(id string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if id == "" {
		l.forget()
		return
	}
	l.heard++
	if len(l.changed) >= changedKept {
		// The jobs kept are all current (each change dropped its job); only the reads under
		// way could need what is forgotten here, so they are refused.
		l.changed = make(map[string]uint64, changedKept)
		l.forgot = l.heard
	}
	l.changed[id] = l.heard
	l.jobs.drop(id)
}

// forget drops every job and refuses every read under way. Called with mu held.
func (l *liveJobs) forget() {
	l.heard++
	l.forgot = l.heard
	l.changed = make(map[string]uint64, changedKept)
	l.jobs.clear()
}

func (l *liveJobs) setReady(ready bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.forget()
	l.ready = ready
}

// WatchJobs keeps in memory the jobs in flight this Service creates or reads while it runs, and
// answers their polls from there until a change to the job is reported or liveFor passed (what
// JobChanges may leave out, a claim or a note by another process, reaches the polls then). It
// needs Config.Changes, returns at once without it, and otherwise runs until ctx ends, watching
// again (after a pause that grows up to 5 s) each time the watch stops, and reading the store
// meanwhile. A change committed by another process reaches a poll here once its report arrives:
// on PostgreSQL a NOTIFY, which takes well under a millisecond on a sound connection.
func (s *Service) WatchJobs(ctx context.Context) {
	if s.cfg.Changes == nil {
		return
	}
	pause := 100 * time.Millisecond
	for {
		began := time.Now()
		err := s.cfg.Changes.WatchJobs(ctx, func() { s.live.setReady(true) }, s.live.change)
		s.live.setReady(false)
		if ctx.Err() != nil {
			return
		}
		if time.Since(began) > time.Minute {
			pause = 100 * time.Millisecond
		}
		s.cfg.Logger.WarnContext(ctx, "agent: watching jobs stopped; polls read the store until it resumes", "err", err, "retry", pause)
		select {
		case <-ctx.Done():
			return
		case <-time.After(pause):
		}
		pause = min(2*pause, 5*time.Second)
	}
}

// jobRing is a map of at most a fixed number of values, where the oldest entry makes room for
// the newest. Not safe for concurrent use.
type jobRing[V any] struct {
	size int
	byID map[string]V
	ids  []string // the ids in byID, in the order put; next is the oldest once full
	next int
}

func (r *jobRing[V]) put(id string, v V) {
	if r.byID == nil {
		r.byID = make(map[string]V, r.size)
		r.ids = make([]string, r.size)
	}
	if _, ok := r.byID[id]; !ok {
		delete(r.byID, r.ids[r.next])
		r.ids[r.next] = id
		r.next = (r.next + 1) % len(r.ids)
	}
	r.byID[id] = v
}

func (r *jobRing[V]) get(id string) (V, bool) {
	v, ok := r.byID[id]
	return v, ok
}

// drop removes id. Its slot in the ring stays until reused: evicting it then removes nothing, or
// the id put again since, a little early.
func (r *jobRing[V]) drop(id string) { delete(r.byID, id) }

func (r *jobRing[V]) clear() { clear(r.byID) }
