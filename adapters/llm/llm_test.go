package llm_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/curvekit/curvekit/adapters/llm"
	"github.com/curvekit/curvekit/agent"
)

func client(t *testing.T, p *provider, cfg llm.Config) *llm.Client {
	t.Helper()
	cfg.BaseURL = p.URL + "/v1"
	if cfg.Model == "" {
		cfg.Model = "fake-1"
	}
	if cfg.Backoff == 0 {
		cfg.Backoff = time.Millisecond
	}
	c, err := llm.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

var quoteSpec = agent.ToolSpec{Name: "quote", Description: "price a trade", Parameters: agent.NewTool("quote", "", false,
	func(context.Context, *agent.Call, agent.QuoteArgs) (agent.ToolResult, error) {
		return agent.ToolResult{}, nil
	}).InputSchema}

// Text deltas reach OnText in order, two tool calls streamed in fragments - the first cut
// inside a key - are joined by index, and the usage chunk is read.
func TestStreamsTextAndSplitToolCalls(t *testing.T) {
	p := newProvider(t, func(w http.ResponseWriter, _ int, _ *wireRequest) {
		sse(w,
			chunk(`{"role":"assistant","content":""}`, ""),
			chunk(`{"content":"Let me "}`, ""),
			chunk(`{"content":"check."}`, ""),
			chunk(`{"tool_calls":[{"index":0,"id":"call_a","type":"function","function":{"name":"quote","arguments":""}}]}`, ""),
			chunk(`{"tool_calls":[{"index":0,"function":{"arguments":"{\"tok"}}]}`, ""),
			chunk(`{"tool_calls":[{"index":1,"id":"call_b","type":"function","function":{"name":"get_token","arguments":"{\"token\":\"GRAD\"}"}}]}`, ""),
			chunk(`{"tool_calls":[{"index":0,"function":{"arguments":"en\":\"DETH\",\"side\":\"buy\","}}]}`, ""),
			chunk(`{"tool_calls":[{"index":0,"function":{"arguments":"\"amount\":\"0.01\"}"}}]}`, ""),
			chunk(`{}`, "tool_calls"),
			usage(321, 45),
		)
	})
	c := client(t, p, llm.Config{APIKey: "sk-test"})
	var deltas []string
	req := &agent.Request{
		Messages: []agent.Message{
			{Role: agent.RoleSystem, Content: "be brief"},
			{Role: agent.RoleUser, Content: "quote DETH"},
			{Role: agent.RoleAssistant, ToolCalls: []agent.ToolCall{{ID: "call_0", Name: "quote", Arguments: `{}`}}},
			{Role: agent.RoleTool, ToolCallID: "call_0", Content: `{"error":"amount is required"}`},
		},
		Tools:  []agent.ToolSpec{quoteSpec},
		OnText: func(d string) { deltas = append(deltas, d) },
	}
	reply, err := c.Complete(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	want := agent.Reply{
		Text: "Let me check.",
		ToolCalls: []agent.ToolCall{
			{ID: "call_a", Name: "quote", Arguments: `{"token":"DETH","side":"buy","amount":"0.01"}`},
			{ID: "call_b", Name: "get_token", Arguments: `{"token":"GRAD"}`},
		},
		Usage: agent.Usage{InputTokens: 321, OutputTokens: 45},
	}
	if diff := cmp.Diff(want, reply); diff != "" {
		t.Fatalf("reply (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"Let me ", "check."}, deltas); diff != "" {
		t.Fatalf("deltas (-want +got):\n%s", diff)
	}

	got := p.requests[0]
	if got.Model != "fake-1" || !got.Stream || !got.StreamOptions.IncludeUsage || p.headers[0].Get("Authorization") != "Bearer sk-test" {
		t.Fatalf("request model %q stream %v usage %v auth %q", got.Model, got.Stream, got.StreamOptions.IncludeUsage, p.headers[0].Get("Authorization"))
	}
	if len(got.Messages) != 4 || got.Messages[2].ToolCalls[0].ID != "call_0" || got.Messages[3].Role != "tool" || got.Messages[3].ToolCallID != "call_0" {
		t.Fatalf("messages on the wire: %+v", got.Messages)
	}
	if len(got.Tools) != 1 || got.Tools[0].Type != "function" || got.Tools[0].Function.Name != "quote" {
		t.Fatalf("tools on the wire: %+v", got.Tools)
	}
	var schema struct {
		Type       string                     `json:"type"`
		Required   []string                   `json:"required"`
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if err := json.Unmarshal(got.Tools[0].Function.Parameters, &schema); err != nil {
		t.Fatal(err)
	}
	if schema.Type != "object" || len(schema.Properties) != 3 || !cmp.Equal(schema.Required, []string{"token", "side", "amount"}) {
		t.Fatalf("schema from the Go type: %s", got.Tools[0].Function.Parameters)
	}
}

const stackTrace = "panic: runtime error: invalid memory address\n\ngoroutine 1 [running]:\nmain.handler(0xc000010000)\n\t/srv/model/server.go:42 +0x1d\n"

func TestRetries(t *testing.T) {
	t.Run("5xx is retried up to the bound", func(t *testing.T) {
		p := newProvider(t, func(w http.ResponseWriter, _ int, _ *wireRequest) {
			http.Error(w, stackTrace, http.StatusInternalServerError)
		})
		_, err := client(t, p, llm.Config{MaxRetries: 2}).Complete(context.Background(), &agent.Request{Messages: []agent.Message{{Role: agent.RoleUser, Content: "hi"}}})
		if err == nil || p.count() != 3 {
			t.Fatalf("err %v after %d requests; want an error after 3", err, p.count())
		}
	})
	t.Run("503 then success", func(t *testing.T) {
		p := newProvider(t, func(w http.ResponseWriter, n int, _ *wireRequest) {
			if n == 1 {
				http.Error(w, `{"error":{"message":"overloaded","type":"server_error"}}`, http.StatusServiceUnavailable)
				return
			}
			sse(w, textChunks("hello there")...)
		})
		r, err := client(t, p, llm.Config{}).Complete(context.Background(), &agent.Request{Messages: []agent.Message{{Role: agent.RoleUser, Content: "hi"}}})
		if err != nil || r.Text != "hello there" || p.count() != 2 {
			t.Fatalf("reply %+v, %v after %d requests", r, err, p.count())
		}
	})
	t.Run("400 is not retried", func(t *testing.T) {
		p := newProvider(t, func(w http.ResponseWriter, _ int, _ *wireRequest) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			w.Write([]byte(`{"error":{"message":"unknown model","type":"invalid_request_error"}}`))
		})
		_, err := client(t, p, llm.Config{}).Complete(context.Background(), &agent.Request{Messages: []agent.Message{{Role: agent.RoleUser, Content: "hi"}}})
		if err == nil || p.count() != 1 {
			t.Fatalf("err %v after %d requests", err, p.count())
		}
	})
	t.Run("a stream cut after text is not repeated", func(t *testing.T) {
		p := newProvider(t, func(w http.ResponseWriter, _ int, _ *wireRequest) {
			w.Header().Set("Content-Type", "text/event-stream")
			w.Write([]byte("data: " + chunk(`{"content":"Half an ans"}`, "") + "\n\n"))
			w.(http.Flusher).Flush()
			panic(http.ErrAbortHandler) // drop the connection mid-stream
		})
		var text string
		_, err := client(t, p, llm.Config{}).Complete(context.Background(), &agent.Request{
			Messages: []agent.Message{{Role: agent.RoleUser, Content: "hi"}}, OnText: func(d string) { text += d }})
		if err == nil || p.count() != 1 || text != "Half an ans" {
			t.Fatalf("err %v after %d requests, text %q", err, p.count(), text)
		}
	})
	t.Run("each attempt times out", func(t *testing.T) {
		p := newProvider(t, func(w http.ResponseWriter, _ int, r *wireRequest) {
			time.Sleep(2 * time.Second)
		})
		start := time.Now()
		_, err := client(t, p, llm.Config{Timeout: 150 * time.Millisecond, MaxRetries: 1}).Complete(context.Background(),
			&agent.Request{Messages: []agent.Message{{Role: agent.RoleUser, Content: "hi"}}})
		if err == nil || p.count() != 2 || time.Since(start) > 1500*time.Millisecond {
			t.Fatalf("err %v after %d requests in %s", err, p.count(), time.Since(start))
		}
	})
	t.Run("a cancelled turn stops at once", func(t *testing.T) {
		p := newProvider(t, func(w http.ResponseWriter, _ int, _ *wireRequest) {
			http.Error(w, "busy", http.StatusServiceUnavailable)
		})
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		_, err := client(t, p, llm.Config{}).Complete(ctx, &agent.Request{Messages: []agent.Message{{Role: agent.RoleUser, Content: "hi"}}})
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("err %v", err)
		}
	})
}

func TestConfig(t *testing.T) {
	env := map[string]string{llm.EnvBaseURL: "http://localhost:11434/v1", llm.EnvModel: "llama3.1", llm.EnvAPIKey: ""}
	cfg, ok := llm.FromEnv(func(k string) string { return env[k] })
	if !ok || cfg.BaseURL != "http://localhost:11434/v1" || cfg.Model != "llama3.1" {
		t.Fatalf("FromEnv = %+v, %v", cfg, ok)
	}
	if _, ok := llm.FromEnv(func(string) string { return "" }); ok {
		t.Fatal("FromEnv without a base URL reported a configuration")
	}
	for name, bad := range map[string]llm.Config{
		"no model":      {BaseURL: "http://x/v1"},
		"no base URL":   {Model: "m"},
		"not http":      {BaseURL: "ftp://x", Model: "m"},
		"negative time": {BaseURL: "http://x/v1", Model: "m", Timeout: -1},
	} {
		if _, err := llm.New(bad); err == nil || !strings.HasPrefix(err.Error(), "llm: ") {
			t.Errorf("%s: New = %v", name, err)
		}
	}
}
