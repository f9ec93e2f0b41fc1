package account

import (
	"context"
	"time"

	"github.com/curvekit/curvekit/push"
)

// Store keeps each account's settings document and its activity log. Each method is one atomic
// operation, safe under concurrency across processes sharing the database.
type Store interface {
	// Settings returns the account's stored document, or curvekit.ErrNotFound when the account
	// never changed its settings (the defaults apply).
	Settings(ctx context.Context, accountID string) (Record, error)
	// SaveSettings stores p.Document as version p.Version when the stored version is
	// p.Version-1 (none stored counts as version 0), and appends p.Activity and records
	// p.Events (with their deliveries, in the push store of the same database), in one
	// transaction; otherwise it changes and records nothing and returns curvekit.ErrConflict
	// (another change came first).
	SaveSettings(ctx context.Context, p SaveParams) error
	// AppendActivity appends an entry to the account's activity log.
	AppendActivity(ctx context.Context, a Activity) error
	// Activity returns a page of the account's log, newest first (by At, then ID). A cursor the
	// store did not return is curvekit.ErrInvalid.
	Activity(ctx context.Context, q ActivityQuery) (ActivityPage, error)
}

// Record is a stored settings document.
type Record struct {
	AccountID string
	// Document is the settings as JSON (Settings without version and time).
	Document  []byte
	Version   int64
	UpdatedAt time.Time
}

// SaveParams stores a new version of an account's settings with the log entry that says why.
type SaveParams struct {
	AccountID string
	Document  []byte
	Version   int64
	At        time.Time
	Activity  Activity
	// Events are the change's events (settings.changed), recorded only if the save commits:
	// push's outbox. Their ids are stable, so a change recorded once is never recorded twice.
	Events []push.Event
}

// ActivityKind says what an activity entry records.
type ActivityKind string

const (
	// KindSettings is a change of the settings.
	KindSettings ActivityKind = "settings"
	// KindRefusal is a transaction the guard refused.
	KindRefusal ActivityKind = "refusal"
	// KindWebhook is a webhook the server disabled (its receiver answered 410, or its deliveries
	// failed for days).
	KindWebhook ActivityKind = "webhook"
)

// Activity is one entry of an account's activity log.
type Activity struct {
	// ID is random, chosen by the service.
	ID        string
	AccountID string
	At        time.Time
	Kind      ActivityKind
	// Code is the refusal's code; empty for a change.
	Code string
	// Message says what happened, for a person.
	Message string
	// Actor is who did it: "session", or "key <id>" for an API key.
	Actor string
	// Changes are the paths the change touched ("wallet.limits.ETH.daily"); empty for a refusal.
	Changes []string
}

// ActivityQuery asks for a page of an account's log.
type ActivityQuery struct {
	AccountID string
	// Cursor is the Next of the previous page; empty for the first.
	Cursor string
	Limit  int
}

// ActivityPage is a page of the log; Next is empty after the last.
type ActivityPage struct {
	Entries []Activity
	Next    string
}
