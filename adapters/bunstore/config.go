package bunstore

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"
)

// Config configures a Store.
type Config struct {
	// DSN selects the database: a postgres:// or postgresql:// URL opens PostgreSQL; anything else
	// is a SQLite path or URI ("data/curvekit.db", "file:data/curvekit.db?mode=rwc",
	// "file::memory:"), to which New adds its pragmas.
	DSN string
	// MaxOpenConns bounds the connection pool. 0 means 4 for a SQLite file, 1 for in-memory
	// SQLite (the only value allowed there) and 10 for PostgreSQL, which opens up to half as
	// many again for the agent's claims and progress notes (DB.quick).
	MaxOpenConns int
	// BusyTimeout is how long a SQLite writer waits for another one to commit before failing;
	// 0 means 5s. PostgreSQL ignores it.
	BusyTimeout time.Duration
	// IdleInTransaction, on PostgreSQL, is how long a session may sit idle inside a transaction
	// before the server ends it (idle_in_transaction_session_timeout), releasing its locks: a
	// process frozen in the middle of a write (a fenced write locks the lease's row) would
	// otherwise hold up every other replica, the next leader's takeover included, until it
	// resumed. 0 leaves the server's setting; the DSN's own parameter wins.
	IdleInTransaction time.Duration
}

type dialectKind int

const (
	dialectSQLite dialectKind = iota
	dialectPostgres
)

func (c *Config) dialect() dialectKind {
	if strings.HasPrefix(c.DSN, "postgres://") || strings.HasPrefix(c.DSN, "postgresql://") {
		return dialectPostgres
	}
	return dialectSQLite
}

// sqliteMemory reports whether the SQLite DSN names an in-memory database.
func (c *Config) sqliteMemory() bool {
	path, query, _ := strings.Cut(c.DSN, "?")
	if path == ":memory:" || path == "file::memory:" || path == "" {
		return true
	}
	q, err := url.ParseQuery(query)
	return err == nil && q.Get("mode") == "memory"
}

// sqlitePath is the file a SQLite DSN names ("" when it names none a plain open would create).
func (c *Config) sqlitePath() string {
	path, query, _ := strings.Cut(c.DSN, "?")
	if q, err := url.ParseQuery(query); err == nil && q.Get("mode") != "" && q.Get("mode") != "rwc" {
		return "" // ro, rw: SQLite must not create it
	}
	return strings.TrimPrefix(path, "file:")
}

// withDefaults returns c with zero values replaced by defaults.
func (c Config) withDefaults() Config {
	if c.BusyTimeout == 0 {
		c.BusyTimeout = 5 * time.Second
	}
	if c.MaxOpenConns == 0 {
		switch {
		case c.dialect() == dialectPostgres:
			c.MaxOpenConns = 10
		case c.sqliteMemory():
			c.MaxOpenConns = 1
		default:
			c.MaxOpenConns = 4
		}
	}
	return c
}

func (c *Config) validate() error {
	if strings.TrimSpace(c.DSN) == "" {
		return errors.New("bunstore: DSN is empty")
	}
	if c.MaxOpenConns < 0 {
		return fmt.Errorf("bunstore: MaxOpenConns %d is negative", c.MaxOpenConns)
	}
	if c.BusyTimeout < 0 {
		return fmt.Errorf("bunstore: BusyTimeout %s is negative", c.BusyTimeout)
	}
	if scheme, _, ok := strings.Cut(c.DSN, "://"); ok && c.dialect() == dialectSQLite {
		return fmt.Errorf("bunstore: unknown database scheme %q: use a postgres:// URL or a SQLite file path", scheme+"://")
	}
	if c.dialect() == dialectSQLite {
		if c.sqliteMemory() && c.MaxOpenConns > 1 {
			return fmt.Errorf("bunstore: in-memory SQLite needs MaxOpenConns 1 (each connection would be another database), got %d", c.MaxOpenConns)
		}
		if _, query, _ := strings.Cut(c.DSN, "?"); query != "" {
			if _, err := url.ParseQuery(query); err != nil {
				return fmt.Errorf("bunstore: SQLite DSN query: %w", err)
			}
		}
	}
	return nil
}

// sqliteDSN adds the pragmas the store relies on to a SQLite DSN.
func (c *Config) sqliteDSN() string {
	q := url.Values{}
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", c.BusyTimeout.Milliseconds()))
	q.Add("_pragma", "foreign_keys(1)")
	if !c.sqliteMemory() {
		q.Add("_pragma", "journal_mode(WAL)")
		q.Add("_pragma", "synchronous(NORMAL)")
		// No commit checkpoints the log: a connection of the store's own does (checkpoint.go).
		q.Add("_pragma", "wal_autocheckpoint(0)")
	}
	// Writers take the write lock when they begin, so two Apply calls queue on busy_timeout
	// instead of one failing when it upgrades a read lock.
	q.Set("_txlock", "immediate")
	sep := "?"
	if strings.Contains(c.DSN, "?") {
		sep = "&"
	}
	return c.DSN + sep + q.Encode()
}
