package stream

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/curvekit/curvekit/candles"
)

// Topic names what a subscriber listens to: the global price feed (GlobalTopic) or one token
// (TokenTopic).
type Topic string

// GlobalTopic carries tick and refresh messages for every token.
const GlobalTopic Topic = "tokens"

// TokenTopic carries the trade (with its bars) and reset messages of one token.
func TokenTopic(token common.Address) Topic { return Topic(strings.ToLower(token.Hex())) }

// accountPrefix starts every account topic.
const accountPrefix = "account:"

// AccountTopic carries the events of one account (KindEvent).
func AccountTopic(accountID string) Topic { return Topic(accountPrefix + accountID) }

// Kind says what a Message is.
type Kind uint8

const (
	// KindTrade is one trade with the bar it moved at every resolution (token topics).
	KindTrade Kind = iota + 1
	// KindReset tells a token's subscribers that its history changed (a chain reorganization, or
	// the feed lost track): they rebuild from the store.
	KindReset
	// KindTick is a token's price state after a sync (GlobalTopic).
	KindTick
	// KindRefresh signals that the token list changed (GlobalTopic).
	KindRefresh
	// KindEvent is an event of an account (AccountTopic): Seq orders it, Name names it, Data is
	// its payload.
	KindEvent
	// KindKing announces a new king of the hill of a pairing asset (GlobalTopic).
	KindKing
)

// Message is what the feed publishes. It is shared by every subscriber of its topic and never
// modified after Publish; payloads are encoded once, by the feed.
type Message struct {
	Kind Kind
	// ID is the id of the trade the message ends with (trade, tick, refresh); zero for a reset.
	ID ID
	// IDText is ID.String(), computed once.
	IDText string
	// Data is the payload of a trade, tick or refresh event.
	Data []byte
	// Bars holds, for a trade, the bar it moved at each resolution, in the order of
	// candles.Resolutions().
	Bars [numRes]BarUpdate
	// Reason says why a reset or refresh was sent.
	Reason string
	// Seq and Name are an account event's number and name (KindEvent).
	Seq  int64
	Name string
	// At is when Publish delivered the message (for delivery-lag measurements).
	At time.Time
}

// BarUpdate is the bar a trade moved at one resolution, with the quiet buckets it closed.
type BarUpdate struct {
	// Quiet are the flat bars of the quiet buckets between the previous bar and Bar, oldest first:
	// the newest MaxQuiet of them when there were more.
	Quiet []Bar
	Bar   Bar
}

// Bar is a bar and its encoded payload.
type Bar struct {
	candles.Bar
	Data []byte
}

const numRes = 6

// resIndex returns the index of r in candles.Resolutions(), or -1.
func resIndex(r candles.Resolution) int {
	for i, x := range candles.Resolutions() {
		if x == r {
			return i
		}
	}
	return -1
}

// ErrSlow is why the hub cut a subscriber off: its buffer was full. The client reconnects with
// Last-Event-ID and resumes from the store.
var ErrSlow = errors.New("stream: subscriber too slow: buffer full")

// ErrClosed is why a subscription ended when the hub shut down.
var ErrClosed = errors.New("stream: hub closed")

// HubConfig configures a Hub.
type HubConfig struct {
	// Buffer is how many messages a subscriber may fall behind before it is cut off; default
	// 1000 (Mercure's default). A trade with its bars is one message.
	Buffer int
}

// Hub fans messages out to the subscribers of each topic. Publish never blocks: a subscriber whose
// buffer is full is cut off (Err says ErrSlow) instead of slowing the publisher or anyone else.
// The hub keeps no history. A subscriber's buffer grows with how far it lags and shrinks back once
// it catches up, so an idle one costs a few hundred bytes, and none holds more than Buffer
// messages.
type Hub struct {
	buffer int

	mu     sync.Mutex
	topics map[Topic]*topic
	time   int64 // newest trade time published since start or the last Rewind
	closed bool
	done   chan struct{} // closed by Close

	beats sync.Once // starts the heartbeat (see Beat)
}

type topic struct {
	hub  *Hub
	name Topic
	subs []*Subscription
	last ID // id of the newest message published here
}

// Cursor is where a topic stood when a subscriber joined it: every later message reaches the
// subscriber, none before.
type Cursor struct {
	// Last is the id of the newest message published on the topic (zero when none, or after a
	// reset).
	Last ID
	// Time is the newest trade time published on any topic since the hub started or last
	// rewound. Every trade published later has a time at least as large (block times never
	// decrease), so a replay may extend quiet bars up to it without ever sending a bar that a
	// later trade would precede.
	Time int64
}

// NewHub returns a Hub.
func NewHub(cfg HubConfig) (*Hub, error) {
	if cfg.Buffer < 0 {
		return nil, fmt.Errorf("stream: negative buffer %d", cfg.Buffer)
	}
	if cfg.Buffer == 0 {
		cfg.Buffer = 1000
	}
	return &Hub{buffer: cfg.Buffer, topics: make(map[Topic]*topic), done: make(chan struct{})}, nil
}

// Subscription is one subscriber's place on a topic. Wait on Ready, then Take what arrived.
type Subscription struct {
	tp    *topic // nil when the hub was closed before it subscribed
	ready chan struct{}
	idx   int32 // index in tp.subs; -1 once removed (guarded by the hub's mu)
	// quiet counts the heartbeat ticks since the subscriber last wrote (Active); beat is set
	// when they reached a heartbeat's worth (see Hub.Beat).
	quiet atomic.Int32
	beat  atomic.Bool

	mu    sync.Mutex
	queue []*Message // published, not yet taken; oldest first
	err   error      // why it ended (errUnsubscribed after Close); nil while it runs
}

// errUnsubscribed ends a subscription its subscriber closed; Err reports it as nil.
var errUnsubscribed = errors.New("stream: unsubscribed")

// Subscribe registers a subscriber on t and returns the topic's cursor, both under one lock: the
// subscriber receives exactly the messages published after the cursor. On a closed hub the
// subscription is already over (Err is ErrClosed).
func (h *Hub) Subscribe(t Topic) (*Subscription, Cursor) {
	s, c, _ := h.SubscribeAtMost(t, 0)
	return s, c
}

// SubscribeAtMost is Subscribe unless t already has max subscribers (max > 0): then it
// subscribes nothing and ok is false. The count and the subscription are one step under the
// hub's lock, so concurrent callers never pass max together.
func (h *Hub) SubscribeAtMost(t Topic, max int) (sub *Subscription, cur Cursor, ok bool) {
	s := &Subscription{idx: -1, ready: make(chan struct{}, 1)}
	h.mu.Lock()
	defer h.mu.Unlock()
	if max > 0 && !h.closed {
		if tp := h.topics[t]; tp != nil && len(tp.subs) >= max {
			return nil, Cursor{}, false
		}
	}
	if h.closed {
		s.end(ErrClosed)
		return s, Cursor{}, true
	}
	tp := h.topic(t)
	s.tp, s.idx = tp, int32(len(tp.subs))
	tp.subs = append(tp.subs, s)
	return s, Cursor{Last: tp.last, Time: h.time}, true
}

// topic returns t's topic, made if there is none. h.mu must be held.
func (h *Hub) topic(t Topic) *topic {
	tp := h.topics[t]
	if tp == nil {
		tp = &topic{hub: h, name: t}
		h.topics[t] = tp
	}
	return tp
}

// Cursor returns t's cursor now.
func (h *Hub) Cursor(t Topic) Cursor {
	h.mu.Lock()
	defer h.mu.Unlock()
	c := Cursor{Time: h.time}
	if tp := h.topics[t]; tp != nil {
		c.Last = tp.last
	}
	return c
}

// Publish delivers m to every subscriber of t without blocking, cutting off those whose buffer
// is full, and returns how many received it. A trade advances the hub's time; a reset clears the
// topic's last id.
func (h *Hub) Publish(t Topic, m *Message) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return 0
	}
	m.At = time.Now()
	tp := h.topic(t)
	switch m.Kind {
	case KindTrade:
		h.time = max(h.time, m.ID.Time)
		tp.last = m.ID
	case KindReset:
		tp.last = ID{}
	default:
		if !m.ID.IsZero() {
			tp.last = m.ID
		}
	}
	n := 0
	for i := 0; i < len(tp.subs); {
		s := tp.subs[i]
		s.mu.Lock()
		full := len(s.queue) >= h.buffer
		if !full {
			s.queue = append(s.queue, m)
		}
		s.mu.Unlock()
		if full {
			h.remove(tp, s, ErrSlow) // moves the last subscriber to i
			continue
		}
		s.wake()
		n++
		i++
	}
	if len(tp.subs) == 0 && tp.last.IsZero() {
		delete(h.topics, t)
	}
	return n
}

// Rewind forgets the hub's time. The feed calls it when the chain reorganized: the new chain's
// blocks may be older than the trades published from the old one.
func (h *Hub) Rewind() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.time = 0
}

// TokenTopics are the token topics that exist now (any that has or had subscribers).
func (h *Hub) TokenTopics() []Topic {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := make([]Topic, 0, len(h.topics))
	for t := range h.topics {
		if t != GlobalTopic && !strings.HasPrefix(string(t), accountPrefix) {
			out = append(out, t)
		}
	}
	return out
}

// Subscribers returns how many subscribers t has.
func (h *Hub) Subscribers(t Topic) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	if tp := h.topics[t]; tp != nil {
		return len(tp.subs)
	}
	return 0
}

// TotalSubscribers returns how many subscribers all topics have together (a metric: it walks
// the topics under the lock).
func (h *Hub) TotalSubscribers() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := 0
	for _, tp := range h.topics {
		n += len(tp.subs)
	}
	return n
}

// Close ends every subscription with ErrClosed; later subscriptions end at once. The server
// calls it on shutdown so that open streams return.
func (h *Hub) Close() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return
	}
	h.closed = true
	close(h.done)
	for name, tp := range h.topics {
		for len(tp.subs) > 0 {
			h.remove(tp, tp.subs[len(tp.subs)-1], ErrClosed)
		}
		delete(h.topics, name)
	}
}

// remove takes s off tp and ends it with err. h.mu must be held.
func (h *Hub) remove(tp *topic, s *Subscription, err error) {
	i := s.idx
	last := len(tp.subs) - 1
	tp.subs[i] = tp.subs[last]
	tp.subs[i].idx = i
	tp.subs[last] = nil
	tp.subs = tp.subs[:last]
	s.idx = -1
	s.end(err)
}

func (s *Subscription) end(err error) {
	s.mu.Lock()
	if s.err == nil {
		s.err = err
	}
	s.mu.Unlock()
	s.wake()
}

func (s *Subscription) wake() {
	select {
	case s.ready <- struct{}{}:
	default: // already signalled
	}
}

// Ready is signalled when messages arrive or the subscription ends; Take then collects them.
func (s *Subscription) Ready() <-chan struct{} { return s.ready }

// Active tells the hub that the subscriber just wrote to its client: its heartbeat count starts
// again.
func (s *Subscription) Active() { s.quiet.Store(0) }

// Beat reports, once, that the subscriber has been silent for a heartbeat: Ready was signalled
// for it, and the subscriber sends a heartbeat then.
func (s *Subscription) Beat() bool { return s.beat.Swap(false) }

// beatTicks is how many ticks of the hub's heartbeat make an interval. A subscriber hears Beat at
// the tick after the interval's worth of ticks following its last write: after between 1 and 1 1/4
// of the interval of silence (its write fell somewhere between two ticks).
const beatTicks = 4

// Beat starts, once, the hub's heartbeat: every interval/4 it counts a tick for every
// subscriber, and signals Beat (with Ready) to those silent for a whole interval, until the hub
// closes. One timer serves every subscriber, instead of one each.
func (h *Hub) Beat(interval time.Duration) {
	h.beats.Do(func() {
		go func() {
			t := time.NewTicker(max(interval/beatTicks, time.Millisecond))
			defer t.Stop()
			for {
				select {
				case <-h.done:
					return
				case <-t.C:
				}
				h.mu.Lock()
				for _, tp := range h.topics {
					for _, s := range tp.subs {
						if s.quiet.Add(1) > beatTicks {
							s.quiet.Store(0)
							s.beat.Store(true)
							s.wake()
						}
					}
				}
				h.mu.Unlock()
			}
		}()
	})
}

// keepQueue is the capacity a drained queue keeps; a larger one (a subscriber that lagged) goes
// back to the garbage collector.
const keepQueue = 16

// Take returns the messages published since the last Take, oldest first (pass the previous
// result back as dst to reuse its array), and whether the subscription has ended; it does not
// block. After the end there is nothing more to wait for.
func (s *Subscription) Take(dst []*Message) (msgs []*Message, ended bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	msgs = s.queue
	if cap(dst) > keepQueue {
		dst = nil
	}
	clear(dst[:cap(dst)])
	s.queue = dst[:0]
	return msgs, s.err != nil
}

// Err returns why the subscription ended: ErrSlow, ErrClosed, or nil while it runs and after
// Close.
func (s *Subscription) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err == errUnsubscribed {
		return nil
	}
	return s.err
}

// Close unsubscribes. It may be called more than once, and after the hub cut the subscriber off.
func (s *Subscription) Close() {
	tp := s.tp
	if tp == nil {
		return
	}
	h := tp.hub
	h.mu.Lock()
	defer h.mu.Unlock()
	if s.idx < 0 {
		return
	}
	h.remove(tp, s, errUnsubscribed)
	if len(tp.subs) == 0 && tp.last.IsZero() {
		delete(h.topics, tp.name)
	}
}
