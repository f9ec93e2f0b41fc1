package apiclient

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/url"
)

// Tool is one of the agent's tools as GET /agent/tools lists it.
type Tool struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	// Composes says the tool builds unsigned transactions.
	Composes bool `json:"composes"`
	// InputSchema is the JSON schema of the tool's arguments, as the server wrote it.
	InputSchema json.RawMessage `json:"inputSchema"`
}

// ToolResult is POST /agent/tools/:name's answer: the tool's plain-English summary, its
// structured data (as the server wrote it; absent for some tools), the unsigned transactions
// it composed and the orders it proposed, each a request for the wallet owner to confirm.
type ToolResult struct {
	Tool         string          `json:"tool"`
	Summary      string          `json:"summary"`
	Data         json.RawMessage `json:"data,omitempty"`
	Transactions []Tx            `json:"transactions"`
	Orders       []OrderProposal `json:"orders"`
}

// Tools lists the agent's tools (API key).
func (c *Client) Tools(ctx context.Context) ([]Tool, error) {
	var out struct {
		Tools []Tool `json:"tools"`
	}
	if err := c.needKey(); err != nil {
		return nil, err
	}
	return out.Tools, c.get(ctx, "/agent/tools", nil, &out)
}

// CallTool runs one of the agent's tools for the key's wallet. args is anything that encodes
// to a JSON object of the tool's arguments; nil, an empty json.RawMessage and JSON null are no
// arguments. A tool that refuses its arguments gives an *Error (400 lists every problem, 404
// names an unknown tool).
func (c *Client) CallTool(ctx context.Context, name string, args any) (ToolResult, error) {
	var out ToolResult
	if err := c.needKey(); err != nil {
		return out, err
	}
	switch a := args.(type) {
	case nil:
		args = json.RawMessage("{}")
	case json.RawMessage:
		if t := bytes.TrimSpace(a); len(t) == 0 || string(t) == "null" {
			args = json.RawMessage("{}")
		}
	}
	return out, c.do(ctx, http.MethodPost, "/agent/tools/"+url.PathEscape(name), nil, args, &out)
}
