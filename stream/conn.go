package stream

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/curvekit/curvekit"
	"github.com/curvekit/curvekit/candles"
	"github.com/curvekit/curvekit/market"
)

// Config configures a Service.
type Config struct {
	Hub    *Hub
	Store  Store
	Market Market
	Codec  Codec
	// Heartbeat is how long a stream may stay silent before it sends a comment (up to a quarter
	// more: the hub's one timer ticks every quarter); default 15s.
	Heartbeat time.Duration
	// MaxResumeTrades is the most trades a resume replays; an id further back gets a full
	// rebuild (reason too-old). Default 1000.
	MaxResumeTrades int
	// Accounts, when set, serves the account streams (Service.Account).
	Accounts AccountEvents
	// MaxAccountStreams bounds the account streams one account may have open in this process
	// at once; default DefaultMaxAccountStreams.
	MaxAccountStreams int
	// Logger defaults to slog.Default().
	Logger *slog.Logger
}

func (c *Config) validate() error {
	if c.Hub == nil || c.Store == nil || c.Market == nil || c.Codec == nil {
		return errors.New("stream: service needs a Hub, a Store, a Market and a Codec")
	}
	if c.Heartbeat < 0 || c.MaxResumeTrades < 0 || c.MaxAccountStreams < 0 {
		return errors.New("stream: negative heartbeat, resume limit or stream limit")
	}
	if c.MaxAccountStreams == 0 {
		c.MaxAccountStreams = DefaultMaxAccountStreams
	}
	if c.Heartbeat == 0 {
		c.Heartbeat = 15 * time.Second
	}
	if c.MaxResumeTrades == 0 {
		c.MaxResumeTrades = 1000
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	return nil
}

// Service opens streams: it subscribes a connection to the hub, replays what the client lacks from
// the store, and turns the hub's messages into the events of that connection.
type Service struct {
	cfg Config
}

// New returns a Service for cfg.
func New(cfg Config) (*Service, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	return &Service{cfg: cfg}, nil
}

// Hub returns the hub the service subscribes to.
func (s *Service) Hub() *Hub { return s.cfg.Hub }

// TokenRequest is what a client asks of a token stream.
type TokenRequest struct {
	Token      common.Address
	Resolution candles.Resolution // an invalid one means candles.DefaultResolution
	// From, when positive, is where the first replay starts (Unix seconds).
	From int64
	// LastEventID is the Last-Event-ID header; empty on a first connection.
	LastEventID string
	// Partial asks for partial resumes: a client that keeps its bars across a resume gets a reset
	// with Full false and only the bars from the bucket of its id's time. By default a resume
	// rebuilds the whole window (SPEC 6.2: the client drops its state on every reset).
	Partial bool
}

// Conn is one open stream. Run it, then (or instead) Close it. An idle connection costs what it
// holds here and its subscription: its fields are laid out to fit the 112-byte size class.
type Conn struct {
	s     *Service
	sub   *Subscription
	first []Event // the opening events, until Run sends them
	// Token streams: what the client asked for, and what its bars hold.
	token   common.Address
	ri      int8 // index of res in candles.Resolutions(); -1 for the global stream, -2 for an account's
	partial bool // TokenRequest.Partial
	has     bool // pos is set
	hasB    bool // barTime is set
	res     candles.Resolution
	since   int64 // TokenRequest.From; for an account stream, the Seq of the newest event sent
	pos     Pos   // newest trade the client's bars include
	barTime int64 // bucket of the newest bar sent
	from    int64 // first bucket of the client's series since the last reset
}

// Token opens a token stream: it checks the token exists (curvekit.ErrNotFound otherwise, before
// anything is sent), subscribes, and prepares the reset and replay that Run sends first.
func (s *Service) Token(ctx context.Context, req TokenRequest) (*Conn, error) {
	if !req.Resolution.Valid() {
		req.Resolution = candles.DefaultResolution
	}
	tok, err := s.cfg.Store.Token(ctx, req.Token)
	if err != nil {
		return nil, err
	}
	sub, cur := s.cfg.Hub.Subscribe(TokenTopic(req.Token))
	c := &Conn{s: s, sub: sub, token: req.Token, ri: int8(resIndex(req.Resolution)), partial: req.Partial,
		res: req.Resolution, since: req.From}
	reason, id := ReasonConnect, (*ID)(nil)
	if req.LastEventID != "" {
		reason = ReasonUnknownID
		if v, err := ParseID(req.LastEventID); err == nil {
			reason, id = ReasonResume, &v
		}
	}
	if c.first, err = c.replay(ctx, &tok, cur, reason, id); err != nil {
		sub.Close()
		return nil, err
	}
	return c, nil
}

// Global opens the global stream. It starts with a refresh (reason connect): whatever the client
// missed, re-fetching /tokens covers it; ticks and refreshes follow live.
func (s *Service) Global(ctx context.Context) (*Conn, error) {
	sub, cur := s.cfg.Hub.Subscribe(GlobalTopic)
	data, err := s.cfg.Codec.Refresh(&Refresh{Reason: ReasonConnect})
	if err != nil {
		sub.Close()
		return nil, err
	}
	return &Conn{s: s, sub: sub, ri: -1, first: []Event{{Name: EventRefresh, ID: cur.Last.String(), Data: data}}}, nil
}

// Close unsubscribes. Run closes the connection when it returns.
func (c *Conn) Close() { c.sub.Close() }

// Run sends the opening events, then the live ones, until ctx ends (nil), a write fails, or the
// subscription ends (ErrSlow when the hub cut the connection off, ErrClosed on shutdown). Messages
// that arrived together are written together, so a connection that fell behind catches up in
// large writes. After a Config.Heartbeat of silence (up to a quarter more) it sends the heartbeat
// comment: the hub's one heartbeat timer wakes it (Hub.Beat), so an idle connection holds no
// timer and no goroutine of its own; it runs on its caller's goroutine.
func (c *Conn) Run(ctx context.Context, w Writer) error {
	defer c.Close()
	c.s.cfg.Hub.Beat(c.s.cfg.Heartbeat)
	if err := w.Write(c.first); err != nil {
		return err
	}
	c.first = nil
	c.sub.Active()
	var (
		msgs  []*Message
		ended bool
	)
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-c.sub.Ready():
		}
		if c.sub.Beat() {
			if err := w.Heartbeat(); err != nil {
				return err
			}
		}
		if msgs, ended = c.sub.Take(msgs); ended {
			return c.sub.Err()
		}
		if err := c.send(ctx, w, msgs); err != nil {
			return err
		}
		clear(msgs) // the messages are not kept until the next ones
	}
}

// eventBufs holds the event slices of the batches connections are writing: an idle connection
// keeps none.
var eventBufs = sync.Pool{New: func() any { return new([]Event) }}

// send writes the events msgs mean for this connection, if any.
func (c *Conn) send(ctx context.Context, w Writer, msgs []*Message) error {
	buf := eventBufs.Get().(*[]Event)
	evs := (*buf)[:0]
	defer func() {
		if cap(evs) <= 64 { // a catch-up or a rebuild is not kept
			clear(evs)
			*buf = evs[:0]
			eventBufs.Put(buf)
		}
	}()
	for _, m := range msgs {
		var err error
		if evs, err = c.handle(ctx, evs, m); err != nil {
			return err
		}
	}
	if len(evs) == 0 {
		return nil
	}
	if err := w.Write(evs); err != nil {
		return err
	}
	c.sub.Active()
	return nil
}

// handle appends the events a message means for this connection.
func (c *Conn) handle(ctx context.Context, evs []Event, m *Message) ([]Event, error) {
	if c.ri == accountStream {
		return c.accountEvent(evs, m), nil
	}
	if c.ri < 0 {
		switch m.Kind {
		case KindTick:
			return append(evs, Event{Name: EventTick, ID: m.IDText, Data: m.Data}), nil
		case KindRefresh:
			return append(evs, Event{Name: EventRefresh, ID: m.IDText, Data: m.Data}), nil
		case KindKing:
			return append(evs, Event{Name: EventKing, ID: m.IDText, Data: m.Data}), nil
		}
		return evs, nil
	}
	switch m.Kind {
	case KindReset:
		return c.rebuild(ctx, evs, m.Reason)
	case KindTrade:
	default:
		return evs, nil
	}
	if c.has && !c.pos.Less(m.ID.Pos) {
		return evs, nil // the replay included it
	}
	u := &m.Bars[c.ri]
	sec := c.res.Seconds()
	if c.hasB {
		switch {
		case u.Bar.Time < c.barTime:
			// Cannot happen while trades arrive in chain order; the store settles it.
			return c.rebuild(ctx, evs, ReasonFeed)
		case u.Bar.Time > c.barTime+sec && (len(u.Quiet) == 0 || u.Quiet[0].Time > c.barTime+sec):
			return c.rebuild(ctx, evs, ReasonGap) // quiet buckets the message does not carry
		}
	}
	for i := range u.Quiet {
		q := &u.Quiet[i]
		// The client may hold some of them already (a replay extends quiet bars to the hub's time).
		if c.hasB && q.Time <= c.barTime || !c.hasB && q.Time < c.from {
			continue
		}
		evs = append(evs, Event{Name: EventBar, Data: q.Data})
	}
	evs = append(evs,
		Event{Name: EventTrade, ID: m.IDText, Data: m.Data},
		Event{Name: EventBar, ID: m.IDText, Data: u.Bar.Data})
	c.pos, c.has = m.ID.Pos, true
	c.barTime, c.hasB = u.Bar.Time, true
	return evs, nil
}

// rebuild answers a reset message or an inconsistency: a full reset and the replay of the
// connection's window, read from the store now.
func (c *Conn) rebuild(ctx context.Context, evs []Event, reason string) ([]Event, error) {
	tok, err := c.s.cfg.Store.Token(ctx, c.token)
	if errors.Is(err, curvekit.ErrNotFound) {
		// A reorganization removed the launch itself: nothing to show until it comes back.
		data, err := c.s.cfg.Codec.Reset(&Reset{Token: c.token, Resolution: c.res, Reason: reason, Full: true})
		if err != nil {
			return nil, err
		}
		c.has, c.hasB, c.from = false, false, 0
		return append(evs, Event{Name: EventReset, Data: data, ClearID: true}), nil
	}
	if err != nil {
		return nil, err
	}
	more, err := c.replay(ctx, &tok, c.s.cfg.Hub.Cursor(TokenTopic(c.token)), reason, nil)
	if err != nil {
		return nil, err
	}
	return append(evs, more...), nil
}

// replay returns the reset and the events that rebuild the client's state, and records that state.
//
// The series comes from Market.Candles (the REST computation) over [start, to], where to is the
// newest of the hub's time, the token's last trade and a resumed id's time: no later trade can
// fall in an earlier bucket, so live bars never go back in time (a chain reorganization can break
// that; the trade that would is answered with a full rebuild). to never passes the present (the
// market's clock, or the token's last trade when the clock lags the chain). The series reports
// the newest trade it includes; live messages up to it are skipped, those after it sent, so the
// boundary has neither a gap nor a duplicate whichever way the store and the hub raced.
//
// A resume (a Last-Event-ID the store vouches for) is a full reset by default: the window (From,
// or the latest market.MaxBars buckets), then the trades after the id. With Partial it is a
// partial reset: start is the bucket of the id's time (not before From), then the same trades.
// On connect, start is From or the current bucket; on a rebuild (a bad id, a reorganization, a
// gap), From or the latest market.MaxBars buckets. An id the store cannot vouch for - its time
// after the present or before its trade, its trade unknown or from another block at that height,
// further back than MaxResumeTrades trades (or, partial, a window), or followed by a trade older
// than its time (the chain reorganized under the client's bars) - turns into such a rebuild.
func (c *Conn) replay(ctx context.Context, tok *market.Token, cur Cursor, reason string, id *ID) ([]Event, error) {
	res := c.res
	sec := res.Seconds()
	present := max(c.s.cfg.Market.Now().Unix(), tok.LastTradeAt)
	to := max(min(cur.Time, present), tok.LastTradeAt)
	if id != nil && (id.Time > present || id.Time < 1) {
		return c.replay(ctx, tok, cur, ReasonUnknownID, nil)
	}
	partial := reason == ReasonResume && c.partial
	var start int64
	if id != nil {
		// The id's time is a trade's time (this token's, or the hub's newest when it was sent),
		// so no later trade is older: the replay may reach it even when this process has not
		// seen it (it restarted, or the token row lags the trades).
		to = max(to, id.Time)
	}
	switch {
	case partial:
		start = res.Bucket(id.Time)
		if c.since > 0 {
			start = max(start, res.Bucket(c.since))
		}
		if (res.Bucket(to)-start)/sec >= market.MaxBars {
			return c.replay(ctx, tok, cur, ReasonTooOld, nil)
		}
	case c.since > 0:
		start = res.Bucket(c.since)
	case reason == ReasonConnect:
		start = res.Bucket(to)
	default:
		start = res.Bucket(to) - (market.MaxBars-1)*sec
	}
	start = min(start, res.Bucket(to))

	var series market.Series
	if to > 0 {
		var err error
		series, err = c.s.cfg.Market.Candles(ctx, market.CandleQuery{Token: tok.Address, Resolution: res, From: start, To: to, Limit: market.MaxBars})
		if err != nil {
			return nil, fmt.Errorf("stream: replay %s: %w", tok.Address.Hex(), err)
		}
	}
	if series.Last != nil && series.Last.Time > to {
		// A trade committed after the token was read: the window's last bucket holds it, and
		// the replay's id must say that its bars reach it.
		to = series.Last.Time
	}
	var trades []market.Trade
	if id != nil {
		var why string
		var err error
		if trades, why, err = c.tradesSince(ctx, *id, series.Last); err != nil {
			return nil, err
		}
		if why != "" {
			return c.replay(ctx, tok, cur, why, nil)
		}
	}

	from := series.From
	if to == 0 {
		from = 0
	}
	data, err := c.s.cfg.Codec.Reset(&Reset{Token: tok.Address, Resolution: res, Reason: reason, From: from, Full: !partial})
	if err != nil {
		return nil, err
	}
	evs := make([]Event, 0, 1+len(series.Bars)+len(trades))
	// A resume keeps the client's id until the replay's own: cut off in the middle, it resumes
	// again from the id it came with and misses no trade. Other full resets clear it, so that a
	// client cut off during the rebuild reconnects as new.
	evs = append(evs, Event{Name: EventReset, Data: data, ClearID: reason != ReasonResume})
	for i := range series.Bars {
		b, err := c.s.cfg.Codec.Bar(tok, &series.Bars[i])
		if err != nil {
			return nil, err
		}
		evs = append(evs, Event{Name: EventBar, Data: b})
	}
	for i := range trades {
		b, err := c.s.cfg.Codec.Trade(tok, &trades[i])
		if err != nil {
			return nil, err
		}
		// Each trade's id says what it says live: a resume from it replays from its bucket.
		evs = append(evs, Event{Name: EventTrade, ID: IDOf(&trades[i], trades[i].Time).String(), Data: b})
	}
	// Only the last event carries the replay's id: a client cut off before it keeps the id it
	// came with and gets the same replay again.
	if series.Last != nil && len(evs) > 1 {
		evs[len(evs)-1].ID = IDOf(series.Last, to).String()
	}

	c.has = series.Last != nil
	if c.has {
		c.pos = PosOf(series.Last)
	}
	c.hasB = len(series.Bars) > 0
	if c.hasB {
		c.barTime = series.Bars[len(series.Bars)-1].Time
	}
	c.from = from
	return evs, nil
}

// tradesSince returns the token's trades after id up to last, oldest first, walking the store
// newest first. It returns a reason instead when the store does not hold the id's trade, or holds
// a later one older than the id's time (ReasonUnknownID), or more than MaxResumeTrades follow it
// (ReasonTooOld).
func (c *Conn) tradesSince(ctx context.Context, id ID, last *market.Trade) ([]market.Trade, string, error) {
	if last == nil || PosOf(last).Less(id.Pos) {
		return nil, ReasonUnknownID, nil
	}
	lastPos := PosOf(last)
	var out []market.Trade
	q := market.TradeQuery{Token: c.token, Limit: market.MaxLimit}
	for {
		page, err := c.s.cfg.Store.Trades(ctx, q)
		if err != nil {
			return nil, "", fmt.Errorf("stream: read trades of %s: %w", c.token.Hex(), err)
		}
		for i := range page.Trades {
			tr := &page.Trades[i]
			p := PosOf(tr)
			switch {
			case lastPos.Less(p):
				continue // after the replay: it comes live
			case p == id.Pos:
				if !id.Matches(tr) || tr.Time > id.Time {
					return nil, ReasonUnknownID, nil
				}
				slices.Reverse(out)
				return out, "", nil
			case p.Less(id.Pos):
				return nil, ReasonUnknownID, nil
			}
			if tr.Time < id.Time {
				// The client's bars reach past this trade without it: history changed under them.
				return nil, ReasonUnknownID, nil
			}
			if len(out) == c.s.cfg.MaxResumeTrades {
				return nil, ReasonTooOld, nil
			}
			out = append(out, *tr)
		}
		if page.Next == "" {
			return nil, ReasonUnknownID, nil
		}
		q.Cursor = page.Next
	}
}
