package stream

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/curvekit/curvekit"
	"github.com/curvekit/curvekit/candles"
	"github.com/curvekit/curvekit/market"
)

// MaxQuiet is the most quiet bars a trade's message carries per resolution. A subscriber that
// would need more rebuilds from the store (reset with reason gap).
const MaxQuiet = market.MaxBars

// FeedConfig configures a Feed.
type FeedConfig struct {
	Hub    *Hub
	Store  Store
	Market Market
	Codec  Codec
	// MaxTokens is how many tokens the feed keeps warm (their six current bars); a token beyond it
	// is folded again from the store at its next trade. Default 10,000.
	MaxTokens int
	// Timeout bounds the store reads of one sync; default 10s.
	Timeout time.Duration
	// Logger defaults to slog.Default().
	Logger *slog.Logger
}

func (c *FeedConfig) validate() error {
	if c.Hub == nil || c.Store == nil || c.Market == nil || c.Codec == nil {
		return errors.New("stream: feed needs a Hub, a Store, a Market and a Codec")
	}
	if c.MaxTokens <= 0 {
		c.MaxTokens = 10_000
	}
	if c.Timeout <= 0 {
		c.Timeout = 10 * time.Second
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	return nil
}

// Feed turns what the indexer committed into messages on the hub. Give Apply to
// market.IndexerConfig.OnSync: the indexer calls it after every commit, one sync at a time, before
// it writes the next, so the store reads Apply makes see exactly the state after the sync.
//
// For every trade, in chain order, it publishes on the token's topic one message: the trade and,
// at each of the six resolutions, the bar of the trade's bucket after it, with the flat bars of
// the quiet buckets it closed. Bars come from a candles.Folder per token and resolution, seeded
// from the store at the token's first trade (the day's minute bars before the trade's minute and
// that minute's trades before it), so each bar is the one market.Service.Candles returns for its bucket. Per
// sync it then publishes on GlobalTopic a tick for each token that traded and one refresh, and a
// king for each pairing asset whose king of the hill the sync crowned. A chain reorganization
// resets the tokens it rewrote: their subscribers rebuild from the store.
type Feed struct {
	cfg    FeedConfig
	tokens map[common.Address]*warm
	clock  uint64 // counts trades, for eviction
}

// warm is the fold state of one token.
type warm struct {
	folders [numRes]*candles.Folder
	used    uint64
}

// NewFeed returns a Feed for cfg.
func NewFeed(cfg FeedConfig) (*Feed, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	return &Feed{cfg: cfg, tokens: make(map[common.Address]*warm)}, nil
}

// Apply publishes what s wrote. It is not safe for concurrent use; the indexer serializes syncs.
func (f *Feed) Apply(s market.Sync) {
	ctx, cancel := context.WithTimeout(context.Background(), f.cfg.Timeout)
	defer cancel()
	hub := f.cfg.Hub
	if s.Rewound {
		// Which tokens a reorganization rewrote is unknown here: every token stream rebuilds.
		hub.Rewind()
		clear(f.tokens)
		for _, t := range hub.TokenTopics() {
			hub.Publish(t, &Message{Kind: KindReset, Reason: ReasonReorg})
		}
		f.refresh(ReasonReorg, s.Cursor.Block, ID{})
		return
	}
	if len(s.Reorged) > 0 {
		hub.Rewind()
		for _, a := range s.Reorged {
			f.reset(a, ReasonReorg)
		}
		f.refresh(ReasonReorg, s.Cursor.Block, ID{})
	}
	if s.Batch == nil {
		return
	}
	defer f.kings(ctx, s.Batch)
	if len(s.Batch.Trades) == 0 {
		return
	}
	// Every token that traded has an update with its state after the batch.
	tokens := make(map[common.Address]*market.Token, len(s.Batch.Updates))
	for i := range s.Batch.Launches {
		tokens[s.Batch.Launches[i].Address] = &s.Batch.Launches[i]
	}
	for i := range s.Batch.Updates {
		tokens[s.Batch.Updates[i].Address] = &s.Batch.Updates[i]
	}
	var order []common.Address
	last := make(map[common.Address]*market.Trade)
	failed := make(map[common.Address]bool)
	for i := range s.Batch.Trades {
		tr := &s.Batch.Trades[i]
		if failed[tr.Token] {
			continue
		}
		if _, seen := last[tr.Token]; !seen {
			order = append(order, tr.Token)
		}
		last[tr.Token] = tr
		m, err := f.trade(ctx, tokens[tr.Token], tr)
		if err != nil {
			// The store still has the trade: the token's subscribers rebuild from it.
			f.cfg.Logger.Error("stream: feed lost a token; its streams rebuild", "token", tr.Token, "block", tr.Block, "log", tr.LogIndex, "err", err)
			delete(f.tokens, tr.Token)
			failed[tr.Token] = true
			f.reset(tr.Token, ReasonFeed)
			continue
		}
		hub.Publish(TokenTopic(tr.Token), m)
	}
	for _, a := range order {
		if err := f.tick(ctx, a, last[a]); err != nil {
			f.cfg.Logger.Error("stream: tick failed", "token", a, "err", err)
		}
	}
	lt := &s.Batch.Trades[len(s.Batch.Trades)-1]
	f.refresh(ReasonTrades, s.Cursor.Block, IDOf(lt, lt.Time))
}

// trade folds tr into its token's bars and returns the message that carries both.
func (f *Feed) trade(ctx context.Context, tok *market.Token, tr *market.Trade) (*Message, error) {
	if tok == nil {
		return nil, errors.New("the batch has no state for the token")
	}
	w := f.tokens[tr.Token]
	if w == nil {
		var err error
		if w, err = f.seed(ctx, tok, tr); err != nil {
			return nil, err
		}
	}
	f.clock++
	w.used = f.clock
	id := IDOf(tr, tr.Time)
	m := &Message{Kind: KindTrade, ID: id, IDText: id.String()}
	var err error
	if m.Data, err = f.cfg.Codec.Trade(tok, tr); err != nil {
		return nil, fmt.Errorf("encode trade: %w", err)
	}
	ct := market.CandleTrade(tok, tr)
	for i, fo := range w.folders {
		st, err := fo.Add(ct)
		if err != nil {
			return nil, err
		}
		u := &m.Bars[i]
		if st.Closed && st.Gap > 0 {
			sec := fo.Resolution().Seconds()
			n := min(st.Gap, MaxQuiet)
			u.Quiet = make([]Bar, 0, n)
			for k := st.Gap - n + 1; k <= st.Gap; k++ {
				q := Bar{Bar: st.Prev.Quiet(st.Prev.Time + k*sec)}
				if q.Data, err = f.cfg.Codec.Bar(tok, &q.Bar); err != nil {
					return nil, fmt.Errorf("encode bar: %w", err)
				}
				u.Quiet = append(u.Quiet, q)
			}
		}
		u.Bar.Bar = st.Bar
		if u.Bar.Data, err = f.cfg.Codec.Bar(tok, &u.Bar.Bar); err != nil {
			return nil, fmt.Errorf("encode bar: %w", err)
		}
	}
	return m, nil
}

// seed folds, for a token the feed does not hold, what the store has before tr: the minute bars of
// tr's day before tr's minute (and the last one before the day), then the trades of tr's minute
// before tr. Every resolution's bucket lies within the day and is a whole number of minutes, so
// each folder then holds the bar Candles computes for tr's bucket; the store reads are at most a
// day of minute bars and a minute of trades.
func (f *Feed) seed(ctx context.Context, tok *market.Token, tr *market.Trade) (*warm, error) {
	day := candles.Res1d.Bucket(tr.Time)
	minute := candles.Res1m.Bucket(tr.Time)
	bars, err := f.cfg.Store.Bars(ctx, market.MinuteQuery{Token: tr.Token, From: day, To: minute, Limit: int(candles.Res1d / candles.Res1m)})
	if err != nil {
		return nil, fmt.Errorf("read bars before %d-%d: %w", tr.Block, tr.LogIndex, err)
	}
	r, err := f.cfg.Store.TradesBetween(ctx, market.RangeQuery{Token: tr.Token, From: minute, To: tr.Time + 1})
	if err != nil {
		return nil, fmt.Errorf("read trades before %d-%d: %w", tr.Block, tr.LogIndex, err)
	}
	w := &warm{}
	for i, res := range candles.Resolutions() {
		if w.folders[i], err = candles.NewFolder(res); err != nil {
			return nil, err
		}
	}
	addMinute := func(m candles.Minute) error {
		for _, fo := range w.folders {
			if _, err := fo.AddMinute(m); err != nil {
				return err
			}
		}
		return nil
	}
	if bars.Before != nil {
		if err := addMinute(*bars.Before); err != nil {
			return nil, err
		}
	}
	for _, m := range bars.Minutes {
		if err := addMinute(m); err != nil {
			return nil, err
		}
	}
	at := PosOf(tr)
	for i := range r.Trades {
		if x := &r.Trades[i]; PosOf(x).Less(at) {
			ct := market.CandleTrade(tok, x)
			for _, fo := range w.folders {
				if _, err := fo.Add(ct); err != nil {
					return nil, err
				}
			}
		}
	}
	if len(f.tokens) >= f.cfg.MaxTokens {
		f.evict()
	}
	f.tokens[tr.Token] = w
	return w, nil
}

// evict forgets the token that traded least recently.
func (f *Feed) evict() {
	var oldest common.Address
	var used uint64
	first := true
	for a, w := range f.tokens {
		if first || w.used < used {
			oldest, used, first = a, w.used, false
		}
	}
	delete(f.tokens, oldest)
}

// tick publishes a token's price state after the sync. The service reads the store, which holds
// exactly this sync's state while Apply runs.
func (f *Feed) tick(ctx context.Context, token common.Address, last *market.Trade) error {
	st, err := f.cfg.Market.Stats(ctx, token)
	if err != nil {
		return err
	}
	t := &Tick{Stats: st, Last: last}
	data, err := f.cfg.Codec.Tick(t)
	if err != nil {
		return err
	}
	id := IDOf(last, last.Time)
	f.cfg.Hub.Publish(GlobalTopic, &Message{Kind: KindTick, ID: id, IDText: id.String(), Data: data})
	return nil
}

// kings publishes the king of each pairing asset the batch touched when the batch crowned it:
// the store says since when a king holds the crown, so every replica sends the same events.
func (f *Feed) kings(ctx context.Context, b *market.Batch) {
	seen := make(map[common.Address]bool)
	for _, toks := range [][]market.Token{b.Launches, b.Updates} {
		for i := range toks {
			q := toks[i].Quote.Address
			if seen[q] {
				continue
			}
			seen[q] = true
			k, err := f.cfg.Market.King(ctx, q)
			if errors.Is(err, curvekit.ErrNotFound) {
				continue
			}
			if err != nil {
				f.cfg.Logger.Error("stream: king failed", "quote", q, "err", err)
				continue
			}
			if k.Since < b.Time {
				continue
			}
			data, err := f.cfg.Codec.King(&k)
			if err != nil {
				f.cfg.Logger.Error("stream: encode king", "err", err)
				continue
			}
			f.cfg.Hub.Publish(GlobalTopic, &Message{Kind: KindKing, Data: data})
		}
	}
}

// reset tells a token's subscribers to rebuild, and forgets its fold.
func (f *Feed) reset(token common.Address, reason string) {
	delete(f.tokens, token)
	f.cfg.Hub.Publish(TokenTopic(token), &Message{Kind: KindReset, Reason: reason})
}

func (f *Feed) refresh(reason string, block uint64, id ID) {
	data, err := f.cfg.Codec.Refresh(&Refresh{Reason: reason, Block: block})
	if err != nil {
		f.cfg.Logger.Error("stream: encode refresh", "err", err)
		return
	}
	f.cfg.Hub.Publish(GlobalTopic, &Message{Kind: KindRefresh, ID: id, IDText: id.String(), Data: data, Reason: reason})
}
