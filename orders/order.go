package orders

import (
	"fmt"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/holiman/uint256"

	"github.com/curvekit/curvekit"
)

// Kind is what an order does and what fires it.
type Kind string

// The kinds. Limit, stop-loss, take-profit and trailing-stop are price orders, fired by a trade
// that moves the price across their trigger; DCA and TWAP are time orders, fired by the clock.
const (
	Limit        Kind = "limit"
	StopLoss     Kind = "stop-loss"
	TakeProfit   Kind = "take-profit"
	TrailingStop Kind = "trailing-stop"
	DCA          Kind = "dca"
	TWAP         Kind = "twap"
)

// Kinds lists every kind in the order the documentation gives them.
var Kinds = []Kind{Limit, StopLoss, TakeProfit, TrailingStop, DCA, TWAP}

// Timed reports whether k fires on the clock (DCA, TWAP) rather than on the price.
func (k Kind) Timed() bool { return k == DCA || k == TWAP }

// State is where an order stands. An order is open while it waits for its trigger (a time order
// between fires too), triggered once a fire is recorded, sent once the fire's transaction is out;
// it ends filled (its last fire was indexed on chain), failed, expired or cancelled.
type State string

const (
	Open      State = "open"
	Triggered State = "triggered"
	Sent      State = "sent"
	Filled    State = "filled"
	Failed    State = "failed"
	Expired   State = "expired"
	Cancelled State = "cancelled"
)

// States lists every state.
var States = []State{Open, Triggered, Sent, Filled, Failed, Expired, Cancelled}

// Final reports whether s is an end state: nothing moves an order out of it.
func (s State) Final() bool { return s == Filled || s == Failed || s == Expired || s == Cancelled }

// Live reports whether an order in s counts against the wallet's limits and may still fire or
// be cancelled.
func (s State) Live() bool { return !s.Final() && s != "" }

// transitions are the moves the state machine allows.
var transitions = map[State][]State{
	Open:      {Triggered, Expired, Cancelled},
	Triggered: {Sent, Failed, Open, Cancelled},
	Sent:      {Filled, Failed, Open, Cancelled},
}

// CanMove reports whether an order may move from one state to another. Triggered and sent go
// back to open when a time order waits for its next slice, and when a price order's fire reverted
// on a curve that graduated under it (Outcome.Graduated); cancelling a triggered or sent order
// stops what is not yet fired (a fire that is out stays on chain).
func CanMove(from, to State) bool {
	for _, s := range transitions[from] {
		if s == to {
			return true
		}
	}
	return false
}

// Move returns the state after from→to, or curvekit.ErrConflict naming both when the machine
// forbids it (an order that ended).
func Move(from, to State) (State, error) {
	if !CanMove(from, to) {
		return from, fmt.Errorf("%w: an order that is %s cannot become %s", curvekit.ErrConflict, from, to)
	}
	return to, nil
}

// Order is one standing order of an account's custodial wallet.
type Order struct {
	ID        string
	AccountID string
	// KeyID is the API key that placed the order; empty when a session did. Every fire applies
	// that key's restrictions as they are then, and a key revoked since cancels the order
	// (ErrPlacerGone). An order a session placed is the account's and outlives the session.
	KeyID string
	// Wallet is the account's custodial wallet, which signs every fire.
	Wallet common.Address
	Kind   Kind
	Token  common.Address
	// Quote is the token's pairing asset (zero for ETH) and QuoteDecimals its decimals;
	// Decimals the token's. They are fixed when the order is placed, to read its amounts.
	Quote         common.Address
	QuoteDecimals uint8
	Decimals      uint8
	Side          curvekit.Side
	// Amount is what one fire spends: pairing-asset base units for a buy, token base units for
	// a sell; zero when Percent sets it. For a TWAP it is the total, spread over Slices.
	Amount uint256.Int
	// Percent is the share of the wallet's token balance a sell spends, in basis points
	// (5,000 is half); 0 when Amount is set.
	Percent uint32
	// Price is the trigger of limit, stop-loss and take-profit orders, scaled (see the package
	// comment).
	Price uint256.Int
	// TrailBps is a trailing stop's distance below the highest price, in basis points, and High
	// that highest price since the order was placed (scaled; zero before a trade was seen).
	TrailBps uint32
	High     uint256.Int
	// SlippageBps bounds how much less than the quote at fire time a fire accepts.
	SlippageBps uint32
	// Every and Times are a DCA's interval and count; Over and Slices a TWAP's duration and
	// slice count.
	Every  time.Duration
	Times  int
	Over   time.Duration
	Slices int
	// ExpiresAt ends an order still open at that time; zero for never.
	ExpiresAt time.Time
	State     State
	// Fired counts the fires recorded; NextAt is when a time order's next fire is due.
	Fired  int
	NextAt time.Time
	// Reason says why a failed order failed, or why the engine cancelled it (the code of its
	// last fire's refusal); empty for an order its owner cancelled.
	Reason    string
	CreatedAt time.Time
	UpdatedAt time.Time
	// Fires are the order's fires, oldest first (filled in by Store.Order and Store.Orders).
	Fires []Fire
}

// Count is how many fires the order makes in all: Times, Slices, or one.
func (o *Order) Count() int {
	switch o.Kind {
	case DCA:
		return o.Times
	case TWAP:
		return o.Slices
	}
	return 1
}

// Class is the limit class an order counts against: price orders or time orders.
func (o *Order) Class() Class {
	if o.Kind.Timed() {
		return ClassTime
	}
	return ClassPrice
}

// Class groups kinds for the per-wallet limits.
type Class string

const (
	ClassPrice Class = "price"
	ClassTime  Class = "time"
)

// SliceAmount is what fire n (0-based) of the order spends when Amount sets it: Amount for
// every fire of a DCA or a price order; for a TWAP an even share of the total, the last slice
// taking the remainder so the slices add up to the total exactly.
func (o *Order) SliceAmount(n int) uint256.Int {
	if o.Kind != TWAP || o.Slices <= 1 {
		return o.Amount
	}
	var share, rem uint256.Int
	share.DivMod(&o.Amount, uint256.NewInt(uint64(o.Slices)), &rem)
	if n == o.Slices-1 {
		share.Add(&share, &rem)
	}
	return share
}

// DueAt is when fire n (0-based) of a time order is due: a DCA's first at placement, then one
// every interval; a TWAP's at the start of each of Slices equal parts of its duration.
func (o *Order) DueAt(n int) time.Time {
	switch o.Kind {
	case DCA:
		return o.CreatedAt.Add(time.Duration(n) * o.Every)
	case TWAP:
		if o.Slices <= 0 {
			return o.CreatedAt
		}
		return o.CreatedAt.Add(time.Duration(n) * (o.Over / time.Duration(o.Slices)))
	}
	return time.Time{}
}

// FireState is where one fire stands: recorded (triggered), its transaction out (sent), then
// filled once indexed on chain, or failed with a code.
type FireState string

const (
	FireTriggered FireState = "triggered"
	FireSent      FireState = "sent"
	FireFilled    FireState = "filled"
	FireFailed    FireState = "failed"
)

// Fire is one execution of an order. Its ID is the idempotency key of its transaction, so a
// fire is sent at most once however often a leader retries it.
type Fire struct {
	ID      string
	OrderID string
	// N numbers the order's fires from 0.
	N     int
	State FireState
	// Price is the price that triggered it (scaled); zero for a time order's fire. Block and
	// LogIndex locate the trade that moved the price there.
	Price    uint256.Int
	Block    uint64
	LogIndex uint
	// Term is the indexer leadership term that recorded the fire.
	Term uint64
	// Txs are every transaction the fire sent, in the order sent: an approval first when the
	// wallet's allowance fell short of what a sell spends, then the trade.
	Txs []FireTx
	// TxHash is the fire's trade once sent; AmountIn and AmountOut what the trade spent
	// and received once filled (pairing asset and tokens, by the order's side).
	TxHash    common.Hash
	AmountIn  uint256.Int
	AmountOut uint256.Int
	// Code and Error say why a failed fire failed: a short code ("forbidden", "limited",
	// "invalid", "unavailable", "balance") and a client-safe message.
	Code      string
	Error     string
	CreatedAt time.Time
	UpdatedAt time.Time
}

// FireID is the id of fire n of an order: stable, so recording it twice records it once, and
// the same on every replica.
func FireID(orderID string, n int) string { return fmt.Sprintf("%s_f%d", orderID, n) }

// TxKind is what one of a fire's transactions does.
type TxKind string

const (
	// TxApprove is an ERC-20 approve of exactly what the trade spends, to the curve or the
	// router, sent ahead of a trade the wallet's allowance does not cover.
	TxApprove TxKind = "approve"
	// TxTrade is the fire's trade: the buy, the sell or the swap.
	TxTrade TxKind = "trade"
)

// FireTx is one transaction a fire sent, by its first hash (a fee bump keeps the wallet's
// record and adds hashes to it: GET /wallet/transactions lists them all).
type FireTx struct {
	Kind TxKind
	Hash common.Hash
}

// ApproveKey is the idempotency key of the approval a fire sends to spender: derived from the
// fire's id, so that a retry, a new leader or a restart is answered with the first approval
// rather than signing another, and one of its own per spender (the curve, then the router
// once the token graduated).
func ApproveKey(fireID string, spender common.Address) string {
	return fireID + "_approve_" + spender.Hex()
}
