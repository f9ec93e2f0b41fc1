package bunstore

import (
	"context"
	"fmt"
	"strconv"
	"sync"

	"github.com/ethereum/go-ethereum/common"
	"github.com/uptrace/bun"

	"github.com/curvekit/curvekit"
	"github.com/curvekit/curvekit/market"
)

// Trades returns a page of a token's trades, newest first, by keyset on (block, log index).
func (s *Market) Trades(ctx context.Context, q market.TradeQuery) (market.TradePage, error) {
	limit := pageLimit(q.Limit)
	sel := s.tradesOf(q.Token).
		OrderExpr("tr.block_number DESC, tr.log_index DESC").
		Limit(int64(limit + 1))
	if q.Cursor != "" {
		f, err := decodeCursor(q.Cursor, "t", 2)
		if err != nil {
			return market.TradePage{}, err
		}
		block, err1 := strconv.ParseInt(f[0], 10, 64)
		logIndex, err2 := strconv.ParseInt(f[1], 10, 64)
		if err1 != nil || err2 != nil {
			return market.TradePage{}, fmt.Errorf("%w: malformed cursor", curvekit.ErrInvalid)
		}
		sel.Where("(tr.block_number, tr.log_index) < (?, ?)", block, logIndex)
	}
	var rows []tradeRow
	if err := sel.Scan(ctx, &rows); err != nil {
		return market.TradePage{}, fmt.Errorf("bunstore: trades of %s: %w", q.Token, err)
	}
	if len(rows) == 0 {
		// No trades, or no token: only the second is an error.
		if err := s.mustExist(ctx, q.Token); err != nil {
			return market.TradePage{}, err
		}
	}
	var page market.TradePage
	if len(rows) > limit {
		rows = rows[:limit]
		last := &rows[limit-1]
		page.Next = encodeCursor("t", strconv.FormatInt(last.Block, 10), strconv.FormatInt(int64(last.LogIndex), 10))
	}
	page.Trades = make([]market.Trade, len(rows))
	for i := range rows {
		page.Trades[i] = rows[i].trade()
	}
	return page, nil
}

// TradesBetween returns a token's trades with From <= Time < To, oldest first, and the last one
// before From.
//
// Both are found in chain order, from the minute bars (bars.go). The last one before From: every trade
// with Time < From lies in a minute up to From's, so at or before the last trade of the token's
// latest bar up to From's minute (lastOfMinute), and trades_token_block, walked back from there,
// meets it after at most the trades of From's own minute that are not before From. A busy
// token's hour index would have read and sorted every trade of From's hour for it.
func (s *Market) TradesBetween(ctx context.Context, q market.RangeQuery) (market.RangeResult, error) {
	if q.To < q.From {
		return market.RangeResult{}, fmt.Errorf("%w: range ends at %d before it starts at %d", curvekit.ErrInvalid, q.To, q.From)
	}
	var res market.RangeResult
	var before []tradeRow
	if err := s.tradesOf(q.Token).
		Where("(tr.block_number, tr.log_index) <= ("+lastOfMinute+")", q.Token, minuteOf(q.From)).
		Where("tr.block_time < ?", q.From).
		OrderExpr("tr.block_number DESC, tr.log_index DESC").
		Limit(1).Scan(ctx, &before); err != nil {
		return res, fmt.Errorf("bunstore: trades of %s: %w", q.Token, err)
	}
	var rows []tradeRow
	if q.From < q.To {
		// The trades of the minutes from From's to that of To-1, in chain order: after the last
		// trade of the latest bar before From's minute, up to the last of the latest bar up to
		// To-1's. Read so, a range within a busy token's hour reads its own minutes, where the
		// hour index read every trade of the hour.
		lo := "SELECT cb.last_%s FROM candle_bars AS cb WHERE cb.token = ? AND cb.minute < ? ORDER BY cb.minute DESC LIMIT 1"
		if err := s.tradesOf(q.Token).
			Where("(tr.block_number, tr.log_index) > (COALESCE(("+fmt.Sprintf(lo, "block")+"), -1), COALESCE(("+fmt.Sprintf(lo, "log")+"), -1))",
				q.Token, minuteOf(q.From), q.Token, minuteOf(q.From)).
			Where("(tr.block_number, tr.log_index) <= ("+lastOfMinute+")", q.Token, minuteOf(q.To-1)).
			Where("tr.block_time >= ? AND tr.block_time < ?", q.From, q.To).
			OrderExpr("tr.block_number, tr.log_index").
			Scan(ctx, &rows); err != nil {
			return res, fmt.Errorf("bunstore: trades of %s: %w", q.Token, err)
		}
	}
	if len(before) == 0 && len(rows) == 0 {
		if err := s.mustExist(ctx, q.Token); err != nil {
			return res, err
		}
	}
	if len(before) == 1 {
		t := before[0].trade()
		res.Before = &t
	}
	res.Trades = make([]market.Trade, len(rows))
	for i := range rows {
		res.Trades[i] = rows[i].trade()
	}
	return res, nil
}

// tradesOf selects the trades of a token as tradeRows, with their blocks' hashes. The token_key
// term picks the per-token indexes on PostgreSQL (see functions.go).
func (s *Market) tradesOf(token common.Address) *bun.SelectQuery {
	return s.db.NewSelect().Model((*tradeRow)(nil)).ColumnExpr(tradeColumns).
		Where("token_key(tr.token) = ? AND tr.token = ?", tokenKey(token), token)
}

// mustExist returns curvekit.ErrNotFound when the token is not stored.
func (s *Market) mustExist(ctx context.Context, addr common.Address) error {
	ok, err := s.db.NewSelect().Model((*tokenRow)(nil)).Where("address = ?", addr).Exists(ctx)
	if err != nil {
		return fmt.Errorf("bunstore: token %s: %w", addr, err)
	}
	if !ok {
		return fmt.Errorf("bunstore: token %s: %w", addr, curvekit.ErrNotFound)
	}
	return nil
}

// TradesForward returns a page of a token's trades in a time range, oldest first, keyset on
// (block time, block, log index): the trades_token_time index serves it, hour by hour.
func (s *Market) TradesForward(ctx context.Context, q market.ForwardQuery) ([]market.Trade, error) {
	limit := q.Limit
	if limit <= 0 {
		limit = market.ExportChunk
	}
	sel, err := forwardRange(s.tradesOf(q.Token), q)
	if err != nil {
		return nil, err
	}
	sel.OrderExpr(byTime).Limit(int64(limit))
	// The rows are scanned into a page of rows kept for the next export's: bun fills a slice's
	// capacity before it grows it.
	rows := forwardRows.Get().(*[]tradeRow)
	defer forwardRows.Put(rows)
	*rows = (*rows)[:0]
	if err := sel.Scan(ctx, rows); err != nil {
		return nil, fmt.Errorf("bunstore: trades of %s: %w", q.Token, err)
	}
	out := q.Into[:0]
	if cap(out) < len(*rows) {
		out = make([]market.Trade, 0, len(*rows))
	}
	for i := range *rows {
		out = append(out, (*rows)[i].trade())
	}
	return out, nil
}

// forwardRows are pages of rows for TradesForward, each of ExportChunk rows.
var forwardRows = sync.Pool{New: func() any {
	rows := make([]tradeRow, 0, market.ExportChunk)
	return &rows
}}

// Buyers returns the recipients of the buys among the trades of q's range, each once: the
// database reads the range as TradesForward does, whole, but returns addresses alone.
func (s *Market) Buyers(ctx context.Context, q market.ForwardQuery) ([]common.Address, error) {
	inner, err := forwardRange(s.db.NewSelect().TableExpr("trades AS tr").Column("tr.side", "tr.trader", "tr.recipient").
		Where("token_key(tr.token) = ? AND tr.token = ?", tokenKey(q.Token), q.Token), q)
	if err != nil {
		return nil, err
	}
	var out []common.Address
	// An empty recipient is the trader's own (see recipient).
	if err := s.db.NewSelect().TableExpr("(?) AS w", inner).
		ColumnExpr("DISTINCT CASE WHEN length(w.recipient) = 0 THEN w.trader ELSE w.recipient END").
		Where("w.side = ?", int16(sideBuy)).Scan(ctx, &out); err != nil {
		return nil, fmt.Errorf("bunstore: buyers of %s: %w", q.Token, err)
	}
	return out, nil
}

// forwardRange bounds sel, a select of one token's trades (tr), to q's range after its cursor,
// as TradesForward reads it.
func forwardRange(sel *bun.SelectQuery, q market.ForwardQuery) (*bun.SelectQuery, error) {
	// One lower bound on the time, the later of From and the cursor's: the index range starts
	// there (with two, a planner may start at the earlier one and scan the rest every page).
	from := q.From
	if q.After != nil {
		from = max(from, q.After.Time)
	}
	sel.Where("tr.block_time >= ? AND tr.block_time < ?", from, q.To)
	// Within one hour the hour is bound by equality, so that the index ranges over the time too:
	// SQLite, given a range of hours, reads every trade of From's hour before it (a busy token's
	// launch window, which the holders page reads for its snipers: 31 ms for 49 trades).
	if lo, hi := tradeHour(from), tradeHour(max(from, q.To-1)); lo == hi {
		sel.Where("tr.block_time / 3600 = ?", lo)
	} else {
		sel.Where("tr.block_time / 3600 BETWEEN ? AND ?", lo, hi)
	}
	if a := q.After; a != nil {
		block, err := toInt64("cursor block", a.Block)
		if err != nil {
			return nil, err
		}
		sel.Where("(tr.block_time, tr.block_number, tr.log_index) > (?, ?, ?)", a.Time, block, int64(a.Log))
	}
	return sel, nil
}

// lastOfMinute selects the chain position (block, log index) of the last trade of a token's
// latest minute bar at or before a minute: one probe of the bars' primary key.
const lastOfMinute = "SELECT cb.last_block, cb.last_log FROM candle_bars AS cb WHERE cb.token = ? AND cb.minute <= ? ORDER BY cb.minute DESC LIMIT 1"

// minuteOf is the start of t's UTC minute (as candle_bars.minute), rounding down.
func minuteOf(t int64) int64 { return t - (t%60+60)%60 }

// tradeHour is the hour of a trade's time as trades_token_time keys it: block_time / 3600 in SQL,
// which truncates as Go does. The reads by time bound the hour as well as the time and order by
// it first, so that the index serves them (see migrations/*/0023_compact_storage.sql).
func tradeHour(t int64) int64 { return t / 3600 }

// byTime orders trades (tr) by time, block and log index, the hour first.
const byTime = "tr.block_time / 3600, tr.block_time, tr.block_number, tr.log_index"

// tradesOfToken selects, in SQL on trades and tokens, the trades of the token of the row: the
// token_key term picks the per-token indexes on PostgreSQL (see functions.go).
const tradesOfToken = "token_key(trades.token) = token_key(tokens.address) AND trades.token = tokens.address"
