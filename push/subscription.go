package push

import (
	"slices"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/holiman/uint256"

	"github.com/curvekit/curvekit"
)

// Subscription is an account's webhook: where to post which events.
type Subscription struct {
	ID        string
	AccountID string
	URL       string
	// Types it asks for; at least one, each Known.
	Types []Type
	// Tokens limits the market's events to these tokens; empty for all.
	Tokens []common.Address
	// MinSize drops trades smaller than it in whole units of the pairing asset ("0.5"); empty
	// for no minimum.
	MinSize string
	Enabled bool
	// Secret is the current signing secret, sealed; Previous the one before a rotation, which
	// signs beside it until PreviousUntil.
	Secret        Sealed
	Previous      Sealed
	PreviousUntil time.Time
	// FailingSince is when deliveries started failing without a success since; zero when the
	// last attempt succeeded. DisabledReason says why the subscription was disabled, if it was
	// not by its owner.
	FailingSince   time.Time
	DisabledReason string
	CreatedAt      time.Time
	UpdatedAt      time.Time
}

// Matches reports whether s wants e. An account event matches only its account's
// subscriptions (the store resolves Event.Wallet before asking).
func (s *Subscription) Matches(e *Event) bool {
	if !s.Enabled || !slices.Contains(s.Types, e.Type) {
		return false
	}
	if e.Account != "" && e.Account != s.AccountID {
		return false
	}
	if len(s.Tokens) > 0 && e.Token != (common.Address{}) && !slices.Contains(s.Tokens, e.Token) {
		return false
	}
	if s.MinSize != "" && e.Type == Trade {
		least, ok := minimum(s.MinSize, e.Decimals)
		return ok && !e.Size.Lt(&least)
	}
	return true
}

// minimum returns a minimum size in base units of an asset with the given decimals, rounded up
// when it has more fractional digits than the asset; false when it does not fit.
func minimum(size string, decimals uint8) (uint256.Int, bool) {
	whole, frac, _ := strings.Cut(size, ".")
	up := false
	if len(frac) > int(decimals) {
		up = strings.Trim(frac[decimals:], "0") != ""
		frac = frac[:decimals]
	}
	s := whole
	if frac != "" {
		s += "." + frac
	}
	v, err := curvekit.ParseAmount(s, decimals)
	if err != nil {
		return v, false
	}
	if up {
		if _, over := v.AddOverflow(&v, uint256.NewInt(1)); over {
			return v, false
		}
	}
	return v, true
}

// Sealed is a secret encrypted under a data key, which is wrapped by the master key of Version.
type Sealed struct {
	Version    uint32
	DataKey    []byte
	Ciphertext []byte
}

// IsZero reports whether nothing is sealed.
func (s *Sealed) IsZero() bool { return len(s.Ciphertext) == 0 }
