// Package llm implements agent.LLM on any OpenAI-compatible Chat Completions endpoint (OpenAI,
// Ollama, vLLM and the like) through github.com/sashabaranov/go-openai: streamed replies, tool
// calls joined from their fragments, per-attempt timeouts and bounded retries. Provider errors
// are returned with their details for the log; the agent shows clients only a generic message.
package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"sort"
	"strings"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/curvekit/curvekit/agent"
)

// Environment variables New's caller reads the configuration from (see FromEnv).
const (
	EnvBaseURL = "CURVEKIT_LLM_BASE_URL"
	EnvModel   = "CURVEKIT_LLM_MODEL"
	EnvAPIKey  = "CURVEKIT_LLM_API_KEY"
)

// Config configures a Client.
type Config struct {
	// BaseURL of the API, up to the version: https://api.openai.com/v1,
	// http://localhost:11434/v1 (Ollama), http://host:8000/v1 (vLLM). Required.
	BaseURL string
	// APIKey is sent as a bearer token; empty sends none (local servers).
	APIKey string
	// Model is used when a request names none. Required.
	Model string
	// Timeout bounds one attempt, the whole stream included; default 60s.
	Timeout time.Duration
	// MaxRetries is how often a failed attempt is retried when nothing was streamed yet and the
	// failure may pass (a network error, 429, 5xx); default 2. Backoff is the first wait,
	// doubled each time; default 500ms.
	MaxRetries int
	Backoff    time.Duration
	// MaxTokens bounds each reply; 0 leaves it to the provider.
	MaxTokens int
	// HTTPClient, when set, replaces the default client.
	HTTPClient *http.Client
}

// FromEnv reads the configuration from the environment through getenv (os.Getenv). It reports
// false when no base URL is set: the agent then keeps its offline planner.
func FromEnv(getenv func(string) string) (Config, bool) {
	c := Config{BaseURL: getenv(EnvBaseURL), Model: getenv(EnvModel), APIKey: getenv(EnvAPIKey)}
	return c, c.BaseURL != ""
}

func (c *Config) withDefaults() {
	if c.Timeout == 0 {
		c.Timeout = 60 * time.Second
	}
	if c.MaxRetries == 0 {
		c.MaxRetries = 2
	}
	if c.Backoff == 0 {
		c.Backoff = 500 * time.Millisecond
	}
}

func (c *Config) validate() error {
	if c.BaseURL == "" || c.Model == "" {
		return fmt.Errorf("llm: a base URL (%s) and a model (%s) are required", EnvBaseURL, EnvModel)
	}
	if !strings.HasPrefix(c.BaseURL, "http://") && !strings.HasPrefix(c.BaseURL, "https://") {
		return fmt.Errorf("llm: base URL %q is not http(s)", c.BaseURL)
	}
	if c.Timeout < 0 || c.MaxRetries < 0 || c.Backoff < 0 || c.MaxTokens < 0 {
		return errors.New("llm: timeouts, retries and limits must not be negative")
	}
	return nil
}

// Client is an agent.LLM on an OpenAI-compatible endpoint. It is safe for concurrent use.
type Client struct {
	cfg Config
	api *openai.Client
}

var _ agent.LLM = (*Client)(nil)

// New returns a Client for cfg.
func New(cfg Config) (*Client, error) {
	cfg.withDefaults()
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	oc := openai.DefaultConfig(cfg.APIKey)
	oc.BaseURL = strings.TrimSuffix(cfg.BaseURL, "/")
	if cfg.HTTPClient != nil {
		oc.HTTPClient = cfg.HTTPClient
	}
	return &Client{cfg: cfg, api: openai.NewClientWithConfig(oc)}, nil
}

// Model returns the default model name.
func (c *Client) Model() string { return c.cfg.Model }

// Complete streams one step of a turn.
func (c *Client) Complete(ctx context.Context, r *agent.Request) (agent.Reply, error) {
	req, err := c.request(r)
	if err != nil {
		return agent.Reply{}, err
	}
	wait := c.cfg.Backoff
	for attempt := 0; ; attempt++ {
		reply, streamed, err := c.attempt(ctx, &req, r.OnText)
		if err == nil {
			return reply, nil
		}
		if ctx.Err() != nil {
			return agent.Reply{}, ctx.Err()
		}
		if streamed || attempt == c.cfg.MaxRetries || !retryable(err) {
			return agent.Reply{}, fmt.Errorf("llm: %s after %d attempts: %w", req.Model, attempt+1, err)
		}
		select {
		case <-ctx.Done():
			return agent.Reply{}, ctx.Err()
		case <-time.After(wait):
		}
		wait *= 2
	}
}

// retryable reports failures that may pass: the network, timeouts, throttling, server errors.
func retryable(err error) bool {
	var re *openai.RequestError
	if errors.As(err, &re) {
		return re.HTTPStatusCode == http.StatusTooManyRequests || re.HTTPStatusCode >= 500
	}
	var ae *openai.APIError
	if errors.As(err, &ae) {
		return ae.HTTPStatusCode == http.StatusTooManyRequests || ae.HTTPStatusCode >= 500
	}
	var ne net.Error
	return errors.As(err, &ne) || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, io.ErrUnexpectedEOF)
}

func (c *Client) request(r *agent.Request) (openai.ChatCompletionRequest, error) {
	req := openai.ChatCompletionRequest{
		Model: r.Model, Stream: true, StreamOptions: &openai.StreamOptions{IncludeUsage: true}, MaxTokens: c.cfg.MaxTokens,
	}
	if req.Model == "" || req.Model == agent.OfflineModel {
		req.Model = c.cfg.Model
	}
	for _, m := range r.Messages {
		om := openai.ChatCompletionMessage{Role: string(m.Role), Content: m.Content, ToolCallID: m.ToolCallID}
		for _, tc := range m.ToolCalls {
			om.ToolCalls = append(om.ToolCalls, openai.ToolCall{ID: tc.ID, Type: openai.ToolTypeFunction,
				Function: openai.FunctionCall{Name: tc.Name, Arguments: tc.Arguments}})
		}
		req.Messages = append(req.Messages, om)
	}
	for _, t := range r.Tools {
		params, err := json.Marshal(t.Parameters)
		if err != nil {
			return req, fmt.Errorf("llm: schema of %s: %w", t.Name, err)
		}
		req.Tools = append(req.Tools, openai.Tool{Type: openai.ToolTypeFunction, Function: &openai.FunctionDefinition{
			Name: t.Name, Description: t.Description, Parameters: json.RawMessage(params),
		}})
	}
	return req, nil
}

// attempt runs one streamed request. streamed reports whether text reached onText, after which
// a retry would repeat it.
func (c *Client) attempt(ctx context.Context, req *openai.ChatCompletionRequest, onText func(string)) (reply agent.Reply, streamed bool, err error) {
	ctx, cancel := context.WithTimeout(ctx, c.cfg.Timeout)
	defer cancel()
	stream, err := c.api.CreateChatCompletionStream(ctx, *req)
	if err != nil {
		return agent.Reply{}, false, err
	}
	defer stream.Close()
	var (
		text  strings.Builder
		calls = map[int]*agent.ToolCall{}
	)
	for {
		chunk, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return agent.Reply{}, streamed, err
		}
		if chunk.Usage != nil {
			reply.Usage = agent.Usage{InputTokens: chunk.Usage.PromptTokens, OutputTokens: chunk.Usage.CompletionTokens}
		}
		for _, ch := range chunk.Choices {
			if d := ch.Delta.Content; d != "" {
				text.WriteString(d)
				if onText != nil {
					onText(d)
				}
				streamed = true
			}
			// A tool call arrives in fragments that share an index: the first carries the id
			// and the name, the rest pieces of the arguments.
			for i, tc := range ch.Delta.ToolCalls {
				idx := i
				if tc.Index != nil {
					idx = *tc.Index
				}
				call := calls[idx]
				if call == nil {
					call = &agent.ToolCall{}
					calls[idx] = call
				}
				if tc.ID != "" {
					call.ID = tc.ID
				}
				if call.Name == "" {
					// Some servers repeat the name in every fragment; the first one counts.
					call.Name = tc.Function.Name
				}
				call.Arguments += tc.Function.Arguments
			}
		}
	}
	reply.Text = text.String()
	idxs := make([]int, 0, len(calls))
	for i := range calls {
		idxs = append(idxs, i)
	}
	sort.Ints(idxs)
	for _, i := range idxs {
		call := *calls[i]
		if call.Name == "" {
			return agent.Reply{}, streamed, fmt.Errorf("tool call %d without a name", i)
		}
		if call.ID == "" {
			call.ID = fmt.Sprintf("call_%d", i)
		}
		reply.ToolCalls = append(reply.ToolCalls, call)
	}
	return reply, streamed, nil
}
