package agent

import "sync"

// endedKept is how many ended jobs a Service remembers: a few seconds of its runners' work at
// full load, long enough for the poll that finds each one ended.
const endedKept = 1024

// endedJobs remembers the jobs this process most recently ended (its runners' completions and
// failures, its callers' cancellations) as the store returned them. An ended job never changes
// again, so the poll that finds a job ended, the last its client makes, is answered from here
// without a read; a job ended by another process is read from the store as any other. The
// oldest entry makes room for the newest.
type endedJobs struct {
	mu   sync.Mutex
	byID map[string]Job
	ids  []string // a ring of the ids in byID; next is the oldest once it is full
	next int
}

func (e *endedJobs) put(j Job) {
	if !j.Status.Terminal() {
		return
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.byID == nil {
		e.byID = make(map[string]Job, endedKept)
		e.ids = make([]string, endedKept)
	}
	if _, ok := e.byID[j.ID]; !ok {
		delete(e.byID, e.ids[e.next])
		e.ids[e.next] = j.ID
		e.next = (e.next + 1) % len(e.ids)
	}
	e.byID[j.ID] = j
}

func (e *endedJobs) get(id string) (Job, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	j, ok := e.byID[id]
	return j, ok
}
