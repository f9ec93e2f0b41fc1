package stream

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/curvekit/curvekit/candles"
	"github.com/curvekit/curvekit/market"
)

// client follows the token stream protocol of the package documentation and checks what it is
// sent: bars never go back in time between two resets, and no trade arrives twice.
type client struct {
	t    *testing.T
	name string
	req  TokenRequest

	bars   map[int64]candles.Bar
	tape   []Pos
	lastID string
	// start is the first bucket of the series the client holds, base the position after which
	// its trade list is complete (set by connect and full resets).
	start   int64
	base    Pos
	resets  map[string]int
	cuts    int
	conn    *Conn
	pending Pos // the conn's position after the events being applied
	sent    Pos // the position of the Last-Event-ID the connection was opened with
	newest  int64
	ordered bool // newest is set: a bar arrived since the last reset
}

func newClient(t *testing.T, name string, req TokenRequest) *client {
	return &client{t: t, name: name, req: req, bars: map[int64]candles.Bar{}, resets: map[string]int{}}
}

// apply handles one dispatched event.
func (cl *client) apply(e Event) {
	t := cl.t
	switch e.Name {
	case EventReset:
		r := decode[Reset](t, e.Data)
		cl.resets[r.Reason]++
		switch {
		case r.Full:
			clear(cl.bars)
			cl.tape = cl.tape[:0]
			cl.start, cl.base = r.From, cl.pending
			if r.Reason == ReasonResume {
				cl.base = cl.sent // the trades after the id follow the bars
			}
		default:
			for ts := range cl.bars {
				if ts >= r.From {
					delete(cl.bars, ts)
				}
			}
		}
		cl.ordered = false
	case EventBar:
		b := decode[candles.Bar](t, e.Data)
		if cl.ordered && b.Time < cl.newest {
			t.Fatalf("%s: bar %d after bar %d", cl.name, b.Time, cl.newest)
		}
		cl.bars[b.Time] = b
		cl.newest, cl.ordered = b.Time, true
	case EventTrade:
		w := decode[tradeWire](t, e.Data)
		p := Pos{Block: w.Block, Log: w.Log}
		if n := len(cl.tape); n > 0 && !cl.tape[n-1].Less(p) {
			t.Fatalf("%s: trade %v after %v", cl.name, p, cl.tape[n-1])
		}
		cl.tape = append(cl.tape, p)
	default:
		t.Fatalf("%s: unexpected event %q", cl.name, e.Name)
	}
	switch {
	case e.ID != "":
		cl.lastID = e.ID
	case e.ClearID:
		cl.lastID = ""
	}
}

// connect opens a connection with the client's last id and returns its opening events.
func (cl *client) connect(s *Service) []Event {
	cl.t.Helper()
	req := cl.req
	req.LastEventID = cl.lastID
	if id, err := ParseID(cl.lastID); err == nil {
		cl.sent = id.Pos
	}
	c, err := s.Token(context.Background(), req)
	if err != nil {
		cl.t.Fatalf("%s: connect: %v", cl.name, err)
	}
	cl.conn = c
	cl.pending = c.pos
	return c.first
}

// feed applies evs, or only a random prefix of them when the connection is cut, and reports
// whether the connection survived.
func (cl *client) feed(evs []Event, rng *rand.Rand, cutP float64) bool {
	n := len(evs)
	cut := rng.Float64() < cutP
	if cut {
		n = rng.IntN(len(evs) + 1)
	}
	for _, e := range evs[:n] {
		cl.apply(e)
	}
	if cut {
		cl.conn.Close()
		cl.conn = nil
		cl.cuts++
	}
	return !cut
}

// drain handles every message waiting on the connection.
func (cl *client) drain(rng *rand.Rand, cutP float64) {
	for cl.conn != nil {
		m, ok := poll(cl.conn.sub)
		if !ok {
			if err := cl.conn.sub.Err(); err != nil {
				cl.t.Fatalf("%s: subscription ended: %v", cl.name, err)
			}
			return
		}
		evs, err := cl.conn.handle(context.Background(), nil, m)
		if err != nil {
			cl.t.Fatalf("%s: %v", cl.name, err)
		}
		cl.pending = cl.conn.pos
		if len(evs) > 0 && !cl.feed(evs, rng, cutP) {
			return
		}
	}
}

// check compares the client with the REST computation: its bars with Candles over the series it
// holds, its trade list with the store's trades after its base.
func (cl *client) check(svc *market.Service, store *memStore) {
	t := cl.t
	t.Helper()
	if cl.lastID == "" {
		if len(cl.bars) != 0 {
			t.Fatalf("%s: bars without an id", cl.name)
		}
		return
	}
	id, err := ParseID(cl.lastID)
	if err != nil {
		t.Fatal(err)
	}
	res := cl.req.Resolution
	var want []candles.Bar
	for from := cl.start; from <= res.Bucket(id.Time); {
		s, err := svc.Candles(context.Background(), market.CandleQuery{
			Token: cl.req.Token, Resolution: res, From: from, To: min(id.Time, from+(market.MaxBars-1)*res.Seconds()),
		})
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, s.Bars...)
		from = s.To + res.Seconds()
	}
	got := make([]candles.Bar, 0, len(cl.bars))
	for _, b := range cl.bars {
		got = append(got, b)
	}
	slices.SortFunc(got, func(a, b candles.Bar) int { return int(a.Time - b.Time) })
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("%s (start %d, id %s): bars differ from Candles (-want +got):\n%s", cl.name, cl.start, cl.lastID, diff)
	}
	var tape []Pos
	for _, tr := range store.all(cl.req.Token) {
		if p := PosOf(&tr); cl.base.Less(p) && !id.Pos.Less(p) {
			tape = append(tape, p)
		}
	}
	if diff := cmp.Diff(tape, cl.tape, cmpopts.EquateEmpty()); diff != "" {
		t.Fatalf("%s (base %v, id %s): trades differ from the store (-want +got):\n%s", cl.name, cl.base, cl.lastID, diff)
	}
}

// A chain of trades over three tokens, with quiet stretches (one longer than a live message's
// quiet bars) and reorganizations, is followed by clients at every resolution, with and without
// from, with default (full) and partial resumes, that are cut at random points (mid-replay and mid-message included) and resume with their
// Last-Event-ID. Each ends with exactly the bars Candles computes over the series it holds and the
// store's trades after its base: no gap, no duplicate, no bar older than the last between resets.
func TestResumeMatchesCandles(t *testing.T) {
	t.Parallel()
	for seed := range uint64(6) {
		reorgs := seed%2 == 0
		t.Run(fmt.Sprintf("seed=%d,reorgs=%v", seed, reorgs), func(t *testing.T) {
			t.Parallel()
			resumeScenario(t, seed, reorgs)
		})
	}
}

func resumeScenario(t *testing.T, seed uint64, withReorgs bool) {
	rng := rand.New(rand.NewPCG(seed, 42))
	e := newEnv(t, 1<<16)
	ch := newChain(1_800_000_000)
	toks := map[common.Address]*market.Token{}
	var addrs []common.Address
	launch := &market.Batch{Cursor: market.Cursor{Block: ch.block}}
	for i := range 3 {
		tk := newToken(i)
		toks[tk.Address] = &tk
		addrs = append(addrs, tk.Address)
		launch.Launches = append(launch.Launches, tk)
	}
	e.store.commit(launch)

	// The first trades land before any client connects, so the feed seeds from the store later.
	var clients []*client
	for i, res := range candles.Resolutions() {
		for _, withFrom := range []bool{false, true} {
			for _, partial := range []bool{false, true} {
				req := TokenRequest{Token: addrs[i%3], Resolution: res, Partial: partial}
				if withFrom {
					req.From = ch.time + int64(rng.IntN(3600))
				}
				clients = append(clients, newClient(t, fmt.Sprintf("%s from=%d partial=%v", res, req.From, partial), req))
			}
		}
	}
	price := map[common.Address]uint64{}
	for _, a := range addrs {
		price[a] = 1000
	}
	step := func() {
		ch.next(gap(rng))
		var trades []market.Trade
		for range rng.IntN(4) {
			a := addrs[rng.IntN(len(addrs))]
			p := price[a]
			p = max(1, p+uint64(rng.IntN(201))-100)
			price[a] = p
			trades = append(trades, ch.trade(toks[a], p, uint64(1+rng.IntN(5000))))
		}
		if len(trades) > 0 {
			e.apply(batchOf(ch, toks, trades...))
		}
	}
	for range 20 {
		step()
	}
	reorgs := 0
	for i := range 400 {
		if withReorgs && i%97 == 50 {
			// A reorganization replaces the last blocks: their trades go, the new chain's come.
			to := ch.block - uint64(1+rng.IntN(3))
			touched := e.store.rollback(to)
			e.feed.Apply(market.Sync{Reorged: touched, Cursor: market.Cursor{Block: to}})
			ch.rewind(to)
			reorgs++
		}
		step()
		for _, cl := range clients {
			if cl.conn == nil {
				if rng.IntN(3) == 0 {
					continue // stays away a while
				}
				if !cl.feed(cl.connect(e.s), rng, 0.2) {
					continue
				}
			}
			cl.drain(rng, 0.1)
		}
	}
	for _, cl := range clients {
		if cl.conn == nil {
			cl.feed(cl.connect(e.s), rng, 0)
		}
		cl.drain(rng, 0)
		cl.check(e.svc, e.store)
		cl.conn.Close()
		if !withReorgs && cl.resets[ReasonUnknownID]+cl.resets[ReasonFeed]+cl.resets[ReasonReorg] > 0 {
			t.Errorf("%s: resets %v on a chain that never reorganized", cl.name, cl.resets)
		}
		t.Logf("%-22s cuts %3d resets %v", cl.name, cl.cuts, cl.resets)
	}
}

// gap is the time between blocks: mostly seconds, sometimes quiet minutes or hours, rarely a
// quiet stretch longer than MaxQuiet one-minute buckets.
func gap(rng *rand.Rand) int64 {
	switch r := rng.IntN(200); {
	case r == 0:
		return 17 * 3600
	case r < 10:
		return int64(600 + rng.IntN(3*3600))
	case r < 60:
		return int64(30 + rng.IntN(300))
	}
	return int64(1 + rng.IntN(20))
}
