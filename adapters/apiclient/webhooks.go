package apiclient

import (
	"context"
	"net/http"
	"net/url"
)

// Webhook is a subscription of the account (GET /webhooks/:id); Secret is set only in the answer
// that creates or rotates it.
type Webhook struct {
	ID                  string   `json:"id"`
	URL                 string   `json:"url"`
	Types               []string `json:"types"`
	Tokens              []string `json:"tokens"`
	MinTradeSize        *string  `json:"minTradeSize"`
	Enabled             bool     `json:"enabled"`
	DisabledReason      *string  `json:"disabledReason"`
	FailingSince        *int64   `json:"failingSince"`
	PreviousSecretUntil *int64   `json:"previousSecretUntil"`
	CreatedAt           int64    `json:"createdAt"`
	UpdatedAt           int64    `json:"updatedAt"`
	Secret              string   `json:"secret,omitempty"`
}

// WebhookRequest is the body of POST /webhooks.
type WebhookRequest struct {
	URL          string   `json:"url"`
	Types        []string `json:"types"`
	Tokens       []string `json:"tokens,omitempty"`
	MinTradeSize string   `json:"minTradeSize,omitempty"`
}

// Delivery is one event on its way to a webhook, with its attempts.
type Delivery struct {
	ID            string    `json:"id"`
	EventID       string    `json:"eventId"`
	Type          string    `json:"type"`
	State         string    `json:"state"`
	NextAttemptAt *int64    `json:"nextAttemptAt"`
	Attempts      []Attempt `json:"attempts"`
	CreatedAt     int64     `json:"createdAt"`
}

// Attempt is one try at a delivery.
type Attempt struct {
	N         int     `json:"n"`
	At        int64   `json:"at"`
	Status    *int    `json:"status"`
	LatencyMs int64   `json:"latencyMs"`
	Response  string  `json:"response"`
	Error     *string `json:"error"`
}

// DeliveryPage is a page of a webhook's delivery log, newest first.
type DeliveryPage struct {
	Deliveries []Delivery `json:"deliveries"`
	NextCursor *string    `json:"nextCursor"`
}

// CreateWebhook subscribes a URL to events (API key, not read-only); the answer carries the
// signing secret, this once.
func (c *Client) CreateWebhook(ctx context.Context, r WebhookRequest) (Webhook, error) {
	var out Webhook
	if err := c.needKey(); err != nil {
		return out, err
	}
	return out, c.do(ctx, http.MethodPost, "/webhooks", nil, r, &out)
}

// Webhooks lists the account's webhooks (API key).
func (c *Client) Webhooks(ctx context.Context) ([]Webhook, error) {
	var out struct {
		Webhooks []Webhook `json:"webhooks"`
	}
	if err := c.needKey(); err != nil {
		return nil, err
	}
	return out.Webhooks, c.get(ctx, "/webhooks", nil, &out)
}

// DeleteWebhook deletes a webhook and its log (API key, not read-only).
func (c *Client) DeleteWebhook(ctx context.Context, id string) error {
	if err := c.needKey(); err != nil {
		return err
	}
	return c.do(ctx, http.MethodDelete, "/webhooks/"+url.PathEscape(id), nil, nil, &struct{}{})
}

// TestWebhook queues a ping to the webhook now and returns its delivery (API key, not read-only).
func (c *Client) TestWebhook(ctx context.Context, id string) (Delivery, error) {
	var out Delivery
	if err := c.needKey(); err != nil {
		return out, err
	}
	return out, c.do(ctx, http.MethodPost, "/webhooks/"+url.PathEscape(id)+"/test", nil, nil, &out)
}

// RotateWebhookSecret gives the webhook a new signing secret, returned this once; the old one
// signs beside it for 24 hours (API key, not read-only).
func (c *Client) RotateWebhookSecret(ctx context.Context, id string) (Webhook, error) {
	var out Webhook
	if err := c.needKey(); err != nil {
		return out, err
	}
	return out, c.do(ctx, http.MethodPost, "/webhooks/"+url.PathEscape(id)+"/rotate", nil, nil, &out)
}

// Deliveries pages a webhook's delivery log, newest first (API key); cursor is the previous
// page's NextCursor, limit 0 for the server's default.
func (c *Client) Deliveries(ctx context.Context, id, cursor string, limit int) (DeliveryPage, error) {
	var out DeliveryPage
	if err := c.needKey(); err != nil {
		return out, err
	}
	q := pageQuery(cursor, limit)
	return out, c.get(ctx, "/webhooks/"+url.PathEscape(id)+"/deliveries", q, &out)
}

// Replayed is the answer of a replay: how many deliveries were made pending again.
type Replayed struct {
	Replayed int `json:"replayed"`
}

// ReplayDelivery delivers one event again to the webhook, with the same webhook-id and a fresh
// retry schedule (API key, not read-only).
func (c *Client) ReplayDelivery(ctx context.Context, id, delivery string) (Replayed, error) {
	var out Replayed
	if err := c.needKey(); err != nil {
		return out, err
	}
	return out, c.do(ctx, http.MethodPost, "/webhooks/"+url.PathEscape(id)+"/deliveries/"+url.PathEscape(delivery)+"/replay", nil, nil, &out)
}

// ReplayWebhook delivers again every delivery of the webhook made at or after since (Unix
// seconds) (API key, not read-only).
func (c *Client) ReplayWebhook(ctx context.Context, id string, since int64) (Replayed, error) {
	var out Replayed
	if err := c.needKey(); err != nil {
		return out, err
	}
	return out, c.do(ctx, http.MethodPost, "/webhooks/"+url.PathEscape(id)+"/replay", nil, map[string]int64{"since": since}, &out)
}
