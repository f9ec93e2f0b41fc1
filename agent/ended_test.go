package agent

import (
	"fmt"
	"testing"
)

// The memory of ended jobs keeps the newest endedKept, only ended ones, each once.
func TestEndedJobsKeepsTheNewest(t *testing.T) {
	e := newEndedJobs()
	e.put(Job{ID: "running", Status: StatusProcessing})
	if _, ok := e.get("running"); ok {
		t.Fatal("a job still processing was kept")
	}
	for i := range endedKept + 1 {
		e.put(Job{ID: fmt.Sprint(i), Status: StatusCompleted})
		e.put(Job{ID: fmt.Sprint(i), Status: StatusCompleted, Response: "again"}) // the same job again takes no second place
	}
	if _, ok := e.get("0"); ok {
		t.Fatal("the oldest was kept past the limit")
	}
	for _, id := range []string{"1", fmt.Sprint(endedKept)} {
		if j, ok := e.get(id); !ok || j.Response != "again" {
			t.Fatalf("job %s: %+v, %v", id, j, ok)
		}
	}
	if len(e.jobs.byID) != endedKept {
		t.Fatalf("%d jobs kept, want %d", len(e.jobs.byID), endedKept)
	}
}
