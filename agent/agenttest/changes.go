package agenttest

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/curvekit/curvekit/agent"
)

// heard records what a JobChanges watch reports.
type heard struct {
	mu    sync.Mutex
	ids   []string
	ready chan struct{}
	more  chan struct{} // a report arrived
}

func (h *heard) changed(id string) {
	h.mu.Lock()
	h.ids = append(h.ids, id)
	h.mu.Unlock()
	select {
	case h.more <- struct{}{}:
	default:
	}
}

func (h *heard) mark() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.ids)
}

// await waits until the reports after mark name id, or "" (any job).
func (h *heard) await(t *testing.T, what string, mark int, id string) {
	t.Helper()
	deadline := time.After(5 * time.Second)
	for {
		h.mu.Lock()
		got := slices.Clone(h.ids[mark:])
		h.mu.Unlock()
		if slices.Contains(got, id) || slices.Contains(got, "") {
			return
		}
		select {
		case <-h.more:
		case <-deadline:
			t.Fatalf("%s: the change to %s was not reported within 5 s (heard %q)", what, id, got)
		}
	}
}

// Every end, cancellation and return to pending is reported to a watch that is ready, by the
// job's id or as a change to any job; the watch returns when its context ends. (Claims,
// heartbeats and notes may go unreported.)
func testJobChanges(t *testing.T, s Stores) {
	if s.Changes == nil {
		t.Skip("the stores report no changes (Stores.Changes is nil)")
	}
	ctx := context.Background()
	h := &heard{ready: make(chan struct{}), more: make(chan struct{}, 1)}
	wctx, stop := context.WithCancel(ctx)
	returned := make(chan error, 1)
	go func() {
		returned <- s.Changes.WatchJobs(wctx, func() { close(h.ready) }, h.changed)
	}()
	select {
	case <-h.ready:
	case err := <-returned:
		t.Fatalf("WatchJobs returned before it was ready: %v", err)
	case <-time.After(10 * time.Second):
		t.Fatal("WatchJobs was not ready within 10 s")
	}

	insert(t, s.Jobs, "chg-1", walletA, at(0))
	insert(t, s.Jobs, "chg-2", walletA, at(1))
	insert(t, s.Jobs, "chg-3", walletB, at(2))

	c := claim(t, s.Jobs, "r1", at(10), time.Second)
	if err := s.Jobs.Heartbeat(ctx, leaseOf(c), at(2000)); err != nil {
		t.Fatal(err)
	}
	if err := s.Jobs.AddStatusUpdates(ctx, leaseOf(c), []agent.StatusUpdate{{Message: "planning", Timestamp: at(20)}}); err != nil {
		t.Fatal(err)
	}
	m := h.mark()
	if _, err := s.Jobs.CompleteJob(ctx, &agent.CompleteJobParams{Lease: leaseOf(c), Response: "done", At: at(30),
		Turn: &agent.Turn{Prompt: "prompt " + c.ID, Response: "done", At: at(30)}}); err != nil {
		t.Fatal(err)
	}
	h.await(t, "a completion", m, c.ID)

	c = claim(t, s.Jobs, "r1", at(40), time.Second)
	m = h.mark()
	if _, err := s.Jobs.FailJob(ctx, &agent.FailJobParams{Lease: leaseOf(c), Error: "no", At: at(50)}); err != nil {
		t.Fatal(err)
	}
	h.await(t, "a failure", m, c.ID)

	c = claim(t, s.Jobs, "r1", at(60), time.Second)
	m = h.mark()
	if n, err := s.Jobs.RescueExpired(ctx, &agent.RescueParams{Now: at(5000), MaxAttempts: 3, Error: "lost"}); err != nil || n != 1 {
		t.Fatalf("RescueExpired = %d, %v; want 1", n, err)
	}
	h.await(t, "a return to pending", m, c.ID)
	m = h.mark()
	if _, err := s.Jobs.CancelJob(ctx, &agent.CancelJobParams{ID: c.ID, Wallet: walletB, At: at(5100)}); err != nil {
		t.Fatal(err)
	}
	h.await(t, "a cancellation", m, c.ID)

	stop()
	select {
	case <-returned:
	case <-time.After(5 * time.Second):
		t.Fatal("WatchJobs did not return within 5 s of its context's end")
	}
}
