package app

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/curvekit/curvekit"
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
// sources into it: the indexer's leader publishes the market's events after each commit, the
// wallet its transactions, the agent runner the ends of jobs.
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
	a.observers = append(a.observers, a.sources().sync)
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
// hold it already; it publishes once a.Push exists.
type pushSources struct {
	a        *App
	payloads httpapi.EventPayloads
	codec    stream.Codec
}

var (
	_ wallet.Notifier = (*pushSources)(nil)
	_ agent.Notifier  = (*pushSources)(nil)
	_ orders.Notifier = (*pushSources)(nil)
)

func (a *App) sources() *pushSources {
	if a.pushSources == nil {
		a.pushSources = &pushSources{a: a, codec: httpapi.StreamCodec()}
	}
	return a.pushSources
}

func (p *pushSources) publish(ctx context.Context, events ...push.Event) {
	if p.a.Push == nil || len(events) == 0 {
		return
	}
	if err := p.a.Push.Publish(ctx, events...); err != nil {
		p.a.Log.Warn("push: publish events", "events", len(events), "first", events[0].ID, "err", err)
	}
}

// TransactionChanged publishes wallet.transaction: sent, then mined, failed or dropped.
func (p *pushSources) TransactionChanged(ctx context.Context, t *wallet.Transaction) {
	data, err := p.payloads.WalletTransaction(t)
	if err != nil {
		return
	}
	state := string(t.State)
	if t.State == wallet.TxPending {
		state = "sent"
	}
	at := t.UpdatedAt
	if at.IsZero() {
		at = t.SentAt
	}
	p.publish(ctx, push.Event{ID: "evt_wallet.transaction_" + t.ID + "_" + state, Type: push.WalletTransaction, Time: at, Wallet: t.From, Data: data})
}

// JobEnded publishes job.completed or job.failed.
func (p *pushSources) JobEnded(ctx context.Context, j *agent.Job) {
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
		return
	}
	p.publish(ctx, push.Event{ID: "evt_" + string(typ) + "_" + j.ID, Type: typ, Time: at, Wallet: j.Wallet, Data: data})
}

// sync publishes the market's events of a commit: launches, trades (the token stream's trade
// payload), graduations and the creators' claimable fees. Only the indexer's leader publishes;
// the ids are stable, so a step handed on twice records nothing new.
func (p *pushSources) sync(s market.Sync) {
	a := p.a
	if s.Batch == nil || a.Push == nil || !a.Replica.Status().Leading {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	b := s.Batch
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
	p.publish(ctx, events...)
}

// OrderChanged publishes order.sent, order.filled and order.failed as a fire moves, and
// order.expired; the payload is the order with its fires, as GET /orders/:id shows it.
func (p *pushSources) OrderChanged(ctx context.Context, o *orders.Order, f *orders.Fire) {
	typ, id := push.OrderExpired, "evt_order_"+o.ID+"_expired"
	if f != nil {
		switch f.State {
		case orders.FireSent:
			typ = push.OrderSent
		case orders.FireFilled:
			typ = push.OrderFilled
		case orders.FireFailed:
			typ = push.OrderFailed
		default:
			return
		}
		id = "evt_order_" + f.ID + "_" + string(f.State)
	}
	full, err := p.a.Orders.Order(ctx, o.AccountID, o.ID)
	if err != nil {
		p.a.Log.Warn("push: read an order for its event", "order", o.ID, "err", err)
		return
	}
	data, err := p.payloads.Order(&full)
	if err != nil {
		return
	}
	p.publish(ctx, push.Event{ID: id, Type: typ, Time: time.Now().UTC(), Account: o.AccountID, Data: data})
}
