package httpapi

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/holiman/uint256"

	"github.com/curvekit/curvekit"
	"github.com/curvekit/curvekit/curve"
	"github.com/curvekit/curvekit/market"
	"github.com/curvekit/curvekit/txbuild"
)

// fakeStore is a hand-written market.Store over maps: enough for the handlers, which only read.
// Its cursors are offsets ("<sort>:<n>"); the real stores' are opaque.
type fakeStore struct {
	mu     sync.Mutex
	tokens map[common.Address]market.Token
	trades map[common.Address][]market.Trade // oldest first
	err    error                             // when set, every read fails with it
	// tokensDelay holds every Tokens call that long; tokensCalls counts the calls by sort.
	tokensDelay time.Duration
	tokensCalls map[market.TokenSort]int
}

var _ market.Store = (*fakeStore)(nil)

func newFakeStore() *fakeStore {
	return &fakeStore{tokens: map[common.Address]market.Token{}, trades: map[common.Address][]market.Trade{}}
}

func (s *fakeStore) add(t market.Token, trades ...market.Trade) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.tokens[t.Address] = t
	s.trades[t.Address] = append(s.trades[t.Address], trades...)
}

// The indexer's methods are not exercised by the handler tests.
func (s *fakeStore) RecentBlocks(context.Context, int) ([]market.Cursor, error) { return nil, nil }
func (s *fakeStore) Touched(context.Context, uint64) ([]common.Address, error)  { return nil, nil }
func (s *fakeStore) Rollback(context.Context, *market.Rollback) error           { return nil }
func (s *fakeStore) Bind(context.Context, market.ChainInfo) error               { return nil }
func (s *fakeStore) Reset(context.Context) error                                { return nil }
func (s *fakeStore) Cursor(context.Context) (market.Cursor, error) {
	return market.Cursor{}, nil
}
func (s *fakeStore) Apply(context.Context, *market.Batch) error {
	return fmt.Errorf("fakeStore: Apply is not supported")
}

func (s *fakeStore) Token(_ context.Context, addr common.Address) (market.Token, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return market.Token{}, s.err
	}
	t, ok := s.tokens[addr]
	if !ok {
		return market.Token{}, curvekit.ErrNotFound
	}
	return t, nil
}

func limitOf(n int) int {
	if n <= 0 {
		return market.DefaultLimit
	}
	return min(n, market.MaxLimit)
}

// offset reads a "<scope>:<n>" cursor.
func offset(cursor, scope string) (int, error) {
	if cursor == "" {
		return 0, nil
	}
	rest, ok := strings.CutPrefix(cursor, scope+":")
	n, err := strconv.Atoi(rest)
	if !ok || err != nil || n < 0 {
		return 0, fmt.Errorf("%w: unknown cursor", curvekit.ErrInvalid)
	}
	return n, nil
}

func page[T any](all []T, start, limit int, scope string) ([]T, string) {
	if start >= len(all) {
		return []T{}, ""
	}
	end := min(start+limit, len(all))
	next := ""
	if end < len(all) {
		next = scope + ":" + strconv.Itoa(end)
	}
	return all[start:end], next
}

func (s *fakeStore) CountNames(_ context.Context, names, symbols []string) (market.NameCounts, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return market.NameCounts{}, s.err
	}
	out := market.NameCounts{Names: map[string]int{}, Symbols: map[string]int{}}
	for _, t := range s.tokens {
		if n := market.FoldName(t.Name); slices.Contains(names, n) {
			out.Names[n]++
		}
		if y := market.FoldName(t.Symbol); slices.Contains(symbols, y) {
			out.Symbols[y]++
		}
	}
	return out, nil
}

func (s *fakeStore) Tokens(_ context.Context, q market.TokenQuery) (market.TokenPage, error) {
	s.mu.Lock()
	delay := s.tokensDelay
	if s.tokensCalls == nil {
		s.tokensCalls = map[market.TokenSort]int{}
	}
	s.tokensCalls[q.Sort]++
	s.mu.Unlock()
	time.Sleep(delay)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return market.TokenPage{}, s.err
	}
	sort := q.Sort
	if sort == "" {
		sort = market.SortNewest
	}
	start, err := offset(q.Cursor, string(sort))
	if err != nil {
		return market.TokenPage{}, err
	}
	var all []market.Token
	for _, t := range s.tokens {
		if q.Phase != "" && t.Phase() != q.Phase {
			continue
		}
		if q.Quote != nil && t.Quote.Address != *q.Quote {
			continue
		}
		if q.Search != "" && !strings.Contains(strings.ToLower(t.Name+" "+t.Symbol), strings.ToLower(q.Search)) {
			continue
		}
		all = append(all, t)
	}
	// Only newest order is modelled; the handlers pass the sort through untouched.
	slices.SortFunc(all, func(a, b market.Token) int {
		if a.LaunchBlock != b.LaunchBlock {
			return int(b.LaunchBlock) - int(a.LaunchBlock)
		}
		return int(b.LaunchLog) - int(a.LaunchLog)
	})
	toks, next := page(all, start, limitOf(q.Limit), string(sort))
	// The day's figures a store keeps beside each token, here up to Now.
	ranks := make([]market.Ranks, len(toks))
	for i, t := range toks {
		for _, tr := range s.trades[t.Address] {
			if tr.Time < q.Now-86400 || tr.Time > q.Now {
				continue
			}
			r := &ranks[i]
			r.Volume24h.Add(&r.Volume24h, &tr.QuoteAmount)
			if tr.Side == curvekit.Buy {
				r.Buys24h++
			} else {
				r.Sells24h++
			}
		}
	}
	return market.TokenPage{Tokens: toks, Ranks: ranks, Next: next}, nil
}

func (s *fakeStore) Trades(_ context.Context, q market.TradeQuery) (market.TradePage, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.tokens[q.Token]; !ok {
		return market.TradePage{}, curvekit.ErrNotFound
	}
	start, err := offset(q.Cursor, "trades")
	if err != nil {
		return market.TradePage{}, err
	}
	all := slices.Clone(s.trades[q.Token])
	slices.Reverse(all)
	trades, next := page(all, start, limitOf(q.Limit), "trades")
	return market.TradePage{Trades: trades, Next: next}, nil
}

func (s *fakeStore) TradesBetween(_ context.Context, q market.RangeQuery) (market.RangeResult, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.tokens[q.Token]; !ok {
		return market.RangeResult{}, curvekit.ErrNotFound
	}
	if q.To < q.From {
		return market.RangeResult{}, fmt.Errorf("%w: to before from", curvekit.ErrInvalid)
	}
	var r market.RangeResult
	for _, tr := range s.trades[q.Token] {
		switch {
		case tr.Time < q.From:
			before := tr
			r.Before = &before
		case tr.Time < q.To:
			r.Trades = append(r.Trades, tr)
		}
	}
	return r, nil
}

func (s *fakeStore) Bars(_ context.Context, q market.MinuteQuery) (market.MinuteResult, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return market.MinuteResult{}, s.err
	}
	t, ok := s.tokens[q.Token]
	if !ok {
		return market.MinuteResult{}, curvekit.ErrNotFound
	}
	return market.BarsOf(&t, s.trades[q.Token], q)
}

// Day answers as a store whose last batch was at now, the test servers' clock: the figures of
// the trades of the day up to it, and the price of the last trade at least a day before it.
func (s *fakeStore) Day(_ context.Context, token common.Address) (market.Day, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return market.Day{}, s.err
	}
	if _, ok := s.tokens[token]; !ok {
		return market.Day{}, curvekit.ErrNotFound
	}
	d := market.Day{At: now}
	var ref *market.Trade
	for i, tr := range s.trades[token] {
		if tr.Time <= now-86400 && (ref == nil || tr.Time >= ref.Time) {
			ref = &s.trades[token][i]
		}
		if tr.Time < now-86400 || tr.Time > now {
			continue
		}
		d.Volume.Add(&d.Volume, &tr.QuoteAmount)
		if tr.Side == curvekit.Buy {
			d.Buys++
		} else {
			d.Sells++
		}
	}
	if ref != nil {
		p := ref.Price
		d.Price24h = &p
	}
	return d, nil
}

// fakeLive reports a fixed allowance and gas estimate, so builds show their approval step and
// gas field, and the fake store's reserves as the chain's current state.
type fakeLive struct {
	allowance uint256.Int
	balance   uint256.Int
	gas       uint64
	store     *fakeStore
}

var _ market.Live = (*fakeLive)(nil)

func (w *fakeLive) CurveState(ctx context.Context, curveAddr common.Address) (curve.State, error) {
	w.store.mu.Lock()
	defer w.store.mu.Unlock()
	for _, t := range w.store.tokens {
		if t.Curve == curveAddr {
			return t.State, nil
		}
	}
	return curve.State{}, errors.New("fake: unknown curve")
}

func (w *fakeLive) PoolReserves(ctx context.Context, pair, quote common.Address) (uint256.Int, uint256.Int, error) {
	w.store.mu.Lock()
	defer w.store.mu.Unlock()
	for _, t := range w.store.tokens {
		if t.Pool == pair {
			return t.PoolReserveQuote, t.PoolReserveToken, nil
		}
	}
	return uint256.Int{}, uint256.Int{}, errors.New("fake: unknown pool")
}

func (w *fakeLive) Allowance(context.Context, common.Address, common.Address, common.Address) (uint256.Int, error) {
	return w.allowance, nil
}

func (w *fakeLive) EstimateGas(context.Context, *txbuild.Tx) (uint64, error) {
	return w.gas, nil
}

func (w *fakeLive) Balance(context.Context, common.Address, common.Address) (uint256.Int, error) {
	return w.balance, nil
}

// The fake knows no holders: every token has none.
func (s *fakeStore) Balances(context.Context, []market.HolderKey) (map[market.HolderKey]uint256.Int, error) {
	return map[market.HolderKey]uint256.Int{}, s.err
}
func (s *fakeStore) HoldersChanged(context.Context, uint64) ([]market.HolderKey, error) {
	return nil, nil
}
func (s *fakeStore) Holders(ctx context.Context, q market.HolderQuery) (market.HolderPage, error) {
	_, err := s.Token(ctx, q.Token)
	return market.HolderPage{}, err
}
func (s *fakeStore) HolderSummary(ctx context.Context, token common.Address) (market.HolderSummary, error) {
	_, err := s.Token(ctx, token)
	return market.HolderSummary{}, err
}
func (s *fakeStore) King(context.Context, common.Address) (market.King, error) {
	return market.King{}, curvekit.ErrNotFound
}
func (s *fakeStore) TradesForward(_ context.Context, q market.ForwardQuery) ([]market.Trade, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []market.Trade
	for _, tr := range s.trades[q.Token] {
		p := market.PositionOf(&tr)
		if tr.Time < q.From || tr.Time >= q.To || (q.After != nil && !after(p, *q.After)) {
			continue
		}
		if out = append(out, tr); q.Limit > 0 && len(out) == q.Limit {
			break
		}
	}
	return out, nil
}

func (s *fakeStore) Buyers(ctx context.Context, q market.ForwardQuery) ([]common.Address, error) {
	q.Limit = 0 // the whole range
	trades, err := s.TradesForward(ctx, q)
	if err != nil {
		return nil, err
	}
	seen := map[common.Address]bool{}
	var out []common.Address
	for _, tr := range trades {
		if tr.Side == curvekit.Buy && !seen[tr.Recipient] {
			seen[tr.Recipient] = true
			out = append(out, tr.Recipient)
		}
	}
	return out, nil
}

func after(p, q market.Position) bool {
	if p.Time != q.Time {
		return p.Time > q.Time
	}
	if p.Block != q.Block {
		return p.Block > q.Block
	}
	return p.Log > q.Log
}
