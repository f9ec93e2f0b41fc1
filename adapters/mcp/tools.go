package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/curvekit/curvekit/adapters/apiclient"
)

// tools holds what every tool handler needs.
type tools struct {
	c *apiclient.Client
}

// JobTools are the tools MCP adds to the agent's own: a prompt as a job, read and cancelled, the
// account's settings, and its webhooks (listed, created, their delivery log, replays, a ping).
var JobTools = []string{"agent_submit_prompt", "agent_get_job_status", "agent_cancel_job", "get_settings",
	"list_webhooks", "create_webhook", "list_webhook_deliveries", "replay_webhook", "test_webhook"}

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
	sdk.AddTool(s, &sdk.Tool{Name: "list_webhooks", Description: "List the account's webhooks (signed deliveries of its events to a URL): URL, event types, filters, enabled, why disabled. Secrets are never shown here. Read only.", Annotations: ro}, t.webhooks)
	sdk.AddTool(s, &sdk.Tool{Name: "create_webhook", Description: "Subscribe an https URL to the account's events (token.launched, token.graduated, trade, job.completed, job.failed, wallet.transaction, fees.claimable, order.*, settings.changed, webhook.disabled). The answer carries the signing secret (whsec_...) this once: keep it, it is never shown again."}, t.createWebhook)
	sdk.AddTool(s, &sdk.Tool{Name: "list_webhook_deliveries", Description: "Read a webhook's delivery log, newest first: each event's state and every attempt's status, latency and the start of the answer. Read only.", Annotations: ro}, t.deliveries)
	sdk.AddTool(s, &sdk.Tool{Name: "replay_webhook", Description: "Deliver events to a webhook again, with the same webhook-id and a fresh retry schedule: one delivery (deliveryId) or every delivery made since a time (since, Unix seconds)."}, t.replay)
	sdk.AddTool(s, &sdk.Tool{Name: "test_webhook", Description: "Send a webhook a signed ping event now; its outcome appears in the delivery log."}, t.testWebhook)
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

// The webhook tools' inputs.

type createWebhookIn struct {
	URL          string   `json:"url" jsonschema:"the https URL that receives the signed deliveries"`
	Types        []string `json:"types" jsonschema:"the event types to deliver, e.g. [\"job.completed\", \"wallet.transaction\"]"`
	Tokens       []string `json:"tokens,omitempty" jsonschema:"limit the market's events to these token addresses"`
	MinTradeSize string   `json:"minTradeSize,omitempty" jsonschema:"drop trades smaller than this, in whole units of the pairing asset (a decimal string)"`
}

type webhookIn struct {
	WebhookID string `json:"webhookId" jsonschema:"the webhook's id (wh_...), as list_webhooks shows it"`
}

type deliveriesIn struct {
	WebhookID string `json:"webhookId" jsonschema:"the webhook's id (wh_...), as list_webhooks shows it"`
	Cursor    string `json:"cursor,omitempty" jsonschema:"the nextCursor of the previous page"`
	Limit     int    `json:"limit,omitempty" jsonschema:"how many deliveries, at most 100"`
}

type replayIn struct {
	WebhookID  string `json:"webhookId" jsonschema:"the webhook's id (wh_...), as list_webhooks shows it"`
	DeliveryID string `json:"deliveryId,omitempty" jsonschema:"the delivery to make again (dlv_...); or give since"`
	Since      int64  `json:"since,omitempty" jsonschema:"Unix seconds: deliver again every delivery made at or after it; or give deliveryId"`
}

// webhooksOut is list_webhooks' answer: structured content is an object.
type webhooksOut struct {
	Webhooks []apiclient.Webhook `json:"webhooks"`
}

func (t *tools) webhooks(ctx context.Context, _ *sdk.CallToolRequest, _ noInput) (*sdk.CallToolResult, any, error) {
	ws, err := t.c.Webhooks(ctx)
	return nil, webhooksOut{Webhooks: ws}, err
}

func (t *tools) createWebhook(ctx context.Context, _ *sdk.CallToolRequest, in createWebhookIn) (*sdk.CallToolResult, any, error) {
	w, err := t.c.CreateWebhook(ctx, apiclient.WebhookRequest{URL: in.URL, Types: in.Types, Tokens: in.Tokens, MinTradeSize: in.MinTradeSize})
	return nil, w, err
}

func (t *tools) deliveries(ctx context.Context, _ *sdk.CallToolRequest, in deliveriesIn) (*sdk.CallToolResult, any, error) {
	p, err := t.c.Deliveries(ctx, in.WebhookID, in.Cursor, in.Limit)
	return nil, p, err
}

func (t *tools) replay(ctx context.Context, _ *sdk.CallToolRequest, in replayIn) (*sdk.CallToolResult, any, error) {
	switch {
	case (in.DeliveryID == "") == (in.Since == 0):
		return nil, nil, errors.New("give either deliveryId or since")
	case in.DeliveryID != "":
		r, err := t.c.ReplayDelivery(ctx, in.WebhookID, in.DeliveryID)
		return nil, r, err
	default:
		r, err := t.c.ReplayWebhook(ctx, in.WebhookID, in.Since)
		return nil, r, err
	}
}

func (t *tools) testWebhook(ctx context.Context, _ *sdk.CallToolRequest, in webhookIn) (*sdk.CallToolResult, any, error) {
	d, err := t.c.TestWebhook(ctx, in.WebhookID)
	return nil, d, err
}
