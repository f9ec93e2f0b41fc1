package bunstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/holiman/uint256"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"

	"github.com/curvekit/curvekit"
	"github.com/curvekit/curvekit/market"
)

// The discovery state lives on the tokens table (trend_log, volume_24h with volume_rank,
// buys_24h, sells_24h, change_1h, change_24h with the prices they compare; see
// migrations/*/0021_discovery_stored.sql and 0025_reference_prices.sql), on PostgreSQL with the
// orders' keys copied to token_ranks (migration 0034: there the tokens' updates are HOT), and in
// discovery (the clock: the time the figures are as of) and kings. Every batch Apply writes for
// blocks after the stored cursor moves it in its transaction, and writes only the tokens whose
// figures moved:
//
//   - the tokens the batch's new trades trade: their trend, volume and last price;
//   - the tokens with a trade that leaves the day's window as the clock moves: their volume, and
//     the reference price of their 24h change;
//   - the tokens with a trade that passes the hour's mark: the reference of their 1h change.
//
// The trending score decays at read time (market.TrendScore), so time passing rewrites nothing
// else. What leaves a window is found by the trades' block_time index over the span the clock
// moved (which also gives the passing trades' prices), so a batch's cost follows its own trades
// and the trades it retires or passes, never the number of
// tokens or trades stored. A batch applied again (its cursor not after the stored one) leaves the
// state alone, as it leaves its rows.

const (
	hour = 3600
	day  = 86400
)

type kingRow struct {
	bun.BaseModel `bun:"table:kings"`

	Quote common.Address `bun:"quote,pk"`
	Token common.Address `bun:"token"`
	Since int64          `bun:"since"`
}

// lockDiscovery takes the discovery row for the rest of tx, first among the writes of an Apply or
// a Rollback, so that writers take their turns (SQLite runs one write transaction at a time
// anyway).
func (s *Market) lockDiscovery(ctx context.Context, tx bun.Tx) error {
	if s.dialect != dialectPostgres {
		return nil
	}
	if _, err := tx.NewRaw("SELECT trend_at FROM discovery WHERE id = 1 FOR UPDATE").Exec(ctx); err != nil {
		return fmt.Errorf("discovery: %w", err)
	}
	return nil
}

// trendClock returns the time the discovery figures are as of; ok is false before the first batch.
func trendClock(ctx context.Context, db bun.IDB) (at int64, ok bool, err error) {
	err = db.NewSelect().TableExpr("discovery").Column("trend_at").Where("id = 1").Scan(ctx, &at)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, false, nil
	}
	return at, err == nil && at != 0, err
}

func setTrendClock(ctx context.Context, tx bun.Tx, at int64) error {
	_, err := tx.NewRaw(`UPDATE discovery SET trend_at = ? WHERE id = 1`, at).Exec(ctx)
	return err
}

// windowTrade is a trade as the discovery windows read it.
type windowTrade struct {
	Token common.Address `bun:"token"`
	Time  int64          `bun:"block_time"`
	Block int64          `bun:"block_number"`
	Log   int64          `bun:"log_index"`
	Side  sideCode       `bun:"side"`
	Quote binAmount      `bun:"quote_amount"`
	Price binAmount      `bun:"price"`
}

// place is a trade's place in time order (the order the change's reference trade is the last
// of) and its price.
type place struct {
	time, block, log int64
	price            binAmount
}

func (p place) after(q place) bool {
	if p.time != q.time {
		return p.time > q.time
	}
	if p.block != q.block {
		return p.block > q.block
	}
	return p.log > q.log
}

// later keeps in refs the later of p and what it holds for token.
func later(refs map[common.Address]place, token common.Address, p place) {
	if q, ok := refs[token]; !ok || p.after(q) {
		refs[token] = p
	}
}

// move is what one batch does to the discovery state, read before its rows are written: the
// clock's step and the stored trades the step retires or passes.
type move struct {
	prev, at int64
	// leaving are the trades that leave the day's volume window: Time in [prev-day, at-day).
	leaving []windowTrade
	// hourRef and dayRef hold, per token, the last stored trade that passes the hour's (day's)
	// mark as the clock moves: Time in (prev-hour, at-hour] (in (prev-day, at-day]). Each is its
	// token's new reference for the 1h (24h) change, unless one of the batch's trades is later.
	hourRef, dayRef map[common.Address]place
}

// beginDiscovery reads the clock and what its step to the batch's time retires and passes. It
// runs before the batch's trades are written, so that it sees only trades counted before.
func beginDiscovery(ctx context.Context, tx bun.Tx, b *market.Batch) (*move, error) {
	prev, ok, err := trendClock(ctx, tx)
	if err != nil {
		return nil, fmt.Errorf("discovery: %w", err)
	}
	at := b.Time
	for i := range b.Trades {
		at = max(at, b.Trades[i].Time)
	}
	m := &move{prev: prev, at: at, hourRef: map[common.Address]place{}, dayRef: map[common.Address]place{}}
	if !ok || at <= prev {
		m.at = max(at, prev)
		return m, nil
	}
	var rows []windowTrade
	if err := tx.NewSelect().TableExpr("trades").Column("token", "block_time", "block_number", "log_index", "side", "quote_amount", "price").
		Where("block_time >= ? AND block_time <= ?", prev-day, at-day).Scan(ctx, &rows); err != nil {
		return nil, fmt.Errorf("discovery: the day's window: %w", err)
	}
	for _, r := range rows {
		if r.Time < at-day {
			m.leaving = append(m.leaving, r)
		}
		if r.Time > prev-day {
			later(m.dayRef, r.Token, r.place())
		}
	}
	rows = nil
	if err := tx.NewSelect().TableExpr("trades").Column("token", "block_time", "block_number", "log_index", "price").
		Where("block_time > ? AND block_time <= ?", prev-hour, at-hour).Scan(ctx, &rows); err != nil {
		return nil, fmt.Errorf("discovery: the hour's window: %w", err)
	}
	for _, r := range rows {
		later(m.hourRef, r.Token, r.place())
	}
	return m, nil
}

func (r *windowTrade) place() place {
	return place{time: r.Time, block: r.Block, log: r.Log, price: r.Price}
}

// figures are a token's discovery columns.
type figures struct {
	Address       common.Address `bun:"address"`
	QuoteDecimals int            `bun:"quote_decimals"`
	OpenPrice     float64        `bun:"open_price"`
	TrendLog      float64        `bun:"trend_log"`
	Volume        amount         `bun:"volume_24h"`
	Buys          int            `bun:"buys_24h"`
	Sells         int            `bun:"sells_24h"`
	Change1h      float64        `bun:"change_1h"`
	Change24h     float64        `bun:"change_24h"`
	Last          *binAmount     `bun:"last_price"`
	Price1h       *binAmount     `bun:"price_1h"`
	Price24h      *binAmount     `bun:"price_24h"`
}

// setChanges computes the changes from the prices.
func (f *figures) setChanges() {
	f.Change1h = change(f.Last, f.Price1h, f.OpenPrice)
	f.Change24h = change(f.Last, f.Price24h, f.OpenPrice)
}

// finishDiscovery moves the figures by the batch's new trades (those after the cursor stored
// before it) and what m retires, and writes every token the batch changed once: the updated
// ones with their states (updates), figures and holder counts (moved by delta) in one upsert,
// the others with their figures and holder counts in one update. Then the clock, and the kings
// of the pairing assets the batch touched.
func finishDiscovery(ctx context.Context, tx bun.Tx, dialect dialectKind, m *move, b *market.Batch, after int64,
	updates []tokenRow, delta map[common.Address]int64) error {
	// The new trades, each once (a batch may carry one twice; the store keeps it once).
	type key struct {
		tx  common.Hash
		log uint
	}
	var fresh []*market.Trade
	seen := make(map[key]bool, len(b.Trades))
	for i := range b.Trades {
		tr := &b.Trades[i]
		if k := (key{tr.TxHash, tr.LogIndex}); int64(tr.Block) > after && !seen[k] {
			seen[k] = true
			fresh = append(fresh, tr)
		}
	}
	tokens := make(map[common.Address]bool, len(m.hourRef)+len(m.dayRef)+len(fresh))
	for a := range m.hourRef {
		tokens[a] = true
	}
	for a := range m.dayRef {
		tokens[a] = true
	}
	for _, r := range m.leaving {
		tokens[r.Token] = true
	}
	for _, tr := range fresh {
		tokens[tr.Token] = true
	}
	for i := range updates {
		tokens[updates[i].Address] = true
	}
	for a := range delta {
		tokens[a] = true
	}
	if len(tokens) > 0 {
		figs, err := readFigures(ctx, tx, setList(tokens))
		if err != nil {
			return err
		}
		for _, r := range m.leaving {
			f := figs[r.Token]
			if f == nil {
				continue // launched and rolled back since
			}
			if err := f.count(r.Side.side(), (*uint256.Int)(&r.Quote), -1); err != nil {
				return fmt.Errorf("discovery: %s: %w", r.Token, err)
			}
		}
		for _, tr := range fresh {
			f := figs[tr.Token]
			if f == nil {
				return fmt.Errorf("%w: trade of token %s, which is not launched", curvekit.ErrInvalid, tr.Token)
			}
			f.TrendLog = market.AddTrend(f.TrendLog, market.TrendTerm(market.TradeWeight(tr, uint8(f.QuoteDecimals)), tr.Time))
			if tr.Time >= m.at-day {
				if err := f.count(tr.Side, &tr.QuoteAmount, 1); err != nil {
					return fmt.Errorf("discovery: %s: %w", tr.Token, err)
				}
			}
		}
		if err := m.prices(ctx, tx, figs, fresh); err != nil {
			return err
		}
		rest := make(map[common.Address]*figures, len(figs))
		for a, f := range figs {
			rest[a] = f
		}
		for i := range updates {
			u := &updates[i]
			if f := figs[u.Address]; f != nil {
				u.setFigures(f)
				u.Holders = delta[u.Address]
				delete(rest, u.Address)
			}
		}
		if err := updateTokens(ctx, tx, updates, true); err != nil {
			return fmt.Errorf("updates: %w", err)
		}
		if err := writeFigures(ctx, tx, dialect, rest, delta); err != nil {
			return err
		}
		if err := writeRanks(ctx, tx, dialect, figs); err != nil {
			return err
		}
	}
	if err := setTrendClock(ctx, tx, m.at); err != nil {
		return fmt.Errorf("discovery: %w", err)
	}
	quotes := map[common.Address]bool{}
	for i := range b.Launches {
		quotes[b.Launches[i].Quote.Address] = true
	}
	for i := range b.Updates {
		quotes[b.Updates[i].Quote.Address] = true
	}
	return crown(ctx, tx, dialect, quotes, m.at)
}

// prices moves the prices the changes of figs compare, and the changes, by the trades m passes
// and the batch's new trades fresh. A new trade at or before a mark the clock had passed before
// this batch (out of time order) may precede a stored reference the figures do not place in
// time: those tokens' prices are probed instead (priceChanges).
func (m *move) prices(ctx context.Context, tx bun.Tx, figs map[common.Address]*figures, fresh []*market.Trade) error {
	last := make(map[common.Address]place, len(fresh))
	probe := map[common.Address]*figures{}
	for _, tr := range fresh {
		p := place{time: tr.Time, block: int64(tr.Block), log: int64(tr.LogIndex), price: binAmount(tr.Price)}
		if q, ok := last[tr.Token]; !ok || p.block > q.block || p.block == q.block && p.log > q.log {
			last[tr.Token] = p
		}
		if tr.Time <= m.prev-hour {
			probe[tr.Token] = figs[tr.Token]
		}
		if tr.Time <= m.at-hour {
			later(m.hourRef, tr.Token, p)
		}
		if tr.Time <= m.at-day {
			later(m.dayRef, tr.Token, p)
		}
	}
	for a, f := range figs {
		if probe[a] != nil {
			continue
		}
		if p, ok := last[a]; ok {
			f.Last = &p.price
		}
		if p, ok := m.hourRef[a]; ok {
			f.Price1h = &p.price
		}
		if p, ok := m.dayRef[a]; ok {
			f.Price24h = &p.price
		}
		f.setChanges()
	}
	return priceChanges(ctx, tx, probe, m.at)
}

// count adds (sign 1) or removes (sign -1) a trade from the day's volume and counts.
func (f *figures) count(side curvekit.Side, quote *uint256.Int, sign int) error {
	v := (*uint256.Int)(&f.Volume)
	if sign > 0 {
		if _, over := v.AddOverflow(v, quote); over {
			return errors.New("the day's volume is above 2^256-1")
		}
	} else if _, under := v.SubOverflow(v, quote); under {
		return errors.New("the day's volume would fall below zero: the stored figures do not match the trades")
	}
	switch side {
	case curvekit.Buy:
		f.Buys += sign
	case curvekit.Sell:
		f.Sells += sign
	}
	return nil
}

// figureChunk bounds the tokens one discovery statement names.
const figureChunk = 500

func readFigures(ctx context.Context, db bun.IDB, tokens []common.Address) (map[common.Address]*figures, error) {
	out := make(map[common.Address]*figures, len(tokens))
	for len(tokens) > 0 {
		chunk := tokens[:min(len(tokens), figureChunk)]
		tokens = tokens[len(chunk):]
		var rows []figures
		if err := db.NewSelect().TableExpr("tokens").
			Column("address", "quote_decimals", "open_price", "trend_log", "volume_24h", "buys_24h", "sells_24h", "change_1h", "change_24h",
				"last_price", "price_1h", "price_24h").
			Where("address IN (?)", bun.List(chunk)).Scan(ctx, &rows); err != nil {
			return nil, fmt.Errorf("discovery: %w", err)
		}
		for i := range rows {
			out[rows[i].Address] = &rows[i]
		}
	}
	return out, nil
}

// priceChanges sets the 1h and 24h changes of figs as of at: the last trade's price against the
// price of the last trade at least an hour (a day) before at, or the opening price. Each price
// is one probe of a trades index.
func priceChanges(ctx context.Context, db bun.IDB, figs map[common.Address]*figures, at int64) error {
	// One SELECT per token, its key and address written out: correlated with a tokens row, the
	// planner took a busy token for a quiet one and sorted its 165,424 trades by time for the
	// last one (388 ms), where the key's (token, block, log) index finds it in one step. The
	// per-token trade indexes lead with token_key(token), and order by time by the hour first
	// (trades.go).
	one := `SELECT ? AS address,
		(SELECT price FROM trades WHERE token_key(token) = ? AND token = ? ORDER BY block_number DESC, log_index DESC LIMIT 1) AS last,
		(SELECT price FROM trades WHERE token_key(token) = ? AND token = ? AND block_time <= ? AND block_time / 3600 <= ?
			ORDER BY block_time / 3600 DESC, block_time DESC, block_number DESC, log_index DESC LIMIT 1) AS hour,
		(SELECT price FROM trades WHERE token_key(token) = ? AND token = ? AND block_time <= ? AND block_time / 3600 <= ?
			ORDER BY block_time / 3600 DESC, block_time DESC, block_number DESC, log_index DESC LIMIT 1) AS day`
	if db.Dialect().Name() == dialect.PG {
		one = strings.Replace(one, "SELECT ? AS address", "SELECT CAST(? AS BYTEA) AS address", 1)
	}
	tokens := make([]common.Address, 0, len(figs))
	for a := range figs {
		tokens = append(tokens, a)
	}
	const perStatement = 100
	for len(tokens) > 0 {
		chunk := tokens[:min(len(tokens), perStatement)]
		tokens = tokens[len(chunk):]
		var sb strings.Builder
		args := make([]any, 0, 11*len(chunk))
		for i, a := range chunk {
			if i > 0 {
				sb.WriteString(" UNION ALL ")
			}
			sb.WriteString(one)
			k := tokenKey(a)
			args = append(args, a, k, a, k, a, at-hour, tradeHour(at-hour), k, a, at-day, tradeHour(at-day))
		}
		var rows []struct {
			Address common.Address `bun:"address"`
			Last    *binAmount     `bun:"last"`
			Hour    *binAmount     `bun:"hour"`
			Day     *binAmount     `bun:"day"`
		}
		if err := db.NewRaw(sb.String(), args...).Scan(ctx, &rows); err != nil {
			return fmt.Errorf("discovery: price changes: %w", err)
		}
		for _, r := range rows {
			f := figs[r.Address]
			if f == nil {
				continue
			}
			f.Last, f.Price1h, f.Price24h = r.Last, r.Hour, r.Day
			f.setChanges()
		}
	}
	return nil
}

// change is last against ref (or open without one) less one; 0 without a last trade or a price
// to compare with.
func change(last, ref *binAmount, open float64) float64 {
	if last == nil {
		return 0
	}
	base := open
	if ref != nil {
		base = (*uint256.Int)(ref).Float64()
	}
	if base == 0 {
		return 0
	}
	return (*uint256.Int)(last).Float64()/base - 1
}

// writeFigures stores figs, and moves their tokens' holder counts by delta, in one statement
// per chunk: an UPDATE from a list of values.
func writeFigures(ctx context.Context, tx bun.Tx, dialect dialectKind, figs map[common.Address]*figures, delta map[common.Address]int64) error {
	// PostgreSQL types a list of values by its first row.
	const marks = "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
	first := marks
	if dialect == dialectPostgres {
		first = "(CAST(? AS BYTEA), CAST(? AS DOUBLE PRECISION), CAST(? AS TEXT), CAST(? AS DOUBLE PRECISION), " +
			"CAST(? AS INTEGER), CAST(? AS INTEGER), CAST(? AS DOUBLE PRECISION), CAST(? AS DOUBLE PRECISION), " +
			"CAST(? AS BYTEA), CAST(? AS BYTEA), CAST(? AS BYTEA), CAST(? AS BIGINT))"
	}
	for _, chunk := range figureChunks(figs) {
		var sb strings.Builder
		args := make([]any, 0, 12*len(chunk))
		sb.WriteString(`WITH v (address, trend_log, volume_24h, volume_rank, buys_24h, sells_24h, change_1h, change_24h,
			last_price, price_1h, price_24h, holders) AS (VALUES `)
		writeValues(&sb, first, marks, len(chunk))
		for _, f := range chunk {
			vol := uint256.Int(f.Volume)
			args = append(args, f.Address, f.TrendLog, f.Volume, vol.Float64(), f.Buys, f.Sells, f.Change1h, f.Change24h,
				f.Last, f.Price1h, f.Price24h, delta[f.Address])
		}
		sb.WriteString(`) UPDATE tokens SET trend_log = v.trend_log, volume_24h = v.volume_24h, volume_rank = v.volume_rank,
			buys_24h = v.buys_24h, sells_24h = v.sells_24h, change_1h = v.change_1h, change_24h = v.change_24h,
			last_price = v.last_price, price_1h = v.price_1h, price_24h = v.price_24h, holders = tokens.holders + v.holders
			FROM v WHERE tokens.address = v.address`)
		if _, err := tx.NewRaw(sb.String(), args...).Exec(ctx); err != nil {
			return fmt.Errorf("discovery: write: %w", err)
		}
	}
	return nil
}

// figureChunks splits figs into the chunks one statement writes.
func figureChunks(figs map[common.Address]*figures) [][]*figures {
	rows := make([]*figures, 0, len(figs))
	for _, f := range figs {
		rows = append(rows, f)
	}
	var out [][]*figures
	for len(rows) > 0 {
		n := min(len(rows), figureChunk)
		out = append(out, rows[:n])
		rows = rows[n:]
	}
	return out
}

// writeRanks copies the leading keys of the discovery orders from figs to token_ranks, on
// PostgreSQL (migration 0034), in one statement per chunk; SQLite orders by the tokens' own
// columns.
func writeRanks(ctx context.Context, tx bun.Tx, dialect dialectKind, figs map[common.Address]*figures) error {
	if dialect != dialectPostgres {
		return nil
	}
	const (
		first = "(CAST(? AS BYTEA), CAST(? AS DOUBLE PRECISION), CAST(? AS DOUBLE PRECISION), CAST(? AS DOUBLE PRECISION), CAST(? AS DOUBLE PRECISION))"
		marks = "(?, ?, ?, ?, ?)"
	)
	for _, chunk := range figureChunks(figs) {
		var sb strings.Builder
		args := make([]any, 0, 5*len(chunk))
		sb.WriteString(`WITH v (address, trend_log, volume_rank, change_1h, change_24h) AS (VALUES `)
		writeValues(&sb, first, marks, len(chunk))
		for _, f := range chunk {
			vol := uint256.Int(f.Volume)
			args = append(args, f.Address, f.TrendLog, vol.Float64(), f.Change1h, f.Change24h)
		}
		sb.WriteString(`) UPDATE token_ranks AS r SET trend_log = v.trend_log, volume_rank = v.volume_rank,
			change_1h = v.change_1h, change_24h = v.change_24h
			FROM v WHERE r.address = v.address`)
		if _, err := tx.NewRaw(sb.String(), args...).Exec(ctx); err != nil {
			return fmt.Errorf("discovery: ranks: %w", err)
		}
	}
	return nil
}

// crown finds the king of each pairing asset in quotes (one probe of tokens_king each) and
// records a new one since at.
func crown(ctx context.Context, tx bun.Tx, dialect dialectKind, quotes map[common.Address]bool, at int64) error {
	curve := "NOT t.graduated" // the predicate of the partial index tokens_king, as written there
	if dialect != dialectPostgres {
		curve = "t.graduated = 0"
	}
	for q := range quotes {
		var top []common.Address
		if err := tx.NewSelect().Model((*tokenRow)(nil)).Column("address").
			Where(curve).Where("t.quote_address = ?", q).
			OrderExpr("t.quote_address DESC, t.market_cap DESC, "+newestKey).Limit(1).Scan(ctx, &top); err != nil {
			return fmt.Errorf("king: %w", err)
		}
		if len(top) == 0 {
			if _, err := tx.NewDelete().Model((*kingRow)(nil)).Where("quote = ?", q).Exec(ctx); err != nil {
				return fmt.Errorf("king: %w", err)
			}
			continue
		}
		var cur []common.Address
		if err := tx.NewSelect().Model((*kingRow)(nil)).Column("token").Where("quote = ?", q).Scan(ctx, &cur); err != nil {
			return fmt.Errorf("king: %w", err)
		}
		if len(cur) == 1 && cur[0] == top[0] {
			continue
		}
		k := kingRow{Quote: q, Token: top[0], Since: at}
		if _, err := tx.NewInsert().Model(&k).On("CONFLICT (quote) DO UPDATE").
			Set("token = EXCLUDED.token").Set("since = EXCLUDED.since").Exec(ctx); err != nil {
			return fmt.Errorf("king: %w", err)
		}
	}
	return nil
}

// refigure computes the figures of tokens again from their trades, as of the clock: after a
// rollback (the tokens it restored) and once after the migration to these figures. It reads the
// trades of the day (volume) and of market.TrendHorizon (trend) of those tokens alone.
func refigure(ctx context.Context, tx bun.Tx, dialect dialectKind, tokens []common.Address, clock int64) error {
	for len(tokens) > 0 {
		chunk := tokens[:min(len(tokens), figureChunk)]
		tokens = tokens[len(chunk):]
		figs, err := readFigures(ctx, tx, chunk)
		if err != nil {
			return err
		}
		if len(figs) == 0 {
			continue
		}
		for _, f := range figs {
			f.TrendLog, f.Volume, f.Buys, f.Sells = market.NoTrend, amount{}, 0, 0
		}
		var rows []windowTrade
		keys := make([]int64, len(chunk))
		for i, a := range chunk {
			keys[i] = tokenKey(a)
		}
		from := clock - market.TrendHorizon
		if err := tx.NewSelect().TableExpr("trades").Column("token", "block_time", "side", "quote_amount").
			Where("token_key(token) IN (?) AND token IN (?)", bun.List(keys), bun.List(chunk)).
			Where("block_time > ? AND block_time <= ? AND block_time / 3600 BETWEEN ? AND ?", from, clock, tradeHour(from), tradeHour(clock)).
			Scan(ctx, &rows); err != nil {
			return fmt.Errorf("discovery: trades: %w", err)
		}
		for _, r := range rows {
			f := figs[r.Token]
			if f == nil {
				continue
			}
			tr := market.Trade{QuoteAmount: uint256.Int(r.Quote)}
			f.TrendLog = market.AddTrend(f.TrendLog, market.TrendTerm(market.TradeWeight(&tr, uint8(f.QuoteDecimals)), r.Time))
			if r.Time >= clock-day {
				if err := f.count(r.Side.side(), &tr.QuoteAmount, 1); err != nil {
					return fmt.Errorf("discovery: %s: %w", r.Token, err)
				}
			}
		}
		if err := priceChanges(ctx, tx, figs, clock); err != nil {
			return err
		}
		if err := writeFigures(ctx, tx, dialect, figs, nil); err != nil {
			return err
		}
		if err := writeRanks(ctx, tx, dialect, figs); err != nil {
			return err
		}
	}
	return nil
}

// rediscover puts the discovery state right after a rollback to a block of time at: the
// figures of the restored tokens are computed again from their trades left, as of the clock
// (which does not move back), and the kings of the pairing assets that had one or whose tokens
// were restored are checked (a new one holds it since at).
func rediscover(ctx context.Context, tx bun.Tx, dialect dialectKind, tokens []common.Address, at int64) error {
	clock, ok, err := trendClock(ctx, tx)
	if err != nil {
		return fmt.Errorf("discovery: %w", err)
	}
	if !ok {
		clock = at
	}
	if err := refigure(ctx, tx, dialect, tokens, clock); err != nil {
		return err
	}
	var assets []common.Address
	if err := tx.NewRaw(`SELECT quote FROM kings`).Scan(ctx, &assets); err != nil {
		return fmt.Errorf("king: %w", err)
	}
	for len(tokens) > 0 {
		chunk := tokens[:min(len(tokens), figureChunk)]
		tokens = tokens[len(chunk):]
		var more []common.Address
		if err := tx.NewSelect().TableExpr("tokens").ColumnExpr("DISTINCT quote_address").
			Where("address IN (?)", bun.List(chunk)).Scan(ctx, &more); err != nil {
			return fmt.Errorf("king: %w", err)
		}
		assets = append(assets, more...)
	}
	quotes := make(map[common.Address]bool, len(assets))
	for _, q := range assets {
		quotes[q] = true
	}
	return crown(ctx, tx, dialect, quotes, at)
}

// rebuildDiscovery computes the figures once from the trades a store held before it kept them
// (migrations 0021 and 0025 flag such a store): every token with a trade. It reads the trades
// within market.TrendHorizon of the clock once, and probes each token's reference prices.
func (d *DB) rebuildDiscovery(ctx context.Context) error {
	var flag []int
	if err := d.bun.NewSelect().TableExpr("discovery").Column("rebuild").Where("id = 1").Scan(ctx, &flag); err != nil {
		return fmt.Errorf("bunstore: discovery: %w", err)
	}
	if len(flag) == 0 || flag[0] == 0 {
		return nil
	}
	return d.bun.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		clock, _, err := trendClock(ctx, tx)
		if err != nil {
			return err
		}
		var tokens []common.Address
		if err := tx.NewSelect().TableExpr("trades").ColumnExpr("DISTINCT token").Scan(ctx, &tokens); err != nil {
			return fmt.Errorf("bunstore: discovery: %w", err)
		}
		if err := refigure(ctx, tx, d.dialect, tokens, clock); err != nil {
			return fmt.Errorf("bunstore: %w", err)
		}
		_, err = tx.NewRaw(`UPDATE discovery SET rebuild = 0 WHERE id = 1`).Exec(ctx)
		return err
	})
}

// King returns the king of the hill of a pairing asset.
func (s *Market) King(ctx context.Context, quote common.Address) (market.King, error) {
	var k kingRow
	err := s.db.NewSelect().Model(&k).Where("quote = ?", quote).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return market.King{}, fmt.Errorf("bunstore: no king for %s: %w", quote, curvekit.ErrNotFound)
	}
	if err != nil {
		return market.King{}, fmt.Errorf("bunstore: king: %w", err)
	}
	return market.King{Quote: k.Quote, Token: k.Token, Since: k.Since}, nil
}
