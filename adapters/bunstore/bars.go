package bunstore

import (
	"bytes"
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/ethereum/go-ethereum/common"
	"github.com/uptrace/bun"

	"github.com/curvekit/curvekit"
	"github.com/curvekit/curvekit/candles"
	"github.com/curvekit/curvekit/market"
)

// Candle bars: one row per token and minute with trades (migration 0022), the candles.Minute of
// that minute's trades. Apply folds the trades it stores into them (writeBars), Rollback
// recomputes the minutes it cut (rollbackBars), Bars reads them: a candle request reads at most
// one row per minute of its window instead of every trade.

// barRow is one stored minute. Prices are kept as their IEEE 754 bits and the volume as the
// bits of its two halves: every driver gives back exactly what was written.
type barRow struct {
	bun.BaseModel `bun:"table:candle_bars,alias:cb"`

	Token     common.Address `bun:"token,pk"`
	Minute    int64          `bun:"minute,pk"`
	Open      int64          `bun:"open_bits"`
	High      int64          `bun:"high_bits"`
	Low       int64          `bun:"low_bits"`
	Close     int64          `bun:"close_bits"`
	VolumeHi  int64          `bun:"volume_hi"`
	VolumeLo  int64          `bun:"volume_lo"`
	Trades    int64          `bun:"trades"`
	LastBlock int64          `bun:"last_block"`
	LastLog   int64          `bun:"last_log"`
}

// barColumns are the columns an upsert replaces.
var barColumns = []string{"open_bits", "high_bits", "low_bits", "close_bits", "volume_hi", "volume_lo", "trades", "last_block", "last_log"}

func newBarRow(token common.Address, m *candles.Minute) (barRow, error) {
	block, err := toInt64("bar block", m.Block)
	if err != nil {
		return barRow{}, err
	}
	return barRow{
		Token: token, Minute: m.Time,
		Open: int64(math.Float64bits(m.Open)), High: int64(math.Float64bits(m.High)),
		Low: int64(math.Float64bits(m.Low)), Close: int64(math.Float64bits(m.Close)),
		VolumeHi: int64(m.Volume.Hi), VolumeLo: int64(m.Volume.Lo),
		Trades: int64(m.Trades), LastBlock: block, LastLog: int64(m.Index),
	}, nil
}

func (r *barRow) minute() candles.Minute {
	return candles.Minute{
		Time: r.Minute,
		Open: math.Float64frombits(uint64(r.Open)), High: math.Float64frombits(uint64(r.High)),
		Low: math.Float64frombits(uint64(r.Low)), Close: math.Float64frombits(uint64(r.Close)),
		Volume: candles.Volume{Hi: uint64(r.VolumeHi), Lo: uint64(r.VolumeLo)},
		Trades: int(r.Trades), Block: uint64(r.LastBlock), Index: uint32(r.LastLog),
	}
}

type barKey struct {
	token  common.Address
	minute int64
}

// chainOrder sorts trades by token, then block and log index.
func chainOrder(trades []*market.Trade) {
	slices.SortStableFunc(trades, func(a, b *market.Trade) int {
		if c := bytes.Compare(a.Token[:], b.Token[:]); c != 0 {
			return c
		}
		if c := cmp.Compare(a.Block, b.Block); c != 0 {
			return c
		}
		return cmp.Compare(a.LogIndex, b.LogIndex)
	})
}

// foldBars folds trades (in chainOrder) into their minutes, starting from the stored ones, and
// returns the minutes that changed. A trade that is not after its stored minute's last trade is
// folded already (a batch applied again) and is skipped.
func foldBars(trades []*market.Trade, decimals map[common.Address]uint8, stored map[barKey]candles.Minute) ([]barRow, error) {
	work := make(map[barKey]*candles.Minute)
	dirty := make(map[barKey]bool)
	var changed []barKey
	for _, tr := range trades {
		k := barKey{tr.Token, candles.Res1m.Bucket(tr.Time)}
		m := work[k]
		if m == nil {
			s := stored[k]
			m = &s
			work[k] = m
		}
		tok := market.Token{Address: tr.Token, Quote: market.Asset{Decimals: decimals[tr.Token]}}
		ct := market.CandleTrade(&tok, tr)
		if m.Trades > 0 && !m.After(&ct) {
			continue
		}
		if err := m.Add(ct); err != nil {
			return nil, fmt.Errorf("bar of %s at %d: %w", tr.Token, k.minute, err)
		}
		if !dirty[k] {
			dirty[k] = true
			changed = append(changed, k)
		}
	}
	rows := make([]barRow, len(changed))
	for i, k := range changed {
		r, err := newBarRow(k.token, work[k])
		if err != nil {
			return nil, err
		}
		rows[i] = r
	}
	return rows, nil
}

// quoteDecimals reads the pairing asset's decimals of the given tokens: the display price's scale.
func quoteDecimals(ctx context.Context, tx bun.IDB, tokens []common.Address) (map[common.Address]uint8, error) {
	var rows []struct {
		Address  common.Address `bun:"address"`
		Decimals int            `bun:"quote_decimals"`
	}
	if err := tx.NewSelect().TableExpr("tokens").Column("address", "quote_decimals").
		Where("address IN (?)", bun.List(tokens)).Scan(ctx, &rows); err != nil {
		return nil, fmt.Errorf("quote decimals: %w", err)
	}
	out := make(map[common.Address]uint8, len(rows))
	for _, r := range rows {
		out[r.Address] = uint8(r.Decimals)
	}
	return out, nil
}

// upsertBars writes rows over the stored minutes, a multi-row statement per insertChunk rows.
func upsertBars(ctx context.Context, tx bun.Tx, rows []barRow) error {
	for len(rows) > 0 {
		n := min(len(rows), insertChunk)
		chunk := rows[:n]
		q := tx.NewInsert().Model(&chunk).On("CONFLICT (token, minute) DO UPDATE")
		for _, c := range barColumns {
			q.Set(c + " = EXCLUDED." + c)
		}
		if _, err := q.Exec(ctx); err != nil {
			return err
		}
		rows = rows[n:]
	}
	return nil
}

// writeBars folds a batch's trades into the stored minute bars: one read of the minutes the batch
// touches, one upsert of those it changes. Trades already folded (a batch applied again) are
// skipped by their position, so the bars count each stored trade once.
func writeBars(ctx context.Context, tx bun.Tx, trades []market.Trade) error {
	if len(trades) == 0 {
		return nil
	}
	order := make([]*market.Trade, len(trades))
	seenTok := make(map[common.Address]bool)
	seenMin := make(map[int64]bool)
	var tokens []common.Address
	var minutes []int64
	for i := range trades {
		tr := &trades[i]
		order[i] = tr
		if !seenTok[tr.Token] {
			seenTok[tr.Token] = true
			tokens = append(tokens, tr.Token)
		}
		if m := candles.Res1m.Bucket(tr.Time); !seenMin[m] {
			seenMin[m] = true
			minutes = append(minutes, m)
		}
	}
	chainOrder(order)
	decimals, err := quoteDecimals(ctx, tx, tokens)
	if err != nil {
		return fmt.Errorf("bars: %w", err)
	}
	// The rows of the batch's tokens in the batch's minutes: a superset of the keys it touches,
	// in practice the minute a batch continues.
	var rows []barRow
	if err := tx.NewSelect().Model(&rows).
		Where("cb.token IN (?) AND cb.minute IN (?)", bun.List(tokens), bun.List(minutes)).
		Scan(ctx); err != nil {
		return fmt.Errorf("bars: %w", err)
	}
	stored := make(map[barKey]candles.Minute, len(rows))
	for i := range rows {
		stored[barKey{rows[i].Token, rows[i].Minute}] = rows[i].minute()
	}
	changed, err := foldBars(order, decimals, stored)
	if err != nil {
		return fmt.Errorf("bars: %w", err)
	}
	if err := upsertBars(ctx, tx, changed); err != nil {
		return fmt.Errorf("bars: %w", err)
	}
	return nil
}

// rollbackBars recomputes the bars of the trades a rollback to block to removes. It runs before
// the trades are deleted: for each token with such trades it deletes the bars from the first
// removed trade's minute on and folds them again from the trades at or before to.
func rollbackBars(ctx context.Context, tx bun.Tx, to int64) error {
	var firsts []struct {
		Token common.Address `bun:"token"`
		First int64          `bun:"first"`
	}
	if err := tx.NewRaw("SELECT token, MIN(block_time) AS first FROM trades WHERE block_number > ? GROUP BY token", to).
		Scan(ctx, &firsts); err != nil {
		return fmt.Errorf("bars: removed trades: %w", err)
	}
	for len(firsts) > 0 {
		chunk := firsts[:min(len(firsts), insertChunk)]
		firsts = firsts[len(chunk):]
		tokens := make([]common.Address, len(chunk))
		for i, f := range chunk {
			tokens[i] = f.Token
		}
		del := tx.NewDelete().Model((*barRow)(nil))
		kept := tx.NewSelect().Model((*tradeRow)(nil)).ColumnExpr(tradeColumns).Where("tr.block_number <= ?", to)
		del.WhereGroup(" AND ", func(q *bun.DeleteQuery) *bun.DeleteQuery {
			for _, f := range chunk {
				q.WhereOr("(cb.token = ? AND cb.minute >= ?)", f.Token, candles.Res1m.Bucket(f.First))
			}
			return q
		})
		kept.WhereGroup(" AND ", func(q *bun.SelectQuery) *bun.SelectQuery {
			for _, f := range chunk {
				from := candles.Res1m.Bucket(f.First)
				q.WhereOr("(token_key(tr.token) = ? AND tr.token = ? AND tr.block_time >= ? AND tr.block_time / 3600 >= ?)",
					tokenKey(f.Token), f.Token, from, tradeHour(from))
			}
			return q
		})
		if _, err := del.Exec(ctx); err != nil {
			return fmt.Errorf("bars: delete: %w", err)
		}
		var rows []tradeRow
		if err := kept.Scan(ctx, &rows); err != nil {
			return fmt.Errorf("bars: kept trades: %w", err)
		}
		if len(rows) == 0 {
			continue
		}
		trades := make([]market.Trade, len(rows))
		order := make([]*market.Trade, len(rows))
		for i := range rows {
			trades[i] = rows[i].trade()
			order[i] = &trades[i]
		}
		chainOrder(order)
		decimals, err := quoteDecimals(ctx, tx, tokens)
		if err != nil {
			return fmt.Errorf("bars: %w", err)
		}
		bars, err := foldBars(order, decimals, nil)
		if err != nil {
			return fmt.Errorf("bars: %w", err)
		}
		if err := upsertBars(ctx, tx, bars); err != nil {
			return fmt.Errorf("bars: %w", err)
		}
	}
	return nil
}

// Bars returns a token's minute bars in [From, To), oldest first, the last one before From and,
// on the last page, the trade the newest of them ends with. Each is an index range scan of its
// own; a trade deleted between them (a rollback) makes the read start over.
func (s *Market) Bars(ctx context.Context, q market.MinuteQuery) (market.MinuteResult, error) {
	if q.To < q.From {
		return market.MinuteResult{}, fmt.Errorf("%w: range ends at %d before it starts at %d", curvekit.ErrInvalid, q.To, q.From)
	}
	limit := q.Limit
	if limit <= 0 || limit > market.MaxMinutes {
		limit = market.MaxMinutes
	}
	for attempt := 0; ; attempt++ {
		r, missing, err := s.bars(ctx, q, limit)
		if err != nil || !missing {
			return r, err
		}
		if attempt == 2 {
			return market.MinuteResult{}, fmt.Errorf("bunstore: bars of %s: the last trade of a bar is not stored", q.Token)
		}
	}
}

func (s *Market) bars(ctx context.Context, q market.MinuteQuery, limit int) (r market.MinuteResult, missing bool, err error) {
	var before []barRow
	if err := s.db.NewSelect().Model(&before).
		Where("cb.token = ? AND cb.minute < ?", q.Token, q.From).
		OrderExpr("cb.minute DESC").Limit(1).Scan(ctx); err != nil {
		return r, false, fmt.Errorf("bunstore: bars of %s: %w", q.Token, err)
	}
	var rows []barRow
	if q.From < q.To {
		var err error
		if rows, err = s.barRange(ctx, q, limit); err != nil {
			return r, false, fmt.Errorf("bunstore: bars of %s: %w", q.Token, err)
		}
	}
	if len(before) == 0 && len(rows) == 0 {
		return r, false, s.mustExist(ctx, q.Token)
	}
	if len(before) == 1 {
		m := before[0].minute()
		r.Before = &m
	}
	r.Minutes = make([]candles.Minute, len(rows))
	for i := range rows {
		r.Minutes[i] = rows[i].minute()
	}
	if len(rows) == limit {
		return r, false, nil
	}
	key := &before
	if len(rows) > 0 {
		key = &rows
	}
	k := (*key)[len(*key)-1]
	var last tradeRow
	err = s.tradesOf(q.Token).Where("tr.block_number = ? AND tr.log_index = ?", k.LastBlock, k.LastLog).
		Limit(1).Scan(ctx, &last)
	if errors.Is(err, sql.ErrNoRows) {
		return r, true, nil
	}
	if err != nil {
		return r, false, fmt.Errorf("bunstore: bars of %s: %w", q.Token, err)
	}
	t := last.trade()
	r.Last = &t
	return r, false, nil
}

// barRange reads the bars of [q.From, q.To), at most limit. It scans the columns itself: a
// request may read tens of thousands of rows, and a model scan costs several allocations each.
func (s *Market) barRange(ctx context.Context, q market.MinuteQuery, limit int) ([]barRow, error) {
	rs, err := s.db.NewSelect().TableExpr("candle_bars AS cb").
		Column("minute", "open_bits", "high_bits", "low_bits", "close_bits", "volume_hi", "volume_lo", "trades", "last_block", "last_log").
		Where("cb.token = ? AND cb.minute >= ? AND cb.minute < ?", q.Token, q.From, q.To).
		OrderExpr("cb.minute").Limit(int64(limit)).Rows(ctx)
	if err != nil {
		return nil, err
	}
	defer rs.Close()
	var out []barRow
	for rs.Next() {
		out = append(out, barRow{Token: q.Token})
		r := &out[len(out)-1]
		if err := rs.Scan(&r.Minute, &r.Open, &r.High, &r.Low, &r.Close, &r.VolumeHi, &r.VolumeLo, &r.Trades, &r.LastBlock, &r.LastLog); err != nil {
			return nil, err
		}
	}
	return out, rs.Err()
}

// fillPendingBars computes the bars of the tokens whose trades were stored before migration 0022
// (it lists them in candle_bars_pending). Open runs it, so a store serves candles from bars only
// once they are complete; replicas opening together share the work, a token per transaction.
func (d *DB) fillPendingBars(ctx context.Context) error {
	s := d.Market()
	for {
		var tokens []common.Address
		if err := d.bun.NewSelect().TableExpr("candle_bars_pending").Column("token").
			Limit(100).Scan(ctx, &tokens); err != nil {
			return fmt.Errorf("bunstore: pending bars: %w", err)
		}
		if len(tokens) == 0 {
			return nil
		}
		for _, t := range tokens {
			if err := s.fillBars(ctx, t); err != nil {
				return fmt.Errorf("bunstore: bars of %s: %w", t, err)
			}
		}
	}
}

// fillBarsPage is how many trades fillBars folds at a time.
const fillBarsPage = 5000

// fillBars rebuilds a pending token's bars from all its trades, in chain order a page at a time,
// under the indexer's lock so that no Apply folds trades into them meanwhile.
func (s *Market) fillBars(ctx context.Context, token common.Address) error {
	return s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		if err := s.lockDiscovery(ctx, tx); err != nil {
			return err
		}
		res, err := tx.NewDelete().TableExpr("candle_bars_pending").Where("token = ?", token).Exec(ctx)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			return err // another replica filled it
		}
		if _, err := tx.NewDelete().Model((*barRow)(nil)).Where("cb.token = ?", token).Exec(ctx); err != nil {
			return err
		}
		decimals, err := quoteDecimals(ctx, tx, []common.Address{token})
		if err != nil {
			return err
		}
		stored := map[barKey]candles.Minute{}
		var after *tradeRow
		for {
			q := tx.NewSelect().Model((*tradeRow)(nil)).ColumnExpr(tradeColumns).
				Where("token_key(tr.token) = ? AND tr.token = ?", tokenKey(token), token).
				OrderExpr("tr.block_number, tr.log_index").Limit(fillBarsPage)
			if after != nil {
				q.Where("(tr.block_number, tr.log_index) > (?, ?)", after.Block, after.LogIndex)
			}
			var rows []tradeRow
			if err := q.Scan(ctx, &rows); err != nil {
				return err
			}
			if len(rows) == 0 {
				return nil
			}
			trades := make([]market.Trade, len(rows))
			order := make([]*market.Trade, len(rows))
			for i := range rows {
				trades[i] = rows[i].trade()
				order[i] = &trades[i]
			}
			bars, err := foldBars(order, decimals, stored)
			if err != nil {
				return err
			}
			if err := upsertBars(ctx, tx, bars); err != nil {
				return err
			}
			// The next page may continue the last minute.
			if n := len(bars); n > 0 {
				stored = map[barKey]candles.Minute{{token, bars[n-1].Minute}: bars[n-1].minute()}
			}
			after = &rows[len(rows)-1]
		}
	})
}
