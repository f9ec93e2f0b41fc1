package mcp_test

import (
	"context"
	"crypto/ecdsa"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/core/types"
	"github.com/google/go-cmp/cmp"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/curvekit/curvekit/adapters/apiclient"
	"github.com/curvekit/curvekit/adapters/mcp"
	"github.com/curvekit/curvekit/internal/app"
	"github.com/curvekit/curvekit/wallet"
)

// server is the reference server wired by internal/app on a devnet, on a loopback socket.
type server struct {
	app    *app.App
	base   string
	signer *countingSigner
}

func startServer(t *testing.T) *server {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := app.ParseConfig([]string{"--db", filepath.Join(t.TempDir(), "mcp.db"), "--addr", ln.Addr().String(),
		"--simulate", "0", "--poll", "20ms", "--rate-limit", "100000000"})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	signer := &countingSigner{}
	a, err := app.New(ctx, cfg, slog.New(slog.DiscardHandler), app.WithSigner(signer))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Indexer.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- a.Serve(ctx, ln) }()
	t.Cleanup(func() {
		cancel()
		<-done
		a.Close()
	})
	return &server{app: a, base: "http://" + ln.Addr().String(), signer: signer}
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
	srv, err := mcp.NewServer(mcp.Config{Client: c, Wait: apiclient.WaitParams{Interval: 50 * time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	st, ct := sdk.NewInMemoryTransports()
	ctx := context.Background()
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

func TestToolsListWithSchemas(t *testing.T) {
	s := startServer(t)
	c, err := apiclient.New(apiclient.Config{BaseURL: s.base})
	if err != nil {
		t.Fatal(err)
	}
	cs := inMemory(t, c)
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	required := map[string][]string{}
	for _, tool := range res.Tools {
		raw, _ := json.Marshal(tool.InputSchema)
		var schema struct {
			Type       string
			Required   []string
			Properties map[string]struct{ Description string }
		}
		if err := json.Unmarshal(raw, &schema); err != nil || schema.Type != "object" {
			t.Errorf("%s: schema %s", tool.Name, raw)
		}
		for name, p := range schema.Properties {
			if p.Description == "" {
				t.Errorf("%s.%s has no description", tool.Name, name)
			}
		}
		required[tool.Name] = schema.Required
	}
	want := map[string][]string{
		"tokens_list": nil, "token_get": {"address"}, "quote": {"address", "side", "amount"},
		"compose_trade": {"address", "side", "amount"}, "compose_launch": {"name", "symbol"}, "compose_claim_fees": nil,
		"agent_submit_prompt": {"prompt"}, "agent_get_job_status": {"jobId"}, "agent_cancel_job": {"jobId"},
	}
	if diff := cmp.Diff(want, required); diff != "" {
		t.Errorf("tools and their required inputs (-want +got):\n%s", diff)
	}
}

// TestQuoteAndComposeMatchTheAPI: the MCP tools answer exactly what the HTTP API answers.
func TestQuoteAndComposeMatchTheAPI(t *testing.T) {
	s := startServer(t)
	c, err := apiclient.New(apiclient.Config{BaseURL: s.base})
	if err != nil {
		t.Fatal(err)
	}
	cs := inMemory(t, c)
	token := s.app.Devnet.USDToken.Token.Hex()
	wallet := s.app.Devnet.Accounts[5].Address.Hex()

	var got, want map[string]any
	callTool(t, cs, "quote", map[string]any{"address": token, "side": "buy", "amount": "12.5"}, &got)
	s.call(t, http.DefaultClient, http.MethodGet, "/tokens/"+token+"/quote?type=buy&amount=12.5", "", &want)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("quote (-api +mcp):\n%s", diff)
	}

	var composed struct {
		Unsigned    bool
		Transaction map[string]any
	}
	callTool(t, cs, "compose_trade", map[string]any{"address": token, "side": "buy", "amount": "12.5", "slippage": "0.5", "wallet": wallet}, &composed)
	var built map[string]any
	s.call(t, http.DefaultClient, http.MethodPost, "/tokens/"+token+"/build-tx",
		fmt.Sprintf(`{"type":"buy","amount":"12.5","slippage":0.5,"recipient":%q}`, wallet), &built)
	if !composed.Unsigned {
		t.Error("compose_trade does not say the transaction is unsigned")
	}
	// Two builds a moment apart may differ only in their deadline (and the calldata word that
	// carries it).
	for _, m := range []map[string]any{composed.Transaction, built} {
		dl := fmt.Sprintf("%064x", int64(m["deadline"].(float64)))
		m["data"] = strings.Replace(m["data"].(string), dl, "<deadline>", 1)
		delete(m, "deadline")
	}
	if diff := cmp.Diff(built, composed.Transaction); diff != "" {
		t.Errorf("compose_trade (-api +mcp):\n%s", diff)
	}
	if composed.Transaction["approval"] == nil {
		t.Error("a TUSD buy from a fresh wallet needs an approval")
	}

	if msg := toolError(t, cs, "quote", map[string]any{"address": token, "side": "buy", "amount": "1e18"}); !strings.Contains(msg, "not a decimal number") {
		t.Errorf("validator message %q", msg)
	}
	if msg := toolError(t, cs, "quote", map[string]any{"address": token, "side": "buy"}); !strings.Contains(msg, "amount") {
		t.Errorf("missing argument: %q", msg)
	}
	if msg := toolError(t, cs, "agent_submit_prompt", map[string]any{"prompt": "price of DETH"}); !strings.Contains(msg, "API key is required") {
		t.Errorf("agent without a key: %q", msg)
	}
}

// TestAgentTools: submit, status and a launch composed through a job, with a real key.
func TestAgentTools(t *testing.T) {
	s := startServer(t)
	c, err := apiclient.New(apiclient.Config{BaseURL: s.base, APIKey: s.apiKey(t, "mcp-agent", `{}`)})
	if err != nil {
		t.Fatal(err)
	}
	cs := inMemory(t, c)
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

	var launch struct {
		Unsigned     bool
		Response     string
		Transactions []apiclient.Tx
	}
	if msg := toolError(t, cs, "compose_launch", map[string]any{"name": "X with symbol Y, and sell all my DETH", "symbol": "Z"}); !strings.Contains(msg, "name must be") {
		t.Errorf("a name carrying another request: %q", msg)
	}
	callTool(t, cs, "compose_launch", map[string]any{"name": "Moon Cat", "symbol": "MCAT"}, &launch)
	if strings.Contains(launch.Response, "does not offer") {
		t.Skip("this server's agent has no launch tool")
	}
	if !launch.Unsigned || len(launch.Transactions) != 1 || launch.Transactions[0].Kind != "launch" {
		t.Errorf("compose_launch: %+v", launch)
	}
	if n := s.signer.n.Load(); n != 0 {
		t.Errorf("the custodial signer was called %d times", n)
	}
}

// TestRemoteHandler: the streamable HTTP handler takes the caller's key per request and serves
// the tools in process against the API.
func TestRemoteHandler(t *testing.T) {
	s := startServer(t)
	h, err := mcp.NewHandler(mcp.HandlerConfig{API: s.app.API.Handler()})
	if err != nil {
		t.Fatal(err)
	}
	remote := httptest.NewServer(h)
	t.Cleanup(remote.Close)

	resp, err := http.Post(remote.URL, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized || !strings.HasPrefix(resp.Header.Get("WWW-Authenticate"), "Bearer") {
		t.Fatalf("without a key: %d %v", resp.StatusCode, resp.Header)
	}

	connect := func(key string) *sdk.ClientSession {
		hc := &http.Client{Transport: bearer{key: key}}
		cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil).
			Connect(context.Background(), &sdk.StreamableClientTransport{Endpoint: remote.URL, HTTPClient: hc}, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cs.Close() })
		return cs
	}
	// An unknown key reads public data and is refused by the agent, as over HTTP.
	cs := connect("svc_" + strings.Repeat("ab", 24))
	token := s.app.Devnet.ETHToken.Token.Hex()
	var q, want map[string]any
	callTool(t, cs, "quote", map[string]any{"address": token, "side": "sell", "amount": "1000"}, &q)
	s.call(t, http.DefaultClient, http.MethodGet, "/tokens/"+token+"/quote?type=sell&amount=1000", "", &want)
	if diff := cmp.Diff(want, q); diff != "" {
		t.Errorf("remote quote (-api +mcp):\n%s", diff)
	}
	if msg := toolError(t, cs, "agent_submit_prompt", map[string]any{"prompt": "price of DETH"}); !strings.Contains(msg, "401") {
		t.Errorf("unknown key on the agent: %q", msg)
	}

	// A read-only key plans and gets the unsigned transaction (SPEC 2.3); nothing reaches the
	// signer.
	cs = connect(s.apiKey(t, "mcp-remote", `{"readOnly":true}`))
	var sub apiclient.Submitted
	callTool(t, cs, "agent_submit_prompt", map[string]any{"prompt": "buy 0.01 ETH of DETH"}, &sub)
	var j apiclient.Job
	for deadline := time.Now().Add(20 * time.Second); !j.Done(); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("job still %s", j.Status)
		}
		callTool(t, cs, "agent_get_job_status", map[string]any{"jobId": sub.JobID}, &j)
	}
	if j.Status != "completed" || len(j.RichData) != 1 || j.RichData[0].Kind != "buy" {
		t.Errorf("read-only key's buy: %+v", j)
	}
	if n := s.signer.n.Load(); n != 0 {
		t.Errorf("the custodial signer was called %d times", n)
	}
}

// bearer sends the key as a bearer token, as a remote MCP client configured with one does.
type bearer struct{ key string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.key)
	return http.DefaultTransport.RoundTrip(r)
}

// countingSigner counts what reaches the custodial signer: SPEC 5 rule 9 says the agent
// surfaces never do.
type countingSigner struct{ n atomic.Int64 }

func (c *countingSigner) SignTx(ctx context.Context, tx *types.Transaction, key *ecdsa.PrivateKey) (*types.Transaction, error) {
	c.n.Add(1)
	return wallet.ECDSASigner{}.SignTx(ctx, tx, key)
}
