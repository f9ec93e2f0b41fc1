package bunstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/uptrace/bun"

	"github.com/curvekit/curvekit"
	"github.com/curvekit/curvekit/agent"
)

type agentMemoryRow struct {
	bun.BaseModel `bun:"table:agent_memory"`

	Wallet    common.Address `bun:"wallet,pk"`
	Key       string         `bun:"key,pk"`
	Value     string         `bun:"value"`
	UpdatedAt int64          `bun:"updated_at"`
}

// Memories lists a wallet's entries by key.
func (s *Agent) Memories(ctx context.Context, wallet common.Address) ([]agent.MemoryEntry, error) {
	if s.lite != nil {
		rows, err := s.prepared.query(ctx, s.db, s.lite.memories, wallet)
		out, err := scanTimedTexts(rows, err, func(key, value string, at time.Time) agent.MemoryEntry {
			return agent.MemoryEntry{Key: key, Value: value, UpdatedAt: at}
		})
		if err != nil {
			return nil, fmt.Errorf("bunstore: memories: %w", err)
		}
		return out, nil
	}
	var rows []agentMemoryRow
	if err := s.db.NewSelect().Model(&rows).Where("wallet = ?", wallet).Order("key").Scan(ctx); err != nil {
		return nil, fmt.Errorf("bunstore: memories: %w", err)
	}
	out := make([]agent.MemoryEntry, len(rows))
	for i, r := range rows {
		out[i] = agent.MemoryEntry{Key: r.Key, Value: r.Value, UpdatedAt: time.UnixMilli(r.UpdatedAt).UTC()}
	}
	return out, nil
}

// PutMemory creates or replaces an entry within the wallet's cap.
func (s *Agent) PutMemory(ctx context.Context, p *agent.PutMemoryParams) error {
	release, err := s.writing(ctx)
	if err != nil {
		return err
	}
	defer release()
	row := agentMemoryRow{Wallet: p.Wallet, Key: p.Key, Value: p.Value, UpdatedAt: millis(p.At)}
	if s.dialect == dialectPostgres && p.MaxEntries > 0 {
		// One prepared call of a function (migration 0009): the wallet's lock, then the upsert if
		// the key exists or the count, taken under the lock, is below the cap.
		var written bool
		err := s.prepared.scanRow(ctx, s.db, s.sql.putMemory,
			[]any{&written}, walletLockKey("agent_memory", p.Wallet), p.MaxEntries, row.Wallet, row.Key, row.Value, row.UpdatedAt)
		if err != nil {
			return fmt.Errorf("bunstore: put memory: %w", err)
		}
		if !written {
			return memoryCap(p.MaxEntries)
		}
		return nil
	}
	if s.lite != nil {
		res, err := s.prepared.exec(ctx, s.db, s.lite.putMemory, row.Wallet, row.Key, row.Value, row.UpdatedAt, p.MaxEntries)
		if err != nil {
			return fmt.Errorf("bunstore: put memory: %w", err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return memoryCap(p.MaxEntries)
		}
		return nil
	}
	// PostgreSQL without a cap.
	_, err = s.db.NewInsert().Model(&row).
		On("CONFLICT (wallet, key) DO UPDATE").Set("value = EXCLUDED.value, updated_at = EXCLUDED.updated_at").Exec(ctx)
	if err != nil {
		return fmt.Errorf("bunstore: put memory: %w", err)
	}
	return nil
}

func memoryCap(n int) error {
	return fmt.Errorf("%w: at most %d memories per wallet; forget one first", curvekit.ErrLimited, n)
}

// DeleteMemory removes one entry.
func (s *Agent) DeleteMemory(ctx context.Context, wallet common.Address, key string) error {
	release, err := s.writing(ctx)
	if err != nil {
		return err
	}
	defer release()
	res, err := s.db.NewDelete().Model((*agentMemoryRow)(nil)).Where("wallet = ? AND key = ?", wallet, key).Exec(ctx)
	if err != nil {
		return fmt.Errorf("bunstore: delete memory: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("%w: no memory %q", curvekit.ErrNotFound, key)
	}
	return nil
}

type agentTurnRow struct {
	bun.BaseModel `bun:"table:agent_turns"`

	Wallet   common.Address `bun:"wallet,pk"`
	ThreadID string         `bun:"thread_id,pk"`
	Seq      int            `bun:"seq,pk"`
	Prompt   string         `bun:"prompt"`
	Response string         `bun:"response"`
	At       int64          `bun:"at"`
}

// AppendTurn adds a turn at the end of the wallet's thread, creating it on first use.
func (s *Agent) AppendTurn(ctx context.Context, p *agent.AppendTurnParams) error {
	release, err := s.writing(ctx)
	if err != nil {
		return err
	}
	defer release()
	if s.dialect == dialectPostgres {
		return s.appendTurnPG(ctx, p)
	}
	stmts, err := s.prepared.all(ctx, s.db.DB, s.lite.insertThread, s.lite.appendTurn)
	if err != nil {
		return fmt.Errorf("bunstore: append turn: %w", err)
	}
	err = s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		return appendTurnLite(ctx, tx.StmtContext(ctx, stmts[0]), tx.StmtContext(ctx, stmts[1]), p)
	})
	return sentinelOr("append turn", err)
}

// appendTurnPG is AppendTurn on PostgreSQL in one message and so one implicit transaction (see
// pgbatch.go): the wallet's thread created if new and its row locked either way, as
// completeIntoThreadPG does; then, under that lock, the turn numbered after the thread's last.
func (s *Agent) appendTurnPG(ctx context.Context, p *agent.AppendTurnParams) error {
	_, err := s.db.ExecContext(ctx, `INSERT INTO agent_threads (wallet, id, created_at) VALUES (?, ?, ?)
	ON CONFLICT (wallet, id) DO UPDATE SET created_at = agent_threads.created_at WHERE false;
INSERT INTO agent_turns (wallet, thread_id, seq, prompt, response, at)
	SELECT ?, ?, (SELECT COALESCE(MAX(seq), 0) + 1 FROM agent_turns WHERE wallet = ? AND thread_id = ?), ?, ?, ?`,
		p.Wallet, p.Thread, millis(p.Turn.At),
		p.Wallet, p.Thread, p.Wallet, p.Thread, p.Turn.Prompt, p.Turn.Response, millis(p.Turn.At))
	if err != nil {
		return fmt.Errorf("bunstore: append turn: %w", err)
	}
	return nil
}

// appendTurnLite appends a turn on SQLite with the statements liteQueries.insertThread and
// appendTurn, bound to one transaction: the wallet's thread created if new, then the turn
// numbered after its last. The transaction holds SQLite's write lock from its start, so no other
// append comes between.
func appendTurnLite(ctx context.Context, insertThread, appendTurn *sql.Stmt, p *agent.AppendTurnParams) error {
	if _, err := insertThread.ExecContext(ctx, p.Wallet, p.Thread, millis(p.Turn.At)); err != nil {
		return err
	}
	_, err := appendTurn.ExecContext(ctx, p.Wallet, p.Thread, p.Turn.Prompt, p.Turn.Response, millis(p.Turn.At))
	return err
}

// Turns returns the last turns of the wallet's thread, oldest first.
func (s *Agent) Turns(ctx context.Context, p *agent.TurnsParams) ([]agent.Turn, error) {
	if s.lite != nil {
		return s.turnsLite(ctx, p)
	}
	var rows []agentTurnRow
	if err := s.db.NewSelect().Model(&rows).Where("wallet = ? AND thread_id = ?", p.Wallet, p.Thread).
		Order("seq DESC").Limit(int64(p.Limit)).Scan(ctx); err != nil {
		return nil, fmt.Errorf("bunstore: turns: %w", err)
	}
	out := make([]agent.Turn, len(rows))
	for i, r := range rows {
		out[len(rows)-1-i] = agent.Turn{Prompt: r.Prompt, Response: r.Response, At: time.UnixMilli(r.At).UTC()}
	}
	return out, nil
}

// turnsLite is Turns on SQLite, in a prepared statement.
func (s *Agent) turnsLite(ctx context.Context, p *agent.TurnsParams) ([]agent.Turn, error) {
	limit := p.Limit
	if limit <= 0 {
		limit = -1 // SQLite's "no limit", as Turns has on PostgreSQL
	}
	rows, err := s.prepared.query(ctx, s.db, s.lite.turns, p.Wallet, p.Thread, limit)
	out, err := scanTimedTexts(rows, err, func(prompt, response string, at time.Time) agent.Turn {
		return agent.Turn{Prompt: prompt, Response: response, At: at}
	})
	if err != nil {
		return nil, fmt.Errorf("bunstore: turns: %w", err)
	}
	slices.Reverse(out) // oldest first
	return out, nil
}

// turnContextPG reads a wallet's memory and the last turns of the wallet's thread in one
// statement: two JSON arrays, oldest turn first.
const turnContextPG = `SELECT
	(SELECT COALESCE(json_agg(json_build_object('k', key, 'v', value, 'at', updated_at) ORDER BY key), '[]')
		FROM agent_memory WHERE wallet = $1)::text AS memory,
	(SELECT COALESCE(json_agg(json_build_object('p', prompt, 'r', response, 'at', at) ORDER BY seq), '[]')
		FROM (SELECT seq, prompt, response, at FROM agent_turns
			WHERE wallet = $1 AND thread_id = $2
			ORDER BY seq DESC LIMIT $3) AS last)::text AS turns`

// TurnContext reads a wallet's memory and the last turns of its thread: on PostgreSQL in one
// prepared statement, on SQLite (in process, where a read costs no round trip) as Memories and
// Turns.
func (s *Agent) TurnContext(ctx context.Context, p *agent.TurnsParams) ([]agent.MemoryEntry, []agent.Turn, error) {
	if s.dialect != dialectPostgres {
		mem, err := s.Memories(ctx, p.Wallet)
		if err != nil {
			return nil, nil, err
		}
		turns, err := s.Turns(ctx, p)
		if err != nil {
			return nil, nil, err
		}
		return mem, turns, nil
	}
	var memory, turns string
	err := s.prepared.scanRow(ctx, s.db, s.sql.turnContext, []any{&memory, &turns}, p.Wallet, p.Thread, p.Limit)
	if err != nil {
		return nil, nil, fmt.Errorf("bunstore: turn context: %w", err)
	}
	var mrows []struct {
		K  string `json:"k"`
		V  string `json:"v"`
		At int64  `json:"at"`
	}
	var trows []struct {
		P  string `json:"p"`
		R  string `json:"r"`
		At int64  `json:"at"`
	}
	if err := json.Unmarshal([]byte(memory), &mrows); err != nil {
		return nil, nil, fmt.Errorf("bunstore: turn context: %w", err)
	}
	if err := json.Unmarshal([]byte(turns), &trows); err != nil {
		return nil, nil, fmt.Errorf("bunstore: turn context: %w", err)
	}
	mem := make([]agent.MemoryEntry, len(mrows))
	for i, r := range mrows {
		mem[i] = agent.MemoryEntry{Key: r.K, Value: r.V, UpdatedAt: time.UnixMilli(r.At).UTC()}
	}
	out := make([]agent.Turn, len(trows))
	for i, r := range trows {
		out[i] = agent.Turn{Prompt: r.P, Response: r.R, At: time.UnixMilli(r.At).UTC()}
	}
	return mem, out, nil
}

// scanTimedTexts reads the rows of a query that returned two texts and a time in Unix
// milliseconds (SQLite's memory entries and turns), each into a T by mk; err is the query's.
func scanTimedTexts[T any](rows *sql.Rows, err error, mk func(a, b string, at time.Time) T) ([]T, error) {
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []T{}
	for rows.Next() {
		var a, b string
		var at int64
		if err := rows.Scan(&a, &b, &at); err != nil {
			return nil, err
		}
		out = append(out, mk(a, b, time.UnixMilli(at).UTC()))
	}
	return out, rows.Err()
}
