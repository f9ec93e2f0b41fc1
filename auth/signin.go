package auth

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/ethereum/go-ethereum/common"

	"github.com/curvekit/curvekit"
)

// Sizes that bound what a sign-in accepts from the browser and the provider.
const (
	maxReturnTo  = 2048
	maxLoginHint = 256
	maxHandle    = 64
	maxName      = 128
	maxPicture   = 2048
	maxSubject   = 255
)

// BeginParams starts a sign-in (GET /auth/login).
type BeginParams struct {
	// ReturnTo is where the browser goes once signed in; anything but a relative path becomes
	// "/" (see SafeReturnTo).
	ReturnTo string
	// LoginHint, when set, is forwarded to the provider as login_hint.
	LoginHint string
}

// Start is a sign-in under way.
type Start struct {
	// URL is the provider's authorization URL to redirect the browser to.
	URL string
	// Binding ties the sign-in to the browser that began it, against login CSRF (a victim
	// completing an attacker's sign-in): keep it in a short-lived HttpOnly cookie until the
	// callback and hand it back in CompleteParams. It is a secret.
	Binding string
	// ExpiresAt is when the sign-in stops being completable: the binding cookie's lifetime.
	ExpiresAt time.Time
}

// Begin starts a sign-in: a single-use state and a PKCE verifier, stored with returnTo until
// they expire, and the provider URL that carries them. A login hint that is too long or holds
// control characters is curvekit.ErrInvalid.
func (s *Service) Begin(ctx context.Context, p BeginParams) (Start, error) {
	if len(p.LoginHint) > maxLoginHint || !utf8.ValidString(p.LoginHint) || strings.IndexFunc(p.LoginHint, unicode.IsControl) >= 0 {
		return Start{}, fmt.Errorf("%w: login_hint must be at most %d bytes of text without control characters", curvekit.ErrInvalid, maxLoginHint)
	}
	state, binding, verifier := newToken(), newToken(), newToken()
	now := s.cfg.Now()
	ls := LoginState{
		StateHash:   digest(state),
		BindingHash: digest(binding),
		Verifier:    verifier,
		ReturnTo:    SafeReturnTo(p.ReturnTo),
		CreatedAt:   now,
		ExpiresAt:   now.Add(s.cfg.LoginLifetime),
	}
	if err := s.cfg.Accounts.PutLoginState(ctx, ls); err != nil {
		return Start{}, fmt.Errorf("auth: begin sign-in: %w", err)
	}
	return Start{URL: s.cfg.Provider.AuthCodeURL(state, verifier, p.LoginHint), Binding: binding, ExpiresAt: ls.ExpiresAt}, nil
}

// SafeReturnTo returns raw when it is a path on this site ("/tokens?x=1"), else "/". A second
// slash or a backslash after the first would make browsers leave the site ("//evil.example",
// "/\evil.example"), so both are refused, as are schemes, hosts, spaces, control characters and
// anything outside printable ASCII.
func SafeReturnTo(raw string) string {
	if len(raw) < 1 || len(raw) > maxReturnTo || raw[0] != '/' {
		return "/"
	}
	if len(raw) > 1 && raw[1] == '/' {
		return "/"
	}
	for i := range len(raw) {
		if c := raw[i]; c <= ' ' || c >= 0x7f || c == '\\' {
			return "/"
		}
	}
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "" || u.Host != "" || u.User != nil || u.Opaque != "" {
		return "/"
	}
	// Encoded slashes and backslashes would come back as "//host" or "/\host" wherever the
	// path is decoded and cleaned again (a redirect to the clean path): refuse them at every
	// depth of encoding.
	for p, depth := u.EscapedPath(), 0; depth < 4; depth++ {
		dec, err := url.PathUnescape(p)
		if err != nil || strings.ContainsRune(dec, '\\') || strings.Contains(dec, "//") {
			return "/"
		}
		if dec == p {
			break
		}
		p = dec
	}
	return raw
}

// CompleteParams is the provider's callback.
type CompleteParams struct {
	// State and Code are the callback's query parameters.
	State, Code string
	// Binding is the value Begin returned, read back from the browser's cookie.
	Binding string
	// PreviousSession is the browser's current session token, if any: the new session replaces
	// it, so that each sign-in rotates the session.
	PreviousSession string
}

// SignIn is a completed sign-in.
type SignIn struct {
	// Token is the new session's raw token, the svc_session cookie's value. Only its digest is
	// stored; it cannot be read back.
	Token     string
	ExpiresAt time.Time
	// ReturnTo is the relative path Begin was given, made safe.
	ReturnTo string
	User     User
	// FirstSignIn is set when the account was created by this sign-in.
	FirstSignIn bool
}

// errSignInState is the one answer for a state that is malformed, unknown, used or expired, or
// that belongs to another browser: the browser can only start again.
var errSignInState = fmt.Errorf("%w: this sign-in is unknown, expired or already used: sign in again", curvekit.ErrUnauthorized)

// Complete finishes a sign-in: it takes the state once (a replay finds nothing), redeems the
// code with the PKCE verifier, creates or updates the user, creates the custodial wallet on the
// first sign-in, and opens a new session that replaces the browser's previous one. A bad state or
// a code the provider refuses is curvekit.ErrUnauthorized.
func (s *Service) Complete(ctx context.Context, p CompleteParams) (SignIn, error) {
	if !validTokenShape(p.State) {
		return SignIn{}, errSignInState
	}
	ls, err := s.cfg.Accounts.TakeLoginState(ctx, digest(p.State))
	if errors.Is(err, curvekit.ErrNotFound) {
		return SignIn{}, errSignInState
	}
	if err != nil {
		return SignIn{}, fmt.Errorf("auth: complete sign-in: %w", err)
	}
	now := s.cfg.Now()
	if !now.Before(ls.ExpiresAt) || subtle.ConstantTimeCompare(digest(p.Binding), ls.BindingHash) != 1 {
		return SignIn{}, errSignInState
	}
	if p.Code == "" {
		return SignIn{}, fmt.Errorf("%w: the provider sent no authorization code: sign in again", curvekit.ErrUnauthorized)
	}
	id, err := s.cfg.Provider.Exchange(ctx, p.Code, ls.Verifier)
	if err != nil {
		return SignIn{}, fmt.Errorf("auth: redeem authorization code: %w", err)
	}
	if id.Provider == "" || id.Subject == "" || len(id.Provider) > maxSubject || len(id.Subject) > maxSubject {
		return SignIn{}, fmt.Errorf("auth: provider returned an identity without a usable provider and subject")
	}
	u, created, err := s.cfg.Accounts.UpsertUser(ctx, &UpsertUserParams{
		ID:       newID("acc_"),
		Provider: id.Provider,
		Subject:  id.Subject,
		Handle:   handleOf(id),
		Name:     cleanText(id.Name, maxName),
		Picture:  cleanPicture(id.Picture),
		At:       now,
	})
	if err != nil {
		return SignIn{}, fmt.Errorf("auth: save user: %w", err)
	}
	// Checked on every sign-in, not only the first: one that failed after the user was saved
	// left an account without a wallet, and the creator is idempotent.
	if u.Wallet == (common.Address{}) {
		addr, err := s.cfg.Wallets.CreateWallet(ctx, u.ID)
		if err != nil {
			return SignIn{}, fmt.Errorf("auth: create wallet: %w", err)
		}
		if u, err = s.cfg.Accounts.SetWallet(ctx, u.ID, addr); err != nil {
			return SignIn{}, fmt.Errorf("auth: save wallet: %w", err)
		}
	}
	token := newToken()
	open := &OpenSessionParams{
		Session: Session{
			ID:         newID("ses_"),
			AccountID:  u.ID,
			SignedInAt: now,
			ExpiresAt:  now.Add(s.cfg.SessionLifetime),
		},
		TokenHash: digest(token),
	}
	if validTokenShape(p.PreviousSession) {
		open.EndTokenHash = digest(p.PreviousSession)
	}
	if err := s.cfg.Accounts.OpenSession(ctx, open); err != nil {
		return SignIn{}, fmt.Errorf("auth: open session: %w", err)
	}
	return SignIn{Token: token, ExpiresAt: open.Session.ExpiresAt, ReturnTo: ls.ReturnTo, User: u, FirstSignIn: created}, nil
}

// handleOf is the handle shown for id: the provider's handle, else the display name, else a
// stable name derived from the identity so that every user has one.
func handleOf(id Identity) string {
	if h := cleanText(id.Handle, maxHandle); h != "" {
		return h
	}
	if h := cleanText(id.Name, maxHandle); h != "" {
		return h
	}
	sum := sha256.Sum256([]byte(id.Provider + "\x00" + id.Subject))
	return "user-" + hex.EncodeToString(sum[:4])
}

// cleanText keeps what a provider sends fit to show: valid UTF-8, no control characters, no
// surrounding space, at most most characters.
func cleanText(s string, most int) string {
	s = strings.ToValidUTF8(s, "")
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return -1
		}
		return r
	}, s)
	s = strings.TrimSpace(s)
	if utf8.RuneCountInString(s) > most {
		s = strings.TrimSpace(string([]rune(s)[:most]))
	}
	return s
}

// cleanPicture keeps a profile picture only when it is an http(s) URL: anything else (a
// javascript: or data: URL) would be unsafe for a page to put in an img or a link.
func cleanPicture(s string) string {
	if s == "" || len(s) > maxPicture {
		return ""
	}
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.User != nil {
		return ""
	}
	for i := range len(s) {
		if c := s[i]; c <= ' ' || c >= 0x7f {
			return ""
		}
	}
	return s
}
