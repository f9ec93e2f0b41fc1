package authtest

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"net/url"
	"sync"

	"github.com/ethereum/go-ethereum/common"

	"github.com/curvekit/curvekit"
	"github.com/curvekit/curvekit/auth"
)

// Provider is an in-process auth.IdentityProvider for tests of the sign-in flow. It keeps the
// rules a real provider enforces: a code is issued for one authorization request, is redeemed
// once, and only with the verifier whose S256 challenge that request carried.
type Provider struct {
	mu    sync.Mutex
	codes map[string]grant
	// Exchanges counts Exchange calls, refused ones included.
	Exchanges int
}

type grant struct {
	challenge string
	id        auth.Identity
}

// authorizeURL is where the fake's authorization URLs point; nothing listens there.
const authorizeURL = "https://idp.example/authorize"

// AuthCodeURL returns an authorization URL carrying the state, the verifier's S256 challenge and
// the login hint, as a real provider's URL does.
func (p *Provider) AuthCodeURL(state, verifier, loginHint string) string {
	sum := sha256.Sum256([]byte(verifier))
	q := url.Values{
		"response_type":         {"code"},
		"state":                 {state},
		"code_challenge":        {base64.RawURLEncoding.EncodeToString(sum[:])},
		"code_challenge_method": {"S256"},
	}
	if loginHint != "" {
		q.Set("login_hint", loginHint)
	}
	return authorizeURL + "?" + q.Encode()
}

// Approve plays the person who signs in as id at authURL: it returns the code and the state the
// provider sends back to the callback.
func (p *Provider) Approve(authURL string, id auth.Identity) (code, state string, err error) {
	u, err := url.Parse(authURL)
	if err != nil {
		return "", "", err
	}
	q := u.Query()
	if q.Get("code_challenge_method") != "S256" || q.Get("code_challenge") == "" {
		return "", "", fmt.Errorf("authtest: authorization URL without an S256 challenge: %s", authURL)
	}
	var b [16]byte
	rand.Read(b[:])
	code = hex.EncodeToString(b[:])
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.codes == nil {
		p.codes = make(map[string]grant)
	}
	p.codes[code] = grant{challenge: q.Get("code_challenge"), id: id}
	return code, q.Get("state"), nil
}

// Exchange redeems a code once, with the verifier that matches its challenge.
func (p *Provider) Exchange(_ context.Context, code, verifier string) (auth.Identity, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.Exchanges++
	g, ok := p.codes[code]
	if !ok {
		return auth.Identity{}, fmt.Errorf("%w: invalid_grant: unknown or used code", curvekit.ErrUnauthorized)
	}
	delete(p.codes, code)
	sum := sha256.Sum256([]byte(verifier))
	if base64.RawURLEncoding.EncodeToString(sum[:]) != g.challenge {
		return auth.Identity{}, fmt.Errorf("%w: invalid_grant: PKCE verifier does not match", curvekit.ErrUnauthorized)
	}
	return g.id, nil
}

// Wallets is an auth.WalletCreator for tests: one address per account, derived from its id, and
// a count of calls.
type Wallets struct {
	mu    sync.Mutex
	calls map[string]int
	// Fail, when set, is returned by CreateWallet instead of an address.
	Fail error
}

// CreateWallet returns the account's address.
func (w *Wallets) CreateWallet(_ context.Context, accountID string) (common.Address, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.calls == nil {
		w.calls = make(map[string]int)
	}
	w.calls[accountID]++
	if w.Fail != nil {
		return common.Address{}, w.Fail
	}
	return AddressOf(accountID), nil
}

// Calls returns how often CreateWallet was called for accountID.
func (w *Wallets) Calls(accountID string) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.calls[accountID]
}

// AddressOf is the address Wallets gives accountID.
func AddressOf(accountID string) common.Address {
	sum := sha256.Sum256([]byte("wallet of " + accountID))
	return common.BytesToAddress(sum[12:])
}

var (
	_ auth.IdentityProvider = (*Provider)(nil)
	_ auth.WalletCreator    = (*Wallets)(nil)
)
