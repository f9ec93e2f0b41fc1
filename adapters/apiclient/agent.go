package apiclient

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"github.com/curvekit/curvekit/orders"
)

// Job states (SPEC 3.1).
const (
	JobPending    = "pending"
	JobProcessing = "processing"
	JobCompleted  = "completed"
	JobFailed     = "failed"
	JobCancelled  = "cancelled"
)

// Message is one earlier turn given with a prompt.
type Message struct {
	Role    string `json:"role"` // user or assistant
	Content string `json:"content"`
}

// JobRequest is the body of POST /agent/job.
type JobRequest struct {
	Prompt   string    `json:"prompt"`
	ThreadID string    `json:"threadId,omitempty"`
	History  []Message `json:"history,omitempty"`
	Model    string    `json:"model,omitempty"`
}

// Submitted is the answer of POST /agent/job.
type Submitted struct {
	JobID    string `json:"jobId"`
	Status   string `json:"status"`
	ThreadID string `json:"threadId"`
}

// StatusUpdate is one step the runner reported.
type StatusUpdate struct {
	Message   string `json:"message"`
	Timestamp string `json:"timestamp"`
}

// Job is GET /agent/job/:id, Bankr's job shape (SPEC 2.4): RichData holds the unsigned
// transactions the turn composed, then the standing orders it proposed, each a request for the
// wallet owner to confirm.
type Job struct {
	JobID          string         `json:"jobId"`
	ThreadID       string         `json:"threadId"`
	Status         string         `json:"status"`
	Prompt         string         `json:"prompt"`
	CreatedAt      string         `json:"createdAt"`
	Cancellable    bool           `json:"cancellable"`
	StatusUpdates  []StatusUpdate `json:"statusUpdates"`
	StartedAt      string         `json:"startedAt,omitempty"`
	CompletedAt    string         `json:"completedAt,omitempty"`
	CancelledAt    string         `json:"cancelledAt,omitempty"`
	ProcessingTime *int64         `json:"processingTime,omitempty"`
	Response       string         `json:"response"`
	RichData       []RichItem     `json:"richData"`
	Error          string         `json:"error,omitempty"`
}

// OrderProposal is a standing order the agent proposed: Order is the body of POST /orders
// (PlaceOrder), validated for the caller's wallet; nothing is armed until it is placed.
type OrderProposal struct {
	Type        string         `json:"type"` // "order"
	Kind        string         `json:"kind"`
	Description string         `json:"description"`
	Order       orders.Request `json:"order"`
	Confirm     string         `json:"confirm"` // "POST /orders"
}

// RichItem is one item of a job's richData: an unsigned transaction (Tx, type "transaction")
// or a proposed order (Order, type "order"); exactly one is set. Its JSON is the one it holds.
type RichItem struct {
	*Tx
	Order *OrderProposal
}

// MarshalJSON writes the transaction or the order the item holds.
func (it RichItem) MarshalJSON() ([]byte, error) {
	if it.Order != nil {
		return json.Marshal(it.Order)
	}
	return json.Marshal(it.Tx)
}

// UnmarshalJSON reads an item by its "type".
func (it *RichItem) UnmarshalJSON(b []byte) error {
	var head struct {
		Type string `json:"type"`
	}
	if err := json.Unmarshal(b, &head); err != nil {
		return err
	}
	*it = RichItem{}
	if head.Type == "order" {
		it.Order = new(OrderProposal)
		return json.Unmarshal(b, it.Order)
	}
	it.Tx = new(Tx)
	return json.Unmarshal(b, it.Tx)
}

// Done reports whether the job reached a final state.
func (j Job) Done() bool {
	return j.Status == JobCompleted || j.Status == JobFailed || j.Status == JobCancelled
}

// SubmitJob submits a prompt as an agent job (API key).
func (c *Client) SubmitJob(ctx context.Context, r JobRequest) (Submitted, error) {
	var out Submitted
	if err := c.needKey(); err != nil {
		return out, err
	}
	return out, c.do(ctx, http.MethodPost, "/agent/job", nil, r, &out)
}

// Job reads a job (API key of the wallet that created it).
func (c *Client) Job(ctx context.Context, id string) (Job, error) {
	var out Job
	if err := c.needKey(); err != nil {
		return out, err
	}
	return out, c.get(ctx, "/agent/job/"+url.PathEscape(id), nil, &out)
}

// CancelJob cancels a pending job; a job past pending is an *Error with Status 409.
func (c *Client) CancelJob(ctx context.Context, id string) (Job, error) {
	var out Job
	if err := c.needKey(); err != nil {
		return out, err
	}
	return out, c.do(ctx, http.MethodPost, "/agent/job/"+url.PathEscape(id)+"/cancel", nil, nil, &out)
}

// WaitParams tune WaitJob.
type WaitParams struct {
	// Interval between reads; default 1.5s (SPEC 4.3's reference client).
	Interval time.Duration
	// Timeout gives up waiting (the job keeps running); default 5 minutes, as Bankr's clients.
	Timeout time.Duration
	// Progress, when set, is called after every read.
	Progress func(Job)
}

// WaitJob polls a job until it is completed, failed or cancelled, and returns it in that state.
// Only the wait ends at Timeout: the job itself goes on, and its id still reads it.
func (c *Client) WaitJob(ctx context.Context, id string, p WaitParams) (Job, error) {
	if p.Interval <= 0 {
		p.Interval = 1500 * time.Millisecond
	}
	if p.Timeout <= 0 {
		p.Timeout = 5 * time.Minute
	}
	deadline := time.NewTimer(p.Timeout)
	defer deadline.Stop()
	tick := time.NewTicker(p.Interval)
	defer tick.Stop()
	for {
		j, err := c.Job(ctx, id)
		if err != nil {
			return j, err
		}
		if p.Progress != nil {
			p.Progress(j)
		}
		if j.Done() {
			return j, nil
		}
		select {
		case <-ctx.Done():
			return j, ctx.Err()
		case <-deadline.C:
			return j, fmt.Errorf("job %s is still %s after %s; read it later with its id", id, j.Status, p.Timeout)
		case <-tick.C:
		}
	}
}
