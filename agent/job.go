package agent

import (
	"time"

	"github.com/ethereum/go-ethereum/common"
)

// Status is where a job is in its life.
//
//	pending ──claim──► processing ──► completed
//	   │                  │  ╰──────► failed
//	   │                  ╰─lease lost─► pending (failed once the attempts are used up)
//	   ╰──cancel──► cancelled
//
// Only a pending job can be cancelled: once a runner holds it, the turn may already have composed
// its answer.
type Status string

const (
	StatusPending    Status = "pending"
	StatusProcessing Status = "processing"
	StatusCompleted  Status = "completed"
	StatusFailed     Status = "failed"
	StatusCancelled  Status = "cancelled"
)

// Valid reports whether s is one of the five states.
func (s Status) Valid() bool {
	switch s {
	case StatusPending, StatusProcessing, StatusCompleted, StatusFailed, StatusCancelled:
		return true
	}
	return false
}

// Terminal reports whether s is final: completed, failed or cancelled.
func (s Status) Terminal() bool {
	return s == StatusCompleted || s == StatusFailed || s == StatusCancelled
}

// CanMove reports whether a job may go from s to next. Every JobStore operation makes one of
// these moves and no other.
func (s Status) CanMove(next Status) bool {
	switch s {
	case StatusPending:
		return next == StatusProcessing || next == StatusCancelled
	case StatusProcessing:
		// pending again when the lease was lost; failed by the runner or by the rescuer.
		return next == StatusCompleted || next == StatusFailed || next == StatusPending
	}
	return false
}

// StatusUpdate is a progress note a runner adds while it works on a job.
type StatusUpdate struct {
	Message   string    `json:"message"`
	Timestamp time.Time `json:"timestamp"`
}

// Job is one prompt run asynchronously for a wallet. Times are UTC with millisecond precision;
// a zero time is unset.
type Job struct {
	ID       string
	ThreadID string
	// Wallet created the job and alone may read or cancel it.
	Wallet common.Address
	// ReadOnly jobs were submitted with a read-only API key: their turn cannot change memory.
	ReadOnly bool
	Status   Status
	Prompt   string
	History  []Message
	Model    string

	CreatedAt   time.Time
	StartedAt   time.Time // first claim
	CompletedAt time.Time // completed or failed
	CancelledAt time.Time

	Response string
	// RichData is what the turn composed for the wallet owner to confirm: its transactions, then
	// its order proposals.
	RichData      []Item
	Error         string // set only when failed: a client-safe message
	StatusUpdates []StatusUpdate

	// Attempts counts the claims so far.
	Attempts int
	// Runner holds the lease until LeaseExpiresAt while the job is processing.
	Runner         string
	LeaseExpiresAt time.Time
}

// Cancellable reports whether the job can still be cancelled (only while pending).
func (j *Job) Cancellable() bool { return j.Status == StatusPending }

// ProcessingTime is how long the job ran, from its first claim to its end; 0 before the end.
func (j *Job) ProcessingTime() time.Duration {
	if j.StartedAt.IsZero() || j.CompletedAt.IsZero() {
		return 0
	}
	return j.CompletedAt.Sub(j.StartedAt)
}

// Lease names the holder of a processing job: the runner and the attempt it claimed. Operations
// fenced by a lease succeed only while the job is still processing under that very claim, so a
// runner whose lease was rescued and claimed again (even by itself) cannot finish it twice.
type Lease struct {
	JobID   string
	Runner  string
	Attempt int
}
