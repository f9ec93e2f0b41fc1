package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/ethereum/go-ethereum/common"

	"github.com/curvekit/curvekit"
)

// TurnParams is one prompt to answer for a wallet.
type TurnParams struct {
	// Wallet comes from the caller's credential; every composed trade pays out to it.
	Wallet common.Address
	// ReadOnly is set for a read-only API key: the turn may not change memory.
	ReadOnly bool
	ThreadID string // a thread of Wallet; empty starts a new one
	Prompt   string
	History  []Message
	Model    string
	// Progress, when set, receives short notes on what the turn is doing (a job's status
	// updates).
	Progress func(ctx context.Context, note string)
}

// TurnResult is the sum of a turn's events.
type TurnResult struct {
	ThreadID string
	// Response is every text delta joined.
	Response     string
	Transactions []Transaction
	// Orders are the standing orders the turn proposed; nothing is armed.
	Orders []OrderProposal
	Usage  Usage
	Steps  int
}

// RichData is what the turn composed, as a job keeps it: the transactions, then the orders.
func (r *TurnResult) RichData() []Item {
	var items []Item
	for i := range r.Transactions {
		items = append(items, Item{Transaction: &r.Transactions[i]})
	}
	for i := range r.Orders {
		items = append(items, Item{Order: &r.Orders[i]})
	}
	return items
}

// Client-safe failures of a turn.
var (
	errProvider = errors.New("the model provider failed to answer; try again later")
	errInternal = errors.New("the agent failed to answer; try again later")
)

// ClientMessage returns the message a client may see for a turn's error: the text of an error
// that carries a curvekit sentinel (services write those to be shown), without the sentinel's
// own prefix; a generic message otherwise.
func ClientMessage(err error) string {
	for _, s := range []error{curvekit.ErrInvalid, curvekit.ErrNotFound, curvekit.ErrForbidden, curvekit.ErrConflict, curvekit.ErrLimited, curvekit.ErrTooLarge, curvekit.ErrUnauthorized} {
		if errors.Is(err, s) {
			if rest, ok := strings.CutPrefix(err.Error(), s.Error()+": "); ok && rest != "" {
				return rest
			}
			return err.Error()
		}
	}
	if errors.Is(err, errProvider) {
		return errProvider.Error()
	}
	return errInternal.Error()
}

// Prompt runs a streamed turn: it validates p like Submit (a failure there returns before any
// event), then calls emit with each event in
// order - usage_update after every planner step, text_delta as the answer is written,
// transaction for each composed transaction, order for each proposed order, and done or error
// last. An emit error (the client
// went away) ends the turn. The turn is recorded in its thread when it succeeds.
func (s *Service) Prompt(ctx context.Context, p TurnParams, emit func(Event) error) (TurnResult, error) {
	if err := s.check(p.Prompt, p.ThreadID, p.Model, p.History); err != nil {
		return TurnResult{}, err
	}
	if p.ThreadID == "" {
		p.ThreadID = newID("thr_")
	}
	res, err := s.turn(ctx, &p, emit)
	if err == nil {
		err = s.record(ctx, &p, &res)
	}
	if err != nil {
		if ctx.Err() == nil && !errors.Is(err, errEmit) {
			emit(Event{Type: EventError, Error: ClientMessage(err)})
		}
		return res, err
	}
	if err := emit(Event{Type: EventDone, Done: &Done{ThreadID: res.ThreadID, Transactions: len(res.Transactions), Orders: len(res.Orders)}}); err != nil {
		return res, fmt.Errorf("%w: %w", errEmit, err)
	}
	return res, nil
}

// errEmit marks a failure to deliver an event: the client is gone, nobody to tell.
var errEmit = errors.New("agent: event not delivered")

func (s *Service) record(ctx context.Context, p *TurnParams, res *TurnResult) error {
	return s.cfg.Threads.AppendTurn(ctx, &AppendTurnParams{Thread: res.ThreadID, Wallet: p.Wallet,
		Turn: Turn{Prompt: p.Prompt, Response: res.Response, At: s.now()}})
}

const systemPrompt = `You are the curvekit trading agent for wallet %s. You read token
markets and compose unsigned transactions and standing orders with your tools; you never sign,
send or place anything: the wallet owner confirms every transaction and places every order. Use the tools for every number you state. Keep answers
short and plain. When a tool reports an error, say so plainly.`

// turn runs the planner loop and emits every event but done and error.
func (s *Service) turn(ctx context.Context, p *TurnParams, emit func(Event) error) (TurnResult, error) {
	res := TurnResult{ThreadID: p.ThreadID}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	send := func(e Event) {
		if err := emit(e); err != nil {
			cancel(fmt.Errorf("%w: %w", errEmit, err))
		}
	}
	progress := func(note string) {
		if p.Progress != nil {
			p.Progress(ctx, note)
		}
	}

	mem, turns, err := s.turnContext(ctx, p.Wallet, p.ThreadID)
	if err != nil {
		return res, err
	}
	msgs := []Message{{Role: RoleSystem, Content: s.system(p.Wallet, mem)}}
	for _, t := range turns {
		msgs = append(msgs, Message{Role: RoleUser, Content: t.Prompt}, Message{Role: RoleAssistant, Content: t.Response})
	}
	msgs = append(msgs, p.History...)
	msgs = append(msgs, Message{Role: RoleUser, Content: p.Prompt})
	call := &Call{Wallet: p.Wallet, Memory: mem, ReadOnly: p.ReadOnly}
	if s.cfg.Profiles != nil {
		if call.Profile, err = s.cfg.Profiles.Profile(ctx, p.Wallet); err != nil {
			return res, fmt.Errorf("agent: profile of %s: %w", p.Wallet.Hex(), err)
		}
	}
	// The planner is offered only the tools the account's profile allows.
	specs := make([]ToolSpec, 0, len(s.tools))
	for i := range s.tools {
		if call.allows(s.tools[i].Name) == nil {
			specs = append(specs, s.tools[i].Spec())
		}
	}
	model := p.Model
	if model == "" {
		model = s.cfg.Model
	}

	var text strings.Builder
	progress("planning")
	for {
		if res.Steps == s.cfg.MaxSteps {
			note := fmt.Sprintf("\n(I stopped after %d planning steps.)", s.cfg.MaxSteps)
			text.WriteString(note)
			send(Event{Type: EventText, Text: note})
			break
		}
		res.Steps++
		reply, err := s.cfg.LLM.Complete(ctx, &Request{Model: model, Messages: msgs, Tools: specs, OnText: func(d string) {
			if d != "" {
				text.WriteString(d)
				send(Event{Type: EventText, Text: d})
			}
		}})
		if cause := context.Cause(ctx); cause != nil {
			return res, cause
		}
		if err != nil {
			s.cfg.Logger.WarnContext(ctx, "agent: model provider failed", "model", model, "err", err)
			return res, errProvider
		}
		res.Usage.InputTokens += reply.Usage.InputTokens
		res.Usage.OutputTokens += reply.Usage.OutputTokens
		send(Event{Type: EventUsage, Usage: &UsageUpdate{Model: model, Usage: res.Usage, Steps: res.Steps}})
		if len(reply.ToolCalls) == 0 {
			break
		}
		msgs = append(msgs, Message{Role: RoleAssistant, Content: reply.Text, ToolCalls: reply.ToolCalls})
		for _, tc := range reply.ToolCalls {
			progress("running " + tc.Name)
			content, r := s.runTool(ctx, call, tc)
			res.Transactions = append(res.Transactions, r.Transactions...)
			res.Orders = append(res.Orders, r.Orders...)
			msgs = append(msgs, Message{Role: RoleTool, ToolCallID: tc.ID, Content: content})
		}
		if cause := context.Cause(ctx); cause != nil {
			return res, cause
		}
	}
	res.Response = text.String()
	for i := range res.Transactions {
		send(Event{Type: EventTransaction, Transaction: &res.Transactions[i]})
	}
	for i := range res.Orders {
		send(Event{Type: EventOrder, Order: &res.Orders[i]})
	}
	if cause := context.Cause(ctx); cause != nil {
		return res, cause
	}
	return res, nil
}

func (s *Service) system(wallet common.Address, mem map[string]string) string {
	var b strings.Builder
	fmt.Fprintf(&b, systemPrompt, wallet.Hex())
	if len(mem) > 0 {
		b.WriteString("\nThe wallet owner asked you to remember:")
		for k, v := range mem {
			fmt.Fprintf(&b, "\n- %s: %s", k, v)
		}
	}
	return b.String()
}

// toolOutput is what a planner reads back from a tool.
type toolOutput struct {
	Summary string `json:"summary,omitempty"`
	Data    any    `json:"data,omitempty"`
	Error   string `json:"error,omitempty"`
}

// runTool runs one call and returns the tool message's content and what it composed (its
// transactions and orders). Failures become content too: the planner tells the person what went
// wrong.
func (s *Service) runTool(ctx context.Context, c *Call, tc ToolCall) (string, ToolResult) {
	var out toolOutput
	var composed ToolResult
	if t, ok := s.byName[tc.Name]; !ok {
		out.Error = fmt.Sprintf("there is no tool named %q", tc.Name)
	} else if err := c.allows(tc.Name); err != nil {
		out.Error = ClientMessage(err)
	} else if r, err := t.Run(ctx, c, json.RawMessage(tc.Arguments)); err != nil {
		out.Error = ClientMessage(err)
		if out.Error == errInternal.Error() {
			s.cfg.Logger.WarnContext(ctx, "agent: tool failed", "tool", tc.Name, "err", err)
			out.Error = "the tool " + tc.Name + " failed; try again later"
		}
	} else {
		out.Summary, out.Data = r.Summary, r.Data
		composed = ToolResult{Transactions: r.Transactions, Orders: r.Orders}
	}
	b, err := json.Marshal(out)
	if err != nil {
		b, _ = json.Marshal(toolOutput{Error: "the tool's answer could not be encoded"})
		composed = ToolResult{}
	}
	return string(b), composed
}
