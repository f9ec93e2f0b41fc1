package orders

import (
	"cmp"
	"slices"

	"github.com/ethereum/go-ethereum/common"
	"github.com/holiman/uint256"

	"github.com/curvekit/curvekit"
)

// Index holds the open price orders by token, sorted by trigger, so that a price costs a look at
// the head of each list: limit buys and stop-losses fire when the price falls to their trigger
// (kept highest first), limit sells and take-profits when it rises to theirs (lowest first).
// Trailing stops are kept in groups that share their highest price, each sorted by trail: a new
// high merges every group below it into one, and a group fires from its tightest trail. An Index
// is not safe for concurrent use.
type Index struct {
	books map[common.Address]*book
	// where finds an order's book and list for Remove.
	where map[string]common.Address
}

// Hit is an order a price fired: its id and the price that fired it.
type Hit struct {
	OrderID string
	Price   uint256.Int
}

type entry struct {
	id      string
	trigger uint256.Int
	seq     uint64 // placement order: equal triggers fire oldest first
}

type trailing struct {
	id   string
	bps  uint32
	seq  uint64
	high uint256.Int // the order's own high when it joined; the group's governs
}

type group struct {
	high    uint256.Int
	members []trailing // by trail, tightest first
}

type book struct {
	below []entry // fire at price <= trigger; highest trigger first
	above []entry // fire at price >= trigger; lowest trigger first
	trail []*group
	// last is the latest price seen, for trailing stops placed after it.
	last uint256.Int
}

// NewIndex returns an empty index.
func NewIndex() *Index {
	return &Index{books: map[common.Address]*book{}, where: map[string]common.Address{}}
}

// Len is how many orders the index holds.
func (x *Index) Len() int { return len(x.where) }

func (x *Index) book(token common.Address) *book {
	b := x.books[token]
	if b == nil {
		b = &book{}
		x.books[token] = b
	}
	return b
}

// Add indexes an open price order; other orders are ignored. seq orders ties (the order's
// creation, oldest first); a trailing stop without a high starts from the latest price seen.
func (x *Index) Add(o *Order, seq uint64) {
	if o.Kind.Timed() || o.State != Open {
		return
	}
	if _, ok := x.where[o.ID]; ok {
		x.Remove(o.ID)
	}
	b := x.book(o.Token)
	x.where[o.ID] = o.Token
	e := entry{id: o.ID, trigger: o.Price, seq: seq}
	switch {
	case o.Kind == TrailingStop:
		high := o.High
		if high.IsZero() {
			high = b.last
		}
		b.addTrailing(trailing{id: o.ID, bps: o.TrailBps, seq: seq, high: high})
	case o.Kind == StopLoss, o.Kind == Limit && o.Side == curvekit.Buy:
		i, _ := slices.BinarySearchFunc(b.below, e, func(a, t entry) int {
			if c := t.trigger.Cmp(&a.trigger); c != 0 {
				return c
			}
			return cmp.Compare(a.seq, t.seq)
		})
		b.below = slices.Insert(b.below, i, e)
	default:
		i, _ := slices.BinarySearchFunc(b.above, e, func(a, t entry) int {
			if c := a.trigger.Cmp(&t.trigger); c != 0 {
				return c
			}
			return cmp.Compare(a.seq, t.seq)
		})
		b.above = slices.Insert(b.above, i, e)
	}
}

func (b *book) addTrailing(t trailing) {
	i, found := slices.BinarySearchFunc(b.trail, &t.high, func(g *group, h *uint256.Int) int { return g.high.Cmp(h) })
	if !found {
		b.trail = slices.Insert(b.trail, i, &group{high: t.high})
	}
	g := b.trail[i]
	j, _ := slices.BinarySearchFunc(g.members, t, byTrail)
	g.members = slices.Insert(g.members, j, t)
}

func byTrail(a, b trailing) int {
	if c := cmp.Compare(a.bps, b.bps); c != 0 {
		return c
	}
	return cmp.Compare(a.seq, b.seq)
}

// Remove drops an order (cancelled, expired, or fired elsewhere); unknown ids are ignored.
func (x *Index) Remove(id string) {
	token, ok := x.where[id]
	if !ok {
		return
	}
	delete(x.where, id)
	b := x.books[token]
	match := func(e entry) bool { return e.id == id }
	b.below = slices.DeleteFunc(b.below, match)
	b.above = slices.DeleteFunc(b.above, match)
	for i, g := range b.trail {
		if k := slices.IndexFunc(g.members, func(t trailing) bool { return t.id == id }); k >= 0 {
			g.members = slices.Delete(g.members, k, k+1)
			if len(g.members) == 0 {
				b.trail = slices.Delete(b.trail, i, i+1)
			}
			break
		}
	}
}

// Price takes the price after one trade of token, in chain order, and returns the orders it
// fires, removed from the index, in the order they fire: those whose trigger the price reached
// (crossing it counts), oldest first at equal triggers. A trailing stop's high rises with the
// price first, then it fires when the price is at or below its high less its trail; raised
// lists the trailing stops whose high this price raised (to be stored). append-style: hits and
// raised are appended to.
func (x *Index) Price(token common.Address, price *uint256.Int, hits []Hit, raised []string) ([]Hit, []string) {
	b := x.books[token]
	if b == nil {
		x.book(token).last = *price
		return hits, raised
	}
	b.last = *price
	n := 0
	for n < len(b.below) && price.Cmp(&b.below[n].trigger) <= 0 {
		hits = append(hits, Hit{OrderID: b.below[n].id, Price: *price})
		delete(x.where, b.below[n].id)
		n++
	}
	b.below = b.below[n:]
	n = 0
	for n < len(b.above) && price.Cmp(&b.above[n].trigger) >= 0 {
		hits = append(hits, Hit{OrderID: b.above[n].id, Price: *price})
		delete(x.where, b.above[n].id)
		n++
	}
	b.above = b.above[n:]
	if len(b.trail) == 0 {
		return hits, raised
	}
	// Every group below the price rises to it, as one group.
	n = 0
	for n < len(b.trail) && b.trail[n].high.Cmp(price) < 0 {
		n++
	}
	if n > 0 {
		merged := b.trail[0]
		for _, g := range b.trail[1:n] {
			merged.members = append(merged.members, g.members...)
		}
		if n > 1 {
			slices.SortFunc(merged.members, byTrail)
		}
		merged.high = *price
		for _, t := range merged.members {
			raised = append(raised, t.id)
		}
		b.trail = append(b.trail[:1:1], b.trail[n:]...)
		b.trail[0] = merged
	}
	// Each group fires its tightest trails whose stop the price reached.
	kept := b.trail[:0]
	for _, g := range b.trail {
		k := 0
		for k < len(g.members) {
			stop := Stop(&g.high, g.members[k].bps)
			if price.Cmp(&stop) > 0 {
				break
			}
			hits = append(hits, Hit{OrderID: g.members[k].id, Price: *price})
			delete(x.where, g.members[k].id)
			k++
		}
		g.members = g.members[k:]
		if len(g.members) > 0 {
			kept = append(kept, g)
		}
	}
	b.trail = kept
	return hits, raised
}

// High is the highest price a trailing stop in the index has seen; false when it is not there.
func (x *Index) High(id string) (uint256.Int, bool) {
	token, ok := x.where[id]
	if !ok {
		return uint256.Int{}, false
	}
	for _, g := range x.books[token].trail {
		if slices.ContainsFunc(g.members, func(t trailing) bool { return t.id == id }) {
			return g.high, true
		}
	}
	return uint256.Int{}, false
}

// Stop is a trailing stop's trigger: high less trailBps basis points, rounded down.
func Stop(high *uint256.Int, trailBps uint32) uint256.Int {
	var s uint256.Int
	if _, over := s.MulOverflow(high, uint256.NewInt(uint64(10_000-trailBps))); over {
		var q uint256.Int
		q.Div(high, uint256.NewInt(10_000))
		s.Mul(&q, uint256.NewInt(uint64(10_000-trailBps)))
		return s
	}
	return *s.Div(&s, uint256.NewInt(10_000))
}

// SpotPrice is the price after a trade, scaled like Order.Price: reserveQuote per whole token
// (10^decimals base units) times the price scale, rounded down; zero when the token reserve is
// empty, the largest value when it overflows.
func SpotPrice(reserveQuote, reserveToken *uint256.Int, decimals uint8) uint256.Int {
	var p uint256.Int
	if reserveToken.IsZero() {
		return p
	}
	scale := curvekit.Pow10(decimals + priceDecimals)
	if _, over := p.MulOverflow(reserveQuote, scale); over {
		return *p.SetAllOne()
	}
	return *p.Div(&p, reserveToken)
}
