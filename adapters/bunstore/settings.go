package bunstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"github.com/curvekit/curvekit"
	"github.com/curvekit/curvekit/account"
)

// AccountSettings is the account.Store on bun, a view on a DB. It is safe for concurrent use.
type AccountSettings struct {
	db *bun.DB
}

var _ account.Store = (*AccountSettings)(nil)

// AccountSettings returns the account settings store on d.
func (d *DB) AccountSettings() *AccountSettings { return &AccountSettings{db: d.bun} }

type settingsRow struct {
	bun.BaseModel `bun:"table:account_settings"`

	AccountID string `bun:"account_id,pk"`
	Document  string `bun:"document"`
	Version   int64  `bun:"version"`
	UpdatedAt int64  `bun:"updated_at"`
}

type activityRow struct {
	bun.BaseModel `bun:"table:account_activity"`

	ID        string `bun:"id,pk"`
	AccountID string `bun:"account_id"`
	At        int64  `bun:"at"`
	Kind      string `bun:"kind"`
	Code      string `bun:"code"`
	Message   string `bun:"message"`
	Actor     string `bun:"actor"`
	Changes   string `bun:"changes"` // newline-separated paths
}

func newActivityRow(a *account.Activity) activityRow {
	return activityRow{ID: a.ID, AccountID: a.AccountID, At: a.At.UnixNano(), Kind: string(a.Kind), Code: a.Code,
		Message: a.Message, Actor: a.Actor, Changes: strings.Join(a.Changes, "\n")}
}

func (r *activityRow) activity() account.Activity {
	a := account.Activity{ID: r.ID, AccountID: r.AccountID, At: time.Unix(0, r.At).UTC(), Kind: account.ActivityKind(r.Kind),
		Code: r.Code, Message: r.Message, Actor: r.Actor}
	if r.Changes != "" {
		a.Changes = strings.Split(r.Changes, "\n")
	}
	return a
}

// Settings returns the account's stored document, or curvekit.ErrNotFound.
func (s *AccountSettings) Settings(ctx context.Context, accountID string) (account.Record, error) {
	var row settingsRow
	err := s.db.NewSelect().Model(&row).Where("account_id = ?", accountID).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return account.Record{}, fmt.Errorf("%w: no settings stored", curvekit.ErrNotFound)
	}
	if err != nil {
		return account.Record{}, fmt.Errorf("bunstore: settings: %w", err)
	}
	return account.Record{AccountID: row.AccountID, Document: []byte(row.Document), Version: row.Version, UpdatedAt: time.Unix(0, row.UpdatedAt).UTC()}, nil
}

// SaveSettings stores a new version when the stored one is the one before, with its log entry.
func (s *AccountSettings) SaveSettings(ctx context.Context, p account.SaveParams) error {
	if p.Version < 1 || p.AccountID == "" || len(p.Document) == 0 {
		return fmt.Errorf("%w: settings without account, document or a version from 1", curvekit.ErrInvalid)
	}
	row := settingsRow{AccountID: p.AccountID, Document: string(p.Document), Version: p.Version, UpdatedAt: p.At.UnixNano()}
	act := newActivityRow(&p.Activity)
	err := s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		var res sql.Result
		var err error
		if p.Version == 1 {
			res, err = tx.NewInsert().Model(&row).On("CONFLICT (account_id) DO NOTHING").Exec(ctx)
		} else {
			res, err = tx.NewUpdate().Model(&row).Column("document", "version", "updated_at").
				Where("account_id = ? AND version = ?", p.AccountID, p.Version-1).Exec(ctx)
		}
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n == 0 {
			return fmt.Errorf("%w: the settings are no longer at version %d", curvekit.ErrConflict, p.Version-1)
		}
		if _, err = tx.NewInsert().Model(&act).Exec(ctx); err != nil {
			return err
		}
		_, err = recordEvents(ctx, tx, p.Events, p.At)
		return err
	})
	if err != nil && !errors.Is(err, curvekit.ErrConflict) {
		return fmt.Errorf("bunstore: save settings: %w", err)
	}
	return err
}

// AppendActivity appends an entry to the account's log.
func (s *AccountSettings) AppendActivity(ctx context.Context, a account.Activity) error {
	row := newActivityRow(&a)
	if _, err := s.db.NewInsert().Model(&row).Exec(ctx); err != nil {
		return fmt.Errorf("bunstore: append activity: %w", err)
	}
	return nil
}

// Activity returns a page of the account's log, newest first.
func (s *AccountSettings) Activity(ctx context.Context, q account.ActivityQuery) (account.ActivityPage, error) {
	limit := q.Limit
	if limit <= 0 {
		limit = 50
	}
	sel := s.db.NewSelect().Model((*activityRow)(nil)).Where("account_id = ?", q.AccountID)
	if q.Cursor != "" {
		f, err := decodeCursor(q.Cursor, "activity", 2)
		if err != nil {
			return account.ActivityPage{}, err
		}
		at, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil || !plainID(f[1]) {
			return account.ActivityPage{}, fmt.Errorf("%w: cursor does not belong to this query", curvekit.ErrInvalid)
		}
		sel.Where("(at < ? OR (at = ? AND id < ?))", at, at, f[1])
	}
	var rows []activityRow
	if err := sel.OrderExpr("at DESC, id DESC").Limit(int64(limit+1)).Scan(ctx, &rows); err != nil {
		return account.ActivityPage{}, fmt.Errorf("bunstore: activity: %w", err)
	}
	var page account.ActivityPage
	if len(rows) > limit {
		rows = rows[:limit]
		last := rows[limit-1]
		page.Next = encodeCursor("activity", strconv.FormatInt(last.At, 10), last.ID)
	}
	page.Entries = make([]account.Activity, len(rows))
	for i := range rows {
		page.Entries[i] = rows[i].activity()
	}
	return page, nil
}

// plainID reports whether id could be an activity id: 1 to 64 ASCII letters and digits (a cursor
// is the client's to send back, and bun writes arguments into the query text).
func plainID(id string) bool {
	if id == "" || len(id) > 64 {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return false
		}
	}
	return true
}
