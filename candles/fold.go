package candles

import (
	"fmt"
	"math"
)

// Trade is one swap as the fold sees it.
type Trade struct {
	// Time is the block timestamp in Unix seconds.
	Time int64
	// Block and Index (the log index within the block) order trades; they must strictly increase.
	// A source without blocks can number its trades in Block.
	Block uint64
	Index uint32
	// Price is a display value (see the package doc): finite and not negative. The unit is the
	// caller's choice and is carried through unchanged; curvekit uses whole pairing asset per
	// whole token.
	Price float64
	// Volume is the pairing-asset notional of the trade in base units.
	Volume Volume
}

// Bar is the OHLCV of one bucket.
type Bar struct {
	// Time is the bucket start in Unix seconds.
	Time                   int64
	Open, High, Low, Close float64
	// Volume sums the trades' pairing-asset notional, exactly, in base units.
	Volume Volume
	// Trades counts the trades folded into the bar; zero for a quiet bucket.
	Trades int
}

// Quiet returns the quiet bar that follows b at bucket start t: flat at b.Close, no volume.
func (b Bar) Quiet(t int64) Bar {
	return Bar{Time: t, Open: b.Close, High: b.Close, Low: b.Close, Close: b.Close}
}

// Step is what one Add or Advance did to the series.
type Step struct {
	// Bar is the current bar afterwards: the bucket of the trade (or of the Advance time).
	Bar Bar
	// Closed reports that Bar is a new bucket. Prev is then the final state of the bar before it,
	// and Gap counts the quiet buckets between the two (Prev.Quiet at each start in between).
	Closed bool
	Prev   Bar
	Gap    int64
}

// Folder folds trades into the series of one resolution, one trade at a time. The zero value is
// not usable; create one with NewFolder. A Folder is not safe for concurrent use.
type Folder struct {
	res     Resolution
	cur     Bar
	started bool
	block   uint64 // key of the last trade folded
	index   uint32
}

// NewFolder returns an empty fold at resolution res.
func NewFolder(res Resolution) (*Folder, error) {
	if !res.Valid() {
		return nil, fmt.Errorf("%w: %d seconds", ErrResolution, int64(res))
	}
	return &Folder{res: res}, nil
}

// Resolution returns the fold's resolution.
func (f *Folder) Resolution() Resolution { return f.res }

// Current returns the current bar, and false before the first trade.
func (f *Folder) Current() (Bar, bool) { return f.cur, f.started }

// Add folds one trade. A trade in the current bucket updates the current bar in place; a trade in a
// later bucket closes it and opens a bar at the previous close. The first trade opens the series at
// its own price. On error the fold is unchanged.
//
// Fold the last trade before a window first to make the window open at the right price: it is the
// seed, and bars before the window are simply not read.
func (f *Folder) Add(t Trade) (Step, error) {
	p := t.Price
	if !(p >= 0 && p <= math.MaxFloat64) { // also false for NaN
		return Step{}, fmt.Errorf("%w: price %v at block %d index %d", ErrInvalidTrade, p, t.Block, t.Index)
	}
	if t.Time < MinTime || t.Time > MaxTime {
		return Step{}, fmt.Errorf("%w: time %d at block %d index %d", ErrInvalidTrade, t.Time, t.Block, t.Index)
	}
	p += 0 // -0 becomes +0, so equal prices are equal bits
	b := f.res.Bucket(t.Time)
	if !f.started {
		f.started = true
		f.block, f.index = t.Block, t.Index
		f.cur = Bar{Time: b, Open: p, High: p, Low: p, Close: p, Volume: t.Volume, Trades: 1}
		return Step{Bar: f.cur}, nil
	}
	if t.Block < f.block || (t.Block == f.block && t.Index <= f.index) {
		return Step{}, fmt.Errorf("%w: block %d index %d is not after block %d index %d",
			ErrOutOfOrder, t.Block, t.Index, f.block, f.index)
	}
	cur := &f.cur
	switch {
	case b == cur.Time:
		v, ok := cur.Volume.Add(t.Volume)
		if !ok {
			return Step{}, fmt.Errorf("%w: bar %d", ErrOverflow, b)
		}
		if p > cur.High {
			cur.High = p
		}
		if p < cur.Low {
			cur.Low = p
		}
		cur.Close = p
		cur.Volume = v
		cur.Trades++
		f.block, f.index = t.Block, t.Index
		return Step{Bar: *cur}, nil
	case b > cur.Time:
		s := Step{Closed: true, Prev: *cur, Gap: (b-cur.Time)/int64(f.res) - 1}
		open := cur.Close
		*cur = Bar{Time: b, Open: open, High: open, Low: open, Close: p, Volume: t.Volume, Trades: 1}
		if p > open {
			cur.High = p
		} else {
			cur.Low = p
		}
		f.block, f.index = t.Block, t.Index
		s.Bar = *cur
		return s, nil
	}
	return Step{}, fmt.Errorf("%w: trade at %d is in bucket %d, before the current bar %d",
		ErrOutOfOrder, t.Time, b, cur.Time)
}

// Advance moves the fold to the bucket that holds ts without a trade: when that bucket is later than
// the current bar, the bar closes and a quiet bar at its close becomes current, exactly as Range
// flat-fills up to a window's end. It lets a live stream roll a quiet token over on a timer.
// Before the first trade there is no series and Advance returns the zero Step. A ts in a bucket
// older than the current bar is ErrOutOfOrder.
func (f *Folder) Advance(ts int64) (Step, error) {
	if ts < MinTime || ts > MaxTime {
		return Step{}, fmt.Errorf("%w: advance to %d", ErrInvalidRange, ts)
	}
	if !f.started {
		return Step{}, nil
	}
	b := f.res.Bucket(ts)
	switch {
	case b == f.cur.Time:
		return Step{Bar: f.cur}, nil
	case b < f.cur.Time:
		return Step{}, fmt.Errorf("%w: advance to bucket %d, before the current bar %d", ErrOutOfOrder, b, f.cur.Time)
	}
	s := Step{Closed: true, Prev: f.cur, Gap: (b-f.cur.Time)/int64(f.res) - 1}
	f.cur = f.cur.Quiet(b)
	s.Bar = f.cur
	return s, nil
}
