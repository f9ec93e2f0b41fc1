package orders

import (
	"context"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/holiman/uint256"

	"github.com/curvekit/curvekit/market"
	"github.com/curvekit/curvekit/push"
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
	// CancelOrder moves the account's live order to cancelled at p.At and returns it, recording
	// the events of the cancellation (p.Events) in the same transaction; curvekit.ErrConflict
	// when it has ended, curvekit.ErrNotFound when there is none (and nothing is recorded).
	CancelOrder(ctx context.Context, p CancelParams) (Order, error)
	// Live returns every live order of any account, oldest first, without fires: what the
	// engine indexes when it starts leading.
	Live(ctx context.Context) ([]Order, error)
	// Trigger records fires, fenced: in one transaction it checks that p.Term is still the
	// indexer lease's term (market.ErrFenced otherwise, and nothing is written), then for each
	// fire moves its order from open to triggered (counting it in Fired, setting NextAt) and
	// stores the fire; a fire whose order is no longer open, or whose id exists, is skipped.
	// It also stores the highs of p.Highs, expires the orders of p.Expire still open and moves
	// the evaluated position to p.Position when set, recording the events of each fire stored
	// and each expiry (p.Events) in the same transaction. It returns the fires it stored.
	Trigger(ctx context.Context, p TriggerParams) ([]Fire, error)
	// Position returns the cursor of the last of the indexer's commits whose trades the
	// engine evaluated (TriggerParams.Position); false when none was recorded.
	Position(ctx context.Context) (market.Cursor, bool, error)
	// Fires returns the fires in state triggered or sent, oldest first: what a new leader
	// sends or follows after taking over.
	Fires(ctx context.Context, states ...FireState) ([]Fire, error)
	// SettleFire moves a fire on (sent, filled or failed) with what p says, and its order with
	// it: p.OrderState when set, and records the events of the move (p.Events) in the same
	// transaction. A fire already in a final state is curvekit.ErrConflict, and nothing is
	// recorded.
	SettleFire(ctx context.Context, p SettleParams) error
	// RecordFireTx adds p.Tx to the transactions of a fire that stays where it is (an approval
	// sent ahead of its trade), fenced by p.Term as SettleFire is. A hash the fire lists
	// already is recorded once; a fire in a final state is curvekit.ErrConflict, a missing one
	// curvekit.ErrNotFound.
	RecordFireTx(ctx context.Context, p FireTxParams) error
}

// FireTxParams records one transaction of a fire.
type FireTxParams struct {
	Term   uint64
	FireID string
	Tx     FireTx
	At     time.Time
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
	// Events, when set, is called inside the step with the order as the cancellation leaves
	// it, with its fires (f nil); the store records what it returns in the same transaction
	// (see TriggerParams.Events).
	Events Events
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
	// Position, when set, is the cursor of the indexer's commit up to which this evaluation
	// went: the store keeps it with the fires (see Store.Position).
	Position *market.Cursor
	At       time.Time
	// Events, when set, is called inside the step with each fire it stored and its order (f
	// the fire), and with each order it expired (f nil), as the step leaves them, with their
	// fires; the store records what it returns, with the events'
	// deliveries, in the same transaction: only if the step commits (push's outbox).
	Events Events
}

// Events builds the events of an order's change: o is the order with its fires as the store's
// step leaves it (what GET /orders/:id would show once it commits), f the fire that moved (or
// was stored), or nil when only the order moved (an expiry, a cancellation). The store calls it inside the step, so it must not
// touch the store; the events' ids must be stable, so a step retried records nothing twice.
type Events func(o *Order, f *Fire) []push.Event

// SettleParams moves one fire on.
type SettleParams struct {
	Term   uint64
	FireID string
	State  FireState
	TxHash common.Hash
	// Txs are added to the fire's transactions with the move (the trade when it is sent); a
	// hash the fire lists already is recorded once.
	Txs []FireTx
	// AmountIn and AmountOut are the filled trade's amounts.
	AmountIn, AmountOut uint256.Int
	Code, Error         string
	// OrderState moves the fire's order too when set (sent, filled, failed, open); Reason is
	// the order's failure reason.
	OrderState State
	Reason     string
	At         time.Time
	// Events, when set, is called inside the step with the fire's order and the fire as the
	// step leaves them; the store records what it returns in the same transaction (see
	// TriggerParams.Events). A refused step (ErrConflict, ErrFenced) records nothing.
	Events Events
}
