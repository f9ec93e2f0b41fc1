// Package curvekit holds the vocabulary every other curvekit package shares: exact decimal amounts
// and the sentinel errors that ports return. It depends on nothing but the standard library and
// holiman/uint256, so pure packages and adapters alike can import it.
//
// The SDK itself is split by concern: curve (exact pricing), candles (OHLCV folding), txbuild
// (unsigned transactions), contracts (the reference Solidity contracts and their Go bindings),
// and adapters/* (databases, chains, rate limiters) behind small ports.
package curvekit

import "errors"

// Sentinel errors shared by ports and services. Compare with errors.Is.
var (
	// ErrNotFound reports that the thing asked for does not exist.
	ErrNotFound = errors.New("not found")
	// ErrInvalid reports input that fails validation; the message says which rule.
	ErrInvalid = errors.New("invalid input")
	// ErrUnauthorized reports a call that needs a credential and has none that is valid.
	ErrUnauthorized = errors.New("unauthorized")
	// ErrForbidden reports a caller who is known but may not do this (a read-only key signing,
	// another wallet's resource, a key used from an address outside its allowlist).
	ErrForbidden = errors.New("forbidden")
	// ErrConflict reports a request that clashes with the current state (cancelling a job that
	// already runs, reusing an idempotency key with another request).
	ErrConflict = errors.New("conflict")
	// ErrTooLarge reports input above a size limit (an image over 5 MB).
	ErrTooLarge = errors.New("too large")
	// ErrLimited reports a quota that is used up (daily launches, pending jobs per account).
	ErrLimited = errors.New("limit reached")
	// ErrUnavailable reports that a service the call needs (an IPFS node) cannot be reached
	// now; the call may succeed if retried later. The message names the service, never its
	// address or the low-level cause, which go to the log.
	ErrUnavailable = errors.New("unavailable")
	// ErrThrottled reports that a provider the call needs refuses calls for now because of
	// their rate (an HTTP 429, a provider's "request rate exceeded"). An error that matches it
	// also matches ErrUnavailable: the call may succeed if retried later, after a pause.
	ErrThrottled = errors.New("throttled")
)

// Side is the direction of a trade, seen from the trader: a buy spends the pairing asset for
// tokens, a sell spends tokens for the pairing asset.
type Side string

const (
	Buy  Side = "buy"
	Sell Side = "sell"
)

// Venue is where a token trades: on its bonding curve, or on the pool after graduation.
type Venue string

const (
	VenueCurve Venue = "curve"
	VenuePool  Venue = "pool"
)

// Tier is an account's subscription tier (SPEC 8: free and pro differ in daily launches). The
// account service keeps it; the launch service reads it for daily limits.
type Tier string

const (
	// TierFree is every account's tier unless an operator sets another.
	TierFree Tier = "free"
	// TierPro is set by an operator (a configured wallet list or a command).
	TierPro Tier = "pro"
)

// Problems is a validation failure that lists every failing field at once, so a client can fix a
// request in one round. It matches ErrInvalid under errors.Is; the HTTP API answers it as 400 with
// message an array of strings (SPEC 7).
type Problems []string

func (p Problems) Error() string {
	msg := ErrInvalid.Error() + ": "
	for i, s := range p {
		if i > 0 {
			msg += "; "
		}
		msg += s
	}
	return msg
}

// Is makes errors.Is(p, ErrInvalid) true.
func (p Problems) Is(target error) bool { return target == ErrInvalid }
