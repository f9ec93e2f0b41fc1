package auth

import (
	"fmt"
	"net/netip"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/curvekit/curvekit"
)

// ParseTier returns the tier named s, or curvekit.ErrInvalid.
func ParseTier(s string) (curvekit.Tier, error) {
	switch t := curvekit.Tier(s); t {
	case curvekit.TierFree, curvekit.TierPro:
		return t, nil
	}
	return "", fmt.Errorf("%w: tier %q, want %q or %q", curvekit.ErrInvalid, s, curvekit.TierFree, curvekit.TierPro)
}

// Kind says which credential a Principal presented.
type Kind string

const (
	// KindSession is the svc_session cookie of a signed-in browser.
	KindSession Kind = "session"
	// KindKey is an API key sent as X-API-Key.
	KindKey Kind = "key"
)

// Principal is who a request acts as: an account reached through one credential, with that
// credential's restrictions. Every restriction only narrows what the account may do (SPEC 5
// rule 3); a session carries none.
type Principal struct {
	AccountID string
	// Wallet is the account's custodial wallet: the only wallet the principal may act for.
	Wallet  common.Address
	Handle  string
	Picture string
	Tier    curvekit.Tier
	Kind    Kind
	// SessionID is set for KindSession, KeyID for KindKey.
	SessionID string
	KeyID     string
	// ReadOnly keys may not reach the signing path (SPEC 5 rule 4).
	ReadOnly bool
	// AllowedIPs, when not empty, are the only client addresses the key may be used from.
	AllowedIPs []netip.Prefix
	// AllowedRecipients, when not empty, are the only addresses the key may send transactions to.
	AllowedRecipients []common.Address
	// SignedInAt is when the sign-in behind a session happened (key export wants a recent one);
	// zero for keys.
	SignedInAt time.Time
}

// AllowsIP reports whether a request from addr may use this principal: always when AllowedIPs is
// empty, else when a listed range holds addr. An IPv4 client seen on a dual-stack listener as
// ::ffff:a.b.c.d is compared as a.b.c.d.
func (p *Principal) AllowsIP(addr netip.Addr) bool {
	if len(p.AllowedIPs) == 0 {
		return true
	}
	addr = addr.Unmap()
	for _, pfx := range p.AllowedIPs {
		if pfx.Contains(addr) {
			return true
		}
	}
	return false
}

// Outcome is what Authenticate made of a request's credentials.
type Outcome int

const (
	// NoCredential: the request presented neither a session token nor an API key.
	NoCredential Outcome = iota
	// Authenticated: the credential is valid and the principal is set.
	Authenticated
	// Refused: a credential was presented but is malformed, unknown, revoked or expired. The HTTP
	// layer counts these against the client IP so that guessing is throttled.
	Refused
)

func (o Outcome) String() string {
	switch o {
	case NoCredential:
		return "no credential"
	case Authenticated:
		return "authenticated"
	case Refused:
		return "refused"
	}
	return fmt.Sprintf("Outcome(%d)", int(o))
}
