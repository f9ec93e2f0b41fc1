package account

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/curvekit/curvekit"
)

// Assets tells the pairing assets the chain enables, with their decimals.
type Assets interface {
	PairingAssets(ctx context.Context) ([]Asset, error)
}

// AssetsFunc adapts a function to Assets.
type AssetsFunc func(ctx context.Context) ([]Asset, error)

// PairingAssets implements Assets.
func (f AssetsFunc) PairingAssets(ctx context.Context) ([]Asset, error) { return f(ctx) }

// Config configures a Service.
type Config struct {
	Store  Store
	Assets Assets
	// Tools returns the agent's tool names: agent.tools may list only these. Nil, or no names:
	// any name.
	Tools func() []string
	// Now is the clock; default time.Now.
	Now func() time.Time
	// Notifier, when set, builds the events of each change, which the store records with it.
	Notifier Notifier
}

// Service reads and changes accounts' settings. It is safe for concurrent use.
type Service struct {
	cfg Config
}

// New returns a Service for cfg.
func New(cfg Config) (*Service, error) {
	if cfg.Store == nil || cfg.Assets == nil {
		return nil, errors.New("account: a Store and Assets are required")
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &Service{cfg: cfg}, nil
}

// MaxActivity bounds a page of the activity log.
const MaxActivity = 100

// Actor is who asks: a session (with the instant it signed in), an API key, or the server on
// the account's behalf (an order's fire).
type Actor struct {
	// KeyID is set for an API key; empty for a session.
	KeyID      string
	SignedInAt time.Time
	// Name, when set, names an actor that is neither ("order fire fir_…"); it changes nothing.
	Name string
}

func (a Actor) String() string {
	switch {
	case a.Name != "":
		return a.Name
	case a.KeyID != "":
		return "key " + a.KeyID
	}
	return "session"
}

// Settings returns the account's settings; the defaults when it never changed them. A relaxation
// that has ended reads as none.
func (s *Service) Settings(ctx context.Context, accountID string) (Settings, error) {
	if err := checkAccount(accountID); err != nil {
		return Settings{}, err
	}
	st, err := s.load(ctx, accountID)
	if err != nil {
		return Settings{}, err
	}
	expire(&st, s.cfg.Now())
	return st, nil
}

// load reads the stored settings, or the defaults.
func (s *Service) load(ctx context.Context, accountID string) (Settings, error) {
	rec, err := s.cfg.Store.Settings(ctx, accountID)
	if errors.Is(err, curvekit.ErrNotFound) {
		return Defaults(), nil
	}
	if err != nil {
		return Settings{}, err
	}
	st := Defaults()
	if err := json.Unmarshal(rec.Document, &st); err != nil {
		return Settings{}, fmt.Errorf("account: stored settings of %s: %w", accountID, err)
	}
	st.Version, st.UpdatedAt = rec.Version, rec.UpdatedAt.Unix()
	return st, nil
}

// expire drops a relaxation that has ended at now.
func expire(st *Settings, now time.Time) {
	if x := st.Wallet.Relax; x != nil && now.Unix() >= x.Until {
		st.Wallet.Relax = nil
	}
}

// Rules returns the account's settings as the wallet's guard applies them now.
func (s *Service) Rules(ctx context.Context, accountID string) (Rules, error) {
	st, err := s.Settings(ctx, accountID)
	if err != nil {
		return Rules{}, err
	}
	assets, err := s.cfg.Assets.PairingAssets(ctx)
	if err != nil {
		return Rules{}, fmt.Errorf("account: pairing assets: %w", err)
	}
	return st.Rules(s.cfg.Now(), assets), nil
}

// UpdateParams is a change of an account's settings.
type UpdateParams struct {
	AccountID string
	// Patch is a JSON Merge Patch (RFC 7396) of Settings.
	Patch []byte
	Actor Actor
}

// saveAttempts bounds the retries of a change that raced another.
const saveAttempts = 5

// Update applies a merge patch and returns the new settings. An API key may not change settings
// (curvekit.ErrForbidden); a patch that fails validation is curvekit.Problems listing every
// failing field; a change that loosens the guard (see the package documentation) from a session
// that signed in more than RecentSignIn ago is curvekit.ErrForbidden. A change that changes
// nothing is not recorded.
func (s *Service) Update(ctx context.Context, p UpdateParams) (Settings, error) {
	if err := checkAccount(p.AccountID); err != nil {
		return Settings{}, err
	}
	if p.Actor.KeyID != "" || p.Actor.Name != "" {
		return Settings{}, curvekit.WithCode(curvekit.CodeReadOnlyKey,
			fmt.Errorf("%w: an API key can read the account's settings, never change them; use a signed-in session", curvekit.ErrForbidden))
	}
	assets, err := s.cfg.Assets.PairingAssets(ctx)
	if err != nil {
		return Settings{}, fmt.Errorf("account: pairing assets: %w", err)
	}
	for range saveAttempts {
		now := s.cfg.Now()
		cur, err := s.load(ctx, p.AccountID)
		if err != nil {
			return Settings{}, err
		}
		expire(&cur, now)
		var tools []string
		if s.cfg.Tools != nil {
			tools = s.cfg.Tools()
		}
		next, relaxed, err := apply(cur, p.Patch, now, assets, tools)
		if err != nil {
			return Settings{}, err
		}
		changes := changedPaths(&cur, &next)
		if len(changes) == 0 {
			return cur, nil
		}
		if loosens(&cur, &next, relaxed, assets) && !recent(p.Actor.SignedInAt, now) {
			return Settings{}, fmt.Errorf("%w: loosening the wallet's guard (%s) needs a sign-in within the last 15 minutes: sign in again",
				curvekit.ErrForbidden, strings.Join(changes, ", "))
		}
		next.Version, next.UpdatedAt = cur.Version+1, now.Unix()
		doc := next
		doc.Version, doc.UpdatedAt = 0, 0
		raw, err := json.Marshal(doc)
		if err != nil {
			return Settings{}, err
		}
		save := SaveParams{
			AccountID: p.AccountID, Document: raw, Version: next.Version, At: now.UTC(),
			Activity: Activity{ID: randomID(), AccountID: p.AccountID, At: now.UTC(), Kind: KindSettings, Actor: p.Actor.String(),
				Message: "changed " + strings.Join(changes, ", "), Changes: changes},
		}
		if s.cfg.Notifier != nil {
			save.Events = s.cfg.Notifier.SettingsEvents(&next, &save.Activity)
		}
		err = s.cfg.Store.SaveSettings(ctx, save)
		if errors.Is(err, curvekit.ErrConflict) {
			continue
		}
		if err != nil {
			return Settings{}, err
		}
		if len(save.Events) > 0 {
			s.cfg.Notifier.Committed()
		}
		return next, nil
	}
	return Settings{}, fmt.Errorf("%w: the settings changed meanwhile; retry", curvekit.ErrConflict)
}

// recent reports whether a sign-in at signedIn is within RecentSignIn of now.
func recent(signedIn, now time.Time) bool {
	return !signedIn.IsZero() && now.Sub(signedIn) <= RecentSignIn && !signedIn.After(now.Add(time.Minute))
}

// Activity returns a page of the account's activity log, newest first; limit is 1 to MaxActivity.
func (s *Service) Activity(ctx context.Context, accountID, cursor string, limit int) (ActivityPage, error) {
	if err := checkAccount(accountID); err != nil {
		return ActivityPage{}, err
	}
	return s.cfg.Store.Activity(ctx, ActivityQuery{AccountID: accountID, Cursor: cursor, Limit: min(max(limit, 1), MaxActivity)})
}

// RecordRefusal appends a refusal of the wallet's guard to the account's log.
func (s *Service) RecordRefusal(ctx context.Context, accountID string, actor Actor, code curvekit.Code, message string) error {
	return s.cfg.Store.AppendActivity(ctx, Activity{
		ID: randomID(), AccountID: accountID, At: s.cfg.Now().UTC(), Kind: KindRefusal, Code: string(code), Message: message, Actor: actor.String(),
	})
}

// RecordWebhook appends to the account's log that the server disabled one of its webhooks; the
// actor is the server.
func (s *Service) RecordWebhook(ctx context.Context, accountID, message string) error {
	if err := checkAccount(accountID); err != nil {
		return err
	}
	return s.cfg.Store.AppendActivity(ctx, Activity{
		ID: randomID(), AccountID: accountID, At: s.cfg.Now().UTC(), Kind: KindWebhook, Message: message, Actor: "server",
	})
}

func checkAccount(accountID string) error {
	if accountID == "" || len(accountID) > 128 {
		return fmt.Errorf("%w: account id must be 1 to 128 bytes", curvekit.ErrInvalid)
	}
	return nil
}

func randomID() string {
	var id [16]byte
	_, _ = rand.Read(id[:])
	return hex.EncodeToString(id[:])
}
