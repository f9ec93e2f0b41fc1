package push

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"slices"
	"sync/atomic"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/curvekit/curvekit"
)

// Config configures a Service. New fills the defaults.
type Config struct {
	Store  Store
	Keys   KeyWrapper
	Client Client
	// Activity, when set, records in the account's activity log that a webhook was disabled.
	Activity Activity
	// MaxSubscriptions per account; default 20.
	MaxSubscriptions int
	// Retries are the waits before each retry of a failed attempt: the first attempt is
	// immediate. Default 5s, 5m, 30m, 2h, 5h, 10h, 10h; after the last, the delivery fails.
	Retries []time.Duration
	// FailingLimit: a subscription whose deliveries failed without a success for this long is
	// disabled and its account told; default 5 days.
	FailingLimit time.Duration
	// Overlap is how long a rotated-out secret keeps signing beside the new one; default 24h.
	Overlap time.Duration
	// Holder names this replica in delivery claims; required to send.
	Holder string
	// Claim is how long a claimed delivery is this replica's; another takes it after. It
	// outlasts the client's timeout; default 30s.
	Claim time.Duration
	// Workers is how many deliveries are in flight at once, and so the most claimed and held
	// in memory; default 32.
	Workers int
	// Poll is how often the sender looks for due deliveries when nothing woke it; default 1s.
	Poll time.Duration
	// TailPoll is how often Tail reads the account events other replicas recorded; this
	// replica's own wake it at once. Default 250ms.
	TailPoll time.Duration
	// GapWait is how long Tail waits for a missing number (a transaction that took it and has
	// not committed yet) before it gives up on it as unused; default 2s.
	GapWait time.Duration
	Now     func() time.Time
	Logger  *slog.Logger
}

// DefaultRetries is the default retry schedule.
var DefaultRetries = []time.Duration{5 * time.Second, 5 * time.Minute, 30 * time.Minute, 2 * time.Hour, 5 * time.Hour, 10 * time.Hour, 10 * time.Hour}

func (c *Config) fill() {
	if c.MaxSubscriptions == 0 {
		c.MaxSubscriptions = 20
	}
	if c.Retries == nil {
		c.Retries = DefaultRetries
	}
	if c.FailingLimit == 0 {
		c.FailingLimit = 5 * 24 * time.Hour
	}
	if c.Overlap == 0 {
		c.Overlap = 24 * time.Hour
	}
	if c.Claim == 0 {
		c.Claim = 30 * time.Second
	}
	if c.Workers == 0 {
		c.Workers = 32
	}
	if c.Poll == 0 {
		c.Poll = time.Second
	}
	if c.TailPoll == 0 {
		c.TailPoll = 250 * time.Millisecond
	}
	if c.GapWait == 0 {
		c.GapWait = 2 * time.Second
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
}

func (c *Config) validate() error {
	switch {
	case c.Store == nil || c.Keys == nil || c.Client == nil:
		return errors.New("push: Store, Keys and Client are required")
	case c.MaxSubscriptions < 0 || c.Workers < 0 || c.Claim < 0 || c.Poll < 0 || c.TailPoll < 0 || c.GapWait < 0:
		return errors.New("push: negative limit")
	case slices.ContainsFunc(c.Retries, func(d time.Duration) bool { return d < 0 }):
		return errors.New("push: negative retry wait")
	}
	return nil
}

// Service manages subscriptions, records what sources publish, and sends deliveries (Run).
type Service struct {
	cfg  Config
	wake chan struct{}
	tail chan struct{} // this replica recorded account events
	pos  atomic.Int64  // Tail's position: every event up to it was handed on (or given up)
}

var _ Publisher = (*Service)(nil)

// New returns a Service.
func New(cfg Config) (*Service, error) {
	cfg.fill()
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	return &Service{cfg: cfg, wake: make(chan struct{}, 1), tail: make(chan struct{}, 1)}, nil
}

// Limits of a subscription.
const (
	MaxURL    = 2048
	MaxTokens = 100
)

// Publish records events (see Store.Record) and wakes the sender and the account streams.
func (s *Service) Publish(ctx context.Context, events ...Event) error {
	if len(events) == 0 {
		return nil
	}
	rec, err := s.cfg.Store.Record(ctx, RecordParams{Events: events, Now: s.cfg.Now().UTC()})
	if err != nil {
		return fmt.Errorf("push: record events: %w", err)
	}
	s.recorded(&rec)
	return nil
}

// Relay records the events of a source's log between the relay's position from and to, and
// moves the position there in the same transaction: a relay that stops anywhere resumes from
// the last position it committed, and nothing between is lost or recorded twice. A position
// that is no longer from (another relay moved it) is curvekit.ErrConflict and records nothing.
func (s *Service) Relay(ctx context.Context, source, from, to string, events ...Event) error {
	rec, err := s.cfg.Store.Record(ctx, RecordParams{Events: events, Now: s.cfg.Now().UTC(), Relay: &RelayMove{Source: source, From: from, To: to}})
	if err != nil {
		if errors.Is(err, curvekit.ErrConflict) {
			return err
		}
		return fmt.Errorf("push: relay %s: %w", source, err)
	}
	s.recorded(&rec)
	return nil
}

// RelayPosition is how far the relay of source has recorded its log; ok is false before it
// first moved.
func (s *Service) RelayPosition(ctx context.Context, source string) (string, bool, error) {
	return s.cfg.Store.RelayPosition(ctx, source)
}

// Committed tells the service that a source's store committed events with its own change (the
// outbox: a wallet's transaction record, a job's end): the sender and the account streams look
// for them at once rather than at their next poll.
func (s *Service) Committed() {
	s.Wake()
	select {
	case s.tail <- struct{}{}:
	default:
	}
}

// recorded wakes what the events Record stored concern.
func (s *Service) recorded(rec *Recorded) {
	if rec.Deliveries > 0 {
		s.Wake()
	}
	if slices.ContainsFunc(rec.Events, func(e Event) bool { return e.Account != "" }) {
		select {
		case s.tail <- struct{}{}:
		default:
		}
	}
}

// Wake tells the sender that deliveries may be due.
func (s *Service) Wake() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// CreateParams describe a new subscription.
type CreateParams struct {
	AccountID string
	URL       string
	Types     []Type
	Tokens    []common.Address
	MinSize   string
	// Enabled defaults to true.
	Enabled *bool
}

// Create stores a subscription and returns it with its signing secret, which is shown this once.
func (s *Service) Create(ctx context.Context, p CreateParams) (Subscription, string, error) {
	if p.AccountID == "" {
		return Subscription{}, "", fmt.Errorf("%w: no account", curvekit.ErrUnauthorized)
	}
	now := s.cfg.Now().UTC()
	sub := Subscription{ID: "wh_" + randomHex(12), AccountID: p.AccountID, URL: p.URL, Types: p.Types, Tokens: p.Tokens, MinSize: p.MinSize,
		Enabled: p.Enabled == nil || *p.Enabled, CreatedAt: now, UpdatedAt: now}
	if err := s.check(ctx, &sub); err != nil {
		return Subscription{}, "", err
	}
	secret := NewSecret()
	var err error
	if sub.Secret, err = seal(ctx, s.cfg.Keys, sub.ID, secret); err != nil {
		return Subscription{}, "", err
	}
	if err := s.cfg.Store.CreateSubscription(ctx, sub, s.cfg.MaxSubscriptions); err != nil {
		if errors.Is(err, curvekit.ErrLimited) {
			return Subscription{}, "", fmt.Errorf("%w: an account has at most %d webhooks", curvekit.ErrLimited, s.cfg.MaxSubscriptions)
		}
		return Subscription{}, "", err
	}
	return sub, secret, nil
}

// MaxSizeDecimals is the most decimals a subscription's minimum trade size may have: ETH's, the
// finest of the pairing assets trades are in. A trade in an asset with fewer decimals is held to
// the minimum rounded up to them.
const MaxSizeDecimals = 18

// check validates and normalizes a subscription's fields, reporting every problem at once.
func (s *Service) check(ctx context.Context, sub *Subscription) error {
	var probs curvekit.Problems
	u, err := url.Parse(sub.URL)
	switch {
	case sub.URL == "":
		probs = append(probs, "url is required")
	case len(sub.URL) > MaxURL:
		probs = append(probs, fmt.Sprintf("url must be at most %d bytes", MaxURL))
	case err != nil || !u.IsAbs() || u.Host == "" || u.Opaque != "":
		probs = append(probs, "url must be an absolute https URL")
	case u.User != nil:
		probs = append(probs, "url must not carry credentials")
	case u.Fragment != "":
		probs = append(probs, "url must not have a fragment")
	default:
		if err := s.cfg.Client.Check(ctx, sub.URL); err != nil {
			if !errors.Is(err, curvekit.ErrInvalid) {
				return err
			}
			probs = append(probs, "url: "+clientMessage(err))
		}
	}
	if len(sub.Types) == 0 {
		probs = append(probs, "types must name at least one event type")
	}
	var types []Type
	for _, t := range sub.Types {
		if !Known(t) {
			probs = append(probs, fmt.Sprintf("types: unknown event type %q", string(t)))
		} else if !slices.Contains(types, t) {
			types = append(types, t)
		}
	}
	sub.Types = types
	if len(sub.Tokens) > MaxTokens {
		probs = append(probs, fmt.Sprintf("tokens must list at most %d addresses", MaxTokens))
	}
	slices.SortFunc(sub.Tokens, func(a, b common.Address) int { return a.Cmp(b) })
	sub.Tokens = slices.Compact(sub.Tokens)
	if sub.MinSize != "" {
		if v, err := curvekit.ParseAmount(sub.MinSize, MaxSizeDecimals); err != nil {
			probs = append(probs, fmt.Sprintf("minTradeSize must be a decimal string of whole units of the pairing asset, with at most %d decimals", MaxSizeDecimals))
		} else {
			sub.MinSize = curvekit.FormatAmount(&v, MaxSizeDecimals) // "0.50" is kept as "0.5"
		}
	}
	if len(probs) > 0 {
		return probs
	}
	return nil
}

// clientMessage is err's text after its sentinel's.
func clientMessage(err error) string {
	msg := err.Error()
	if rest, ok := cutPrefix(msg, curvekit.ErrInvalid.Error()+": "); ok {
		return rest
	}
	return msg
}

func cutPrefix(s, p string) (string, bool) {
	if len(s) >= len(p) && s[:len(p)] == p {
		return s[len(p):], true
	}
	return s, false
}

// Subscription returns one of the account's subscriptions.
func (s *Service) Subscription(ctx context.Context, accountID, id string) (Subscription, error) {
	return s.cfg.Store.Subscription(ctx, accountID, id)
}

// Subscriptions lists the account's subscriptions, oldest first.
func (s *Service) Subscriptions(ctx context.Context, accountID string) ([]Subscription, error) {
	return s.cfg.Store.Subscriptions(ctx, accountID)
}

// UpdateParams change a subscription: each field set replaces the stored one.
type UpdateParams struct {
	AccountID, ID string
	URL           *string
	Types         *[]Type
	Tokens        *[]common.Address
	MinSize       *string
	Enabled       *bool
}

// Update changes a subscription. Enabling one clears why it was disabled and its failures.
func (s *Service) Update(ctx context.Context, p UpdateParams) (Subscription, error) {
	sub, err := s.cfg.Store.Subscription(ctx, p.AccountID, p.ID)
	if err != nil {
		return Subscription{}, err
	}
	if p.URL != nil {
		sub.URL = *p.URL
	}
	if p.Types != nil {
		sub.Types = *p.Types
	}
	if p.Tokens != nil {
		sub.Tokens = *p.Tokens
	}
	if p.MinSize != nil {
		sub.MinSize = *p.MinSize
	}
	if p.Enabled != nil {
		if *p.Enabled && !sub.Enabled {
			sub.FailingSince, sub.DisabledReason = time.Time{}, ""
		}
		sub.Enabled = *p.Enabled
	}
	if err := s.check(ctx, &sub); err != nil {
		return Subscription{}, err
	}
	sub.UpdatedAt = s.cfg.Now().UTC()
	return sub, s.cfg.Store.UpdateSubscription(ctx, sub)
}

// Delete removes a subscription and its deliveries.
func (s *Service) Delete(ctx context.Context, accountID, id string) error {
	return s.cfg.Store.DeleteSubscription(ctx, accountID, id)
}

// Rotate gives a subscription a new signing secret, returned this once; the old one keeps
// signing beside it for Config.Overlap (a rotation during an overlap ends the older one).
func (s *Service) Rotate(ctx context.Context, accountID, id string) (Subscription, string, error) {
	sub, err := s.cfg.Store.Subscription(ctx, accountID, id)
	if err != nil {
		return Subscription{}, "", err
	}
	secret := NewSecret()
	sealed, err := seal(ctx, s.cfg.Keys, sub.ID, secret)
	if err != nil {
		return Subscription{}, "", err
	}
	now := s.cfg.Now().UTC()
	sub.Previous, sub.PreviousUntil, sub.Secret, sub.UpdatedAt = sub.Secret, now.Add(s.cfg.Overlap), sealed, now
	if err := s.cfg.Store.UpdateSubscription(ctx, sub); err != nil {
		return Subscription{}, "", err
	}
	return sub, secret, nil
}

// Test sends the subscription a ping event now, whatever its types, and returns its delivery;
// the outcome appears in the delivery log.
func (s *Service) Test(ctx context.Context, accountID, id string) (Delivery, error) {
	now := s.cfg.Now().UTC()
	data, _ := json.Marshal(map[string]string{"webhook": id})
	d, err := s.cfg.Store.Enqueue(ctx, accountID, id, Event{ID: "evt_ping_" + randomHex(12), Type: Ping, Time: now, Data: data}, now)
	if err == nil {
		s.Wake()
	}
	return d, err
}

// MaxDeliveries bounds a page of the delivery log; MaxReplay how many deliveries one replay
// makes pending again.
const (
	MaxDeliveries = 100
	MaxReplay     = 10_000
)

// Deliveries pages a subscription's deliveries newest first.
func (s *Service) Deliveries(ctx context.Context, q DeliveryQuery) (DeliveryPage, error) {
	if _, err := s.cfg.Store.Subscription(ctx, q.AccountID, q.SubscriptionID); err != nil {
		return DeliveryPage{}, err
	}
	q.Limit = min(max(q.Limit, 1), MaxDeliveries)
	return s.cfg.Store.Deliveries(ctx, q)
}

// ReplaySkew is how far past the server's clock a replay's Since may lie (a client's clock runs a
// little ahead); a later one, or one before 1970, is curvekit.ErrInvalid.
const ReplaySkew = 5 * time.Minute

// Replay delivers again one delivery (p.DeliveryID) or every delivery created since p.Since,
// with the same webhook-id and a fresh retry schedule. A Since before 1970 or more than
// ReplaySkew ahead of the clock is curvekit.ErrInvalid.
func (s *Service) Replay(ctx context.Context, p ReplayParams) (int, error) {
	now := s.cfg.Now().UTC()
	if p.DeliveryID == "" && (p.Since.Before(time.Unix(0, 0)) || p.Since.After(now.Add(ReplaySkew))) {
		return 0, fmt.Errorf("%w: since must be Unix seconds between 0 and now", curvekit.ErrInvalid)
	}
	if _, err := s.cfg.Store.Subscription(ctx, p.AccountID, p.SubscriptionID); err != nil {
		return 0, err
	}
	p.Now, p.Limit = now, MaxReplay
	n, err := s.cfg.Store.Replay(ctx, p)
	if n > 0 {
		s.Wake()
	}
	return n, err
}

// LastSeq is the number of the newest event recorded.
func (s *Service) LastSeq(ctx context.Context) (int64, error) { return s.cfg.Store.LastSeq(ctx) }

// Position is where Tail stands: every event numbered up to it was handed to its sink (or given
// up as a number no event took); 0 before Tail started.
func (s *Service) Position() int64 { return s.pos.Load() }

// tailBatch is how many events Tail reads at once.
const tailBatch = 500

// Tail hands sink every account event recorded from now on, by any replica, in the order of
// their numbers, until ctx ends: this replica's at once, other replicas' within TailPoll. Each
// replica runs one; its account streams are fed from it.
//
// Numbers are taken when an event is inserted and may commit out of order: Tail stops at a
// missing number and waits up to GapWait for it, then gives it up (a number no event took: a
// rolled-back or refused insert). An event whose transaction stayed open longer than that is
// not handed on live; the account's streams replay it on their next connection.
func (s *Service) Tail(ctx context.Context, sink func(*Event)) error {
	last, err := s.cfg.Store.LastSeq(ctx)
	for err != nil {
		if ctx.Err() != nil {
			return nil
		}
		s.cfg.Logger.Warn("push: tail: last event", "err", err)
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(s.cfg.TailPoll):
		}
		last, err = s.cfg.Store.LastSeq(ctx)
	}
	s.pos.Store(last)
	var gapSince time.Time // when Tail first saw the number after last missing
	t := time.NewTicker(s.cfg.TailPoll)
	defer t.Stop()
	for ctx.Err() == nil {
		evs, err := s.cfg.Store.EventsSince(ctx, last, tailBatch)
		if err != nil && ctx.Err() == nil {
			s.cfg.Logger.Warn("push: tail events", "err", err)
		}
		gap := false
		for i := range evs {
			e := &evs[i]
			if e.Seq != last+1 {
				now := time.Now()
				if gapSince.IsZero() {
					gapSince = now
				}
				if now.Sub(gapSince) < s.cfg.GapWait {
					gap = true
					break
				}
			}
			gapSince = time.Time{}
			if e.Account != "" {
				sink(e)
			}
			last = e.Seq
			s.pos.Store(last)
		}
		if !gap && len(evs) == tailBatch {
			continue
		}
		wait := t.C
		var soon <-chan time.Time
		if gap {
			soon = time.After(min(s.cfg.GapWait/10, s.cfg.TailPoll)) // look again soon: the number is likely committing
		}
		select {
		case <-ctx.Done():
		case <-s.tail:
		case <-wait:
		case <-soon:
		}
	}
	return nil
}

// Events returns the account's events after seq, oldest first (the account stream's replay).
func (s *Service) Events(ctx context.Context, accountID string, after int64, limit int) ([]Event, error) {
	return s.cfg.Store.Events(ctx, accountID, after, limit)
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b) // never fails (crypto/rand)
	return hex.EncodeToString(b)
}
