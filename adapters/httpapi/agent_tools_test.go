package httpapi

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/curvekit/curvekit/agent"
)

func TestAgentToolsList(t *testing.T) {
	t.Parallel()
	e := newAgentEnv(t, false)
	var want []map[string]any
	for _, tool := range e.svc.Tools() {
		schema, err := json.Marshal(tool.InputSchema)
		if err != nil {
			t.Fatal(err)
		}
		var s any
		if err := json.Unmarshal(schema, &s); err != nil {
			t.Fatal(err)
		}
		want = append(want, map[string]any{"name": tool.Name, "description": tool.Description, "composes": tool.Composes, "inputSchema": s})
	}
	for _, cred := range [][]string{{"X-API-Key", readOnlyKey}, {"Cookie", sessionCookie + "=" + traderSession}} {
		r := e.do(t, http.MethodGet, "/agent/tools", "", cred...)
		var got struct{ Tools []map[string]any }
		r.decode(t, &got)
		if r.status != http.StatusOK {
			t.Fatalf("%s: %d %s", cred[0], r.status, r.body)
		}
		if diff := cmp.Diff(want, got.Tools); diff != "" {
			t.Errorf("%s: tools (-agent +api):\n%s", cred[0], diff)
		}
	}
	e.do(t, http.MethodGet, "/agent/tools", "").want(t, http.StatusUnauthorized,
		`{"statusCode":401,"message":"this route needs a session or an API key in X-API-Key"}`)
	e.do(t, http.MethodPost, "/agent/tools/quote", `{}`).want(t, http.StatusUnauthorized,
		`{"statusCode":401,"message":"this route needs a session or an API key in X-API-Key"}`)
}

// toolAnswer is POST /agent/tools/:name's answer.
type toolAnswer struct {
	Tool         string
	Summary      string
	Data         map[string]any
	Transactions []agent.Transaction
}

// TestAgentToolsMatchTheMarketRoutes: the quote tool prices what GET quote prices, and the buy
// tool composes, for a read-only key, the transaction build-tx builds for the key's wallet.
func TestAgentToolsMatchTheMarketRoutes(t *testing.T) {
	t.Parallel()
	e := newAgentEnv(t, false)
	var q toolAnswer
	r := e.do(t, http.MethodPost, "/agent/tools/quote", `{"token":"FROG","side":"buy","amount":"0.01"}`, "X-API-Key", readOnlyKey)
	r.decode(t, &q)
	if r.status != http.StatusOK || q.Tool != "quote" || q.Summary == "" || q.Transactions == nil || len(q.Transactions) != 0 {
		t.Fatalf("quote: %d %s", r.status, r.body)
	}
	var quote map[string]any
	e.do(t, http.MethodGet, "/tokens/"+ethToken.Hex()+"/quote?type=buy&amount=0.01", "").decode(t, &quote)
	got := map[string]any{"amountIn": q.Data["amountIn"], "amountOut": q.Data["amountOut"], "fee": q.Data["fee"], "venue": q.Data["venue"], "impact": q.Data["impactBps"]}
	want := map[string]any{"amountIn": quote["amountIn"], "amountOut": quote["amountOut"], "fee": quote["fee"], "venue": quote["venue"], "impact": quote["priceImpactBps"]}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("quote tool (-GET quote +tool):\n%s", diff)
	}

	var buy toolAnswer
	r = e.do(t, http.MethodPost, "/agent/tools/build_buy_transaction", `{"token":"FROG","amount":"0.01","slippage":"0.5"}`, "X-API-Key", readOnlyKey)
	r.decode(t, &buy)
	if r.status != http.StatusOK || len(buy.Transactions) != 1 {
		t.Fatalf("buy: %d %s", r.status, r.body)
	}
	var built map[string]any
	e.do(t, http.MethodPost, "/tokens/"+ethToken.Hex()+"/build-tx", `{"type":"buy","amount":"0.01","slippage":0.5,"recipient":"`+trader.Hex()+`"}`, "").decode(t, &built)
	tx := buy.Transactions[0]
	got = map[string]any{"kind": tx.Kind, "from": tx.From, "to": tx.To, "data": tx.Data, "value": tx.Value, "minOut": buy.Data["minOut"]}
	want = map[string]any{"kind": "buy", "from": trader.Hex(), "to": built["to"], "data": built["data"], "value": built["value"], "minOut": built["minAmountOut"]}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("buy tool (-build-tx +tool):\n%s", diff)
	}

	// The wallet is the caller's: another key composes for its own wallet.
	r = e.do(t, http.MethodPost, "/agent/tools/build_buy_transaction", `{"token":"FROG","amount":"0.01"}`, "X-API-Key", nobodyKey)
	r.decode(t, &buy)
	if r.status != http.StatusOK || buy.Transactions[0].From != nobody.Hex() {
		t.Fatalf("another key's buy: %d %s", r.status, r.body)
	}
}

func TestAgentToolCallRefusals(t *testing.T) {
	t.Parallel()
	e := newAgentEnv(t, false)
	key := []string{"X-API-Key", traderKey}
	for _, tc := range []struct {
		name, path, body string
		status           int
		want             string
	}{
		{"unknown tool", "/agent/tools/sign_and_send", `{}`, http.StatusNotFound, `{"statusCode":404,"message":"no tool \"sign_and_send\""}`},
		{"every problem at once", "/agent/tools/build_buy_transaction", `{"amount":1,"Token":"FROG","wallet":"0x7ade000000000000000000000000000000000009","slippage":null}`, http.StatusBadRequest,
			`{"statusCode":400,"message":["amount must be a string","unknown field Token","unknown field wallet","slippage must be a string","token is required"],"code":"VALIDATION_FAILED"}`},
		{"repeated key", "/agent/tools/quote", `{"token":"FROG","side":"buy","side":"sell","amount":"1"}`, http.StatusBadRequest,
			`{"statusCode":400,"message":"side is given more than once","code":"VALIDATION_FAILED"}`},
		{"integer", "/agent/tools/list_tokens", `{"limit":2.5}`, http.StatusBadRequest, `{"statusCode":400,"message":"limit must be an integer","code":"VALIDATION_FAILED"}`},
		{"null body", "/agent/tools/list_tokens", `null`, http.StatusBadRequest, `{"statusCode":400,"message":"body must be a JSON object of the tool's arguments","code":"VALIDATION_FAILED"}`},
		{"trailing data", "/agent/tools/list_tokens", `{} {}`, http.StatusBadRequest, `{"statusCode":400,"message":"body must hold a single JSON object","code":"VALIDATION_FAILED"}`},
		{"the tool's own check", "/agent/tools/quote", `{"token":"FROG","side":"hold","amount":"1"}`, http.StatusBadRequest, `{"statusCode":400,"message":"side must be buy or sell","code":"VALIDATION_FAILED"}`},
		{"unknown token", "/agent/tools/get_token", `{"token":"NOPE"}`, http.StatusNotFound, `{"statusCode":404,"message":"no token with the symbol NOPE"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e.do(t, http.MethodPost, tc.path, tc.body, key...).want(t, tc.status, tc.want)
		})
	}
	// An empty body is no arguments.
	var list struct{ Summary string }
	r := e.do(t, http.MethodPost, "/agent/tools/list_tokens", "", key...)
	if r.status != http.StatusOK {
		t.Fatalf("list_tokens without a body: %d %s", r.status, r.body)
	}
	r.decode(t, &list)
	if list.Summary == "" {
		t.Errorf("list_tokens: %s", r.body)
	}
}

// TestAgentToolsWriteTheCallersMemory: remember and forget act on the caller's wallet, and a
// remembered slippage applies to the next trade a tool composes.
func TestAgentToolsWriteTheCallersMemory(t *testing.T) {
	t.Parallel()
	e := newAgentEnv(t, false)
	session := []string{"Cookie", sessionCookie + "=" + traderSession}
	e.do(t, http.MethodPost, "/agent/tools/remember", `{"key":"slippage","value":"2%"}`, session...).want(t, http.StatusOK,
		`{"tool":"remember","summary":"I will remember slippage: 2%.","data":{"slippage":"2%"},"transactions":[],"orders":[]}`)
	var mem struct{ Memories []struct{ Key, Value string } }
	e.do(t, http.MethodGet, "/agent/memory", "", session...).decode(t, &mem)
	if len(mem.Memories) != 1 || mem.Memories[0].Value != "2%" {
		t.Fatalf("memory %+v", mem)
	}
	var buy toolAnswer
	e.do(t, http.MethodPost, "/agent/tools/build_buy_transaction", `{"token":"FROG","amount":"0.01"}`, "X-API-Key", readOnlyKey).decode(t, &buy)
	if buy.Data["slippageBps"] != float64(200) {
		t.Errorf("the remembered slippage did not apply: %v", buy.Data)
	}
	e.do(t, http.MethodPost, "/agent/tools/build_buy_transaction", `{"token":"FROG","amount":"0.01"}`, "X-API-Key", nobodyKey).decode(t, &buy)
	if buy.Data["slippageBps"] != float64(100) {
		t.Errorf("another wallet got the trader's slippage: %v", buy.Data)
	}
	// A read-only key reads the memory through the trades it composes, but cannot change it.
	for _, call := range []struct{ tool, args string }{{"forget", `{"key":"slippage"}`}, {"remember", `{"key":"slippage","value":"49%"}`}} {
		e.do(t, http.MethodPost, "/agent/tools/"+call.tool, call.args, "X-API-Key", readOnlyKey).want(t, http.StatusForbidden,
			`{"statusCode":403,"message":"a read-only API key cannot change the agent's memory; use a session or a read-write key"}`)
	}
	e.do(t, http.MethodGet, "/agent/memory", "", session...).decode(t, &mem)
	if len(mem.Memories) != 1 || mem.Memories[0].Value != "2%" {
		t.Fatalf("memory after a read-only key's writes %+v", mem)
	}
	e.do(t, http.MethodPost, "/agent/tools/forget", `{"key":"slippage"}`, session...).want(t, http.StatusOK,
		`{"tool":"forget","summary":"I forgot slippage.","transactions":[],"orders":[]}`)
	// A page of another site cannot make a signed-in browser write the memory.
	e.do(t, http.MethodPost, "/agent/tools/remember", `{"key":"slippage","value":"50%"}`, append(session, "Sec-Fetch-Site", "cross-site")...).want(t, http.StatusForbidden,
		`{"statusCode":403,"message":"cross-origin request refused"}`)
	e.do(t, http.MethodGet, "/agent/memory", "", session...).decode(t, &mem)
	if len(mem.Memories) != 0 {
		t.Fatalf("memory after a cross-site call %+v", mem)
	}
}
