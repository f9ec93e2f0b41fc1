package orders

import (
	"context"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/holiman/uint256"
)

// Store keeps orders and their fires. Each method is one atomic step. Methods that take an
// account answer another account's order with curvekit.ErrNotFound, as if it did not exist.
type Store interface {
	// CreateOrder stores p.Order unless its account already has p.Max live orders of the same
	// Class (curvekit.ErrLimited).
	CreateOrder(ctx context.Context, p CreateParams) error
	// Order returns the account's order id with its fires, or curvekit.ErrNotFound.
	Order(ctx context.Context, accountID, id string) (Order, error)
	// Orders pages the account's orders newest first, each with its fires.
	Orders(ctx context.Context, q Query) (Page, error)
	// CancelOrder moves the account's live order to cancelled at p.At and returns it;
	// curvekit.ErrConflict when it has ended, curvekit.ErrNotFound when there is none.
	CancelOrder(ctx context.Context, p CancelParams) (Order, error)
	// Live returns every live order of any account, oldest first, without fires: what the
	// engine indexes when it starts leading.
	Live(ctx context.Context) ([]Order, error)
	// Trigger records fires, fenced: in one transaction it checks that p.Term is still the
	// indexer lease's term (market.ErrFenced otherwise, and nothing is written), then for each
	// fire moves its order from open to triggered (counting it in Fired, setting NextAt) and
	// stores the fire; a fire whose order is no longer open, or whose id exists, is skipped.
	// It also stores the highs of p.Highs and expires the orders of p.Expire still open. It
	// returns the fires it stored.
	Trigger(ctx context.Context, p TriggerParams) ([]Fire, error)
	// Fires returns the fires in state triggered or sent, oldest first: what a new leader
	// sends or follows after taking over.
	Fires(ctx context.Context, states ...FireState) ([]Fire, error)
	// SettleFire moves a fire on (sent, filled or failed) with what p says, and its order with
	// it: p.OrderState when set. A fire already in a final state is curvekit.ErrConflict.
	SettleFire(ctx context.Context, p SettleParams) error
}

// CreateParams stores a new order under a per-class limit.
type CreateParams struct {
	Order Order
	Max   int
}

// CancelParams cancels an order.
type CancelParams struct {
	AccountID string
	ID        string
	At        time.Time
}

// Query pages an account's orders, or a wallet's (Wallet set, AccountID empty). Token, State and
// Kind filter when set.
type Query struct {
	AccountID string
	Wallet    common.Address
	Token     common.Address
	State     State
	Kind      Kind
	// Cursor is the Next of the previous page; empty for the first.
	Cursor string
	Limit  int
}

// Page is a page of orders, newest first.
type Page struct {
	Orders []Order
	// Next is the cursor of the following page; empty when this is the last.
	Next string
}

// TriggerParams are the fires one evaluation decided, under one leadership term.
type TriggerParams struct {
	Term  uint64
	Fires []Fire
	// NextAt is each fired order's next due time (time orders), by order id.
	NextAt map[string]time.Time
	// Highs are trailing stops' new highest prices, by order id.
	Highs map[string]uint256.Int
	// Expire lists orders to move from open to expired.
	Expire []string
	At     time.Time
}

// SettleParams moves one fire on.
type SettleParams struct {
	Term   uint64
	FireID string
	State  FireState
	TxHash common.Hash
	// AmountIn and AmountOut are the filled trade's amounts.
	AmountIn, AmountOut uint256.Int
	Code, Error         string
	// OrderState moves the fire's order too when set (sent, filled, failed, open); Reason is
	// the order's failure reason.
	OrderState State
	Reason     string
	At         time.Time
}
