package app

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/curvekit/curvekit"
	"github.com/curvekit/curvekit/account"
	"github.com/curvekit/curvekit/adapters/httpapi"
	"github.com/curvekit/curvekit/adapters/webhook"
	"github.com/curvekit/curvekit/agent"
	"github.com/curvekit/curvekit/market"
	"github.com/curvekit/curvekit/orders"
	"github.com/curvekit/curvekit/push"
	"github.com/curvekit/curvekit/stream"
	"github.com/curvekit/curvekit/wallet"
)

// wirePush builds the push service (webhooks, the account stream's events) and plugs the
// sources into it: the indexer's leader relays the market's events from the store (marketRelay),
// the wallet's, the agent's and the orders' stores commit their events with the change that
// causes them.
func (a *App) wirePush(context.Context) error {
	client, err := webhook.New(webhook.Config{AllowLoopback: a.Config.WebhookAllowLoopback})
	if err != nil {
		return err
	}
	a.Push, err = push.New(push.Config{
		Store: a.DB.Push(), Keys: pushKeys{a.keys}, Client: client, Activity: pushActivity{a},
		MaxSubscriptions: a.Config.WebhookMax, Retries: a.Config.WebhookRetries, Workers: a.Config.WebhookWorkers,
		Holder: a.Replica.Status().Holder, Logger: a.Log.With("component", "push"),
	})
	if err != nil {
		return err
	}
	a.marketRelay = &marketRelay{a: a, src: a.sources()}
	a.observers = append(a.observers, a.marketRelay.observe)
	return nil
}

// tailAccounts feeds the account streams of this replica: every account event, recorded by any
// replica, goes to its account's topic on the hub.
func (a *App) tailAccounts(ctx context.Context) error {
	return a.Push.Tail(ctx, func(e *push.Event) {
		a.Hub.Publish(stream.AccountTopic(e.Account), &stream.Message{Kind: stream.KindEvent, Seq: e.Seq, Name: string(e.Type),
			IDText: strconv.FormatInt(e.Seq, 10), Data: push.Body(e)})
	})
}

// accountEvents is what the account streams replay: push's events, as the tail publishes them.
// The streams are wired before the push service, so it is looked up when a stream opens.
type accountEvents struct{ a *App }

func (ae accountEvents) Position(ctx context.Context) (int64, error) {
	if p := ae.a.Push.Position(); p > 0 {
		return p, nil
	}
	return ae.a.Push.LastSeq(ctx) // the tail has not started yet: it starts there
}

func (ae accountEvents) LastSeq(ctx context.Context) (int64, error) { return ae.a.Push.LastSeq(ctx) }

func (ae accountEvents) Events(ctx context.Context, accountID string, after int64, limit int) ([]stream.AccountEvent, error) {
	evs, err := ae.a.Push.Events(ctx, accountID, after, limit)
	if err != nil {
		return nil, err
	}
	out := make([]stream.AccountEvent, len(evs))
	for i := range evs {
		out[i] = stream.AccountEvent{Seq: evs[i].Seq, Name: string(evs[i].Type), Data: push.Body(&evs[i])}
	}
	return out, nil
}

// pushActivity writes a disabled webhook into the account's activity log.
type pushActivity struct{ a *App }

func (p pushActivity) WebhookDisabled(ctx context.Context, accountID, message string) error {
	if p.a.Settings == nil {
		return nil
	}
	return p.a.Settings.RecordWebhook(ctx, accountID, message)
}

// pushKeys seals webhook secrets' data keys with the wallets' master keys.
type pushKeys struct{ k wallet.KeyWrapper }

func (p pushKeys) Wrap(ctx context.Context, dataKey, ad []byte) (uint32, []byte, error) {
	w, err := p.k.Wrap(ctx, dataKey, ad)
	return w.Version, w.Ciphertext, err
}

func (p pushKeys) Unwrap(ctx context.Context, version uint32, wrapped, ad []byte) ([]byte, error) {
	return p.k.Unwrap(ctx, wallet.Wrapped{Version: version, Ciphertext: wrapped}, ad)
}

// pushSources turns what the parts commit into push events. Parts wired before the push service
// hold it already; their commits wake push (Committed) once a.Push exists.
type pushSources struct {
	a        *App
	payloads httpapi.EventPayloads
	codec    stream.Codec
}

var (
	_ wallet.Notifier  = (*pushSources)(nil)
	_ agent.Notifier   = (*pushSources)(nil)
	_ orders.Notifier  = (*pushSources)(nil)
	_ account.Notifier = (*pushSources)(nil)
)

func (a *App) sources() *pushSources {
	if a.pushSources == nil {
		a.pushSources = &pushSources{a: a, codec: httpapi.StreamCodec()}
	}
	return a.pushSources
}

// TransactionEvents is wallet.transaction: sent, then mined, failed or dropped. The wallet's
// store records it with the change.
func (p *pushSources) TransactionEvents(t *wallet.Transaction) []push.Event {
	data, err := p.payloads.WalletTransaction(t)
	if err != nil {
		return nil
	}
	state := string(t.State)
	if t.State == wallet.TxPending {
		state = "sent"
	}
	at := t.UpdatedAt
	if at.IsZero() {
		at = t.SentAt
	}
	return []push.Event{{ID: "evt_wallet.transaction_" + t.ID + "_" + state, Type: push.WalletTransaction, Time: at, Wallet: t.From, Data: data}}
}

// JobEvents is job.completed or job.failed. The agent's store records it with the job's end.
func (p *pushSources) JobEvents(j *agent.Job) []push.Event {
	typ := push.JobCompleted
	at := j.CompletedAt
	if j.Status == agent.StatusFailed {
		typ = push.JobFailed
	}
	if at.IsZero() {
		at = time.Now()
	}
	data, err := p.payloads.Job(j)
	if err != nil {
		return nil
	}
	return []push.Event{{ID: "evt_" + string(typ) + "_" + j.ID, Type: typ, Time: at, Wallet: j.Wallet, Data: data}}
}

// Committed wakes the sender and the account streams: a store committed events with its change.
func (p *pushSources) Committed() {
	if p.a.Push != nil {
		p.a.Push.Committed()
	}
}

// marketEvents are the market's events of a step of the store: launches, trades (the token
// stream's trade payload), graduations and the creators' claimable fees. Their ids are stable
// (the fees' name the step's cursor), so a step turned into events twice records nothing new.
func (p *pushSources) marketEvents(ctx context.Context, s market.Sync) []push.Event {
	a := p.a
	b := s.Batch
	if b == nil {
		return nil
	}
	tokens := make(map[common.Address]*market.Token, len(b.Launches)+len(b.Updates))
	for i := range b.Launches {
		tokens[b.Launches[i].Address] = &b.Launches[i]
	}
	for i := range b.Updates {
		tokens[b.Updates[i].Address] = &b.Updates[i]
	}
	var events []push.Event
	token := func(typ push.Type, addr common.Address, at int64) {
		v, err := a.Market.Token(ctx, addr)
		if err != nil {
			a.Log.Warn("push: read a token for its event", "token", addr, "err", err)
			return
		}
		if data, err := p.payloads.Token(&v); err == nil {
			events = append(events, push.Event{ID: "evt_" + string(typ) + "_" + strings.ToLower(addr.Hex()), Type: typ, Time: time.Unix(at, 0), Token: addr, Data: data})
		}
	}
	for i := range b.Launches {
		token(push.TokenLaunched, b.Launches[i].Address, b.Launches[i].CreatedAt)
	}
	curveTrade := map[common.Address]int64{} // tokens that traded on their curve, with the last time
	feesOf := map[common.Address]bool{}      // tokens whose creator earned fees
	for i := range b.Trades {
		tr := &b.Trades[i]
		tok := tokens[tr.Token]
		if tok == nil {
			continue
		}
		data, err := p.codec.Trade(tok, tr)
		if err != nil {
			continue
		}
		events = append(events, push.Event{ID: "evt_trade_" + stream.IDOf(tr, tr.Time).String(), Type: push.Trade, Time: time.Unix(tr.Time, 0),
			Token: tr.Token, Size: tr.QuoteAmount, Decimals: tok.Quote.Decimals, Data: data})
		if tr.Venue == curvekit.VenueCurve {
			curveTrade[tr.Token] = tr.Time
		}
		if !tr.CreatorFee.IsZero() {
			feesOf[tr.Token] = true
		}
	}
	for i := range b.Updates {
		u := &b.Updates[i]
		if at, ok := curveTrade[u.Address]; ok && u.State.Graduated {
			token(push.TokenGraduated, u.Address, at)
		}
	}
	creators := map[common.Address]bool{}
	for addr := range feesOf {
		if v, err := a.Market.Token(ctx, addr); err == nil {
			creators[v.Creator] = true
		}
	}
	for c := range creators {
		fees, err := a.Launch.CreatorFees(ctx, c)
		if err != nil {
			continue
		}
		if data, err := p.payloads.CreatorFees(c, fees); err == nil {
			id := fmt.Sprintf("evt_fees.claimable_%s_%d_%x", strings.ToLower(c.Hex()), s.Cursor.Block, s.Cursor.Hash[:4])
			events = append(events, push.Event{ID: id, Type: push.FeesClaimable, Time: time.Now(), Wallet: c, Data: data})
		}
	}
	return events
}

// OrderEvents is order.triggered, order.sent, order.filled or order.failed as a fire is stored
// and moves (and order.cancelled when a fire refused by the key that placed it cancels the
// order), order.expired and order.cancelled by the account; the payload is the order with its
// fires, as GET /orders/:id shows it. The orders store records them with the change, from the
// order as its step leaves it.
func (p *pushSources) OrderEvents(o *orders.Order, f *orders.Fire) []push.Event {
	data, err := p.payloads.Order(o)
	if err != nil {
		return nil
	}
	event := func(typ push.Type, id string, at time.Time) push.Event {
		return push.Event{ID: id, Type: typ, Time: at.UTC(), Account: o.AccountID, Data: data}
	}
	// The order's end: one event per order, whatever step ended it.
	var ended []push.Event
	switch o.State {
	case orders.Expired:
		ended = append(ended, event(push.OrderExpired, "evt_order_"+o.ID+"_expired", o.UpdatedAt))
	case orders.Cancelled:
		ended = append(ended, event(push.OrderCancelled, "evt_order_"+o.ID+"_cancelled", o.UpdatedAt))
	}
	if f == nil {
		return ended
	}
	var typ push.Type
	switch f.State {
	case orders.FireTriggered:
		typ = push.OrderTriggered
	case orders.FireSent:
		typ = push.OrderSent
	case orders.FireFilled:
		typ = push.OrderFilled
	case orders.FireFailed:
		typ = push.OrderFailed
	default:
		return nil
	}
	evs := []push.Event{event(typ, "evt_order_"+f.ID+"_"+string(f.State), f.UpdatedAt)}
	if f.State == orders.FireFailed {
		evs = append(evs, ended...) // the engine cancelled the order with the fire's refusal
	}
	return evs
}

// SettingsEvents is settings.changed: the settings as GET /account/settings shows them after
// the change, with the change's activity entry. The settings store records it with the change;
// its id is the account's and the version's, so one change is one event.
func (p *pushSources) SettingsEvents(st *account.Settings, a *account.Activity) []push.Event {
	data, err := p.payloads.SettingsChanged(st, a)
	if err != nil {
		return nil
	}
	return []push.Event{{ID: fmt.Sprintf("evt_settings_%s_%d", a.AccountID, st.Version), Type: push.SettingsChanged,
		Time: a.At.UTC(), Account: a.AccountID, Data: data}}
}

// marketRelaySource names the market's relay position in the push store.
const marketRelaySource = "market"

// marketRelay turns the indexer's commits into push events without losing one. The market's
// store is the outbox: the indexer's fenced transaction commits each batch with its cursor, and
// the relay's position (the cursor up to which events were recorded) moves in the transaction
// that records them (push.Service.Relay). On the leader each committed sync is relayed at once
// from the batch in memory when it starts where the position stands; otherwise (a new leader, a
// restart, a leader killed between its commit and its relay) what the store holds beyond the
// position is rebuilt from the store (market.SyncSince) and relayed. A deposed leader racing a
// new one moves nothing: the position is compared and set.
type marketRelay struct {
	a   *App
	src *pushSources

	mu   sync.Mutex
	seen market.Cursor // the cursor of the last sync observed: where the next batch starts
	pos  string        // the position as this process last moved or read it; "" when unknown
}

func cursorText(c market.Cursor) string { return strconv.FormatUint(c.Block, 10) + ":" + c.Hash.Hex() }

func parseCursor(s string) (market.Cursor, error) {
	b, h, ok := strings.Cut(s, ":")
	n, err := strconv.ParseUint(b, 10, 64)
	if !ok || err != nil || len(h) != 66 {
		return market.Cursor{}, fmt.Errorf("push: relay position %q is not a cursor", s)
	}
	return market.Cursor{Block: n, Hash: common.HexToHash(h)}, nil
}

// observe is the relay's observer of the replica's syncs.
func (r *marketRelay) observe(s market.Sync) {
	r.mu.Lock()
	defer r.mu.Unlock()
	prev := r.seen
	r.seen = s.Cursor
	if r.a.Push == nil || !r.a.Replica.Status().Leading {
		r.pos = "" // another replica moves it meanwhile: read it again when leading
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if s.Batch == nil {
		r.rewind(ctx, s.Cursor)
		return
	}
	if r.pos != "" && r.pos == cursorText(prev) {
		to := cursorText(s.Cursor)
		err := r.a.Push.Relay(ctx, marketRelaySource, r.pos, to, r.src.marketEvents(ctx, s)...)
		if err == nil {
			r.pos = to
			return
		}
		r.pos = ""
		if !errors.Is(err, curvekit.ErrConflict) {
			r.a.Log.Warn("push: relay the market's events; catching up from the store", "err", err)
		}
	}
	r.catchUp(ctx)
}

// rewind moves the position back to the cursor a rollback left, when it stood beyond: the
// blocks after it are indexed again from the new chain, and their events relayed (those of the
// old chain were, and stay, recorded).
func (r *marketRelay) rewind(ctx context.Context, to market.Cursor) {
	pos, ok, err := r.a.Push.RelayPosition(ctx, marketRelaySource)
	if err != nil || !ok {
		r.pos = ""
		return
	}
	if c, err := parseCursor(pos); err == nil && c.Block < to.Block {
		r.pos = pos
		return
	}
	if err := r.a.Push.Relay(ctx, marketRelaySource, pos, cursorText(to)); err != nil {
		r.pos = ""
		r.a.Log.Warn("push: move the market's relay back after a reorganization", "err", err)
		return
	}
	r.pos = cursorText(to)
}

// catchUp relays what the store holds beyond the position. A relay without a position starts at
// the store's cursor: what was indexed before push existed is history, not news.
func (r *marketRelay) catchUp(ctx context.Context) {
	a := r.a
	r.pos = "" // unknown until read: a catch-up that fails is tried again within a poll
	pos, ok, err := a.Push.RelayPosition(ctx, marketRelaySource)
	if err != nil {
		a.Log.Warn("push: read the market's relay position", "err", err)
		return
	}
	cur, err := a.Store.Cursor(ctx)
	if err != nil {
		a.Log.Warn("push: read the store's cursor", "err", err)
		return
	}
	if !ok {
		if err := a.Push.Relay(ctx, marketRelaySource, "", cursorText(cur)); err == nil {
			r.pos = cursorText(cur)
		}
		return
	}
	from, err := parseCursor(pos)
	if err != nil {
		a.Log.Error("push: the market's relay position", "err", err)
		return
	}
	if from == cur {
		r.pos = pos
		return
	}
	s, err := market.SyncSince(ctx, a.Store, from)
	if errors.Is(err, market.ErrRewound) {
		// The chain was reorganized below the position while nobody relayed: relay again from
		// a cursor below it that the store still holds (events relayed before keep their ids
		// and are not recorded twice).
		below := from.Block
		from = market.Cursor{}
		if recent, rerr := a.Store.RecentBlocks(ctx, 64); rerr == nil {
			for _, c := range recent { // newest first: from ends at the oldest below the position
				if c.Block < below {
					from = c
				}
			}
		}
		if from == (market.Cursor{}) {
			a.Log.Warn("push: the market's relay position is gone with a reorganization; relaying from the store's cursor", "position", pos)
			if err := a.Push.Relay(ctx, marketRelaySource, pos, cursorText(cur)); err == nil {
				r.pos = cursorText(cur)
			}
			return
		}
		s, err = market.SyncSince(ctx, a.Store, from)
	}
	if err != nil {
		a.Log.Warn("push: rebuild the market's steps since the relay's position", "position", pos, "err", err)
		return
	}
	to := cursorText(s.Cursor)
	if err := a.Push.Relay(ctx, marketRelaySource, pos, to, r.src.marketEvents(ctx, s)...); err != nil {
		if !errors.Is(err, curvekit.ErrConflict) {
			a.Log.Warn("push: relay the market's events", "err", err)
		}
		r.pos = ""
		return
	}
	r.pos = to
}

// run catches the relay up while this replica leads: after a takeover or a restart, or a relay
// that failed, it relays what the store committed beyond the position within a poll, even when
// no new sync comes. While the position is known it does nothing: each sync is relayed as it
// is observed.
func (r *marketRelay) run(ctx context.Context, poll time.Duration) {
	t := time.NewTicker(poll)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		leading := r.a.Push != nil && r.a.Replica.Status().Leading
		r.mu.Lock()
		switch {
		case !leading:
			r.pos = ""
		case r.pos == "":
			cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
			r.catchUp(cctx)
			cancel()
		}
		r.mu.Unlock()
	}
}
