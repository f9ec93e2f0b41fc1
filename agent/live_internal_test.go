package agent

import (
	"testing"
	"time"
)

func inFlight(id string) Job { return Job{ID: id, Status: StatusProcessing} }

// What the memory of jobs in flight keeps, and what it refuses: nothing while no watch is
// ready, no ended job, no read that began before a change to its job or before the memory was
// forgotten, and nothing past liveFor.
func TestLiveJobs(t *testing.T) {
	l := newLiveJobs()
	has := func(id string) bool { _, ok := l.get(id); return ok }

	l.put(inFlight("a"), l.begin())
	if has("a") {
		t.Fatal("kept a job while no watch was ready")
	}
	l.setReady(true)
	l.put(inFlight("a"), l.begin())
	if !has("a") {
		t.Fatal("a job read while the watch was ready was not kept")
	}
	l.put(Job{ID: "done", Status: StatusCompleted}, l.begin())
	if has("done") {
		t.Fatal("kept an ended job")
	}

	// A change drops the job, and refuses a read of it that began before the change.
	before := l.begin()
	l.change("a")
	if has("a") {
		t.Fatal("a changed job was kept")
	}
	l.put(inFlight("a"), before)
	if has("a") {
		t.Fatal("kept a read that began before a change to its job")
	}
	l.put(inFlight("b"), before) // another job's read, begun at the same time, is sound
	if !has("b") {
		t.Fatal("a change to one job refused a read of another")
	}
	l.put(inFlight("a"), l.begin())
	if !has("a") {
		t.Fatal("a read begun after the change was not kept")
	}

	// Any job may have changed: all are dropped and reads under way refused.
	before = l.begin()
	l.change("")
	if has("a") || has("b") {
		t.Fatal("kept jobs past a change to any job")
	}
	l.put(inFlight("c"), before)
	if has("c") {
		t.Fatal("kept a read begun before a change to any job")
	}

	// Too many changes to remember: the reads under way are refused, what is kept stays.
	l.put(inFlight("c"), l.begin())
	before = l.begin()
	for i := range changedKept + 1 {
		l.change(string(rune('A'+i%26)) + "-" + time.Duration(i).String())
	}
	l.put(inFlight("d"), before)
	if has("d") {
		t.Fatal("kept a read begun before changes that were forgotten")
	}
	if !has("c") {
		t.Fatal("forgetting changes dropped a job they did not change")
	}

	// The watch stops: everything is dropped, and nothing is kept until it is ready again.
	before = l.begin()
	l.setReady(false)
	if has("c") {
		t.Fatal("kept a job after the watch stopped")
	}
	l.put(inFlight("e"), l.begin())
	l.setReady(true)
	l.put(inFlight("f"), before)
	if has("e") || has("f") {
		t.Fatal("kept a read made while no watch ran")
	}

	// A job is answered from memory for liveFor at most after its read began.
	l.put(inFlight("old"), since{count: l.heard, at: time.Now().Add(-liveFor - time.Millisecond)})
	if has("old") {
		t.Fatalf("a job read more than %s ago was answered from memory", liveFor)
	}
}
