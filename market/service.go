package market

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/big"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/holiman/uint256"

	"github.com/curvekit/curvekit"
	"github.com/curvekit/curvekit/candles"
	"github.com/curvekit/curvekit/curve"
	"github.com/curvekit/curvekit/txbuild"
)

// ServiceConfig configures a Service.
type ServiceConfig struct {
	Store   Store
	Builder *txbuild.Builder
	// Live is optional; see Live.
	Live Live
	// Guard, optional, tells a build's issues what the account's settings would refuse.
	Guard Guard
	// Now is the clock of 24h windows; default time.Now.
	Now func() time.Time
	// CacheTokens keeps up to this many token rows in memory, kept current by Observe. Set it
	// only when an indexer in the same process calls Observe after every sync; 0 reads the store
	// every time.
	CacheTokens int
	// SniperWindow is how long after a token's launch block its buyers count as snipers (see
	// LabelSniper); default DefaultSniperWindow.
	SniperWindow time.Duration
}

// Service answers the market API: tokens, quotes, builds, trades, candles and stats.
type Service struct {
	cfg   ServiceConfig
	cache *tokenCache // nil without CacheTokens
	names namesakeIndex
	memo  memo
}

// NewService returns a Service for cfg.
func NewService(cfg ServiceConfig) (*Service, error) {
	if cfg.Store == nil || cfg.Builder == nil {
		return nil, errors.New("market: service needs a Store and a Builder")
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.SniperWindow <= 0 {
		cfg.SniperWindow = DefaultSniperWindow
	}
	s := &Service{cfg: cfg}
	if cfg.CacheTokens > 0 {
		s.cache = newTokenCache(cfg.CacheTokens)
	}
	return s, nil
}

// Builder returns the transaction builder the service uses.
func (s *Service) Builder() *txbuild.Builder { return s.cfg.Builder }

// Now returns the service's clock: the chain's present. No trade, bar or event id lies after it.
func (s *Service) Now() time.Time { return s.cfg.Now() }

const day = 24 * 60 * 60

// View is a token with the values derived from its state.
type View struct {
	Token
	// Spot is the spot price in pairing-asset base units per whole token (curve or pool), and
	// Price the same as a display value in whole pairing asset per whole token, computed from
	// the reserves without the integer's rounding.
	Spot        uint256.Int
	Price       float64
	MarketCap   uint256.Int
	ProgressBps uint16
	// Liquidity is the pairing asset backing trades: the curve's real quote reserve, or the
	// pool's quote reserve after graduation.
	Liquidity uint256.Int
	// Day is the activity of the 24 hours up to the last indexed block (Store.Day, or the list's
	// Ranks): the figures the token list ranks by, so a token reads the same in the list and on
	// its own.
	Day Activity
	// Namesakes are the other tokens a reader could take this one for. Like Day, only the
	// service's Token and Tokens fill them in.
	Namesakes Namesakes
	// Concentration is how the supply is spread; only the service's Token and Stats fill it
	// in (nil elsewhere).
	Concentration *Concentration
	// Ranks are the discovery values; only the service's Tokens fills them in.
	Ranks *Ranks
	// hexes are Address, Curve, Creator, Quote.Address and Pool in their EIP-55 forms, 42 bytes
	// each, computed once with the view (see AddressHex).
	hexes string
}

const hexLen = 2 + 2*common.AddressLength

// AddressHex is the token's address in its EIP-55 form: kept with a view the service made, so
// the hot reads do not hash it again; computed for any other.
func (v *View) AddressHex() string { return v.hexOf(0, v.Address) }

// CurveHex is the curve's address in its EIP-55 form, as AddressHex.
func (v *View) CurveHex() string { return v.hexOf(1, v.Curve) }

// CreatorHex is the creator's address in its EIP-55 form, as AddressHex.
func (v *View) CreatorHex() string { return v.hexOf(2, v.Creator) }

// QuoteHex is the pairing asset's address in its EIP-55 form, as AddressHex.
func (v *View) QuoteHex() string { return v.hexOf(3, v.Quote.Address) }

// PoolHex is the pool's address in its EIP-55 form, as AddressHex.
func (v *View) PoolHex() string { return v.hexOf(4, v.Pool) }

func (v *View) hexOf(i int, a common.Address) string {
	if len(v.hexes) == 5*hexLen {
		return v.hexes[i*hexLen : (i+1)*hexLen]
	}
	return a.Hex()
}

// Market returns what pricing and building need for t.
func (t *Token) Market() txbuild.Market {
	return txbuild.Market{
		Token: t.Address, Curve: t.Curve, Quote: t.Quote.Address, Params: t.Params, State: t.State,
		Pool: *t.pool(),
	}
}

func (s *Service) view(t Token, act Activity) View {
	v := viewOf(t)
	v.Day = act
	return v
}

// viewOf derives t's values (without the day's activity). The token cache keeps them with each
// token, computed once per change of its state instead of once per read.
func viewOf(t Token) View {
	v := View{Token: t, Spot: t.SpotPrice(), MarketCap: t.MarketCap(), ProgressBps: t.Progress(),
		hexes: t.Address.Hex() + t.Curve.Hex() + t.Creator.Hex() + t.Quote.Address.Hex() + t.Pool.Hex()}
	if t.State.Graduated {
		v.Liquidity = t.PoolReserveQuote
		v.Price = ratio(&t.PoolReserveQuote, &t.PoolReserveToken, t.Quote.Decimals, t.Decimals)
	} else {
		v.Liquidity = t.State.RealQuote
		v.Price = ratio(&t.State.VirtualQuote, &t.State.VirtualToken, t.Quote.Decimals, t.Decimals)
	}
	return v
}

// ratio returns quote/token in whole units of each, a display value.
func ratio(quote, token *uint256.Int, quoteDecimals, tokenDecimals uint8) float64 {
	if token.IsZero() {
		return 0
	}
	q := new(big.Float).SetInt(quote.ToBig())
	q.Quo(q, new(big.Float).SetInt(token.ToBig()))
	f, _ := q.Float64()
	return f * math.Pow10(int(tokenDecimals)-int(quoteDecimals))
}

// Token returns one token; curvekit.ErrNotFound when unknown.
func (s *Service) Token(ctx context.Context, addr common.Address) (View, error) {
	v, _, err := s.tokenDay(ctx, addr)
	if err != nil {
		return View{}, err
	}
	out := [1]View{v}
	if err := s.names.fill(ctx, s.cfg.Store, out[:]); err != nil {
		return View{}, err
	}
	c, err := s.concentrationOf(ctx, &v.Token)
	if err != nil {
		return View{}, err
	}
	out[0].Concentration = &c
	return out[0], nil
}

// tokenDay is one token with its day's activity, without its namesakes, and the day it read.
func (s *Service) tokenDay(ctx context.Context, addr common.Address) (View, Day, error) {
	v, err := s.tokenView(ctx, addr)
	if err != nil {
		return View{}, Day{}, err
	}
	d, err := s.dayOf(ctx, addr)
	if err != nil {
		return View{}, Day{}, err
	}
	out := *v
	out.Day = Activity{Volume: d.Volume, Buys: d.Buys, Sells: d.Sells}
	return out, d, nil
}

// ListPage is a page of token views.
type ListPage struct {
	Tokens []View
	Next   string
}

// maxSymbolPages bounds the pages of search results BySymbol reads to find every token with a
// symbol (a symbol that is also a common substring of names can match many tokens).
const maxSymbolPages = 10

// TokenLister lists tokens a page at a time; Service is one.
type TokenLister interface {
	Tokens(ctx context.Context, q TokenQuery) (ListPage, error)
}

// BySymbol returns every token l lists whose symbol is symbol, case-insensitively: anyone can
// launch a second DETH, so a symbol names one token only when one token has it.
func BySymbol(ctx context.Context, l TokenLister, symbol string) ([]View, error) {
	var found []View
	q := TokenQuery{Search: symbol, Limit: MaxLimit}
	for range maxSymbolPages {
		page, err := l.Tokens(ctx, q)
		if err != nil {
			return nil, err
		}
		for _, v := range page.Tokens {
			if strings.EqualFold(v.Symbol, symbol) {
				found = append(found, v)
			}
		}
		if page.Next == "" {
			break
		}
		q.Cursor = page.Next
	}
	return found, nil
}

// Tokens lists tokens; see TokenQuery. A Quote that is neither native ETH nor the pairing asset of
// any stored token is curvekit.ErrNotFound (SPEC 7: an unknown quote asset is 404).
func (s *Service) Tokens(ctx context.Context, q TokenQuery) (ListPage, error) {
	q.Now = s.cfg.Now().Unix()
	page, err := s.cfg.Store.Tokens(ctx, q)
	if err != nil {
		return ListPage{}, err
	}
	if len(page.Tokens) == 0 && q.Quote != nil && *q.Quote != (common.Address{}) {
		// An empty page may come from the other filters: ask for the asset alone.
		known, err := s.cfg.Store.Tokens(ctx, TokenQuery{Quote: q.Quote, Limit: 1, Now: q.Now})
		if err != nil {
			return ListPage{}, err
		}
		if len(known.Tokens) == 0 {
			return ListPage{}, fmt.Errorf("%w: quote asset not found", curvekit.ErrNotFound)
		}
	}
	// The day's activity of a listed token is the one the store keeps with its ranks, as of its
	// last batch: a page reads no trades.
	out := ListPage{Tokens: make([]View, len(page.Tokens)), Next: page.Next}
	for i, t := range page.Tokens {
		var day Activity
		if i < len(page.Ranks) {
			r := page.Ranks[i]
			out.Tokens[i].Ranks = &r
			day = Activity{Volume: r.Volume24h, Buys: r.Buys24h, Sells: r.Sells24h}
		}
		ranks := out.Tokens[i].Ranks
		out.Tokens[i] = s.view(t, day)
		out.Tokens[i].Ranks = ranks
	}
	if err := s.names.fill(ctx, s.cfg.Store, out.Tokens); err != nil {
		return ListPage{}, err
	}
	return out, nil
}

// QuoteResult is a priced hypothetical trade with the token it prices.
type QuoteResult struct {
	// Token is the token's view without Day. It may be the service's cached one, shared by
	// every reader: read it, never change it.
	Token *View
	Quote txbuild.Quote
}

// Quote prices an exact-input trade of amount (a decimal string in whole units: the pairing
// asset for a buy, tokens for a sell) against the token's current venue. Input errors wrap
// curvekit.ErrInvalid; an unknown token is curvekit.ErrNotFound.
func (s *Service) Quote(ctx context.Context, addr common.Address, side curvekit.Side, amount string) (QuoteResult, error) {
	v, err := s.tokenView(ctx, addr)
	if err != nil {
		return QuoteResult{}, err
	}
	in, err := parseTradeAmount(&v.Token, side, amount)
	if err != nil {
		return QuoteResult{}, err
	}
	m := v.Market()
	q, err := txbuild.QuoteTrade(&m, side, &in)
	if err != nil {
		return QuoteResult{}, tradeError(err)
	}
	return QuoteResult{Token: v, Quote: q}, nil
}

// parseTradeAmount parses a positive amount in the unit the side spends.
func parseTradeAmount(t *Token, side curvekit.Side, amount string) (uint256.Int, error) {
	if side != curvekit.Buy && side != curvekit.Sell {
		return uint256.Int{}, fmt.Errorf("%w: type must be buy or sell", curvekit.ErrInvalid)
	}
	decimals := t.Quote.Decimals
	if side == curvekit.Sell {
		decimals = t.Decimals
	}
	v, err := curvekit.ParseAmount(amount, decimals)
	if err != nil {
		return v, err
	}
	if v.IsZero() {
		return v, fmt.Errorf("%w: amount must be positive", curvekit.ErrInvalid)
	}
	return v, nil
}

// tradeError turns pricing failures into validation errors with a message a client can act on.
func tradeError(err error) error {
	switch {
	case errors.Is(err, curve.ErrTooSmall):
		return fmt.Errorf("%w: amount too small: the trade would receive nothing", curvekit.ErrInvalid)
	case errors.Is(err, curve.ErrInsufficientReserve):
		return fmt.Errorf("%w: amount exceeds what the reserves can cover", curvekit.ErrInvalid)
	case errors.Is(err, curve.ErrOverflow):
		return fmt.Errorf("%w: amount too large", curvekit.ErrInvalid)
	case errors.Is(err, curve.ErrZeroAmount):
		return fmt.Errorf("%w: amount must be positive", curvekit.ErrInvalid)
	case errors.Is(err, curve.ErrGraduated), errors.Is(err, curve.ErrInvalidParams), errors.Is(err, curve.ErrInvalidState):
		return fmt.Errorf("%w: %v", curvekit.ErrInvalid, err)
	}
	return err
}

// BuildRequest is a trade to build.
type BuildRequest struct {
	Side   curvekit.Side
	Amount string
	// SlippageBps is the tolerance on the quoted output.
	SlippageBps uint16
	// Wallet is the sending wallet, when known (the caller's session wallet or the recipient).
	Wallet common.Address
	// Recipient receives a pool swap's output; required on the pool.
	Recipient common.Address
	// Issues asks for the issues Wallet would hit sending the build (BuildResult.Issues).
	Issues bool
	// Owner: the caller is authenticated as the account whose wallet is Wallet, so the issues
	// include what the account's settings would refuse. Set it for no one else.
	Owner bool
}

// BuildResult is a built trade and the quote it was built from.
type BuildResult struct {
	Token View
	Quote txbuild.Quote
	// MinOut is the least output the transaction accepts.
	MinOut   uint256.Int
	Deadline int64
	Plan     txbuild.Plan
	// Issues are the sending wallet's, when the request asked for them.
	Issues *Issues
}

// BuildTx quotes and builds an unsigned trade. Nothing is signed or sent. With a known wallet
// and a Wallets reader, the approval appears only when the allowance is short, and the main
// transaction carries a gas estimate when it needs no approval first.
func (s *Service) BuildTx(ctx context.Context, addr common.Address, r BuildRequest) (BuildResult, error) {
	t, err := s.token(ctx, addr)
	if err != nil {
		return BuildResult{}, err
	}
	in, err := parseTradeAmount(&t, r.Side, r.Amount)
	if err != nil {
		return BuildResult{}, err
	}
	if s.cfg.Live != nil {
		if err := s.refresh(ctx, &t); err != nil {
			return BuildResult{}, err
		}
	}
	m := t.Market()
	from := r.Wallet
	if from == (common.Address{}) {
		from = r.Recipient
	}
	if m.Venue() == curvekit.VenueCurve && r.Wallet != (common.Address{}) && r.Recipient != (common.Address{}) && r.Recipient != r.Wallet {
		return BuildResult{}, fmt.Errorf("%w: on the curve the output goes to the sending wallet: give a recipient other than from only once the token trades on the pool", curvekit.ErrInvalid)
	}
	if m.Venue() == curvekit.VenuePool && r.Recipient == (common.Address{}) && r.Wallet == (common.Address{}) {
		return BuildResult{}, fmt.Errorf("%w: %w", curvekit.ErrInvalid, txbuild.ErrRecipientRequired)
	}
	trade := txbuild.Trade{Side: r.Side, Amount: in, SlippageBps: r.SlippageBps, From: from, Recipient: r.Recipient}
	trade.Deadline = s.cfg.Builder.Config().Now().Add(s.cfg.Builder.Config().Deadline).Unix()
	if s.cfg.Live != nil && from != (common.Address{}) {
		if spent, spender := spendOf(&t, &m, r.Side, s.cfg.Builder.Config().Router); spent != (common.Address{}) {
			a, err := s.cfg.Live.Allowance(ctx, spent, from, spender)
			if err != nil {
				return BuildResult{}, fmt.Errorf("market: read allowance: %w", err)
			}
			trade.Allowance = &a
		}
	}
	q, plan, err := s.cfg.Builder.Trade(&m, trade)
	if err != nil {
		if errors.Is(err, txbuild.ErrRecipientRequired) {
			return BuildResult{}, fmt.Errorf("%w: %w", curvekit.ErrInvalid, err)
		}
		return BuildResult{}, tradeError(err)
	}
	if s.cfg.Live != nil && from != (common.Address{}) && plan.Approval == nil {
		// An estimate fails when the wallet cannot afford the trade; the build stays valid.
		if g, err := s.cfg.Live.EstimateGas(ctx, &plan.Tx); err == nil {
			plan.Tx.Gas = g
		}
	}
	res := BuildResult{Token: s.view(t, Activity{}), Quote: q, MinOut: txbuild.MinOut(&q.Out, r.SlippageBps), Deadline: trade.Deadline, Plan: plan}
	if r.Issues && from != (common.Address{}) {
		asset, spender := spendOf(&t, &m, r.Side, s.cfg.Builder.Config().Router)
		decimals := t.Decimals
		if r.Side == curvekit.Buy {
			decimals = t.Quote.Decimals
		}
		is, err := s.IssuesOf(ctx, &IssuesParams{From: from, Owner: r.Owner, Asset: asset, Decimals: decimals, Need: in,
			Spender: spender, Allowance: trade.Allowance, Plan: &res.Plan})
		if err != nil {
			return BuildResult{}, err
		}
		res.Issues = &is
	}
	return res, nil
}

// refresh replaces t's indexed reserves with the chain's current ones.
func (s *Service) refresh(ctx context.Context, t *Token) error {
	st, err := s.cfg.Live.CurveState(ctx, t.Curve)
	if err != nil {
		return fmt.Errorf("market: read curve state: %w", err)
	}
	if st.Graduated && t.Pool == (common.Address{}) {
		// Graduated since the last sync: the indexer has not seen the pool yet.
		return ErrGraduating
	}
	t.State = st
	if st.Graduated {
		quote := t.Quote.Address
		if quote == (common.Address{}) {
			quote = s.cfg.Builder.Config().WETH
		}
		rq, rt, err := s.cfg.Live.PoolReserves(ctx, t.Pool, quote)
		if err != nil {
			return fmt.Errorf("market: read pool reserves: %w", err)
		}
		t.PoolReserveQuote, t.PoolReserveToken = rq, rt
	}
	return nil
}

// ErrGraduating refuses a trade of a token whose curve has graduated on chain while the indexer
// has not yet seen its pool: for a moment neither venue can be priced. It is an invalid request
// (400) to an HTTP caller; the orders engine tries the fire again.
var ErrGraduating = fmt.Errorf("%w: the token is graduating; try again in a moment", curvekit.ErrInvalid)

// GraduatedNow reads on chain whether token's curve has graduated, which the store may not show
// yet; without a Live port it answers the store's view.
func (s *Service) GraduatedNow(ctx context.Context, token common.Address) (bool, error) {
	t, err := s.token(ctx, token)
	if err != nil || s.cfg.Live == nil {
		return t.State.Graduated, err
	}
	st, err := s.cfg.Live.CurveState(ctx, t.Curve)
	if err != nil {
		return false, fmt.Errorf("market: read curve state: %w", err)
	}
	return st.Graduated, nil
}

// spendOf returns the ERC-20 a trade spends and who pulls it, or the zero address when the trade
// spends native ETH.
func spendOf(t *Token, m *txbuild.Market, side curvekit.Side, router common.Address) (asset, spender common.Address) {
	spender = t.Curve
	if m.Venue() == curvekit.VenuePool {
		spender = router
	}
	if side == curvekit.Sell {
		return t.Address, spender
	}
	return t.Quote.Address, spender
}

// Trades returns a page of a token's trades, newest first.
func (s *Service) Trades(ctx context.Context, q TradeQuery) (TradePage, Token, error) {
	t, err := s.token(ctx, q.Token)
	if err != nil {
		return TradePage{}, Token{}, err
	}
	p, err := s.cfg.Store.Trades(ctx, q)
	return p, t, err
}

// MaxBars is the most bars one candles call returns.
const MaxBars = 1000

// CandleQuery selects a window of bars.
type CandleQuery struct {
	Token      common.Address
	Resolution candles.Resolution
	// From and To are Unix seconds, inclusive; To 0 means now, From 0 means MaxBars (or Limit)
	// bars before To. A To after the present (now, or the token's last trade if the clock lags
	// the chain) counts as the present: no bar is made up for the future.
	From, To int64
	Limit    int
}

// Series is a window of bars.
type Series struct {
	Token      Token
	Resolution candles.Resolution
	From, To   int64
	Bars       []candles.Bar
	// Prev is the start of the bucket before the first bar when the token has history there (ask
	// again with To = Prev), or 0 when the series starts inside the window or the window is empty
	// and nothing precedes it.
	Prev int64
	// NoData reports a window without bars. With Prev 0 as well, the token has no history up to
	// To at all.
	NoData bool
	// Last is the newest trade the bars include (the window's last, or the one before it), nil
	// when none: a live stream that replays this series takes the trades after it live.
	Last *Trade
}

// Candles returns the bars of a window, rolled up by package candles from the token's stored
// minute, hour or day bars (Store.Bars, see rollUp): the same fold the live streams use, and the
// bars a fold of the window's trades gives. Its memory is the bars it returns and one page of
// stored bars. At most MaxBars bars; when the window holds more, the latest ones are returned and
// Prev points before them.
func (s *Service) Candles(ctx context.Context, q CandleQuery) (Series, error) {
	if !q.Resolution.Valid() {
		return Series{}, fmt.Errorf("%w: unknown resolution", curvekit.ErrInvalid)
	}
	t, err := s.token(ctx, q.Token)
	if err != nil {
		return Series{}, err
	}
	limit := q.Limit
	if limit <= 0 || limit > MaxBars {
		limit = MaxBars
	}
	res := q.Resolution.Seconds()
	now := max(s.cfg.Now().Unix(), t.LastTradeAt)
	to := q.To
	if to == 0 || to > now {
		to = now
	}
	to = q.Resolution.Bucket(to)
	from := q.From
	if from == 0 {
		from = to - int64(limit-1)*res
	}
	if from > to+res-1 {
		if q.To > now && q.From <= q.To {
			return Series{}, fmt.Errorf("%w: from is after the present", curvekit.ErrInvalid)
		}
		return Series{}, fmt.Errorf("%w: from is after to", curvekit.ErrInvalid)
	}
	from = q.Resolution.Bucket(from)
	if n := (to-from)/res + 1; n > int64(limit) {
		from = to - int64(limit-1)*res
	}
	p := candles.RangeParams{Resolution: q.Resolution, From: from, To: to, Limit: limit}
	bars, before, last, err := s.rollUp(ctx, q.Token, p)
	if err != nil {
		return Series{}, err
	}
	out := Series{Token: t, Resolution: q.Resolution, From: from, To: to, Bars: bars, NoData: len(bars) == 0, Last: last}
	if before {
		out.Prev = from - res
	}
	return out, nil
}

// rollUp computes the bars of the window p (From bucket-aligned) from the token's stored bars of
// the coarsest span that divides the resolution (BarSpan: days for 1d, hours for 1h and 4h,
// minutes otherwise), a page at a time: the bars of [From, To + resolution) and the last one
// before From, which it reports. A window reads at most one row per bar of that span: 720 for 1h
// over 30 days, 1,000 for 1d over 1,000 days. It also returns the newest trade the bars include.
func (s *Service) rollUp(ctx context.Context, token common.Address, p candles.RangeParams) ([]candles.Bar, bool, *Trade, error) {
	r, err := candles.NewRoller(p)
	if err != nil {
		return nil, false, nil, fmt.Errorf("market: candles of %s: %w", token, err)
	}
	span := BarSpan(p.Resolution)
	mq := MinuteQuery{Token: token, From: p.From, To: p.Resolution.Bucket(p.To) + p.Resolution.Seconds(), Span: span, Limit: MaxMinutes}
	var before bool
	for first := true; ; first = false {
		page, err := s.cfg.Store.Bars(ctx, mq)
		if err != nil {
			return nil, false, nil, err
		}
		if first && page.Before != nil {
			before = true
			if _, err := r.Add([]candles.Minute{*page.Before}); err != nil {
				return nil, false, nil, fmt.Errorf("market: candles of %s: %w", token, err)
			}
		}
		more, err := r.Add(page.Minutes)
		if err != nil {
			return nil, false, nil, fmt.Errorf("market: candles of %s: %w", token, err)
		}
		n := len(page.Minutes)
		if n < mq.Limit || !more {
			return r.Bars(), before, page.Last, nil
		}
		mq.From = page.Minutes[n-1].Time + span
	}
}

// candleTrade is how the fold sees a trade: its time, chain position, display price and
// pairing-asset notional.
func candleTrade(t *Token, tr *Trade) candles.Trade {
	v, _ := candles.VolumeFromBig(tr.QuoteAmount.ToBig()) // a notional above 2^128 wei cannot exist
	return candles.Trade{
		Time: tr.Time, Block: tr.Block, Index: uint32(tr.LogIndex),
		Price: PriceFloat(&tr.Price, t.Quote.Decimals), Volume: v,
	}
}

// Stats is a token's market summary. Its 24-hour figures are as of the last indexed block, as
// the token list's are (Store.Day): the same instant as the price, which the indexed reserves
// give.
type Stats struct {
	// Token is the token with its day's activity; its Namesakes are left zero.
	Token View
	// Price24hAgo is the display price 24 hours before the last indexed block: the execution
	// price of the last trade at least 24 hours older than it, or the curve's opening price when
	// there is none.
	Price24hAgo float64
	// Change24h is the relative change of the display price over those 24 hours (0.1 = +10%).
	Change24h float64
}

// Stats summarizes a token: price and its 24h change, 24h volume and trade counts, market cap,
// liquidity and graduation progress. It reads the day's figures the store keeps, never the
// day's trades.
func (s *Service) Stats(ctx context.Context, addr common.Address) (Stats, error) {
	v, d, err := s.tokenDay(ctx, addr) // a summary names no token: no namesakes
	if err != nil {
		return Stats{}, err
	}
	c, err := s.concentrationOf(ctx, &v.Token)
	if err != nil {
		return Stats{}, err
	}
	v.Concentration = &c
	st := Stats{Token: v}
	if d.Price24h != nil {
		st.Price24hAgo = PriceFloat(d.Price24h, v.Quote.Decimals)
	} else {
		st.Price24hAgo = ratio(&v.Params.VirtualQuote0, &v.Params.VirtualToken0, v.Quote.Decimals, v.Decimals)
	}
	if st.Price24hAgo > 0 {
		st.Change24h = v.Price/st.Price24hAgo - 1
	}
	return st, nil
}
