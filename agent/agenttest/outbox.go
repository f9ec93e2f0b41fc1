package agenttest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/curvekit/curvekit"
	"github.com/curvekit/curvekit/agent"
	"github.com/curvekit/curvekit/push"
	"github.com/curvekit/curvekit/push/pushtest"
)

// testEndEvents: the end of a job commits the events built from the job as it ends, in the same
// step, and an end the store refuses records none.
func testEndEvents(t *testing.T, s Stores) {
	if s.Events == nil {
		t.Skip("the stores record no events")
	}
	ctx := context.Background()
	var seen []agent.Job
	events := func(j *agent.Job) []push.Event {
		seen = append(seen, *j)
		return []push.Event{{ID: "evt_" + j.ID + "_" + string(j.Status), Type: push.JobCompleted, Time: j.CompletedAt, Account: "acct",
			Data: []byte(fmt.Sprintf(`{"status":%q}`, j.Status))}}
	}
	recorded := func(want ...string) {
		t.Helper()
		if got := pushtest.EventIDs(t, s.Events, "acct"); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("events recorded %v, want %v", got, want)
		}
	}

	// Completed with a turn, completed without, failed: each end's events, built from the job
	// as the store ended it.
	insert(t, s.Jobs, "e1", walletA, at(0))
	c := claim(t, s.Jobs, "r1", at(10), time.Minute)
	turn := &agent.Turn{Prompt: "p", Response: "done", At: at(20)}
	if _, err := s.Jobs.CompleteJob(ctx, &agent.CompleteJobParams{Lease: leaseOf(c), Response: "done", At: at(20), Turn: turn, Events: events}); err != nil {
		t.Fatal(err)
	}
	insert(t, s.Jobs, "e2", walletA, at(30))
	c2 := claim(t, s.Jobs, "r1", at(40), time.Minute)
	if _, err := s.Jobs.CompleteJob(ctx, &agent.CompleteJobParams{Lease: leaseOf(c2), Response: "also", At: at(50), Events: events}); err != nil {
		t.Fatal(err)
	}
	insert(t, s.Jobs, "e3", walletA, at(60))
	c3 := claim(t, s.Jobs, "r1", at(70), time.Minute)
	notes := []agent.StatusUpdate{{Message: "planning", Timestamp: at(71)}}
	if _, err := s.Jobs.FailJob(ctx, &agent.FailJobParams{Lease: leaseOf(c3), Error: "the model provider failed", At: at(80), StatusUpdates: notes, Events: events}); err != nil {
		t.Fatal(err)
	}
	recorded("evt_e1_completed", "evt_e2_completed", "evt_e3_failed")
	if len(seen) != 3 || seen[0].Response != "done" || !seen[0].CompletedAt.Equal(at(20)) || seen[1].Response != "also" ||
		seen[2].Error != "the model provider failed" || len(seen[2].StatusUpdates) != 1 || seen[2].Runner != "" {
		t.Fatalf("the jobs the events were built from: %+v", seen)
	}
	// The thread got its turn in the same step.
	if s.Threads != nil {
		if turns, err := s.Threads.Turns(ctx, &agent.TurnsParams{Wallet: walletA, Thread: c.ThreadID, Limit: 10}); err != nil || len(turns) != 1 {
			t.Fatalf("the completed job's turn: %+v, %v", turns, err)
		}
	}

	// Ends the store refuses (the lease is gone) record nothing, and build nothing.
	_, err := s.Jobs.CompleteJob(ctx, &agent.CompleteJobParams{Lease: leaseOf(c), Response: "again", At: at(90), Turn: turn, Events: events})
	wantErr(t, "completing twice", err, curvekit.ErrConflict)
	_, err = s.Jobs.FailJob(ctx, &agent.FailJobParams{Lease: leaseOf(c2), Error: "late", At: at(90), Events: events})
	wantErr(t, "failing a completed job", err, curvekit.ErrConflict)
	recorded("evt_e1_completed", "evt_e2_completed", "evt_e3_failed")
	if len(seen) != 3 {
		t.Fatalf("events built for a refused end: %+v", seen[3:])
	}

	// The rescue: a job with attempts left goes back to pending without events; once out of
	// attempts it fails with its events; a rescue that moves nothing records nothing.
	insert(t, s.Jobs, "e4", walletA, at(100))
	now := at(200)
	for attempt := 1; attempt <= 2; attempt++ {
		if j := claim(t, s.Jobs, "r1", now, time.Second); j.ID != "e4" || j.Attempts != attempt {
			t.Fatalf("claim %d = %+v", attempt, j)
		}
		now = now.Add(2 * time.Second)
		if n, err := s.Jobs.RescueExpired(ctx, &agent.RescueParams{Now: now, MaxAttempts: 2, Error: "the job was interrupted too often", Events: events}); err != nil || n != 1 {
			t.Fatalf("rescue %d = %d, %v", attempt, n, err)
		}
		if attempt == 1 {
			recorded("evt_e1_completed", "evt_e2_completed", "evt_e3_failed")
		}
	}
	if n, err := s.Jobs.RescueExpired(ctx, &agent.RescueParams{Now: now.Add(time.Minute), MaxAttempts: 2, Error: "again", Events: events}); err != nil || n != 0 {
		t.Fatalf("a rescue with nothing to move = %d, %v", n, err)
	}
	recorded("evt_e1_completed", "evt_e2_completed", "evt_e3_failed", "evt_e4_failed")
	if len(seen) != 4 || seen[3].Error != "the job was interrupted too often" || !seen[3].CompletedAt.Equal(now) {
		t.Fatalf("the rescued job the event was built from: %+v", seen[3:])
	}
}
