package agent_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/google/go-cmp/cmp"

	"github.com/curvekit/curvekit/agent"
	"github.com/curvekit/curvekit/internal/testworld"
	"github.com/curvekit/curvekit/orders"
)

// ordersEnv is newEnv with the order tools: the orders service on the same store.
func ordersEnv(t *testing.T) (*env, *orders.Service) {
	t.Helper()
	w := testworld.New(t)
	book, err := orders.NewService(orders.Config{Store: w.DB.Orders(), Tokens: w.DB.Market()})
	if err != nil {
		t.Fatal(err)
	}
	a := w.DB.Agent()
	svc, err := agent.New(agent.Config{Jobs: a, Memory: a, Threads: a, Market: w.Market, Balances: w.Chain, Orders: book, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	return &env{dev: w.Dev, chain: w.Chain, db: w.DB, ix: w.Indexer, mkt: w.Market, svc: svc, dsn: w.DSN}, book
}

// A prompt for a schedule, a limit buy or sell or a stop-loss comes back as an order proposal,
// structured as a composed transaction is: the job's richData item and the streamed turn's order
// event, carrying the body of POST /orders. Nothing is armed by the turn; posting the body as it
// came places exactly the order proposed.
func TestOrderProposalsTravelAsRichData(t *testing.T) {
	e, book := ordersEnv(t)
	e.run(t, agent.RunnerConfig{Workers: 1})
	owner := e.dev.Accounts[5].Address
	deth := e.dev.ETHToken.Token.Hex()
	pct := func(f float64) *float64 { return &f }
	for _, tc := range []struct {
		prompt string
		want   orders.Request
	}{
		{"buy 0.01 ETH of DETH every minute, 3 times", orders.Request{Kind: "dca", Token: deth, Side: "buy", Amount: "0.01", Every: "1m", Times: 3}},
		{"buy 0.01 ETH of DETH at 0.000000004", orders.Request{Kind: "limit", Token: deth, Side: "buy", Amount: "0.01", Price: "0.000000004"}},
		{"sell 1000 DETH at 0.00000001", orders.Request{Kind: "limit", Token: deth, Side: "sell", Amount: "1000", Price: "0.00000001"}},
		{"sell half my DETH if it falls to 0.000000002", orders.Request{Kind: "stop-loss", Token: deth, Percent: pct(50), Price: "0.000000002"}},
	} {
		// The streamed turn.
		var events []agent.Event
		res, err := e.svc.Prompt(context.Background(), agent.TurnParams{Wallet: owner, Prompt: tc.prompt}, func(ev agent.Event) error {
			events = append(events, ev)
			return nil
		})
		if err != nil {
			t.Fatalf("%q: %v", tc.prompt, err)
		}
		var proposed []*agent.OrderProposal
		for _, ev := range events {
			if ev.Type == agent.EventOrder {
				proposed = append(proposed, ev.Order)
			}
		}
		last := events[len(events)-1]
		if len(proposed) != 1 || len(res.Transactions) != 0 || last.Type != agent.EventDone || last.Done.Orders != 1 || last.Done.Transactions != 0 {
			t.Fatalf("%q: %d order events, %d transactions, last %+v; answered %q", tc.prompt, len(proposed), len(res.Transactions), last, res.Response)
		}
		if events[len(events)-2].Type != agent.EventOrder {
			t.Errorf("%q: the order event is not the last before done", tc.prompt)
		}
		got := proposed[0]
		if diff := cmp.Diff(tc.want, got.Request); diff != "" {
			t.Errorf("%q: proposed order (-want +got):\n%s", tc.prompt, diff)
		}
		if got.Type != "order" || got.Kind != tc.want.Kind || got.Confirm != "POST /orders" || !strings.Contains(got.Description, deth) {
			t.Errorf("%q: proposal %+v", tc.prompt, got)
		}
		b, _ := json.Marshal(got.Request)
		if payload, _ := json.Marshal(events[len(events)-2].Payload()); !strings.Contains(string(payload), `"order":`+string(b)) {
			t.Errorf("%q: the order event's payload %s lacks the body %s", tc.prompt, payload, b)
		}

		// The job of the same prompt holds the same proposal as its richData.
		j := e.await(t, owner, e.submit(t, owner, tc.prompt, "").ID)
		if j.Status != agent.StatusCompleted || len(j.RichData) != 1 || j.RichData[0].Order == nil || j.RichData[0].Transaction != nil {
			t.Fatalf("%q: job %s %q richData %+v", tc.prompt, j.Status, j.Response, j.RichData)
		}
		if diff := cmp.Diff(*got, *j.RichData[0].Order); diff != "" {
			t.Errorf("%q: the job's proposal differs from the stream's (-stream +job):\n%s", tc.prompt, diff)
		}
		if !strings.Contains(j.Response, "Nothing is armed") {
			t.Errorf("%q: answered %q", tc.prompt, j.Response)
		}
	}

	// Nothing was armed by the turns; what the person confirms is what the API places.
	if live, err := book.WalletOrders(context.Background(), owner, common.Address{}); err != nil || len(live) != 0 {
		t.Fatalf("the agent placed %d orders (%v)", len(live), err)
	}
	res, err := e.svc.Prompt(context.Background(), agent.TurnParams{Wallet: owner, Prompt: "buy 0.01 ETH of DETH every minute, 3 times"}, func(agent.Event) error { return nil })
	if err != nil || len(res.Orders) != 1 {
		t.Fatalf("%v %+v", err, res)
	}
	placed, err := book.Place(context.Background(), orders.PlaceParams{AccountID: "acc-owner", Wallet: owner, Request: res.Orders[0].Request})
	if err != nil {
		t.Fatal(err)
	}
	if placed.Kind != orders.DCA || placed.Times != 3 || placed.Every.String() != "1m0s" || placed.Wallet != owner {
		t.Errorf("placed %+v", placed)
	}
}
