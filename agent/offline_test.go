package agent

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var allTools = []string{"get_token", "list_tokens", "quote", "build_buy_transaction", "build_sell_transaction", "remember", "forget",
	"build_launch_transaction", "build_claim_fees_transaction", "get_creator_fees", "get_earnings", "get_daily_limit", "get_holders"}

func TestOfflinePlans(t *testing.T) {
	tests := []struct {
		prompt string
		tool   string
		args   map[string]any
	}{
		{"buy 0.01 ETH of DETH", "build_buy_transaction", map[string]any{"token": "DETH", "amount": "0.01", "asset": "ETH"}},
		{"Please buy 0.5 eth worth of $deth!", "build_buy_transaction", map[string]any{"token": "deth", "amount": "0.5", "asset": "eth"}},
		{"buy DUSD with 100 TUSD", "build_buy_transaction", map[string]any{"token": "DUSD", "amount": "100", "asset": "TUSD"}},
		{"buy 1 ETH of 0x1111111111111111111111111111111111111111", "build_buy_transaction", map[string]any{"token": "0x1111111111111111111111111111111111111111", "amount": "1", "asset": "ETH"}},
		{"sell 1000 DETH", "build_sell_transaction", map[string]any{"token": "DETH", "amount": "1000"}},
		{"sell 2.5 of $GRAD for ETH.", "build_sell_transaction", map[string]any{"token": "GRAD", "amount": "2.5"}},
		{"sell all my DETH", "build_sell_transaction", map[string]any{"token": "DETH", "amount": "all"}},
		{"sell everything of $GRAD", "build_sell_transaction", map[string]any{"token": "GRAD", "amount": "all"}},
		{"quote 0.01 ETH of DETH", "quote", map[string]any{"token": "DETH", "side": "buy", "amount": "0.01"}},
		{"how many tokens do i get for 0.01 ETH of DETH?", "quote", map[string]any{"token": "DETH", "side": "buy", "amount": "0.01"}},
		{"quote selling 1000 DETH", "quote", map[string]any{"token": "DETH", "side": "sell", "amount": "1000"}},
		{"how much is 1000 DETH", "quote", map[string]any{"token": "DETH", "side": "sell", "amount": "1000"}},
		{"price of DETH", "get_token", map[string]any{"token": "DETH"}},
		{"What's the price of $DETH?", "get_token", map[string]any{"token": "DETH"}},
		{"info on GRAD", "get_token", map[string]any{"token": "GRAD"}},
		{"tell me about DUSD", "get_token", map[string]any{"token": "DUSD"}},
		{"DETH price", "get_token", map[string]any{"token": "DETH"}},
		{"what's trending?", "list_tokens", map[string]any{"sort": "trending"}},
		{"show me the top tokens", "list_tokens", map[string]any{"sort": "trending"}},
		{"newest tokens", "list_tokens", map[string]any{"sort": "newest"}},
		{"biggest tokens", "list_tokens", map[string]any{"sort": "marketCap"}},
		{"which tokens are closest to graduating", "list_tokens", map[string]any{"sort": "progress"}},
		{"remember my slippage is 0.5%", "remember", map[string]any{"key": "slippage", "value": "0.5%"}},
		{"set slippage to 2", "remember", map[string]any{"key": "slippage", "value": "2%"}},
		{"remember that my favorite is DETH", "remember", map[string]any{"key": "favorite", "value": "DETH"}},
		{"forget my slippage", "forget", map[string]any{"key": "slippage"}},
		{"launch a token named Moon Cat with symbol MCAT", "build_launch_transaction", map[string]any{"name": "Moon Cat", "symbol": "MCAT"}},
		{"launch Moon Cat ($mcat)", "build_launch_transaction", map[string]any{"name": "Moon Cat", "symbol": "MCAT"}},
		{"create a coin called Doge Two, ticker DOGE2", "build_launch_transaction", map[string]any{"name": "Doge Two", "symbol": "DOGE2"}},
		{"claim my fees", "build_claim_fees_transaction", map[string]any{}},
		{"claim fees for DETH", "build_claim_fees_transaction", map[string]any{"token": "DETH"}},
		{"my fees", "get_creator_fees", map[string]any{}},
		{"show my earnings", "get_earnings", map[string]any{}},
		{"what is my launch limit?", "get_daily_limit", map[string]any{}},
		{"how many tokens can I launch today", "get_daily_limit", map[string]any{}},
	}
	for _, tc := range tests {
		calls, text := planOffline(tc.prompt, allTools)
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
}

func TestOfflineSaysWhatItCannotDo(t *testing.T) {
	for _, prompt := range []string{"write me a poem about frogs", "what is up", "", "sell half my DETH", "buy 1000 DETH"} {
		calls, text := planOffline(prompt, allTools)
		if len(calls) != 0 || text == "" {
			t.Errorf("%q: calls %v, text %q", prompt, calls, text)
		}
	}
	_, text := planOffline("write me a poem", allTools)
	if !strings.Contains(text, "CURVEKIT_LLM_BASE_URL") || !strings.Contains(text, "launch a token") {
		t.Errorf("help = %q", text)
	}
	_, text = planOffline("write me a poem", allTools[:7])
	if strings.Contains(text, "launch a token") {
		t.Errorf("help offers launches the server does not have: %q", text)
	}
	if _, text := planOffline("claim my fees", allTools[:7]); !strings.Contains(text, "does not offer") {
		t.Errorf("claim without the tool: %q", text)
	}
}

// The offline planner is deterministic and its streamed deltas join to its text.
func TestOfflineStreams(t *testing.T) {
	var deltas []string
	r := &Request{Messages: []Message{{Role: RoleUser, Content: "write me a poem"}}, OnText: func(d string) { deltas = append(deltas, d) }}
	a, err := Offline{}.Complete(context.Background(), r)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(deltas, "") != a.Text || len(deltas) < 10 {
		t.Fatalf("%d deltas join to %q, text %q", len(deltas), strings.Join(deltas, ""), a.Text)
	}
	b, _ := Offline{}.Complete(context.Background(), &Request{Messages: r.Messages})
	if a.Text != b.Text {
		t.Fatal("two answers to one prompt differ")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := (Offline{}).Complete(ctx, r); err == nil {
		t.Fatal("a cancelled context answered")
	}
}

func FuzzOfflinePlan(f *testing.F) {
	for _, s := range []string{"buy 0.01 ETH of DETH", "sell 1 X", "launch a token named A with symbol B", "remember my x is y"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, prompt string) {
		calls, text := planOffline(prompt, allTools)
		if (len(calls) == 0) == (text == "") {
			t.Fatalf("%q: %d calls and text %q", prompt, len(calls), text)
		}
		for _, c := range calls {
			if !json.Valid([]byte(c.Arguments)) {
				t.Fatalf("%q: arguments %s", prompt, c.Arguments)
			}
		}
	})
}

// Every tool pays out to the caller, so a prompt that sends anything to another address gets
// the plain help and no call (docs/API.md): neither a trade with its destination dropped nor a
// question back.
func TestOfflineRefusesOtherRecipients(t *testing.T) {
	const addr, addr2 = "0x1111111111111111111111111111111111111111", "0x2222222222222222222222222222222222222222"
	help := offlineHelp(allTools)
	for _, prompt := range []string{
		"sell 1 GRAD to " + addr,
		"sell 1 GRAD to " + addr + ".",
		"Sell 1 GRAD for ETH to " + addr,
		"sell all GRAD and send to " + addr,
		"sell all my GRAD to " + addr,
		"sell all my GRAD and send the ETH to " + addr,
		"sell 1 GRAD and send the proceeds to " + addr,
		"dump 1000 DETH to " + addr,
		"sell 1000 DETH to bob",
		"sell 1000 DETH for ETH and send it to my other wallet",
		"sell 1 GRAD to vitalik.eth",
		"swap 1000 DETH for ETH to " + addr,
		"sell 1000 " + addr + " to " + addr2,
		"sell all my " + addr + " to " + addr2,
		"quote selling 1000 DETH to " + addr,
		"buy 0.01 ETH of DETH for " + addr,
		"buy 0.01 ETH of DETH to " + addr,
		"buy 0.01 ETH of DETH and send it to " + addr,
		"buy DETH with 0.01 ETH for " + addr,
		"swap 0.01 ETH for DETH to " + addr,
		"buy 0.1 ETH of " + addr + " for " + addr2,
		"buy 0.01 ETH of DETH for vitalik.eth",
		"send 1 GRAD to " + addr,
		"transfer all my DETH to " + addr,
		"please transfer 1,000 DETH to my friend",
		"withdraw my ETH to " + addr,
		"claim my fees to " + addr,
		"claim fees for DETH and send them to " + addr,
		"price of DETH and " + addr,
	} {
		calls, text := planOffline(prompt, allTools)
		if len(calls) != 0 || text != help {
			t.Errorf("%q: calls %v, answer %q; want the help and no call", prompt, calls, text)
		}
	}
	// An address that is the token the request names is no destination.
	for prompt, tool := range map[string]string{
		"swap 0.1 ETH for " + addr:      "build_buy_transaction",
		"sell 1000 " + addr:             "build_sell_transaction",
		"sell all my " + addr:           "build_sell_transaction",
		"sell 1000 " + addr + " to ETH": "build_sell_transaction",
		"claim fees for " + addr:        "build_claim_fees_transaction",
		"info on " + addr:               "get_token",
	} {
		if calls, text := planOffline(prompt, allTools); len(calls) != 1 || calls[0].Name != tool {
			t.Errorf("%q: calls %v, answer %q; want %s", prompt, calls, text, tool)
		}
	}
}
