package apiclient

import (
	"context"
	"net/http"
	"net/url"

	"github.com/curvekit/curvekit/orders"
)

// Order is an order with its fires (GET /orders/:id). Fields its kind does not use are nil.
type Order struct {
	ID        string   `json:"id"`
	Kind      string   `json:"kind"`
	State     string   `json:"state"`
	Token     string   `json:"token"`
	Side      string   `json:"side"`
	Amount    *string  `json:"amount"`
	Percent   *float64 `json:"percent"`
	Price     *string  `json:"price"`
	Trail     *float64 `json:"trail"`
	High      *string  `json:"high"`
	Slippage  float64  `json:"slippage"`
	Every     *string  `json:"every"`
	Times     *int     `json:"times"`
	Over      *string  `json:"over"`
	Slices    *int     `json:"slices"`
	Fired     int      `json:"fired"`
	Count     int      `json:"count"`
	NextAt    *int64   `json:"nextAt"`
	ExpiresAt *int64   `json:"expiresAt"`
	Reason    *string  `json:"reason"`
	KeyID     *string  `json:"keyId"`
	CreatedAt int64    `json:"createdAt"`
	UpdatedAt int64    `json:"updatedAt"`
	Fires     []Fire   `json:"fires"`
}

// Fire is one execution of an order.
type Fire struct {
	ID        string  `json:"id"`
	N         int     `json:"n"`
	State     string  `json:"state"`
	Price     *string `json:"price"`
	Block     *uint64 `json:"block"`
	TxHash    *string `json:"txHash"`
	AmountIn  *string `json:"amountIn"`
	AmountOut *string `json:"amountOut"`
	Code      *string `json:"code"`
	Error     *string `json:"error"`
	CreatedAt int64   `json:"createdAt"`
	UpdatedAt int64   `json:"updatedAt"`

	// Transactions are every transaction the fire sent, in the order sent: an "approve" when
	// the wallet's allowance fell short of what a sell spends, then the "trade" (TxHash).
	Transactions []FireTx `json:"transactions"`
}

// FireTx is one transaction of a fire: its kind ("approve" or "trade") and hash.
type FireTx struct {
	Kind string `json:"kind"`
	Hash string `json:"hash"`
}

// OrderPage is a page of orders, newest first.
type OrderPage struct {
	Orders     []Order `json:"orders"`
	NextCursor *string `json:"nextCursor"`
}

// OrdersParams filter and page GET /orders; zero values are left out.
type OrdersParams struct {
	Token, State, Kind, Cursor string
	Limit                      int
}

// PlaceOrder places a standing order that the server fires through the account's custodial
// wallet (API key, not read-only): an armed bot's explicit act. The request is the body of
// POST /orders as the orders package reads it.
func (c *Client) PlaceOrder(ctx context.Context, r orders.Request) (Order, error) {
	var out Order
	if err := c.needKey(); err != nil {
		return out, err
	}
	return out, c.do(ctx, http.MethodPost, "/orders", nil, r, &out)
}

// Orders lists the account's orders newest first (API key).
func (c *Client) Orders(ctx context.Context, p OrdersParams) (OrderPage, error) {
	var out OrderPage
	if err := c.needKey(); err != nil {
		return out, err
	}
	q := pageQuery(p.Cursor, p.Limit)
	set(q, "token", p.Token)
	set(q, "state", p.State)
	set(q, "kind", p.Kind)
	return out, c.get(ctx, "/orders", q, &out)
}

// Order reads one order with its fires (API key).
func (c *Client) Order(ctx context.Context, id string) (Order, error) {
	var out Order
	if err := c.needKey(); err != nil {
		return out, err
	}
	return out, c.get(ctx, "/orders/"+url.PathEscape(id), nil, &out)
}

// CancelOrder cancels an order (API key, not read-only); one that has ended is an *Error with
// Status 409.
func (c *Client) CancelOrder(ctx context.Context, id string) (Order, error) {
	var out Order
	if err := c.needKey(); err != nil {
		return out, err
	}
	return out, c.do(ctx, http.MethodDelete, "/orders/"+url.PathEscape(id), nil, nil, &out)
}
