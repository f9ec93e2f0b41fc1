package bunstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/uptrace/bun"

	"github.com/curvekit/curvekit"
	"github.com/curvekit/curvekit/auth"
)

// Accounts is the auth.Accounts store on bun, a view on a DB. It is safe for concurrent use.
type Accounts struct {
	db       *bun.DB
	dialect  dialectKind
	prepared *preparedSet
}

var _ auth.Accounts = (*Accounts)(nil)

// Accounts returns the accounts store on d.
func (d *DB) Accounts() *Accounts {
	return &Accounts{db: d.bun, dialect: d.dialect, prepared: &d.prepared}
}

type accountRow struct {
	bun.BaseModel `bun:"table:accounts"`

	ID        string `bun:"id,pk"`
	Provider  string `bun:"provider"`
	Subject   string `bun:"subject"`
	Wallet    []byte `bun:"wallet,nullzero"` // NULL until the custodial wallet exists
	Handle    string `bun:"handle"`
	Name      string `bun:"name"`
	Picture   string `bun:"picture"`
	Tier      string `bun:"tier"`
	CreatedAt int64  `bun:"created_at"`
	UpdatedAt int64  `bun:"updated_at"`
}

func (r *accountRow) user() auth.User {
	u := auth.User{
		ID: r.ID, Provider: r.Provider, Subject: r.Subject, Handle: r.Handle, Name: r.Name,
		Picture: r.Picture, Tier: curvekit.Tier(r.Tier), CreatedAt: fromNanos(r.CreatedAt), UpdatedAt: fromNanos(r.UpdatedAt),
	}
	if len(r.Wallet) == common.AddressLength {
		u.Wallet = common.BytesToAddress(r.Wallet)
	}
	return u
}

type sessionRow struct {
	bun.BaseModel `bun:"table:sessions"`

	ID         string `bun:"id,pk"`
	TokenHash  []byte `bun:"token_hash"`
	AccountID  string `bun:"account_id"`
	SignedInAt int64  `bun:"signed_in_at"`
	ExpiresAt  int64  `bun:"expires_at"`
	EndedAt    int64  `bun:"ended_at,nullzero"`
}

func (r *sessionRow) session() auth.Session {
	return auth.Session{
		ID: r.ID, AccountID: r.AccountID, SignedInAt: fromNanos(r.SignedInAt),
		ExpiresAt: fromNanos(r.ExpiresAt), EndedAt: fromNanos(r.EndedAt),
	}
}

type keyRow struct {
	bun.BaseModel `bun:"table:api_keys"`

	ID                string `bun:"id,pk"`
	KeyHash           []byte `bun:"key_hash"`
	AccountID         string `bun:"account_id"`
	Name              string `bun:"name"`
	Hint              string `bun:"hint"`
	ReadOnly          bool   `bun:"read_only"`
	AllowedIPs        string `bun:"allowed_ips"`        // JSON array of strings
	AllowedRecipients string `bun:"allowed_recipients"` // JSON array of strings
	CreatedAt         int64  `bun:"created_at"`
	LastUsedAt        int64  `bun:"last_used_at,nullzero"`
	RevokedAt         int64  `bun:"revoked_at,nullzero"`
}

func newKeyRow(k *auth.Key, hash []byte) (keyRow, error) {
	ips := make([]string, len(k.AllowedIPs))
	for i, p := range k.AllowedIPs {
		ips[i] = auth.FormatAllowedIP(p)
	}
	recipients := make([]string, len(k.AllowedRecipients))
	for i, a := range k.AllowedRecipients {
		recipients[i] = a.Hex()
	}
	ipText, err := json.Marshal(ips)
	if err != nil {
		return keyRow{}, err
	}
	recipientText, err := json.Marshal(recipients)
	if err != nil {
		return keyRow{}, err
	}
	return keyRow{
		ID: k.ID, KeyHash: hash, AccountID: k.AccountID, Name: k.Name, Hint: k.Hint, ReadOnly: k.ReadOnly,
		AllowedIPs: string(ipText), AllowedRecipients: string(recipientText),
		CreatedAt: nanos(k.CreatedAt), LastUsedAt: nanos(k.LastUsedAt), RevokedAt: nanos(k.RevokedAt),
	}, nil
}

func (r *keyRow) key() (auth.Key, error) {
	k := auth.Key{
		ID: r.ID, AccountID: r.AccountID, Name: r.Name, Hint: r.Hint, ReadOnly: r.ReadOnly,
		CreatedAt: fromNanos(r.CreatedAt), LastUsedAt: fromNanos(r.LastUsedAt), RevokedAt: fromNanos(r.RevokedAt),
	}
	var ips, recipients []string
	if err := json.Unmarshal([]byte(r.AllowedIPs), &ips); err != nil {
		return auth.Key{}, fmt.Errorf("bunstore: key %s allowed_ips: %w", r.ID, err)
	}
	if err := json.Unmarshal([]byte(r.AllowedRecipients), &recipients); err != nil {
		return auth.Key{}, fmt.Errorf("bunstore: key %s allowed_recipients: %w", r.ID, err)
	}
	// Parsed again with the service's own rules, so a row edited by hand cannot widen a key.
	var err error
	if len(ips) > 0 {
		if k.AllowedIPs, err = auth.ParseAllowedIPs(ips); err != nil {
			return auth.Key{}, fmt.Errorf("bunstore: key %s allowed_ips: %w", r.ID, err)
		}
	}
	if len(recipients) > 0 {
		if k.AllowedRecipients, err = auth.ParseAllowedRecipients(recipients); err != nil {
			return auth.Key{}, fmt.Errorf("bunstore: key %s allowed_recipients: %w", r.ID, err)
		}
	}
	return k, nil
}

type loginStateRow struct {
	bun.BaseModel `bun:"table:login_states"`

	StateHash   []byte `bun:"state_hash,pk"`
	BindingHash []byte `bun:"binding_hash"`
	Verifier    string `bun:"verifier"`
	ReturnTo    string `bun:"return_to"`
	CreatedAt   int64  `bun:"created_at"`
	ExpiresAt   int64  `bun:"expires_at"`
}

// nanos is how accounts keep times: Unix nanoseconds, 0 (stored as NULL where the column allows)
// for the zero time.
func nanos(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}

func fromNanos(n int64) time.Time {
	if n == 0 {
		return time.Time{}
	}
	return time.Unix(0, n).UTC()
}

// accountColumns selects an account's columns under the a_ prefix of an embedded accountRow.
var accountColumns = func() string {
	cols := []string{"id", "provider", "subject", "wallet", "handle", "name", "picture", "tier", "created_at", "updated_at"}
	for i, c := range cols {
		cols[i] = "a." + c + " AS a_" + c
	}
	return strings.Join(cols, ", ")
}()

// UpsertUser creates or updates the user of one identity, in one statement.
func (s *Accounts) UpsertUser(ctx context.Context, p *auth.UpsertUserParams) (auth.User, bool, error) {
	var row accountRow
	err := s.db.NewRaw(`INSERT INTO accounts (id, provider, subject, handle, name, picture, tier, created_at, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (provider, subject) DO UPDATE SET handle = excluded.handle, name = excluded.name,
			picture = excluded.picture, updated_at = excluded.updated_at
		RETURNING *`,
		p.ID, p.Provider, p.Subject, p.Handle, p.Name, p.Picture, string(curvekit.TierFree), nanos(p.At), nanos(p.At)).Scan(ctx, &row)
	if err != nil {
		return auth.User{}, false, fmt.Errorf("bunstore: upsert user: %w", err)
	}
	return row.user(), row.ID == p.ID, nil
}

// SetWallet records the account's wallet unless it has another.
func (s *Accounts) SetWallet(ctx context.Context, accountID string, wallet common.Address) (auth.User, error) {
	var row accountRow
	err := s.db.NewRaw(`UPDATE accounts SET wallet = ? WHERE id = ? AND (wallet IS NULL OR wallet = ?) RETURNING *`,
		wallet.Bytes(), accountID, wallet.Bytes()).Scan(ctx, &row)
	if err == nil {
		return row.user(), nil
	}
	// Nothing updated, or the wallet is another account's (a unique violation): find out which.
	var current accountRow
	if err2 := s.db.NewSelect().Model(&current).Where("id = ?", accountID).Scan(ctx); errors.Is(err2, sql.ErrNoRows) {
		return auth.User{}, fmt.Errorf("%w: no account %s", curvekit.ErrNotFound, accountID)
	} else if err2 != nil {
		return auth.User{}, fmt.Errorf("bunstore: set wallet: %w", err2)
	}
	if !errors.Is(err, sql.ErrNoRows) {
		if owner, err2 := s.UserByWallet(ctx, wallet); err2 == nil && owner.ID != accountID {
			return auth.User{}, fmt.Errorf("%w: wallet %s belongs to another account", curvekit.ErrConflict, wallet.Hex())
		}
		return auth.User{}, fmt.Errorf("bunstore: set wallet: %w", err)
	}
	return auth.User{}, fmt.Errorf("%w: account %s already has another wallet", curvekit.ErrConflict, accountID)
}

// UserByWallet returns the user whose wallet is wallet.
func (s *Accounts) UserByWallet(ctx context.Context, wallet common.Address) (auth.User, error) {
	var row accountRow
	err := s.db.NewSelect().Model(&row).Where("wallet = ?", wallet.Bytes()).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return auth.User{}, fmt.Errorf("%w: no user with wallet %s", curvekit.ErrNotFound, wallet.Hex())
	}
	if err != nil {
		return auth.User{}, fmt.Errorf("bunstore: user by wallet: %w", err)
	}
	return row.user(), nil
}

// SetTier sets the tier of the user whose wallet is wallet.
func (s *Accounts) SetTier(ctx context.Context, wallet common.Address, tier curvekit.Tier) error {
	res, err := s.db.NewUpdate().Model((*accountRow)(nil)).Set("tier = ?", string(tier)).Where("wallet = ?", wallet.Bytes()).Exec(ctx)
	if err != nil {
		return fmt.Errorf("bunstore: set tier: %w", err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return fmt.Errorf("bunstore: set tier: %w", err)
	} else if n == 0 {
		return fmt.Errorf("%w: no user with wallet %s", curvekit.ErrNotFound, wallet.Hex())
	}
	return nil
}

// PutLoginState stores a pending sign-in.
func (s *Accounts) PutLoginState(ctx context.Context, ls auth.LoginState) error {
	row := loginStateRow{
		StateHash: ls.StateHash, BindingHash: ls.BindingHash, Verifier: ls.Verifier, ReturnTo: ls.ReturnTo,
		CreatedAt: nanos(ls.CreatedAt), ExpiresAt: nanos(ls.ExpiresAt),
	}
	if _, err := s.db.NewInsert().Model(&row).Exec(ctx); err != nil {
		return fmt.Errorf("bunstore: put login state: %w", err)
	}
	return nil
}

// TakeLoginState deletes and returns a pending sign-in: the DELETE decides which of concurrent
// takers gets it.
func (s *Accounts) TakeLoginState(ctx context.Context, stateHash []byte) (auth.LoginState, error) {
	var row loginStateRow
	err := s.db.NewRaw(`DELETE FROM login_states WHERE state_hash = ? RETURNING *`, stateHash).Scan(ctx, &row)
	if errors.Is(err, sql.ErrNoRows) {
		return auth.LoginState{}, fmt.Errorf("%w: no such sign-in", curvekit.ErrNotFound)
	}
	if err != nil {
		return auth.LoginState{}, fmt.Errorf("bunstore: take login state: %w", err)
	}
	return auth.LoginState{
		StateHash: row.StateHash, BindingHash: row.BindingHash, Verifier: row.Verifier, ReturnTo: row.ReturnTo,
		CreatedAt: fromNanos(row.CreatedAt), ExpiresAt: fromNanos(row.ExpiresAt),
	}, nil
}

// OpenSession stores a session and ends the browser's previous one in one transaction.
func (s *Accounts) OpenSession(ctx context.Context, p *auth.OpenSessionParams) error {
	row := sessionRow{
		ID: p.Session.ID, TokenHash: p.TokenHash, AccountID: p.Session.AccountID,
		SignedInAt: nanos(p.Session.SignedInAt), ExpiresAt: nanos(p.Session.ExpiresAt), EndedAt: nanos(p.Session.EndedAt),
	}
	err := s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		if len(p.EndTokenHash) > 0 {
			if _, err := tx.NewUpdate().Model((*sessionRow)(nil)).Set("ended_at = ?", row.SignedInAt).
				Where("token_hash = ? AND ended_at IS NULL", p.EndTokenHash).Exec(ctx); err != nil {
				return err
			}
		}
		_, err := tx.NewInsert().Model(&row).Exec(ctx)
		return err
	})
	if err != nil {
		return fmt.Errorf("bunstore: open session: %w", err)
	}
	return nil
}

type sessionUserRow struct {
	Session sessionRow `bun:"embed:s_"`
	Account accountRow `bun:"embed:a_"`
}

// SessionByHash returns a session and its user in one query.
func (s *Accounts) SessionByHash(ctx context.Context, tokenHash []byte) (auth.Session, auth.User, error) {
	var row sessionUserRow
	err := s.db.NewRaw(`SELECT s.id AS s_id, s.account_id AS s_account_id, s.signed_in_at AS s_signed_in_at,
			s.expires_at AS s_expires_at, s.ended_at AS s_ended_at, `+accountColumns+`
		FROM sessions s JOIN accounts a ON a.id = s.account_id WHERE s.token_hash = ?`, tokenHash).Scan(ctx, &row)
	if errors.Is(err, sql.ErrNoRows) {
		return auth.Session{}, auth.User{}, fmt.Errorf("%w: no such session", curvekit.ErrNotFound)
	}
	if err != nil {
		return auth.Session{}, auth.User{}, fmt.Errorf("bunstore: session: %w", err)
	}
	return row.Session.session(), row.Account.user(), nil
}

// EndSession ends a session, keeping an earlier end.
func (s *Accounts) EndSession(ctx context.Context, sessionID string, at time.Time) error {
	res, err := s.db.NewUpdate().Model((*sessionRow)(nil)).Set("ended_at = COALESCE(ended_at, ?)", nanos(at)).
		Where("id = ?", sessionID).Exec(ctx)
	if err != nil {
		return fmt.Errorf("bunstore: end session: %w", err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return fmt.Errorf("bunstore: end session: %w", err)
	} else if n == 0 {
		return fmt.Errorf("%w: no such session", curvekit.ErrNotFound)
	}
	return nil
}

// CreateKey stores a key when its account is under p.MaxActive active keys. The account row is
// locked first (SQLite's immediate transaction locks the database), so concurrent creations
// cannot both pass the count.
func (s *Accounts) CreateKey(ctx context.Context, p *auth.CreateKeyParams) error {
	row, err := newKeyRow(&p.Key, p.Hash)
	if err != nil {
		return fmt.Errorf("bunstore: create key: %w", err)
	}
	err = s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		q := tx.NewSelect().Model((*accountRow)(nil)).Column("id").Where("id = ?", p.Key.AccountID)
		if s.dialect == dialectPostgres {
			q.For("UPDATE")
		}
		var id string
		if err := q.Scan(ctx, &id); errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("%w: no account %s", curvekit.ErrNotFound, p.Key.AccountID)
		} else if err != nil {
			return err
		}
		active, err := tx.NewSelect().Model((*keyRow)(nil)).Where("account_id = ? AND revoked_at IS NULL", p.Key.AccountID).Count(ctx)
		if err != nil {
			return err
		}
		if int64(active) >= int64(p.MaxActive) {
			return fmt.Errorf("%w: the account has %d active API keys", curvekit.ErrLimited, active)
		}
		_, err = tx.NewInsert().Model(&row).Exec(ctx)
		return err
	})
	if err != nil {
		if errors.Is(err, curvekit.ErrNotFound) || errors.Is(err, curvekit.ErrLimited) {
			return err
		}
		return fmt.Errorf("bunstore: create key: %w", err)
	}
	return nil
}

// Keys returns an account's keys, newest first.
func (s *Accounts) Keys(ctx context.Context, accountID string) ([]auth.Key, error) {
	var rows []keyRow
	if err := s.db.NewSelect().Model(&rows).Where("account_id = ?", accountID).Order("created_at DESC", "id DESC").Scan(ctx); err != nil {
		return nil, fmt.Errorf("bunstore: keys: %w", err)
	}
	out := make([]auth.Key, len(rows))
	for i := range rows {
		k, err := rows[i].key()
		if err != nil {
			return nil, err
		}
		out[i] = k
	}
	return out, nil
}

type keyUserRow struct {
	Key     keyRow     `bun:"embed:k_"`
	Account accountRow `bun:"embed:a_"`
}

var keyByHashSQLite, keyByHashPG = keyByHashQuery("?"), keyByHashQuery("$1")

// keyByHashQuery selects a key and its user; the placeholder is the driver's own.
func keyByHashQuery(placeholder string) string {
	return `SELECT k.id AS k_id, k.account_id AS k_account_id, k.name AS k_name, k.hint AS k_hint,
			k.read_only AS k_read_only, k.allowed_ips AS k_allowed_ips, k.allowed_recipients AS k_allowed_recipients,
			k.created_at AS k_created_at, k.last_used_at AS k_last_used_at, k.revoked_at AS k_revoked_at, ` + accountColumns + `
		FROM api_keys k JOIN accounts a ON a.id = k.account_id WHERE k.key_hash = ` + placeholder
}

// KeyByHash returns a key and its user in one prepared query (every request with a key runs it).
func (s *Accounts) KeyByHash(ctx context.Context, keyHash []byte) (auth.Key, auth.User, error) {
	q := keyByHashSQLite
	if s.dialect == dialectPostgres {
		q = keyByHashPG
	}
	var row keyUserRow
	err := s.prepared.scan(ctx, s.db, &row, q, keyHash)
	if errors.Is(err, sql.ErrNoRows) {
		return auth.Key{}, auth.User{}, fmt.Errorf("%w: no such API key", curvekit.ErrNotFound)
	}
	if err != nil {
		return auth.Key{}, auth.User{}, fmt.Errorf("bunstore: key: %w", err)
	}
	k, err := row.Key.key()
	if err != nil {
		return auth.Key{}, auth.User{}, err
	}
	return k, row.Account.user(), nil
}

// RevokeKey revokes a key of p.AccountID, keeping an earlier revocation.
func (s *Accounts) RevokeKey(ctx context.Context, p *auth.RevokeKeyParams) error {
	res, err := s.db.NewUpdate().Model((*keyRow)(nil)).Set("revoked_at = COALESCE(revoked_at, ?)", nanos(p.At)).
		Where("id = ? AND account_id = ?", p.KeyID, p.AccountID).Exec(ctx)
	if err != nil {
		return fmt.Errorf("bunstore: revoke key: %w", err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return fmt.Errorf("bunstore: revoke key: %w", err)
	}
	if n == 1 {
		return nil
	}
	// Keys are never deleted, so a key that exists now existed at the UPDATE: it is another's.
	exists, err := s.db.NewSelect().Model((*keyRow)(nil)).Where("id = ?", p.KeyID).Exists(ctx)
	if err != nil {
		return fmt.Errorf("bunstore: revoke key: %w", err)
	}
	if exists {
		return fmt.Errorf("%w: the API key belongs to another account", curvekit.ErrForbidden)
	}
	return fmt.Errorf("%w: no such API key", curvekit.ErrNotFound)
}

// TouchKey moves a key's last use forward to at.
func (s *Accounts) TouchKey(ctx context.Context, keyID string, at time.Time) error {
	t := nanos(at)
	_, err := s.db.NewUpdate().Model((*keyRow)(nil)).Set("last_used_at = ?", t).
		Where("id = ? AND (last_used_at IS NULL OR last_used_at < ?)", keyID, t).Exec(ctx)
	if err != nil {
		return fmt.Errorf("bunstore: touch key: %w", err)
	}
	return nil
}

// liveChunk bounds the ids of one LiveCredentials statement, well under both drivers' limits on
// bound parameters.
const liveChunk = 500

// LiveCredentials reads the ids asked about by primary key, a chunk of ids per statement.
func (s *Accounts) LiveCredentials(ctx context.Context, p *auth.LiveCredentialsParams) (auth.CredentialIDs, error) {
	var out auth.CredentialIDs
	at := nanos(p.At)
	for ids := range slices.Chunk(p.IDs.Sessions, liveChunk) {
		var live []string
		if err := s.db.NewSelect().Model((*sessionRow)(nil)).Column("id").
			Where("id IN (?) AND ended_at IS NULL AND expires_at > ?", bun.In(ids), at).Scan(ctx, &live); err != nil {
			return auth.CredentialIDs{}, fmt.Errorf("bunstore: live sessions: %w", err)
		}
		out.Sessions = append(out.Sessions, live...)
	}
	for ids := range slices.Chunk(p.IDs.Keys, liveChunk) {
		var live []string
		if err := s.db.NewSelect().Model((*keyRow)(nil)).Column("id").
			Where("id IN (?) AND revoked_at IS NULL", bun.In(ids)).Scan(ctx, &live); err != nil {
			return auth.CredentialIDs{}, fmt.Errorf("bunstore: live keys: %w", err)
		}
		out.Keys = append(out.Keys, live...)
	}
	return out, nil
}

// Prune deletes sign-ins and sessions that can no longer be used.
func (s *Accounts) Prune(ctx context.Context, t time.Time) error {
	at := nanos(t)
	err := s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		if _, err := tx.NewDelete().Model((*loginStateRow)(nil)).Where("expires_at < ?", at).Exec(ctx); err != nil {
			return err
		}
		_, err := tx.NewDelete().Model((*sessionRow)(nil)).Where("expires_at < ? OR ended_at < ?", at, at).Exec(ctx)
		return err
	})
	if err != nil {
		return fmt.Errorf("bunstore: prune: %w", err)
	}
	return nil
}
