package bunstore

import (
	"context"
	"database/sql"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"reflect"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/uptrace/bun"

	"github.com/curvekit/curvekit"
	"github.com/curvekit/curvekit/agent"
	"github.com/curvekit/curvekit/push"
)

// Agent is the agent's stores on bun (agent.JobStore, agent.MemoryStore, agent.ThreadStore), a
// view on a DB. Jobs move only by compare-and-set UPDATEs, so several processes may share one
// database. It is safe for concurrent use.
type Agent struct {
	db       *bun.DB
	quickDB  *bun.DB // see quick; nil on SQLite
	dialect  dialectKind
	prepared *preparedSet
	sql      *agentQueries  // PostgreSQL's; nil on SQLite
	lite     *liteQueries   // SQLite's; nil on PostgreSQL
	writes   chan struct{}  // see writing; nil on PostgreSQL
	hub      *jobHub        // see changed; nil on PostgreSQL
	outbox   *announcements // see announce; nil on SQLite
}

// writing waits for the agent's turn to write on SQLite, and returns what ends it. SQLite has one
// writer at a time, and a writer that finds the lock taken sleeps in its busy handler (1, 2, 5,
// 10 ... 100 ms) before it tries again: under a burst of jobs those sleeps were the tail of their
// latency (JobRoundTrip at 50 clients: p99 100 ms on a pool of 4, 65 ms on a pool of one). Queued
// here instead, the next writer starts the moment the last one ends, and reads still run beside
// it. Writers outside the agent (the indexer) meet the busy handler as before, seldom. Every
// exported write takes it once, and none calls another. On PostgreSQL it waits for nothing.
func (s *Agent) writing(ctx context.Context) (release func(), err error) {
	if s.writes == nil {
		return func() {}, nil
	}
	select {
	case s.writes <- struct{}{}:
		return func() { <-s.writes }, nil
	case <-ctx.Done():
		return nil, fmt.Errorf("bunstore: %w", ctx.Err())
	}
}

// agentQueries are the agent's statements that run prepared on PostgreSQL, as the texts that
// key them. Those that return jobs name the columns of agentJobRow: a column added by a later
// migration then leaves their result unchanged (PostgreSQL refuses to run a prepared statement
// whose result changed).
type agentQueries struct {
	getJob, claim, insertJob, putMemory, turnContext, completeJob string
}

func newAgentQueries(db *bun.DB) *agentQueries {
	cols := columnsOf(db, (*agentJobRow)(nil))
	return &agentQueries{
		getJob: "SELECT " + cols + " FROM agent_jobs WHERE id = $1",
		claim: `UPDATE agent_jobs SET status = 'processing', locked_by = $1, lease_expires_at = $2,
		attempts = attempts + 1, started_at = COALESCE(started_at, $3)
		WHERE id = (SELECT id FROM agent_jobs WHERE status = 'pending' ORDER BY created_at, id LIMIT 1 FOR UPDATE SKIP LOCKED)
		AND status = 'pending' RETURNING ` + cols,
		insertJob:   "SELECT curvekit_agent_insert_job($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)",
		putMemory:   "SELECT curvekit_agent_put_memory($1, $2, $3, $4, $5, $6)",
		turnContext: turnContextPG,
		completeJob: "SELECT " + cols + " FROM curvekit_agent_complete_job($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)",
	}
}

// liteQueries are the agent's statements that run prepared on SQLite, as the texts that key them.
// A statement sent as text is parsed and compiled each time it runs: under a burst of jobs that
// was a quarter of the process's CPU (SQLite runs in it). Each write here is one statement, where
// a transaction of three to five ran before: SQLite begins a statement that writes with the
// write lock already taken, so its reads and its write see one state, as under a lock.
type liteQueries struct {
	cols                                                                           string // agentJobRow's, for RETURNING
	getJob, claim, insertJob, putMemory, memories, turns, insertThread, appendTurn string
}

func newLiteQueries(db *bun.DB) *liteQueries {
	cols := columnsOf(db, (*agentJobRow)(nil))
	return &liteQueries{
		cols:   cols,
		getJob: "SELECT " + cols + " FROM agent_jobs WHERE id = ?",
		claim: `UPDATE agent_jobs SET status = 'processing', locked_by = ?, lease_expires_at = ?,
		attempts = attempts + 1, started_at = COALESCE(started_at, ?)
		WHERE id = (SELECT id FROM agent_jobs WHERE status = 'pending' ORDER BY created_at, id LIMIT 1)
		AND status = 'pending' RETURNING ` + cols,
		// The pending jobs are counted under the write lock the statement holds (a cap of 0 or
		// less is none). The SELECT's WHERE also tells SQLite's parser that ON CONFLICT is the
		// upsert's.
		insertJob: `INSERT INTO agent_jobs (id, thread_id, wallet, read_only, status, prompt, history, model, created_at,
			response, rich_data, error, status_updates, attempts)
		SELECT ?1, ?2, ?3, ?4, 'pending', ?5, ?6, ?7, ?8, '', '[]', '', '[]', 0
		WHERE ?9 <= 0 OR (SELECT count(*) FROM agent_jobs WHERE wallet = ?3 AND status = 'pending') < ?9
		ON CONFLICT (id) DO NOTHING`,
		// Likewise for the memory's cap, which a key the wallet has already passes.
		putMemory: `INSERT INTO agent_memory (wallet, key, value, updated_at)
		SELECT ?1, ?2, ?3, ?4
		WHERE ?5 <= 0 OR EXISTS (SELECT 1 FROM agent_memory WHERE wallet = ?1 AND key = ?2)
			OR (SELECT count(*) FROM agent_memory WHERE wallet = ?1) < ?5
		ON CONFLICT (wallet, key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`,
		memories:     "SELECT key, value, updated_at FROM agent_memory WHERE wallet = ? ORDER BY key",
		turns:        "SELECT prompt, response, at FROM agent_turns WHERE wallet = ? AND thread_id = ? ORDER BY seq DESC LIMIT ?",
		insertThread: "INSERT INTO agent_threads (wallet, id, created_at) VALUES (?, ?, ?) ON CONFLICT (wallet, id) DO NOTHING",
		// The turn numbered after the last of the wallet's thread.
		appendTurn: `INSERT INTO agent_turns (wallet, thread_id, seq, prompt, response, at)
		SELECT ?1, ?2, (SELECT COALESCE(MAX(seq), 0) + 1 FROM agent_turns WHERE wallet = ?1 AND thread_id = ?2), ?3, ?4, ?5`,
	}
}

var (
	_ agent.JobStore    = (*Agent)(nil)
	_ agent.MemoryStore = (*Agent)(nil)
	_ agent.ThreadStore = (*Agent)(nil)
)

// Agent returns the agent stores on d.
func (d *DB) Agent() *Agent {
	return &Agent{db: d.bun, quickDB: d.quick, dialect: d.dialect, prepared: &d.prepared, sql: d.agentSQL, lite: d.liteSQL, writes: d.agentWrites, hub: d.jobHub, outbox: d.announcements}
}

// columnsOf lists the columns of a model, by name.
func columnsOf(db *bun.DB, model any) string {
	t := db.Table(reflect.TypeOf(model).Elem())
	names := make([]string, len(t.Fields))
	for i, f := range t.Fields {
		names[i] = f.Name
	}
	return strings.Join(names, ", ")
}

type agentJobRow struct {
	bun.BaseModel `bun:"table:agent_jobs"`

	ID             string         `bun:"id,pk"`
	ThreadID       string         `bun:"thread_id"`
	Wallet         common.Address `bun:"wallet"`
	ReadOnly       bool           `bun:"read_only"`
	Status         string         `bun:"status"`
	Prompt         string         `bun:"prompt"`
	History        string         `bun:"history"`
	Model          string         `bun:"model"`
	CreatedAt      int64          `bun:"created_at"`
	StartedAt      sql.NullInt64  `bun:"started_at"`
	CompletedAt    sql.NullInt64  `bun:"completed_at"`
	CancelledAt    sql.NullInt64  `bun:"cancelled_at"`
	Response       string         `bun:"response"`
	RichData       string         `bun:"rich_data"`
	Error          string         `bun:"error"`
	StatusUpdates  string         `bun:"status_updates"`
	Attempts       int            `bun:"attempts"`
	LockedBy       sql.NullString `bun:"locked_by"`
	LeaseExpiresAt sql.NullInt64  `bun:"lease_expires_at"`
}

// statusUpdateJSON is how a status update is kept in the row: milliseconds, like every time.
type statusUpdateJSON struct {
	Message string `json:"m"`
	At      int64  `json:"t"`
}

func millis(t time.Time) int64 { return t.UnixMilli() }

func fromMillis(n sql.NullInt64) time.Time {
	if !n.Valid {
		return time.Time{}
	}
	return time.UnixMilli(n.Int64).UTC()
}

func (r *agentJobRow) job() (agent.Job, error) {
	j := agent.Job{
		ID: r.ID, ThreadID: r.ThreadID, Wallet: r.Wallet, ReadOnly: r.ReadOnly, Status: agent.Status(r.Status),
		Prompt: r.Prompt, Model: r.Model,
		CreatedAt:   time.UnixMilli(r.CreatedAt).UTC(),
		StartedAt:   fromMillis(r.StartedAt),
		CompletedAt: fromMillis(r.CompletedAt),
		CancelledAt: fromMillis(r.CancelledAt),
		Response:    r.Response, Error: r.Error, Attempts: r.Attempts,
		Runner: r.LockedBy.String, LeaseExpiresAt: fromMillis(r.LeaseExpiresAt),
	}
	if err := json.Unmarshal([]byte(r.History), &j.History); err != nil {
		return agent.Job{}, fmt.Errorf("bunstore: job %s history: %w", r.ID, err)
	}
	if err := json.Unmarshal([]byte(r.RichData), &j.RichData); err != nil {
		return agent.Job{}, fmt.Errorf("bunstore: job %s rich data: %w", r.ID, err)
	}
	var ups []statusUpdateJSON
	if err := json.Unmarshal([]byte(r.StatusUpdates), &ups); err != nil {
		return agent.Job{}, fmt.Errorf("bunstore: job %s status updates: %w", r.ID, err)
	}
	// Empty lists read back as nil, as they were before they were stored.
	if len(j.History) == 0 {
		j.History = nil
	}
	if len(j.RichData) == 0 {
		j.RichData = nil
	}
	for _, u := range ups {
		j.StatusUpdates = append(j.StatusUpdates, agent.StatusUpdate{Message: u.Message, Timestamp: time.UnixMilli(u.At).UTC()})
	}
	return j, nil
}

func jsonText(v any) (string, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return "", err
	}
	if string(b) == "null" {
		return "[]", nil
	}
	return string(b), nil
}

// walletLockKey is the advisory lock of a wallet's rows of one kind (scope) on Postgres.
func walletLockKey(scope string, wallet common.Address) int64 {
	h := fnv.New64a()
	h.Write([]byte(scope))
	h.Write(wallet[:])
	return int64(binary.BigEndian.Uint64(h.Sum(nil)))
}

// InsertJob stores a pending job, refusing it when the wallet's pending jobs reach MaxPending.
func (s *Agent) InsertJob(ctx context.Context, p *agent.InsertJobParams) (agent.Job, error) {
	release, err := s.writing(ctx)
	if err != nil {
		return agent.Job{}, err
	}
	defer release()
	row := agentJobRow{
		ID: p.ID, ThreadID: p.ThreadID, Wallet: p.Wallet, ReadOnly: p.ReadOnly, Status: string(agent.StatusPending),
		Prompt: p.Prompt, Model: p.Model, CreatedAt: millis(p.CreatedAt), RichData: "[]", StatusUpdates: "[]",
	}
	if row.History, err = jsonText(p.History); err != nil {
		return agent.Job{}, fmt.Errorf("bunstore: insert job: %w", err)
	}
	if s.dialect == dialectPostgres && p.MaxPending > 0 {
		// One prepared call of a function (migration 0009): the wallet's lock, then the insert
		// if the count, taken under the lock, is below the cap.
		var inserted bool
		err := s.prepared.scanRow(ctx, s.db, s.sql.insertJob,
			[]any{&inserted}, walletLockKey("agent_jobs", p.Wallet), p.MaxPending,
			row.ID, row.ThreadID, row.Wallet, row.ReadOnly, row.Prompt, row.History, row.Model, row.CreatedAt)
		if err != nil {
			return agent.Job{}, fmt.Errorf("bunstore: insert job: %w", err)
		}
		if !inserted {
			return agent.Job{}, s.refused(ctx, p)
		}
		return row.job()
	}
	if s.lite != nil {
		res, err := s.prepared.exec(ctx, s.db, s.lite.insertJob,
			row.ID, row.ThreadID, row.Wallet, row.ReadOnly, row.Prompt, row.History, row.Model, row.CreatedAt, p.MaxPending)
		if err != nil {
			return agent.Job{}, fmt.Errorf("bunstore: insert job: %w", err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return agent.Job{}, s.refused(ctx, p)
		}
		return row.job()
	}
	// PostgreSQL without a cap.
	res, err := s.db.NewInsert().Model(&row).On("CONFLICT (id) DO NOTHING").Exec(ctx)
	if err != nil {
		return agent.Job{}, fmt.Errorf("bunstore: insert job: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return agent.Job{}, fmt.Errorf("%w: job %s exists", curvekit.ErrConflict, p.ID)
	}
	return row.job()
}

// refused tells why a capped insert wrote nothing: the id exists, or the cap holds.
func (s *Agent) refused(ctx context.Context, p *agent.InsertJobParams) error {
	switch _, err := s.GetJob(ctx, p.ID); {
	case err == nil:
		return fmt.Errorf("%w: job %s exists", curvekit.ErrConflict, p.ID)
	case !errors.Is(err, curvekit.ErrNotFound):
		return err
	}
	return pendingCap(p.MaxPending)
}

func pendingCap(n int) error {
	return fmt.Errorf("%w: at most %d pending jobs per wallet; wait for one to finish", curvekit.ErrLimited, n)
}

// sentinelOr returns err as is when it already carries a curvekit sentinel, else wraps it as a
// store failure of op.
func sentinelOr(op string, err error) error {
	if err == nil {
		return nil
	}
	for _, s := range []error{curvekit.ErrNotFound, curvekit.ErrInvalid, curvekit.ErrForbidden, curvekit.ErrConflict, curvekit.ErrLimited} {
		if errors.Is(err, s) {
			return err
		}
	}
	return fmt.Errorf("bunstore: %s: %w", op, err)
}

// GetJob reads one job by primary key.
func (s *Agent) GetJob(ctx context.Context, id string) (agent.Job, error) {
	var row agentJobRow
	var err error
	if s.sql != nil {
		err = s.prepared.scan(ctx, s.db, &row, s.sql.getJob, id)
	} else {
		err = s.prepared.scan(ctx, s.db, &row, s.lite.getJob, id)
	}
	if errors.Is(err, sql.ErrNoRows) {
		return agent.Job{}, fmt.Errorf("%w: no job %s", curvekit.ErrNotFound, id)
	}
	if err != nil {
		return agent.Job{}, fmt.Errorf("bunstore: get job: %w", err)
	}
	return row.job()
}

// claimAttempts bounds how often ClaimJob retries after losing a race for the oldest job.
const claimAttempts = 16

// ClaimJob takes the oldest pending job by compare-and-set.
func (s *Agent) ClaimJob(ctx context.Context, p *agent.ClaimJobParams) (agent.Job, error) {
	release, err := s.writing(ctx)
	if err != nil {
		return agent.Job{}, err
	}
	defer release()
	// On PostgreSQL the claim skips rows another claim holds instead of queueing behind it and
	// losing (agentQueries.claim).
	for range claimAttempts {
		var row agentJobRow
		err := s.quick(ctx, func(ctx context.Context, db bun.IDB) error {
			if s.sql != nil {
				return s.prepared.scan(ctx, s.quickDB, &row, s.sql.claim, p.Runner, millis(p.LeaseUntil), millis(p.Now))
			}
			return s.prepared.scan(ctx, s.db, &row, s.lite.claim, p.Runner, millis(p.LeaseUntil), millis(p.Now))
		})
		if err == nil {
			s.changed(row.ID)
			return row.job()
		}
		if !errors.Is(err, sql.ErrNoRows) {
			s.changed("") // which job it took, if any, is unknown
			return agent.Job{}, fmt.Errorf("bunstore: claim job: %w", err)
		}
		// Either nothing is pending or another claim took the job first: look again.
		var pending bool
		if err := s.prepared.scanRow(ctx, s.db, anyPending, []any{&pending}); err != nil {
			return agent.Job{}, fmt.Errorf("bunstore: claim job: %w", err)
		}
		if !pending {
			break
		}
	}
	return agent.Job{}, fmt.Errorf("%w: no pending job", curvekit.ErrNotFound)
}

// anyPending tells whether a job waits, in a text both dialects prepare.
const anyPending = "SELECT EXISTS (SELECT 1 FROM agent_jobs WHERE status = 'pending')"

const fence = "id = ? AND status = 'processing' AND locked_by = ? AND attempts = ?"

func lost(l agent.Lease) error {
	return fmt.Errorf("%w: job %s is no longer held by %s (attempt %d)", curvekit.ErrConflict, l.JobID, l.Runner, l.Attempt)
}

// Heartbeat extends a held lease.
func (s *Agent) Heartbeat(ctx context.Context, l agent.Lease, until time.Time) error {
	release, err := s.writing(ctx)
	if err != nil {
		return err
	}
	defer release()
	defer s.changed(l.JobID)
	res, err := s.db.NewUpdate().Model((*agentJobRow)(nil)).Set("lease_expires_at = ?", millis(until)).
		Where(fence, l.JobID, l.Runner, l.Attempt).Exec(ctx)
	if err != nil {
		return fmt.Errorf("bunstore: heartbeat: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return lost(l)
	}
	return nil
}

// AddStatusUpdates appends progress notes to a held job, in one statement, committed quickly (a
// note is progress for a client to watch, not a result).
func (s *Agent) AddStatusUpdates(ctx context.Context, l agent.Lease, ups []agent.StatusUpdate) error {
	release, err := s.writing(ctx)
	if err != nil {
		return err
	}
	defer release()
	set, args, err := s.withNotes("", nil, ups)
	if err != nil {
		return fmt.Errorf("bunstore: add status updates: %w", err)
	}
	if set == "" {
		return nil
	}
	q := "UPDATE agent_jobs SET " + set + " WHERE " + fence
	defer s.changed(l.JobID)
	err = s.quick(ctx, func(ctx context.Context, db bun.IDB) error {
		var res sql.Result
		var err error
		if s.lite != nil {
			res, err = s.prepared.exec(ctx, s.db, q, append(args, l.JobID, l.Runner, l.Attempt)...)
		} else {
			res, err = db.ExecContext(ctx, q, append(args, l.JobID, l.Runner, l.Attempt)...)
		}
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return lost(l)
		}
		return nil
	})
	return sentinelOr("add status updates", err)
}

// notesJSON is progress notes as the job's status_updates column holds them.
func notesJSON(ups []agent.StatusUpdate) []statusUpdateJSON {
	notes := make([]statusUpdateJSON, len(ups))
	for i, u := range ups {
		notes[i] = statusUpdateJSON{Message: u.Message, At: millis(u.Timestamp)}
	}
	return notes
}

// withNotes adds to an UPDATE's assignments (set, with its args) the one that appends ups to
// the job's status updates, in order.
func (s *Agent) withNotes(set string, args []any, ups []agent.StatusUpdate) (string, []any, error) {
	if len(ups) == 0 {
		return set, args, nil
	}
	if set != "" {
		set += ", "
	}
	list, err := json.Marshal(notesJSON(ups))
	if err != nil {
		return "", nil, err
	}
	if s.dialect == dialectPostgres {
		return set + "status_updates = (status_updates::jsonb || ?::jsonb)::text", append(args, string(list)), nil
	}
	// SQLite has no concatenation of arrays: the two arrays' elements, the job's then the new
	// ones, each in order, aggregated again. One text whatever the number of notes, so the
	// statement runs prepared.
	return set + `status_updates = (SELECT json_group_array(json(v) ORDER BY part, k) FROM (
		SELECT 0 AS part, key AS k, value AS v FROM json_each(status_updates)
		UNION ALL SELECT 1, key, value FROM json_each(?)))`, append(args, string(list)), nil
}

// quick runs one write whose loss in a crash of the database costs nothing that matters: on
// PostgreSQL its commit does not wait for the journal's flush to disk. A claim lost so returns
// its job to the queue, as a runner's death does (the job runs again; its answer is committed
// durably by CompleteJob, fenced by the claim); a progress note lost so is a note fewer.
//
// On PostgreSQL it runs on the quick pool, whose sessions have synchronous_commit off: one
// round trip, where a transaction setting it locally took four.
func (s *Agent) quick(ctx context.Context, write func(context.Context, bun.IDB) error) error {
	if s.quickDB == nil {
		return write(ctx, s.db)
	}
	return write(ctx, s.quickDB)
}

// finishQuery is the statement that ends a held job with the given assignments, fenced by its
// lease, and its arguments. On SQLite it runs prepared.
func (s *Agent) finishQuery(l agent.Lease, notes []agent.StatusUpdate, set string, args ...any) (string, []any, error) {
	set, args, err := s.withNotes(set, args, notes)
	if err != nil {
		return "", nil, err
	}
	q := "UPDATE agent_jobs SET " + set + ", locked_by = NULL, lease_expires_at = NULL WHERE " + fence + " RETURNING "
	if s.lite != nil {
		q += s.lite.cols
	} else {
		q += "*"
	}
	return q, append(args, l.JobID, l.Runner, l.Attempt), nil
}

// finish ends a held job with the given assignments, fenced by its lease.
func (s *Agent) finish(ctx context.Context, op string, l agent.Lease, notes []agent.StatusUpdate, set string, args ...any) (agent.Job, error) {
	q, args, err := s.finishQuery(l, notes, set, args...)
	if err != nil {
		return agent.Job{}, fmt.Errorf("bunstore: %s: %w", op, err)
	}
	var row agentJobRow
	if s.lite != nil {
		err = s.prepared.scan(ctx, s.db, &row, q, args...)
	} else {
		err = s.db.NewRaw(q, args...).Scan(ctx, &row)
	}
	if errors.Is(err, sql.ErrNoRows) {
		return agent.Job{}, lost(l)
	}
	if err != nil {
		return agent.Job{}, fmt.Errorf("bunstore: %s: %w", op, err)
	}
	return row.job()
}

// CompleteJob ends a held job with its answer.
func (s *Agent) CompleteJob(ctx context.Context, p *agent.CompleteJobParams) (_ agent.Job, err error) {
	release, err := s.writing(ctx)
	if err != nil {
		return agent.Job{}, err
	}
	defer release()
	defer func() { s.announceAfter(p.Lease.JobID, err) }()
	rich, err := jsonText(p.RichData)
	if err != nil {
		return agent.Job{}, fmt.Errorf("bunstore: complete job: %w", err)
	}
	if p.Events != nil {
		if p.Turn != nil && s.dialect == dialectPostgres {
			args, err := completeJobArgs(p, rich)
			if err != nil {
				return agent.Job{}, fmt.Errorf("bunstore: complete job: %w", err)
			}
			return s.endWithEvents(ctx, "complete job", p.Lease, s.sql.completeJob, args, true, nil, p.Events, p.At)
		}
		q, args, err := s.finishQuery(p.Lease, p.StatusUpdates, "status = 'completed', response = ?, rich_data = ?, completed_at = ?",
			p.Response, rich, millis(p.At))
		if err != nil {
			return agent.Job{}, fmt.Errorf("bunstore: complete job: %w", err)
		}
		return s.endWithEvents(ctx, "complete job", p.Lease, q, args, s.lite != nil, p.Turn, p.Events, p.At)
	}
	if p.Turn == nil {
		return s.finish(ctx, "complete job", p.Lease, p.StatusUpdates, "status = 'completed', response = ?, rich_data = ?, completed_at = ?",
			p.Response, rich, millis(p.At))
	}
	if s.dialect == dialectPostgres {
		return s.completeIntoThreadPG(ctx, p, rich)
	}
	return s.completeIntoThreadLite(ctx, p, rich)
}

// completeIntoThreadLite is CompleteJob with a turn on SQLite: the fenced completion and the
// turn's append, in one transaction of prepared statements.
func (s *Agent) completeIntoThreadLite(ctx context.Context, p *agent.CompleteJobParams, rich string) (agent.Job, error) {
	q, args, err := s.finishQuery(p.Lease, p.StatusUpdates, "status = 'completed', response = ?, rich_data = ?, completed_at = ?",
		p.Response, rich, millis(p.At))
	if err != nil {
		return agent.Job{}, fmt.Errorf("bunstore: complete job: %w", err)
	}
	stmts, err := s.prepared.all(ctx, s.db.DB, q, s.lite.insertThread, s.lite.appendTurn)
	if err != nil {
		return agent.Job{}, fmt.Errorf("bunstore: complete job: %w", err)
	}
	var row agentJobRow
	err = s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		err := scanStmt(ctx, s.db, tx.StmtContext(ctx, stmts[0]), &row, args...)
		if errors.Is(err, sql.ErrNoRows) {
			return lost(p.Lease)
		}
		if err != nil {
			return err
		}
		return appendTurnLite(ctx, tx.StmtContext(ctx, stmts[1]), tx.StmtContext(ctx, stmts[2]),
			&agent.AppendTurnParams{Thread: row.ThreadID, Wallet: row.Wallet, Turn: *p.Turn})
	})
	if err != nil {
		return agent.Job{}, sentinelOr("complete job", err)
	}
	return row.job()
}

// completeIntoThreadPG is CompleteJob with a turn on PostgreSQL: one prepared call of a function
// (migrations 0009, 0010) that ends the job if its fence holds, then creates the thread of the
// job's wallet or locks its row, and appends the turn numbered after the thread's last.
func (s *Agent) completeIntoThreadPG(ctx context.Context, p *agent.CompleteJobParams, rich string) (agent.Job, error) {
	args, err := completeJobArgs(p, rich)
	if err != nil {
		return agent.Job{}, fmt.Errorf("bunstore: complete job: %w", err)
	}
	l := p.Lease
	var row agentJobRow
	err = s.prepared.scan(ctx, s.db, &row, s.sql.completeJob, args...)
	if errors.Is(err, sql.ErrNoRows) {
		return agent.Job{}, lost(l)
	}
	if err != nil {
		return agent.Job{}, fmt.Errorf("bunstore: complete job: %w", err)
	}
	return row.job()
}

// completeJobArgs are the arguments of the completion function (migrations 0009, 0010).
func completeJobArgs(p *agent.CompleteJobParams, rich string) ([]any, error) {
	var notes *string
	if len(p.StatusUpdates) > 0 {
		list, err := json.Marshal(notesJSON(p.StatusUpdates))
		if err != nil {
			return nil, err
		}
		n := string(list)
		notes = &n
	}
	l, turn := p.Lease, p.Turn
	return []any{l.JobID, l.Runner, l.Attempt, p.Response, rich, millis(p.At), notes, turn.Prompt, turn.Response, millis(turn.At)}, nil
}

// endWithEvents ends a job with its events in one transaction: the fenced end (q with args, a
// prepared statement when prepared, else a query bun formats), the turn's append on SQLite, and
// the events that events builds from the job as it ends (push's outbox).
func (s *Agent) endWithEvents(ctx context.Context, op string, l agent.Lease, q string, args []any, prepared bool, turn *agent.Turn,
	events func(*agent.Job) []push.Event, at time.Time) (agent.Job, error) {
	var job agent.Job
	err := s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		var row agentJobRow
		var err error
		if prepared {
			st, perr := s.prepared.get(ctx, s.db.DB, q)
			if perr != nil {
				return perr
			}
			err = scanStmt(ctx, s.db, tx.StmtContext(ctx, st), &row, args...)
		} else {
			err = tx.NewRaw(q, args...).Scan(ctx, &row)
		}
		if errors.Is(err, sql.ErrNoRows) {
			return lost(l)
		}
		if err != nil {
			return err
		}
		if turn != nil {
			stmts, err := s.prepared.all(ctx, s.db.DB, s.lite.insertThread, s.lite.appendTurn)
			if err != nil {
				return err
			}
			if err := appendTurnLite(ctx, tx.StmtContext(ctx, stmts[0]), tx.StmtContext(ctx, stmts[1]),
				&agent.AppendTurnParams{Thread: row.ThreadID, Wallet: row.Wallet, Turn: *turn}); err != nil {
				return err
			}
		}
		if job, err = row.job(); err != nil {
			return err
		}
		_, err = recordEvents(ctx, tx, events(&job), at)
		return err
	})
	if err != nil {
		return agent.Job{}, sentinelOr(op, err)
	}
	return job, nil
}

// FailJob ends a held job with an error.
func (s *Agent) FailJob(ctx context.Context, p *agent.FailJobParams) (_ agent.Job, err error) {
	release, err := s.writing(ctx)
	if err != nil {
		return agent.Job{}, err
	}
	defer release()
	defer func() { s.announceAfter(p.Lease.JobID, err) }()
	if p.Events != nil {
		q, args, err := s.finishQuery(p.Lease, p.StatusUpdates, "status = 'failed', error = ?, completed_at = ?", p.Error, millis(p.At))
		if err != nil {
			return agent.Job{}, fmt.Errorf("bunstore: fail job: %w", err)
		}
		return s.endWithEvents(ctx, "fail job", p.Lease, q, args, s.lite != nil, nil, p.Events, p.At)
	}
	return s.finish(ctx, "fail job", p.Lease, p.StatusUpdates, "status = 'failed', error = ?, completed_at = ?", p.Error, millis(p.At))
}

// CancelJob cancels a pending job of the wallet.
func (s *Agent) CancelJob(ctx context.Context, p *agent.CancelJobParams) (_ agent.Job, err error) {
	release, err := s.writing(ctx)
	if err != nil {
		return agent.Job{}, err
	}
	defer release()
	defer func() { s.announceAfter(p.ID, err) }()
	var row agentJobRow
	err = s.db.NewRaw(`UPDATE agent_jobs SET status = 'cancelled', cancelled_at = ?
		WHERE id = ? AND wallet = ? AND status = 'pending' RETURNING *`, millis(p.At), p.ID, p.Wallet).Scan(ctx, &row)
	if err == nil {
		return row.job()
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return agent.Job{}, fmt.Errorf("bunstore: cancel job: %w", err)
	}
	j, err := s.GetJob(ctx, p.ID)
	if err != nil {
		return agent.Job{}, err
	}
	if j.Wallet != p.Wallet {
		return agent.Job{}, fmt.Errorf("%w: job %s belongs to another wallet", curvekit.ErrForbidden, p.ID)
	}
	return agent.Job{}, fmt.Errorf("%w: job %s is %s; only a pending job can be cancelled", curvekit.ErrConflict, p.ID, j.Status)
}

// RescueExpired returns expired leases to pending, or fails their jobs when out of attempts.
func (s *Agent) RescueExpired(ctx context.Context, p *agent.RescueParams) (int, error) {
	release, err := s.writing(ctx)
	if err != nil {
		return 0, err
	}
	defer release()
	now := millis(p.Now)
	const rescue = `UPDATE agent_jobs SET
		status = CASE WHEN attempts >= ? THEN 'failed' ELSE 'pending' END,
		error = CASE WHEN attempts >= ? THEN ? ELSE error END,
		completed_at = CASE WHEN attempts >= ? THEN ? ELSE completed_at END,
		locked_by = NULL, lease_expires_at = NULL
		WHERE status = 'processing' AND lease_expires_at < ?`
	args := []any{p.MaxAttempts, p.MaxAttempts, p.Error, p.MaxAttempts, now, now}
	if p.Events != nil {
		// The jobs it fails are ended with their events, in one transaction.
		var n int
		err := s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
			var rows []agentJobRow
			if err := tx.NewRaw(rescue+" RETURNING *", args...).Scan(ctx, &rows); err != nil && !errors.Is(err, sql.ErrNoRows) {
				return err
			}
			n = len(rows)
			var events []push.Event
			for i := range rows {
				if rows[i].Status != string(agent.StatusFailed) {
					continue
				}
				j, err := rows[i].job()
				if err != nil {
					return err
				}
				events = append(events, p.Events(&j)...)
			}
			_, err := recordEvents(ctx, tx, events, p.Now)
			return err
		})
		if n > 0 || err != nil {
			s.announce("")
		}
		if err != nil {
			return 0, fmt.Errorf("bunstore: rescue expired jobs: %w", err)
		}
		return n, nil
	}
	res, err := s.db.ExecContext(ctx, rescue, args...)
	if err != nil {
		s.announce("")
		return 0, fmt.Errorf("bunstore: rescue expired jobs: %w", err)
	}
	n, err := res.RowsAffected()
	if n > 0 || err != nil {
		s.announce("")
	}
	return int(n), err
}
