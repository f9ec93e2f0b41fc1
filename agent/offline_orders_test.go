package agent

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Orders in everyday phrasing plan the order tools; propose_order and cancel_order compose, so the
// person confirms what is armed or disarmed. A schedule, a limit buy or sell at a price and a
// stop-loss at a price or a fall are each one proposal.
func TestOfflinePlansOrders(t *testing.T) {
	offered := append(slices.Clone(allTools), "propose_order", "list_orders", "cancel_order")
	for _, tc := range []struct {
		prompt string
		tool   string
		args   map[string]any
	}{
		{"sell half my DETH if it drops 20%", "propose_order", map[string]any{"kind": "stop-loss", "token": "DETH", "percent": 50.0, "below": 20.0}},
		{"Sell 25% of my $DETH when the price falls 10 percent", "propose_order", map[string]any{"kind": "stop-loss", "token": "DETH", "percent": 25.0, "below": 10.0}},
		{"sell 1000 DETH if it drops by 5%", "propose_order", map[string]any{"kind": "stop-loss", "token": "DETH", "amount": "1000", "below": 5.0}},
		{"sell all my GRAD once it pumps 50%", "propose_order", map[string]any{"kind": "take-profit", "token": "GRAD", "percent": 100.0, "above": 50.0}},
		{"buy 0.01 ETH of DETH every hour, 5 times", "propose_order", map[string]any{"kind": "dca", "token": "DETH", "side": "buy", "amount": "0.01", "asset": "ETH", "every": "1h", "times": 5.0}},
		{"please buy 0.001 eth of deth every 15 minutes for 4 times", "propose_order", map[string]any{"kind": "dca", "token": "deth", "side": "buy", "amount": "0.001", "asset": "eth", "every": "15m", "times": 4.0}},
		{"buy 0.5 TUSD of DUSD every day and 7 times", "propose_order", map[string]any{"kind": "dca", "token": "DUSD", "side": "buy", "amount": "0.5", "asset": "TUSD", "every": "24h", "times": 7.0}},
		{"buy 0.01 ETH of DETH every minute, 3 times", "propose_order", map[string]any{"kind": "dca", "token": "DETH", "side": "buy", "amount": "0.01", "asset": "ETH", "every": "1m", "times": 3.0}},
		{"buy 0.01 ETH of DETH at 0.000000004", "propose_order", map[string]any{"kind": "limit", "token": "DETH", "side": "buy", "amount": "0.01", "asset": "ETH", "price": "0.000000004"}},
		{"limit buy 0.5 TUSD of DUSD at 0.0000002 TUSD each", "propose_order", map[string]any{"kind": "limit", "token": "DUSD", "side": "buy", "amount": "0.5", "asset": "TUSD", "price": "0.0000002"}},
		{"please buy 0.01 eth of deth if the price drops to 0.000000004", "propose_order", map[string]any{"kind": "limit", "token": "deth", "side": "buy", "amount": "0.01", "asset": "eth", "price": "0.000000004"}},
		{"sell 1,000 DETH at 0.00000001 ETH", "propose_order", map[string]any{"kind": "limit", "token": "DETH", "side": "sell", "amount": "1000", "asset": "ETH", "price": "0.00000001"}},
		{"sell half my DETH when it reaches 0.00000002", "propose_order", map[string]any{"kind": "limit", "token": "DETH", "side": "sell", "percent": 50.0, "price": "0.00000002"}},
		{"sell all my DETH if it falls to 0.000000002", "propose_order", map[string]any{"kind": "stop-loss", "token": "DETH", "percent": 100.0, "price": "0.000000002"}},
		{"set a stop-loss on 25% of my DETH at 0.000000002", "propose_order", map[string]any{"kind": "stop-loss", "token": "DETH", "percent": 25.0, "price": "0.000000002"}},
		{"cancel my DETH orders", "cancel_order", map[string]any{"token": "DETH"}},
		{"cancel all my orders", "cancel_order", map[string]any{}},
		{"cancel my orders on GRAD", "cancel_order", map[string]any{"token": "GRAD"}},
		{"what orders do I have?", "list_orders", map[string]any{}},
		{"show me my open orders", "list_orders", map[string]any{}},
	} {
		calls, text := planOffline(tc.prompt, offered)
		if len(calls) != 1 {
			t.Errorf("%q: no tool call; answered %q", tc.prompt, text)
			continue
		}
		var args map[string]any
		if err := json.Unmarshal([]byte(calls[0].Arguments), &args); err != nil {
			t.Fatal(err)
		}
		if calls[0].Name != tc.tool || !cmp.Equal(args, tc.args) {
			t.Errorf("%q: %s %v; want %s %v", tc.prompt, calls[0].Name, args, tc.tool, tc.args)
		}
	}
	// A price named in another pairing asset than the buy spends is asked again, not guessed.
	if calls, text := planOffline("buy 0.01 ETH of DETH at 0.0000004 TUSD", offered); len(calls) != 0 || !strings.Contains(text, "Name the price in what the buy spends (ETH)") {
		t.Errorf("a price in another asset: %v %q", calls, text)
	}
	// A server without orders says so rather than composing something else.
	if calls, text := planOffline("sell half my DETH if it drops 20%", allTools); len(calls) != 0 || text == "" {
		t.Errorf("without the order tools: %v %q", calls, text)
	}
}
