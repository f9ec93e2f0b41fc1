package push

import (
	"encoding/json"
	"slices"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/holiman/uint256"
)

// Type names what an event tells.
type Type string

// The event types. Adding one is a line here, in Types, and its source recording it with its
// cause (see the package comment).
const (
	TokenLaunched     Type = "token.launched"
	TokenGraduated    Type = "token.graduated"
	Trade             Type = "trade"
	JobCompleted      Type = "job.completed"
	JobFailed         Type = "job.failed"
	WalletTransaction Type = "wallet.transaction"
	FeesClaimable     Type = "fees.claimable"
	OrderTriggered    Type = "order.triggered"
	OrderSent         Type = "order.sent"
	OrderFilled       Type = "order.filled"
	OrderFailed       Type = "order.failed"
	OrderExpired      Type = "order.expired"
	OrderCancelled    Type = "order.cancelled"
	SettingsChanged   Type = "settings.changed"
	// WebhookDisabled tells an account that one of its subscriptions was disabled (it kept
	// failing, or its receiver answered 410).
	WebhookDisabled Type = "webhook.disabled"
	// Ping is what POST /webhooks/:id/test sends; no subscription asks for it.
	Ping Type = "ping"
)

// Types are the types a subscription may ask for, in the order the documentation lists them.
var Types = []Type{TokenLaunched, TokenGraduated, Trade, JobCompleted, JobFailed, WalletTransaction, FeesClaimable,
	OrderTriggered, OrderSent, OrderFilled, OrderFailed, OrderExpired, OrderCancelled, SettingsChanged, WebhookDisabled}

// Known reports whether a subscription may ask for t.
func Known(t Type) bool { return slices.Contains(Types, t) }

// Event is one thing an account may hear.
type Event struct {
	// ID is stable: derived from the cause ("trade_<block>_<log>_<blockhash>"), so that publishing
	// the same cause again records nothing new. It is the webhook-id of every delivery of it.
	ID   string
	Type Type
	// Time is when it happened (the block's time for the market's events).
	Time time.Time
	// Account is the account the event concerns; empty for a market event that any
	// subscription may ask for. Wallet, when set and Account is not, names the account by its
	// custodial wallet (the store resolves it; an event for a wallet no account holds is
	// dropped).
	Account string
	Wallet  common.Address
	// Token is the token a market event is about, for the tokens filter; zero for none.
	Token common.Address
	// Size is a trade's amount of the pairing asset in base units, and Decimals the asset's
	// decimals, for the minimum-size filter.
	Size     uint256.Int
	Decimals uint8
	// Data is the payload: JSON, the same as the matching SSE event's where one exists.
	Data json.RawMessage
	// Seq numbers the event among all the store recorded; set by the store.
	Seq int64
}

// Scoped reports whether e concerns one account (then the account stream carries it).
func (e *Event) Scoped() bool { return e.Account != "" || e.Wallet != (common.Address{}) }
