package agenttest

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/google/go-cmp/cmp"

	"github.com/curvekit/curvekit"
	"github.com/curvekit/curvekit/agent"
)

// prompts lists the prompts of a wallet's thread, oldest first.
func prompts(t *testing.T, s Stores, w common.Address, thread string) []string {
	t.Helper()
	turns, err := s.Threads.Turns(context.Background(), &agent.TurnsParams{Wallet: w, Thread: thread, Limit: 100})
	if err != nil {
		t.Fatalf("Turns of %s's %s: %v", w, thread, err)
	}
	out := make([]string, len(turns))
	for i, tu := range turns {
		out[i] = tu.Prompt
	}
	return out
}

// Threads belong to wallets: the same id in two wallets is two threads, each with only its own
// turns, appended and completed into, in any order, without an error.
func testThreadsPerWallet(t *testing.T, s Stores) {
	if s.Threads == nil {
		t.Skip("no thread store")
	}
	ctx := context.Background()
	for i, tc := range []struct {
		w      common.Address
		prompt string
	}{{walletB, "b1"}, {walletA, "a1"}, {walletB, "b2"}, {walletA, "a2"}} {
		err := s.Threads.AppendTurn(ctx, &agent.AppendTurnParams{Thread: "chat-1", Wallet: tc.w, Turn: agent.Turn{Prompt: tc.prompt, Response: "r", At: at(i)}})
		if err != nil {
			t.Fatalf("append %s: %v", tc.prompt, err)
		}
	}
	// A job on the id ends in its own wallet's thread, whoever used the id first.
	for i, w := range []common.Address{walletA, walletB} {
		id := fmt.Sprintf("job-%d", i)
		if _, err := s.Jobs.InsertJob(ctx, &agent.InsertJobParams{ID: id, ThreadID: "chat-1", Wallet: w, Prompt: id, CreatedAt: at(10 + i), MaxPending: 5}); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 2 {
		c := claim(t, s.Jobs, "r1", at(20+i), time.Minute)
		if _, err := s.Jobs.CompleteJob(ctx, &agent.CompleteJobParams{Lease: leaseOf(c), Response: "done", At: at(30 + i), Turn: &agent.Turn{Prompt: c.ID, Response: "done", At: at(30 + i)}}); err != nil {
			t.Fatalf("complete %s of %s: %v", c.ID, c.Wallet, err)
		}
	}
	if diff := cmp.Diff([]string{"a1", "a2", "job-0"}, prompts(t, s, walletA, "chat-1")); diff != "" {
		t.Errorf("wallet A's chat-1 (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"b1", "b2", "job-1"}, prompts(t, s, walletB, "chat-1")); diff != "" {
		t.Errorf("wallet B's chat-1 (-want +got):\n%s", diff)
	}
	// An id only another wallet used is a new thread, with no turns.
	if err := s.Threads.AppendTurn(ctx, &agent.AppendTurnParams{Thread: "only-b", Wallet: walletB, Turn: agent.Turn{Prompt: "b", At: at(40)}}); err != nil {
		t.Fatal(err)
	}
	if got := prompts(t, s, walletA, "only-b"); len(got) != 0 {
		t.Errorf("wallet A reads another wallet's turns: %v", got)
	}
}

// Completions and appends racing into one new thread id, of two wallets at once, all land,
// each turn once and in its own wallet's thread, and none fails; a completion whose lease was
// lost writes neither its answer nor its turn.
func testConcurrentCompletions(t *testing.T, s Stores) {
	if s.Threads == nil {
		t.Skip("no thread store")
	}
	ctx := context.Background()
	const n = 4
	wallets := map[string]common.Address{"a": walletA, "b": walletB}
	for i := range n {
		for name, w := range wallets {
			id := fmt.Sprintf("%s-job-%d", name, i)
			if _, err := s.Jobs.InsertJob(ctx, &agent.InsertJobParams{ID: id, ThreadID: "fresh", Wallet: w, Prompt: id, CreatedAt: at(i), MaxPending: n}); err != nil {
				t.Fatal(err)
			}
		}
	}
	var held []agent.Job
	for range 2 * n {
		held = append(held, claim(t, s.Jobs, "r1", at(10), time.Minute))
	}
	var wg sync.WaitGroup
	for i, j := range held {
		wg.Go(func() {
			turn := &agent.Turn{Prompt: j.ID, Response: "done", At: at(20 + i)}
			if _, err := s.Jobs.CompleteJob(ctx, &agent.CompleteJobParams{Lease: leaseOf(j), Response: "done", At: at(20 + i), Turn: turn}); err != nil {
				t.Errorf("complete %s: %v", j.ID, err)
			}
		})
	}
	for i := range n {
		for name, w := range wallets {
			wg.Go(func() {
				prompt := fmt.Sprintf("%s-append-%d", name, i)
				if err := s.Threads.AppendTurn(ctx, &agent.AppendTurnParams{Thread: "fresh", Wallet: w, Turn: agent.Turn{Prompt: prompt, At: at(20 + i)}}); err != nil {
					t.Errorf("append %s: %v", prompt, err)
				}
			})
		}
	}
	wg.Wait()
	// A completion again, as after a lost answer: the lease ended with the first.
	_, err := s.Jobs.CompleteJob(ctx, &agent.CompleteJobParams{Lease: leaseOf(held[0]), Response: "again", At: at(40), Turn: &agent.Turn{Prompt: "again", At: at(40)}})
	wantErr(t, "a second completion", err, curvekit.ErrConflict)
	for name, w := range wallets {
		got := prompts(t, s, w, "fresh")
		seen := map[string]bool{}
		for _, p := range got {
			if !strings.HasPrefix(p, name+"-") {
				t.Errorf("wallet %s's thread holds %q", name, p)
			}
			seen[p] = true
		}
		if len(got) != 2*n || len(seen) != 2*n {
			t.Errorf("wallet %s's thread has %d turns, %d distinct, want %d: %v", name, len(got), len(seen), 2*n, got)
		}
	}
	for _, j := range held {
		if got := get(t, s.Jobs, j.ID); got.Status != agent.StatusCompleted || got.Response != "done" {
			t.Errorf("%s: %s %q", j.ID, got.Status, got.Response)
		}
	}
}
