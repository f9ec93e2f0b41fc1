package agent

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/curvekit/curvekit/orders"
	"github.com/curvekit/curvekit/txbuild"
)

// EventType names an event of a turn; the streamed prompt uses it as the SSE event name.
type EventType string

const (
	// EventUsage reports the tokens the turn has consumed so far, after each planner step.
	EventUsage EventType = "usage_update"
	// EventText carries the next piece of the answer; the pieces join to the job's response.
	EventText EventType = "text_delta"
	// EventTransaction carries an unsigned transaction the turn composed: a request for the
	// wallet owner to confirm, not a receipt.
	EventTransaction EventType = "transaction"
	// EventOrder carries a standing order the turn composed: the body of POST /orders for the
	// wallet owner to place, not an order placed.
	EventOrder EventType = "order"
	// EventDone ends a turn that succeeded.
	EventDone EventType = "done"
	// EventError ends a turn that failed, with a client-safe message.
	EventError EventType = "error"
)

// Event is one thing a turn emits. Exactly the field of its type is set.
type Event struct {
	Type        EventType
	Usage       *UsageUpdate
	Text        string
	Transaction *Transaction
	Order       *OrderProposal
	Done        *Done
	Error       string
}

// UsageUpdate is the payload of usage_update.
type UsageUpdate struct {
	Model string `json:"model"`
	Usage
	Steps int `json:"steps"`
}

// Done is the payload of done.
type Done struct {
	ThreadID string `json:"threadId"`
	// Transactions counts the transaction events of the turn, Orders its order events.
	Transactions int `json:"transactions"`
	Orders       int `json:"orders"`
}

// Payload returns the JSON-ready body of the event.
func (e *Event) Payload() any {
	switch e.Type {
	case EventUsage:
		return e.Usage
	case EventText:
		return TextDelta{Text: e.Text}
	case EventTransaction:
		return e.Transaction
	case EventOrder:
		return e.Order
	case EventDone:
		return e.Done
	default:
		return TurnError{Message: e.Error}
	}
}

// TextDelta is the payload of text_delta.
type TextDelta struct {
	Text string `json:"text"`
}

// TurnError is the payload of error.
type TurnError struct {
	Message string `json:"message"`
}

// Transaction is an unsigned transaction a turn composed: the richData of a job. The wallet owner
// sends Approval first when it is set, then the transaction itself. Value and Gas are wei and gas
// units as decimal strings, Data is 0x-prefixed hex.
type Transaction struct {
	Type string `json:"type" enum:"transaction"` // always "transaction"
	// Kind says what it does: buy, sell, launch or claim_fees.
	Kind        string `json:"kind"`
	Description string `json:"description"`
	TxRequest
	Approval *TxRequest `json:"approval,omitempty"`
}

// TxRequest is one unsigned transaction.
type TxRequest struct {
	ChainID uint64 `json:"chainId"`
	From    string `json:"from,omitempty"`
	To      string `json:"to"`
	Data    string `json:"data"`
	Value   string `json:"value"`
	// Gas is an estimate, absent when none was made (the wallet estimates).
	Gas string `json:"gas,omitempty"`
}

func txRequest(t *txbuild.Tx) TxRequest {
	r := TxRequest{ChainID: t.ChainID, To: t.To.Hex(), Data: fmt.Sprintf("0x%x", t.Data), Value: t.Value.Dec()}
	if t.From != ([20]byte{}) {
		r.From = t.From.Hex()
	}
	if t.Gas != 0 {
		r.Gas = strconv.FormatUint(t.Gas, 10)
	}
	return r
}

// NewTransaction describes a built plan as a transaction request.
func NewTransaction(kind, description string, plan *txbuild.Plan) Transaction {
	tx := Transaction{Type: "transaction", Kind: kind, Description: description, TxRequest: txRequest(&plan.Tx)}
	if plan.Approval != nil {
		a := txRequest(plan.Approval)
		tx.Approval = &a
	}
	return tx
}

// OrderProposal is a standing order a turn composed: Request is the body of POST /orders,
// validated for the caller's wallet (the token named by its address, a relative trigger turned
// into a price). It is a proposal for the wallet owner to place, as a Transaction is one to send:
// no tool of the agent arms an order.
type OrderProposal struct {
	Type string `json:"type" enum:"order"` // always "order"
	// Kind is the order's kind: limit, stop-loss, take-profit, trailing-stop, dca or twap.
	Kind        string         `json:"kind" enum:"limit,stop-loss,take-profit,trailing-stop,dca,twap"`
	Description string         `json:"description"`
	Request     orders.Request `json:"order"`
	// Confirm is the route that places it: "POST /orders".
	Confirm string `json:"confirm"`
}

// NewOrderProposal describes a validated order request as a proposal.
func NewOrderProposal(description string, r orders.Request) OrderProposal {
	return OrderProposal{Type: "order", Kind: r.Kind, Description: description, Request: r, Confirm: "POST /orders"}
}

// Item is one entry of a job's richData: a composed transaction or a proposed order; exactly
// one is set. Its JSON is the one it holds, told apart by "type".
type Item struct {
	*Transaction
	Order *OrderProposal
}

// MarshalJSON writes the transaction or the order the item holds.
func (it Item) MarshalJSON() ([]byte, error) {
	switch {
	case it.Order != nil:
		return json.Marshal(it.Order)
	case it.Transaction != nil:
		return json.Marshal(it.Transaction)
	}
	return nil, errors.New("agent: an empty richData item")
}

// UnmarshalJSON reads an item by its "type": "order" is an order proposal, anything else a
// transaction.
func (it *Item) UnmarshalJSON(b []byte) error {
	var head struct {
		Type string `json:"type"`
	}
	if err := json.Unmarshal(b, &head); err != nil {
		return err
	}
	*it = Item{}
	if head.Type == "order" {
		it.Order = new(OrderProposal)
		return json.Unmarshal(b, it.Order)
	}
	it.Transaction = new(Transaction)
	return json.Unmarshal(b, it.Transaction)
}
