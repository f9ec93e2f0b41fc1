package agent

import (
	"context"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/curvekit/curvekit/push"
)

// JobStore persists jobs. Each method is one atomic operation and moves a job only along
// Status.CanMove. Times are passed in, never read from a clock, so callers own time.
// Every method is safe for concurrent use, including from several processes sharing one database.
// agenttest.Run is the conformance suite.
type JobStore interface {
	// InsertJob stores a new pending job. It fails with curvekit.ErrLimited when the wallet
	// already has MaxPending pending jobs (counted atomically with the insert) and with
	// curvekit.ErrConflict when the id exists.
	InsertJob(ctx context.Context, p *InsertJobParams) (Job, error)
	// GetJob returns a job by id, or curvekit.ErrNotFound. It is one read by primary key:
	// clients poll it every couple of seconds.
	GetJob(ctx context.Context, id string) (Job, error)
	// ClaimJob moves the oldest pending job to processing for p.Runner, increments its
	// attempts, sets StartedAt on the first claim and the lease to expire at p.LeaseUntil. It
	// returns curvekit.ErrNotFound when no job is pending. Two concurrent claims never get the
	// same job.
	ClaimJob(ctx context.Context, p *ClaimJobParams) (Job, error)
	// Heartbeat extends a held lease to until. It fails with curvekit.ErrConflict when the lease
	// is no longer held (rescued, or the job ended).
	Heartbeat(ctx context.Context, lease Lease, until time.Time) error
	// AddStatusUpdates appends progress notes, in order, to a job held under lease, in one
	// step; curvekit.ErrConflict when the lease is no longer held.
	AddStatusUpdates(ctx context.Context, lease Lease, ups []StatusUpdate) error
	// CompleteJob moves a job held under p.Lease to completed with its answer and its last
	// status updates and, when p.Turn is set, appends that turn to the job's thread (the job
	// wallet's thread of the job's ThreadID), atomically; curvekit.ErrConflict when the lease is
	// no longer held (nothing is appended then). The thread never refuses the turn.
	CompleteJob(ctx context.Context, p *CompleteJobParams) (Job, error)
	// FailJob moves a job held under p.Lease to failed with its last status updates;
	// curvekit.ErrConflict when the lease is no longer held.
	FailJob(ctx context.Context, p *FailJobParams) (Job, error)
	// CancelJob moves a pending job of p.Wallet to cancelled. It fails with
	// curvekit.ErrNotFound for an unknown id, curvekit.ErrForbidden for another wallet's job and
	// curvekit.ErrConflict when the job is no longer pending; in every failure nothing changes.
	CancelJob(ctx context.Context, p *CancelJobParams) (Job, error)
	// RescueExpired takes back every processing job whose lease expired before p.Now: a job
	// that has had p.MaxAttempts claims fails with p.Error, any other returns to pending with no
	// holder. It returns how many jobs it moved.
	RescueExpired(ctx context.Context, p *RescueParams) (int, error)
}

// InsertJobParams is a new job. ID, ThreadID, Wallet, Prompt and CreatedAt are required.
type InsertJobParams struct {
	ID string
	// ThreadID names a thread of Wallet: threads belong to wallets, so the thread the job reads
	// and joins is settled here, when the job is created, and nothing another wallet does can
	// make it fail later.
	ThreadID string
	Wallet   common.Address
	// ReadOnly is kept with the job: its turn runs with the caller's restrictions.
	ReadOnly  bool
	Prompt    string
	History   []Message
	Model     string
	CreatedAt time.Time
	// MaxPending is the most pending jobs the wallet may have, this one included; 0 is no cap.
	MaxPending int
}

// ClaimJobParams asks for the oldest pending job.
type ClaimJobParams struct {
	Runner     string
	Now        time.Time
	LeaseUntil time.Time
}

// CompleteJobParams ends a job with its answer.
type CompleteJobParams struct {
	Lease    Lease
	Response string
	RichData []Item
	At       time.Time
	// Turn, when set, is appended to the job's thread (the job's wallet's) in the same
	// atomic step: a client that sees the job completed and prompts again on the thread sees
	// the turn, and no crash can leave one without the other.
	Turn *Turn
	// StatusUpdates are appended to the job's status updates in the same step: the notes the
	// runner had not written yet.
	StatusUpdates []StatusUpdate
	// Events, when set, is called with the job as the step leaves it, inside the step; the
	// store records what it returns (as push.Store.Record records events) in the same
	// transaction, so the end of a job is never committed without its events.
	Events func(*Job) []push.Event
}

// FailJobParams ends a job with a client-safe error.
type FailJobParams struct {
	Lease Lease
	Error string
	At    time.Time
	// StatusUpdates are appended as in CompleteJobParams.
	StatusUpdates []StatusUpdate
	// Events are recorded as in CompleteJobParams.
	Events func(*Job) []push.Event
}

// CancelJobParams cancels a pending job on behalf of its wallet.
type CancelJobParams struct {
	ID     string
	Wallet common.Address
	At     time.Time
}

// RescueParams takes back expired leases.
type RescueParams struct {
	Now         time.Time
	MaxAttempts int
	// Error is the failure message of a job out of attempts.
	Error string
	// Events, when set, is called with each job the rescue fails, as it fails it; the store
	// records what it returns in the same transaction (see CompleteJobParams.Events).
	Events func(*Job) []push.Event
}
