package agent

import (
	"context"

	"github.com/google/jsonschema-go/jsonschema"
)

// Role says who wrote a message.
type Role string

const (
	RoleSystem    Role = "system"
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
	RoleTool      Role = "tool"
)

// Message is one entry of a conversation as a planner sees it.
type Message struct {
	Role    Role   `json:"role"`
	Content string `json:"content"`
	// ToolCalls are the calls an assistant message asked for.
	ToolCalls []ToolCall `json:"toolCalls,omitempty"`
	// ToolCallID answers the call of that id (Role tool).
	ToolCallID string `json:"toolCallId,omitempty"`
}

// ToolCall is a planner's request to run a tool with JSON arguments.
type ToolCall struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// ToolSpec describes a tool to a planner.
type ToolSpec struct {
	Name        string
	Description string
	Parameters  *jsonschema.Schema
}

// Request is one step of a turn: the conversation so far and the tools on offer.
type Request struct {
	Model    string
	Messages []Message
	Tools    []ToolSpec
	// OnText, when set, receives the reply's text as it is produced, in order; the deltas join
	// to Reply.Text.
	OnText func(delta string)
}

// Reply is a planner's answer to one step: text, tool calls, or both.
type Reply struct {
	Text      string
	ToolCalls []ToolCall
	Usage     Usage
}

// Usage counts the tokens a step consumed, as the provider reports them (0 when it does not).
type Usage struct {
	InputTokens  int `json:"inputTokens"`
	OutputTokens int `json:"outputTokens"`
}

// LLM is the planner of a turn. The offline planner (Offline) and adapters/llm implement it. An
// error is logged and shown to the client only as a generic message, so an implementation may
// put provider details in it; it must return ctx's error once ctx is done.
type LLM interface {
	Complete(ctx context.Context, r *Request) (Reply, error)
}
