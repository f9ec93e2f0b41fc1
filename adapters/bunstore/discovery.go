package bunstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/ethereum/go-ethereum/common"
	"github.com/holiman/uint256"
	"github.com/uptrace/bun"

	"github.com/curvekit/curvekit"
	"github.com/curvekit/curvekit/market"
)

// The discovery state on the tokens table (trend_hour, trend_day, trend_score, change_1h,
// change_24h) and in discovery and kings is moved by every batch Apply writes for blocks after
// the stored cursor, in its transaction, from what the batch wrote: a batch applied again
// (its cursor not after the stored one) leaves it alone, as it leaves its rows.

type kingRow struct {
	bun.BaseModel `bun:"table:kings"`

	Quote common.Address `bun:"quote,pk"`
	Token common.Address `bun:"token"`
	Since int64          `bun:"since"`
}

// lockDiscovery takes the discovery row for the rest of tx, first among the writes of an Apply or
// a Rollback: the discovery state touches many tokens' rows, and two writers that took them in
// different orders would deadlock (SQLite runs one write transaction at a time anyway).
func (s *Market) lockDiscovery(ctx context.Context, tx bun.Tx) error {
	if s.dialect != dialectPostgres {
		return nil
	}
	if _, err := tx.NewRaw("SELECT trend_at FROM discovery WHERE id = 1 FOR UPDATE").Exec(ctx); err != nil {
		return fmt.Errorf("discovery: %w", err)
	}
	return nil
}

// trendClock returns the time the trending sums are expressed at; ok is false before the first.
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

// discover moves the discovery state to the batch's last block: the trending sums decay to its
// time and gain its trades, the price changes are read again for the tokens that traded in the
// last day (or still show a change), and the kings of the pairing assets the batch touched are
// checked.
func discover(ctx context.Context, tx bun.Tx, b *market.Batch) error {
	prev, ok, err := trendClock(ctx, tx)
	if err != nil {
		return fmt.Errorf("discovery: %w", err)
	}
	at := b.Time
	if ok {
		at = max(at, prev)
	}
	if ok && at > prev {
		d := market.Trend{Hour: 1, Day: 1}.Decay(float64(at - prev))
		if _, err := tx.NewRaw(`UPDATE tokens SET trend_hour = trend_hour * ?, trend_day = trend_day * ? WHERE trend_score > 0`,
			d.Hour, d.Day).Exec(ctx); err != nil {
			return fmt.Errorf("trend decay: %w", err)
		}
	}
	for tok, t := range market.TrendOf(b, at) {
		if _, err := tx.NewRaw(`UPDATE tokens SET trend_hour = trend_hour + ?, trend_day = trend_day + ? WHERE address = ?`,
			t.Hour, t.Day, tok).Exec(ctx); err != nil {
			return fmt.Errorf("trend: %w", err)
		}
	}
	if err := scoreTrends(ctx, tx); err != nil {
		return err
	}
	if err := setTrendClock(ctx, tx, at); err != nil {
		return fmt.Errorf("discovery: %w", err)
	}
	if err := refreshChanges(ctx, tx, at); err != nil {
		return err
	}
	quotes := map[common.Address]bool{}
	for i := range b.Launches {
		quotes[b.Launches[i].Quote.Address] = true
	}
	for i := range b.Updates {
		quotes[b.Updates[i].Quote.Address] = true
	}
	return crown(ctx, tx, quotes, at)
}

// scoreTrends computes the score of every token whose sums are not zero, and zeroes the sums of
// those that fell below the floor.
func scoreTrends(ctx context.Context, tx bun.Tx) error {
	const score = "(trend_hour + trend_day / 24)"
	_, err := tx.NewRaw(`UPDATE tokens SET
		trend_score = CASE WHEN `+score+` < ? THEN 0 ELSE `+score+` END,
		trend_hour = CASE WHEN `+score+` < ? THEN 0 ELSE trend_hour END,
		trend_day = CASE WHEN `+score+` < ? THEN 0 ELSE trend_day END
		WHERE trend_hour > 0 OR trend_day > 0 OR trend_score > 0`, market.TrendFloor, market.TrendFloor, market.TrendFloor).Exec(ctx)
	if err != nil {
		return fmt.Errorf("trend scores: %w", err)
	}
	return nil
}

// refreshChanges computes the hour's and the day's price change, as of at, of the tokens that
// traded in the day before it or still show a change.
func refreshChanges(ctx context.Context, tx bun.Tx, at int64) error {
	const last = `(SELECT amount_float(price) FROM trades WHERE ` + tradesOfToken + `
		ORDER BY block_number DESC, log_index DESC LIMIT 1)`
	const before = `COALESCE((SELECT amount_float(price) FROM trades WHERE ` + tradesOfToken + `
		AND block_time <= ? AND block_time / 3600 <= ? / 3600
		ORDER BY block_time / 3600 DESC, block_time DESC, block_number DESC, log_index DESC LIMIT 1), open_price)`
	_, err := tx.NewRaw(`UPDATE tokens SET
		change_1h = COALESCE(`+last+` / NULLIF(`+before+`, 0) - 1, 0),
		change_24h = COALESCE(`+last+` / NULLIF(`+before+`, 0) - 1, 0)
		WHERE last_trade_at >= ? OR change_1h <> 0 OR change_24h <> 0`,
		at-3600, at-3600, at-86400, at-86400, at-86400).Exec(ctx)
	if err != nil {
		return fmt.Errorf("price changes: %w", err)
	}
	return nil
}

// crown finds the king of each pairing asset in quotes and records a new one since at.
func crown(ctx context.Context, tx bun.Tx, quotes map[common.Address]bool, at int64) error {
	for q := range quotes {
		var top []common.Address
		if err := tx.NewSelect().Model((*tokenRow)(nil)).Column("address").
			Where("t.graduated = ? AND t.quote_address = ?", false, q).
			OrderExpr("t.market_cap DESC, "+newestKey).Limit(1).Scan(ctx, &top); err != nil {
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

// rediscover puts the discovery state right after a rollback to a block of time at: the trending
// sums of the restored tokens are added up again from their trades left, the price changes are
// read again, and every pairing asset's king is checked (a new one holds it since at).
func rediscover(ctx context.Context, tx bun.Tx, tokens []common.Address, at int64) error {
	clock, ok, err := trendClock(ctx, tx)
	if err != nil {
		return fmt.Errorf("discovery: %w", err)
	}
	if !ok {
		clock = at
	}
	if len(tokens) > 0 {
		var rows []struct {
			Token    common.Address `bun:"token"`
			Time     int64          `bun:"block_time"`
			Quote    binAmount      `bun:"quote_amount"`
			Decimals int            `bun:"quote_decimals"`
		}
		// Older trades add less than the floor: e^-7/24 of their weight.
		if err := tx.NewRaw(`SELECT trades.token, trades.block_time, trades.quote_amount, tokens.quote_decimals
			FROM trades JOIN tokens ON tokens.address = trades.token
			WHERE trades.token IN (?) AND trades.block_time > ?`, bun.List(tokens), clock-7*86400).Scan(ctx, &rows); err != nil {
			return fmt.Errorf("trends: %w", err)
		}
		sums := make(map[common.Address]market.Trend, len(tokens))
		for _, tok := range tokens {
			sums[tok] = market.Trend{}
		}
		for _, r := range rows {
			tr := market.Trade{QuoteAmount: uint256.Int(r.Quote)}
			w := market.TradeWeight(&tr, uint8(r.Decimals))
			d := market.Trend{Hour: w, Day: w}.Decay(float64(clock - r.Time))
			s := sums[r.Token]
			s.Hour, s.Day = s.Hour+d.Hour, s.Day+d.Day
			sums[r.Token] = s
		}
		for tok, s := range sums {
			if _, err := tx.NewRaw(`UPDATE tokens SET trend_hour = ?, trend_day = ? WHERE address = ?`,
				s.Hour, s.Day, tok).Exec(ctx); err != nil {
				return fmt.Errorf("trends: %w", err)
			}
		}
		if err := scoreTrends(ctx, tx); err != nil {
			return err
		}
	}
	if err := refreshChanges(ctx, tx, clock); err != nil {
		return err
	}
	var quotes []common.Address
	if err := tx.NewRaw(`SELECT quote_address FROM tokens UNION SELECT quote FROM kings`).Scan(ctx, &quotes); err != nil {
		return fmt.Errorf("king: %w", err)
	}
	set := make(map[common.Address]bool, len(quotes))
	for _, q := range quotes {
		set[q] = true
	}
	return crown(ctx, tx, set, at)
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
