package bunstore

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/uptrace/bun"

	"github.com/curvekit/curvekit"
	"github.com/curvekit/curvekit/push"
)

// Push is the push.Store on bun, a view on a DB. It is safe for concurrent use.
type Push struct {
	db      *bun.DB
	dialect dialectKind
}

var _ push.Store = (*Push)(nil)

// Push returns the push store on d.
func (d *DB) Push() *Push { return &Push{db: d.bun, dialect: d.dialect} }

type pushSubscriptionRow struct {
	bun.BaseModel `bun:"table:push_subscriptions"`

	ID             string `bun:"id,pk"`
	AccountID      string `bun:"account_id"`
	URL            string `bun:"url"`
	Types          string `bun:"types"`
	Tokens         string `bun:"tokens"`
	MinSize        string `bun:"min_size"`
	Enabled        bool   `bun:"enabled"`
	SecretVersion  int64  `bun:"secret_version"`
	SecretKey      []byte `bun:"secret_key"`
	Secret         []byte `bun:"secret"`
	PrevVersion    int64  `bun:"prev_version"`
	PrevKey        []byte `bun:"prev_key,nullzero"`
	PrevSecret     []byte `bun:"prev_secret,nullzero"`
	PrevUntil      int64  `bun:"prev_until"`
	FailingSince   int64  `bun:"failing_since"`
	DisabledReason string `bun:"disabled_reason"`
	CreatedAt      int64  `bun:"created_at"`
	UpdatedAt      int64  `bun:"updated_at"`
}

func pushSubscriptionRowOf(s *push.Subscription) (pushSubscriptionRow, error) {
	types, err := json.Marshal(s.Types)
	if err != nil {
		return pushSubscriptionRow{}, err
	}
	tokens := make([]string, len(s.Tokens))
	for i, t := range s.Tokens {
		tokens[i] = t.Hex()
	}
	tok, err := json.Marshal(tokens)
	if err != nil {
		return pushSubscriptionRow{}, err
	}
	return pushSubscriptionRow{
		ID: s.ID, AccountID: s.AccountID, URL: s.URL, Types: string(types), Tokens: string(tok), MinSize: s.MinSize, Enabled: s.Enabled,
		SecretVersion: int64(s.Secret.Version), SecretKey: s.Secret.DataKey, Secret: s.Secret.Ciphertext,
		PrevVersion: int64(s.Previous.Version), PrevKey: s.Previous.DataKey, PrevSecret: s.Previous.Ciphertext, PrevUntil: nanos(s.PreviousUntil),
		FailingSince: nanos(s.FailingSince), DisabledReason: s.DisabledReason, CreatedAt: s.CreatedAt.UnixNano(), UpdatedAt: s.UpdatedAt.UnixNano(),
	}, nil
}

func (r *pushSubscriptionRow) subscription() (push.Subscription, error) {
	s := push.Subscription{
		ID: r.ID, AccountID: r.AccountID, URL: r.URL, MinSize: r.MinSize, Enabled: r.Enabled,
		Secret:   push.Sealed{Version: uint32(r.SecretVersion), DataKey: r.SecretKey, Ciphertext: r.Secret},
		Previous: push.Sealed{Version: uint32(r.PrevVersion), DataKey: r.PrevKey, Ciphertext: r.PrevSecret}, PreviousUntil: fromNanos(r.PrevUntil),
		FailingSince: fromNanos(r.FailingSince), DisabledReason: r.DisabledReason, CreatedAt: time.Unix(0, r.CreatedAt).UTC(), UpdatedAt: time.Unix(0, r.UpdatedAt).UTC(),
	}
	if err := json.Unmarshal([]byte(r.Types), &s.Types); err != nil {
		return s, fmt.Errorf("bunstore: subscription %s types: %w", r.ID, err)
	}
	var tokens []string
	if err := json.Unmarshal([]byte(r.Tokens), &tokens); err != nil {
		return s, fmt.Errorf("bunstore: subscription %s tokens: %w", r.ID, err)
	}
	for _, t := range tokens {
		s.Tokens = append(s.Tokens, common.HexToAddress(t))
	}
	return s, nil
}

// CreateSubscription stores s unless its account has max subscriptions.
func (s *Push) CreateSubscription(ctx context.Context, sub push.Subscription, max int) error {
	row, err := pushSubscriptionRowOf(&sub)
	if err != nil {
		return err
	}
	return s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		if s.dialect == dialectPostgres {
			// Two creations for one account at once count one after the other.
			if _, err := tx.ExecContext(ctx, "SELECT pg_advisory_xact_lock(hashtextextended(?, 7))", sub.AccountID); err != nil {
				return fmt.Errorf("bunstore: create subscription: %w", err)
			}
		}
		n, err := tx.NewSelect().Model((*pushSubscriptionRow)(nil)).Where("account_id = ?", sub.AccountID).Count(ctx)
		if err != nil {
			return fmt.Errorf("bunstore: create subscription: %w", err)
		}
		if n >= int64(max) {
			return fmt.Errorf("%w: the account has %d subscriptions", curvekit.ErrLimited, n)
		}
		if _, err := tx.NewInsert().Model(&row).Exec(ctx); err != nil {
			return fmt.Errorf("bunstore: create subscription: %w", err)
		}
		return nil
	})
}

// Subscription returns the account's subscription id.
func (s *Push) Subscription(ctx context.Context, accountID, id string) (push.Subscription, error) {
	var row pushSubscriptionRow
	err := s.db.NewSelect().Model(&row).Where("id = ? AND account_id = ?", id, accountID).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return push.Subscription{}, fmt.Errorf("%w: webhook %s", curvekit.ErrNotFound, id)
	}
	if err != nil {
		return push.Subscription{}, fmt.Errorf("bunstore: subscription: %w", err)
	}
	return row.subscription()
}

// Subscriptions returns the account's subscriptions, oldest first.
func (s *Push) Subscriptions(ctx context.Context, accountID string) ([]push.Subscription, error) {
	var rows []pushSubscriptionRow
	if err := s.db.NewSelect().Model(&rows).Where("account_id = ?", accountID).OrderExpr("created_at, id").Scan(ctx); err != nil {
		return nil, fmt.Errorf("bunstore: subscriptions: %w", err)
	}
	return subscriptionsOf(rows)
}

func subscriptionsOf(rows []pushSubscriptionRow) ([]push.Subscription, error) {
	out := make([]push.Subscription, 0, len(rows))
	for i := range rows {
		sub, err := rows[i].subscription()
		if err != nil {
			return nil, err
		}
		out = append(out, sub)
	}
	return out, nil
}

// UpdateSubscription replaces the stored fields of sub.
func (s *Push) UpdateSubscription(ctx context.Context, sub push.Subscription) error {
	row, err := pushSubscriptionRowOf(&sub)
	if err != nil {
		return err
	}
	res, err := s.db.NewUpdate().Model(&row).ExcludeColumn("id", "account_id", "created_at").
		Where("id = ? AND account_id = ?", sub.ID, sub.AccountID).Exec(ctx)
	return oneRow(res, err, "update subscription", sub.ID)
}

func oneRow(res sql.Result, err error, what, id string) error {
	if err != nil {
		return fmt.Errorf("bunstore: %s: %w", what, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return fmt.Errorf("bunstore: %s: %w", what, err)
	}
	if n == 0 {
		return fmt.Errorf("%w: webhook %s", curvekit.ErrNotFound, id)
	}
	return nil
}

// DeleteSubscription removes the subscription with its deliveries and their attempts.
func (s *Push) DeleteSubscription(ctx context.Context, accountID, id string) error {
	return s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		res, err := tx.NewDelete().Model((*pushSubscriptionRow)(nil)).Where("id = ? AND account_id = ?", id, accountID).Exec(ctx)
		return oneRow(res, err, "delete subscription", id)
	})
}

type pushEventRow struct {
	bun.BaseModel `bun:"table:push_events"`

	Seq       int64  `bun:"seq,pk,autoincrement"`
	ID        string `bun:"id"`
	Type      string `bun:"type"`
	AccountID string `bun:"account_id"`
	At        int64  `bun:"at"`
	Data      string `bun:"data"`
}

func (r *pushEventRow) event() push.Event {
	return push.Event{ID: r.ID, Seq: r.Seq, Type: push.Type(r.Type), Account: r.AccountID, Time: time.Unix(0, r.At).UTC(), Data: json.RawMessage(r.Data)}
}

type pushDeliveryRow struct {
	bun.BaseModel `bun:"table:push_deliveries"`

	ID             string `bun:"id,pk"`
	SubscriptionID string `bun:"subscription_id"`
	EventID        string `bun:"event_id"`
	State          string `bun:"state"`
	Tries          int    `bun:"tries"`
	Attempts       int    `bun:"attempts"`
	NextAt         int64  `bun:"next_at"`
	ClaimedBy      string `bun:"claimed_by"`
	ClaimedUntil   int64  `bun:"claimed_until"`
	CreatedAt      int64  `bun:"created_at"`
	UpdatedAt      int64  `bun:"updated_at"`
}

func (r *pushDeliveryRow) delivery(t push.Type) push.Delivery {
	return push.Delivery{ID: r.ID, SubscriptionID: r.SubscriptionID, EventID: r.EventID, EventType: t, State: push.DeliveryState(r.State),
		Tries: r.Tries, Count: r.Attempts, NextAt: time.Unix(0, r.NextAt).UTC(), CreatedAt: time.Unix(0, r.CreatedAt).UTC()}
}

type pushAttemptRow struct {
	bun.BaseModel `bun:"table:push_attempts"`

	DeliveryID string `bun:"delivery_id,pk"`
	N          int    `bun:"n,pk"`
	At         int64  `bun:"at"`
	Status     int    `bun:"status"`
	Latency    int64  `bun:"latency"`
	Response   string `bun:"response"`
	Error      string `bun:"error"`
}

func deliveryID() string {
	var b [12]byte
	_, _ = rand.Read(b[:]) // never fails (crypto/rand)
	return "dlv_" + hex.EncodeToString(b[:])
}

// Record stores new events and their deliveries in one transaction, with the relay's move.
func (s *Push) Record(ctx context.Context, p push.RecordParams) (push.Recorded, error) {
	var out push.Recorded
	err := s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		if p.Relay != nil {
			if err := moveRelay(ctx, tx, p.Relay, p.Now); err != nil {
				return err
			}
		}
		var err error
		out, err = recordEvents(ctx, tx, p.Events, p.Now)
		return err
	})
	if errors.Is(err, curvekit.ErrConflict) {
		return push.Recorded{}, err
	}
	if err != nil {
		return push.Recorded{}, fmt.Errorf("bunstore: record events: %w", err)
	}
	return out, nil
}

type pushRelayRow struct {
	bun.BaseModel `bun:"table:push_relays"`

	Source    string `bun:"source,pk"`
	Position  string `bun:"position"`
	UpdatedAt int64  `bun:"updated_at"`
}

// moveRelay moves a relay's position from m.From to m.To, or fails with ErrConflict.
func moveRelay(ctx context.Context, tx bun.Tx, m *push.RelayMove, now time.Time) error {
	var res sql.Result
	var err error
	if m.From == "" {
		res, err = tx.NewInsert().Model(&pushRelayRow{Source: m.Source, Position: m.To, UpdatedAt: now.UnixNano()}).
			On("CONFLICT (source) DO NOTHING").Exec(ctx)
	} else {
		res, err = tx.NewUpdate().Model((*pushRelayRow)(nil)).Set("position = ?", m.To).Set("updated_at = ?", now.UnixNano()).
			Where("source = ? AND position = ?", m.Source, m.From).Exec(ctx)
	}
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil {
		return err
	} else if n == 0 {
		return fmt.Errorf("%w: the relay %s is no longer at %q", curvekit.ErrConflict, m.Source, m.From)
	}
	return nil
}

// RelayPosition returns the relay's position.
func (s *Push) RelayPosition(ctx context.Context, source string) (string, bool, error) {
	var row pushRelayRow
	err := s.db.NewSelect().Model(&row).Where("source = ?", source).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("bunstore: relay position: %w", err)
	}
	return row.Position, true, nil
}

// recordEvents stores, in tx, the events whose ids are new and a pending delivery due at now for
// every enabled subscription that matches each: what push.Store.Record does, and what a source's
// store does with the events it commits with its own change (the outbox).
func recordEvents(ctx context.Context, tx bun.Tx, in []push.Event, now time.Time) (push.Recorded, error) {
	var out push.Recorded
	if len(in) == 0 {
		return out, nil
	}
	accounts := map[common.Address]string{}
	events := make([]push.Event, 0, len(in))
	for _, e := range in {
		if e.Account == "" && e.Wallet != (common.Address{}) {
			acc, ok := accounts[e.Wallet]
			if !ok {
				err := tx.NewSelect().Table("accounts").Column("id").Where("wallet = ?", e.Wallet.Bytes()).Scan(ctx, &acc)
				if err != nil && !errors.Is(err, sql.ErrNoRows) {
					return out, err
				}
				accounts[e.Wallet] = acc
			}
			if acc == "" {
				continue // no account holds the wallet: nobody to tell
			}
			e.Account = acc
		}
		events = append(events, e)
	}
	subs, err := candidates(ctx, tx, events)
	if err != nil {
		return out, err
	}
	for _, e := range events {
		var matched []*push.Subscription
		for i := range subs {
			if subs[i].Matches(&e) {
				matched = append(matched, &subs[i])
			}
		}
		if e.Account == "" && len(matched) == 0 {
			continue
		}
		seq, ok, err := insertEvent(ctx, tx, &e)
		if err != nil {
			return out, err
		}
		if !ok {
			continue // published before
		}
		e.Seq = seq
		for _, sub := range matched {
			if err := insertDelivery(ctx, tx, sub.ID, e.ID, now); err != nil {
				return out, err
			}
			out.Deliveries++
		}
		out.Events = append(out.Events, e)
	}
	return out, nil
}

// maxCandidateTerms bounds the events whose own conditions select the subscriptions to match;
// a larger batch reads every enabled subscription.
const maxCandidateTerms = 32

// candidates reads the enabled subscriptions that may match one of events (Matches decides):
// those that ask for the event's type, of its account for an account's event, and without a
// tokens filter or with the event's token in it.
func candidates(ctx context.Context, tx bun.Tx, events []push.Event) ([]push.Subscription, error) {
	var rows []pushSubscriptionRow
	q := tx.NewSelect().Model(&rows).Where("enabled")
	if len(events) <= maxCandidateTerms {
		q = q.WhereGroup(" AND ", func(q *bun.SelectQuery) *bun.SelectQuery {
			q = q.Where("FALSE")
			for i := range events {
				e := &events[i]
				q = q.WhereOr("(types LIKE ? AND (? = '' OR account_id = ?) AND (tokens = '[]' OR ? = '' OR tokens LIKE ?))",
					`%"`+string(e.Type)+`"%`, e.Account, e.Account, tokenText(e.Token), "%"+tokenText(e.Token)+"%")
			}
			return q
		})
	}
	if err := q.Scan(ctx); err != nil {
		return nil, err
	}
	return subscriptionsOf(rows)
}

// tokenText is a token as subscriptions store it, "" for none.
func tokenText(a common.Address) string {
	if a == (common.Address{}) {
		return ""
	}
	return a.Hex()
}

// insertEvent stores e unless its id is stored; ok is false when it was.
func insertEvent(ctx context.Context, tx bun.Tx, e *push.Event) (seq int64, ok bool, err error) {
	data := string(e.Data)
	if data == "" {
		data = "{}"
	}
	rows, err := tx.QueryContext(ctx, "INSERT INTO push_events (id, type, account_id, at, data) VALUES (?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING RETURNING seq",
		e.ID, string(e.Type), e.Account, e.Time.UnixNano(), data)
	if err != nil {
		return 0, false, err
	}
	defer rows.Close()
	if !rows.Next() {
		return 0, false, rows.Err()
	}
	if err := rows.Scan(&seq); err != nil {
		return 0, false, err
	}
	return seq, true, rows.Err()
}

func insertDelivery(ctx context.Context, tx bun.Tx, subscriptionID, eventID string, now time.Time) error {
	row := pushDeliveryRow{ID: deliveryID(), SubscriptionID: subscriptionID, EventID: eventID, State: string(push.DeliveryPending),
		NextAt: now.UnixNano(), CreatedAt: now.UnixNano(), UpdatedAt: now.UnixNano()}
	_, err := tx.NewInsert().Model(&row).On("CONFLICT (subscription_id, event_id) DO NOTHING").Exec(ctx)
	return err
}

// Enqueue makes a pending delivery of e to one subscription of the account.
func (s *Push) Enqueue(ctx context.Context, accountID, subscriptionID string, e push.Event, now time.Time) (push.Delivery, error) {
	var d push.Delivery
	err := s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		n, err := tx.NewSelect().Model((*pushSubscriptionRow)(nil)).Where("id = ? AND account_id = ?", subscriptionID, accountID).Count(ctx)
		if err != nil {
			return err
		}
		if n == 0 {
			return fmt.Errorf("%w: webhook %s", curvekit.ErrNotFound, subscriptionID)
		}
		if _, _, err := insertEvent(ctx, tx, &e); err != nil {
			return err
		}
		row := pushDeliveryRow{ID: deliveryID(), SubscriptionID: subscriptionID, EventID: e.ID, State: string(push.DeliveryPending),
			NextAt: now.UnixNano(), CreatedAt: now.UnixNano(), UpdatedAt: now.UnixNano()}
		if _, err := tx.NewInsert().Model(&row).Exec(ctx); err != nil {
			return err
		}
		d = row.delivery(e.Type)
		return nil
	})
	if err != nil && !errors.Is(err, curvekit.ErrNotFound) {
		err = fmt.Errorf("bunstore: enqueue: %w", err)
	}
	return d, err
}

// ClaimDeliveries claims due deliveries of enabled subscriptions; on PostgreSQL with FOR UPDATE
// SKIP LOCKED, so that replicas claiming at once take different ones without waiting.
func (s *Push) ClaimDeliveries(ctx context.Context, p push.ClaimParams) ([]push.Claimed, error) {
	if p.Limit <= 0 {
		return nil, nil
	}
	lock := ""
	if s.dialect == dialectPostgres {
		lock = " FOR UPDATE OF d SKIP LOCKED"
	}
	now := p.Now.UnixNano()
	var ids []string
	err := s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		ids = ids[:0]
		rows, err := tx.QueryContext(ctx, `UPDATE push_deliveries SET claimed_by = ?, claimed_until = ? WHERE id IN (
			SELECT d.id FROM push_deliveries d JOIN push_subscriptions s ON s.id = d.subscription_id
			WHERE d.state = 'pending' AND d.next_at <= ? AND d.claimed_until <= ? AND s.enabled
			ORDER BY d.next_at LIMIT ?`+lock+`) RETURNING id`, p.Holder, p.Until.UnixNano(), now, now, p.Limit)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var id string
			if err := rows.Scan(&id); err != nil {
				return err
			}
			ids = append(ids, id)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("bunstore: claim deliveries: %w", err)
	}
	if len(ids) == 0 {
		return nil, nil
	}
	var ds []pushDeliveryRow
	if err := s.db.NewSelect().Model(&ds).Where("id IN (?)", bun.In(ids)).OrderExpr("next_at, id").Scan(ctx); err != nil {
		return nil, fmt.Errorf("bunstore: claimed deliveries: %w", err)
	}
	evIDs, subIDs := make([]string, 0, len(ds)), make([]string, 0, len(ds))
	for i := range ds {
		evIDs, subIDs = append(evIDs, ds[i].EventID), append(subIDs, ds[i].SubscriptionID)
	}
	var evs []pushEventRow
	if err := s.db.NewSelect().Model(&evs).Where("id IN (?)", bun.In(evIDs)).Scan(ctx); err != nil {
		return nil, fmt.Errorf("bunstore: claimed events: %w", err)
	}
	var subRows []pushSubscriptionRow
	if err := s.db.NewSelect().Model(&subRows).Where("id IN (?)", bun.In(subIDs)).Scan(ctx); err != nil {
		return nil, fmt.Errorf("bunstore: claimed subscriptions: %w", err)
	}
	events := make(map[string]push.Event, len(evs))
	for i := range evs {
		events[evs[i].ID] = evs[i].event()
	}
	subs := make(map[string]push.Subscription, len(subRows))
	for i := range subRows {
		sub, err := subRows[i].subscription()
		if err != nil {
			return nil, err
		}
		subs[sub.ID] = sub
	}
	out := make([]push.Claimed, 0, len(ds))
	for i := range ds {
		e, ok1 := events[ds[i].EventID]
		sub, ok2 := subs[ds[i].SubscriptionID]
		if !ok1 || !ok2 {
			continue // deleted meanwhile
		}
		out = append(out, push.Claimed{Delivery: ds[i].delivery(e.Type), Event: e, Subscription: sub})
	}
	return out, nil
}

// FinishAttempt records an attempt and moves the delivery and its subscription on.
func (s *Push) FinishAttempt(ctx context.Context, p push.FinishParams) error {
	now := p.Attempt.At.Add(p.Attempt.Latency).UnixNano()
	err := s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		var d pushDeliveryRow
		err := tx.NewSelect().Model(&d).Where("id = ?", p.DeliveryID).Scan(ctx)
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("%w: delivery %s", curvekit.ErrNotFound, p.DeliveryID)
		}
		if err != nil {
			return err
		}
		state, tries, nextAt := string(p.State), d.Tries+1, nanos(p.NextAt)
		if p.State == push.DeliverySucceeded {
			tries = 0
		}
		if d.UpdatedAt > p.Attempt.At.UnixNano() && p.Disable == "" {
			// Replayed while this attempt was in flight: the replay stands, due when it asked.
			state, tries, nextAt = string(push.DeliveryPending), d.Tries, d.NextAt
		}
		res, err := tx.NewUpdate().Model((*pushDeliveryRow)(nil)).
			Set("state = ?", state).Set("tries = ?", tries).Set("attempts = attempts + 1").
			Set("next_at = ?", nextAt).Set("claimed_by = ''").Set("claimed_until = 0").Set("updated_at = ?", now).
			Where("id = ? AND claimed_by = ? AND state = 'pending'", p.DeliveryID, p.Holder).Exec(ctx)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n == 0 {
			return fmt.Errorf("%w: delivery %s is no longer claimed by %s", curvekit.ErrConflict, p.DeliveryID, p.Holder)
		}
		a := p.Attempt
		row := pushAttemptRow{DeliveryID: p.DeliveryID, N: d.Attempts + 1, At: a.At.UnixNano(), Status: a.Status, Latency: int64(a.Latency), Response: a.Response, Error: a.Error}
		if _, err := tx.NewInsert().Model(&row).Exec(ctx); err != nil {
			return err
		}
		q := tx.NewUpdate().Model((*pushSubscriptionRow)(nil)).Where("id = ?", d.SubscriptionID)
		if p.Failed {
			q = q.Set("failing_since = CASE WHEN failing_since = 0 THEN ? ELSE failing_since END", now)
		} else {
			q = q.Set("failing_since = 0")
		}
		if p.Disable != "" {
			q = q.Set("enabled = ?", false).Set("disabled_reason = ?", p.Disable).Set("updated_at = ?", now)
		}
		if _, err := q.Exec(ctx); err != nil {
			return err
		}
		if p.Disable != "" {
			_, err = tx.NewUpdate().Model((*pushDeliveryRow)(nil)).Set("state = ?", string(push.DeliveryFailed)).Set("updated_at = ?", now).
				Where("subscription_id = ? AND state = 'pending' AND claimed_by = ''", d.SubscriptionID).Exec(ctx)
			if err != nil {
				return err
			}
		}
		_, err = recordEvents(ctx, tx, p.Events, time.Unix(0, now).UTC())
		return err
	})
	if err != nil && !errors.Is(err, curvekit.ErrConflict) && !errors.Is(err, curvekit.ErrNotFound) {
		err = fmt.Errorf("bunstore: finish attempt: %w", err)
	}
	return err
}

const deliveryCursorTag = "dlv"

// Deliveries pages a subscription's deliveries newest first, each with its attempts.
func (s *Push) Deliveries(ctx context.Context, q push.DeliveryQuery) (push.DeliveryPage, error) {
	sel := s.db.NewSelect().Model((*pushDeliveryRow)(nil)).
		ColumnExpr("d.*").ColumnExpr("e.type AS event_type").
		Join("JOIN push_subscriptions AS s ON s.id = d.subscription_id").
		Join("LEFT JOIN push_events AS e ON e.id = d.event_id").
		Where("d.subscription_id = ? AND s.account_id = ?", q.SubscriptionID, q.AccountID)
	sel = sel.ModelTableExpr("push_deliveries AS d")
	if q.Cursor != "" {
		f, err := decodeCursor(q.Cursor, deliveryCursorTag, 2)
		if err != nil {
			return push.DeliveryPage{}, err
		}
		at, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil {
			return push.DeliveryPage{}, fmt.Errorf("%w: malformed cursor", curvekit.ErrInvalid)
		}
		sel = sel.Where("(d.created_at < ? OR (d.created_at = ? AND d.id < ?))", at, at, f[1])
	}
	var rows []struct {
		pushDeliveryRow
		EventType string `bun:"event_type"`
	}
	if err := sel.OrderExpr("d.created_at DESC, d.id DESC").Limit(int64(q.Limit+1)).Scan(ctx, &rows); err != nil {
		return push.DeliveryPage{}, fmt.Errorf("bunstore: deliveries: %w", err)
	}
	var page push.DeliveryPage
	if len(rows) > q.Limit {
		rows = rows[:q.Limit]
		last := rows[len(rows)-1]
		page.Next = encodeCursor(deliveryCursorTag, strconv.FormatInt(last.CreatedAt, 10), last.ID)
	}
	if len(rows) == 0 {
		page.Deliveries = []push.Delivery{}
		return page, nil
	}
	ids := make([]string, len(rows))
	for i := range rows {
		ids[i] = rows[i].ID
	}
	var attempts []pushAttemptRow
	if err := s.db.NewSelect().Model(&attempts).Where("delivery_id IN (?)", bun.In(ids)).OrderExpr("delivery_id, n").Scan(ctx); err != nil {
		return push.DeliveryPage{}, fmt.Errorf("bunstore: attempts: %w", err)
	}
	byID := map[string][]push.Attempt{}
	for _, a := range attempts {
		byID[a.DeliveryID] = append(byID[a.DeliveryID], push.Attempt{N: a.N, At: time.Unix(0, a.At).UTC(), Status: a.Status,
			Latency: time.Duration(a.Latency), Response: a.Response, Error: a.Error})
	}
	for i := range rows {
		d := rows[i].delivery(push.Type(rows[i].EventType))
		d.Attempts = byID[d.ID]
		if d.Attempts == nil {
			d.Attempts = []push.Attempt{}
		}
		page.Deliveries = append(page.Deliveries, d)
	}
	return page, nil
}

// Replay makes deliveries pending again with a fresh retry schedule.
func (s *Push) Replay(ctx context.Context, p push.ReplayParams) (int, error) {
	sub := s.db.NewSelect().Model((*pushDeliveryRow)(nil)).Column("id").
		Where("subscription_id = ?", p.SubscriptionID).
		Where("subscription_id IN (SELECT id FROM push_subscriptions WHERE account_id = ?)", p.AccountID)
	if p.DeliveryID != "" {
		sub = sub.Where("id = ?", p.DeliveryID)
	} else {
		sub = sub.Where("created_at >= ?", p.Since.UnixNano()).OrderExpr("created_at").Limit(int64(p.Limit))
	}
	res, err := s.db.NewUpdate().Model((*pushDeliveryRow)(nil)).
		Set("state = ?", string(push.DeliveryPending)).Set("tries = 0").Set("next_at = ?", p.Now.UnixNano()).Set("updated_at = ?", p.Now.UnixNano()).
		Where("id IN (?)", sub).Exec(ctx)
	if err != nil {
		return 0, fmt.Errorf("bunstore: replay: %w", err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return 0, fmt.Errorf("bunstore: replay: %w", err)
	}
	if n == 0 && p.DeliveryID != "" {
		return 0, fmt.Errorf("%w: delivery %s", curvekit.ErrNotFound, p.DeliveryID)
	}
	return int(n), nil
}

// Events returns an account's events after seq, oldest first.
func (s *Push) Events(ctx context.Context, accountID string, after int64, limit int) ([]push.Event, error) {
	if accountID == "" {
		return nil, nil
	}
	return s.events(ctx, s.db.NewSelect().Where("account_id = ?", accountID), after, limit)
}

// EventsSince returns every event after seq, oldest first.
func (s *Push) EventsSince(ctx context.Context, after int64, limit int) ([]push.Event, error) {
	return s.events(ctx, s.db.NewSelect(), after, limit)
}

func (s *Push) events(ctx context.Context, q *bun.SelectQuery, after int64, limit int) ([]push.Event, error) {
	var rows []pushEventRow
	if err := q.Model(&rows).Where("seq > ?", after).OrderExpr("seq").Limit(int64(limit)).Scan(ctx); err != nil {
		return nil, fmt.Errorf("bunstore: events: %w", err)
	}
	out := make([]push.Event, len(rows))
	for i := range rows {
		out[i] = rows[i].event()
	}
	return out, nil
}

// LastSeq is the seq of the newest event.
func (s *Push) LastSeq(ctx context.Context) (int64, error) {
	var seq sql.NullInt64
	if err := s.db.NewSelect().Model((*pushEventRow)(nil)).ColumnExpr("MAX(seq)").Scan(ctx, &seq); err != nil {
		return 0, fmt.Errorf("bunstore: last event: %w", err)
	}
	return seq.Int64, nil
}
