package agent_test

import (
	"context"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/curvekit/curvekit/adapters/bunstore"
	"github.com/curvekit/curvekit/agent"
	"github.com/curvekit/curvekit/market"
	"github.com/curvekit/curvekit/txbuild"
)

// crashChildEnv names the database a child runner process works on.
const crashChildEnv = "CURVEKIT_AGENT_CRASH_CHILD_DB"

// TestCrashChildRunner is the child of TestRunnerProcessKilled: a runner process whose planner never
// answers, so that every job it claims is in flight when the parent kills it.
func TestCrashChildRunner(t *testing.T) {
	dsn := os.Getenv(crashChildEnv)
	if dsn == "" {
		t.Skip("runs as the child of TestRunnerProcessKilled")
	}
	ctx := context.Background()
	db, err := bunstore.Open(ctx, bunstore.Config{DSN: dsn})
	if err != nil {
		t.Fatal(err)
	}
	b, err := txbuild.New(txbuild.Config{ChainID: 1337, Factory: common.Address{1}, Router: common.Address{2}, WETH: common.Address{3}})
	if err != nil {
		t.Fatal(err)
	}
	mkt, err := market.NewService(market.ServiceConfig{Store: db.Market(), Builder: b})
	if err != nil {
		t.Fatal(err)
	}
	a := db.Agent()
	svc, err := agent.New(agent.Config{Jobs: a, Memory: a, Threads: a, Market: mkt, LLM: stuck{make(chan struct{}, 100)}, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	r, err := agent.NewRunner(agent.RunnerConfig{ID: "runner-child", Workers: 3, Lease: time.Second, Heartbeat: 200 * time.Millisecond, Poll: 20 * time.Millisecond, Logger: quiet}, svc)
	if err != nil {
		t.Fatal(err)
	}
	r.Run(ctx) // until killed
}

// The runner's process is killed (SIGKILL: no deferred code, no clean close of the database) with
// jobs in flight. After a new runner starts on the same database, every job reaches a terminal
// state, and none completes twice: the dead process's leases expire and are rescued, and its
// fenced completions can never land.
func TestRunnerProcessKilled(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a child process")
	}
	e := newEnv(t, nil)
	w := e.dev.Accounts[5].Address
	const jobs = 5
	ids := make([]string, jobs)
	for i := range ids {
		ids[i] = e.submit(t, w, "buy 0.01 ETH of DETH", "").ID
	}
	child := exec.Command(os.Args[0], "-test.run=^TestCrashChildRunner$", "-test.v")
	child.Env = append(os.Environ(), crashChildEnv+"="+e.dsn)
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	defer child.Process.Kill()

	// Wait until the child holds three jobs.
	deadline := time.Now().Add(30 * time.Second)
	for {
		held := 0
		for _, id := range ids {
			j, err := e.db.Agent().GetJob(context.Background(), id)
			if err != nil {
				t.Fatal(err)
			}
			if j.Status == agent.StatusProcessing && j.Runner == "runner-child" {
				held++
			}
		}
		if held == 3 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the child runner holds %d jobs after 30s", held)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := child.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = child.Wait()

	store := &counting{JobStore: e.db.Agent(), completed: map[string]int{}, by: map[string]string{}}
	startRunner(t, e.service(t, store, nil), agent.RunnerConfig{
		ID: "runner-b", Workers: 2, Lease: time.Second, Heartbeat: 200 * time.Millisecond, Rescue: 100 * time.Millisecond, Poll: 20 * time.Millisecond,
	})
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
			t.Errorf("job %s completed %d times, last by %q", id, store.completed[id], store.by[id])
		}
	}
}
