package market

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/ethereum/go-ethereum/common"

	"github.com/curvekit/curvekit"
	"github.com/curvekit/curvekit/candles"
)

// ExportChunk is how many trades an export reads from the store at a time: an export of any
// length holds about this many in memory (a page of a quarter of a megabyte at most, reused
// from page to page); each read is one seek of the trades' index.
const ExportChunk = 256

// Position is where a trade stands in a token's history, the order of an export: block time,
// then block, then log index. Its text form, "time:block:logIndex", is the cursor an export
// resumes after.
type Position struct {
	Time  int64
	Block uint64
	Log   uint
}

// PositionOf is tr's position.
func PositionOf(tr *Trade) Position {
	return Position{Time: tr.Time, Block: tr.Block, Log: tr.LogIndex}
}

func (p Position) String() string {
	return strconv.FormatInt(p.Time, 10) + ":" + strconv.FormatUint(p.Block, 10) + ":" + strconv.FormatUint(uint64(p.Log), 10)
}

// ParsePosition reads a Position's text form; anything else is curvekit.ErrInvalid.
func ParsePosition(s string) (Position, error) {
	f := strings.Split(s, ":")
	if len(f) == 3 {
		t, err1 := strconv.ParseInt(f[0], 10, 64)
		b, err2 := strconv.ParseUint(f[1], 10, 63)
		l, err3 := strconv.ParseUint(f[2], 10, 31)
		if err1 == nil && err2 == nil && err3 == nil && t >= 0 {
			return Position{Time: t, Block: b, Log: uint(l)}, nil
		}
	}
	return Position{}, fmt.Errorf("%w: malformed cursor", curvekit.ErrInvalid)
}

// ForwardQuery selects a token's trades with From <= Time < To after a position, oldest first.
type ForwardQuery struct {
	Token    common.Address
	From, To int64
	// After, when set, keeps the trades after it.
	After *Position
	Limit int // at most this many; 0 or less: ExportChunk
	// Into, when set, is a previous page to reuse: the page is written over it when its
	// capacity allows, so an export of any length allocates one page.
	Into []Trade
}

// ExportQuery selects what an export covers: a token's trades, or bars, with From <= Time < To
// (bars by their start, each whole), resuming after Cursor (a Position's text for trades, a bar time for
// bars); To 0 means the present.
type ExportQuery struct {
	Token      common.Address
	From, To   int64
	Cursor     string
	Resolution candles.Resolution // bars only
}

// ExportTrades calls emit with each of a token's trades in the query's range, oldest first,
// reading ExportChunk at a time: memory stays bounded however long the history. It stops at the
// first error emit returns. An unknown token is curvekit.ErrNotFound, before emit is called.
func (s *Service) ExportTrades(ctx context.Context, q ExportQuery, emit func(t *Token, tr *Trade) error) error {
	t, err := s.token(ctx, q.Token)
	if err != nil {
		return err
	}
	fq := ForwardQuery{Token: q.Token, From: q.From, To: s.exportEnd(&t, q.To), Limit: ExportChunk}
	if q.Cursor != "" {
		p, err := ParsePosition(q.Cursor)
		if err != nil {
			return err
		}
		fq.After = &p
	}
	return s.eachTrade(ctx, fq, func(tr *Trade) error { return emit(&t, tr) })
}

// eachTrade calls fn with each trade fq selects, oldest first, a page of fq.Limit at a time (each
// page written over the last), until fn fails or the trades end.
func (s *Service) eachTrade(ctx context.Context, fq ForwardQuery, fn func(tr *Trade) error) error {
	if fq.Limit <= 0 {
		fq.Limit = ExportChunk
	}
	for {
		page, err := s.cfg.Store.TradesForward(ctx, fq)
		if err != nil {
			return err
		}
		for i := range page {
			if err := fn(&page[i]); err != nil {
				return err
			}
		}
		if len(page) < fq.Limit {
			return nil
		}
		last := PositionOf(&page[len(page)-1])
		fq.After, fq.Into = &last, page
	}
}

// exportEnd is the end of an export's range: to, or just after the present when to is 0 or
// later (the present as the service's clock or the token's last trade says).
func (s *Service) exportEnd(t *Token, to int64) int64 {
	now := max(s.cfg.Now().Unix(), t.LastTradeAt) + 1
	if to == 0 || to > now {
		return now
	}
	return to
}

// ExportCandles calls emit with each bar of the query's range at its resolution, oldest first:
// the bars Candles returns for any window inside it (quiet buckets flat at the previous close),
// folded from the stored bars of the coarsest span that divides the resolution (BarSpan),
// MaxMinutes at a time. The range starts at the bucket of From (or after
// the bar at Cursor, a bar time) and ends with the bucket that holds To-1, whole: its bar folds
// every trade of the bucket, those at or after To as well, as Candles' does. A token without a
// trade before the range's last bucket ends has no bars.
func (s *Service) ExportCandles(ctx context.Context, q ExportQuery, emit func(t *Token, b *candles.Bar) error) error {
	if !q.Resolution.Valid() {
		return fmt.Errorf("%w: unknown resolution", curvekit.ErrInvalid)
	}
	t, err := s.token(ctx, q.Token)
	if err != nil {
		return err
	}
	res := q.Resolution.Seconds()
	first := q.Resolution.Bucket(q.From)
	if q.Cursor != "" {
		c, err := strconv.ParseInt(q.Cursor, 10, 64)
		if err != nil || c < 0 {
			return fmt.Errorf("%w: malformed cursor", curvekit.ErrInvalid)
		}
		first = max(first, q.Resolution.Bucket(c)+res)
	}
	end := s.exportEnd(&t, q.To) // bars start before end
	if first >= end {
		return nil
	}
	// The last bar is whole, every trade of its bucket folded, even when To falls inside it:
	// the bar Candles answers for that bucket.
	end = q.Resolution.Bucket(end-1) + res
	f, err := candles.NewFolder(q.Resolution)
	if err != nil {
		return err
	}
	out := func(b candles.Bar) error {
		if b.Time < first || b.Time >= end {
			return nil
		}
		return emit(&t, &b)
	}
	step := func(st candles.Step) error {
		if !st.Closed {
			return nil
		}
		if err := out(st.Prev); err != nil {
			return err
		}
		for i := int64(1); i <= st.Gap; i++ {
			if st.Prev.Time+i*res >= end {
				break
			}
			if err := out(st.Prev.Quiet(st.Prev.Time + i*res)); err != nil {
				return err
			}
		}
		return nil
	}
	span := BarSpan(q.Resolution) // first and end are bucket starts: whole spans
	mq := MinuteQuery{Token: q.Token, From: first, To: end, Span: span, Limit: MaxMinutes}
	for start := true; ; start = false {
		page, err := s.cfg.Store.Bars(ctx, mq)
		if err != nil {
			return err
		}
		if start && page.Before != nil {
			if _, err := f.AddMinute(*page.Before); err != nil {
				return fmt.Errorf("market: candles of %s: %w", q.Token, err)
			}
		}
		for i := range page.Minutes {
			st, err := f.AddMinute(page.Minutes[i])
			if err != nil {
				return fmt.Errorf("market: candles of %s: %w", q.Token, err)
			}
			if err := step(st); err != nil {
				return err
			}
		}
		n := len(page.Minutes)
		if n < mq.Limit {
			break
		}
		mq.From = page.Minutes[n-1].Time + span
	}
	cur, ok := f.Current()
	if !ok {
		return nil
	}
	// Flat-fill to the last bucket of the range, then the bar in it.
	if last := q.Resolution.Bucket(end - 1); last > cur.Time {
		st, err := f.Advance(last)
		if err != nil {
			return err
		}
		if err := step(st); err != nil {
			return err
		}
		cur, _ = f.Current()
	}
	return out(cur)
}
