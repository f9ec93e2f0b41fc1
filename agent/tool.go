package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"github.com/ethereum/go-ethereum/common"
	"github.com/google/jsonschema-go/jsonschema"

	"github.com/curvekit/curvekit"
	"github.com/curvekit/curvekit/account"
)

// Tool is one typed capability of the agent. Its input schema comes from the Go type of its
// arguments, so the LLM, the offline planner and an MCP server describe and validate it alike.
type Tool struct {
	Name        string
	Description string
	// InputSchema is the JSON schema of the arguments.
	InputSchema *jsonschema.Schema
	// Composes reports that the tool builds an unsigned transaction or proposes an order (it
	// never sends the one or arms the other).
	Composes bool

	resolved *jsonschema.Resolved
	run      func(ctx context.Context, c *Call, args json.RawMessage) (ToolResult, error)
}

// Call is what a tool knows of the turn that runs it.
type Call struct {
	// Wallet is the account the turn runs for: it receives every trade the tools compose.
	Wallet common.Address
	// Memory is the wallet's memory as the turn sees it; remember and forget update it.
	Memory map[string]string
	// ReadOnly is set when a read-only API key asked: the turn may read and compose, but not
	// change the wallet's memory (which steers the trades its owner composes later).
	ReadOnly bool
	// Profile is the account's agent profile: default slippage and pairing, the largest trade,
	// the tools allowed.
	Profile account.AgentProfile
}

// ToolResult is a tool's answer.
type ToolResult struct {
	// Summary says what the tool found or did in a plain-English sentence or two.
	Summary string `json:"summary"`
	// Data is the structured answer for a model to read.
	Data any `json:"data,omitempty"`
	// Transactions are what the tool composed, in the order the wallet sends them.
	Transactions []Transaction `json:"-"`
	// Orders are the standing orders the tool proposed, for the wallet owner to place.
	Orders []OrderProposal `json:"-"`
}

// NewTool declares a tool whose arguments decode into In. It panics when In has no JSON schema,
// which is a programming error found by any test that builds the tool set.
func NewTool[In any](name, description string, composes bool, fn func(ctx context.Context, c *Call, in In) (ToolResult, error)) Tool {
	schema, err := jsonschema.For[In](nil)
	if err != nil {
		panic(fmt.Sprintf("agent: tool %s: %v", name, err))
	}
	resolved, err := schema.Resolve(nil)
	if err != nil {
		panic(fmt.Sprintf("agent: tool %s: %v", name, err))
	}
	return Tool{
		Name: name, Description: description, InputSchema: schema, Composes: composes, resolved: resolved,
		run: func(ctx context.Context, c *Call, args json.RawMessage) (ToolResult, error) {
			var in In
			dec := json.NewDecoder(bytes.NewReader(args))
			dec.DisallowUnknownFields()
			if err := dec.Decode(&in); err != nil {
				return ToolResult{}, fmt.Errorf("%w: arguments of %s: %v", curvekit.ErrInvalid, name, err)
			}
			return fn(ctx, c, in)
		},
	}
}

// Run validates args against the schema and runs the tool. Errors that carry a curvekit
// sentinel have client-safe messages; others are internal.
func (t *Tool) Run(ctx context.Context, c *Call, args json.RawMessage) (ToolResult, error) {
	if len(bytes.TrimSpace(args)) == 0 {
		args = json.RawMessage("{}")
	}
	var v any
	if err := json.Unmarshal(args, &v); err != nil {
		return ToolResult{}, fmt.Errorf("%w: arguments of %s are not JSON", curvekit.ErrInvalid, t.Name)
	}
	if err := t.resolved.Validate(v); err != nil {
		return ToolResult{}, fmt.Errorf("%w: arguments of %s: %v", curvekit.ErrInvalid, t.Name, err)
	}
	if c.Memory == nil {
		c.Memory = map[string]string{}
	}
	return t.run(ctx, c, args)
}

// Spec describes the tool to a planner.
func (t *Tool) Spec() ToolSpec {
	return ToolSpec{Name: t.Name, Description: t.Description, Parameters: t.InputSchema}
}
