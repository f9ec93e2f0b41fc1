package bunstore

import (
	"bytes"
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"

	"github.com/curvekit/curvekit"
	"github.com/curvekit/curvekit/candles"
	"github.com/curvekit/curvekit/market"
)

// Candle bars: one row per token and minute with trades (candle_bars, migration 0022), and one
// per token and UTC five minutes, hour or day with trades (candle_levels, migrations 0027 and
// 0035), each the candles.Minute of its trades. Apply folds the trades it stores into all four
// (writeBars), Rollback recomputes the minutes it cuts from the trades and the levels it cuts from
// the minutes (rollbackBars), Bars reads one span: a candle request reads at most one row per bar of
// the coarsest span its resolution is a multiple of, instead of every trade.

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
	// Overflow is a read level's overflow column (levelRow); minutes have none.
	Overflow int64 `bun:"-"`
}

// barColumns are the columns an upsert replaces.
var barColumns = []string{"open_bits", "high_bits", "low_bits", "close_bits", "volume_hi", "volume_lo", "trades", "last_block", "last_log"}

// levelColumns are the columns an upsert of levels replaces.
var levelColumns = append(slices.Clip(barColumns), "overflow")

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

// levelRow is one stored hour or day: a barRow with its span.
type levelRow struct {
	bun.BaseModel `bun:"table:candle_levels,alias:cl"`

	Token     common.Address `bun:"token,pk"`
	Span      int64          `bun:"span,pk"`
	Bucket    int64          `bun:"bucket,pk"`
	Open      int64          `bun:"open_bits"`
	High      int64          `bun:"high_bits"`
	Low       int64          `bun:"low_bits"`
	Close     int64          `bun:"close_bits"`
	VolumeHi  int64          `bun:"volume_hi"`
	VolumeLo  int64          `bun:"volume_lo"`
	Trades    int64          `bun:"trades"`
	LastBlock int64          `bun:"last_block"`
	LastLog   int64          `bun:"last_log"`
	Overflow  int64          `bun:"overflow"`
}

func newLevelRow(token common.Address, span int64, b *bar) (levelRow, error) {
	r, err := newBarRow(token, &b.Minute)
	if err != nil {
		return levelRow{}, err
	}
	l := levelRow{
		Token: token, Span: span, Bucket: r.Minute, Open: r.Open, High: r.High, Low: r.Low, Close: r.Close,
		VolumeHi: r.VolumeHi, VolumeLo: r.VolumeLo, Trades: r.Trades, LastBlock: r.LastBlock, LastLog: r.LastLog,
	}
	if b.over {
		l.Overflow = 1
	}
	return l, nil
}

func (r *levelRow) bar() bar {
	b := barRow{Minute: r.Bucket, Open: r.Open, High: r.High, Low: r.Low, Close: r.Close,
		VolumeHi: r.VolumeHi, VolumeLo: r.VolumeLo, Trades: r.Trades, LastBlock: r.LastBlock, LastLog: r.LastLog}
	return bar{b.minute(), r.Overflow != 0}
}

// bar is a stored minute, hour or day in the making. over reports an hour or day whose trades'
// volumes sum to 2^128 or more, which a fold of them refuses (candles.ErrOverflow): its Volume
// then holds 2^128-1, and Bars refuses to return it in a range (see market.MinuteQuery). A minute
// does not saturate: a batch that overflows one fails, as before the levels.
type bar struct {
	candles.Minute
	over bool
}

// join folds n into the bar of span (candles.Minute.Join), saturating an hour's or a day's volume.
func (b *bar) join(span int64, n candles.Minute) error {
	if b.over {
		n.Volume = candles.Volume{}
	}
	err := b.Join(candles.Resolution(span), n)
	if !errors.Is(err, candles.ErrOverflow) || span == market.SpanMinute {
		return err
	}
	n.Volume = candles.Volume{}
	if err := b.Join(candles.Resolution(span), n); err != nil {
		return err
	}
	b.Volume, b.over = candles.Volume{Hi: math.MaxUint64, Lo: math.MaxUint64}, true
	return nil
}

// levelSpans are the spans candle_levels keeps: five minutes (migration 0035), hours and days.
var levelSpans = [...]int64{market.SpanFiveMinutes, market.SpanHour, market.SpanDay}

// allSpans are the spans of every stored bar, finest first.
var allSpans = [...]int64{market.SpanMinute, market.SpanFiveMinutes, market.SpanHour, market.SpanDay}

// barKey names a stored bar: a token's minute, hour or day (span) starting at start.
type barKey struct {
	token common.Address
	span  int64
	start int64
}

// barSet holds the stored bars a fold changed, minutes and levels apart, in the order they first
// changed.
type barSet struct {
	minutes []barRow
	levels  []levelRow
}

func (b *barSet) add(k barKey, m *bar) error {
	if k.span == market.SpanMinute {
		r, err := newBarRow(k.token, &m.Minute)
		b.minutes = append(b.minutes, r)
		return err
	}
	r, err := newLevelRow(k.token, k.span, m)
	b.levels = append(b.levels, r)
	return err
}

func (b *barSet) upsert(ctx context.Context, tx bun.Tx) error {
	if err := upsertBars(ctx, tx, b.minutes); err != nil {
		return err
	}
	return upsertLevels(ctx, tx, b.levels)
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

// foldBars folds trades (in chainOrder) into their minutes and levels, starting from the
// stored ones, and returns the bars that changed. A trade that is not after a stored bar's last
// trade is folded in it already (a batch applied again) and is skipped there.
func foldBars(trades []*market.Trade, decimals map[common.Address]uint8, stored map[barKey]bar) (barSet, error) {
	work := make(map[barKey]*bar)
	dirty := make(map[barKey]bool)
	var changed []barKey
	for _, tr := range trades {
		tok := market.Token{Address: tr.Token, Quote: market.Asset{Decimals: decimals[tr.Token]}}
		ct := market.CandleTrade(&tok, tr)
		var one candles.Minute
		if err := one.Add(ct); err != nil {
			return barSet{}, fmt.Errorf("bar of %s: %w", tr.Token, err)
		}
		for _, span := range allSpans {
			k := barKey{tr.Token, span, candles.Resolution(span).Bucket(one.Time)}
			m := work[k]
			if m == nil {
				s := stored[k]
				m = &s
				work[k] = m
			}
			if m.Trades > 0 && !m.After(&ct) {
				continue
			}
			if err := m.join(span, one); err != nil {
				return barSet{}, fmt.Errorf("bar of %s at %d: %w", tr.Token, k.start, err)
			}
			if !dirty[k] {
				dirty[k] = true
				changed = append(changed, k)
			}
		}
	}
	var out barSet
	for _, k := range changed {
		if err := out.add(k, work[k]); err != nil {
			return barSet{}, err
		}
	}
	return out, nil
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

// upsertLevels writes rows over the stored levels, as upsertBars.
func upsertLevels(ctx context.Context, tx bun.Tx, rows []levelRow) error {
	for len(rows) > 0 {
		n := min(len(rows), insertChunk)
		chunk := rows[:n]
		q := tx.NewInsert().Model(&chunk).On("CONFLICT (token, span, bucket) DO UPDATE")
		for _, c := range levelColumns {
			q.Set(c + " = EXCLUDED." + c)
		}
		if _, err := q.Exec(ctx); err != nil {
			return err
		}
		rows = rows[n:]
	}
	return nil
}

// touchedBars reads into dest the rows of table (candle_bars, or candle_levels of span) of the
// tokens whose start (column at) lies from the first of starts to the last: one probe of the
// primary key per token. On PostgreSQL the probes are a lateral subquery that the planner may not
// flatten (OFFSET 0): given the tokens as a list it reads every stored bar of those tokens, or
// the whole table, to find the few in the batch's span.
func touchedBars(ctx context.Context, tx bun.Tx, dest any, table, at string, span int64, tokens []common.Address, starts []int64) error {
	lo, hi := slices.Min(starts), slices.Max(starts)
	where := "b.token = k.token AND b." + at + " BETWEEN ? AND ?"
	args := []any{lo, hi}
	if span != 0 {
		where += " AND b.span = ?"
		args = append(args, span)
	}
	if dialectOf(tx) == dialectPostgres {
		keys := make([][]byte, len(tokens))
		for i := range tokens {
			keys[i] = tokens[i][:]
		}
		return tx.NewRaw("SELECT b.* FROM unnest(CAST(? AS BYTEA[])) AS k (token) CROSS JOIN LATERAL "+
			"(SELECT * FROM "+table+" AS b WHERE "+where+" OFFSET 0) AS b",
			append([]any{pgdialect.Array(keys)}, args...)...).Scan(ctx, dest)
	}
	return tx.NewRaw("SELECT b.* FROM "+table+" AS b WHERE b.token IN (?) AND "+strings.TrimPrefix(where, "b.token = k.token AND "),
		append([]any{bun.List(tokens)}, args...)...).Scan(ctx, dest)
}

// writeBars folds a batch's trades into the stored minute, five-minute, hour and day bars: one
// read of the minutes the batch touches and one of each level, one upsert of each that it changes.
// Trades already folded (a batch applied again) are skipped by their position, so the bars count
// each stored trade once.
func writeBars(ctx context.Context, tx bun.Tx, trades []market.Trade) error {
	if len(trades) == 0 {
		return nil
	}
	order := make([]*market.Trade, len(trades))
	seenTok := make(map[common.Address]bool)
	seen := make(map[barKey]bool) // spans and starts, without tokens
	var tokens []common.Address
	var starts [len(allSpans)][]int64
	for i := range trades {
		tr := &trades[i]
		order[i] = tr
		if !seenTok[tr.Token] {
			seenTok[tr.Token] = true
			tokens = append(tokens, tr.Token)
		}
		for j, span := range allSpans {
			k := barKey{span: span, start: candles.Resolution(span).Bucket(tr.Time)}
			if !seen[k] {
				seen[k] = true
				starts[j] = append(starts[j], k.start)
			}
		}
	}
	chainOrder(order)
	decimals, err := quoteDecimals(ctx, tx, tokens)
	if err != nil {
		return fmt.Errorf("bars: %w", err)
	}
	// The rows of the batch's tokens from the batch's first minute, hour and day to its last: a
	// superset of the keys it touches, in practice the minute, hour and day a batch continues.
	var rows []barRow
	if err := touchedBars(ctx, tx, &rows, "candle_bars", "minute", 0, tokens, starts[0]); err != nil {
		return fmt.Errorf("bars: %w", err)
	}
	var levels []levelRow
	for j, span := range allSpans[1:] {
		var some []levelRow
		if err := touchedBars(ctx, tx, &some, "candle_levels", "bucket", span, tokens, starts[j+1]); err != nil {
			return fmt.Errorf("bars: %w", err)
		}
		levels = append(levels, some...)
	}
	stored := make(map[barKey]bar, len(rows)+len(levels))
	for i := range rows {
		stored[barKey{rows[i].Token, market.SpanMinute, rows[i].Minute}] = bar{Minute: rows[i].minute()}
	}
	for i := range levels {
		stored[barKey{levels[i].Token, levels[i].Span, levels[i].Bucket}] = levels[i].bar()
	}
	changed, err := foldBars(order, decimals, stored)
	if err != nil {
		return fmt.Errorf("bars: %w", err)
	}
	if err := changed.upsert(ctx, tx); err != nil {
		return fmt.Errorf("bars: %w", err)
	}
	return nil
}

// levelFold coarsens a token's minutes, in order, into its five minutes, hours and days.
type levelFold struct {
	token common.Address
	cur   [len(levelSpans)]bar
	out   []levelRow
}

// add folds the next minute; a minute in a later hour or day closes the current one.
func (f *levelFold) add(m candles.Minute) error {
	for i, span := range levelSpans {
		c := &f.cur[i]
		if c.Trades > 0 && candles.Resolution(span).Bucket(m.Time) != c.Time {
			if err := f.close(i); err != nil {
				return err
			}
		}
		if err := c.join(span, m); err != nil {
			return fmt.Errorf("%d-second bar of %s: %w", span, f.token, err)
		}
	}
	return nil
}

func (f *levelFold) close(i int) error {
	r, err := newLevelRow(f.token, levelSpans[i], &f.cur[i])
	if err != nil {
		return err
	}
	f.out = append(f.out, r)
	f.cur[i] = bar{}
	return nil
}

// flush closes the current bar of each level.
func (f *levelFold) flush() error {
	for i := range f.cur {
		if f.cur[i].Trades > 0 {
			if err := f.close(i); err != nil {
				return err
			}
		}
	}
	return nil
}

// rollbackBars recomputes the bars of the trades a rollback to block to removes. It runs before
// the trades are deleted: for each token with such trades it deletes the minutes from the first
// removed trade's minute on and folds them again from the trades at or before to, then deletes
// the hours and days from that trade's day on and coarsens them again from the minutes left.
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
		if len(rows) > 0 {
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
			changed, err := foldBars(order, decimals, nil)
			if err != nil {
				return fmt.Errorf("bars: %w", err)
			}
			if err := upsertBars(ctx, tx, changed.minutes); err != nil {
				return fmt.Errorf("bars: %w", err)
			}
		}
		if err := rollbackLevels(ctx, tx, chunk); err != nil {
			return fmt.Errorf("bars: %w", err)
		}
	}
	return nil
}

// rollbackLevels recomputes the hours and days of each token from the day of its first removed
// trade on, from its minutes (already recomputed).
func rollbackLevels(ctx context.Context, tx bun.Tx, chunk []struct {
	Token common.Address `bun:"token"`
	First int64          `bun:"first"`
}) error {
	del := tx.NewDelete().Model((*levelRow)(nil))
	minutes := tx.NewSelect().Model((*barRow)(nil)).OrderExpr("cb.token, cb.minute")
	del.WhereGroup(" AND ", func(q *bun.DeleteQuery) *bun.DeleteQuery {
		for _, f := range chunk {
			q.WhereOr("(cl.token = ? AND cl.span IN (?) AND cl.bucket >= ?)",
				f.Token, bun.List(levelSpans[:]), candles.Res1d.Bucket(f.First))
		}
		return q
	})
	minutes.WhereGroup(" AND ", func(q *bun.SelectQuery) *bun.SelectQuery {
		for _, f := range chunk {
			q.WhereOr("(cb.token = ? AND cb.minute >= ?)", f.Token, candles.Res1d.Bucket(f.First))
		}
		return q
	})
	if _, err := del.Exec(ctx); err != nil {
		return fmt.Errorf("delete levels: %w", err)
	}
	var rows []barRow
	if err := minutes.Scan(ctx, &rows); err != nil {
		return fmt.Errorf("minutes left: %w", err)
	}
	var out []levelRow
	for i := 0; i < len(rows); {
		f := levelFold{token: rows[i].Token, out: out}
		for ; i < len(rows) && rows[i].Token == f.token; i++ {
			if err := f.add(rows[i].minute()); err != nil {
				return err
			}
		}
		if err := f.flush(); err != nil {
			return err
		}
		out = f.out
	}
	return upsertLevels(ctx, tx, out)
}

// Bars returns a token's bars of q.Span in [From, To), oldest first, the last one before From
// and, on the last page, the trade the newest of them ends with. Each is an index range scan of
// its own; a trade deleted between them (a rollback) makes the read start over.
func (s *Market) Bars(ctx context.Context, q market.MinuteQuery) (market.MinuteResult, error) {
	if q.To < q.From {
		return market.MinuteResult{}, fmt.Errorf("%w: range ends at %d before it starts at %d", curvekit.ErrInvalid, q.To, q.From)
	}
	if !market.ValidSpan(q.Span) {
		return market.MinuteResult{}, fmt.Errorf("%w: bars of %d seconds", curvekit.ErrInvalid, q.Span)
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
	levels := q.Span > market.SpanMinute
	sel, at := s.barSelect(q)
	before, err := scanBars(ctx, q.Token, levels, sel.Where(at+" < ?", q.From).OrderExpr(at+" DESC").Limit(1))
	if err != nil {
		return r, false, fmt.Errorf("bunstore: bars of %s: %w", q.Token, err)
	}
	var rows []barRow
	if q.From < q.To {
		sel, at := s.barSelect(q)
		rows, err = scanBars(ctx, q.Token, levels, sel.Where(at+" >= ? AND "+at+" < ?", q.From, q.To).OrderExpr(at).Limit(int64(limit)))
		if err != nil {
			return r, false, fmt.Errorf("bunstore: bars of %s: %w", q.Token, err)
		}
		for i := range rows {
			if rows[i].Overflow != 0 {
				return r, false, fmt.Errorf("bunstore: bars of %s: %w: the volumes of the %d-second bar at %d sum to 2^128 or more",
					q.Token, candles.ErrOverflow, q.Span, rows[i].Minute)
			}
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

// barSelect starts a read of a token's bars of q.Span: minutes from candle_bars, the levels
// from candle_levels. It returns the query and its start column.
func (s *Market) barSelect(q market.MinuteQuery) (*bun.SelectQuery, string) {
	if q.Span > market.SpanMinute {
		return s.db.NewSelect().TableExpr("candle_levels AS cl").
			Column("bucket", "open_bits", "high_bits", "low_bits", "close_bits", "volume_hi", "volume_lo", "trades", "last_block", "last_log", "overflow").
			Where("cl.token = ? AND cl.span = ?", q.Token, q.Span), "cl.bucket"
	}
	return s.db.NewSelect().TableExpr("candle_bars AS cb").
		Column("minute", "open_bits", "high_bits", "low_bits", "close_bits", "volume_hi", "volume_lo", "trades", "last_block", "last_log").
		Where("cb.token = ?", q.Token), "cb.minute"
}

// scanBars runs a barSelect (of levels or not). It scans the columns itself: a request may read thousands of rows,
// and a model scan costs several allocations each.
func scanBars(ctx context.Context, token common.Address, levels bool, q *bun.SelectQuery) ([]barRow, error) {
	rs, err := q.Rows(ctx)
	if err != nil {
		return nil, err
	}
	defer rs.Close()
	var out []barRow
	r := barRow{Token: token}
	cols := []any{&r.Minute, &r.Open, &r.High, &r.Low, &r.Close, &r.VolumeHi, &r.VolumeLo, &r.Trades, &r.LastBlock, &r.LastLog, &r.Overflow}
	if !levels {
		cols = cols[:len(cols)-1]
	}
	for rs.Next() {
		if err := rs.Scan(cols...); err != nil {
			return nil, err
		}
		out = append(out, r)
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
		if _, err := tx.NewDelete().Model((*levelRow)(nil)).Where("cl.token = ?", token).Exec(ctx); err != nil {
			return err
		}
		decimals, err := quoteDecimals(ctx, tx, []common.Address{token})
		if err != nil {
			return err
		}
		stored := map[barKey]bar{}
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
			changed, err := foldBars(order, decimals, stored)
			if err != nil {
				return err
			}
			if err := changed.upsert(ctx, tx); err != nil {
				return err
			}
			// The next page may continue the last minute, hour and day: the newest of each.
			for _, m := range changed.minutes {
				stored[barKey{token, market.SpanMinute, m.Minute}] = bar{Minute: m.minute()}
			}
			for _, l := range changed.levels {
				stored[barKey{token, l.Span, l.Bucket}] = l.bar()
			}
			maps.DeleteFunc(stored, func(k barKey, _ bar) bool {
				return k.start < candles.Resolution(k.span).Bucket(rows[len(rows)-1].Time)
			})
			after = &rows[len(rows)-1]
		}
	})
}

// fillPendingLevels computes the levels of the tokens whose minute bars were stored before
// migration 0027, or 0035 for the five minutes (they list them in candle_levels_pending), from
// those minutes. Open runs it after fillPendingBars, so a store serves candles from levels only
// once they are complete; replicas opening together share the work, 100 tokens a transaction (at
// 1,000,000 tokens and 20,000,000 trades, 1,290 tokens a second; one a transaction, 530).
func (d *DB) fillPendingLevels(ctx context.Context) error {
	s := d.Market()
	for filled := false; ; filled = true {
		var tokens []common.Address
		if err := d.bun.NewSelect().TableExpr("candle_levels_pending").Column("token").
			Limit(100).Scan(ctx, &tokens); err != nil {
			return fmt.Errorf("bunstore: pending bar levels: %w", err)
		}
		if len(tokens) == 0 {
			if filled && d.dialect == dialectPostgres {
				// The list's deleted rows would otherwise stay for every later open to read
				// past (226 ms after 992,034 tokens, with autovacuum off).
				if _, err := d.bun.ExecContext(ctx, "VACUUM candle_levels_pending"); err != nil {
					return fmt.Errorf("bunstore: pending bar levels: %w", err)
				}
			}
			return nil
		}
		if err := s.fillLevels(ctx, tokens); err != nil {
			return fmt.Errorf("bunstore: bar levels: %w", err)
		}
	}
}

// fillLevels rebuilds the levels of those of tokens still pending from all their minutes, in
// one transaction under the indexer's lock so that no Apply folds trades into them meanwhile.
func (s *Market) fillLevels(ctx context.Context, tokens []common.Address) error {
	return s.db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		if err := s.lockDiscovery(ctx, tx); err != nil {
			return err
		}
		// The tokens still pending: another replica may have filled some.
		var mine []common.Address
		if err := tx.NewDelete().TableExpr("candle_levels_pending").Where("token IN (?)", bun.List(tokens)).
			Returning("token").Scan(ctx, &mine); err != nil {
			return err
		}
		if len(mine) == 0 {
			return nil
		}
		if _, err := tx.NewDelete().Model((*levelRow)(nil)).Where("cl.token IN (?)", bun.List(mine)).Exec(ctx); err != nil {
			return err
		}
		for _, token := range mine {
			if err := fillTokenLevels(ctx, tx, token); err != nil {
				return fmt.Errorf("%s: %w", token, err)
			}
		}
		return nil
	})
}

// fillTokenLevels folds all of token's minutes into its levels, a page of minutes at a time.
func fillTokenLevels(ctx context.Context, tx bun.Tx, token common.Address) error {
	f := levelFold{token: token}
	after := int64(math.MinInt64)
	for {
		var rows []barRow
		if err := tx.NewSelect().Model(&rows).Where("cb.token = ? AND cb.minute > ?", token, after).
			OrderExpr("cb.minute").Limit(fillBarsPage).Scan(ctx); err != nil {
			return err
		}
		for i := range rows {
			if err := f.add(rows[i].minute()); err != nil {
				return err
			}
		}
		if len(rows) < fillBarsPage {
			if err := f.flush(); err != nil {
				return err
			}
		}
		// What the page closed; the current hour and day continue on the next page.
		if err := upsertLevels(ctx, tx, f.out); err != nil {
			return err
		}
		f.out = f.out[:0]
		if len(rows) < fillBarsPage {
			return nil
		}
		after = rows[len(rows)-1].Minute
	}
}
