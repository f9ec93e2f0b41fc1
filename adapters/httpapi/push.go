package httpapi

import (
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/uptrace/bunrouter"

	"github.com/curvekit/curvekit"
	"github.com/curvekit/curvekit/account"
	"github.com/curvekit/curvekit/agent"
	"github.com/curvekit/curvekit/auth"
	"github.com/curvekit/curvekit/launch"
	"github.com/curvekit/curvekit/market"
	"github.com/curvekit/curvekit/orders"
	"github.com/curvekit/curvekit/push"
	"github.com/curvekit/curvekit/wallet"
)

// pushRoutes are the webhook subscriptions, their delivery log and replays, routed when the
// server has Push. Reads take a session or any key; changes a session or a read-write key.
func (s *Server) pushRoutes() []group {
	if s.cfg.Push == nil {
		return nil
	}
	const nf = "webhook not found"
	rw := s.readWrite
	groups := []group{{prefix: "/webhooks", routes: []route{
		{method: http.MethodPost, path: "", access: SessionOrKey, class: auth.ClassDefault, handle: s.createWebhook, precheck: rw},
		{method: http.MethodGet, path: "", access: SessionOrKey, class: auth.ClassDefault, handle: s.listWebhooks},
		{method: http.MethodGet, path: "/:id", access: SessionOrKey, class: auth.ClassDefault, handle: s.getWebhook, notFound: nf},
		{method: http.MethodPatch, path: "/:id", access: SessionOrKey, class: auth.ClassDefault, handle: s.updateWebhook, notFound: nf, precheck: rw},
		{method: http.MethodDelete, path: "/:id", access: SessionOrKey, class: auth.ClassDefault, handle: s.deleteWebhook, notFound: nf, precheck: rw},
		{method: http.MethodPost, path: "/:id/rotate", access: SessionOrKey, class: auth.ClassDefault, handle: s.rotateWebhook, notFound: nf, precheck: rw},
		{method: http.MethodPost, path: "/:id/test", access: SessionOrKey, class: auth.ClassDefault, handle: s.testWebhook, notFound: nf, precheck: rw},
		{method: http.MethodGet, path: "/:id/deliveries", access: SessionOrKey, class: auth.ClassDefault, handle: s.listDeliveries, notFound: nf},
		{method: http.MethodPost, path: "/:id/deliveries/:delivery/replay", access: SessionOrKey, class: auth.ClassDefault, handle: s.replayDelivery, notFound: "webhook or delivery not found", precheck: rw},
		{method: http.MethodPost, path: "/:id/replay", access: SessionOrKey, class: auth.ClassDefault, handle: s.replayWebhook, notFound: nf, precheck: rw},
	}}}
	if s.cfg.Streams != nil {
		groups = append(groups, group{prefix: "/account", routes: []route{
			{method: http.MethodGet, path: "/stream", access: SessionOrKey, class: auth.ClassDefault, handle: s.accountStream},
		}})
	}
	return groups
}

// GET /account/stream: the account's events (SSE), resumable with Last-Event-ID on any replica.
func (s *Server) accountStream(w http.ResponseWriter, req bunrouter.Request) error {
	conn, err := s.cfg.Streams.Account(req.Context(), principalOf(req).AccountID, req.Header.Get("Last-Event-ID"))
	if err != nil {
		return err
	}
	s.serveStream(w, req, conn)
	return nil
}

// accountEventJSON is the data of every event of the account stream: the same envelope as a
// webhook delivery's body.
type accountEventJSON struct {
	ID        string `json:"id"`
	Type      string `json:"type"`
	Timestamp string `json:"timestamp"`
	// Data is the payload: the same as the matching read's (docs/API.md lists them).
	Data map[string]any `json:"data"`
}

// readWrite refuses a read-only key, as a refusal before any budget is spent.
func (s *Server) readWrite(_ *http.Request, p *auth.Principal) error {
	if p != nil && p.ReadOnly {
		return fmt.Errorf("%w: this API key is read-only and cannot change webhooks", curvekit.ErrForbidden)
	}
	return nil
}

// webhookBody creates (url and types required) or changes (every field optional) a webhook.
type webhookBody struct {
	URL   *string   `json:"url" openapi:"required"`
	Types *[]string `json:"types" openapi:"required"`
	// Tokens limits the market's events to these tokens; [] for all.
	Tokens *[]string `json:"tokens"`
	// MinTradeSize drops trades smaller than this, in whole units of the pairing asset; "" for
	// no minimum.
	MinTradeSize *string `json:"minTradeSize"`
	Enabled      *bool   `json:"enabled"`
}

// webhookPatch is the body of PATCH /webhooks/:id: the fields to change.
type webhookPatch struct {
	URL          *string   `json:"url"`
	Types        *[]string `json:"types"`
	Tokens       *[]string `json:"tokens"`
	MinTradeSize *string   `json:"minTradeSize"`
	Enabled      *bool     `json:"enabled"`
}

// parse checks the fields given; create says url and types are required.
func (b *webhookBody) parse(create bool) (p push.UpdateParams, err error) {
	var probs curvekit.Problems
	if create && b.URL == nil {
		probs = append(probs, "url is required")
	}
	if create && b.Types == nil {
		probs = append(probs, "types is required")
	}
	p.URL, p.MinSize, p.Enabled = b.URL, b.MinTradeSize, b.Enabled
	if b.Types != nil {
		types := make([]push.Type, len(*b.Types))
		for i, t := range *b.Types {
			types[i] = push.Type(t)
		}
		p.Types = &types
	}
	if b.Tokens != nil {
		if len(*b.Tokens) > push.MaxTokens {
			probs = append(probs, fmt.Sprintf("tokens must list at most %d addresses", push.MaxTokens))
		} else {
			tokens := make([]common.Address, 0, len(*b.Tokens))
			for _, t := range *b.Tokens {
				a, ok := parseAddress(t)
				if !ok {
					probs = append(probs, "tokens must be addresses: 0x followed by 40 hex digits")
					break
				}
				tokens = append(tokens, a)
			}
			p.Tokens = &tokens
		}
	}
	return p, problemsErr(probs)
}

type webhookJSON struct {
	ID           string   `json:"id"`
	URL          string   `json:"url"`
	Types        []string `json:"types"`
	Tokens       []string `json:"tokens"`
	MinTradeSize *string  `json:"minTradeSize"`
	Enabled      bool     `json:"enabled"`
	// DisabledReason says why the server disabled it (410, days of failures); null otherwise.
	DisabledReason *string `json:"disabledReason"`
	// FailingSince is when deliveries began failing without a success since; null when the last
	// attempt succeeded.
	FailingSince *int64 `json:"failingSince"`
	// PreviousSecretUntil is when the secret replaced by the last rotation stops signing.
	PreviousSecretUntil *int64 `json:"previousSecretUntil"`
	CreatedAt           int64  `json:"createdAt"`
	UpdatedAt           int64  `json:"updatedAt"`
}

type webhookListJSON struct {
	Webhooks []webhookJSON `json:"webhooks"`
}

// webhookSecretJSON is a webhook with its signing secret, shown in this answer only.
type webhookSecretJSON struct {
	webhookJSON
	Secret string `json:"secret"`
}

type webhookDeletedJSON struct {
	ID      string `json:"id"`
	Deleted bool   `json:"deleted"`
}

func webhookOf(sub *push.Subscription) webhookJSON {
	out := webhookJSON{ID: sub.ID, URL: sub.URL, Types: make([]string, len(sub.Types)), Tokens: make([]string, len(sub.Tokens)),
		Enabled: sub.Enabled, FailingSince: unixOrNull(sub.FailingSince), CreatedAt: sub.CreatedAt.Unix(), UpdatedAt: sub.UpdatedAt.Unix()}
	for i, t := range sub.Types {
		out.Types[i] = string(t)
	}
	for i, t := range sub.Tokens {
		out.Tokens[i] = t.Hex()
	}
	if sub.MinSize != "" {
		out.MinTradeSize = &sub.MinSize
	}
	if sub.DisabledReason != "" {
		out.DisabledReason = &sub.DisabledReason
	}
	if !sub.Previous.IsZero() && sub.PreviousUntil.After(time.Now()) {
		out.PreviousSecretUntil = unixOrNull(sub.PreviousUntil)
	}
	return out
}

// POST /webhooks
func (s *Server) createWebhook(w http.ResponseWriter, req bunrouter.Request) error {
	var body webhookBody
	if err := decodeJSON(w, req.Request, &body); err != nil {
		return err
	}
	p, err := body.parse(true)
	if err != nil {
		return err
	}
	cp := push.CreateParams{AccountID: principalOf(req).AccountID, URL: *p.URL, Types: *p.Types, Enabled: p.Enabled}
	if p.Tokens != nil {
		cp.Tokens = *p.Tokens
	}
	if p.MinSize != nil {
		cp.MinSize = *p.MinSize
	}
	sub, secret, err := s.cfg.Push.Create(req.Context(), cp)
	if err != nil {
		return err
	}
	w.Header().Set("Cache-Control", "no-store") // the secret is in this answer only
	return writeJSON(w, http.StatusCreated, webhookSecretJSON{webhookJSON: webhookOf(&sub), Secret: secret})
}

// GET /webhooks
func (s *Server) listWebhooks(w http.ResponseWriter, req bunrouter.Request) error {
	subs, err := s.cfg.Push.Subscriptions(req.Context(), principalOf(req).AccountID)
	if err != nil {
		return err
	}
	out := webhookListJSON{Webhooks: make([]webhookJSON, len(subs))}
	for i := range subs {
		out.Webhooks[i] = webhookOf(&subs[i])
	}
	return writeJSON(w, http.StatusOK, out)
}

// GET /webhooks/:id
func (s *Server) getWebhook(w http.ResponseWriter, req bunrouter.Request) error {
	sub, err := s.cfg.Push.Subscription(req.Context(), principalOf(req).AccountID, req.Param("id"))
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, webhookOf(&sub))
}

// PATCH /webhooks/:id
func (s *Server) updateWebhook(w http.ResponseWriter, req bunrouter.Request) error {
	var patch webhookPatch
	if err := decodeJSON(w, req.Request, &patch); err != nil {
		return err
	}
	body := webhookBody(patch)
	p, err := body.parse(false)
	if err != nil {
		return err
	}
	p.AccountID, p.ID = principalOf(req).AccountID, req.Param("id")
	sub, err := s.cfg.Push.Update(req.Context(), p)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, webhookOf(&sub))
}

// DELETE /webhooks/:id
func (s *Server) deleteWebhook(w http.ResponseWriter, req bunrouter.Request) error {
	id := req.Param("id")
	if err := s.cfg.Push.Delete(req.Context(), principalOf(req).AccountID, id); err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, webhookDeletedJSON{ID: id, Deleted: true})
}

// POST /webhooks/:id/rotate
func (s *Server) rotateWebhook(w http.ResponseWriter, req bunrouter.Request) error {
	if err := emptyPost(w, req); err != nil {
		return err
	}
	sub, secret, err := s.cfg.Push.Rotate(req.Context(), principalOf(req).AccountID, req.Param("id"))
	if err != nil {
		return err
	}
	w.Header().Set("Cache-Control", "no-store")
	return writeJSON(w, http.StatusOK, webhookSecretJSON{webhookJSON: webhookOf(&sub), Secret: secret})
}

// emptyPost accepts no body or an empty object, as every body is decoded strictly.
func emptyPost(w http.ResponseWriter, req bunrouter.Request) error {
	raw, err := readBody(w, req.Request, defaultMaxBody)
	if err != nil {
		return err
	}
	if len(raw) > 0 {
		return decodeStrict(raw, &emptyBody{})
	}
	return nil
}

type attemptJSON struct {
	N  int   `json:"n"`
	At int64 `json:"at"`
	// Status is the receiver's HTTP status; null when no answer came.
	Status    *int  `json:"status"`
	LatencyMs int64 `json:"latencyMs"`
	// Response is the start of the answer (at most 1 KiB), as text.
	Response string  `json:"response"`
	Error    *string `json:"error"`
}

type deliveryJSON struct {
	ID      string `json:"id"`
	EventID string `json:"eventId"`
	Type    string `json:"type"`
	// State is pending, succeeded or failed.
	State string `json:"state"`
	// NextAttemptAt is when a pending delivery is tried next; null otherwise.
	NextAttemptAt *int64        `json:"nextAttemptAt"`
	Attempts      []attemptJSON `json:"attempts"`
	CreatedAt     int64         `json:"createdAt"`
}

type deliveryListJSON struct {
	Deliveries []deliveryJSON `json:"deliveries"`
	NextCursor *string        `json:"nextCursor"`
}

func deliveryOf(d *push.Delivery) deliveryJSON {
	out := deliveryJSON{ID: d.ID, EventID: d.EventID, Type: string(d.EventType), State: string(d.State), Attempts: make([]attemptJSON, len(d.Attempts)),
		CreatedAt: d.CreatedAt.Unix()}
	if d.State == push.DeliveryPending {
		out.NextAttemptAt = unixOrNull(d.NextAt)
	}
	for i, a := range d.Attempts {
		aj := attemptJSON{N: a.N, At: a.At.Unix(), LatencyMs: a.Latency.Milliseconds(), Response: a.Response}
		if a.Status != 0 {
			st := a.Status
			aj.Status = &st
		}
		if a.Error != "" {
			e := a.Error
			aj.Error = &e
		}
		out.Attempts[i] = aj
	}
	return out
}

// POST /webhooks/:id/test
func (s *Server) testWebhook(w http.ResponseWriter, req bunrouter.Request) error {
	if err := emptyPost(w, req); err != nil {
		return err
	}
	d, err := s.cfg.Push.Test(req.Context(), principalOf(req).AccountID, req.Param("id"))
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusAccepted, deliveryOf(&d))
}

// GET /webhooks/:id/deliveries
func (s *Server) listDeliveries(w http.ResponseWriter, req bunrouter.Request) error {
	q := newQuery(req.URL)
	cursor := q.str("cursor", "")
	limit := int(q.intIn("limit", 50, 1, push.MaxDeliveries))
	if err := q.err(); err != nil {
		return err
	}
	page, err := s.cfg.Push.Deliveries(req.Context(), push.DeliveryQuery{AccountID: principalOf(req).AccountID, SubscriptionID: req.Param("id"), Cursor: cursor, Limit: limit})
	if err != nil {
		return err
	}
	out := deliveryListJSON{Deliveries: make([]deliveryJSON, len(page.Deliveries)), NextCursor: cursorOrNull(page.Next)}
	for i := range page.Deliveries {
		out.Deliveries[i] = deliveryOf(&page.Deliveries[i])
	}
	return writeJSON(w, http.StatusOK, out)
}

type replayedJSON struct {
	// Replayed is how many deliveries will be attempted again, with their webhook-id.
	Replayed int `json:"replayed"`
}

// POST /webhooks/:id/deliveries/:delivery/replay
func (s *Server) replayDelivery(w http.ResponseWriter, req bunrouter.Request) error {
	if err := emptyPost(w, req); err != nil {
		return err
	}
	n, err := s.cfg.Push.Replay(req.Context(), push.ReplayParams{AccountID: principalOf(req).AccountID, SubscriptionID: req.Param("id"), DeliveryID: req.Param("delivery")})
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusAccepted, replayedJSON{Replayed: n})
}

// replayBody asks to deliver again everything since a time.
type replayBody struct {
	// Since is Unix seconds: every delivery made at or after it is attempted again.
	Since *int64 `json:"since" openapi:"required"`
}

// POST /webhooks/:id/replay
func (s *Server) replayWebhook(w http.ResponseWriter, req bunrouter.Request) error {
	var body replayBody
	if err := decodeJSON(w, req.Request, &body); err != nil {
		return err
	}
	if body.Since == nil || *body.Since < 0 {
		return invalid("since is required: Unix seconds")
	}
	n, err := s.cfg.Push.Replay(req.Context(), push.ReplayParams{AccountID: principalOf(req).AccountID, SubscriptionID: req.Param("id"), Since: time.Unix(*body.Since, 0)})
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusAccepted, replayedJSON{Replayed: n})
}

// EventPayloads encodes the payloads of push events as the API shows the same things, so that a
// webhook's data is what the matching read returns: a token as GET /tokens/:address, a wallet
// transaction as GET /wallet/transactions lists it, a job as GET /agent/job/:id, creator fees as
// GET /launch/fees/:wallet. A trade's is the token stream's trade event (StreamCodec().Trade).
type EventPayloads struct{}

// Token is a token as GET /tokens/:address shows it.
func (EventPayloads) Token(v *market.View) ([]byte, error) { return json.Marshal(tokenOf(v)) }

// WalletTransaction is a transaction as GET /wallet/transactions lists it.
func (EventPayloads) WalletTransaction(t *wallet.Transaction) ([]byte, error) {
	return json.Marshal(walletTxOf(t))
}

// Job is a job as GET /agent/job/:id shows it.
func (EventPayloads) Job(j *agent.Job) ([]byte, error) { return json.Marshal(jobOf(j)) }

// SettingsChanged is the settings as GET /account/settings shows them after a change, with
// the change's entry as GET /account/activity lists it.
func (EventPayloads) SettingsChanged(st *account.Settings, a *account.Activity) ([]byte, error) {
	return json.Marshal(settingsChangedJSON{Settings: *st, Activity: activityOf(a)})
}

// Order is an order with its fires as GET /orders/:id shows it.
func (EventPayloads) Order(o *orders.Order) ([]byte, error) { return json.Marshal(orderOf(o)) }

// CreatorFees are a wallet's creator fees as GET /launch/fees/:wallet shows them.
func (EventPayloads) CreatorFees(w common.Address, fees []launch.AssetFees) ([]byte, error) {
	return json.Marshal(feesOf(w, fees))
}
