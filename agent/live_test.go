package agent_test

import (
	"context"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/curvekit/curvekit/adapters/bunstore"
	"github.com/curvekit/curvekit/agent"
	"github.com/curvekit/curvekit/internal/pgtest"
	"github.com/curvekit/curvekit/market"
	"github.com/curvekit/curvekit/txbuild"
)

// watchedService is the agent on db with cfg's limits and planner, over an empty market, its
// polls answered from memory while its watch runs (until the test ends), with reads counted.
func watchedService(tb testing.TB, db *bunstore.DB, cfg agent.Config) (*agent.Service, *reads) {
	tb.Helper()
	builder, _ := txbuild.New(txbuild.Config{ChainID: 1337})
	mkt, err := market.NewService(market.ServiceConfig{Store: db.Market(), Builder: builder})
	if err != nil {
		tb.Fatal(err)
	}
	a := db.Agent()
	jobs := &reads{JobStore: a}
	cfg.Jobs, cfg.Memory, cfg.Threads, cfg.Market, cfg.Changes, cfg.Logger = jobs, a, a, mkt, a, quiet
	svc, err := agent.New(cfg)
	if err != nil {
		tb.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { svc.WatchJobs(ctx); close(done) }()
	tb.Cleanup(func() { cancel(); <-done })
	for deadline := time.Now().Add(10 * time.Second); !svc.WatchingJobs(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			tb.Fatal("the watch of jobs was not ready within 10 s")
		}
	}
	return svc, jobs
}

// remembering is watchedService whose memory of a job in flight never expires: what a poll sees
// of another process's change then comes from the watch alone.
func remembering(t *testing.T, db *bunstore.DB, llm agent.LLM) (*agent.Service, *reads) {
	t.Helper()
	svc, jobs := watchedService(t, db, agent.Config{LLM: llm})
	svc.KeepLiveJobsFor(time.Hour)
	return svc, jobs
}

// polls asks for the job n times and returns the last answer.
func polls(t *testing.T, svc *agent.Service, wallet common.Address, id string, n int) agent.Job {
	t.Helper()
	var j agent.Job
	for range n {
		var err error
		if j, err = svc.Job(context.Background(), wallet, id); err != nil {
			t.Fatal(err)
		}
	}
	return j
}

// pollUntil polls every millisecond until the job reaches status, for 5 s at most.
func pollUntil(t *testing.T, svc *agent.Service, wallet common.Address, id string, status agent.Status) agent.Job {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		j := polls(t, svc, wallet, id, 1)
		if j.Status == status {
			return j
		}
		if time.Now().After(deadline) {
			t.Fatalf("job %s still %s after 5 s, want %s", id, j.Status, status)
		}
		time.Sleep(time.Millisecond)
	}
}

// Two replicas on one PostgreSQL: polls of a job in flight on one are answered from memory, and
// an end or a cancellation committed by the other reaches them through the watch, at once.
func TestPollsOfJobsInFlightAcrossReplicas(t *testing.T) {
	t.Parallel()
	dsn := pgtest.Schema(t, "agent_live")
	open := func() *bunstore.DB {
		db, err := bunstore.Open(context.Background(), bunstore.Config{DSN: dsn, MaxOpenConns: 4})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		return db
	}
	a, b := open(), open()
	svc, reads := remembering(t, a, nil)
	other := b.Agent() // another replica's runner, through its own database handle
	ctx := context.Background()
	w := common.HexToAddress("0x00000000000000000000000000000000000000aa")

	j, err := svc.Submit(ctx, agent.SubmitParams{Wallet: w, Prompt: "trending tokens"})
	if err != nil {
		t.Fatal(err)
	}
	if got := polls(t, svc, w, j.ID, 20); got.Status != agent.StatusPending || reads.n.Load() != 0 {
		t.Fatalf("20 polls of a pending job just submitted: %s after %d reads, want pending after none", got.Status, reads.n.Load())
	}

	// Claimed elsewhere: not announced, so the polls here may keep answering pending from
	// memory (until it expires, here never).
	now := time.Now()
	claimed, err := other.ClaimJob(ctx, &agent.ClaimJobParams{Runner: "elsewhere", Now: now, LeaseUntil: now.Add(time.Minute)})
	if err != nil || claimed.ID != j.ID {
		t.Fatalf("claim on the other replica: %v, %v", claimed.ID, err)
	}
	lease := agent.Lease{JobID: j.ID, Runner: "elsewhere", Attempt: claimed.Attempts}
	if _, err := other.CompleteJob(ctx, &agent.CompleteJobParams{Lease: lease, Response: "done", At: time.Now()}); err != nil {
		t.Fatal(err)
	}
	done := pollUntil(t, svc, w, j.ID, agent.StatusCompleted)
	if done.Response != "done" {
		t.Fatalf("completed with %q", done.Response)
	}
	n := reads.n.Load()
	polls(t, svc, w, j.ID, 20)
	if got := reads.n.Load() - n; got != 0 {
		t.Fatalf("polls of an ended job read the store %d times, want none", got)
	}

	j, err = svc.Submit(ctx, agent.SubmitParams{Wallet: w, Prompt: "trending tokens"})
	if err != nil {
		t.Fatal(err)
	}
	polls(t, svc, w, j.ID, 5)
	if _, err := other.CancelJob(ctx, &agent.CancelJobParams{ID: j.ID, Wallet: w, At: time.Now()}); err != nil {
		t.Fatal(err)
	}
	pollUntil(t, svc, w, j.ID, agent.StatusCancelled)

	// Claimed by this replica's own runner: its polls see the claim at once.
	started := make(chan struct{}, 1)
	mine, _ := remembering(t, a, stuck{started})
	j, err = mine.Submit(ctx, agent.SubmitParams{Wallet: w, Prompt: "trending tokens"})
	if err != nil {
		t.Fatal(err)
	}
	if got := polls(t, mine, w, j.ID, 5); got.Status != agent.StatusPending {
		t.Fatalf("a job just submitted is %s", got.Status)
	}
	runs := startRunner(t, mine, agent.RunnerConfig{Workers: 1, Poll: 10 * time.Millisecond})
	<-started
	if got := polls(t, mine, w, j.ID, 1); got.Status != agent.StatusProcessing {
		t.Fatalf("the runner's own service answers %s for the job it claimed", got.Status)
	}
	runs()
}

// Without a watch every poll of a job in flight reads the store: a process that cannot hear
// changes never answers from memory.
func TestPollsReadWithoutAWatch(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	a := e.db.Agent()
	jobs := &reads{JobStore: a}
	svc, err := agent.New(agent.Config{Jobs: jobs, Memory: a, Threads: a, Market: e.mkt, Changes: a, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	w := e.dev.Accounts[5].Address
	j, err := svc.Submit(context.Background(), agent.SubmitParams{Wallet: w, Prompt: "trending tokens"})
	if err != nil {
		t.Fatal(err)
	}
	polls(t, svc, w, j.ID, 5)
	if n := jobs.n.Load(); n != 5 {
		t.Fatalf("5 polls without a watch read the store %d times", n)
	}
}

// On SQLite (one process) the runner's changes reach the polls through the store itself: a
// client polling every millisecond sees its job completed, with a read per change and none in
// between.
func TestPollsOfJobsInFlightOnSQLite(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	svc, reads := remembering(t, e.db, nil)
	w := e.dev.Accounts[5].Address
	startRunner(t, svc, agent.RunnerConfig{Workers: 1, Poll: 20 * time.Millisecond})
	var js []agent.Job
	for range 5 {
		j, err := svc.Submit(context.Background(), agent.SubmitParams{Wallet: w, Prompt: "remember my slippage is 1%"})
		if err != nil {
			t.Fatal(err)
		}
		js = append(js, j)
	}
	var n int
	for _, j := range js {
		pollUntil(t, svc, w, j.ID, agent.StatusCompleted)
		n++
	}
	// Each job: at most one read after its claim, after its notes and after its end (none
	// when its own runner ended it), each a few of hundreds of polls.
	if got := reads.n.Load(); got > int64(3*n) {
		t.Fatalf("%d polls' worth of jobs read the store %d times, want at most %d", n, got, 3*n)
	}
}
