package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/curvekit/curvekit/account"
	"github.com/curvekit/curvekit/adapters/apiclient"
	"github.com/curvekit/curvekit/adapters/mcp"
	"github.com/curvekit/curvekit/internal/app"
	"github.com/curvekit/curvekit/internal/app/apptest"
	"github.com/curvekit/curvekit/orders"
)

// server is the reference server wired by internal/app on a devnet, on a loopback socket.
type server struct {
	app    *app.App
	base   string
	signer *apptest.CountingSigner
}

func startServer(t *testing.T) *server {
	t.Helper()
	srv := apptest.Start(t, nil)
	return &server{app: srv.App, base: srv.Base, signer: srv.Signer}
}

// call sends method path (body JSON when not empty) and decodes the answer into out.
func (s *server) call(t *testing.T, c *http.Client, method, path, body string, out any) int {
	t.Helper()
	req, _ := http.NewRequest(method, s.base+path, strings.NewReader(body))
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if out != nil {
		if err := json.Unmarshal(raw, out); err != nil {
			t.Fatalf("%s %s: %v in %s", method, path, err, raw)
		}
	}
	return resp.StatusCode
}

// apiKey signs in through the development identity provider and creates a key; it skips the
// test on a server without sign-in.
func (s *server) apiKey(t *testing.T, handle, body string) string {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar, Timeout: 10 * time.Second}
	resp, err := c.Get(s.base + "/auth/login?login_hint=" + handle)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.Request.URL.Path == "/auth/login" && resp.StatusCode == http.StatusNotFound {
		t.Skip("this server has no sign-in: API keys cannot be made")
	}
	var k struct{ Key string }
	if st := s.call(t, c, http.MethodPost, "/api-keys", body, &k); st/100 != 2 || !strings.HasPrefix(k.Key, "svc_") {
		t.Fatalf("POST /api-keys: %d", st)
	}
	return k.Key
}

// inMemory connects the SDK's client to NewServer over in-memory transports.
func inMemory(t *testing.T, c *apiclient.Client) *sdk.ClientSession {
	t.Helper()
	ctx := context.Background()
	srv, err := mcp.NewServer(ctx, mcp.Config{Client: c})
	if err != nil {
		t.Fatal(err)
	}
	st, ct := sdk.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// keyed is a client of the server with a new key of handle's account.
func (s *server) keyed(t *testing.T, handle, body string) *apiclient.Client {
	t.Helper()
	c, err := apiclient.New(apiclient.Config{BaseURL: s.base, APIKey: s.apiKey(t, handle, body)})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// callTool calls a tool and decodes its structured result; a tool error fails the test.
func callTool(t *testing.T, cs *sdk.ClientSession, name string, args map[string]any, out any) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if res.IsError {
		t.Fatalf("%s: tool error %s", name, text(res))
	}
	raw, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(raw, out); err != nil {
		t.Fatalf("%s: %v in %s", name, err, raw)
	}
	// Clients that read only text get the same JSON.
	var fromText any
	if err := json.Unmarshal([]byte(text(res)), &fromText); err != nil {
		t.Errorf("%s: the text content is not the result's JSON: %v", name, err)
	}
}

// toolError calls a tool that must fail and returns its message.
func toolError(t *testing.T, cs *sdk.ClientSession, name string, args map[string]any) string {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if !res.IsError {
		t.Fatalf("%s succeeded: %s", name, text(res))
	}
	return text(res)
}

func text(res *sdk.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// toolResult is an agent tool's answer, as POST /agent/tools/:name gives it.
type toolResult struct {
	Tool         string
	Summary      string
	Data         map[string]any
	Transactions []map[string]any
}

// listed is the tools a session lists: each name with its input schema as JSON.
func listed(t *testing.T, cs *sdk.ClientSession) map[string]any {
	t.Helper()
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]any{}
	for _, tool := range res.Tools {
		raw, _ := json.Marshal(tool.InputSchema)
		var schema any
		if err := json.Unmarshal(raw, &schema); err != nil {
			t.Fatal(err)
		}
		out[tool.Name] = schema
	}
	return out
}

// wantTools is the agent's tools with their schemas, and the three job tools.
func wantTools(t *testing.T, s *server) map[string]any {
	t.Helper()
	want := map[string]any{}
	for _, tool := range s.app.Agent.Tools() {
		raw, _ := json.Marshal(tool.InputSchema)
		var schema any
		if err := json.Unmarshal(raw, &schema); err != nil {
			t.Fatal(err)
		}
		want[tool.Name] = schema
	}
	for _, name := range mcp.JobTools {
		want[name] = true // checked apart
	}
	return want
}

// sameTools checks a listing against the agent's tools plus the job tools.
func sameTools(t *testing.T, s *server, got map[string]any) {
	t.Helper()
	want := wantTools(t, s)
	for _, name := range mcp.JobTools {
		if schema, ok := got[name].(map[string]any); ok && schema["type"] == "object" {
			got[name] = true
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("tools and their input schemas (-agent +mcp):\n%s", diff)
	}
}

func TestToolsListWithSchemas(t *testing.T) {
	s := startServer(t)
	got := listed(t, inMemory(t, s.keyed(t, "mcp-list", `{}`)))
	sameTools(t, s, got)
	for _, name := range []string{"get_token", "list_tokens", "quote", "build_buy_transaction", "build_sell_transaction",
		"build_launch_transaction", "build_claim_fees_transaction", "get_creator_fees", "get_earnings", "get_daily_limit", "remember", "forget"} {
		if _, ok := got[name]; !ok {
			t.Errorf("the agent's tool %s is not listed", name)
		}
	}
	// Every argument is described to the model.
	for name, schema := range got {
		m, _ := schema.(map[string]any)
		props, _ := m["properties"].(map[string]any)
		for arg, p := range props {
			if d, _ := p.(map[string]any)["description"].(string); d == "" {
				t.Errorf("%s.%s has no description", name, arg)
			}
		}
	}
	// Without a key there is no wallet for the tools: the server is refused before it starts.
	anon, err := apiclient.New(apiclient.Config{BaseURL: s.base})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := mcp.NewServer(context.Background(), mcp.Config{Client: anon}); !errors.Is(err, apiclient.ErrNoKey) {
		t.Errorf("a server without a key: %v", err)
	}
}

// TestQuoteAndComposeMatchTheAPI: through MCP, the agent's quote prices what GET quote prices,
// and its buy, for a read-only key, is what build-tx builds for the key's wallet.
func TestQuoteAndComposeMatchTheAPI(t *testing.T) {
	s := startServer(t)
	cs := inMemory(t, s.keyed(t, "mcp-quote", `{"readOnly":true}`))
	token := s.app.Devnet.USDToken.Token.Hex()

	var q toolResult
	callTool(t, cs, "quote", map[string]any{"token": token, "side": "buy", "amount": "12.5"}, &q)
	var quote map[string]any
	s.call(t, http.DefaultClient, http.MethodGet, "/tokens/"+token+"/quote?type=buy&amount=12.5", "", &quote)
	got := map[string]any{"amountIn": q.Data["amountIn"], "amountOut": q.Data["amountOut"], "fee": q.Data["fee"], "venue": q.Data["venue"], "impact": q.Data["impactBps"]}
	want := map[string]any{"amountIn": quote["amountIn"], "amountOut": quote["amountOut"], "fee": quote["fee"], "venue": quote["venue"], "impact": quote["priceImpactBps"]}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("quote (-api +mcp):\n%s", diff)
	}

	var buy toolResult
	callTool(t, cs, "build_buy_transaction", map[string]any{"token": "DUSD", "amount": "12.5", "slippage": "0.5"}, &buy)
	if len(buy.Transactions) != 1 {
		t.Fatalf("build_buy_transaction: %+v", buy)
	}
	tx := buy.Transactions[0]
	var built map[string]any
	s.call(t, http.DefaultClient, http.MethodPost, "/tokens/"+token+"/build-tx",
		fmt.Sprintf(`{"type":"buy","amount":"12.5","slippage":0.5,"recipient":%q}`, tx["from"]), &built)
	// Two builds a moment apart may differ only in their deadline (and the calldata word that
	// carries it).
	mask := func(data any, deadline any) string {
		return strings.Replace(data.(string), fmt.Sprintf("%064x", int64(deadline.(float64))), "<deadline>", 1)
	}
	approval := func(m map[string]any) any {
		a, _ := m["approval"].(map[string]any)
		if a == nil {
			return nil
		}
		return []any{a["to"], a["data"], a["value"]}
	}
	quoted := built["quote"].(map[string]any)
	got = map[string]any{"to": tx["to"], "data": mask(tx["data"], buy.Data["deadline"]), "value": tx["value"], "approval": approval(tx),
		"amountIn": buy.Data["amountIn"], "out": buy.Data["expectedOut"], "minOut": buy.Data["minOut"]}
	want = map[string]any{"to": built["to"], "data": mask(built["data"], built["deadline"]), "value": built["value"], "approval": approval(built),
		"amountIn": quoted["amountIn"], "out": quoted["amountOut"], "minOut": built["minAmountOut"]}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("build_buy_transaction (-api +mcp):\n%s", diff)
	}
	if tx["approval"] == nil {
		t.Error("a DUSD buy from a fresh wallet needs an approval")
	}
	// The tool answers the wallet's issues as build-tx does with from; the agent runs for the
	// account, so its settings are checked (none refuse), where an anonymous build-tx shows none.
	var withFrom map[string]any
	s.call(t, http.DefaultClient, http.MethodPost, "/tokens/"+token+"/build-tx",
		fmt.Sprintf(`{"type":"buy","amount":"12.5","slippage":0.5,"from":%q}`, tx["from"]), &withFrom)
	issues, _ := buy.Data["issues"].(map[string]any)
	apiIssues, _ := withFrom["issues"].(map[string]any)
	if issues == nil || apiIssues == nil || apiIssues["settings"] != nil || fmt.Sprint(issues["settings"]) != "[]" {
		t.Fatalf("issues: mcp %v, api %v", issues, apiIssues)
	}
	delete(issues, "settings")
	delete(apiIssues, "settings")
	if diff := cmp.Diff(apiIssues, issues); diff != "" || issues["balance"] == nil || issues["allowance"] == nil {
		t.Errorf("build_buy_transaction's issues (-api +mcp), a fresh wallet without TUSD:\n%s%v", diff, issues)
	}

	if msg := toolError(t, cs, "quote", map[string]any{"token": token, "side": "buy", "amount": "1e18"}); !strings.Contains(msg, "not a decimal number") {
		t.Errorf("the tool's own check: %q", msg)
	}
	if msg := toolError(t, cs, "quote", map[string]any{"token": token, "amount": 1, "wallet": tx["from"]}); !strings.Contains(msg, "amount must be a string; unknown field wallet; side is required") {
		t.Errorf("every problem of the arguments: %q", msg)
	}
	if _, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "sign_and_send"}); err == nil || !strings.Contains(err.Error(), "unknown tool") {
		t.Errorf("a tool that does not exist: %v", err)
	}
	if n := s.signer.Calls(); n != 0 {
		t.Errorf("the custodial signer was called %d times", n)
	}
}

// TestAgentAndJobTools: the job tools, and a launch and a fee claim composed directly by the
// agent's tools (no prompt in between).
func TestAgentAndJobTools(t *testing.T) {
	s := startServer(t)
	cs := inMemory(t, s.keyed(t, "mcp-agent", `{}`))
	var sub apiclient.Submitted
	callTool(t, cs, "agent_submit_prompt", map[string]any{"prompt": "price of DETH"}, &sub)
	if sub.JobID == "" || sub.Status != "pending" {
		t.Fatalf("submitted %+v", sub)
	}
	var j apiclient.Job
	for deadline := time.Now().Add(20 * time.Second); !j.Done(); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("job still %s", j.Status)
		}
		callTool(t, cs, "agent_get_job_status", map[string]any{"jobId": sub.JobID}, &j)
	}
	if j.Status != "completed" || !strings.Contains(j.Response, "DETH") {
		t.Errorf("job %+v", j)
	}
	if msg := toolError(t, cs, "agent_cancel_job", map[string]any{"jobId": sub.JobID}); !strings.Contains(msg, "409") {
		t.Errorf("cancel of a completed job: %q", msg)
	}

	// A refusal carries its code.
	if msg := toolError(t, cs, "quote", map[string]any{"token": "DETH", "side": "hold", "amount": "1"}); !strings.Contains(msg, "400 Bad Request (VALIDATION_FAILED)") {
		t.Errorf("a refused tool call: %q", msg)
	}
	// get_settings is GET /account/settings: the defaults for this account.
	var st account.Settings
	callTool(t, cs, "get_settings", map[string]any{}, &st)
	if st.Version != 0 || st.Wallet.MaxPriceImpact != account.DefaultMaxPriceImpact || st.Wallet.RecipientCooldownHours != account.DefaultCooldownHours {
		t.Errorf("get_settings: %+v", st)
	}

	var launch toolResult
	callTool(t, cs, "build_launch_transaction", map[string]any{"name": "Moon Cat", "symbol": "MCAT"}, &launch)
	if len(launch.Transactions) != 1 || launch.Transactions[0]["kind"] != "launch" || launch.Data["uri"] == "" {
		t.Errorf("build_launch_transaction: %+v", launch)
	}
	var claim toolResult
	callTool(t, cs, "build_claim_fees_transaction", map[string]any{}, &claim)
	if len(claim.Transactions) != 0 || claim.Summary != "You have no creator fees to claim." {
		t.Errorf("a claim by a wallet without tokens: %+v", claim)
	}
	if n := s.signer.Calls(); n != 0 {
		t.Errorf("the custodial signer was called %d times", n)
	}
}

// TestRemoteMCP: the running server's /mcp lists and calls the tools with the caller's key,
// applying the key's restrictions, and refuses a request without a key or with a bad one.
func TestRemoteMCP(t *testing.T) {
	s := startServer(t)
	endpoint := s.base + "/mcp"
	for _, key := range []string{"", "svc_" + strings.Repeat("ab", 24)} {
		req, _ := http.NewRequest(http.MethodPost, endpoint, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
		req.Header.Set("Content-Type", "application/json")
		if key != "" {
			req.Header.Set("Authorization", "Bearer "+key)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized || !strings.HasPrefix(resp.Header.Get("WWW-Authenticate"), "Bearer") {
			t.Errorf("key %q: %d %v", key, resp.StatusCode, resp.Header)
		}
	}

	connect := func(key string) *sdk.ClientSession {
		hc := &http.Client{Transport: bearer{key: key}}
		cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil).
			Connect(context.Background(), &sdk.StreamableClientTransport{Endpoint: endpoint, HTTPClient: hc}, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cs.Close() })
		return cs
	}
	// A read-only key lists the tools, quotes and composes (SPEC 2.3); nothing reaches the signer.
	cs := connect(s.apiKey(t, "mcp-remote", `{"readOnly":true}`))
	sameTools(t, s, listed(t, cs))
	token := s.app.Devnet.ETHToken.Token.Hex()
	var q toolResult
	callTool(t, cs, "quote", map[string]any{"token": token, "side": "sell", "amount": "1000"}, &q)
	var quote map[string]any
	s.call(t, http.DefaultClient, http.MethodGet, "/tokens/"+token+"/quote?type=sell&amount=1000", "", &quote)
	if q.Data["amountOut"] != quote["amountOut"] || q.Data["amountIn"] != quote["amountIn"] {
		t.Errorf("remote quote %v, API %v", q.Data, quote)
	}
	var buy toolResult
	callTool(t, cs, "build_buy_transaction", map[string]any{"token": "DETH", "amount": "0.01"}, &buy)
	if len(buy.Transactions) != 1 || buy.Transactions[0]["value"] != "10000000000000000" {
		t.Errorf("read-only key's buy: %+v", buy)
	}
	var sub apiclient.Submitted
	callTool(t, cs, "agent_submit_prompt", map[string]any{"prompt": "buy 0.01 ETH of DETH"}, &sub)
	if sub.JobID == "" {
		t.Errorf("submit: %+v", sub)
	}

	// A key limited to other addresses is refused at connect, as over HTTP: /mcp is a route
	// of the API and runs its access checks.
	hc := &http.Client{Transport: bearer{key: s.apiKey(t, "mcp-remote", `{"allowedIps":["192.0.2.1"]}`)}}
	if _, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil).
		Connect(context.Background(), &sdk.StreamableClientTransport{Endpoint: endpoint, HTTPClient: hc}, nil); err == nil || !strings.Contains(err.Error(), "Forbidden") {
		t.Errorf("a key used from outside its allowedIps connected: %v", err)
	}
	if n := s.signer.Calls(); n != 0 {
		t.Errorf("the custodial signer was called %d times", n)
	}
}

// TestHandlerOverTheNetwork: a handler in front of a server elsewhere (BaseURL) serves the same
// tools over that server's API.
func TestHandlerOverTheNetwork(t *testing.T) {
	s := startServer(t)
	h, err := mcp.NewHandler(mcp.HandlerConfig{BaseURL: s.base})
	if err != nil {
		t.Fatal(err)
	}
	front := httptest.NewServer(h)
	t.Cleanup(front.Close)
	hc := &http.Client{Transport: bearer{key: s.apiKey(t, "mcp-front", `{}`)}}
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil).
		Connect(context.Background(), &sdk.StreamableClientTransport{Endpoint: front.URL, HTTPClient: hc}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	sameTools(t, s, listed(t, cs))
	var tok toolResult
	callTool(t, cs, "get_token", map[string]any{"token": "DETH"}, &tok)
	if tok.Data["address"] != s.app.Devnet.ETHToken.Token.Hex() {
		t.Errorf("get_token: %+v", tok)
	}
}

// bearer sends the key as a bearer token, as a remote MCP client configured with one does.
type bearer struct{ key string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.key)
	return http.DefaultTransport.RoundTrip(r)
}

// Behind a trusted proxy, remote MCP checks a key's allowedIps against the client the proxy
// names, for /mcp and for every call its tools make through the API in process; a client
// outside the list is refused, and a forged X-Forwarded-For from an untrusted peer counts for
// nothing.
func TestRemoteMCPBehindATrustedProxy(t *testing.T) {
	srv := apptest.Start(t, []string{"--trusted-proxies", "127.0.0.1/32"})
	s := &server{app: srv.App, base: srv.Base, signer: srv.Signer}
	key := s.apiKey(t, "mcp-proxied", `{"allowedIps":["203.0.113.7"]}`)
	connect := func(client string) (*sdk.ClientSession, error) {
		hc := &http.Client{Transport: forwarded{bearer: bearer{key: key}, client: client}}
		return sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil).
			Connect(context.Background(), &sdk.StreamableClientTransport{Endpoint: s.base + "/mcp", HTTPClient: hc}, nil)
	}
	cs, err := connect("203.0.113.7")
	if err != nil {
		t.Fatalf("the allowed client, named by the proxy: %v", err)
	}
	defer cs.Close()
	var q toolResult
	callTool(t, cs, "quote", map[string]any{"token": s.app.Devnet.ETHToken.Token.Hex(), "side": "buy", "amount": "0.01"}, &q)
	if q.Data["amountOut"] == nil {
		t.Errorf("quote through the proxy: %+v", q)
	}
	if _, err := connect("198.51.100.1"); err == nil || !strings.Contains(err.Error(), "Forbidden") {
		t.Errorf("a client outside allowedIps connected: %v", err)
	}
}

// forwarded sends what a proxy in front of the server adds: the client's address.
type forwarded struct {
	bearer
	client string
}

func (f forwarded) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("X-Forwarded-For", f.client)
	return f.bearer.RoundTrip(r)
}

// TestWebhookTools: through MCP an account subscribes a receiver (the secret shown once), pings
// it, reads the delivery log and replays the delivery; every delivery verifies with the Standard
// Webhooks' own Go library and the replay carries the same webhook-id.
func TestWebhookTools(t *testing.T) {
	srv := apptest.Start(t, []string{"--webhook-allow-loopback"})
	s := &server{app: srv.App, base: srv.Base, signer: srv.Signer}
	type got struct {
		header http.Header
		body   []byte
	}
	received := make(chan got, 8)
	rcv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		received <- got{r.Header.Clone(), b}
	}))
	t.Cleanup(rcv.Close)
	cs := inMemory(t, s.keyed(t, "mcp-webhooks", `{}`))

	var w apiclient.Webhook
	callTool(t, cs, "create_webhook", map[string]any{"url": rcv.URL + "/hook", "types": []string{"job.completed", "job.failed"}}, &w)
	if !strings.HasPrefix(w.ID, "wh_") || !strings.HasPrefix(w.Secret, "whsec_") || !w.Enabled {
		t.Fatalf("create_webhook: %+v", w)
	}
	var list struct{ Webhooks []apiclient.Webhook }
	callTool(t, cs, "list_webhooks", map[string]any{}, &list)
	if len(list.Webhooks) != 1 || list.Webhooks[0].ID != w.ID || list.Webhooks[0].Secret != "" {
		t.Fatalf("list_webhooks (the secret is never shown again): %+v", list)
	}
	if msg := toolError(t, cs, "create_webhook", map[string]any{"url": "ftp://example.com", "types": []string{"nope"}}); !strings.Contains(msg, "400") {
		t.Errorf("a refused subscription: %q", msg)
	}

	wh, err := standardwebhooks.NewWebhook(w.Secret)
	if err != nil {
		t.Fatal(err)
	}
	next := func() got {
		t.Helper()
		select {
		case g := <-received:
			if err := wh.Verify(g.body, g.header); err != nil {
				t.Fatalf("a delivery does not verify: %v", err)
			}
			return g
		case <-time.After(20 * time.Second):
			var page apiclient.DeliveryPage
			callTool(t, cs, "list_webhook_deliveries", map[string]any{"webhookId": w.ID}, &page)
			t.Fatalf("no delivery: %+v", page)
			return got{}
		}
	}
	var ping apiclient.Delivery
	callTool(t, cs, "test_webhook", map[string]any{"webhookId": w.ID}, &ping)
	first := next()
	var ev struct{ Type string }
	if err := json.Unmarshal(first.body, &ev); err != nil || ev.Type != "ping" {
		t.Fatalf("the ping: %s (%v)", first.body, err)
	}

	// logged waits until the log shows the ping delivered with n attempts.
	logged := func(n int) apiclient.DeliveryPage {
		t.Helper()
		var page apiclient.DeliveryPage
		for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
			callTool(t, cs, "list_webhook_deliveries", map[string]any{"webhookId": w.ID}, &page)
			if len(page.Deliveries) == 1 && page.Deliveries[0].State == "succeeded" && len(page.Deliveries[0].Attempts) == n {
				return page
			}
			if time.Now().After(deadline) {
				t.Fatalf("list_webhook_deliveries: %+v", page)
			}
		}
	}
	page := logged(1)
	if d := page.Deliveries[0]; d.ID != ping.ID || len(d.Attempts) != 1 || d.Attempts[0].Status == nil || *d.Attempts[0].Status != http.StatusOK {
		t.Fatalf("the delivery log: %+v", d)
	}

	var r apiclient.Replayed
	callTool(t, cs, "replay_webhook", map[string]any{"webhookId": w.ID, "deliveryId": ping.ID}, &r)
	if r.Replayed != 1 {
		t.Fatalf("replay_webhook: %+v", r)
	}
	again := next()
	if id := again.header.Get("webhook-id"); id == "" || id != first.header.Get("webhook-id") {
		t.Errorf("the replay's webhook-id %q, the first's %q", id, first.header.Get("webhook-id"))
	}
	logged(2)
	callTool(t, cs, "replay_webhook", map[string]any{"webhookId": w.ID, "since": time.Now().Add(-time.Hour).Unix()}, &r)
	if r.Replayed != 1 {
		t.Fatalf("replay_webhook since an hour ago: %+v", r)
	}
	next()
	for _, args := range []map[string]any{{"webhookId": w.ID}, {"webhookId": w.ID, "deliveryId": ping.ID, "since": 1}} {
		if msg := toolError(t, cs, "replay_webhook", args); !strings.Contains(msg, "either deliveryId or since") {
			t.Errorf("replay_webhook %v: %q", args, msg)
		}
	}
	if msg := toolError(t, cs, "replay_webhook", map[string]any{"webhookId": "wh_nope", "deliveryId": ping.ID}); !strings.Contains(msg, "404") {
		t.Errorf("another webhook: %q", msg)
	}
}

// TestOrderProposalsOverMCP: an order the agent composes reaches an MCP client structured, as a
// transaction does: propose_order answers it in orders, and a job's richData carries it, as the
// body POST /orders takes. No tool arms it; the client's person places it through the API.
func TestOrderProposalsOverMCP(t *testing.T) {
	s := startServer(t)
	c := s.keyed(t, "mcp-orders", `{}`)
	cs := inMemory(t, c)
	ctx := context.Background()
	deth := s.app.Devnet.ETHToken.Token.Hex()
	for name := range listed(t, cs) {
		if strings.Contains(name, "place") || strings.Contains(name, "arm") {
			t.Errorf("MCP lists %s", name)
		}
	}

	var limit struct {
		Transactions []map[string]any
		Orders       []apiclient.OrderProposal
	}
	callTool(t, cs, "propose_order", map[string]any{"kind": "limit", "token": "DETH", "side": "buy", "amount": "0.01", "price": "0.000000004"}, &limit)
	want := orders.Request{Kind: "limit", Token: deth, Side: "buy", Amount: "0.01", Price: "0.000000004"}
	if len(limit.Orders) != 1 || len(limit.Transactions) != 0 || limit.Orders[0].Type != "order" || limit.Orders[0].Confirm != "POST /orders" {
		t.Fatalf("propose_order: %+v", limit)
	}
	if diff := cmp.Diff(want, limit.Orders[0].Order); diff != "" {
		t.Errorf("propose_order's order (-want +got):\n%s", diff)
	}

	var sub apiclient.Submitted
	callTool(t, cs, "agent_submit_prompt", map[string]any{"prompt": "buy 0.01 ETH of DETH every minute, 3 times"}, &sub)
	var j apiclient.Job
	for deadline := time.Now().Add(20 * time.Second); !j.Done(); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("job still %s", j.Status)
		}
		callTool(t, cs, "agent_get_job_status", map[string]any{"jobId": sub.JobID}, &j)
	}
	if j.Status != "completed" || len(j.RichData) != 1 || j.RichData[0].Order == nil || j.RichData[0].Tx != nil {
		t.Fatalf("job %s %q richData %+v", j.Status, j.Response, j.RichData)
	}
	dca := j.RichData[0].Order.Order
	if diff := cmp.Diff(orders.Request{Kind: "dca", Token: deth, Side: "buy", Amount: "0.01", Every: "1m", Times: 3}, dca); diff != "" {
		t.Errorf("the job's proposed order (-want +got):\n%s", diff)
	}
	if page, err := c.Orders(ctx, apiclient.OrdersParams{}); err != nil || len(page.Orders) != 0 {
		t.Fatalf("the agent armed %d orders (%v)", len(page.Orders), err)
	}
	if n := s.signer.Calls(); n != 0 {
		t.Errorf("the custodial signer was called %d times", n)
	}
	// Confirming is posting the body as it came.
	placed, err := c.PlaceOrder(ctx, dca)
	if err != nil || placed.Kind != "dca" || placed.Times == nil || *placed.Times != 3 {
		t.Fatalf("placing the proposal: %+v %v", placed, err)
	}
}
