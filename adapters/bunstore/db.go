package bunstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"net/url"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"
	"github.com/uptrace/bun/dialect/sqlitedialect"
	"github.com/uptrace/bun/driver/pgdriver"
	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

// DB is one database, opened once: every port's store (Market, and the others beside it) is a
// view on it and shares its pool and schema. It is safe for concurrent use.
type DB struct {
	bun     *bun.DB
	dialect dialectKind
	// quick is, on PostgreSQL, a second pool whose sessions commit without waiting for the
	// journal's flush (synchronous_commit off), for the writes Agent.quick describes: one round
	// trip each instead of a transaction of four. Nil on SQLite.
	quick *bun.DB
	// prepared holds the statements that run most (see preparedSet); agentSQL names the
	// agent's on PostgreSQL, liteSQL on SQLite.
	prepared preparedSet
	agentSQL *agentQueries
	liteSQL  *liteQueries
	// agentWrites queues the agent's writes on SQLite (Agent.writing); nil on PostgreSQL.
	agentWrites chan struct{}
	// jobHub reports the agent's changes to jobs on SQLite (Agent.WatchJobs); nil on PostgreSQL.
	jobHub *jobHub
	// announcements sends the agent's announcements on PostgreSQL (Agent.announce); nil on SQLite.
	announcements *announcements
	// vacuum vacuums what the market's writes churn, on PostgreSQL (vacuum.go); nil on SQLite.
	vacuum *vacuumer
	// checkpoint checkpoints a SQLite file's log in the background (checkpoint.go); nil in
	// memory and on PostgreSQL.
	checkpoint *checkpointer
}

// Open opens the database cfg names, brings its schema up to date and returns it. Close releases
// it.
func Open(ctx context.Context, cfg Config) (*DB, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	cfg = cfg.withDefaults()
	d := &DB{dialect: cfg.dialect()}
	var sqldb *sql.DB
	// migrator runs the migrations: the pool itself on SQLite, a connection of its own on
	// PostgreSQL (see below).
	var migrator *bun.DB
	switch d.dialect {
	case dialectPostgres:
		// OpenConnector reports a bad DSN as an error where pgdriver.WithDSN would panic.
		if _, err := pgdriver.NewDriver().OpenConnector(cfg.DSN); err != nil {
			return nil, fmt.Errorf("bunstore: postgres DSN: %w", err)
		}
		// A parameter of the DSN that pgdriver does not know is a session setting.
		u, err := url.Parse(cfg.DSN)
		if err != nil { // the DSN parsed above; its text (a password) stays out of the error
			return nil, errors.New("bunstore: postgres DSN is not a URL")
		}
		q := u.Query()
		// The statements that run prepared (preparedSet, and those inside the functions of
		// migration 0009) look rows up by key: their best plan does not depend on the values.
		// Left to choose, PostgreSQL plans each of them afresh for its first five runs on every
		// connection before it keeps the generic plan, and under the first burst after a start
		// that planning took a third longer to clear the burst (the slowest of the first 400 jobs
		// of JobRoundTrip: p99 103-133 ms, against 74-91 ms with the generic plan from the first
		// run, which Warm then makes). The DSN may still choose otherwise.
		if !q.Has("plan_cache_mode") {
			q.Set("plan_cache_mode", "force_generic_plan")
		}
		// Every statement of the store reads or writes a page of rows by an index: compiling one
		// to machine code (jit, on by default) only adds time, and once the planner overestimated
		// a small statement it spent 779 of its 907 ms compiling.
		if !q.Has("jit") {
			q.Set("jit", "off")
		}
		if cfg.IdleInTransaction > 0 && !q.Has("idle_in_transaction_session_timeout") {
			q.Set("idle_in_transaction_session_timeout", strconv.FormatInt(max(cfg.IdleInTransaction.Milliseconds(), 1), 10))
		}
		u.RawQuery = q.Encode()
		conn, err := pgdriver.NewDriver().OpenConnector(u.String())
		if err != nil {
			return nil, fmt.Errorf("bunstore: postgres DSN: %w", err)
		}
		sqldb = sql.OpenDB(conn)
		d.bun = bun.NewDB(sqldb, pgdialect.New())
		q.Set("synchronous_commit", "off")
		u.RawQuery = q.Encode()
		qconn, err := pgdriver.NewDriver().OpenConnector(u.String())
		if err != nil {
			d.bun.Close()
			return nil, fmt.Errorf("bunstore: postgres DSN: %w", err)
		}
		quick := sql.OpenDB(qconn)
		quick.SetMaxOpenConns(max(1, cfg.MaxOpenConns/2))
		quick.SetMaxIdleConns(max(1, cfg.MaxOpenConns/2))
		d.quick = bun.NewDB(quick, pgdialect.New())
		d.agentSQL = newAgentQueries(d.bun)
		d.announcements = &announcements{db: d.bun}
		// pgdriver gives up on a statement after 10 s unless the DSN says otherwise, and a
		// migration that rewrites a table of a large store runs longer: the migrations get a
		// connection that waits for them, unless the DSN sets its own timeouts.
		q.Del("synchronous_commit")
		for _, p := range []string{"read_timeout", "write_timeout"} {
			if !q.Has(p) && !q.Has("timeout") {
				q.Set(p, "24h")
			}
		}
		u.RawQuery = q.Encode()
		mconn, err := pgdriver.NewDriver().OpenConnector(u.String())
		if err != nil {
			d.Close()
			return nil, fmt.Errorf("bunstore: postgres DSN: %w", err)
		}
		mdb := sql.OpenDB(mconn)
		mdb.SetMaxOpenConns(1)
		migrator = bun.NewDB(mdb, pgdialect.New())
		defer migrator.Close()
	default:
		var err error
		sqldb, err = sql.Open("sqlite", cfg.sqliteDSN())
		if err != nil {
			return nil, fmt.Errorf("bunstore: open sqlite: %w", err)
		}
		d.bun = bun.NewDB(sqldb, sqlitedialect.New())
		d.agentWrites = make(chan struct{}, 1)
		d.jobHub = &jobHub{}
		d.liteSQL = newLiteQueries(d.bun)
		migrator = d.bun
	}
	sqldb.SetMaxOpenConns(cfg.MaxOpenConns)
	sqldb.SetMaxIdleConns(cfg.MaxOpenConns)
	// An in-memory SQLite database dies with its connection: never recycle it.
	sqldb.SetConnMaxLifetime(0)
	sqldb.SetConnMaxIdleTime(0)

	if d.dialect == dialectSQLite && !cfg.sqliteMemory() {
		if err := createPrivate(cfg.sqlitePath()); err != nil {
			d.Close()
			return nil, err
		}
	}
	if err := d.ping(ctx, cfg.BusyTimeout); err != nil {
		d.Close()
		return nil, fmt.Errorf("bunstore: connect: %w", err)
	}
	if err := d.migrate(ctx, migrator); err != nil {
		d.Close()
		return nil, err
	}
	// What migrations flagged to compute from the trades already stored, once.
	if err := d.rebuildDiscovery(ctx); err != nil {
		d.Close()
		return nil, err
	}
	if err := d.fillPendingBars(ctx); err != nil {
		d.Close()
		return nil, err
	}
	if err := d.fillPendingLevels(ctx); err != nil {
		d.Close()
		return nil, err
	}
	if err := d.foldNames(ctx); err != nil {
		d.Close()
		return nil, err
	}
	if d.dialect == dialectPostgres {
		d.vacuum = newVacuumer(d.bun)
	}
	if d.dialect == dialectSQLite && !cfg.sqliteMemory() {
		own, err := sql.Open("sqlite", cfg.sqliteDSN())
		if err != nil {
			d.Close()
			return nil, fmt.Errorf("bunstore: open sqlite: %w", err)
		}
		own.SetMaxOpenConns(1)
		d.checkpoint = newCheckpointer(own)
	}
	return d, nil
}

// Warm opens every connection the pools may hold, so that the first burst of work after a start
// does not wait for connections to be made (on PostgreSQL each is a new server process, several
// milliseconds here). On PostgreSQL it also prepares the agent's and the key lookup's statements
// on each connection and runs each once, with arguments that match nothing, inside a transaction
// it rolls back: the server then has parsed and planned them and compiled the functions they
// call, and the first burst waits for none of that (it took the first 50 jobs of a cold start
// 4 times as long as the later ones). A server calls it once, after Open. Idle connections are
// kept, never timed out, so the pools stay warm.
func (d *DB) Warm(ctx context.Context) error {
	var main, quick []warmStatement
	if q := d.agentSQL; q != nil {
		none := common.Address{}
		// The capped writes take an advisory lock that the transaction holds until Warm ends:
		// each connection takes its own key, kept apart from the wallets' (walletLockKey).
		lock := func(conn int) int64 { return math.MinInt64 + int64(conn) }
		main = []warmStatement{
			{q.getJob, func(int) []any { return []any{""} }},
			{q.insertJob, func(c int) []any { return []any{lock(c), 0, "", "", none, false, "", "[]", "", 0} }}, // a cap of 0 refuses it
			{q.putMemory, func(c int) []any { return []any{lock(c), 0, none, "", "", 0} }},                      // likewise
			{q.turnContext, func(int) []any { return []any{"", none, 0} }},
			{q.completeJob, func(int) []any { return []any{"", "", 0, "", "[]", 0, nil, "", "", 0} }}, // no such job
			{keyByHashPG, func(int) []any { return []any{[]byte{}} }},
		}
		quick = []warmStatement{{q.claim, nil}} // prepared only: a claim takes a job
	}
	if err := d.warmPool(ctx, d.bun, main); err != nil {
		return err
	}
	if d.quick != nil {
		return d.warmPool(ctx, d.quick, quick)
	}
	return nil
}

// warmStatement is a statement Warm prepares and, with args, runs on each connection.
type warmStatement struct {
	query string
	args  func(conn int) []any
}

// warmPool holds as many connections of db at once as its pool allows, prepares and runs
// statements on each, then returns them. With statements, a transaction is what holds a
// connection: database/sql keeps what Tx.StmtContext prepares on its connection for the pool's
// statement.
func (d *DB) warmPool(ctx context.Context, db *bun.DB, statements []warmStatement) error {
	stmts := make([]*sql.Stmt, len(statements))
	for i, w := range statements {
		st, err := d.prepared.get(ctx, db.DB, w.query)
		if err != nil {
			return fmt.Errorf("bunstore: warm the pool: %w", err)
		}
		stmts[i] = st
	}
	n := db.Stats().MaxOpenConnections
	if len(stmts) == 0 { // SQLite: a transaction there may take the file's lock
		conns := make([]*sql.Conn, 0, n)
		defer func() {
			for _, c := range conns {
				c.Close()
			}
		}()
		for range n {
			c, err := db.DB.Conn(ctx)
			if err != nil {
				return fmt.Errorf("bunstore: warm the pool: %w", err)
			}
			conns = append(conns, c)
			if err := c.PingContext(ctx); err != nil {
				return fmt.Errorf("bunstore: warm the pool: %w", err)
			}
		}
		return nil
	}
	txs := make([]*sql.Tx, 0, n)
	defer func() {
		for _, tx := range txs {
			tx.Rollback()
		}
	}()
	for c := range n {
		tx, err := db.DB.BeginTx(ctx, nil)
		if err != nil {
			return fmt.Errorf("bunstore: warm the pool: %w", err)
		}
		txs = append(txs, tx)
		for i, st := range stmts {
			ts := tx.StmtContext(ctx, st)
			if args := statements[i].args; args != nil {
				rows, err := ts.QueryContext(ctx, args(c)...)
				if err != nil {
					return fmt.Errorf("bunstore: warm the pool: %w", err)
				}
				for rows.Next() {
				}
				if err := rows.Close(); err != nil {
					return fmt.Errorf("bunstore: warm the pool: %w", err)
				}
			}
			if err := ts.Close(); err != nil {
				return fmt.Errorf("bunstore: warm the pool: %w", err)
			}
		}
	}
	return nil
}

// ping connects, which on SQLite applies the pragmas. Switching a new file to WAL needs an
// exclusive lock, and SQLite answers SQLITE_BUSY at once, without its busy handler, when another
// connection opening the same file holds a lock meanwhile (processes starting together): that
// case is retried until busyTimeout, like any other busy wait.
func (d *DB) ping(ctx context.Context, busyTimeout time.Duration) error {
	deadline := time.Now().Add(busyTimeout)
	for wait := time.Millisecond; ; wait = min(2*wait, 50*time.Millisecond) {
		err := d.bun.PingContext(ctx)
		var coded interface{ Code() int }
		if err == nil || d.dialect != dialectSQLite || !errors.As(err, &coded) || coded.Code()&0xff != sqliteBusy || time.Now().After(deadline) {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(wait):
		}
	}
}

// sqliteBusy is SQLITE_BUSY, the primary code of every busy error.
const sqliteBusy = 5

// createPrivate creates the SQLite file, when it does not exist yet, readable by its owner only:
// it holds the accounts, keys' hashes and sealed wallets. SQLite gives its -wal and -shm files
// the mode of the database file.
func createPrivate(path string) error {
	if path == "" {
		return nil
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("bunstore: create %s: %w", path, err)
	}
	return f.Close()
}

// Close closes the database.
func (d *DB) Close() error {
	d.vacuum.close()
	d.checkpoint.close()
	if d.announcements != nil {
		d.announcements.close() // what was announced before is sent
	}
	d.prepared.close()
	if d.quick != nil {
		d.quick.Close()
	}
	return d.bun.Close()
}

// preparedSet holds statements prepared by text on a pool, each at its first successful use (a
// failed preparation is tried again next time) and kept until Close; database/sql prepares each
// again on every pooled connection as needed. They are the statements that run most: the API-key
// lookup of every request that carries a key, and the agent's job path. A query sent as text is
// parsed every time it runs (half the key lookup's time on SQLite), and on PostgreSQL analysed and
// planned too: for the agent's job path under load that was a third of the database's CPU. A
// prepared statement is parsed once per connection and planned once, generically (Open sets
// plan_cache_mode).
type preparedSet struct {
	mu    sync.Mutex
	stmts map[preparedKey]*sql.Stmt
}

type preparedKey struct {
	pool  *sql.DB
	query string
}

func (p *preparedSet) get(ctx context.Context, pool *sql.DB, query string) (*sql.Stmt, error) {
	k := preparedKey{pool, query}
	p.mu.Lock()
	defer p.mu.Unlock()
	if st, ok := p.stmts[k]; ok {
		return st, nil
	}
	st, err := pool.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	if p.stmts == nil {
		p.stmts = map[preparedKey]*sql.Stmt{}
	}
	p.stmts[k] = st
	return st, nil
}

// scan runs query, in the driver's own placeholders ("?" on SQLite, "$1" on PostgreSQL), as a
// statement prepared on pool, and scans its first row into dest as bun would; no row is
// sql.ErrNoRows.
func (p *preparedSet) scan(ctx context.Context, pool *bun.DB, dest any, query string, args ...any) error {
	st, err := p.get(ctx, pool.DB, query)
	if err != nil {
		return err
	}
	return scanStmt(ctx, pool, st, dest, args...)
}

// scanStmt runs st and scans its first row into dest as bun would; no row is sql.ErrNoRows.
func scanStmt(ctx context.Context, pool *bun.DB, st *sql.Stmt, dest any, args ...any) error {
	rows, err := st.QueryContext(ctx, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	if !rows.Next() {
		if err := rows.Err(); err != nil {
			return err
		}
		return sql.ErrNoRows
	}
	if err := pool.ScanRow(ctx, rows, dest); err != nil {
		return err
	}
	return rows.Close()
}

// scanRow runs query as scan does and scans its one row into dest with database/sql.
func (p *preparedSet) scanRow(ctx context.Context, pool *bun.DB, query string, dest []any, args ...any) error {
	st, err := p.get(ctx, pool.DB, query)
	if err != nil {
		return err
	}
	return st.QueryRowContext(ctx, args...).Scan(dest...)
}

// query runs query as scan does and returns its rows.
func (p *preparedSet) query(ctx context.Context, pool *bun.DB, query string, args ...any) (*sql.Rows, error) {
	st, err := p.get(ctx, pool.DB, query)
	if err != nil {
		return nil, err
	}
	return st.QueryContext(ctx, args...)
}

// exec runs query, which returns no rows, as a statement prepared on pool.
func (p *preparedSet) exec(ctx context.Context, pool *bun.DB, query string, args ...any) (sql.Result, error) {
	st, err := p.get(ctx, pool.DB, query)
	if err != nil {
		return nil, err
	}
	return st.ExecContext(ctx, args...)
}

// all returns the statements of queries prepared on pool, for a transaction to bind with
// Tx.StmtContext. Get them before the transaction begins: preparing on the pool takes a
// connection, and a pool of one (an in-memory database) has lent its only one to the transaction.
func (p *preparedSet) all(ctx context.Context, pool *sql.DB, queries ...string) ([]*sql.Stmt, error) {
	stmts := make([]*sql.Stmt, len(queries))
	for i, q := range queries {
		st, err := p.get(ctx, pool, q)
		if err != nil {
			return nil, err
		}
		stmts[i] = st
	}
	return stmts, nil
}

func (p *preparedSet) close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for k, st := range p.stmts {
		st.Close()
		delete(p.stmts, k)
	}
}

// Ping checks that the database answers (the server's readiness probe).
func (d *DB) Ping(ctx context.Context) error {
	if err := d.bun.PingContext(ctx); err != nil {
		return fmt.Errorf("bunstore: ping: %w", err)
	}
	return nil
}

// Postgres reports whether d is PostgreSQL (else SQLite).
func (d *DB) Postgres() bool { return d.dialect == dialectPostgres }
