package agent_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/ethereum/go-ethereum/common"

	"github.com/curvekit/curvekit/adapters/bunstore"
	"github.com/curvekit/curvekit/agent"
	"github.com/curvekit/curvekit/market"
	"github.com/curvekit/curvekit/txbuild"
)

// A streamed turn with the offline planner: the prompt becomes a tool call, the tool's answer
// becomes the text, and the events arrive in order.
func ExampleService_Prompt() {
	ctx := context.Background()
	db, err := bunstore.Open(ctx, bunstore.Config{DSN: "file::memory:"})
	if err != nil {
		panic(err)
	}
	defer db.Close()
	builder, _ := txbuild.New(txbuild.Config{ChainID: 1337})
	mkt, _ := market.NewService(market.ServiceConfig{Store: db.Market(), Builder: builder})
	stores := db.Agent()
	svc, err := agent.New(agent.Config{Jobs: stores, Memory: stores, Threads: stores, Market: mkt})
	if err != nil {
		panic(err)
	}

	wallet := common.HexToAddress("0x00000000000000000000000000000000000000aa")
	var text strings.Builder
	_, err = svc.Prompt(ctx, agent.TurnParams{Wallet: wallet, ThreadID: "example", Prompt: "remember my slippage is 0.5%"},
		func(e agent.Event) error {
			switch e.Type {
			case agent.EventText:
				text.WriteString(e.Text) // deltas: "I", " will", " remember", ...
			case agent.EventUsage:
				fmt.Printf("%s after step %d\n", e.Type, e.Usage.Steps)
			case agent.EventDone:
				fmt.Printf("%s: %q\n%s on thread %s\n", agent.EventText, text.String(), e.Type, e.Done.ThreadID)
			}
			return nil
		})
	if err != nil {
		panic(err)
	}
	mem, _ := svc.Memories(ctx, wallet)
	fmt.Printf("memory: %s = %s\n", mem[0].Key, mem[0].Value)
	// Output:
	// usage_update after step 1
	// usage_update after step 2
	// text_delta: "I will remember slippage: 0.5%."
	// done on thread example
	// memory: slippage = 0.5%
}
