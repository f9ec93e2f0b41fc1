package auth

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"
)

// Config configures a Service.
type Config struct {
	// Accounts stores users, sessions, keys and pending sign-ins.
	Accounts Accounts
	// Provider is the identity provider people sign in with.
	Provider IdentityProvider
	// Wallets creates each account's custodial wallet at its first sign-in.
	Wallets WalletCreator
	// ProWallets are accounts on the pro tier whatever the store records (the operator's list).
	ProWallets []common.Address
	// SessionLifetime is how long a session lasts after its sign-in; default 7 days (SPEC 8).
	SessionLifetime time.Duration
	// LoginLifetime is how long a started sign-in may take to complete; default 10 minutes.
	LoginLifetime time.Duration
	// MaxKeys bounds an account's API keys that are not revoked; default 100.
	MaxKeys int
	// TouchEvery is how often a key's lastUsedAt is written while it is in use; default one
	// minute, so that a busy key costs no write per request.
	TouchEvery time.Duration
	// WatchEvery is how often the credentials behind held contexts (Service.Hold) are checked
	// against the store, so that a logout or a revocation through another process, or a
	// session's expiry, ends what they opened within this much (plus the store's answer);
	// default 500ms.
	WatchEvery time.Duration
	// Now is the clock; default time.Now.
	Now func() time.Time
	// Logger receives failures the caller does not see; default slog.Default(). Raw keys and
	// tokens never reach it.
	Logger *slog.Logger
}

// SessionLifetime is the default lifetime of a session: the svc_session cookie's Max-Age.
const SessionLifetime = 7 * 24 * time.Hour

func (c *Config) withDefaults() {
	if c.SessionLifetime == 0 {
		c.SessionLifetime = SessionLifetime
	}
	if c.LoginLifetime == 0 {
		c.LoginLifetime = 10 * time.Minute
	}
	if c.MaxKeys == 0 {
		c.MaxKeys = 100
	}
	if c.TouchEvery == 0 {
		c.TouchEvery = time.Minute
	}
	if c.WatchEvery == 0 {
		c.WatchEvery = 500 * time.Millisecond
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
}

func (c *Config) validate() error {
	switch {
	case c.Accounts == nil || c.Provider == nil || c.Wallets == nil:
		return errors.New("auth: Accounts, Provider and Wallets are required")
	case c.SessionLifetime < 0, c.LoginLifetime < 0, c.TouchEvery < 0, c.WatchEvery < 0:
		return errors.New("auth: lifetimes must not be negative")
	case c.MaxKeys < 0:
		return fmt.Errorf("auth: MaxKeys %d is negative", c.MaxKeys)
	}
	return nil
}

// Service signs people in, keeps their sessions and API keys, and turns a request's credentials
// into a Principal. It is safe for concurrent use.
type Service struct {
	cfg Config
	pro map[common.Address]bool

	// touched remembers when this process last wrote each key's lastUsedAt. It only saves
	// writes: it never vouches for a key, so it cannot outlive a revocation.
	mu      sync.Mutex
	touched map[string]time.Time

	holds holds // see Hold
}

// New returns a Service for cfg.
func New(cfg Config) (*Service, error) {
	cfg.withDefaults()
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	pro := make(map[common.Address]bool, len(cfg.ProWallets))
	for _, w := range cfg.ProWallets {
		pro[w] = true
	}
	return &Service{cfg: cfg, pro: pro, touched: make(map[string]time.Time)}, nil
}

// Prune deletes pending sign-ins and sessions that can no longer be used. The server calls it
// now and then; nothing depends on it for correctness.
func (s *Service) Prune(ctx context.Context) error {
	return s.cfg.Accounts.Prune(ctx, s.cfg.Now())
}
