package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"math/big"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"

	"github.com/curvekit/curvekit"
	"github.com/curvekit/curvekit/agent"
	"github.com/curvekit/curvekit/contracts"
)

// tool returns the agent's tool of that name.
func (e *env) tool(t *testing.T, name string) agent.Tool {
	t.Helper()
	for _, tl := range e.svc.Tools() {
		if tl.Name == name {
			return tl
		}
	}
	t.Fatalf("no tool %s", name)
	return agent.Tool{}
}

// A symbol is not an identity: once a squatter launches a second DETH, "buy 0.01 ETH of DETH"
// composes nothing and lists both candidates by name and address; naming one by its address
// composes the buy of exactly that token, and the answer names the address.
func TestSquattedSymbolIsAmbiguous(t *testing.T) {
	e := newEnv(t, nil)
	ctx := context.Background()
	real := e.dev.ETHToken.Token
	data, err := contracts.LaunchFactoryABI.Pack("launch", "Definitely ETH", "deth", "ipfs://squat", common.Address{}, big.NewInt(0), big.NewInt(0))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.dev.Send(ctx, e.dev.Accounts[6].Key, &e.dev.Addrs.Factory, big.NewInt(0), data); err != nil {
		t.Fatal(err)
	}
	if _, err := e.ix.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	w := e.dev.Accounts[5].Address
	buy := e.tool(t, "build_buy_transaction")
	_, err = buy.Run(ctx, &agent.Call{Wallet: w}, json.RawMessage(`{"token":"DETH","amount":"0.01"}`))
	if !errors.Is(err, curvekit.ErrInvalid) || !strings.Contains(err.Error(), "2 tokens have the symbol DETH") ||
		!strings.Contains(err.Error(), real.Hex()) || !strings.Contains(err.Error(), "Definitely ETH") || !strings.Contains(err.Error(), "launched ") {
		t.Fatalf("an ambiguous symbol: %v", err)
	}
	// The same through a whole turn of the offline planner: text, no transaction.
	res, err := e.svc.Prompt(ctx, agent.TurnParams{Wallet: w, Prompt: "buy 0.01 ETH of DETH"}, func(agent.Event) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Transactions) != 0 || !strings.Contains(res.Response, real.Hex()) || !strings.Contains(res.Response, "name the one you mean by its address") {
		t.Fatalf("turn on an ambiguous symbol: %+v", res)
	}
	// By address it is exact, and the answer names it.
	res, err = e.svc.Prompt(ctx, agent.TurnParams{Wallet: w, Prompt: "buy 0.01 ETH of " + real.Hex()}, func(agent.Event) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Transactions) != 1 || !strings.Contains(res.Response, real.Hex()) || !strings.Contains(res.Response, "1% slippage") {
		t.Fatalf("buy by address: %+v", res)
	}
	if to := res.Transactions[0].TxRequest.To; !strings.EqualFold(to, e.dev.ETHToken.Curve.Hex()) {
		t.Fatalf("the buy goes to %s, not DETH's curve %s", to, e.dev.ETHToken.Curve.Hex())
	}
	// An unambiguous symbol still resolves.
	get := e.tool(t, "get_token")
	if _, err := get.Run(ctx, &agent.Call{Wallet: w}, json.RawMessage(`{"token":"GRAD"}`)); err != nil {
		t.Fatalf("GRAD: %v", err)
	}
}
