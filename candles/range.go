package candles

import "fmt"

// RangeParams selects the window that Range returns.
type RangeParams struct {
	Resolution Resolution
	// From and To are Unix seconds, inclusive. The window holds the buckets whose starts lie in
	// [Bucket(From), Bucket(To)]: a partial bucket at either end is included whole.
	From, To int64
	// Limit caps the bars returned, counting from the window start; it must be positive. A caller
	// that wants more pages asks again from the last bar's Time plus one resolution.
	Limit int
	// Seed, when set, is folded before trades: the last trade before the window, so that a window
	// starting mid-history opens at the previous close instead of at its first trade. Trades before
	// the window may equally be passed at the head of trades; only the latest one matters.
	Seed *Trade
}

// Range folds trades (in chain order, as Folder.Add requires) and returns the bars of the window:
// every bucket from the series start to Bucket(To), quiet ones flat at the previous close,
// including the buckets after the last trade up to the window end. There is nothing before the
// first trade: with no trade or seed before the window, the series starts at the bucket of the first
// trade inside it, and with no trade at all the result is empty. Trades after the window are not
// read. Errors are those of Folder.Add, and ErrInvalidRange for bad parameters.
func Range(trades []Trade, p RangeParams) ([]Bar, error) {
	return AppendRange(nil, trades, p)
}

// AppendRange is Range appending to dst, for callers that reuse a buffer.
func AppendRange(dst []Bar, trades []Trade, p RangeParams) ([]Bar, error) {
	if err := p.validate(); err != nil {
		return dst, err
	}
	f := Folder{res: p.Resolution} // validated above; a value keeps it off the heap
	sec := int64(p.Resolution)
	e := emitter{dst: dst, base: len(dst), from: p.Resolution.Bucket(p.From), to: p.Resolution.Bucket(p.To), sec: sec, limit: p.Limit}
	if p.Seed != nil {
		if _, err := f.Add(*p.Seed); err != nil {
			return dst, fmt.Errorf("seed: %w", err)
		}
	}
	for i := range trades {
		t := &trades[i]
		if t.Time >= MinTime && t.Time <= MaxTime && p.Resolution.Bucket(t.Time) > e.to {
			break
		}
		s, err := f.Add(*t)
		if err != nil {
			return dst, fmt.Errorf("trade %d: %w", i, err)
		}
		if s.Closed {
			e.bar(s.Prev)
			e.quiet(s.Prev, s.Prev.Time+sec, s.Bar.Time-sec)
			if e.full() {
				return e.dst, nil
			}
		}
	}
	if cur, ok := f.Current(); ok {
		e.bar(cur)
		e.quiet(cur, cur.Time+sec, e.to)
	}
	return e.dst, nil
}

func (p RangeParams) validate() error {
	switch {
	case !p.Resolution.Valid():
		return fmt.Errorf("%w: %d seconds", ErrResolution, int64(p.Resolution))
	case p.From < MinTime || p.To > MaxTime:
		return fmt.Errorf("%w: window [%d, %d] outside [MinTime, MaxTime]", ErrInvalidRange, p.From, p.To)
	case p.From > p.To:
		return fmt.Errorf("%w: from %d after to %d", ErrInvalidRange, p.From, p.To)
	case p.Limit <= 0:
		return fmt.Errorf("%w: limit %d, want at least 1", ErrInvalidRange, p.Limit)
	}
	return nil
}

// emitter appends the bars of [from, to] (bucket starts), at most limit of them.
type emitter struct {
	dst           []Bar
	base          int
	from, to, sec int64
	limit         int
}

func (e *emitter) full() bool { return len(e.dst)-e.base >= e.limit }

func (e *emitter) grow() {
	if e.dst == nil {
		n := (e.to-e.from)/e.sec + 1
		if n > int64(e.limit) {
			n = int64(e.limit)
		}
		e.dst = make([]Bar, 0, n)
	}
}

func (e *emitter) bar(b Bar) {
	if b.Time < e.from || b.Time > e.to || e.full() {
		return
	}
	e.grow()
	e.dst = append(e.dst, b)
}

// quiet appends prev.Quiet at each bucket start in [first, last] that lies in the window.
func (e *emitter) quiet(prev Bar, first, last int64) {
	first = max(first, e.from)
	last = min(last, e.to)
	for t := first; t <= last && !e.full(); t += e.sec {
		e.grow()
		e.dst = append(e.dst, prev.Quiet(t))
	}
}
