package stream

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/curvekit/curvekit"
	"github.com/curvekit/curvekit/candles"
	"github.com/curvekit/curvekit/market"
)

// world is an env with one launched token and a few trades over two hours.
type world struct {
	*env
	ch  *chain
	tok *market.Token
	all map[common.Address]*market.Token
}

func newWorld(t *testing.T, trades int) *world {
	t.Helper()
	w := &world{env: newEnv(t, 100), ch: newChain(1_800_000_000)}
	tk := newToken(1)
	w.tok = &tk
	w.all = map[common.Address]*market.Token{tk.Address: w.tok}
	w.store.commit(&market.Batch{Launches: []market.Token{tk}})
	for i := range trades {
		w.trade(int64(60 + i*377))
	}
	return w
}

// trade lands one trade dt seconds after the previous block.
func (w *world) trade(dt int64) market.Trade {
	w.ch.next(dt)
	tr := w.ch.trade(w.tok, 1000+uint64(w.ch.block%7)*10, 250)
	w.apply(batchOf(w.ch, w.all, tr))
	return tr
}

func (w *world) open(t *testing.T, req TokenRequest) *Conn {
	t.Helper()
	if req.Token == (common.Address{}) {
		req.Token = w.tok.Address
	}
	c, err := w.s.Token(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

func resetOf(t *testing.T, evs []Event) Reset {
	t.Helper()
	if len(evs) == 0 || evs[0].Name != EventReset {
		t.Fatalf("first event %v, want a reset", evs)
	}
	return decode[Reset](t, evs[0].Data)
}

func barsOf(t *testing.T, evs []Event) []candles.Bar {
	t.Helper()
	var out []candles.Bar
	for _, e := range evs {
		if e.Name == EventBar {
			out = append(out, decode[candles.Bar](t, e.Data))
		}
	}
	return out
}

func (w *world) candles(t *testing.T, res candles.Resolution, from, to int64) []candles.Bar {
	t.Helper()
	s, err := w.svc.Candles(context.Background(), market.CandleQuery{Token: w.tok.Address, Resolution: res, From: from, To: to})
	if err != nil {
		t.Fatal(err)
	}
	return s.Bars
}

func TestConnectReplaysTheCurrentBucketOrFrom(t *testing.T) {
	t.Parallel()
	w := newWorld(t, 12)
	last := w.ch.time
	c := w.open(t, TokenRequest{Resolution: candles.Res5m})
	r := resetOf(t, c.first)
	if r.Reason != ReasonConnect || !r.Full || r.From != candles.Res5m.Bucket(last) || r.Resolution != candles.Res5m || !c.first[0].ClearID {
		t.Fatalf("reset %+v", r)
	}
	if got, want := barsOf(t, c.first), w.candles(t, candles.Res5m, last, last); len(got) != 1 || got[0] != want[0] {
		t.Fatalf("replay %v, want %v", got, want)
	}
	// The last event carries the replay's id: the newest trade and how far the bars reach.
	id, err := ParseID(c.first[len(c.first)-1].ID)
	if err != nil || id.Block != w.ch.block || id.Time != last {
		t.Fatalf("replay id %v (%v)", id, err)
	}
	for _, e := range c.first[:len(c.first)-1] {
		if e.ID != "" {
			t.Fatalf("replay event %s carries id %s before the last one", e.Name, e.ID)
		}
	}

	from := last - 3600
	c = w.open(t, TokenRequest{Resolution: candles.Res15m, From: from})
	if r := resetOf(t, c.first); r.From != candles.Res15m.Bucket(from) || !r.Full {
		t.Fatalf("reset %+v", r)
	}
	if got, want := barsOf(t, c.first), w.candles(t, candles.Res15m, from, last); len(got) != len(want) || got[0] != want[0] || got[len(got)-1] != want[len(want)-1] {
		t.Fatalf("replay %v, want %v", got, want)
	}
	// An invalid resolution is the default.
	c = w.open(t, TokenRequest{Resolution: 7})
	if r := resetOf(t, c.first); r.Resolution != candles.DefaultResolution {
		t.Fatalf("reset %+v", r)
	}
}

// A Last-Event-ID the store cannot vouch for is answered with a full reset and the whole window,
// never with silence and never with an error: malformed, unknown, from a replaced block, with a
// time after the present (huge, a second ahead, or a real trade's id moved 30 days ahead) or
// before its trade.
func TestBadLastEventIDRebuildsFully(t *testing.T) {
	t.Parallel()
	w := newWorld(t, 30)
	last := w.ch.time
	c := w.open(t, TokenRequest{Resolution: candles.Res1m})
	good := c.first[len(c.first)-1].ID
	gid, _ := ParseID(good)
	stale := gid
	stale.Tag++ // the same position in a block the chain replaced
	missing := gid
	missing.Log++ // no trade there
	ahead := gid
	ahead.Time += 30 * 24 * 3600
	early := gid
	early.Time-- // claims bars that stop before its own trade
	huge := gid
	huge.Time = 1<<63 - 1
	next := gid
	next.Time = last + 1

	window := w.candles(t, candles.Res1m, 0, last) // the latest MaxBars buckets
	for _, partial := range []bool{false, true} {
		for _, tc := range []struct {
			id, reason string
		}{
			{"garbage", ReasonUnknownID},
			{"1-2-3", ReasonUnknownID},
			{stale.String(), ReasonUnknownID},
			{missing.String(), ReasonUnknownID},
			{ahead.String(), ReasonUnknownID},
			{early.String(), ReasonUnknownID},
			{huge.String(), ReasonUnknownID},
			{next.String(), ReasonUnknownID},
			{ID{Pos: Pos{Block: 1}, Time: last, Tag: 1}.String(), ReasonUnknownID}, // before the token's trades
		} {
			c := w.open(t, TokenRequest{Resolution: candles.Res1m, LastEventID: tc.id, Partial: partial})
			r := resetOf(t, c.first)
			if r.Reason != tc.reason || !r.Full || !c.first[0].ClearID {
				t.Fatalf("id %q (partial %v): reset %+v", tc.id, partial, r)
			}
			got := barsOf(t, c.first)
			if len(got) != len(window) || got[0] != window[0] || got[len(got)-1] != window[len(window)-1] {
				t.Fatalf("id %q: %d bars, want the window's %d", tc.id, len(got), len(window))
			}
			for _, e := range c.first {
				if e.Name == EventTrade {
					t.Fatalf("id %q: a full rebuild replayed trade %s", tc.id, e.Data)
				}
			}
			if id, err := ParseID(c.first[len(c.first)-1].ID); err != nil || id.Time > last {
				t.Fatalf("id %q: replay id %v (%v) after the present %d", tc.id, id, err, last)
			}
		}
	}
	// A partial resume further back than a window is too old; a default one rebuilds the window
	// anyway and is not.
	old := ID{Pos: Pos{Block: 1}, Time: 1, Tag: 1}.String()
	c = w.open(t, TokenRequest{Resolution: candles.Res1m, LastEventID: old, Partial: true})
	if r := resetOf(t, c.first); r.Reason != ReasonTooOld || !r.Full {
		t.Fatalf("reset %+v", r)
	}
	// With from, the full rebuild is the window from there.
	c = w.open(t, TokenRequest{Resolution: candles.Res1m, From: last - 1800, LastEventID: "nope"})
	if r := resetOf(t, c.first); !r.Full || r.From != candles.Res1m.Bucket(last-1800) {
		t.Fatalf("reset %+v", r)
	}

	// The good id resumes. By default: a full reset that keeps the client's id, and the whole
	// window; no trades (none since).
	c = w.open(t, TokenRequest{Resolution: candles.Res1m, LastEventID: good})
	if r := resetOf(t, c.first); r.Reason != ReasonResume || !r.Full || c.first[0].ClearID || c.first[0].ID != "" {
		t.Fatalf("reset %+v", r)
	}
	if got := barsOf(t, c.first); len(got) != len(window) || got[0] != window[0] {
		t.Fatalf("default resume: %d bars, want the window's %d", len(got), len(window))
	}
	c = w.open(t, TokenRequest{Resolution: candles.Res1m, From: last - 1800, LastEventID: good})
	if r := resetOf(t, c.first); r.Reason != ReasonResume || !r.Full || r.From != candles.Res1m.Bucket(last-1800) {
		t.Fatalf("reset %+v", r)
	}
	// Partial, on request: the resumed bucket only.
	c = w.open(t, TokenRequest{Resolution: candles.Res1m, LastEventID: good, Partial: true})
	if r := resetOf(t, c.first); r.Reason != ReasonResume || r.Full || r.From != candles.Res1m.Bucket(gid.Time) || c.first[0].ClearID {
		t.Fatalf("reset %+v", r)
	}
	if got := barsOf(t, c.first); len(got) != 1 {
		t.Fatalf("partial resume: %d bars", len(got))
	}
}

func TestResumeReplaysMissedTrades(t *testing.T) {
	t.Parallel()
	w := newWorld(t, 3)
	c := w.open(t, TokenRequest{Resolution: candles.Res1h})
	id := c.first[len(c.first)-1].ID
	c.Close()
	var missed []market.Trade
	for range 5 {
		missed = append(missed, w.trade(40))
	}
	c = w.open(t, TokenRequest{Resolution: candles.Res1h, LastEventID: id})
	var got []tradeWire
	for _, e := range c.first {
		if e.Name == EventTrade {
			got = append(got, decode[tradeWire](t, e.Data))
		}
	}
	if len(got) != len(missed) {
		t.Fatalf("replayed %d trades, missed %d", len(got), len(missed))
	}
	for i, tr := range missed {
		if got[i].Block != tr.Block || got[i].Log != tr.LogIndex {
			t.Fatalf("trade %d: %+v, want block %d log %d", i, got[i], tr.Block, tr.LogIndex)
		}
	}
	lastID, _ := ParseID(c.first[len(c.first)-1].ID)
	if lastID.Pos != PosOf(&missed[4]) {
		t.Fatalf("replay ends at %v", lastID)
	}

	// More missed trades than a resume replays: a full rebuild.
	w.s.cfg.MaxResumeTrades = 3
	c = w.open(t, TokenRequest{Resolution: candles.Res1h, LastEventID: id})
	if r := resetOf(t, c.first); r.Reason != ReasonTooOld || !r.Full {
		t.Fatalf("reset %+v", r)
	}
}

func TestLiveEventsFollowTheReplay(t *testing.T) {
	t.Parallel()
	w := newWorld(t, 3)
	c := w.open(t, TokenRequest{Resolution: candles.Res1m})
	rec := newRecorder()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- c.Run(ctx, rec) }()
	<-rec.ch
	tr := w.trade(185) // three quiet minutes, then a trade
	<-rec.ch
	evs, _ := rec.snapshot()
	var names []string
	var bars []candles.Bar
	opening := 0
	for i, e := range evs {
		if e.Name == EventReset {
			opening = i
		}
	}
	for _, e := range evs[opening+1:] {
		names = append(names, e.Name)
		if e.Name == EventBar {
			bars = append(bars, decode[candles.Bar](t, e.Data))
		}
	}
	// The replay's bar, then the quiet minutes (flat), the trade and its bar.
	if n := len(names); n < 3 || names[n-2] != EventTrade || names[n-1] != EventBar {
		t.Fatalf("events %v", names)
	}
	want := w.candles(t, candles.Res1m, bars[0].Time, tr.Time)
	if len(bars) != len(want) {
		t.Fatalf("bars %v, want %v", bars, want)
	}
	for i := range want {
		if bars[i] != want[i] {
			t.Fatalf("bar %d: %+v, want %+v", i, bars[i], want[i])
		}
	}
	if last := evs[len(evs)-1]; last.ID != IDOf(&tr, tr.Time).String() {
		t.Fatalf("live bar id %q", last.ID)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("Run after cancel: %v", err)
	}
	if n := w.hub.Subscribers(TokenTopic(w.tok.Address)); n != 0 {
		t.Fatalf("%d subscribers after the client left", n)
	}
}

func TestHeartbeat(t *testing.T) {
	t.Parallel()
	w := newWorld(t, 1)
	w.s.cfg.Heartbeat = 10 * time.Millisecond
	c := w.open(t, TokenRequest{})
	rec := newRecorder()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { _ = c.Run(ctx, rec) }()
	deadline := time.After(10 * time.Second)
	for {
		select {
		case <-rec.ch:
		case <-deadline:
			t.Fatal("no heartbeats")
		}
		if _, beats := rec.snapshot(); beats >= 3 {
			return
		}
	}
}

// A heartbeat never comes before a whole Heartbeat of silence: the hub's shared timer ticks every
// quarter, and a connection is due only after a full interval of ticks since its last write.
func TestHeartbeatNeverEarly(t *testing.T) {
	t.Parallel()
	w := newWorld(t, 1)
	const beat = 200 * time.Millisecond
	w.s.cfg.Heartbeat = beat
	c := w.open(t, TokenRequest{})
	rec := newRecorder()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { _ = c.Run(ctx, rec) }()
	<-rec.ch // the opening
	<-rec.ch // the first heartbeat: from here, the gaps are the hub's ticks alone (1 1/4 intervals)
	last := time.Now()
	for range 3 {
		select {
		case <-rec.ch:
		case <-time.After(10 * time.Second):
			t.Fatal("no heartbeat")
		}
		if gap := time.Since(last); gap < beat {
			t.Fatalf("a heartbeat after %v of silence, before the interval %v", gap, beat)
		}
		last = time.Now()
	}
}

// A connection that falls further behind than its buffer is cut off with ErrSlow; the others
// keep receiving.
func TestRunEndsWhenCutOff(t *testing.T) {
	t.Parallel()
	w := newWorld(t, 1)
	slow := w.open(t, TokenRequest{})
	fast := w.open(t, TokenRequest{})
	rec := newRecorder()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { _ = fast.Run(ctx, rec) }()
	<-rec.ch        // the opening
	for range 101 { // the env's buffer is 100
		w.trade(5)
		<-rec.ch // the fast one keeps up
	}
	if err := slow.Run(ctx, newRecorder()); !errors.Is(err, ErrSlow) {
		t.Fatalf("slow Run = %v, want ErrSlow", err)
	}
	evs, _ := rec.snapshot()
	if n := len(evs); evs[n-1].ID != IDOf(&market.Trade{Block: w.ch.block, LogIndex: w.ch.log, BlockHash: w.ch.hash}, w.ch.time).String() {
		t.Fatalf("fast client ends at %q", evs[n-1].ID)
	}
}

func TestUnknownToken(t *testing.T) {
	t.Parallel()
	w := newWorld(t, 0)
	nobody := common.HexToAddress("0xdead")
	if _, err := w.s.Token(context.Background(), TokenRequest{Token: nobody}); !errors.Is(err, curvekit.ErrNotFound) {
		t.Fatalf("err = %v", err)
	}
	if n := w.hub.Subscribers(TokenTopic(nobody)); n != 0 {
		t.Fatalf("%d subscribers for an unknown token", n)
	}
	// A token without trades: a reset and nothing else, then its first trade live.
	c := w.open(t, TokenRequest{})
	if len(c.first) != 1 || c.first[0].ID != "" {
		t.Fatalf("opening %v", c.first)
	}
	tr := w.trade(1)
	evs, err := c.handle(context.Background(), nil, recv(t, c.sub))
	if err != nil || len(evs) != 2 || evs[1].ID != IDOf(&tr, tr.Time).String() {
		t.Fatalf("first trade: %v, %v", evs, err)
	}
}

// A reorganization resets the token's streams and rebuilds them from the store; a token whose
// launch went with it gets a full reset without bars.
func TestReorgResets(t *testing.T) {
	t.Parallel()
	w := newWorld(t, 5)
	c := w.open(t, TokenRequest{Resolution: candles.Res1m})
	to := w.ch.block - 2
	touched := w.store.rollback(to)
	w.feed.Apply(market.Sync{Reorged: touched, Cursor: market.Cursor{Block: to}})
	evs, err := c.handle(context.Background(), nil, recv(t, c.sub))
	if err != nil {
		t.Fatal(err)
	}
	if r := resetOf(t, evs); r.Reason != ReasonReorg || !r.Full {
		t.Fatalf("reset %+v", r)
	}
	if c.pos.Block != to {
		t.Fatalf("rebuilt through block %d, want %d", c.pos.Block, to)
	}
	w.store.mu.Lock()
	delete(w.store.tokens, w.tok.Address)
	w.store.mu.Unlock()
	w.feed.Apply(market.Sync{Reorged: []common.Address{w.tok.Address}, Cursor: market.Cursor{Block: to - 1}})
	evs, err = c.handle(context.Background(), nil, recv(t, c.sub))
	if err != nil || len(evs) != 1 || !resetOf(t, evs).Full {
		t.Fatalf("reset of a removed token: %v, %v", evs, err)
	}
}

// When the feed cannot read the store, the token's streams are reset and rebuild from the store
// (which holds the trade); the next trade warms the feed up again.
func TestFeedFailureResets(t *testing.T) {
	t.Parallel()
	w := newWorld(t, 2)
	delete(w.feed.tokens, w.tok.Address) // cold: the next trade reads the store
	c := w.open(t, TokenRequest{})
	w.store.mu.Lock()
	w.store.fail = errors.New("disk on fire")
	w.store.mu.Unlock()
	w.trade(3)
	w.store.mu.Lock()
	w.store.fail = nil
	w.store.mu.Unlock()
	m := recv(t, c.sub)
	if m.Kind != KindReset || m.Reason != ReasonFeed {
		t.Fatalf("message %+v", m)
	}
	evs, err := c.handle(context.Background(), nil, m)
	if err != nil || !resetOf(t, evs).Full || c.pos.Block != w.ch.block {
		t.Fatalf("rebuild %v, %v at %v", evs, err, c.pos)
	}
	tr := w.trade(3)
	evs, err = c.handle(context.Background(), nil, recv(t, c.sub))
	if err != nil || len(evs) != 2 || evs[0].ID != IDOf(&tr, tr.Time).String() {
		t.Fatalf("after recovery: %v, %v", evs, err)
	}
}

func TestGlobalStream(t *testing.T) {
	t.Parallel()
	w := newWorld(t, 1)
	c, err := w.s.Global(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if len(c.first) != 1 || c.first[0].Name != EventRefresh || decode[Refresh](t, c.first[0].Data).Reason != ReasonConnect {
		t.Fatalf("opening %v", c.first)
	}
	other := newToken(2)
	w.all[other.Address] = &other
	w.store.commit(&market.Batch{Launches: []market.Token{other}})
	w.ch.next(2)
	a := w.ch.trade(w.tok, 1000, 1)
	b := w.ch.trade(&other, 2000, 1)
	a2 := w.ch.trade(w.tok, 1100, 1)
	w.apply(batchOf(w.ch, w.all, a, b, a2))
	var got []Event
	for range 3 {
		evs, err := c.handle(context.Background(), nil, recv(t, c.sub))
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, evs...)
	}
	// A tick per token, at its last trade of the sync, then one refresh.
	want := []struct{ name, id string }{
		{EventTick, IDOf(&a2, a2.Time).String()},
		{EventTick, IDOf(&b, b.Time).String()},
		{EventRefresh, IDOf(&a2, a2.Time).String()},
	}
	for i, e := range got {
		if e.Name != want[i].name || e.ID != want[i].id {
			t.Fatalf("event %d: %s %s, want %s %s", i, e.Name, e.ID, want[i].name, want[i].id)
		}
	}
	// A reconnect starts with a refresh that carries the topic's cursor.
	c2, err := w.s.Global(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close()
	if c2.first[0].ID != want[2].id {
		t.Fatalf("reconnect refresh id %q", c2.first[0].ID)
	}
}

// A trade the store holds before the token row says so (committed between the two reads of a
// replay) is in the replay, its id says the bars reach it, and its live message is skipped.
func TestReplayIncludesATradeTheTokenReadMissed(t *testing.T) {
	t.Parallel()
	w := newWorld(t, 3)
	w.ch.next(30)
	tr := w.ch.trade(w.tok, 1234, 5)
	w.store.commit(&market.Batch{Trades: []market.Trade{tr}}) // the token row still has the old LastTradeAt
	c := w.open(t, TokenRequest{Resolution: candles.Res1h})
	id := c.first[len(c.first)-1].ID
	if want := IDOf(&tr, tr.Time).String(); id != want {
		t.Fatalf("replay id %s, want %s", id, want)
	}
	r := w.open(t, TokenRequest{Resolution: candles.Res1h, LastEventID: id})
	if rs := resetOf(t, r.first); rs.Reason != ReasonResume {
		t.Fatalf("resume with the replay's id: %+v", rs)
	}
	w.all[w.tok.Address].LastTradeAt = tr.Time
	w.feed.Apply(market.Sync{Batch: batchOf(w.ch, w.all, tr)})
	if evs, err := c.handle(context.Background(), nil, recv(t, c.sub)); err != nil || len(evs) != 0 {
		t.Fatalf("live message of a replayed trade: %v, %v", evs, err)
	}
}

// A reorganization removed another token's trade whose time a client's bars reached (the hub's
// time when it was replayed). A connection opened afterwards does not reach that time (the hub
// rewound), and the client that resumes from it is rebuilt in full, because a new trade landed
// in the quiet buckets its bars claimed.
func TestReorgUnderADisconnectedClient(t *testing.T) {
	t.Parallel()
	w := newWorld(t, 3)
	other := newToken(2)
	w.all[other.Address] = &other
	w.store.commit(&market.Batch{Launches: []market.Token{other}})
	fork := w.ch.block
	w.ch.next(7200)
	late := w.ch.trade(&other, 500, 1)
	w.apply(batchOf(w.ch, w.all, late))

	old := w.open(t, TokenRequest{Resolution: candles.Res1m})
	id, _ := ParseID(old.first[len(old.first)-1].ID)
	if id.Time != late.Time {
		t.Fatalf("replay id %v does not reach the hub's time %d", id, late.Time)
	}
	old.Close()

	touched := w.store.rollback(fork)
	w.feed.Apply(market.Sync{Reorged: touched, Cursor: market.Cursor{Block: fork}})
	w.ch.rewind(fork)
	c := w.open(t, TokenRequest{Resolution: candles.Res1m})
	tr := w.trade(30) // on the new chain: before the removed trade's time
	evs, err := c.handle(context.Background(), nil, recv(t, c.sub))
	if err != nil || len(evs) < 2 || evs[len(evs)-2].Name != EventTrade || evs[0].Name == EventReset {
		t.Fatalf("live trade after the reorg: %v, %v", evs, err)
	}
	if tr.Time >= late.Time {
		t.Fatalf("the new chain's trade at %d is not before the removed one at %d", tr.Time, late.Time)
	}
	r := w.open(t, TokenRequest{Resolution: candles.Res1m, LastEventID: id.String()})
	if rs := resetOf(t, r.first); rs.Reason != ReasonUnknownID || !rs.Full {
		t.Fatalf("resume across the reorg: %+v", rs)
	}
}
