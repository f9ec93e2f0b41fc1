package market

import (
	"fmt"

	"github.com/curvekit/curvekit"
	"github.com/curvekit/curvekit/candles"
)

// MinutesOf returns the minute bars of a token's trades (in chain order): what a store keeps of
// them, with the display prices candles see (CandleTrade).
func MinutesOf(t *Token, trades []Trade) ([]candles.Minute, error) {
	in := make([]candles.Trade, len(trades))
	for i := range trades {
		in[i] = candleTrade(t, &trades[i])
	}
	m, err := candles.AppendMinutes(nil, in)
	if err != nil {
		return nil, fmt.Errorf("market: minutes of %s: %w", t.Address, err)
	}
	return m, nil
}

// BarsOf answers q from all of a token's stored trades (in chain order): what Store.Bars
// returns, at every span, for stores that keep trades only and for tests that recompute the
// stored bars. It refuses (candles.ErrOverflow) a series with an hour or day whose volumes sum to
// 2^128 or more at that span, wherever the range lies.
func BarsOf(t *Token, trades []Trade, q MinuteQuery) (MinuteResult, error) {
	if q.To < q.From {
		return MinuteResult{}, fmt.Errorf("%w: range ends at %d before it starts at %d", curvekit.ErrInvalid, q.To, q.From)
	}
	if !ValidSpan(q.Span) {
		return MinuteResult{}, fmt.Errorf("%w: bars of %d seconds", curvekit.ErrInvalid, q.Span)
	}
	all, err := MinutesOf(t, trades)
	if err != nil {
		return MinuteResult{}, err
	}
	if q.Span > SpanMinute {
		if all, err = candles.Coarsen(nil, candles.Resolution(q.Span), all); err != nil {
			return MinuteResult{}, fmt.Errorf("market: bars of %s: %w", t.Address, err)
		}
	}
	limit := q.Limit
	if limit <= 0 || limit > MaxMinutes {
		limit = MaxMinutes
	}
	var r MinuteResult
	for i := range all {
		m := all[i]
		switch {
		case m.Time < q.From:
			r.Before = &m
		case m.Time < q.To && len(r.Minutes) < limit:
			r.Minutes = append(r.Minutes, m)
		}
	}
	if len(r.Minutes) == limit {
		return r, nil
	}
	key := r.Before
	if n := len(r.Minutes); n > 0 {
		key = &r.Minutes[n-1]
	}
	if key != nil {
		for i := range trades {
			if tr := &trades[i]; tr.Block == key.Block && uint32(tr.LogIndex) == key.Index {
				last := *tr
				r.Last = &last
			}
		}
	}
	return r, nil
}
