package httpapi

import (
	"net/http"
	"slices"

	"github.com/holiman/uint256"
	"github.com/uptrace/bunrouter"

	"github.com/curvekit/curvekit"
	"github.com/curvekit/curvekit/auth"
	"github.com/curvekit/curvekit/orders"
)

// orderRoutes are the account's standing orders, routed when the server has an Orders service.
// Placing and cancelling arm or disarm the wallet's signing, so a read-only key reads its orders
// and is refused the rest with 403; they count in a class of their own, per account (placing is
// not signing: a ladder of orders does not wait on the signing budget).
func (s *Server) orderRoutes() []group {
	if s.cfg.Orders == nil {
		return nil
	}
	const notFound = "order not found"
	return []group{{prefix: "/orders", routes: []route{
		{method: http.MethodPost, path: "", access: SessionOrKey, class: auth.ClassOrders, handle: s.placeOrder, notFound: "token not found"},
		{method: http.MethodGet, path: "", access: SessionOrKey, class: auth.ClassDefault, handle: s.listOrders},
		{method: http.MethodGet, path: "/:id", access: SessionOrKey, class: auth.ClassDefault, handle: s.getOrder, notFound: notFound},
		{method: http.MethodDelete, path: "/:id", access: SessionOrKey, class: auth.ClassOrders, handle: s.cancelOrder, notFound: notFound},
	}}}
}

// orderBody is an order as a client places it: the kind and the token, then what the kind
// needs (docs/API.md lists which fields each kind takes).
type orderBody orders.Request

// orderJSON is an order with its fires. Amounts are exact decimal strings in whole units: of the
// pairing asset for a buy, of the token for a sell; prices in the pairing asset per whole token.
// Times are Unix seconds.
type orderJSON struct {
	ID    string `json:"id"`
	Kind  string `json:"kind" enum:"limit,stop-loss,take-profit,trailing-stop,dca,twap"`
	State string `json:"state" enum:"open,triggered,sent,filled,failed,expired,cancelled"`
	Token string `json:"token"`
	Side  string `json:"side" enum:"buy,sell"`
	// Amount is what one fire spends (a TWAP's whole total); null when percent is set.
	Amount *string `json:"amount"`
	// Percent is the share of the token balance a sell spends at fire time; null when amount
	// is set.
	Percent *float64 `json:"percent"`
	// Price is the trigger of a limit, stop-loss or take-profit order; null for other kinds.
	Price *string `json:"price"`
	// Trail and High are a trailing stop's percent and the highest price it has seen.
	Trail    *float64 `json:"trail"`
	High     *string  `json:"high"`
	Slippage float64  `json:"slippage"`
	// Every and Times are a DCA's; Over and Slices a TWAP's (durations as Go writes them).
	Every  *string `json:"every"`
	Times  *int    `json:"times"`
	Over   *string `json:"over"`
	Slices *int    `json:"slices"`
	// Fired counts the fires so far, of count in all; NextAt is a time order's next fire.
	Fired     int    `json:"fired"`
	Count     int    `json:"count"`
	NextAt    *int64 `json:"nextAt"`
	ExpiresAt *int64 `json:"expiresAt"`
	// Reason is why a failed order failed, or why the server cancelled it (its key may no
	// longer trade).
	Reason *string `json:"reason"`
	// KeyID is the API key that placed the order, whose restrictions each fire applies; null
	// when a session placed it.
	KeyID     *string    `json:"keyId"`
	CreatedAt int64      `json:"createdAt"`
	UpdatedAt int64      `json:"updatedAt"`
	Fires     []fireJSON `json:"fires"`
}

// fireJSON is one fire of an order with its transaction.
type fireJSON struct {
	ID    string `json:"id"`
	N     int    `json:"n"`
	State string `json:"state" enum:"triggered,sent,filled,failed"`
	// Price is the price after the trade that fired it; null for a time order's fire.
	Price *string `json:"price"`
	// Block is the block of that trade; null for a time order's fire and for a fire at the
	// price now, which no trade made (an order placed beyond its trigger, a price order opened
	// again).
	Block *uint64 `json:"block"`
	// TxHash is the trade's, null until sent; AmountIn and AmountOut (what the trade spent and
	// received) until filled.
	TxHash    *string `json:"txHash"`
	AmountIn  *string `json:"amountIn"`
	AmountOut *string `json:"amountOut"`
	// Code and Error say why a failed fire failed.
	Code      *string `json:"code"`
	Error     *string `json:"error"`
	CreatedAt int64   `json:"createdAt"`
	UpdatedAt int64   `json:"updatedAt"`

	// Transactions are every transaction the fire sent, in the order sent: an "approve" of
	// exactly what a sell spends, only when the wallet's allowance on chain fell short, then
	// the "trade"; empty until the first is sent.
	Transactions []fireTxJSON `json:"transactions"`
}

// fireTxJSON is one transaction of a fire, by the hash it was first sent under.
type fireTxJSON struct {
	Kind string `json:"kind" enum:"approve,trade"`
	Hash string `json:"hash"`
}

type orderListJSON struct {
	Orders     []orderJSON `json:"orders"`
	NextCursor *string     `json:"nextCursor"`
}

func ptr[T any](v T) *T { return &v }

func percentOf(bps uint32) float64 { return float64(bps) / 100 }

func orderOf(o *orders.Order) orderJSON {
	spentDecimals, gotDecimals := o.Decimals, o.QuoteDecimals
	if o.Side == curvekit.Buy {
		spentDecimals, gotDecimals = o.QuoteDecimals, o.Decimals
	}
	out := orderJSON{
		ID: o.ID, Kind: string(o.Kind), State: string(o.State), Token: o.Token.Hex(), Side: string(o.Side),
		Slippage: percentOf(o.SlippageBps), Fired: o.Fired, Count: o.Count(),
		CreatedAt: o.CreatedAt.Unix(), UpdatedAt: o.UpdatedAt.Unix(), Fires: make([]fireJSON, len(o.Fires)),
	}
	if o.Percent > 0 {
		out.Percent = ptr(percentOf(o.Percent))
	} else {
		out.Amount = ptr(curvekit.FormatAmount(&o.Amount, spentDecimals))
	}
	switch o.Kind {
	case orders.Limit, orders.StopLoss, orders.TakeProfit:
		out.Price = ptr(orders.FormatPrice(&o.Price, o.QuoteDecimals))
	case orders.TrailingStop:
		out.Trail, out.High = ptr(percentOf(o.TrailBps)), ptr(orders.FormatPrice(&o.High, o.QuoteDecimals))
	case orders.DCA:
		out.Every, out.Times = ptr(o.Every.String()), ptr(o.Times)
	case orders.TWAP:
		out.Over, out.Slices = ptr(o.Over.String()), ptr(o.Slices)
	}
	if o.Kind.Timed() && o.State.Live() && o.Fired < o.Count() {
		out.NextAt = ptr(o.NextAt.Unix())
	}
	if !o.ExpiresAt.IsZero() {
		out.ExpiresAt = ptr(o.ExpiresAt.Unix())
	}
	if o.Reason != "" {
		out.Reason = ptr(o.Reason)
	}
	if o.KeyID != "" {
		out.KeyID = ptr(o.KeyID)
	}
	for i := range o.Fires {
		f := &o.Fires[i]
		fj := fireJSON{ID: f.ID, N: f.N, State: string(f.State), CreatedAt: f.CreatedAt.Unix(), UpdatedAt: f.UpdatedAt.Unix(),
			Transactions: make([]fireTxJSON, len(f.Txs))}
		for j, tx := range f.Txs {
			fj.Transactions[j] = fireTxJSON{Kind: string(tx.Kind), Hash: tx.Hash.Hex()}
		}
		if !f.Price.IsZero() {
			fj.Price = ptr(orders.FormatPrice(&f.Price, o.QuoteDecimals))
		}
		if f.Block != 0 {
			fj.Block = ptr(f.Block)
		}
		if f.TxHash != ([32]byte{}) {
			fj.TxHash = ptr(f.TxHash.Hex())
		}
		if f.State == orders.FireFilled {
			fj.AmountIn, fj.AmountOut = amountPtr(&f.AmountIn, spentDecimals), amountPtr(&f.AmountOut, gotDecimals)
		}
		if f.State == orders.FireFailed {
			fj.Code, fj.Error = ptr(f.Code), ptr(f.Error)
		}
		out.Fires[i] = fj
	}
	return out
}

func amountPtr(v *uint256.Int, decimals uint8) *string {
	return ptr(curvekit.FormatAmount(v, decimals))
}

// POST /orders: places an order for the caller's wallet; 201 with the order, open.
func (s *Server) placeOrder(w http.ResponseWriter, req bunrouter.Request) error {
	p := principalOf(req)
	raw, err := readBody(w, req.Request, defaultMaxBody)
	if err != nil {
		return err
	}
	var body orderBody
	if err := decodeStrict(raw, &body); err != nil {
		return err
	}
	o, err := s.cfg.Orders.Place(req.Context(), orders.PlaceParams{AccountID: p.AccountID, KeyID: p.KeyID, Wallet: p.Wallet, Request: orders.Request(body)})
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusCreated, orderOf(&o))
}

// GET /orders: the account's orders newest first, filtered by token, state or kind.
func (s *Server) listOrders(w http.ResponseWriter, req bunrouter.Request) error {
	q := newQuery(req.URL)
	query := orders.Query{AccountID: principalOf(req).AccountID, Cursor: q.str("cursor", ""), Limit: int(q.intIn("limit", 50, 1, orders.MaxPage))}
	if addr, ok := q.address("token"); ok {
		query.Token = addr
	}
	if st, ok := q.get("state"); ok {
		if !slices.Contains(orders.States, orders.State(st)) {
			q.fail("state must be one of open, triggered, sent, filled, failed, expired, cancelled")
		}
		query.State = orders.State(st)
	}
	if k, ok := q.get("kind"); ok {
		if !slices.Contains(orders.Kinds, orders.Kind(k)) {
			q.fail("kind must be one of limit, stop-loss, take-profit, trailing-stop, dca, twap")
		}
		query.Kind = orders.Kind(k)
	}
	if err := q.err(); err != nil {
		return err
	}
	page, err := s.cfg.Orders.Orders(req.Context(), query)
	if err != nil {
		return err
	}
	out := orderListJSON{Orders: make([]orderJSON, len(page.Orders)), NextCursor: cursorOrNull(page.Next)}
	for i := range page.Orders {
		out.Orders[i] = orderOf(&page.Orders[i])
	}
	return writeJSON(w, http.StatusOK, out)
}

// GET /orders/:id
func (s *Server) getOrder(w http.ResponseWriter, req bunrouter.Request) error {
	o, err := s.cfg.Orders.Order(req.Context(), principalOf(req).AccountID, req.Param("id"))
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, orderOf(&o))
}

// DELETE /orders/:id: cancels the order and answers it; 409 when it has ended.
func (s *Server) cancelOrder(w http.ResponseWriter, req bunrouter.Request) error {
	o, err := s.cfg.Orders.Cancel(req.Context(), principalOf(req).AccountID, req.Param("id"))
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, orderOf(&o))
}
