package main

import (
	"context"
	"encoding/json"
	"math/big"
	"net"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/google/go-cmp/cmp"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestTokensJSON(t *testing.T) {
	s := startServer(t)
	r := run(t, "", nil, "--server", s.base, "tokens", "--json", "--limit", "10")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	var got, want map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &got); err != nil {
		t.Fatalf("--json output does not parse: %v\n%s", err, r.stdout)
	}
	s.getJSON(t, "/tokens?limit=10", &want)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("tokens --json differs from GET /tokens (-api +cli):\n%s", diff)
	}
	if n := len(got["tokens"].([]any)); n != 3 {
		t.Errorf("%d tokens, want the devnet's 3", n)
	}

	// The table names each token; CURVEKIT_SERVER stands for --server.
	r = run(t, "", []string{"CURVEKIT_SERVER=" + s.base}, "tokens", "--phase", "curve")
	if r.code != 0 || !strings.Contains(r.stdout, "DETH") || !strings.Contains(r.stdout, "DUSD") || strings.Contains(r.stdout, "GRAD") {
		t.Errorf("tokens --phase curve: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

func TestQuoteMatchesAPI(t *testing.T) {
	s := startServer(t)
	token := s.app.Devnet.ETHToken.Token.Hex()
	for _, tc := range []struct{ side, amount string }{{"buy", "0.5"}, {"sell", "1000"}} {
		r := run(t, "", nil, "--server", s.base, "quote", token, tc.side, tc.amount, "--json")
		if r.code != 0 {
			t.Fatalf("exit %d: %s", r.code, r.stderr)
		}
		var got, want map[string]any
		if err := json.Unmarshal([]byte(r.stdout), &got); err != nil {
			t.Fatal(err)
		}
		s.getJSON(t, "/tokens/"+token+"/quote?type="+tc.side+"&amount="+tc.amount, &want)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("quote %s %s differs from the API (-api +cli):\n%s", tc.side, tc.amount, diff)
		}
		// The table shows the same exact amounts.
		r = run(t, "", nil, "--server", s.base, "quote", token, tc.side, tc.amount)
		if !strings.Contains(r.stdout, want["amountOut"].(string)) || !strings.Contains(r.stdout, want["amountIn"].(string)) {
			t.Errorf("quote table lacks %v / %v:\n%s", want["amountIn"], want["amountOut"], r.stdout)
		}
	}
	// The validator's 200 {error} is a failure with the server's words.
	r := run(t, "", nil, "--server", s.base, "quote", token, "buy", "1e18")
	if r.code != 1 || !strings.Contains(r.stderr, "not a decimal number") {
		t.Errorf("bad amount: exit %d, %s", r.code, r.stderr)
	}
}

func TestTokenAndCandles(t *testing.T) {
	s := startServer(t)
	token := s.app.Devnet.ETHToken.Token.Hex()
	r := run(t, "", nil, "--server", s.base, "token", token)
	if r.code != 0 || !strings.Contains(r.stdout, "Demo Ether Token (DETH)") {
		t.Errorf("token: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = run(t, "", nil, "--server", s.base, "candles", token, "--res", "1m", "--limit", "5")
	if r.code != 0 || !strings.Contains(r.stdout, "TIME (UTC)") || !strings.Contains(r.stdout, "█") {
		t.Errorf("candles: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	var api, cli map[string]any
	s.getJSON(t, "/tokens/"+token+"/candles?res=1m&limit=5", &api)
	r = run(t, "", nil, "--server", s.base, "candles", token, "--res", "1m", "--limit", "5", "--json")
	if err := json.Unmarshal([]byte(r.stdout), &cli); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(api["bars"], cli["bars"]); diff != "" {
		t.Errorf("candles --json bars differ (-api +cli):\n%s", diff)
	}
	r = run(t, "", nil, "--server", s.base, "token", "0xdead000000000000000000000000000000000009")
	if r.code != 7 || !strings.Contains(r.stderr, "not found (404)") {
		t.Errorf("unknown token: exit %d, %s", r.code, r.stderr)
	}
}

func TestErrorsAndExitCodes(t *testing.T) {
	s := startServer(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	nowhere := "http://" + ln.Addr().String()
	ln.Close()
	randomKey := "svc_" + strings.Repeat("5e", 24)
	cases := []struct {
		name string
		env  []string
		args []string
		code int
		says string
	}{
		{"unreachable server", nil, []string{"--server", nowhere, "tokens"}, 3, "server unreachable"},
		{"missing key", nil, []string{"--server", s.base, "agent", "prompt", "price of DETH"}, 4, "an API key is required"},
		{"unknown key", []string{"CURVEKIT_API_KEY=" + randomKey}, []string{"--server", s.base, "agent", "status", "job_x"}, 4, "refused the API key (401"},
		{"bad usage", nil, []string{"--server", s.base, "quote", "0x1", "swap", "1"}, 2, `must be one of "buy","sell"`},
		{"deploy without a key file", nil, []string{"deploy", "--rpc-url", nowhere, "--key-file", "/nonexistent/key"}, 2, "key-file"},
	}
	for _, tc := range cases {
		r := run(t, "", tc.env, tc.args...)
		if r.code != tc.code || !strings.Contains(r.stderr, tc.says) {
			t.Errorf("%s: exit %d (want %d), stderr %q (want %q)", tc.name, r.code, tc.code, r.stderr, tc.says)
		}
		if strings.Contains(r.stderr, randomKey) {
			t.Errorf("%s: the key was printed", tc.name)
		}
	}
}

// TestAgentPromptProposesOrder asks for a schedule through the binary: the answer prints the
// proposed order and the command that places it, nothing is armed until that command runs, and
// running it as printed places the order proposed.
func TestAgentPromptProposesOrder(t *testing.T) {
	s := startServer(t)
	session := s.signIn(t, "cli-scheduler")
	key, _ := s.apiKey(t, session, `{"name":"cli"}`)
	env := []string{"CURVEKIT_SERVER=" + s.base, "CURVEKIT_API_KEY=" + key}

	r := run(t, "", env, "agent", "prompt", "buy 0.01 ETH of DETH every minute, 3 times", "--interval", "100ms")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	deth := s.app.Devnet.ETHToken.Token.Hex()
	place := "curvekit orders place dca " + deth + " --side buy --amount 0.01 --every 1m --times 3"
	if !strings.Contains(r.stdout, "Proposed order 1 of 1: dca on DETH") || !strings.Contains(r.stdout, "\n  "+place+"\n") || strings.Contains(r.stdout, "Unsigned transaction") {
		t.Fatalf("answer:\n%s", r.stdout)
	}
	if r = run(t, "", env, "orders", "list"); r.code != 0 || strings.Contains(r.stdout, "ord_") {
		t.Fatalf("orders before placing: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if r = run(t, "", env, strings.Fields(place)[1:]...); r.code != 0 || !strings.HasPrefix(r.stdout, "placed ord_") {
		t.Fatalf("placing as printed: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// TestAgentPromptBuy asks for a buy through the binary with a real key: the answer and the
// unsigned transaction are printed, and that transaction, signed by a devnet wallet, executes.
// A revoked key then gets a clear refusal and exit code 4.
func TestAgentPromptBuy(t *testing.T) {
	s := startServer(t)
	session := s.signIn(t, "cli-trader")
	key, id := s.apiKey(t, session, `{"name":"cli"}`)
	env := []string{"CURVEKIT_SERVER=" + s.base, "CURVEKIT_API_KEY=" + key}

	r := run(t, "", env, "agent", "prompt", "buy 0.01 ETH of DETH", "--interval", "100ms")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stdout, "Buy DETH") || !strings.Contains(r.stdout, "Unsigned transaction 1 of 1") || !strings.Contains(r.stderr, "completed") {
		t.Errorf("answer:\n%s\nprogress:\n%s", r.stdout, r.stderr)
	}
	r = run(t, "", env, "agent", "prompt", "buy 0.01 ETH of DETH", "--interval", "100ms", "--json")
	var job struct {
		JobID    string
		Status   string
		Response string
		RichData []struct{ To, Data, Value string }
	}
	if err := json.Unmarshal([]byte(r.stdout), &job); err != nil || job.Status != "completed" || len(job.RichData) != 1 {
		t.Fatalf("--json job: %v\n%s", err, r.stdout)
	}
	tx := job.RichData[0]
	to := common.HexToAddress(tx.To)
	value, _ := new(big.Int).SetString(tx.Value, 10)
	if _, err := s.app.Devnet.Send(context.Background(), s.app.Devnet.Accounts[5].Key, &to, value, hexutil.MustDecode(tx.Data)); err != nil {
		t.Fatalf("the composed transaction does not execute: %v", err)
	}

	r = run(t, "", env, "agent", "status", job.JobID, "--json")
	if r.code != 0 || !strings.Contains(r.stdout, `"status": "completed"`) {
		t.Errorf("status: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = run(t, "", env, "agent", "cancel", job.JobID)
	if r.code != 1 || !strings.Contains(r.stderr, "409") {
		t.Errorf("cancel of a completed job: exit %d, %s", r.code, r.stderr)
	}

	s.revoke(t, session, id)
	r = run(t, "", env, "agent", "prompt", "price of DETH")
	if r.code != 4 || !strings.Contains(r.stderr, "refused the API key (401") {
		t.Errorf("revoked key: exit %d, %s", r.code, r.stderr)
	}
	if n := s.signer.Calls(); n != 0 {
		t.Errorf("the custodial signer was called %d times", n)
	}
}

// TestAgentChat holds a conversation on one thread through stdin.
func TestAgentChat(t *testing.T) {
	s := startServer(t)
	session := s.signIn(t, "cli-chat")
	key, _ := s.apiKey(t, session, `{}`)
	r := run(t, "price of DETH\n\nbuy 0.01 ETH of DETH\n/quit\nprice of DUSD\n",
		[]string{"CURVEKIT_SERVER=" + s.base, "CURVEKIT_API_KEY=" + key}, "agent", "chat", "--interval", "100ms")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if n := strings.Count(r.stdout, "agent> "); n != 2 {
		t.Errorf("%d answers, want 2 (the line after /quit is not read):\n%s", n, r.stdout)
	}
	if !strings.Contains(r.stdout, "Unsigned transaction") {
		t.Errorf("the buy's transaction is missing:\n%s", r.stdout)
	}
	// Both jobs ran on one thread.
	var threads []string
	for _, line := range strings.Split(r.stderr, "\n") {
		if i := strings.Index(line, "(thread "); i >= 0 {
			threads = append(threads, line[i:])
		}
	}
	if len(threads) != 2 || threads[0] != threads[1] {
		t.Errorf("threads %q", threads)
	}
	if n := s.signer.Calls(); n != 0 {
		t.Errorf("the custodial signer was called %d times", n)
	}
}

// TestMCPSubprocess drives `curvekit mcp` with the official SDK's client over stdio: the tools
// are the agent's plus the three job tools and get_settings, each with its schema; the quote equals the API's; a
// read-only key composes a buy; nothing reaches the signer. Without a key the command refuses to
// start.
func TestMCPSubprocess(t *testing.T) {
	s := startServer(t)
	if r := run(t, "", nil, "--server", s.base, "mcp"); r.code != 4 || !strings.Contains(r.stderr, "API key is required") {
		t.Errorf("mcp without a key: exit %d, %s", r.code, r.stderr)
	}
	key, _ := s.apiKey(t, s.signIn(t, "mcp-cli"), `{"readOnly":true}`)
	ctx := context.Background()
	cmd := exec.Command(binary, "mcp", "--server", s.base, "--api-key", key)
	client := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range tools.Tools {
		raw, _ := json.Marshal(tool.InputSchema)
		var schema struct{ Type string }
		if json.Unmarshal(raw, &schema) != nil || schema.Type != "object" {
			t.Errorf("tool %s has no object input schema: %s", tool.Name, raw)
		}
		names = append(names, tool.Name)
	}
	var want []string
	for _, tool := range s.app.Agent.Tools() {
		want = append(want, tool.Name)
	}
	want = append(want, "agent_submit_prompt", "agent_get_job_status", "agent_cancel_job", "get_settings",
		"list_webhooks", "create_webhook", "list_webhook_deliveries", "replay_webhook", "test_webhook")
	slices.Sort(names)
	slices.Sort(want)
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("tools (-agent and jobs +mcp):\n%s", diff)
	}

	call := func(name string, args map[string]any) map[string]any {
		t.Helper()
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: name, Arguments: args})
		if err != nil || res.IsError {
			t.Fatalf("%s: %v %+v", name, err, res)
		}
		var out map[string]any
		raw, _ := json.Marshal(res.StructuredContent)
		if err := json.Unmarshal(raw, &out); err != nil {
			t.Fatal(err)
		}
		return out
	}
	token := s.app.Devnet.ETHToken.Token.Hex()
	data := call("quote", map[string]any{"token": token, "side": "buy", "amount": "0.25"})["data"].(map[string]any)
	var quote map[string]any
	s.getJSON(t, "/tokens/"+token+"/quote?type=buy&amount=0.25", &quote)
	if data["amountIn"] != quote["amountIn"] || data["amountOut"] != quote["amountOut"] || data["fee"] != quote["fee"] {
		t.Errorf("MCP quote %v differs from the API's %v", data, quote)
	}
	txs := call("build_buy_transaction", map[string]any{"token": token, "amount": "0.25"})["transactions"].([]any)
	if len(txs) != 1 || txs[0].(map[string]any)["value"] != "250000000000000000" {
		t.Errorf("read-only key's buy: %v", txs)
	}
	if n := s.signer.Calls(); n != 0 {
		t.Errorf("the custodial signer was called %d times", n)
	}
}

// TestThrottled: a server that keeps answering 429 is retried with back-off, then the command
// says so and exits 6.
func TestThrottled(t *testing.T) {
	s := startServer(t, "--rate-limit", "1", "--rate-window", "1h")
	var codes []int
	for range 3 {
		r := run(t, "", nil, "--server", s.base, "--retries", "2", "tokens")
		codes = append(codes, r.code)
		if r.code == 6 && !strings.Contains(r.stderr, "429") || strings.Contains(r.stderr, "after 3 attempts") != (r.code == 6) {
			t.Errorf("exit %d: %s", r.code, r.stderr)
		}
	}
	if codes[0] != 0 || codes[2] != 6 {
		t.Errorf("exit codes %v: the first request passes, later ones are throttled", codes)
	}
}
