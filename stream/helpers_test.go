package stream

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/holiman/uint256"

	"github.com/curvekit/curvekit"
	"github.com/curvekit/curvekit/candles"
	"github.com/curvekit/curvekit/market"
	"github.com/curvekit/curvekit/txbuild"
)

// memStore is a hand-written market.Store over maps, with the reads the streams and the market
// service make. Methods the tests never reach are left to the nil embedded interface.
type memStore struct {
	market.Store
	mu     sync.Mutex
	tokens map[common.Address]market.Token
	trades map[common.Address][]market.Trade // chain order
	fail   error                             // when set, trade reads fail with it
	// now is the newest trade time ever committed: the test chain's present, the market's clock.
	now int64
}

func newMemStore() *memStore {
	return &memStore{tokens: map[common.Address]market.Token{}, trades: map[common.Address][]market.Trade{}}
}

// commit applies a batch: launches, trades and the tokens' states after it.
func (s *memStore) commit(b *market.Batch) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, t := range b.Launches {
		s.tokens[t.Address] = t
	}
	for _, tr := range b.Trades {
		s.trades[tr.Token] = append(s.trades[tr.Token], tr)
		s.now = max(s.now, tr.Time)
	}
	for _, t := range b.Updates {
		s.tokens[t.Address] = t
	}
}

// rollback removes every trade after block to and returns the tokens it touched.
func (s *memStore) rollback(to uint64) []common.Address {
	s.mu.Lock()
	defer s.mu.Unlock()
	var touched []common.Address
	for a, list := range s.trades {
		keep := list
		for len(keep) > 0 && keep[len(keep)-1].Block > to {
			keep = keep[:len(keep)-1]
		}
		if len(keep) == len(list) {
			continue
		}
		touched = append(touched, a)
		s.trades[a] = keep
		t := s.tokens[a]
		t.LastTradeAt = 0
		if len(keep) > 0 {
			t.LastTradeAt = keep[len(keep)-1].Time
		}
		s.tokens[a] = t
	}
	slices.SortFunc(touched, func(a, b common.Address) int { return a.Cmp(b) })
	return touched
}

func (s *memStore) all(token common.Address) []market.Trade {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.trades[token])
}

func (s *memStore) Token(_ context.Context, addr common.Address) (market.Token, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ok := s.tokens[addr]
	if !ok {
		return t, curvekit.ErrNotFound
	}
	return t, nil
}

func (s *memStore) Trades(_ context.Context, q market.TradeQuery) (market.TradePage, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fail != nil {
		return market.TradePage{}, s.fail
	}
	if _, ok := s.tokens[q.Token]; !ok {
		return market.TradePage{}, curvekit.ErrNotFound
	}
	list := s.trades[q.Token]
	off := 0
	if q.Cursor != "" {
		n, err := strconv.Atoi(q.Cursor)
		if err != nil {
			return market.TradePage{}, curvekit.ErrInvalid
		}
		off = n
	}
	limit := q.Limit
	if limit <= 0 {
		limit = market.DefaultLimit
	}
	var p market.TradePage
	for i := len(list) - 1 - off; i >= 0 && len(p.Trades) < limit; i-- {
		p.Trades = append(p.Trades, list[i])
	}
	if off+len(p.Trades) < len(list) {
		p.Next = strconv.Itoa(off + len(p.Trades))
	}
	return p, nil
}

func (s *memStore) TradesBetween(_ context.Context, q market.RangeQuery) (market.RangeResult, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fail != nil {
		return market.RangeResult{}, s.fail
	}
	if _, ok := s.tokens[q.Token]; !ok {
		return market.RangeResult{}, curvekit.ErrNotFound
	}
	var r market.RangeResult
	for _, tr := range s.trades[q.Token] {
		switch {
		case tr.Time < q.From:
			r.Before = &tr
		case tr.Time < q.To:
			r.Trades = append(r.Trades, tr)
		}
	}
	return r, nil
}

func (s *memStore) Bars(_ context.Context, q market.MinuteQuery) (market.MinuteResult, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fail != nil {
		return market.MinuteResult{}, s.fail
	}
	t, ok := s.tokens[q.Token]
	if !ok {
		return market.MinuteResult{}, curvekit.ErrNotFound
	}
	return market.BarsOf(&t, s.trades[q.Token], q)
}

// Day is the day of a token without trades in it, as of the store's present: the streams' tests
// read no day's figures.
func (s *memStore) Day(context.Context, common.Address) (market.Day, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return market.Day{At: s.now}, nil
}

// clock returns the store's present.
func (s *memStore) clock() time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return time.Unix(s.now, 0)
}

func newMarket(t testing.TB, st *memStore) *market.Service {
	t.Helper()
	b, err := txbuild.New(txbuild.Config{ChainID: 1})
	if err != nil {
		t.Fatal(err)
	}
	svc, err := market.NewService(market.ServiceConfig{Store: st, Builder: b, Now: st.clock})
	if err != nil {
		t.Fatal(err)
	}
	return svc
}

// testCodec writes payloads the tests read back.
type testCodec struct{}

type tradeWire struct {
	Block uint64
	Log   uint
	Time  int64
}

func (testCodec) Trade(_ *market.Token, tr *market.Trade) ([]byte, error) {
	return json.Marshal(tradeWire{tr.Block, tr.LogIndex, tr.Time})
}
func (testCodec) Bar(_ *market.Token, b *candles.Bar) ([]byte, error) { return json.Marshal(b) }
func (testCodec) Tick(t *Tick) ([]byte, error) {
	return json.Marshal(map[string]any{"token": t.Stats.Token.Address, "block": t.Last.Block, "log": t.Last.LogIndex})
}
func (testCodec) Reset(r *Reset) ([]byte, error)     { return json.Marshal(r) }
func (testCodec) Refresh(r *Refresh) ([]byte, error) { return json.Marshal(r) }
func (testCodec) King(k *market.KingView) ([]byte, error) {
	return json.Marshal(map[string]any{"token": k.Token.Address, "since": k.Since})
}

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// env is a hub, feed and service over a memStore.
type env struct {
	t     testing.TB
	store *memStore
	svc   *market.Service
	hub   *Hub
	feed  *Feed
	s     *Service
}

func newEnv(t testing.TB, buffer int) *env {
	t.Helper()
	e := &env{t: t, store: newMemStore()}
	e.svc = newMarket(t, e.store)
	var err error
	if e.hub, err = NewHub(HubConfig{Buffer: buffer}); err != nil {
		t.Fatal(err)
	}
	if e.feed, err = NewFeed(FeedConfig{Hub: e.hub, Store: e.store, Market: e.svc, Codec: testCodec{}, Logger: quiet}); err != nil {
		t.Fatal(err)
	}
	if e.s, err = New(Config{Hub: e.hub, Store: e.store, Market: e.svc, Codec: testCodec{}, Logger: quiet}); err != nil {
		t.Fatal(err)
	}
	return e
}

// apply commits a batch and hands it to the feed, as the indexer does.
func (e *env) apply(b *market.Batch) {
	e.store.commit(b)
	e.feed.Apply(market.Sync{Batch: b, Cursor: b.Cursor})
}

// newToken returns a token paired with an 18-decimal asset.
func newToken(n int) market.Token {
	return market.Token{
		Address: common.BigToAddress(uint256.NewInt(uint64(0xa0000 + n)).ToBig()),
		Quote:   market.Asset{Symbol: "ETH", Decimals: 18}, Decimals: 18,
		Symbol: fmt.Sprintf("T%d", n),
	}
}

// chain makes trades in chain order: strictly increasing blocks with their own hashes and times.
type chain struct {
	block uint64
	time  int64
	log   uint
	hash  common.Hash
	seal  uint64 // counts sealed blocks, so a block that replaces another has another hash
	times map[uint64]int64
}

func newChain(start int64) *chain {
	return &chain{block: 100, time: start, times: map[uint64]int64{100: start}}
}

// next seals a block dt seconds after the previous one.
func (c *chain) next(dt int64) {
	c.block++
	c.time += max(dt, 1)
	c.log = 0
	c.seal++
	c.hash = common.BigToHash(uint256.NewInt(c.block).ToBig())
	binary.BigEndian.PutUint32(c.hash[:4], uint32(c.seal)) // the id's tag
	c.times[c.block] = c.time
}

// rewind makes block to the head again: the blocks after it are replaced by the next ones.
func (c *chain) rewind(to uint64) {
	c.block, c.time, c.log = to, c.times[to], 0
}

// trade returns a trade of tok in the current block at price (whole quote per whole token).
func (c *chain) trade(tok *market.Token, priceMilli, quoteMilli uint64) market.Trade {
	c.log += 2
	tr := market.Trade{
		Token: tok.Address, Block: c.block, BlockHash: c.hash, LogIndex: c.log, Time: c.time,
		TxHash: common.BigToHash(uint256.NewInt(c.block<<16 | uint64(c.log)).ToBig()), Side: curvekit.Buy,
	}
	tr.QuoteAmount.Mul(uint256.NewInt(quoteMilli), uint256.NewInt(1e15))
	tr.TokenAmount.SetUint64(1)
	// Price is quote base units per whole token, times PriceScale.
	tr.Price.Mul(uint256.NewInt(priceMilli), uint256.NewInt(1e15))
	tr.Price.Mul(&tr.Price, uint256.NewInt(market.PriceScale))
	return tr
}

// batchOf returns the batch of trades with the traded tokens' states after it.
func batchOf(c *chain, tokens map[common.Address]*market.Token, trades ...market.Trade) *market.Batch {
	b := &market.Batch{Cursor: market.Cursor{Block: c.block, Hash: c.hash}, Trades: trades}
	seen := map[common.Address]bool{}
	for _, tr := range trades {
		t := tokens[tr.Token]
		t.LastTradeAt = tr.Time
		seen[tr.Token] = true
	}
	for a := range seen {
		b.Updates = append(b.Updates, *tokens[a])
	}
	slices.SortFunc(b.Updates, func(x, y market.Token) int { return x.Address.Cmp(y.Address) })
	return b
}

// recorder is a Writer that keeps what it was sent.
type recorder struct {
	mu     sync.Mutex
	events []Event
	beats  int
	ch     chan struct{}
}

func newRecorder() *recorder { return &recorder{ch: make(chan struct{}, 1<<16)} }

func (r *recorder) Write(evs []Event) error {
	r.mu.Lock()
	r.events = append(r.events, evs...)
	r.mu.Unlock()
	r.ch <- struct{}{}
	return nil
}

func (r *recorder) Heartbeat() error {
	r.mu.Lock()
	r.beats++
	r.mu.Unlock()
	r.ch <- struct{}{}
	return nil
}

func (r *recorder) snapshot() ([]Event, int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.events), r.beats
}

func decode[T any](t testing.TB, data []byte) T {
	t.Helper()
	var v T
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatalf("decode %s: %v", data, err)
	}
	return v
}

// taken holds messages a test took from a subscription but has not looked at yet.
var (
	takenMu sync.Mutex
	taken   = map[*Subscription][]*Message{}
)

// poll returns s's next message without waiting; ok is false when none is waiting.
func poll(s *Subscription) (m *Message, ok bool) {
	takenMu.Lock()
	defer takenMu.Unlock()
	if len(taken[s]) == 0 {
		msgs, _ := s.Take(nil)
		taken[s] = msgs
	}
	if q := taken[s]; len(q) > 0 {
		taken[s] = q[1:]
		return q[0], true
	}
	return nil, false
}

// recv waits for s's next message; it fails the test when the subscription ends first.
func recv(t testing.TB, s *Subscription) *Message {
	t.Helper()
	for {
		if m, ok := poll(s); ok {
			return m
		}
		s.mu.Lock()
		ended := s.err != nil
		s.mu.Unlock()
		if ended {
			t.Fatalf("subscription ended: %v", s.Err())
		}
		<-s.Ready()
	}
}

// drained returns the messages left on an ended subscription and reports whether it ended.
func drained(s *Subscription) ([]*Message, bool) {
	var out []*Message
	for {
		m, ok := poll(s)
		if !ok {
			break
		}
		out = append(out, m)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return out, s.err != nil
}

// The streams read no holders: every token has none, and no king.
func (s *memStore) Balances(context.Context, []market.HolderKey) (map[market.HolderKey]uint256.Int, error) {
	return nil, nil
}
func (s *memStore) HolderSummary(context.Context, common.Address) (market.HolderSummary, error) {
	return market.HolderSummary{}, nil
}
func (s *memStore) King(context.Context, common.Address) (market.King, error) {
	return market.King{}, curvekit.ErrNotFound
}
