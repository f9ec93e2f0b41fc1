package agent_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/curvekit/curvekit"
	"github.com/curvekit/curvekit/agent"
)

// A read-only key reads and composes, but cannot change the wallet's memory, which steers the
// trades its owner composes later: not through a tool call, a job or a streamed turn. A
// slippage above the maximum is refused for anyone.
func TestReadOnlyCannotWriteMemory(t *testing.T) {
	e := newEnv(t, nil)
	e.run(t, agent.RunnerConfig{Workers: 1})
	ctx := context.Background()
	w := e.dev.Accounts[5].Address
	_, err := e.svc.RunTool(ctx, agent.RunToolParams{Wallet: w, Name: "remember", Args: []byte(`{"key":"slippage","value":"49%"}`), ReadOnly: true})
	if !errors.Is(err, curvekit.ErrForbidden) || !strings.Contains(err.Error(), "read-only") {
		t.Fatalf("read-only remember: %v", err)
	}
	if _, err := e.svc.RunTool(ctx, agent.RunToolParams{Wallet: w, Name: "remember", Args: []byte(`{"key":"slippage","value":"2%"}`)}); err != nil {
		t.Fatal(err)
	}
	_, err = e.svc.RunTool(ctx, agent.RunToolParams{Wallet: w, Name: "forget", Args: []byte(`{"key":"slippage"}`), ReadOnly: true})
	if !errors.Is(err, curvekit.ErrForbidden) {
		t.Fatalf("read-only forget: %v", err)
	}
	_, err = e.svc.RunTool(ctx, agent.RunToolParams{Wallet: w, Name: "remember", Args: []byte(`{"key":"slippage","value":"51%"}`)})
	if !errors.Is(err, curvekit.ErrInvalid) || !strings.Contains(err.Error(), "above 50%") {
		t.Fatalf("slippage above the maximum: %v", err)
	}
	j, err := e.svc.Submit(ctx, agent.SubmitParams{Wallet: w, ReadOnly: true, Prompt: "remember my slippage is 49%"})
	if err != nil {
		t.Fatal(err)
	}
	if j = e.await(t, w, j.ID); !strings.Contains(j.Response, "read-only") {
		t.Fatalf("read-only job: %q", j.Response)
	}
	res, err := e.svc.Prompt(ctx, agent.TurnParams{Wallet: w, ReadOnly: true, Prompt: "forget my slippage"}, func(agent.Event) error { return nil })
	if err != nil || !strings.Contains(res.Response, "read-only") {
		t.Fatalf("read-only turn: %q %v", res.Response, err)
	}
	mem, err := e.svc.Memories(ctx, w)
	if err != nil || len(mem) != 1 || mem[0].Value != "2%" {
		t.Fatalf("memory after read-only attempts: %+v %v", mem, err)
	}
	// The owner's trades keep the owner's slippage, and say it.
	res, err = e.svc.Prompt(ctx, agent.TurnParams{Wallet: w, Prompt: "buy 0.01 ETH of " + e.dev.ETHToken.Token.Hex()}, func(agent.Event) error { return nil })
	if err != nil || !strings.Contains(res.Response, "with 2% slippage") {
		t.Fatalf("the owner's buy: %q %v", res.Response, err)
	}
}
