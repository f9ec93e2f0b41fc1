package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/curvekit/curvekit/adapters/apiclient"
)

// tools holds what every tool handler needs.
type tools struct {
	c *apiclient.Client
}

// JobTools are the tools MCP adds to the agent's own: a prompt as a job, read and cancelled, and
// the account's settings.
var JobTools = []string{"agent_submit_prompt", "agent_get_job_status", "agent_cancel_job", "get_settings"}

// The job tools' inputs; their schemas come from these types (a field without omitempty is
// required).

type submitIn struct {
	Prompt   string `json:"prompt" jsonschema:"what to ask the agent, in plain English"`
	ThreadID string `json:"threadId,omitempty" jsonschema:"continue this conversation thread (from an earlier submit)"`
}

type jobIn struct {
	JobID string `json:"jobId" jsonschema:"the job's id, as agent_submit_prompt returned it"`
}

// register adds the agent's tools as the server described them, each calling POST
// /agent/tools/:name with its arguments untouched (the server validates them), then the job
// tools.
func (t *tools) register(s *sdk.Server, agentTools []apiclient.Tool) error {
	for _, at := range agentTools {
		if slices.Contains(JobTools, at.Name) {
			return fmt.Errorf("mcp: the agent's tool %s has the name of a job tool", at.Name)
		}
		if len(at.InputSchema) == 0 {
			return fmt.Errorf("mcp: the agent's tool %s has no input schema", at.Name)
		}
		s.AddTool(&sdk.Tool{Name: at.Name, Description: at.Description, InputSchema: at.InputSchema}, t.agentTool(at.Name))
	}
	ro := &sdk.ToolAnnotations{ReadOnlyHint: true}
	sdk.AddTool(s, &sdk.Tool{Name: "agent_submit_prompt", Description: "Submit a prompt to the curvekit agent as a job; read it with agent_get_job_status every couple of seconds."}, t.submit)
	sdk.AddTool(s, &sdk.Tool{Name: "agent_get_job_status", Description: "Read an agent job: status, status updates, the text response and richData (unsigned transactions) when completed.", Annotations: ro}, t.status)
	sdk.AddTool(s, &sdk.Tool{Name: "agent_cancel_job", Description: "Cancel an agent job while it is still pending."}, t.cancel)
	sdk.AddTool(s, &sdk.Tool{Name: "get_settings", Description: "Read the account's settings: the wallet's guard (paused, caps per pairing asset, price-impact cap, recipients, a running relaxation) and the agent profile. Read only.", Annotations: ro}, t.settings)
	return nil
}

// agentTool calls one of the agent's tools. Its answer is the API's, as structured content and,
// for clients that read only text, as its JSON text; a refusal is a tool error with the API's
// message.
func (t *tools) agentTool(name string) sdk.ToolHandler {
	return func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		var args json.RawMessage
		if req.Params != nil {
			args = req.Params.Arguments
		}
		res, err := t.c.CallTool(ctx, name, args)
		if err != nil {
			out := &sdk.CallToolResult{}
			out.SetError(err)
			return out, nil
		}
		raw, err := json.Marshal(res)
		if err != nil {
			return nil, fmt.Errorf("mcp: encode %s's result: %w", name, err)
		}
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: string(raw)}}, StructuredContent: json.RawMessage(raw)}, nil
	}
}

func (t *tools) submit(ctx context.Context, _ *sdk.CallToolRequest, in submitIn) (*sdk.CallToolResult, any, error) {
	s, err := t.c.SubmitJob(ctx, apiclient.JobRequest{Prompt: in.Prompt, ThreadID: in.ThreadID})
	return nil, s, err
}

func (t *tools) status(ctx context.Context, _ *sdk.CallToolRequest, in jobIn) (*sdk.CallToolResult, any, error) {
	j, err := t.c.Job(ctx, in.JobID)
	return nil, j, err
}

func (t *tools) cancel(ctx context.Context, _ *sdk.CallToolRequest, in jobIn) (*sdk.CallToolResult, any, error) {
	j, err := t.c.CancelJob(ctx, in.JobID)
	return nil, j, err
}

type noInput struct{}

func (t *tools) settings(ctx context.Context, _ *sdk.CallToolRequest, _ noInput) (*sdk.CallToolResult, any, error) {
	st, err := t.c.AccountSettings(ctx)
	return nil, st, err
}
