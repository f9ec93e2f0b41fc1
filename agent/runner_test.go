package agent_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/curvekit/curvekit"
	"github.com/curvekit/curvekit/agent"
)

// counting is the real job store, counting the completions it accepted per job.
type counting struct {
	agent.JobStore
	mu        sync.Mutex
	completed map[string]int
	by        map[string]string
}

func (c *counting) CompleteJob(ctx context.Context, p *agent.CompleteJobParams) (agent.Job, error) {
	j, err := c.JobStore.CompleteJob(ctx, p)
	if err == nil {
		c.mu.Lock()
		c.completed[j.ID]++
		c.by[j.ID] = p.Lease.Runner
		c.mu.Unlock()
	}
	return j, err
}

// await waits until CompleteJob has returned for each of ids: the database shows a job
// completed a moment before the call returns to its runner and is counted here. After 10 s
// without, t fails.
func (c *counting) await(t *testing.T, ids ...string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		c.mu.Lock()
		missing := slices.IndexFunc(ids, func(id string) bool { return c.completed[id] == 0 })
		c.mu.Unlock()
		if missing < 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("no completion of job %s returned to its runner in 10s", ids[missing])
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// stuck is a planner that never answers before its context ends: a turn in flight.
type stuck struct{ started chan struct{} }

func (s stuck) Complete(ctx context.Context, _ *agent.Request) (agent.Reply, error) {
	s.started <- struct{}{}
	<-ctx.Done()
	return agent.Reply{}, ctx.Err()
}

// slow is the offline planner taking its time, longer than a lease.
type slow struct {
	agent.Offline
	d time.Duration
}

func (s slow) Complete(ctx context.Context, r *agent.Request) (agent.Reply, error) {
	select {
	case <-time.After(s.d):
	case <-ctx.Done():
		return agent.Reply{}, ctx.Err()
	}
	return s.Offline.Complete(ctx, r)
}

func (e *env) service(t *testing.T, jobs agent.JobStore, llm agent.LLM) *agent.Service {
	t.Helper()
	a := e.db.Agent()
	svc, err := agent.New(agent.Config{Jobs: jobs, Memory: a, Threads: a, Market: e.mkt, Balances: e.chain, LLM: llm, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	return svc
}

func startRunner(t *testing.T, svc *agent.Service, cfg agent.RunnerConfig) (stop func()) {
	t.Helper()
	cfg.Logger = quiet
	r, err := agent.NewRunner(cfg, svc)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { r.Run(ctx); close(done) }()
	stop = func() { cancel(); <-done }
	t.Cleanup(stop)
	return stop
}

// A runner killed with jobs in flight completes none of them; a new runner rescues and finishes
// every job, and no job completes twice.
func TestRunnerCrashAndRescue(t *testing.T) {
	e := newEnv(t, nil)
	store := &counting{JobStore: e.db.Agent(), completed: map[string]int{}, by: map[string]string{}}
	w := e.dev.Accounts[5].Address
	const jobs, workers = 6, 3
	ids := make([]string, jobs)
	for i := range ids {
		ids[i] = e.submit(t, w, "buy 0.01 ETH of DETH", "").ID
	}

	started := make(chan struct{}, jobs)
	lease := agent.RunnerConfig{Workers: workers, Lease: 400 * time.Millisecond, Heartbeat: 100 * time.Millisecond, Rescue: 50 * time.Millisecond, Poll: 20 * time.Millisecond}
	cfgA := lease
	cfgA.ID = "runner-a"
	killA := startRunner(t, e.service(t, store, stuck{started}), cfgA)
	for range workers {
		select {
		case <-started:
		case <-time.After(20 * time.Second):
			t.Fatal("runner A did not take its jobs")
		}
	}
	killA()
	inFlight := 0
	for _, id := range ids {
		j, err := store.GetJob(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		if j.Status == agent.StatusProcessing && j.Runner == "runner-a" {
			inFlight++
		} else if j.Status != agent.StatusPending {
			t.Fatalf("after the kill, job %s is %s", id, j.Status)
		}
	}
	if inFlight != workers {
		t.Fatalf("%d jobs in flight at the kill, want %d", inFlight, workers)
	}

	cfgB := lease
	cfgB.ID = "runner-b"
	startRunner(t, e.service(t, store, nil), cfgB)
	for _, id := range ids {
		j := e.await(t, w, id)
		if j.Status != agent.StatusCompleted || len(j.RichData) != 1 {
			t.Fatalf("job %s ended %s (%q)", id, j.Status, j.Error)
		}
	}
	store.await(t, ids...)
	store.mu.Lock()
	defer store.mu.Unlock()
	for _, id := range ids {
		if store.completed[id] != 1 || store.by[id] != "runner-b" {
			t.Errorf("job %s completed %d times, last by %s", id, store.completed[id], store.by[id])
		}
	}
}

// Heartbeats keep a lease alive while a turn outlasts it: the job runs once.
func TestHeartbeatKeepsTheLease(t *testing.T) {
	e := newEnv(t, nil)
	store := &counting{JobStore: e.db.Agent(), completed: map[string]int{}, by: map[string]string{}}
	w := e.dev.Accounts[5].Address
	id := e.submit(t, w, "trending tokens", "").ID
	cfg := agent.RunnerConfig{Workers: 2, Lease: 300 * time.Millisecond, Heartbeat: 60 * time.Millisecond, Rescue: 30 * time.Millisecond, Poll: 20 * time.Millisecond}
	startRunner(t, e.service(t, store, slow{d: 700 * time.Millisecond}), cfg)
	j := e.await(t, w, id)
	if j.Status != agent.StatusCompleted || j.Attempts != 1 {
		t.Fatalf("job = %s after %d attempts", j.Status, j.Attempts)
	}
	store.await(t, id)
	store.mu.Lock()
	defer store.mu.Unlock()
	if store.completed[id] != 1 {
		t.Fatalf("completed %d times", store.completed[id])
	}
}

// A turn that outlasts the runner's turn timeout fails its job with a plain message.
func TestTurnTimeoutFailsTheJob(t *testing.T) {
	e := newEnv(t, nil)
	w := e.dev.Accounts[5].Address
	id := e.submit(t, w, "trending tokens", "").ID
	startRunner(t, e.service(t, e.db.Agent(), slow{d: 5 * time.Second}), agent.RunnerConfig{Workers: 1, TurnTimeout: 100 * time.Millisecond, Poll: 20 * time.Millisecond})
	j := e.await(t, w, id)
	if j.Status != agent.StatusFailed || j.Error != "the agent took longer than 100ms" || j.Attempts != 1 {
		t.Fatalf("job = %s %q after %d attempts", j.Status, j.Error, j.Attempts)
	}
}

// The runner tells its observer how each job ended: a completed job and a refused one, once each.
func TestRunnerObservesOutcomes(t *testing.T) {
	e := newEnv(t, nil)
	var mu sync.Mutex
	seen := map[string]int{}
	e.run(t, agent.RunnerConfig{Workers: 1, Observe: func(outcome string, took time.Duration) {
		if took < 0 {
			t.Errorf("negative duration %s", took)
		}
		mu.Lock()
		seen[outcome]++
		mu.Unlock()
	}})
	w := e.dev.Accounts[5].Address
	done := e.await(t, w, e.submit(t, w, "price of DETH", "").ID)
	if done.Status != agent.StatusCompleted {
		t.Fatalf("job ended %s: %q", done.Status, done.Error)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		mu.Lock()
		n := seen["completed"]
		mu.Unlock()
		if n == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("observer saw %v, want one completed", seen)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// noting is the real job store, keeping the notes written apart from a job's end.
type noting struct {
	agent.JobStore
	mu     sync.Mutex
	writes [][]agent.StatusUpdate
}

func (n *noting) AddStatusUpdates(ctx context.Context, l agent.Lease, ups []agent.StatusUpdate) error {
	n.mu.Lock()
	n.writes = append(n.writes, ups)
	n.mu.Unlock()
	return n.JobStore.AddStatusUpdates(ctx, l, ups)
}

// gated is the offline planner, answering once open is closed.
type gated struct {
	agent.Offline
	open chan struct{}
}

func (g gated) Complete(ctx context.Context, r *agent.Request) (agent.Reply, error) {
	select {
	case <-g.open:
	case <-ctx.Done():
		return agent.Reply{}, ctx.Err()
	}
	return g.Offline.Complete(ctx, r)
}

func messages(ups []agent.StatusUpdate) []string {
	out := make([]string, len(ups))
	for i, u := range ups {
		out[i] = u.Message
	}
	return out
}

// A quick turn's progress notes are written with its answer, in one step; a slow turn's notes
// show while it runs, each within NoteDelay, and every note lands once, in order.
func TestProgressNotes(t *testing.T) {
	e := newEnv(t, nil)
	w := e.dev.Accounts[5].Address
	want := []string{"planning", "running list_tokens"}

	quick := &noting{JobStore: e.db.Agent()}
	stop := startRunner(t, e.service(t, quick, nil), agent.RunnerConfig{Workers: 1, Poll: 20 * time.Millisecond, NoteDelay: time.Minute})
	j := e.await(t, w, e.submit(t, w, "trending tokens", "").ID)
	stop()
	if j.Status != agent.StatusCompleted || !slices.Equal(messages(j.StatusUpdates), want) {
		t.Fatalf("quick job: %s with notes %q, want %q", j.Status, messages(j.StatusUpdates), want)
	}
	if len(quick.writes) != 0 {
		t.Fatalf("a quick job wrote its notes apart from its answer: %v", quick.writes)
	}

	slowStore := &noting{JobStore: e.db.Agent()}
	open := make(chan struct{})
	startRunner(t, e.service(t, slowStore, gated{open: open}), agent.RunnerConfig{Workers: 1, Poll: 20 * time.Millisecond, NoteDelay: 50 * time.Millisecond})
	id := e.submit(t, w, "trending tokens", "").ID
	deadline := time.Now().Add(10 * time.Second)
	for {
		j, err := slowStore.GetJob(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		if j.Status != agent.StatusPending && j.Status != agent.StatusProcessing {
			t.Fatalf("the gated job ended %s", j.Status)
		}
		if len(j.StatusUpdates) > 0 {
			if got := messages(j.StatusUpdates); !slices.Equal(got, want[:1]) {
				t.Fatalf("notes while planning: %q", got)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the running job's first note was never written")
		}
		time.Sleep(10 * time.Millisecond)
	}
	close(open)
	j = e.await(t, w, id)
	if j.Status != agent.StatusCompleted || !slices.Equal(messages(j.StatusUpdates), want) {
		t.Fatalf("slow job: %s with notes %q, want %q", j.Status, messages(j.StatusUpdates), want)
	}
}

// claims is the real job store, counting claims.
type claims struct {
	agent.JobStore
	mu sync.Mutex
	n  int
}

func (c *claims) ClaimJob(ctx context.Context, p *agent.ClaimJobParams) (agent.Job, error) {
	c.mu.Lock()
	c.n++
	c.mu.Unlock()
	return c.JobStore.ClaimJob(ctx, p)
}

func (c *claims) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n
}

// An idle runner looks for jobs once per Poll, not once per worker, and a job that arrives
// without a wake-up (another process's, its signal lost) is still found and run, by all the
// workers as needed.
func TestIdleRunnerPollsOnce(t *testing.T) {
	e := newEnv(t, nil)
	store := &claims{JobStore: e.db.Agent()}
	const workers, poll = 8, 50 * time.Millisecond
	startRunner(t, e.service(t, store, nil), agent.RunnerConfig{Workers: workers, Poll: poll})
	time.Sleep(100 * time.Millisecond) // every worker's first look
	before := store.count()
	time.Sleep(10 * poll)
	if idle := store.count() - before; idle > 15 {
		t.Fatalf("%d claims in %s of idleness with %d workers polling every %s; want about 10", idle, 10*poll, workers, poll)
	}

	// Jobs inserted behind the runner's back: no nudge reaches it.
	w := e.dev.Accounts[5].Address
	var ids []string
	for i := range 3 {
		j, err := store.InsertJob(context.Background(), &agent.InsertJobParams{ID: fmt.Sprintf("job_unsignalled%d", i), ThreadID: fmt.Sprintf("thr_unsignalled%d", i),
			Wallet: w, Prompt: "trending tokens", CreatedAt: time.Now()})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, j.ID)
	}
	for _, id := range ids {
		if j := e.await(t, w, id); j.Status != agent.StatusCompleted {
			t.Fatalf("unsignalled job %s ended %s (%q)", id, j.Status, j.Error)
		}
	}
}

// reads is the real job store, counting reads of one job.
type reads struct {
	agent.JobStore
	n atomic.Int64
}

func (r *reads) GetJob(ctx context.Context, id string) (agent.Job, error) {
	r.n.Add(1)
	return r.JobStore.GetJob(ctx, id)
}

// A job this process's runner ended is answered without a read, as the store holds it; one
// ended elsewhere is read; another wallet's stays forbidden either way.
func TestEndedJobsAnsweredFromMemory(t *testing.T) {
	e := newEnv(t, nil)
	ctx := context.Background()
	w, other := e.dev.Accounts[5].Address, e.dev.Accounts[6].Address
	store := &reads{JobStore: e.db.Agent()}
	svc := e.service(t, store, nil)
	stop := startRunner(t, svc, agent.RunnerConfig{Workers: 1, Poll: 20 * time.Millisecond})
	j, err := svc.Submit(ctx, agent.SubmitParams{Wallet: w, Prompt: "trending tokens"})
	if err != nil {
		t.Fatal(err)
	}
	stored := e.await(t, w, j.ID) // through another service, which reads the store
	stop()
	before := store.n.Load()
	got, err := svc.Job(ctx, w, j.ID)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(stored, got); diff != "" {
		t.Fatalf("the ended job from memory differs from the store's (-store +memory):\n%s", diff)
	}
	if _, err := svc.Job(ctx, other, j.ID); !errors.Is(err, curvekit.ErrForbidden) {
		t.Fatalf("another wallet's poll: %v", err)
	}
	if n := store.n.Load() - before; n != 0 {
		t.Fatalf("polls of a job this process ended read the store %d times", n)
	}

	// Cancelled by another service: this one has not seen it end, so it reads.
	pending := e.submit(t, w, "trending tokens", "")
	if _, err := e.svc.Cancel(ctx, w, pending.ID); err != nil {
		t.Fatal(err)
	}
	if got, err := svc.Job(ctx, w, pending.ID); err != nil || got.Status != agent.StatusCancelled {
		t.Fatalf("a job cancelled elsewhere: %s, %v", got.Status, err)
	}
	if n := store.n.Load() - before; n != 1 {
		t.Fatalf("a job ended elsewhere was read %d times, want 1", n)
	}
}
