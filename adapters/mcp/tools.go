package mcp

import (
	"context"
	"errors"
	"fmt"
	"regexp"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/curvekit/curvekit/adapters/apiclient"
)

// tools holds what every tool handler needs.
type tools struct {
	c    *apiclient.Client
	wait apiclient.WaitParams
}

// The inputs' schemas come from these types (a field without omitempty is required); the
// jsonschema tags describe the fields to the model.

type tokensListIn struct {
	Sort   string `json:"sort,omitempty" jsonschema:"order, always descending: newest (default), volume24h, marketCap or progress"`
	Phase  string `json:"phase,omitempty" jsonschema:"only tokens in this phase: curve (bonding curve) or graduated (pool)"`
	Quote  string `json:"quote,omitempty" jsonschema:"only tokens paired with this asset: ETH or an ERC-20 address"`
	Search string `json:"search,omitempty" jsonschema:"case-insensitive substring of the name or symbol"`
	Limit  int    `json:"limit,omitempty" jsonschema:"tokens per page, 1 to 100 (default 20)"`
	Cursor string `json:"cursor,omitempty" jsonschema:"nextCursor of the previous page, with the same sort"`
}

type tokenIn struct {
	Address string `json:"address" jsonschema:"the token's address (0x followed by 40 hex digits)"`
}

type quoteIn struct {
	Address string `json:"address" jsonschema:"the token's address"`
	Side    string `json:"side" jsonschema:"buy or sell"`
	Amount  string `json:"amount" jsonschema:"exact decimal: the pairing asset to spend for a buy (e.g. 0.01 ETH), tokens to sell for a sell"`
}

type composeTradeIn struct {
	Address  string `json:"address" jsonschema:"the token's address"`
	Side     string `json:"side" jsonschema:"buy or sell"`
	Amount   string `json:"amount" jsonschema:"exact decimal: the pairing asset to spend for a buy, tokens to sell for a sell"`
	Slippage string `json:"slippage,omitempty" jsonschema:"percent tolerance on the quoted output, 0 to 50 (default 1)"`
	Wallet   string `json:"wallet,omitempty" jsonschema:"the wallet that will sign and receive the output; required once the token trades on its pool"`
}

type composeLaunchIn struct {
	Name   string `json:"name" jsonschema:"token name: 1 to 32 letters, digits, spaces, dots, dashes or underscores"`
	Symbol string `json:"symbol" jsonschema:"ticker: 1 to 10 letters or digits"`
}

type composeClaimIn struct {
	Token string `json:"token,omitempty" jsonschema:"symbol or address of one of your tokens; all your tokens when empty"`
}

type submitIn struct {
	Prompt   string `json:"prompt" jsonschema:"what to ask the agent, in plain English"`
	ThreadID string `json:"threadId,omitempty" jsonschema:"continue this conversation thread (from an earlier submit)"`
}

type jobIn struct {
	JobID string `json:"jobId" jsonschema:"the job's id, as agent_submit_prompt returned it"`
}

// composed is what a compose tool returns: the unsigned transaction(s) and a reminder.
type composed struct {
	Unsigned    bool               `json:"unsigned"`
	Note        string             `json:"note"`
	Transaction *apiclient.BuiltTx `json:"transaction,omitempty"`
	// A job-composed answer carries the agent's text and its transactions.
	JobID        string         `json:"jobId,omitempty"`
	Response     string         `json:"response,omitempty"`
	Transactions []apiclient.Tx `json:"transactions,omitempty"`
}

const unsignedNote = "Unsigned: nothing was signed or sent. Show it to the person to confirm in their wallet; mine the approval first when there is one."

func (t *tools) register(s *sdk.Server) {
	ro := &sdk.ToolAnnotations{ReadOnlyHint: true}
	sdk.AddTool(s, &sdk.Tool{Name: "tokens_list", Description: "List launchpad tokens with price, market cap, 24h volume and graduation progress.", Annotations: ro}, t.tokensList)
	sdk.AddTool(s, &sdk.Tool{Name: "token_get", Description: "Read one token: metadata, phase, price, reserves, volume.", Annotations: ro}, t.tokenGet)
	sdk.AddTool(s, &sdk.Tool{Name: "quote", Description: "Price a hypothetical buy or sell (a view, not a reservation: quote right before composing).", Annotations: ro}, t.quote)
	sdk.AddTool(s, &sdk.Tool{Name: "compose_trade", Description: "Compose an UNSIGNED buy or sell transaction (and the approval to mine first, when needed) for the person to confirm in their wallet.", Annotations: ro}, t.composeTrade)
	sdk.AddTool(s, &sdk.Tool{Name: "compose_launch", Description: "Compose an UNSIGNED launch of a new token through the agent (needs an API key); checks the wallet's daily launch limit.", Annotations: ro}, t.composeLaunch)
	sdk.AddTool(s, &sdk.Tool{Name: "compose_claim_fees", Description: "Compose an UNSIGNED claim of the creator fees of your tokens through the agent (needs an API key).", Annotations: ro}, t.composeClaim)
	sdk.AddTool(s, &sdk.Tool{Name: "agent_submit_prompt", Description: "Submit a prompt to the curvekit agent as a job (needs an API key); read it with agent_get_job_status every couple of seconds."}, t.submit)
	sdk.AddTool(s, &sdk.Tool{Name: "agent_get_job_status", Description: "Read an agent job: status, status updates, the text response and richData (unsigned transactions) when completed.", Annotations: ro}, t.status)
	sdk.AddTool(s, &sdk.Tool{Name: "agent_cancel_job", Description: "Cancel an agent job while it is still pending."}, t.cancel)
}

func (t *tools) tokensList(ctx context.Context, _ *sdk.CallToolRequest, in tokensListIn) (*sdk.CallToolResult, any, error) {
	if in.Limit == 0 {
		in.Limit = 20
	}
	page, err := t.c.Tokens(ctx, apiclient.TokensParams{Sort: in.Sort, Phase: in.Phase, Quote: in.Quote, Search: in.Search, Cursor: in.Cursor, Limit: in.Limit})
	return nil, page, err
}

func (t *tools) tokenGet(ctx context.Context, _ *sdk.CallToolRequest, in tokenIn) (*sdk.CallToolResult, any, error) {
	tok, err := t.c.Token(ctx, in.Address)
	return nil, tok, err
}

func (t *tools) quote(ctx context.Context, _ *sdk.CallToolRequest, in quoteIn) (*sdk.CallToolResult, any, error) {
	q, err := t.c.Quote(ctx, in.Address, in.Side, in.Amount)
	return nil, q, err
}

func (t *tools) composeTrade(ctx context.Context, _ *sdk.CallToolRequest, in composeTradeIn) (*sdk.CallToolResult, any, error) {
	b, err := t.c.BuildTx(ctx, in.Address, apiclient.BuildTxParams{Type: in.Side, Amount: in.Amount, Slippage: in.Slippage, Recipient: in.Wallet})
	if err != nil {
		return nil, nil, err
	}
	return nil, composed{Unsigned: true, Note: unsignedNote, Transaction: &b}, nil
}

// The agent's offline planner reads these exact phrasings; the inputs are checked first so that
// a name cannot smuggle another request into the prompt.
var (
	launchName   = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9 ._-]{0,31}$`)
	launchSymbol = regexp.MustCompile(`^[A-Za-z0-9]{1,10}$`)
	claimToken   = regexp.MustCompile(`^(?:[A-Za-z0-9]{1,10}|0x[0-9a-fA-F]{40})$`)
)

func (t *tools) composeLaunch(ctx context.Context, _ *sdk.CallToolRequest, in composeLaunchIn) (*sdk.CallToolResult, any, error) {
	if !launchName.MatchString(in.Name) || !launchSymbol.MatchString(in.Symbol) {
		return nil, nil, errors.New("name must be 1 to 32 letters, digits, spaces, dots, dashes or underscores, starting with a letter or digit; symbol 1 to 10 letters or digits")
	}
	return t.viaAgent(ctx, fmt.Sprintf("launch a token named %s with symbol %s", in.Name, in.Symbol))
}

func (t *tools) composeClaim(ctx context.Context, _ *sdk.CallToolRequest, in composeClaimIn) (*sdk.CallToolResult, any, error) {
	if in.Token == "" {
		return t.viaAgent(ctx, "claim my fees")
	}
	if !claimToken.MatchString(in.Token) {
		return nil, nil, errors.New("token must be a symbol (1 to 10 letters or digits) or an address")
	}
	return t.viaAgent(ctx, "claim fees for "+in.Token)
}

// viaAgent runs prompt as an agent job, waits for it and returns its answer and transactions.
func (t *tools) viaAgent(ctx context.Context, prompt string) (*sdk.CallToolResult, any, error) {
	sub, err := t.c.SubmitJob(ctx, apiclient.JobRequest{Prompt: prompt})
	if err != nil {
		return nil, nil, err
	}
	j, err := t.c.WaitJob(ctx, sub.JobID, t.wait)
	if err != nil {
		return nil, nil, err
	}
	if j.Status != apiclient.JobCompleted {
		msg := j.Error
		if msg == "" {
			msg = "the job was " + j.Status
		}
		return nil, nil, fmt.Errorf("agent job %s %s: %s", j.JobID, j.Status, msg)
	}
	out := composed{Unsigned: len(j.RichData) > 0, Note: unsignedNote, JobID: j.JobID, Response: j.Response, Transactions: j.RichData}
	if len(j.RichData) == 0 {
		out.Note = "The agent composed no transaction; its response says why."
	}
	return nil, out, nil
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
