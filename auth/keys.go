package auth

import (
	"context"
	"errors"
	"fmt"

	"github.com/curvekit/curvekit"
)

// KeyRequest is the body of POST /api-keys (SPEC 2.3); every field is optional and every option
// only restricts the key.
type KeyRequest struct {
	Name              string
	ReadOnly          bool
	AllowedIPs        []string
	AllowedRecipients []string
}

// NewKey is a created key.
type NewKey struct {
	Key Key
	// Raw is the key itself, shown this once: only its digest is stored. Answer it with
	// Cache-Control: no-store.
	Raw string
}

// requireSession enforces SPEC 5 rule 7 here too, not only in the route table: keys are managed
// by a signed-in person, never by a key.
func requireSession(by *Principal) error {
	if by == nil {
		return fmt.Errorf("%w: sign in to manage API keys", curvekit.ErrUnauthorized)
	}
	if by.Kind != KindSession {
		return fmt.Errorf("%w: API keys are managed from a signed-in session, not with an API key", curvekit.ErrForbidden)
	}
	return nil
}

// CreateKey issues an API key for the principal's account. Validation failures are
// curvekit.Problems listing every failing field; an account at Config.MaxKeys active keys is
// curvekit.ErrLimited.
func (s *Service) CreateKey(ctx context.Context, by *Principal, req KeyRequest) (NewKey, error) {
	if err := requireSession(by); err != nil {
		return NewKey{}, err
	}
	var problems curvekit.Problems
	if msg := checkKeyName(req.Name); msg != "" {
		problems = append(problems, msg)
	}
	ips, err := ParseAllowedIPs(req.AllowedIPs)
	problems = appendProblems(problems, err)
	recipients, err := ParseAllowedRecipients(req.AllowedRecipients)
	problems = appendProblems(problems, err)
	if len(problems) > 0 {
		return NewKey{}, problems
	}
	raw := newAPIKey()
	k := Key{
		ID:                newID("key_"),
		AccountID:         by.AccountID,
		Name:              req.Name,
		Hint:              keyHint(raw),
		ReadOnly:          req.ReadOnly,
		AllowedIPs:        ips,
		AllowedRecipients: recipients,
		CreatedAt:         s.cfg.Now(),
	}
	err = s.cfg.Accounts.CreateKey(ctx, &CreateKeyParams{Key: k, Hash: digest(raw), MaxActive: s.cfg.MaxKeys})
	if errors.Is(err, curvekit.ErrLimited) {
		return NewKey{}, fmt.Errorf("%w: an account may hold at most %d active API keys: revoke one first", curvekit.ErrLimited, s.cfg.MaxKeys)
	}
	if err != nil {
		return NewKey{}, fmt.Errorf("auth: create key: %w", err)
	}
	return NewKey{Key: k, Raw: raw}, nil
}

// appendProblems adds a parser's problems to ps.
func appendProblems(ps curvekit.Problems, err error) curvekit.Problems {
	var more curvekit.Problems
	if errors.As(err, &more) {
		return append(ps, more...)
	}
	return ps
}

// Keys lists the principal's keys, revoked ones included, newest first.
func (s *Service) Keys(ctx context.Context, by *Principal) ([]Key, error) {
	if err := requireSession(by); err != nil {
		return nil, err
	}
	keys, err := s.cfg.Accounts.Keys(ctx, by.AccountID)
	if err != nil {
		return nil, fmt.Errorf("auth: list keys: %w", err)
	}
	return keys, nil
}

// RevokeKey revokes one of the principal's keys; from the moment it returns, the key
// authenticates nothing, and what it holds open (Hold) ends. Another account's key is curvekit.ErrForbidden, an unknown one
// curvekit.ErrNotFound; revoking a revoked key succeeds.
func (s *Service) RevokeKey(ctx context.Context, by *Principal, keyID string) error {
	if err := requireSession(by); err != nil {
		return err
	}
	if !validID(keyID, "key_") {
		return fmt.Errorf("%w: no API key %s", curvekit.ErrNotFound, quote(keyID))
	}
	err := s.cfg.Accounts.RevokeKey(ctx, &RevokeKeyParams{AccountID: by.AccountID, KeyID: keyID, At: s.cfg.Now()})
	switch {
	case errors.Is(err, curvekit.ErrNotFound):
		return fmt.Errorf("%w: no API key %s", curvekit.ErrNotFound, keyID)
	case errors.Is(err, curvekit.ErrForbidden):
		return fmt.Errorf("%w: API key %s belongs to another account", curvekit.ErrForbidden, keyID)
	case err != nil:
		return fmt.Errorf("auth: revoke key: %w", err)
	}
	s.endHolds(credential{KindKey, keyID})
	return nil
}
