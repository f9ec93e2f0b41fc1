package auth

import (
	"context"
	"errors"
	"fmt"

	"github.com/curvekit/curvekit"
)

// Credentials are what a request presents: the svc_session cookie's value and the X-API-Key
// header's, either possibly empty.
type Credentials struct {
	SessionToken string
	APIKey       string
}

// Authenticate resolves the principal behind creds. It never refuses a request itself: a
// malformed, unknown, revoked or expired credential gives no principal and the outcome Refused,
// and the route decides (401 on a guarded route). The error is only for a store that cannot
// answer. An API key, sent on purpose with this request, wins over the ambient session cookie;
// when it fails, the session is not tried instead.
//
// Every call asks the store: nothing positive is cached, so a revocation or a logout holds from
// the next request on.
func (s *Service) Authenticate(ctx context.Context, creds Credentials) (*Principal, Outcome, error) {
	switch {
	case creds.APIKey != "":
		return s.authenticateKey(ctx, creds.APIKey)
	case creds.SessionToken != "":
		return s.authenticateSession(ctx, creds.SessionToken)
	}
	return nil, NoCredential, nil
}

func (s *Service) authenticateKey(ctx context.Context, raw string) (*Principal, Outcome, error) {
	if !ValidKeyShape(raw) {
		return nil, Refused, nil
	}
	k, u, err := s.cfg.Accounts.KeyByHash(ctx, digest(raw))
	if errors.Is(err, curvekit.ErrNotFound) {
		return nil, Refused, nil
	}
	if err != nil {
		return nil, Refused, fmt.Errorf("auth: look up API key: %w", err)
	}
	if !k.RevokedAt.IsZero() {
		return nil, Refused, nil
	}
	s.touch(ctx, k.ID)
	return &Principal{
		AccountID:         u.ID,
		Wallet:            u.Wallet,
		Handle:            u.Handle,
		Picture:           u.Picture,
		Tier:              s.tierOf(u),
		Kind:              KindKey,
		KeyID:             k.ID,
		ReadOnly:          k.ReadOnly,
		AllowedIPs:        k.AllowedIPs,
		AllowedRecipients: k.AllowedRecipients,
	}, Authenticated, nil
}

func (s *Service) authenticateSession(ctx context.Context, token string) (*Principal, Outcome, error) {
	if !validTokenShape(token) {
		return nil, Refused, nil
	}
	sess, u, err := s.cfg.Accounts.SessionByHash(ctx, digest(token))
	if errors.Is(err, curvekit.ErrNotFound) {
		return nil, Refused, nil
	}
	if err != nil {
		return nil, Refused, fmt.Errorf("auth: look up session: %w", err)
	}
	if !sess.EndedAt.IsZero() || !s.cfg.Now().Before(sess.ExpiresAt) {
		return nil, Refused, nil
	}
	return &Principal{
		AccountID:  u.ID,
		Wallet:     u.Wallet,
		Handle:     u.Handle,
		Picture:    u.Picture,
		Tier:       s.tierOf(u),
		Kind:       KindSession,
		SessionID:  sess.ID,
		SignedInAt: sess.SignedInAt,
	}, Authenticated, nil
}

// touchMemory bounds how many keys the touch memory holds; past it, it starts afresh (at worst
// one extra write per key).
const touchMemory = 10_000

// touch records a key's use at most once per TouchEvery from this process. A failed write is
// logged, not returned: the request it came with is fine.
func (s *Service) touch(ctx context.Context, keyID string) {
	now := s.cfg.Now()
	s.mu.Lock()
	last, ok := s.touched[keyID]
	due := !ok || now.Sub(last) >= s.cfg.TouchEvery || now.Before(last)
	if due {
		if len(s.touched) >= touchMemory {
			clear(s.touched)
		}
		s.touched[keyID] = now
	}
	s.mu.Unlock()
	if !due {
		return
	}
	if err := s.cfg.Accounts.TouchKey(ctx, keyID, now); err != nil {
		s.cfg.Logger.WarnContext(ctx, "auth: record key use", "key", keyID, "err", err)
	}
}

// Logout ends the principal's session at once: the token is refused from the next request on,
// and what the session holds open (Hold) ends.
// Only a session can log out (curvekit.ErrForbidden for a key).
func (s *Service) Logout(ctx context.Context, p *Principal) error {
	if p == nil {
		return fmt.Errorf("%w: not signed in", curvekit.ErrUnauthorized)
	}
	if p.Kind != KindSession {
		return fmt.Errorf("%w: an API key has no session to log out of", curvekit.ErrForbidden)
	}
	if err := s.cfg.Accounts.EndSession(ctx, p.SessionID, s.cfg.Now()); err != nil {
		return fmt.Errorf("auth: end session: %w", err)
	}
	s.endHolds(credential{KindSession, p.SessionID})
	return nil
}
