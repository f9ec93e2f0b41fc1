package agenttest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/curvekit/curvekit"
	"github.com/curvekit/curvekit/agent"
)

func testMemory(t *testing.T, s Stores) {
	ctx := context.Background()
	got, err := s.Memory.Memories(ctx, walletA)
	if err != nil || got == nil || len(got) != 0 {
		t.Fatalf("Memories of a new wallet = %#v, %v; want an empty slice", got, err)
	}
	put := func(k, v string, ms int) error {
		return s.Memory.PutMemory(ctx, &agent.PutMemoryParams{Wallet: walletA, Key: k, Value: v, At: at(ms), MaxEntries: 2})
	}
	if err := put("slippage", "1%", 1); err != nil {
		t.Fatal(err)
	}
	if err := put("favorite", "DETH ✓", 2); err != nil {
		t.Fatal(err)
	}
	wantErr(t, "a third entry over the cap", put("third", "x", 3), curvekit.ErrLimited)
	if err := put("slippage", "0.5%", 4); err != nil {
		t.Fatalf("replacing at the cap: %v", err)
	}
	if err := s.Memory.PutMemory(ctx, &agent.PutMemoryParams{Wallet: walletB, Key: "slippage", Value: "3%", At: at(5), MaxEntries: 2}); err != nil {
		t.Fatal(err)
	}
	got, err = s.Memory.Memories(ctx, walletA)
	if err != nil {
		t.Fatal(err)
	}
	want := []agent.MemoryEntry{{Key: "favorite", Value: "DETH ✓", UpdatedAt: at(2)}, {Key: "slippage", Value: "0.5%", UpdatedAt: at(4)}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("Memories (-want +got):\n%s", diff)
	}
	wantErr(t, "deleting an unknown key", s.Memory.DeleteMemory(ctx, walletA, "nope"), curvekit.ErrNotFound)
	if err := s.Memory.DeleteMemory(ctx, walletA, "slippage"); err != nil {
		t.Fatal(err)
	}
	wantErr(t, "deleting twice", s.Memory.DeleteMemory(ctx, walletA, "slippage"), curvekit.ErrNotFound)
	if got, _ := s.Memory.Memories(ctx, walletB); len(got) != 1 || got[0].Value != "3%" {
		t.Fatalf("the other wallet's memory = %+v", got)
	}
}

func testMemoryCapConcurrent(t *testing.T, s Stores) {
	const n, capacity = 10, 4
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Go(func() {
			errs[i] = s.Memory.PutMemory(context.Background(), &agent.PutMemoryParams{Wallet: walletA, Key: fmt.Sprintf("k%d", i), Value: "v", At: at(i), MaxEntries: capacity})
		})
	}
	wg.Wait()
	ok := 0
	for _, err := range errs {
		switch {
		case err == nil:
			ok++
		case !errors.Is(err, curvekit.ErrLimited):
			t.Fatalf("concurrent put: %v", err)
		}
	}
	got, err := s.Memory.Memories(context.Background(), walletA)
	if err != nil {
		t.Fatal(err)
	}
	if ok != capacity || len(got) != capacity {
		t.Fatalf("%d puts succeeded and %d entries are stored under a cap of %d", ok, len(got), capacity)
	}
}

func testThreads(t *testing.T, s Stores) {
	ctx := context.Background()
	turns, err := s.Threads.Turns(ctx, &agent.TurnsParams{Wallet: walletA, Thread: "unknown", Limit: 10})
	if err != nil || len(turns) != 0 {
		t.Fatalf("Turns of an unknown thread = %+v, %v", turns, err)
	}
	for i := range 5 {
		err := s.Threads.AppendTurn(ctx, &agent.AppendTurnParams{Thread: "t1", Wallet: walletA,
			Turn: agent.Turn{Prompt: fmt.Sprintf("q%d", i), Response: fmt.Sprintf("a%d", i), At: at(i)}})
		if err != nil {
			t.Fatal(err)
		}
	}
	// The same id in another wallet is another thread.
	if err := s.Threads.AppendTurn(ctx, &agent.AppendTurnParams{Thread: "t1", Wallet: walletB, Turn: agent.Turn{Prompt: "x", At: at(9)}}); err != nil {
		t.Fatalf("another wallet appending to its own t1: %v", err)
	}
	turns, err = s.Threads.Turns(ctx, &agent.TurnsParams{Wallet: walletB, Thread: "t1", Limit: 10})
	if diff := cmp.Diff([]agent.Turn{{Prompt: "x", At: at(9)}}, turns); err != nil || diff != "" {
		t.Fatalf("the other wallet's t1: %v (-want +got):\n%s", err, diff)
	}
	turns, err = s.Threads.Turns(ctx, &agent.TurnsParams{Wallet: walletA, Thread: "t1", Limit: 3})
	if err != nil {
		t.Fatal(err)
	}
	want := []agent.Turn{{Prompt: "q2", Response: "a2", At: at(2)}, {Prompt: "q3", Response: "a3", At: at(3)}, {Prompt: "q4", Response: "a4", At: at(4)}}
	if diff := cmp.Diff(want, turns); diff != "" {
		t.Fatalf("last 3 turns, oldest first (-want +got):\n%s", diff)
	}
	// Concurrent appends to one thread all land, in some order.
	var wg sync.WaitGroup
	for i := range 6 {
		wg.Go(func() {
			if err := s.Threads.AppendTurn(ctx, &agent.AppendTurnParams{Thread: "t2", Wallet: walletA, Turn: agent.Turn{Prompt: fmt.Sprint(i), At: at(i)}}); err != nil {
				t.Errorf("concurrent append: %v", err)
			}
		})
	}
	wg.Wait()
	if turns, err := s.Threads.Turns(ctx, &agent.TurnsParams{Wallet: walletA, Thread: "t2", Limit: 100}); err != nil || len(turns) != 6 {
		t.Fatalf("after 6 concurrent appends: %d turns, %v", len(turns), err)
	}
}

// A store that reads a turn's context at once answers as its two reads do, errors included.
func testTurnContext(t *testing.T, s Stores) {
	r, ok := s.Memory.(agent.TurnContextReader)
	if !ok || s.Threads == nil {
		t.Skip("the memory store reads no turn context")
	}
	ctx := context.Background()
	for i, kv := range [][2]string{{"slippage", "1%"}, {"Alias", "\"quoted\" ✓\n"}, {"b", ""}} {
		if err := s.Memory.PutMemory(ctx, &agent.PutMemoryParams{Wallet: walletA, Key: kv[0], Value: kv[1], At: at(i)}); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 5 {
		if err := s.Threads.AppendTurn(ctx, &agent.AppendTurnParams{Thread: "ctx", Wallet: walletA, Turn: agent.Turn{Prompt: fmt.Sprint("q", i), Response: fmt.Sprint("a ✓", i), At: at(10 + i)}}); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range []agent.TurnsParams{
		{Wallet: walletA, Thread: "ctx", Limit: 3},
		{Wallet: walletA, Thread: "ctx", Limit: 10},
		{Wallet: walletA, Thread: "unknown", Limit: 3},
		{Wallet: walletB, Thread: "unknown", Limit: 3}, // no memory
		{Wallet: walletB, Thread: "ctx", Limit: 3},     // an id another wallet uses: none of its turns
	} {
		mem, turns, err := r.TurnContext(ctx, &p)
		wantMem, merr := s.Memory.Memories(ctx, p.Wallet)
		if merr != nil {
			t.Fatal(merr)
		}
		wantTurns, terr := s.Threads.Turns(ctx, &p)
		if terr != nil {
			t.Fatalf("Turns %+v: %v", p, terr)
		}
		if err != nil {
			t.Fatalf("TurnContext %+v: %v", p, err)
		}
		if diff := cmp.Diff(wantMem, mem); diff != "" {
			t.Fatalf("TurnContext %+v: memory (-Memories +TurnContext):\n%s", p, diff)
		}
		if diff := cmp.Diff(wantTurns, turns); diff != "" {
			t.Fatalf("TurnContext %+v: turns (-Turns +TurnContext):\n%s", p, diff)
		}
	}
}
