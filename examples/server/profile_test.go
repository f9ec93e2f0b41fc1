package main

import (
	"net/http"
	"strings"
	"testing"
)

// The agent reads the account's profile: its default slippage, the largest trade it may compose
// and the tools it may use, over the tool route (as MCP calls it) and in a job's turn.
func TestAgentFollowsTheProfile(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	b, _ := s.signIn(t, "profiled")
	key := b.newKey(`{"name":"agent"}`).Key
	r := b.do(http.MethodPatch, "/account/settings", `{"agent":{"slippage":2.5,"maxTrade":{"ETH":"0.05"},"tools":["quote","build_buy_transaction"]}}`)
	wantStatus(t, "set the profile", r, http.StatusOK)
	r = b.do(http.MethodPatch, "/account/settings", `{"agent":{"tools":["quote","sign_and_send"]}}`)
	wantCode(t, "a tool that does not exist", r, http.StatusBadRequest, "VALIDATION_FAILED")
	tool := func(name, args string) answer {
		return s.anon(t, http.MethodPost, "/agent/tools/"+name, args, "X-API-Key", key)
	}
	var built struct {
		Data map[string]any `json:"data"`
	}
	r = tool("build_buy_transaction", `{"token":"DETH","amount":"0.01"}`)
	wantStatus(t, "a buy within the profile", r, http.StatusOK)
	r.decode(t, &built)
	if built.Data["slippageBps"] != float64(250) {
		t.Fatalf("a buy without slippage takes the profile's 2.5%%: %s", r.body)
	}
	r = tool("build_buy_transaction", `{"token":"DETH","amount":"0.06"}`)
	wantCode(t, "a buy above the profile's largest trade", r, http.StatusBadRequest, "VALIDATION_FAILED")
	if !strings.Contains(string(r.body), "more than the largest trade the account's agent profile allows, 0.05 ETH") {
		t.Fatalf("refusal: %s", r.body)
	}
	wantStatus(t, "a tool the profile leaves out", tool("get_token", `{"token":"DETH"}`), http.StatusForbidden)
	// A job's turn: the planner asks for the buy; the tool refuses and the answer says why.
	id := s.submitJob(t, key, "buy 0.06 ETH of DETH")
	j := s.pollJob(t, key, id)
	if j.Status != "completed" || !strings.Contains(j.Response, "largest trade") {
		t.Fatalf("a job above the profile's largest trade: %+v", j)
	}
}
