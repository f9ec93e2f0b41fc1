package auth

import (
	"github.com/curvekit/curvekit"

	"context"
	"net/netip"
	"time"

	"github.com/ethereum/go-ethereum/common"
)

// Accounts stores users, sessions, API keys and pending sign-ins. Secrets reach it only as
// SHA-256 digests. Each method is one atomic operation, safe under concurrency across processes
// sharing the database; times round-trip to the nanosecond.
type Accounts interface {
	// UpsertUser creates the user p.Provider/p.Subject with id p.ID, or updates the existing
	// one's handle, name and picture, and returns the stored user; created reports which.
	// Concurrent calls for one identity agree on one user.
	UpsertUser(ctx context.Context, p *UpsertUserParams) (u User, created bool, err error)
	// SetWallet records the account's custodial wallet when it has none and returns the user.
	// The same wallet again is a no-op; another wallet is curvekit.ErrConflict; an unknown
	// account is curvekit.ErrNotFound.
	SetWallet(ctx context.Context, accountID string, wallet common.Address) (User, error)
	// UserByWallet returns the user whose custodial wallet is wallet, or curvekit.ErrNotFound.
	UserByWallet(ctx context.Context, wallet common.Address) (User, error)
	// SetTier sets the tier of the user whose wallet is wallet; curvekit.ErrNotFound when there
	// is none.
	SetTier(ctx context.Context, wallet common.Address, tier curvekit.Tier) error

	// PutLoginState stores a pending sign-in.
	PutLoginState(ctx context.Context, s LoginState) error
	// TakeLoginState deletes the pending sign-in whose state digest is stateHash and returns
	// it, expired or not: of concurrent takers exactly one gets it. None is curvekit.ErrNotFound.
	TakeLoginState(ctx context.Context, stateHash []byte) (LoginState, error)

	// OpenSession stores a new session and, in the same transaction, ends the active session
	// whose token digest is p.EndTokenHash (the browser's previous one), if any.
	OpenSession(ctx context.Context, p *OpenSessionParams) error
	// SessionByHash returns the session whose token digest is tokenHash, ended or expired ones
	// included, with its user; curvekit.ErrNotFound when there is none.
	SessionByHash(ctx context.Context, tokenHash []byte) (Session, User, error)
	// EndSession ends a session at the given time; ending an ended session keeps its first end.
	// An unknown session is curvekit.ErrNotFound.
	EndSession(ctx context.Context, sessionID string, at time.Time) error

	// CreateKey stores a new API key unless its account already has p.MaxActive keys not
	// revoked (curvekit.ErrLimited). An unknown account is curvekit.ErrNotFound.
	CreateKey(ctx context.Context, p *CreateKeyParams) error
	// Keys returns an account's keys, revoked ones included, newest first.
	Keys(ctx context.Context, accountID string) ([]Key, error)
	// KeyByHash returns the key whose digest is keyHash, revoked or not, with its user;
	// curvekit.ErrNotFound when there is none. Once RevokeKey has returned, every later call
	// sees the revocation.
	KeyByHash(ctx context.Context, keyHash []byte) (Key, User, error)
	// RevokeKey revokes a key of p.AccountID at p.At; revoking it again keeps the first time.
	// A key of another account is curvekit.ErrForbidden, an unknown key curvekit.ErrNotFound.
	RevokeKey(ctx context.Context, p *RevokeKeyParams) error
	// TouchKey sets a key's last use to at, unless it already records a later one.
	TouchKey(ctx context.Context, keyID string, at time.Time) error
	// LiveCredentials returns, of p.IDs, the sessions and keys that still authenticate at p.At:
	// sessions neither ended nor expired by then (ExpiresAt after p.At), keys not revoked. Ids it
	// does not hold (a pruned session) are left out. Its cost grows with the ids asked about,
	// never with the store: open streams are checked this way every WatchEvery.
	LiveCredentials(ctx context.Context, p *LiveCredentialsParams) (CredentialIDs, error)

	// Prune deletes pending sign-ins that expired before t, and sessions that expired or ended
	// before t.
	Prune(ctx context.Context, t time.Time) error
}

// User is an account: who signed in, and the custodial wallet that acts for them.
type User struct {
	ID string
	// Provider and Subject identify the person at their identity provider.
	Provider, Subject string
	// Wallet is the custodial wallet; zero until it is created at the first sign-in.
	Wallet  common.Address
	Handle  string
	Name    string
	Picture string
	// Tier is the tier the store records; Service.Tier also honours Config.ProWallets.
	Tier      curvekit.Tier
	CreatedAt time.Time
	UpdatedAt time.Time
}

// UpsertUserParams is one sign-in's identity for Accounts.UpsertUser.
type UpsertUserParams struct {
	// ID is the id a new user gets; an existing user keeps theirs.
	ID                string
	Provider, Subject string
	Handle, Name      string
	Picture           string
	At                time.Time
}

// LoginState is a sign-in under way, between Begin and Complete.
type LoginState struct {
	// StateHash is the digest of the state sent to the provider, BindingHash the digest of the
	// value kept in the browser's cookie.
	StateHash, BindingHash []byte
	// Verifier is the PKCE code verifier: the provider redeems the code only with it.
	Verifier string
	// ReturnTo is the relative path the browser goes to once signed in.
	ReturnTo  string
	CreatedAt time.Time
	ExpiresAt time.Time
}

// Session is a signed-in browser.
type Session struct {
	ID        string
	AccountID string
	// SignedInAt is when the sign-in happened; ExpiresAt when the session stops working.
	SignedInAt time.Time
	ExpiresAt  time.Time
	// EndedAt is when logout or a newer sign-in ended it; zero while it lasts.
	EndedAt time.Time
}

// OpenSessionParams is a session for Accounts.OpenSession.
type OpenSessionParams struct {
	Session   Session
	TokenHash []byte
	// EndTokenHash, when set, is the digest of the browser's previous session token: that
	// session ends at Session.SignedInAt.
	EndTokenHash []byte
}

// Key is an API key as its owner sees it: never the raw key, which is shown once at creation.
type Key struct {
	ID        string
	AccountID string
	Name      string
	// Hint shows the prefix and last four digits ("svc_…a1b2") to tell keys apart.
	Hint              string
	ReadOnly          bool
	AllowedIPs        []netip.Prefix
	AllowedRecipients []common.Address
	CreatedAt         time.Time
	// LastUsedAt is when the key last authenticated a request (kept to the minute); zero if never.
	LastUsedAt time.Time
	// RevokedAt is when the key was revoked; zero while it is active.
	RevokedAt time.Time
}

// CreateKeyParams is a key for Accounts.CreateKey.
type CreateKeyParams struct {
	Key  Key
	Hash []byte
	// MaxActive bounds the account's keys that are not revoked, this one included.
	MaxActive int
}

// RevokeKeyParams names the key to revoke and who asks.
type RevokeKeyParams struct {
	AccountID string
	KeyID     string
	At        time.Time
}

// CredentialIDs names sessions and API keys by id.
type CredentialIDs struct {
	Sessions []string
	Keys     []string
}

// LiveCredentialsParams asks which of IDs still authenticate at At.
type LiveCredentialsParams struct {
	IDs CredentialIDs
	At  time.Time
}
