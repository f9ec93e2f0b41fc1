package agent

import "sync"

// endedKept is how many ended jobs a Service remembers: a few seconds of its runners' work at
// full load, long enough for the poll that finds each one ended.
const endedKept = 1024

// endedJobs remembers the jobs that most recently ended as this process saw them (its runners'
// completions and failures, its callers' cancellations, and ended jobs it read from the store).
// An ended job never changes again, so the poll that finds a job ended, the last its client
// makes, is answered from here without a read. The oldest entry makes room for the newest.
type endedJobs struct {
	mu   sync.Mutex
	jobs jobRing[Job]
}

func newEndedJobs() *endedJobs { return &endedJobs{jobs: jobRing[Job]{size: endedKept}} }

func (e *endedJobs) put(j Job) {
	if !j.Status.Terminal() {
		return
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.jobs.put(j.ID, j)
}

func (e *endedJobs) get(id string) (Job, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.jobs.get(id)
}
