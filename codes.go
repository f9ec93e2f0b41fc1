package curvekit

import (
	"errors"
	"strings"
)

// Code is the machine-readable reason of a refusal, beside the message a person reads. The HTTP
// API answers it as the error body's code; the command line exits by it and MCP names it. The list
// is closed: a client may switch on it.
type Code string

// The refusal codes.
const (
	// CodeWalletPaused: the account paused its wallet; nothing is signed until it resumes.
	CodeWalletPaused Code = "WALLET_PAUSED"
	// CodePerTxLimitExceeded: what the transaction moves out of the wallet in a pairing asset
	// is above the account's per-transaction cap.
	CodePerTxLimitExceeded Code = "PER_TX_LIMIT_EXCEEDED"
	// CodeDailyLimitExceeded: with this transaction, what left the wallet in a pairing asset
	// over the last 24 hours would pass the account's daily cap.
	CodeDailyLimitExceeded Code = "DAILY_LIMIT_EXCEEDED"
	// CodePriceImpactTooHigh: the trade would move the price more than the account allows.
	CodePriceImpactTooHigh Code = "PRICE_IMPACT_TOO_HIGH"
	// CodeRecipientNotAllowed: an address that would receive value, tokens or an allowance is
	// on no list that permits it (the key's allowedRecipients, the account's recipients).
	CodeRecipientNotAllowed Code = "RECIPIENT_NOT_ALLOWED"
	// CodeRecipientCoolingDown: the recipient was added to the account's list too recently.
	CodeRecipientCoolingDown Code = "RECIPIENT_COOLING_DOWN"
	// CodeCallNotUnderstood: the call data is not a call curvekit can read, so the guard that
	// applies cannot vouch for it.
	CodeCallNotUnderstood Code = "CALL_NOT_UNDERSTOOD"
	// CodeSimulationReverted: run against the pending state, the transaction reverts.
	CodeSimulationReverted Code = "SIMULATION_REVERTED"
	// CodeReadOnlyKey: a read-only API key asked to sign or to change something.
	CodeReadOnlyKey Code = "READ_ONLY_KEY"
	// CodeIPNotAllowed: the API key is used from an address outside its allowedIps.
	CodeIPNotAllowed Code = "IP_NOT_ALLOWED"
	// CodeRateLimited: too many requests of this kind; retry later.
	CodeRateLimited Code = "RATE_LIMITED"
	// CodeValidationFailed: the request does not validate; the message lists every failing field.
	CodeValidationFailed Code = "VALIDATION_FAILED"
)

// Codes lists every code, in the order of their documentation.
var Codes = []Code{
	CodeWalletPaused, CodePerTxLimitExceeded, CodeDailyLimitExceeded, CodePriceImpactTooHigh,
	CodeRecipientNotAllowed, CodeRecipientCoolingDown, CodeCallNotUnderstood, CodeSimulationReverted,
	CodeReadOnlyKey, CodeIPNotAllowed, CodeRateLimited, CodeValidationFailed,
}

// CodedError is an error with a Code. It unwraps to its error, so the sentinel under it still
// decides the status.
type CodedError struct {
	Code Code
	Err  error
}

func (e *CodedError) Error() string { return e.Err.Error() }

func (e *CodedError) Unwrap() error { return e.Err }

// WithCode gives err a code; a nil err stays nil.
func WithCode(code Code, err error) error {
	if err == nil {
		return nil
	}
	return &CodedError{Code: code, Err: err}
}

// CodeOf is the code of err: the outermost CodedError's, VALIDATION_FAILED for any other
// validation failure (ErrInvalid), else "".
func CodeOf(err error) Code {
	var c *CodedError
	if errors.As(err, &c) {
		return c.Code
	}
	if errors.Is(err, ErrInvalid) {
		return CodeValidationFailed
	}
	return ""
}

// Reason is a refusal's message as a person reads it: err's text without the sentinel it
// begins with ("forbidden: ", "limit reached: ", "invalid input: ").
func Reason(err error) string {
	msg := err.Error()
	for _, sentinel := range []error{ErrForbidden, ErrLimited, ErrInvalid} {
		if rest, ok := strings.CutPrefix(msg, sentinel.Error()+": "); ok {
			return rest
		}
	}
	return msg
}
