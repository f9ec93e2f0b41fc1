package bunstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/holiman/uint256"
	"github.com/uptrace/bun"

	"github.com/curvekit/curvekit"
	"github.com/curvekit/curvekit/market"
	"github.com/curvekit/curvekit/orders"
)

// Orders is the orders.Store on bun, a view on a DB. It is safe for concurrent use.
type Orders struct {
	db      *bun.DB
	dialect dialectKind
}

var _ orders.Store = (*Orders)(nil)

// Orders returns the orders store on d.
func (d *DB) Orders() *Orders { return &Orders{db: d.bun, dialect: d.dialect} }

const orderCursorTag = "o1"

type orderRow struct {
	bun.BaseModel `bun:"table:orders"`

	ID            string `bun:"id,pk"`
	AccountID     string `bun:"account_id"`
	KeyID         string `bun:"key_id"`
	Wallet        string `bun:"wallet"`
	Kind          string `bun:"kind"`
	Class         string `bun:"class"`
	Token         string `bun:"token"`
	Quote         string `bun:"quote"`
	QuoteDecimals int    `bun:"quote_decimals"`
	Decimals      int    `bun:"decimals"`
	Side          string `bun:"side"`
	Amount        string `bun:"amount"`
	PercentBps    int64  `bun:"percent_bps"`
	Price         string `bun:"price"`
	TrailBps      int64  `bun:"trail_bps"`
	High          string `bun:"high"`
	SlippageBps   int64  `bun:"slippage_bps"`
	EveryNs       int64  `bun:"every_ns"`
	Times         int    `bun:"times"`
	OverNs        int64  `bun:"over_ns"`
	Slices        int    `bun:"slices"`
	ExpiresAt     int64  `bun:"expires_at"`
	State         string `bun:"state"`
	Fired         int    `bun:"fired"`
	NextAt        int64  `bun:"next_at"`
	Reason        string `bun:"reason"`
	CreatedAt     int64  `bun:"created_at"`
	UpdatedAt     int64  `bun:"updated_at"`
}

func orderRowOf(o *orders.Order) orderRow {
	return orderRow{
		ID: o.ID, AccountID: o.AccountID, KeyID: o.KeyID, Wallet: o.Wallet.Hex(), Kind: string(o.Kind), Class: string(o.Class()), Token: o.Token.Hex(),
		Quote: o.Quote.Hex(), QuoteDecimals: int(o.QuoteDecimals), Decimals: int(o.Decimals), Side: string(o.Side),
		Amount: o.Amount.Dec(), PercentBps: int64(o.Percent), Price: o.Price.Dec(), TrailBps: int64(o.TrailBps), High: o.High.Dec(),
		SlippageBps: int64(o.SlippageBps), EveryNs: int64(o.Every), Times: o.Times, OverNs: int64(o.Over), Slices: o.Slices,
		ExpiresAt: nanos(o.ExpiresAt), State: string(o.State), Fired: o.Fired, NextAt: nanos(o.NextAt), Reason: o.Reason,
		CreatedAt: o.CreatedAt.UnixNano(), UpdatedAt: o.UpdatedAt.UnixNano(),
	}
}

func (r *orderRow) order() (orders.Order, error) {
	o := orders.Order{
		ID: r.ID, AccountID: r.AccountID, KeyID: r.KeyID, Wallet: common.HexToAddress(r.Wallet), Kind: orders.Kind(r.Kind), Token: common.HexToAddress(r.Token),
		Quote: common.HexToAddress(r.Quote), QuoteDecimals: uint8(r.QuoteDecimals), Decimals: uint8(r.Decimals), Side: curvekit.Side(r.Side),
		Percent: uint32(r.PercentBps), TrailBps: uint32(r.TrailBps), SlippageBps: uint32(r.SlippageBps),
		Every: time.Duration(r.EveryNs), Times: r.Times, Over: time.Duration(r.OverNs), Slices: r.Slices,
		ExpiresAt: fromNanos(r.ExpiresAt), State: orders.State(r.State), Fired: r.Fired, NextAt: fromNanos(r.NextAt), Reason: r.Reason,
		CreatedAt: fromNanos(r.CreatedAt), UpdatedAt: fromNanos(r.UpdatedAt),
	}
	for _, f := range []struct {
		dst *uint256.Int
		src string
	}{{&o.Amount, r.Amount}, {&o.Price, r.Price}, {&o.High, r.High}} {
		if err := f.dst.SetFromDecimal(f.src); err != nil {
			return orders.Order{}, fmt.Errorf("bunstore: order %s: %w", r.ID, err)
		}
	}
	return o, nil
}

type fireRow struct {
	bun.BaseModel `bun:"table:order_fires"`

	ID        string `bun:"id,pk"`
	OrderID   string `bun:"order_id"`
	N         int    `bun:"n"`
	State     string `bun:"state"`
	Price     string `bun:"price"`
	Block     int64  `bun:"block"`
	LogIndex  int64  `bun:"log_index"`
	Term      int64  `bun:"term"`
	TxHash    string `bun:"tx_hash"`
	AmountIn  string `bun:"amount_in"`
	AmountOut string `bun:"amount_out"`
	Code      string `bun:"code"`
	Error     string `bun:"error"`
	CreatedAt int64  `bun:"created_at"`
	UpdatedAt int64  `bun:"updated_at"`
}

func fireRowOf(f *orders.Fire) fireRow {
	hash := ""
	if f.TxHash != (common.Hash{}) {
		hash = f.TxHash.Hex()
	}
	return fireRow{
		ID: f.ID, OrderID: f.OrderID, N: f.N, State: string(f.State), Price: f.Price.Dec(), Block: int64(f.Block), LogIndex: int64(f.LogIndex),
		Term: int64(f.Term), TxHash: hash, AmountIn: f.AmountIn.Dec(), AmountOut: f.AmountOut.Dec(), Code: f.Code, Error: f.Error,
		CreatedAt: f.CreatedAt.UnixNano(), UpdatedAt: f.UpdatedAt.UnixNano(),
	}
}

func (r *fireRow) fire() (orders.Fire, error) {
	f := orders.Fire{
		ID: r.ID, OrderID: r.OrderID, N: r.N, State: orders.FireState(r.State), Block: uint64(r.Block), LogIndex: uint(r.LogIndex),
		Term: uint64(r.Term), Code: r.Code, Error: r.Error, CreatedAt: fromNanos(r.CreatedAt), UpdatedAt: fromNanos(r.UpdatedAt),
	}
	if r.TxHash != "" {
		f.TxHash = common.HexToHash(r.TxHash)
	}
	for _, x := range []struct {
		dst *uint256.Int
		src string
	}{{&f.Price, r.Price}, {&f.AmountIn, r.AmountIn}, {&f.AmountOut, r.AmountOut}} {
		if err := x.dst.SetFromDecimal(x.src); err != nil {
			return orders.Fire{}, fmt.Errorf("bunstore: fire %s: %w", r.ID, err)
		}
	}
	return f, nil
}

type fireTxRow struct {
	bun.BaseModel `bun:"table:order_fire_txs"`

	FireID    string `bun:"fire_id,pk"`
	N         int    `bun:"n,pk"`
	Kind      string `bun:"kind"`
	Hash      string `bun:"hash"`
	CreatedAt int64  `bun:"created_at"`
}

// fireTxs reads the transactions of the fires ids, in the order each fire sent them.
func fireTxs(ctx context.Context, db bun.IDB, ids []string) (map[string][]orders.FireTx, error) {
	out := map[string][]orders.FireTx{}
	if len(ids) == 0 {
		return out, nil
	}
	var rows []fireTxRow
	if err := db.NewSelect().Model(&rows).Where("fire_id IN (?)", bun.In(ids)).OrderExpr("fire_id, n").Scan(ctx); err != nil {
		return nil, fmt.Errorf("bunstore: fires' transactions: %w", err)
	}
	for _, r := range rows {
		out[r.FireID] = append(out[r.FireID], orders.FireTx{Kind: orders.TxKind(r.Kind), Hash: common.HexToHash(r.Hash)})
	}
	return out, nil
}

// addFireTxs appends txs to the transactions of fire id in tx, each hash once. Callers hold
// the fire's row (FOR UPDATE on Postgres, SQLite's one writer), so the numbering is theirs.
func addFireTxs(ctx context.Context, tx bun.Tx, id string, txs []orders.FireTx, at int64) error {
	if len(txs) == 0 {
		return nil
	}
	had, err := fireTxs(ctx, tx, []string{id})
	if err != nil {
		return err
	}
	listed := had[id]
	for _, t := range txs {
		if slices.ContainsFunc(listed, func(l orders.FireTx) bool { return l.Hash == t.Hash }) {
			continue
		}
		row := fireTxRow{FireID: id, N: len(listed), Kind: string(t.Kind), Hash: t.Hash.Hex(), CreatedAt: at}
		if _, err := tx.NewInsert().Model(&row).Exec(ctx); err != nil {
			return fmt.Errorf("bunstore: record a fire's transaction: %w", err)
		}
		listed = append(listed, t)
	}
	return nil
}

var liveStates = []string{string(orders.Open), string(orders.Triggered), string(orders.Sent)}

// CreateOrder implements orders.Store.
func (s *Orders) CreateOrder(ctx context.Context, p orders.CreateParams) error {
	row := orderRowOf(&p.Order)
	return s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		if s.dialect == dialectPostgres {
			// Two placements for one account at once count one after the other.
			if _, err := tx.ExecContext(ctx, "SELECT pg_advisory_xact_lock(hashtextextended(?, 16))", row.AccountID); err != nil {
				return fmt.Errorf("bunstore: create order: %w", err)
			}
		}
		n, err := tx.NewSelect().Model((*orderRow)(nil)).
			Where("account_id = ? AND class = ? AND state IN (?)", row.AccountID, row.Class, bun.In(liveStates)).Count(ctx)
		if err != nil {
			return fmt.Errorf("bunstore: create order: %w", err)
		}
		if n >= int64(p.Max) {
			return fmt.Errorf("%w: the wallet has %d open %s orders, the most it may have", curvekit.ErrLimited, n, p.Order.Class())
		}
		if _, err := tx.NewInsert().Model(&row).Exec(ctx); err != nil {
			return fmt.Errorf("bunstore: create order: %w", err)
		}
		return nil
	})
}

// Order implements orders.Store.
func (s *Orders) Order(ctx context.Context, accountID, id string) (orders.Order, error) {
	var row orderRow
	err := s.db.NewSelect().Model(&row).Where("id = ? AND account_id = ?", id, accountID).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return orders.Order{}, fmt.Errorf("%w: order not found", curvekit.ErrNotFound)
	}
	if err != nil {
		return orders.Order{}, fmt.Errorf("bunstore: order: %w", err)
	}
	out, err := s.withFires(ctx, s.db, []orderRow{row})
	if err != nil {
		return orders.Order{}, err
	}
	return out[0], nil
}

// withFires turns rows into orders with their fires, oldest fire first.
func (s *Orders) withFires(ctx context.Context, db bun.IDB, rows []orderRow) ([]orders.Order, error) {
	out := make([]orders.Order, 0, len(rows))
	if len(rows) == 0 {
		return out, nil
	}
	ids := make([]string, len(rows))
	at := make(map[string]int, len(rows))
	for i := range rows {
		o, err := rows[i].order()
		if err != nil {
			return nil, err
		}
		o.Fires = []orders.Fire{}
		ids[i], at[o.ID] = o.ID, i
		out = append(out, o)
	}
	var fires []fireRow
	if err := db.NewSelect().Model(&fires).Where("order_id IN (?)", bun.In(ids)).OrderExpr("order_id, n").Scan(ctx); err != nil {
		return nil, fmt.Errorf("bunstore: fires: %w", err)
	}
	fireIDs := make([]string, len(fires))
	for i := range fires {
		fireIDs[i] = fires[i].ID
	}
	txs, err := fireTxs(ctx, db, fireIDs)
	if err != nil {
		return nil, err
	}
	for i := range fires {
		f, err := fires[i].fire()
		if err != nil {
			return nil, err
		}
		f.Txs = txs[f.ID]
		o := &out[at[f.OrderID]]
		o.Fires = append(o.Fires, f)
	}
	return out, nil
}

// Orders implements orders.Store.
func (s *Orders) Orders(ctx context.Context, q orders.Query) (orders.Page, error) {
	sel := s.db.NewSelect().Model((*orderRow)(nil))
	if q.AccountID != "" || q.Wallet == (common.Address{}) {
		sel = sel.Where("account_id = ?", q.AccountID)
	} else {
		sel = sel.Where("wallet = ?", q.Wallet.Hex())
	}
	if q.Token != (common.Address{}) {
		sel = sel.Where("token = ?", q.Token.Hex())
	}
	if q.State != "" {
		sel = sel.Where("state = ?", string(q.State))
	}
	if q.Kind != "" {
		sel = sel.Where("kind = ?", string(q.Kind))
	}
	if q.Cursor != "" {
		f, err := decodeCursor(q.Cursor, orderCursorTag, 2)
		if err != nil {
			return orders.Page{}, err
		}
		at, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil {
			return orders.Page{}, fmt.Errorf("%w: malformed cursor", curvekit.ErrInvalid)
		}
		sel = sel.Where("(created_at < ? OR (created_at = ? AND id < ?))", at, at, f[1])
	}
	var rows []orderRow
	if err := sel.OrderExpr("created_at DESC, id DESC").Limit(int64(q.Limit+1)).Scan(ctx, &rows); err != nil {
		return orders.Page{}, fmt.Errorf("bunstore: orders: %w", err)
	}
	var page orders.Page
	if len(rows) > q.Limit {
		rows = rows[:q.Limit]
		last := rows[len(rows)-1]
		page.Next = encodeCursor(orderCursorTag, strconv.FormatInt(last.CreatedAt, 10), last.ID)
	}
	var err error
	page.Orders, err = s.withFires(ctx, s.db, rows)
	return page, err
}

// CancelOrder implements orders.Store.
func (s *Orders) CancelOrder(ctx context.Context, p orders.CancelParams) (orders.Order, error) {
	var out orders.Order
	err := s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		var row orderRow
		q := tx.NewSelect().Model(&row).Where("id = ? AND account_id = ?", p.ID, p.AccountID)
		if s.dialect == dialectPostgres {
			q = q.For("UPDATE")
		}
		if err := q.Scan(ctx); errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("%w: order not found", curvekit.ErrNotFound)
		} else if err != nil {
			return fmt.Errorf("bunstore: cancel order: %w", err)
		}
		if _, err := orders.Move(orders.State(row.State), orders.Cancelled); err != nil {
			return err
		}
		row.State, row.UpdatedAt = string(orders.Cancelled), p.At.UnixNano()
		if _, err := tx.NewUpdate().Model(&row).Column("state", "updated_at").WherePK().Exec(ctx); err != nil {
			return fmt.Errorf("bunstore: cancel order: %w", err)
		}
		got, err := s.withFires(ctx, tx, []orderRow{row})
		if err != nil {
			return err
		}
		out = got[0]
		if p.Events == nil {
			return nil
		}
		if _, err := recordEvents(ctx, tx, p.Events(&out, nil), p.At); err != nil {
			return fmt.Errorf("bunstore: record a cancellation's events: %w", err)
		}
		return nil
	})
	return out, err
}

// Live implements orders.Store.
func (s *Orders) Live(ctx context.Context) ([]orders.Order, error) {
	var rows []orderRow
	if err := s.db.NewSelect().Model(&rows).Where("state IN (?)", bun.In(liveStates)).OrderExpr("created_at, id").Scan(ctx); err != nil {
		return nil, fmt.Errorf("bunstore: live orders: %w", err)
	}
	out := make([]orders.Order, 0, len(rows))
	for i := range rows {
		o, err := rows[i].order()
		if err != nil {
			return nil, err
		}
		out = append(out, o)
	}
	return out, nil
}

// Trigger implements orders.Store.
func (s *Orders) Trigger(ctx context.Context, p orders.TriggerParams) ([]orders.Fire, error) {
	var stored []orders.Fire
	at := p.At.UnixNano()
	err := s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		stored = stored[:0]
		if err := checkTerm(ctx, tx, s.dialect, p.Term); err != nil {
			return err
		}
		for id, high := range p.Highs {
			if _, err := tx.NewUpdate().Model((*orderRow)(nil)).Set("high = ?", high.Dec()).
				Where("id = ? AND state = ?", id, string(orders.Open)).Exec(ctx); err != nil {
				return fmt.Errorf("bunstore: store a high: %w", err)
			}
		}
		for _, id := range p.Expire {
			res, err := tx.NewUpdate().Model((*orderRow)(nil)).Set("state = ?, updated_at = ?", string(orders.Expired), at).
				Where("id = ? AND state = ?", id, string(orders.Open)).Exec(ctx)
			if err != nil {
				return fmt.Errorf("bunstore: expire an order: %w", err)
			}
			if n, _ := res.RowsAffected(); n > 0 {
				if err := s.recordOrderEvents(ctx, tx, p.Events, id, "", p.At); err != nil {
					return err
				}
			}
		}
		if p.Position != nil {
			row := orderPositionRow{Name: orderPositionName, Block: int64(p.Position.Block), Hash: p.Position.Hash.Hex(), UpdatedAt: at}
			if _, err := tx.NewInsert().Model(&row).On("CONFLICT (name) DO UPDATE").
				Set("block = EXCLUDED.block, hash = EXCLUDED.hash, updated_at = EXCLUDED.updated_at").Exec(ctx); err != nil {
				return fmt.Errorf("bunstore: move the orders' position: %w", err)
			}
		}
		for _, f := range p.Fires {
			f.Term = p.Term
			if f.State == "" {
				f.State = orders.FireTriggered
			}
			upd := tx.NewUpdate().Model((*orderRow)(nil)).
				Set("state = ?, fired = fired + 1, updated_at = ?", string(orders.Triggered), at).
				Where("id = ? AND state = ? AND fired = ?", f.OrderID, string(orders.Open), f.N)
			if next, ok := p.NextAt[f.OrderID]; ok {
				upd = upd.Set("next_at = ?", nanos(next))
			}
			res, err := upd.Exec(ctx)
			if err != nil {
				return fmt.Errorf("bunstore: trigger: %w", err)
			}
			if n, _ := res.RowsAffected(); n == 0 {
				continue // cancelled, expired or fired meanwhile
			}
			row := fireRowOf(&f)
			if _, err := tx.NewInsert().Model(&row).Exec(ctx); err != nil {
				return fmt.Errorf("bunstore: record a fire: %w", err)
			}
			if err := s.recordOrderEvents(ctx, tx, p.Events, f.OrderID, f.ID, p.At); err != nil {
				return err
			}
			stored = append(stored, f)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return stored, nil
}

// orderPositionName names the orders engine's one position row.
const orderPositionName = "orders"

type orderPositionRow struct {
	bun.BaseModel `bun:"table:order_position"`

	Name      string `bun:"name,pk"`
	Block     int64  `bun:"block"`
	Hash      string `bun:"hash"`
	UpdatedAt int64  `bun:"updated_at"`
}

// Position implements orders.Store.
func (s *Orders) Position(ctx context.Context) (market.Cursor, bool, error) {
	var row orderPositionRow
	err := s.db.NewSelect().Model(&row).Where("name = ?", orderPositionName).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return market.Cursor{}, false, nil
	}
	if err != nil {
		return market.Cursor{}, false, fmt.Errorf("bunstore: the orders' position: %w", err)
	}
	return market.Cursor{Block: uint64(row.Block), Hash: common.HexToHash(row.Hash)}, true, nil
}

// Fires implements orders.Store.
func (s *Orders) Fires(ctx context.Context, states ...orders.FireState) ([]orders.Fire, error) {
	names := make([]string, len(states))
	for i, st := range states {
		names[i] = string(st)
	}
	var rows []fireRow
	if err := s.db.NewSelect().Model(&rows).Where("state IN (?)", bun.In(names)).OrderExpr("created_at, id").Scan(ctx); err != nil {
		return nil, fmt.Errorf("bunstore: fires: %w", err)
	}
	ids := make([]string, len(rows))
	for i := range rows {
		ids[i] = rows[i].ID
	}
	txs, err := fireTxs(ctx, s.db, ids)
	if err != nil {
		return nil, err
	}
	out := make([]orders.Fire, 0, len(rows))
	for i := range rows {
		f, err := rows[i].fire()
		if err != nil {
			return nil, err
		}
		f.Txs = txs[f.ID]
		out = append(out, f)
	}
	return out, nil
}

// SettleFire implements orders.Store.
func (s *Orders) SettleFire(ctx context.Context, p orders.SettleParams) error {
	at := p.At.UnixNano()
	return s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		row, err := s.unsettledFire(ctx, tx, p.Term, p.FireID)
		if err != nil {
			return fmt.Errorf("bunstore: settle fire: %w", err)
		}
		row.State, row.UpdatedAt = string(p.State), at
		if p.TxHash != (common.Hash{}) {
			row.TxHash = p.TxHash.Hex()
		}
		if p.State == orders.FireFilled {
			row.AmountIn, row.AmountOut = p.AmountIn.Dec(), p.AmountOut.Dec()
		}
		if p.State == orders.FireFailed {
			row.Code, row.Error = p.Code, p.Error
		}
		if _, err := tx.NewUpdate().Model(&row).Column("state", "tx_hash", "amount_in", "amount_out", "code", "error", "updated_at").WherePK().Exec(ctx); err != nil {
			return fmt.Errorf("bunstore: settle fire: %w", err)
		}
		if err := addFireTxs(ctx, tx, row.ID, p.Txs, at); err != nil {
			return err
		}
		if p.OrderState == "" {
			return nil
		}
		// The order moves only from where the machine allows: a cancelled order stays so.
		var from []string
		for _, st := range orders.States {
			if orders.CanMove(st, p.OrderState) {
				from = append(from, string(st))
			}
		}
		upd := tx.NewUpdate().Model((*orderRow)(nil)).Set("state = ?, updated_at = ?", string(p.OrderState), at).
			Where("id = ? AND state IN (?)", row.OrderID, bun.In(from))
		if p.OrderState == orders.Failed || p.OrderState == orders.Cancelled {
			upd = upd.Set("reason = ?", p.Reason)
		}
		if _, err := upd.Exec(ctx); err != nil {
			return fmt.Errorf("bunstore: settle fire's order: %w", err)
		}
		return s.recordOrderEvents(ctx, tx, p.Events, row.OrderID, p.FireID, p.At)
	})
}

// RecordFireTx implements orders.Store.
func (s *Orders) RecordFireTx(ctx context.Context, p orders.FireTxParams) error {
	return s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		row, err := s.unsettledFire(ctx, tx, p.Term, p.FireID)
		if err != nil {
			return fmt.Errorf("bunstore: record a fire's transaction: %w", err)
		}
		return addFireTxs(ctx, tx, row.ID, []orders.FireTx{p.Tx}, p.At.UnixNano())
	})
}

// unsettledFire checks the leader's term and reads a fire that is neither filled nor failed,
// locked for the rest of tx: curvekit.ErrNotFound when there is none, curvekit.ErrConflict when
// it is settled.
func (s *Orders) unsettledFire(ctx context.Context, tx bun.Tx, term uint64, id string) (fireRow, error) {
	var row fireRow
	if err := checkTerm(ctx, tx, s.dialect, term); err != nil {
		return row, err
	}
	q := tx.NewSelect().Model(&row).Where("id = ?", id)
	if s.dialect == dialectPostgres {
		q = q.For("UPDATE")
	}
	if err := q.Scan(ctx); errors.Is(err, sql.ErrNoRows) {
		return row, fmt.Errorf("%w: fire %s", curvekit.ErrNotFound, id)
	} else if err != nil {
		return row, err
	}
	if st := orders.FireState(row.State); st == orders.FireFilled || st == orders.FireFailed {
		return row, fmt.Errorf("%w: fire %s is %s", curvekit.ErrConflict, id, st)
	}
	return row, nil
}

// recordOrderEvents records in tx the events build makes of the order id with its fires as tx
// holds it (and of its fire fireID, when set): the outbox of orders.TriggerParams.Events and
// orders.SettleParams.Events (CancelOrder has the order at hand and records its own).
func (s *Orders) recordOrderEvents(ctx context.Context, tx bun.Tx, build orders.Events, id, fireID string, at time.Time) error {
	if build == nil {
		return nil
	}
	var row orderRow
	if err := tx.NewSelect().Model(&row).Where("id = ?", id).Scan(ctx); err != nil {
		return fmt.Errorf("bunstore: read an order for its events: %w", err)
	}
	got, err := s.withFires(ctx, tx, []orderRow{row})
	if err != nil {
		return err
	}
	o := &got[0]
	var f *orders.Fire
	if fireID != "" {
		for i := range o.Fires {
			if o.Fires[i].ID == fireID {
				f = &o.Fires[i]
			}
		}
		if f == nil {
			return fmt.Errorf("bunstore: fire %s is not its order's", fireID)
		}
	}
	if _, err := recordEvents(ctx, tx, build(o, f), at); err != nil {
		return fmt.Errorf("bunstore: record an order's events: %w", err)
	}
	return nil
}
