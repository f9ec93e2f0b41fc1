package llm_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
)

// wireRequest is the part of a Chat Completions request the fake provider reads.
type wireRequest struct {
	Model    string `json:"model"`
	Stream   bool   `json:"stream"`
	Messages []struct {
		Role       string `json:"role"`
		Content    string `json:"content"`
		ToolCallID string `json:"tool_call_id"`
		ToolCalls  []struct {
			ID       string `json:"id"`
			Function struct {
				Name      string `json:"name"`
				Arguments string `json:"arguments"`
			} `json:"function"`
		} `json:"tool_calls"`
	} `json:"messages"`
	Tools []struct {
		Type     string `json:"type"`
		Function struct {
			Name       string          `json:"name"`
			Parameters json.RawMessage `json:"parameters"`
		} `json:"function"`
	} `json:"tools"`
	StreamOptions struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
}

// provider is a fake OpenAI-compatible server over a real socket. Each request goes to respond,
// which writes the answer: an SSE stream in the real wire format, or an error.
type provider struct {
	*httptest.Server
	mu       sync.Mutex
	requests []wireRequest
	headers  []http.Header
	respond  func(w http.ResponseWriter, n int, req *wireRequest)
}

func newProvider(t *testing.T, respond func(w http.ResponseWriter, n int, req *wireRequest)) *provider {
	p := &provider{respond: respond}
	p.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" {
			http.NotFound(w, r)
			return
		}
		body, _ := io.ReadAll(r.Body)
		var req wireRequest
		if err := json.Unmarshal(body, &req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		p.mu.Lock()
		p.requests = append(p.requests, req)
		p.headers = append(p.headers, r.Header.Clone())
		n := len(p.requests)
		p.mu.Unlock()
		p.respond(w, n, &req)
	}))
	t.Cleanup(p.Close)
	return p
}

func (p *provider) count() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.requests)
}

// sse writes chunks as Chat Completions stream events, flushed one by one, then [DONE].
func sse(w http.ResponseWriter, chunks ...string) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	f := w.(http.Flusher)
	for _, c := range chunks {
		fmt.Fprintf(w, "data: %s\n\n", c)
		f.Flush()
	}
	fmt.Fprint(w, "data: [DONE]\n\n")
	f.Flush()
}

// chunk is one chat.completion.chunk with a delta.
func chunk(delta string, finish string) string {
	fin := "null"
	if finish != "" {
		fin = `"` + finish + `"`
	}
	return fmt.Sprintf(`{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1760000000,"model":"fake-1","choices":[{"index":0,"delta":%s,"logprobs":null,"finish_reason":%s}]}`, delta, fin)
}

func usage(in, out int) string {
	return fmt.Sprintf(`{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1760000000,"model":"fake-1","choices":[],"usage":{"prompt_tokens":%d,"completion_tokens":%d,"total_tokens":%d}}`, in, out, in+out)
}

func textChunks(text string) []string {
	out := []string{chunk(`{"role":"assistant","content":""}`, "")}
	for i := 0; i < len(text); i += 7 {
		piece, _ := json.Marshal(text[i:min(i+7, len(text))])
		out = append(out, chunk(`{"content":`+string(piece)+`}`, ""))
	}
	return append(out, chunk(`{}`, "stop"), usage(40, 12))
}

// toolCallChunks streams one tool call with its arguments cut into pieces of n bytes, the first
// cut falling inside a key.
func toolCallChunks(id, name, args string, n int) []string {
	out := []string{chunk(fmt.Sprintf(`{"role":"assistant","content":null,"tool_calls":[{"index":0,"id":%q,"type":"function","function":{"name":%q,"arguments":""}}]}`, id, name), "")}
	for i := 0; i < len(args); i += n {
		piece, _ := json.Marshal(args[i:min(i+n, len(args))])
		out = append(out, chunk(`{"tool_calls":[{"index":0,"function":{"arguments":`+string(piece)+`}}]}`, ""))
	}
	return append(out, chunk(`{}`, "tool_calls"), usage(120, 20))
}
