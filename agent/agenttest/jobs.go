package agenttest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/google/go-cmp/cmp"

	"github.com/curvekit/curvekit"
	"github.com/curvekit/curvekit/agent"
	"github.com/curvekit/curvekit/orders"
)

var (
	t0      = time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	walletA = common.HexToAddress("0x00000000000000000000000000000000000000aa")
	walletB = common.HexToAddress("0x00000000000000000000000000000000000000bb")
)

func at(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }

func insert(t *testing.T, s agent.JobStore, id string, wallet common.Address, created time.Time) agent.Job {
	t.Helper()
	j, err := s.InsertJob(context.Background(), &agent.InsertJobParams{
		ID: id, ThreadID: "thread-" + id, Wallet: wallet, Prompt: "prompt " + id, CreatedAt: created,
	})
	if err != nil {
		t.Fatalf("InsertJob %s: %v", id, err)
	}
	return j
}

func claim(t *testing.T, s agent.JobStore, runner string, now time.Time, lease time.Duration) agent.Job {
	t.Helper()
	j, err := s.ClaimJob(context.Background(), &agent.ClaimJobParams{Runner: runner, Now: now, LeaseUntil: now.Add(lease)})
	if err != nil {
		t.Fatalf("ClaimJob by %s: %v", runner, err)
	}
	return j
}

func leaseOf(j agent.Job) agent.Lease {
	return agent.Lease{JobID: j.ID, Runner: j.Runner, Attempt: j.Attempts}
}

func get(t *testing.T, s agent.JobStore, id string) agent.Job {
	t.Helper()
	j, err := s.GetJob(context.Background(), id)
	if err != nil {
		t.Fatalf("GetJob %s: %v", id, err)
	}
	return j
}

func wantErr(t *testing.T, what string, err, sentinel error) {
	t.Helper()
	if !errors.Is(err, sentinel) {
		t.Fatalf("%s: got %v, want %v", what, err, sentinel)
	}
}

func testJobLifecycle(t *testing.T, s Stores) {
	ctx := context.Background()
	history := []agent.Message{{Role: agent.RoleUser, Content: "hi"}, {Role: agent.RoleAssistant, Content: "hello"}}
	j, err := s.Jobs.InsertJob(ctx, &agent.InsertJobParams{
		ID: "job-1", ThreadID: "thr-1", Wallet: walletA, ReadOnly: true, Prompt: "buy 0.01 ETH of DETH ✓", History: history,
		Model: "offline", CreatedAt: at(0), MaxPending: 5,
	})
	if err != nil {
		t.Fatal(err)
	}
	want := agent.Job{ID: "job-1", ThreadID: "thr-1", Wallet: walletA, ReadOnly: true, Status: agent.StatusPending,
		Prompt: "buy 0.01 ETH of DETH ✓", History: history, Model: "offline", CreatedAt: at(0)}
	if diff := cmp.Diff(want, j); diff != "" {
		t.Fatalf("InsertJob returned (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(want, get(t, s.Jobs, "job-1")); diff != "" {
		t.Fatalf("GetJob after insert (-want +got):\n%s", diff)
	}
	if !j.Cancellable() {
		t.Fatal("a pending job is not cancellable")
	}

	c := claim(t, s.Jobs, "r1", at(100), time.Second)
	want.Status, want.StartedAt, want.Attempts, want.Runner, want.LeaseExpiresAt = agent.StatusProcessing, at(100), 1, "r1", at(1100)
	if diff := cmp.Diff(want, c); diff != "" {
		t.Fatalf("ClaimJob (-want +got):\n%s", diff)
	}
	if c.Cancellable() {
		t.Fatal("a processing job is cancellable")
	}
	if err := s.Jobs.Heartbeat(ctx, leaseOf(c), at(5000)); err != nil {
		t.Fatal(err)
	}
	notes := []agent.StatusUpdate{{Message: "planning", Timestamp: at(200)}, {Message: "reading the market ✓ \"quoted\"", Timestamp: at(201)},
		{Message: "composing the transaction", Timestamp: at(202)}, {Message: "answering", Timestamp: at(1400)}}
	if err := s.Jobs.AddStatusUpdates(ctx, leaseOf(c), notes[:1]); err != nil {
		t.Fatal(err)
	}
	if err := s.Jobs.AddStatusUpdates(ctx, leaseOf(c), notes[1:3]); err != nil {
		t.Fatal(err)
	}
	want.LeaseExpiresAt = at(5000)
	want.StatusUpdates = notes[:3]
	if diff := cmp.Diff(want, get(t, s.Jobs, "job-1")); diff != "" {
		t.Fatalf("after heartbeat and status updates (-want +got):\n%s", diff)
	}

	// A transaction and a proposed order read back as what they were.
	pct := 50.0
	order := agent.NewOrderProposal("stop-loss on DETH", orders.Request{Kind: "stop-loss", Token: "0x01", Percent: &pct, Price: "0.000000002"})
	rich := []agent.Item{{Transaction: &agent.Transaction{Type: "transaction", Kind: "buy", Description: "Buy DETH",
		TxRequest: agent.TxRequest{ChainID: 1337, To: "0x01", Data: "0xabcd", Value: "10000000000000000", Gas: "90000"},
		Approval:  &agent.TxRequest{ChainID: 1337, To: "0x02", Data: "0x095ea7b3", Value: "0"}}}, {Order: &order}}
	turn := &agent.Turn{Prompt: "buy 0.01 ETH of DETH ✓", Response: "Here is your transaction.", At: at(1500)}
	done, err := s.Jobs.CompleteJob(ctx, &agent.CompleteJobParams{Lease: leaseOf(c), Response: "Here is your transaction.", RichData: rich, At: at(1500), Turn: turn, StatusUpdates: notes[3:]})
	if err != nil {
		t.Fatal(err)
	}
	want.StatusUpdates = notes
	want.Status, want.Response, want.RichData, want.CompletedAt, want.Runner, want.LeaseExpiresAt = agent.StatusCompleted, "Here is your transaction.", rich, at(1500), "", time.Time{}
	if diff := cmp.Diff(want, done); diff != "" {
		t.Fatalf("CompleteJob (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(want, get(t, s.Jobs, "job-1")); diff != "" {
		t.Fatalf("GetJob after completion (-want +got):\n%s", diff)
	}
	if got := done.ProcessingTime(); got != 1400*time.Millisecond {
		t.Fatalf("ProcessingTime = %s, want 1.4s", got)
	}

	// The completion carried the job's turn into its thread, in the same step.
	if s.Threads != nil {
		turns, err := s.Threads.Turns(ctx, &agent.TurnsParams{Wallet: walletA, Thread: "thr-1", Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff([]agent.Turn{*turn}, turns); diff != "" {
			t.Fatalf("thread after completion (-want +got):\n%s", diff)
		}
	}
	_, err = s.Jobs.CompleteJob(ctx, &agent.CompleteJobParams{Lease: leaseOf(c), Response: "again", At: at(1600), Turn: &agent.Turn{Prompt: "again", Response: "again", At: at(1600)}})
	wantErr(t, "completing twice", err, curvekit.ErrConflict)
	if s.Threads != nil {
		if turns, _ := s.Threads.Turns(ctx, &agent.TurnsParams{Wallet: walletA, Thread: "thr-1", Limit: 10}); len(turns) != 1 {
			t.Fatalf("a refused completion appended a turn: %+v", turns)
		}
	}
	wantErr(t, "heartbeat after completion", s.Jobs.Heartbeat(ctx, leaseOf(c), at(9000)), curvekit.ErrConflict)
	_, err = s.Jobs.CancelJob(ctx, &agent.CancelJobParams{ID: "job-1", Wallet: walletA, At: at(1700)})
	wantErr(t, "cancelling a completed job", err, curvekit.ErrConflict)
	_, err = s.Jobs.GetJob(ctx, "job-unknown")
	wantErr(t, "GetJob of an unknown id", err, curvekit.ErrNotFound)
}

func testJobFailure(t *testing.T, s Stores) {
	ctx := context.Background()
	insert(t, s.Jobs, "j", walletA, at(0))
	c := claim(t, s.Jobs, "r1", at(10), time.Minute)
	notes := []agent.StatusUpdate{{Message: "planning", Timestamp: at(11)}, {Message: "running quote", Timestamp: at(12)}}
	f, err := s.Jobs.FailJob(ctx, &agent.FailJobParams{Lease: leaseOf(c), Error: "the model provider failed", At: at(20), StatusUpdates: notes})
	if err != nil {
		t.Fatal(err)
	}
	if f.Status != agent.StatusFailed || f.Error != "the model provider failed" || !f.CompletedAt.Equal(at(20)) || f.Runner != "" {
		t.Fatalf("FailJob = %+v", f)
	}
	if diff := cmp.Diff(notes, get(t, s.Jobs, "j").StatusUpdates); diff != "" {
		t.Fatalf("status updates written with the failure (-want +got):\n%s", diff)
	}
	_, err = s.Jobs.FailJob(ctx, &agent.FailJobParams{Lease: leaseOf(c), Error: "again", At: at(30)})
	wantErr(t, "failing twice", err, curvekit.ErrConflict)
	if g := get(t, s.Jobs, "j"); g.Error != "the model provider failed" {
		t.Fatalf("error after a second FailJob = %q", g.Error)
	}
}

func testClaimOrder(t *testing.T, s Stores) {
	ctx := context.Background()
	_, err := s.Jobs.ClaimJob(ctx, &agent.ClaimJobParams{Runner: "r", Now: at(0), LeaseUntil: at(1)})
	wantErr(t, "claim from an empty store", err, curvekit.ErrNotFound)
	insert(t, s.Jobs, "b", walletA, at(20))
	insert(t, s.Jobs, "a", walletB, at(10))
	insert(t, s.Jobs, "c", walletA, at(20))
	var got []string
	for range 3 {
		got = append(got, claim(t, s.Jobs, "r", at(30), time.Second).ID)
	}
	if diff := cmp.Diff([]string{"a", "b", "c"}, got); diff != "" {
		t.Fatalf("claim order (oldest first, then id) (-want +got):\n%s", diff)
	}
	_, err = s.Jobs.ClaimJob(ctx, &agent.ClaimJobParams{Runner: "r", Now: at(40), LeaseUntil: at(41)})
	wantErr(t, "claim with every job processing", err, curvekit.ErrNotFound)
}

func testInsertDuplicate(t *testing.T, s Stores) {
	insert(t, s.Jobs, "dup", walletA, at(0))
	_, err := s.Jobs.InsertJob(context.Background(), &agent.InsertJobParams{ID: "dup", ThreadID: "x", Wallet: walletB, Prompt: "other", CreatedAt: at(1)})
	wantErr(t, "inserting an existing id", err, curvekit.ErrConflict)
	if g := get(t, s.Jobs, "dup"); g.Wallet != walletA || g.Prompt != "prompt dup" {
		t.Fatalf("the duplicate changed the job: %+v", g)
	}
}

func testPendingCap(t *testing.T, s Stores) {
	ctx := context.Background()
	ins := func(id string, w common.Address) error {
		_, err := s.Jobs.InsertJob(ctx, &agent.InsertJobParams{ID: id, ThreadID: id, Wallet: w, Prompt: "p", CreatedAt: at(0), MaxPending: 2})
		return err
	}
	for _, id := range []string{"1", "2"} {
		if err := ins(id, walletA); err != nil {
			t.Fatal(err)
		}
	}
	wantErr(t, "third pending job", ins("3", walletA), curvekit.ErrLimited)
	if err := ins("b1", walletB); err != nil {
		t.Fatalf("another wallet is capped by the first: %v", err)
	}
	// A claimed job no longer counts against the cap.
	for {
		j := claim(t, s.Jobs, "r", at(1), time.Second)
		if j.Wallet == walletA {
			break
		}
	}
	if err := ins("3", walletA); err != nil {
		t.Fatalf("after a claim: %v", err)
	}
	if _, err := s.Jobs.GetJob(ctx, "3"); err != nil {
		t.Fatal(err)
	}
}

func testPendingCapConcurrent(t *testing.T, s Stores) {
	const n, capacity = 12, 3
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Go(func() {
			_, errs[i] = s.Jobs.InsertJob(context.Background(), &agent.InsertJobParams{
				ID: fmt.Sprintf("c%02d", i), ThreadID: "t", Wallet: walletA, Prompt: "p", CreatedAt: at(i), MaxPending: capacity,
			})
		})
	}
	wg.Wait()
	ok := 0
	for _, err := range errs {
		switch {
		case err == nil:
			ok++
		case !errors.Is(err, curvekit.ErrLimited):
			t.Fatalf("concurrent insert: %v", err)
		}
	}
	if ok != capacity {
		t.Fatalf("%d concurrent inserts under a cap of %d succeeded", ok, capacity)
	}
}

func testCancel(t *testing.T, s Stores) {
	ctx := context.Background()
	insert(t, s.Jobs, "p", walletA, at(0))
	insert(t, s.Jobs, "q", walletA, at(1))
	cancel := func(id string, w common.Address) (agent.Job, error) {
		return s.Jobs.CancelJob(ctx, &agent.CancelJobParams{ID: id, Wallet: w, At: at(50)})
	}
	_, err := cancel("nope", walletA)
	wantErr(t, "cancel of an unknown job", err, curvekit.ErrNotFound)
	_, err = cancel("p", walletB)
	wantErr(t, "cancel of another wallet's job", err, curvekit.ErrForbidden)
	if g := get(t, s.Jobs, "p"); g.Status != agent.StatusPending {
		t.Fatalf("a refused cancel moved the job to %s", g.Status)
	}
	c, err := cancel("p", walletA)
	if err != nil {
		t.Fatal(err)
	}
	if c.Status != agent.StatusCancelled || !c.CancelledAt.Equal(at(50)) || c.Cancellable() || !c.CompletedAt.IsZero() {
		t.Fatalf("cancelled job = %+v", c)
	}
	_, err = cancel("p", walletA)
	wantErr(t, "cancelling twice", err, curvekit.ErrConflict)
	// A cancelled job is never claimed.
	j := claim(t, s.Jobs, "r", at(60), time.Second)
	if j.ID != "q" {
		t.Fatalf("claimed %s, want q", j.ID)
	}
	_, err = cancel("q", walletA)
	wantErr(t, "cancel of a processing job", err, curvekit.ErrConflict)
	_, err = s.Jobs.ClaimJob(ctx, &agent.ClaimJobParams{Runner: "r", Now: at(70), LeaseUntil: at(71)})
	wantErr(t, "claim after cancel", err, curvekit.ErrNotFound)
}

func testFencing(t *testing.T, s Stores) {
	ctx := context.Background()
	insert(t, s.Jobs, "f", walletA, at(0))
	a := claim(t, s.Jobs, "runner-a", at(0), time.Second)
	if n, err := s.Jobs.RescueExpired(ctx, &agent.RescueParams{Now: at(1000), MaxAttempts: 3, Error: "x"}); err != nil || n != 0 {
		t.Fatalf("rescue of a lease expiring exactly now = %d, %v; want 0 (expired means before now)", n, err)
	}
	if n, err := s.Jobs.RescueExpired(ctx, &agent.RescueParams{Now: at(1001), MaxAttempts: 3, Error: "x"}); err != nil || n != 1 {
		t.Fatalf("rescue = %d, %v; want 1", n, err)
	}
	r := get(t, s.Jobs, "f")
	if r.Status != agent.StatusPending || r.Runner != "" || !r.LeaseExpiresAt.IsZero() || r.Attempts != 1 || !r.StartedAt.Equal(at(0)) {
		t.Fatalf("rescued job = %+v", r)
	}
	// The same runner claims it again: its first claim must stay dead.
	a2 := claim(t, s.Jobs, "runner-a", at(1100), time.Second)
	if a2.Attempts != 2 || !a2.StartedAt.Equal(at(0)) {
		t.Fatalf("second claim = %+v", a2)
	}
	wantErr(t, "heartbeat of a rescued lease", s.Jobs.Heartbeat(ctx, leaseOf(a), at(5000)), curvekit.ErrConflict)
	wantErr(t, "status update of a rescued lease", s.Jobs.AddStatusUpdates(ctx, leaseOf(a), []agent.StatusUpdate{{Message: "m", Timestamp: at(1)}}), curvekit.ErrConflict)
	_, err := s.Jobs.CompleteJob(ctx, &agent.CompleteJobParams{Lease: leaseOf(a), Response: "stale", At: at(1200)})
	wantErr(t, "completion by a rescued lease", err, curvekit.ErrConflict)
	_, err = s.Jobs.FailJob(ctx, &agent.FailJobParams{Lease: leaseOf(a), Error: "stale", At: at(1200)})
	wantErr(t, "failure by a rescued lease", err, curvekit.ErrConflict)
	other := leaseOf(a2)
	other.Runner = "runner-b"
	_, err = s.Jobs.CompleteJob(ctx, &agent.CompleteJobParams{Lease: other, Response: "thief", At: at(1200)})
	wantErr(t, "completion by another runner", err, curvekit.ErrConflict)
	if _, err := s.Jobs.CompleteJob(ctx, &agent.CompleteJobParams{Lease: leaseOf(a2), Response: "ok", At: at(1300)}); err != nil {
		t.Fatal(err)
	}
	if g := get(t, s.Jobs, "f"); g.Response != "ok" || len(g.StatusUpdates) != 0 {
		t.Fatalf("job = %+v", g)
	}
}

func testRescueAttempts(t *testing.T, s Stores) {
	ctx := context.Background()
	insert(t, s.Jobs, "r", walletA, at(0))
	insert(t, s.Jobs, "held", walletA, at(1))
	now := at(0)
	for attempt := 1; attempt <= 2; attempt++ {
		j := claim(t, s.Jobs, "r1", now, time.Second)
		if j.ID != "r" || j.Attempts != attempt {
			t.Fatalf("claim %d = %+v", attempt, j)
		}
		now = now.Add(2 * time.Second)
		if n, err := s.Jobs.RescueExpired(ctx, &agent.RescueParams{Now: now, MaxAttempts: 2, Error: "the job was interrupted too often"}); err != nil || n != 1 {
			t.Fatalf("rescue %d = %d, %v", attempt, n, err)
		}
	}
	g := get(t, s.Jobs, "r")
	if g.Status != agent.StatusFailed || g.Error != "the job was interrupted too often" || !g.CompletedAt.Equal(now) || g.Runner != "" {
		t.Fatalf("job out of attempts = %+v", g)
	}
	// A live lease is left alone.
	h := claim(t, s.Jobs, "r2", now, time.Minute)
	if n, err := s.Jobs.RescueExpired(ctx, &agent.RescueParams{Now: now.Add(time.Second), MaxAttempts: 2, Error: "x"}); err != nil || n != 0 {
		t.Fatalf("rescue with a live lease = %d, %v", n, err)
	}
	if g := get(t, s.Jobs, h.ID); g.Status != agent.StatusProcessing || g.Runner != "r2" {
		t.Fatalf("live job = %+v", g)
	}
}

func testConcurrentClaims(t *testing.T, s Stores) {
	const jobs, runners = 30, 4
	for i := range jobs {
		insert(t, s.Jobs, fmt.Sprintf("j%02d", i), walletA, at(i))
	}
	var (
		mu      sync.Mutex
		claimed = map[string]string{}
		wg      sync.WaitGroup
	)
	for r := range runners {
		runner := fmt.Sprintf("runner-%d", r)
		wg.Go(func() {
			for {
				j, err := s.Jobs.ClaimJob(context.Background(), &agent.ClaimJobParams{Runner: runner, Now: at(100), LeaseUntil: at(100_000)})
				if errors.Is(err, curvekit.ErrNotFound) {
					return
				}
				if err != nil {
					t.Errorf("claim: %v", err)
					return
				}
				mu.Lock()
				if prev, dup := claimed[j.ID]; dup {
					t.Errorf("job %s claimed by %s and %s", j.ID, prev, runner)
				}
				claimed[j.ID] = runner
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if len(claimed) != jobs {
		t.Fatalf("%d of %d jobs claimed", len(claimed), jobs)
	}
}
