package candles

import (
	"fmt"
	"math"
)

// Minute is what a store keeps of one minute of a series' trades: enough to fold the minute at
// any resolution as if its trades were folded one by one. Every resolution is a whole number of
// minutes, so the bars of any window follow from the window's minutes and the last minute before
// it (see Roller).
//
// Unlike a Bar, a Minute does not open at the previous close: Open is the price of its first
// trade, and High and Low span its trades only. The previous close is applied when the minute
// is folded (Folder.AddMinute).
//
// The same summary of a longer span of trades (an hour, a day; see Join and Coarsen) folds
// exactly as its trades do into any resolution the span divides: Folder.AddMinute and Roller
// take it as they take a minute. Stores keep such spans so that a coarse window reads one row
// per hour or day.
type Minute struct {
	// Time is the minute's start in Unix seconds, a multiple of 60 (of a longer span: the span's
	// start, a multiple of it).
	Time int64
	// Open, High, Low and Close are the first, highest, lowest and last price of the minute's
	// trades, bit for bit the trades' prices.
	Open, High, Low, Close float64
	// Volume sums the trades' volumes exactly.
	Volume Volume
	// Trades counts the trades; a stored minute has at least one.
	Trades int
	// Block and Index are the chain position of the minute's last trade: the key of its Close,
	// and what a store compares to skip trades it already folded.
	Block uint64
	Index uint32
}

// After reports whether the trade t comes after the minute's last trade in chain order.
func (m *Minute) After(t *Trade) bool {
	return t.Block > m.Block || (t.Block == m.Block && t.Index > m.Index)
}

// Add folds one trade into the minute. On an empty minute (Trades 0) the trade starts it; later
// trades must lie in the same minute and come after its last trade. On error m is unchanged.
func (m *Minute) Add(t Trade) error {
	p, err := checkTrade(&t)
	if err != nil {
		return err
	}
	start := Res1m.Bucket(t.Time)
	if m.Trades == 0 {
		*m = Minute{Time: start, Open: p, High: p, Low: p, Close: p, Volume: t.Volume, Trades: 1, Block: t.Block, Index: t.Index}
		return nil
	}
	if start != m.Time {
		return fmt.Errorf("%w: trade at %d is not in the minute starting %d", ErrOutOfOrder, t.Time, m.Time)
	}
	if !m.After(&t) {
		return fmt.Errorf("%w: block %d index %d is not after block %d index %d",
			ErrOutOfOrder, t.Block, t.Index, m.Block, m.Index)
	}
	v, ok := m.Volume.Add(t.Volume)
	if !ok {
		return fmt.Errorf("%w: minute %d", ErrOverflow, m.Time)
	}
	if p > m.High {
		m.High = p
	}
	if p < m.Low {
		m.Low = p
	}
	m.Close = p
	m.Volume = v
	m.Trades++
	m.Block, m.Index = t.Block, t.Index
	return nil
}

// AppendMinutes groups trades (in chain order, as Folder.Add requires) into their minutes and
// appends those to dst, oldest first. A trade in a minute older than the one before it is
// ErrOutOfOrder.
func AppendMinutes(dst []Minute, trades []Trade) ([]Minute, error) {
	base := len(dst)
	for i := range trades {
		t := &trades[i]
		n := len(dst)
		if n > base && t.Time >= MinTime && t.Time <= MaxTime && Res1m.Bucket(t.Time) == dst[n-1].Time {
			if err := dst[n-1].Add(*t); err != nil {
				return dst, fmt.Errorf("trade %d: %w", i, err)
			}
			continue
		}
		var m Minute
		if err := m.Add(*t); err != nil {
			return dst, fmt.Errorf("trade %d: %w", i, err)
		}
		if n > base && (m.Time < dst[n-1].Time || !dst[n-1].After(t)) {
			return dst, fmt.Errorf("trade %d: %w: block %d index %d at %d is not after block %d index %d at %d",
				i, ErrOutOfOrder, t.Block, t.Index, t.Time, dst[n-1].Block, dst[n-1].Index, dst[n-1].Time)
		}
		dst = append(dst, m)
	}
	return dst, nil
}

// Join folds n, the summary of later trades in the same span-second bucket, into m, which then
// summarizes the trades of both, bit for bit as if they were folded one by one: m keeps its
// Open, takes n's Close and last trade, the higher High and the lower Low, and sums the volumes
// and counts. On an empty m (Trades 0) m becomes n with Time the start of n's bucket. span must be
// a positive multiple of 60 (ErrResolution); n must lie in m's bucket and end after m's last
// trade (ErrOutOfOrder). On error m is unchanged.
func (m *Minute) Join(span Resolution, n Minute) error {
	if span <= 0 || span%Res1m != 0 {
		return fmt.Errorf("%w: span of %d seconds", ErrResolution, int64(span))
	}
	if err := n.check(); err != nil {
		return err
	}
	start := span.Bucket(n.Time)
	if m.Trades == 0 {
		*m = n
		m.Time = start
		return nil
	}
	if start != m.Time {
		return fmt.Errorf("%w: minute %d is not in the span starting %d", ErrOutOfOrder, n.Time, m.Time)
	}
	if n.Block < m.Block || (n.Block == m.Block && n.Index <= m.Index) {
		return fmt.Errorf("%w: minute %d ends at block %d index %d, not after block %d index %d",
			ErrOutOfOrder, n.Time, n.Block, n.Index, m.Block, m.Index)
	}
	v, ok := m.Volume.Add(n.Volume)
	if !ok {
		return fmt.Errorf("%w: span %d", ErrOverflow, m.Time)
	}
	if n.High > m.High {
		m.High = n.High
	}
	if n.Low < m.Low {
		m.Low = n.Low
	}
	m.Close = n.Close
	m.Volume = v
	m.Trades += n.Trades
	m.Block, m.Index = n.Block, n.Index
	return nil
}

// Coarsen groups summaries (in order, such as a series' minutes) into those of the span-second
// buckets they lie in, with Join, and appends them to dst, oldest first.
func Coarsen(dst []Minute, span Resolution, minutes []Minute) ([]Minute, error) {
	base := len(dst)
	for i := range minutes {
		n := len(dst)
		if n > base && minutes[i].Time >= MinTime && minutes[i].Time <= MaxTime && span > 0 && span.Bucket(minutes[i].Time) == dst[n-1].Time {
			if err := dst[n-1].Join(span, minutes[i]); err != nil {
				return dst, fmt.Errorf("minute %d: %w", minutes[i].Time, err)
			}
			continue
		}
		var m Minute
		if err := m.Join(span, minutes[i]); err != nil {
			return dst, fmt.Errorf("minute %d: %w", minutes[i].Time, err)
		}
		if n > base && (m.Time < dst[n-1].Time || m.Block < dst[n-1].Block || (m.Block == dst[n-1].Block && m.Index <= dst[n-1].Index)) {
			return dst, fmt.Errorf("minute %d: %w: not after the span starting %d", minutes[i].Time, ErrOutOfOrder, dst[n-1].Time)
		}
		dst = append(dst, m)
	}
	return dst, nil
}

// checkTrade returns the trade's price with -0 as +0, or ErrInvalidTrade.
func checkTrade(t *Trade) (float64, error) {
	p := t.Price
	if !(p >= 0 && p <= math.MaxFloat64) { // also false for NaN
		return 0, fmt.Errorf("%w: price %v at block %d index %d", ErrInvalidTrade, p, t.Block, t.Index)
	}
	if t.Time < MinTime || t.Time > MaxTime {
		return 0, fmt.Errorf("%w: time %d at block %d index %d", ErrInvalidTrade, t.Time, t.Block, t.Index)
	}
	return p + 0, nil // -0 becomes +0, so equal prices are equal bits
}

// check validates a minute before it is folded.
func (m *Minute) check() error {
	for _, p := range [...]float64{m.Open, m.High, m.Low, m.Close} {
		if !(p >= 0 && p <= math.MaxFloat64) {
			return fmt.Errorf("%w: minute %d has price %v", ErrInvalidTrade, m.Time, p)
		}
	}
	switch {
	case m.Time < MinTime || m.Time > MaxTime || Res1m.Bucket(m.Time) != m.Time:
		return fmt.Errorf("%w: minute start %d", ErrInvalidTrade, m.Time)
	case m.Trades < 1:
		return fmt.Errorf("%w: minute %d has %d trades", ErrInvalidTrade, m.Time, m.Trades)
	case !(m.Low <= m.Open && m.Open <= m.High && m.Low <= m.Close && m.Close <= m.High):
		return fmt.Errorf("%w: minute %d has open %v and close %v outside [%v, %v]", ErrInvalidTrade, m.Time, m.Open, m.Close, m.Low, m.High)
	}
	return nil
}

// AddMinute folds a whole minute, with the result of folding its trades one by one with Add: the
// minute's first trade opens the series when it is the first, a minute in a later bucket closes
// the current bar and opens one at the previous close (its high and low include that open), and
// a minute in the current bucket extends it. The minute's last trade must come after the last
// trade folded, and its bucket must not be older than the current bar's. On error the fold is
// unchanged.
func (f *Folder) AddMinute(m Minute) (Step, error) {
	if err := m.check(); err != nil {
		return Step{}, err
	}
	b := f.res.Bucket(m.Time)
	hi, lo, cl := m.High+0, m.Low+0, m.Close+0
	if !f.started {
		f.started = true
		f.block, f.index = m.Block, m.Index
		f.cur = Bar{Time: b, Open: m.Open + 0, High: hi, Low: lo, Close: cl, Volume: m.Volume, Trades: m.Trades}
		return Step{Bar: f.cur}, nil
	}
	if m.Block < f.block || (m.Block == f.block && m.Index <= f.index) {
		return Step{}, fmt.Errorf("%w: minute %d ends at block %d index %d, not after block %d index %d",
			ErrOutOfOrder, m.Time, m.Block, m.Index, f.block, f.index)
	}
	cur := &f.cur
	switch {
	case b == cur.Time:
		v, ok := cur.Volume.Add(m.Volume)
		if !ok {
			return Step{}, fmt.Errorf("%w: bar %d", ErrOverflow, b)
		}
		if hi > cur.High {
			cur.High = hi
		}
		if lo < cur.Low {
			cur.Low = lo
		}
		cur.Close = cl
		cur.Volume = v
		cur.Trades += m.Trades
		f.block, f.index = m.Block, m.Index
		return Step{Bar: *cur}, nil
	case b > cur.Time:
		s := Step{Closed: true, Prev: *cur, Gap: (b-cur.Time)/int64(f.res) - 1}
		open := cur.Close
		*cur = Bar{Time: b, Open: open, High: open, Low: open, Close: cl, Volume: m.Volume, Trades: m.Trades}
		if hi > open {
			cur.High = hi
		}
		if lo < open {
			cur.Low = lo
		}
		f.block, f.index = m.Block, m.Index
		s.Bar = *cur
		return s, nil
	}
	return Step{}, fmt.Errorf("%w: minute %d is in bucket %d, before the current bar %d",
		ErrOutOfOrder, m.Time, b, cur.Time)
}

// Roller computes the bars of a window from minutes, page by page: the same bars Range computes
// from the trades behind the minutes. Its memory is the bars it returns and the page it is
// given. Create one with NewRoller, call Add with the minutes in order (the last minute before
// the window first, when there is one), then Bars.
type Roller struct {
	f    Folder
	e    emitter
	done bool
}

// NewRoller starts the window p. p.Seed, when set, is folded first, as in Range.
func NewRoller(p RangeParams) (*Roller, error) {
	return newRoller(nil, p)
}

func newRoller(dst []Bar, p RangeParams) (*Roller, error) {
	if err := p.validate(); err != nil {
		return nil, err
	}
	r := &Roller{
		f: Folder{res: p.Resolution},
		e: emitter{dst: dst, base: len(dst), from: p.Resolution.Bucket(p.From), to: p.Resolution.Bucket(p.To), sec: int64(p.Resolution), limit: p.Limit},
	}
	if p.Seed != nil {
		if _, err := r.f.Add(*p.Seed); err != nil {
			return nil, fmt.Errorf("seed: %w", err)
		}
	}
	return r, nil
}

// Add folds a page of minutes. It reports false once the window is complete (a minute after
// its last bucket was seen, or the limit was reached): later minutes are not needed.
func (r *Roller) Add(minutes []Minute) (more bool, err error) {
	if r.done {
		return false, nil
	}
	sec := r.e.sec
	for i := range minutes {
		m := &minutes[i]
		if m.Time >= MinTime && m.Time <= MaxTime && r.f.res.Bucket(m.Time) > r.e.to {
			r.done = true
			return false, nil
		}
		s, err := r.f.AddMinute(*m)
		if err != nil {
			return true, fmt.Errorf("minute %d: %w", m.Time, err)
		}
		if s.Closed {
			r.e.bar(s.Prev)
			r.e.quiet(s.Prev, s.Prev.Time+sec, s.Bar.Time-sec)
			if r.e.full() {
				r.done = true
				return false, nil
			}
		}
	}
	return true, nil
}

// Bars ends the window and returns its bars: the current bar, then quiet bars up to the window's
// end. Call it once.
func (r *Roller) Bars() []Bar {
	if r.e.full() {
		return r.e.dst
	}
	if cur, ok := r.f.Current(); ok {
		r.e.bar(cur)
		r.e.quiet(cur, cur.Time+r.e.sec, r.e.to)
	}
	r.done = true
	return r.e.dst
}

// RangeMinutes is Range over minutes: the bars of the window p from the minutes of a series in
// order, equal to Range over the trades behind them. As with Range, the last minute before the
// window opens it at the previous close; pass it at the head of minutes.
func RangeMinutes(minutes []Minute, p RangeParams) ([]Bar, error) {
	r, err := newRoller(nil, p)
	if err != nil {
		return nil, err
	}
	if _, err := r.Add(minutes); err != nil {
		return nil, err
	}
	return r.Bars(), nil
}
