package push

import (
	"context"
	"time"
)

// Store keeps subscriptions, events and their deliveries. Each method is one atomic step.
// Methods that take an account refuse another account's subscription with curvekit.ErrNotFound,
// as if it did not exist.
type Store interface {
	// CreateSubscription stores s unless its account already has max subscriptions
	// (curvekit.ErrLimited).
	CreateSubscription(ctx context.Context, s Subscription, max int) error
	// Subscription returns the account's subscription id, or curvekit.ErrNotFound.
	Subscription(ctx context.Context, accountID, id string) (Subscription, error)
	// Subscriptions returns the account's subscriptions, oldest first.
	Subscriptions(ctx context.Context, accountID string) ([]Subscription, error)
	// UpdateSubscription replaces the stored fields of s (matched by ID and AccountID), or
	// curvekit.ErrNotFound. Re-enabling clears FailingSince and DisabledReason when s does.
	UpdateSubscription(ctx context.Context, s Subscription) error
	// DeleteSubscription removes it with its deliveries, or curvekit.ErrNotFound.
	DeleteSubscription(ctx context.Context, accountID, id string) error

	// Record stores the events whose ids it has not stored before and, in the same
	// transaction, a pending delivery due at p.Now for every enabled subscription that
	// matches (Subscription.Matches). An event for a wallet no account holds, or a market
	// event no subscription matches, is not stored. It returns the events stored, with Seq
	// set, and how many deliveries it made. Seq grows with each event stored; transactions
	// that run at once may commit their numbers out of order, and a number may go unused.
	//
	// With p.Relay set, Record also moves the relay's position from Relay.From to Relay.To in
	// the same transaction, and records nothing (curvekit.ErrConflict) when the stored
	// position is not Relay.From ("" for a relay that has none yet).
	Record(ctx context.Context, p RecordParams) (Recorded, error)
	// RelayPosition returns how far the relay source turned its log into events: the To of
	// the last Record that moved it; ok is false for a relay that has no position yet.
	RelayPosition(ctx context.Context, source string) (pos string, ok bool, err error)
	// Enqueue makes a pending delivery of e (stored, or stored now) to one subscription of the
	// account, due at now, whatever its types: the ping of POST /webhooks/:id/test.
	Enqueue(ctx context.Context, accountID, subscriptionID string, e Event, now time.Time) (Delivery, error)
	// ClaimDeliveries claims up to p.Limit pending deliveries due at p.Now whose claim (if any)
	// lapsed, of enabled subscriptions, for p.Holder until p.Until, oldest due first. Two
	// callers never get the same delivery while its claim lasts.
	ClaimDeliveries(ctx context.Context, p ClaimParams) ([]Claimed, error)
	// FinishAttempt records one attempt of a delivery p.Holder claimed and moves the delivery
	// on: pending again at p.NextAt, or succeeded, or failed. It also records on the
	// subscription that it fails (FailingSince, kept from the first failure) or not, and
	// disables it when p.Disable is set (its pending deliveries fail with it). A delivery
	// replayed while the attempt was in flight (after p.Attempt.At) stays pending as the replay
	// left it, the attempt logged. A claim that lapsed and passed to another holder is
	// curvekit.ErrConflict.
	FinishAttempt(ctx context.Context, p FinishParams) error
	// Deliveries pages a subscription's deliveries newest first, each with its attempts.
	Deliveries(ctx context.Context, q DeliveryQuery) (DeliveryPage, error)
	// Replay makes deliveries of the subscription pending again, due at p.Now, with a fresh
	// retry schedule: the one p.DeliveryID names (curvekit.ErrNotFound if it has none of that
	// id), or every one created at or after p.Since. It returns how many, at most p.Limit.
	Replay(ctx context.Context, p ReplayParams) (int, error)
	// Events returns an account's events with Seq > after, oldest first, at most limit.
	Events(ctx context.Context, accountID string, after int64, limit int) ([]Event, error)
	// LastSeq is the Seq of the newest event (0 when none).
	LastSeq(ctx context.Context) (int64, error)
	// EventsSince returns the events, market and account, with Seq > after, oldest first, at
	// most limit: what Tail follows.
	EventsSince(ctx context.Context, after int64, limit int) ([]Event, error)
}

// RecordParams are the events of one commit.
type RecordParams struct {
	Events []Event
	Now    time.Time
	// Relay, when set, moves a relay's position with the events (see Store.Record).
	Relay *RelayMove
}

// RelayMove moves a relay's position: the events recorded are those of its source's log
// between From and To. Positions are the source's own text (the market's is its cursor).
type RelayMove struct {
	Source   string
	From, To string
}

// Recorded is what Record stored.
type Recorded struct {
	Events     []Event
	Deliveries int
}

// DeliveryState is where a delivery stands.
type DeliveryState string

const (
	DeliveryPending   DeliveryState = "pending"
	DeliverySucceeded DeliveryState = "succeeded"
	DeliveryFailed    DeliveryState = "failed"
)

// Delivery is one event on its way to one subscription.
type Delivery struct {
	ID             string
	SubscriptionID string
	EventID        string
	EventType      Type
	State          DeliveryState
	// Tries counts the attempts since it was made or last replayed (the retry schedule's
	// position); Attempts every attempt ever made.
	Tries int
	// Count is how many attempts were made; Attempts lists them (in the delivery log only).
	Count     int
	Attempts  []Attempt
	NextAt    time.Time
	CreatedAt time.Time
}

// Attempt is one try at a delivery.
type Attempt struct {
	N  int
	At time.Time
	// Status is the receiver's HTTP status; 0 when none came (refused, timed out).
	Status  int
	Latency time.Duration
	// Response is the first bytes of the answer (at most MaxResponseLog); Error why no
	// answer came or why it was not a success.
	Response string
	Error    string
}

// MaxResponseLog is how much of an answer the delivery log keeps.
const MaxResponseLog = 1024

// ClaimParams asks for due deliveries.
type ClaimParams struct {
	Holder string
	Now    time.Time
	Until  time.Time
	Limit  int
}

// Claimed is a claimed delivery with what sending it needs.
type Claimed struct {
	Delivery     Delivery
	Event        Event
	Subscription Subscription
}

// FinishParams records an attempt's outcome.
type FinishParams struct {
	DeliveryID string
	Holder     string
	Attempt    Attempt
	// State is the delivery's next state; NextAt when it is pending.
	State  DeliveryState
	NextAt time.Time
	// Failed: the attempt failed (the subscription is failing since its first failure);
	// otherwise it succeeded and the subscription no longer fails.
	Failed bool
	// Disable disables the subscription with this reason.
	Disable string
	// Events are recorded (as Record records them) in the same transaction, only if the
	// attempt is: the disabled subscription's WebhookDisabled.
	Events []Event
}

// DeliveryQuery pages a subscription's deliveries.
type DeliveryQuery struct {
	AccountID      string
	SubscriptionID string
	// Cursor is the Next of the previous page; empty for the first.
	Cursor string
	Limit  int
}

// DeliveryPage is a page of deliveries, newest first.
type DeliveryPage struct {
	Deliveries []Delivery
	// Next is the cursor of the following page; empty when this is the last.
	Next string
}

// ReplayParams asks to deliver again.
type ReplayParams struct {
	AccountID      string
	SubscriptionID string
	// DeliveryID names one delivery; otherwise every delivery created at or after Since.
	DeliveryID string
	Since      time.Time
	Now        time.Time
	Limit      int
}
