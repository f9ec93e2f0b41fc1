package market

import (
	"context"
	"errors"

	"github.com/ethereum/go-ethereum/common"
	"github.com/holiman/uint256"

	"github.com/curvekit/curvekit/candles"
)

// ErrChainMismatch is returned by Store.Bind when the store already indexes another chain.
var ErrChainMismatch = errors.New("store indexes another chain")

// Store persists what the indexer sees and serves the reads of the market API. Implementations
// return curvekit.ErrNotFound for a missing token (Token, Trades, TradesBetween, Bars) and
// ErrChainMismatch from Bind for another chain. Every method is safe for concurrent use.
// Token names, symbols and URIs come from the chain and may hold any bytes; a store keeps them as
// valid UTF-8, each NUL and each run of invalid bytes read back as U+FFFD (strings.ToValidUTF8),
// so that such a token cannot stop the indexer.
// markettest.Run is the conformance suite every implementation passes.
type Store interface {
	// Bind records the chain this store indexes on first use and refuses another one afterwards
	// with ErrChainMismatch.
	Bind(ctx context.Context, chain ChainInfo) error
	// Reset deletes everything, including the chain binding (a new devnet starts a fresh store).
	Reset(ctx context.Context) error

	// Cursor returns the last fully written block; the zero Cursor before the first batch.
	Cursor(ctx context.Context) (Cursor, error)
	// Apply writes one batch atomically together with its cursor, and folds the trades it stores
	// into their minute, five-minute, hour and day bars (see Bars). Writing a trade, launch or
	// claim that is already stored (same tx hash and log index) is not an error and changes
	// nothing, so a batch may be applied again after a crash. A trade, claim or update of a token
	// that is neither stored nor launched in the batch fails with curvekit.ErrInvalid, and a
	// failed Apply writes nothing.
	Apply(ctx context.Context, b *Batch) error

	// RecentBlocks returns the most recent cursors Apply wrote, newest first, at most limit: the
	// indexer walks them back to find where a reorganized chain forked.
	RecentBlocks(ctx context.Context, limit int) ([]Cursor, error)
	// Touched returns the tokens with a launch, trade or fee claim in a block after the given one.
	Touched(ctx context.Context, after uint64) ([]common.Address, error)
	// Rollback undoes everything written for blocks after r.To in one transaction: it deletes
	// those blocks' launches (with their tokens), trades, claims and recorded cursors, stores the
	// given token states, recomputes those tokens' LastTradeAt and bars from the trades
	// left, moves the cursor to r.To, and counts what it deleted in r.Removed.
	Rollback(ctx context.Context, r *Rollback) error

	Token(ctx context.Context, addr common.Address) (Token, error)
	// Tokens returns a page of tokens in the order of q.Sort (see TokenSort). An unknown sort or
	// phase, or a cursor that a query with the same sort did not return, is curvekit.ErrInvalid.
	Tokens(ctx context.Context, q TokenQuery) (TokenPage, error)
	// CountNames counts the stored tokens whose name folds (FoldName) to each of names, and
	// whose symbol folds to each of symbols. A fold no stored token has is absent or 0. Its cost
	// follows the tokens counted, not the tokens stored.
	CountNames(ctx context.Context, names, symbols []string) (NameCounts, error)
	// Trades returns a token's trades newest first (block, then log index, descending).
	Trades(ctx context.Context, q TradeQuery) (TradePage, error)
	// TradesBetween returns a token's trades with from <= Time < to, oldest first, and the last
	// trade before from (nil when there is none), which gives a window its opening price: the
	// newest of the trades with Time < From, by time and then chain order. Block times never
	// decrease along a chain (each block's timestamp is above its parent's), so that is also the
	// newest in chain order, and a store may find it, and the trades in range, as such: one that
	// holds trades of a block whose time is behind an earlier block's (a chain that breaks that
	// rule) may answer an older one, and leave such trades out of a range. Its cost follows the
	// trades in range, not the token's trades before them or around them.
	// To < From is curvekit.ErrInvalid.
	TradesBetween(ctx context.Context, q RangeQuery) (RangeResult, error)
	// Bars returns a token's bars of one span (see MinuteQuery): the summary of each minute,
	// hour or day of its stored trades, kept by Apply and Rollback, equal to BarsOf over its
	// trades. A missing token is curvekit.ErrNotFound when it has no bars in or before the
	// range, as for TradesBetween; To < From and a span other than those of MinuteQuery are
	// curvekit.ErrInvalid.
	Bars(ctx context.Context, q MinuteQuery) (MinuteResult, error)
	// Day returns a token's figures of the 24 hours up to the store's clock (see Day): those its
	// list ranks by (Ranks), as the last batch left them, read in a constant number of index
	// probes whatever the token's trades. An unknown token is curvekit.ErrNotFound.
	Day(ctx context.Context, token common.Address) (Day, error)

	// Balances returns the stored balances of the given pairs; a pair never stored is absent.
	Balances(ctx context.Context, keys []HolderKey) (map[HolderKey]uint256.Int, error)
	// HoldersChanged returns the pairs whose balance a Transfer in a block after the given one
	// moved (Holding.Block), of tokens launched at or before it.
	HoldersChanged(ctx context.Context, after uint64) ([]HolderKey, error)
	// Holders returns a page of a token's holders with a positive balance, largest first (then
	// by address, ascending). An unknown token is curvekit.ErrNotFound; a cursor another query
	// returned is curvekit.ErrInvalid.
	Holders(ctx context.Context, q HolderQuery) (HolderPage, error)
	// HolderSummary counts a token's holders with a positive balance and sums the ten largest
	// balances other than its curve's and its pool's; an unknown token is curvekit.ErrNotFound.
	HolderSummary(ctx context.Context, token common.Address) (HolderSummary, error)
	// TradesForward returns at most q.Limit (ExportChunk when 0) of a token's trades with
	// From <= Time < To after q.After, oldest first; no trades for an unknown token.
	TradesForward(ctx context.Context, q ForwardQuery) ([]Trade, error)
	// Buyers returns the recipients of the buys among all of a token's trades with
	// From <= Time < To after q.After (every page TradesForward would return), each once, in no
	// order (q.Limit and q.Into are not used).
	Buyers(ctx context.Context, q ForwardQuery) ([]common.Address, error)
	// King returns the king of the hill of the pairing asset quote (see King), as of the last
	// batch; curvekit.ErrNotFound while no token of that asset trades on its curve.
	King(ctx context.Context, quote common.Address) (King, error)
}

// Activity is a token's trading over a window: a View's day (Day's or Ranks' figures).
type Activity struct {
	Volume uint256.Int // pairing-asset notional, base units
	Buys   int
	Sells  int
}

// Day is a token's last 24 hours as of At, the store's clock: the time its discovery figures
// (Ranks) are as of, which every Apply moves to its batch's Time (or its newest trade's, when
// later) and nothing moves back.
type Day struct {
	// At is the store's clock; 0 before the first batch.
	At int64
	// Volume, Buys and Sells sum the trades with At-24h <= Time <= At exactly (Ranks.Volume24h,
	// Buys24h, Sells24h).
	Volume      uint256.Int
	Buys, Sells int
	// Price24h is the price (as Trade.Price) of the last trade with Time <= At-24h, by time and
	// then chain order: the reference of Ranks.Change24h; nil when there is none.
	Price24h *uint256.Int
}

// Batch is what the indexer writes for a span of blocks, in one transaction.
type Batch struct {
	Cursor   Cursor
	Launches []Token
	Trades   []Trade
	Claims   []FeeClaim
	// Updates carry each touched token's state after the batch. They replace its mutable fields -
	// TotalSupply, State, Pool, PoolFeeBps, PoolReserveQuote, PoolReserveToken, LastTradeAt,
	// GraduatedAt - and leave the launch fields alone. Updates are applied after Launches.
	Updates []Token
	// Holdings are the balances after the batch of every (token, holder) pair a Transfer in the
	// batch moved (see Holding). Writing a holding again changes nothing.
	Holdings []Holding
	// Time is the block time of the batch's last block (Cursor): the present of the discovery
	// state the batch moves (trending scores, price changes, the king).
	Time int64
}

// Rollback is what the indexer writes when the chain reorganized below its cursor.
type Rollback struct {
	// To is the last block both chains share: the new cursor.
	To Cursor
	// Tokens are the states at To of the tokens launched at or before To that Touched reported;
	// only the fields an Update may change are used.
	Tokens []Token
	// Holdings are the balances at To of the pairs HoldersChanged reported, of tokens launched at
	// or before To.
	Holdings []Holding
	// Time is the block time of To.
	Time int64
	// Removed is set by Rollback: what it deleted.
	Removed Removed
}

// Removed counts what a Rollback deleted.
type Removed struct {
	Launches, Trades, Claims int
}

// TokenSort orders a token list. Every order is descending, and ties (tokens without trades in
// the window, equal market caps, equal progress) order newest first.
type TokenSort string

const (
	// SortNewest orders by launch: LaunchBlock, then LaunchLog. It is the default (empty Sort).
	SortNewest TokenSort = "newest"
	// SortVolume24h orders by the pairing-asset volume of the trades of the day up to the last
	// batch (Ranks.Volume24h). A store may rank by an approximation of the volume (floating
	// point), so tokens whose volumes differ by less than about one part in 10^15 may appear in
	// either order; Ranks gives the exact figures.
	SortVolume24h TokenSort = "volume24h"
	// SortMarketCap orders by Token.MarketCap.
	SortMarketCap TokenSort = "marketCap"
	// SortProgress orders by Token.Progress.
	SortProgress TokenSort = "progress"
	// SortTrending orders by the trending score (Ranks.Trend).
	SortTrending TokenSort = "trending"
	// SortGainers1h and SortGainers24h order by Ranks.Change1h and Ranks.Change24h, largest
	// first; SortLosers24h by Ranks.Change24h, smallest first (ties newest first all the same).
	SortGainers1h  TokenSort = "gainers1h"
	SortGainers24h TokenSort = "gainers24h"
	SortLosers24h  TokenSort = "losers24h"
)

// Page sizes: a Limit of 0 or less means DefaultLimit, and stores cap it at MaxLimit.
const (
	DefaultLimit = 50
	MaxLimit     = 100
)

// TokenQuery selects a page of tokens.
type TokenQuery struct {
	Sort  TokenSort
	Phase Phase // empty: all
	// Quote keeps the tokens paired with this asset (the zero address: native ETH); nil keeps
	// all. Market cap and 24h volume are in the pairing asset's units, so those orders compare
	// like with like only within one pairing asset.
	Quote  *common.Address
	Search string // case-insensitive substring of name or symbol; empty: all
	// ProgressMin and ProgressMax keep the tokens whose Progress (basis points) lies between
	// them, both included; a ProgressMax of 0 means 10,000. "About to graduate" is 8,000 to
	// 10,000 with Phase curve.
	ProgressMin, ProgressMax uint16
	// GraduatedSince keeps the tokens that graduated at or after this block time; 0 keeps all.
	GraduatedSince int64
	Cursor         string // opaque, from a previous page
	Limit          int    // see DefaultLimit and MaxLimit
	// Now is the present of the caller, Unix seconds: Service.Tokens sets it and reads the day's
	// activity it shows beside each token up to it. Stores order by the figures of their last
	// batch and do not read it.
	Now int64
}

// TokenPage is one page of tokens and the cursor of the next, empty at the end.
type TokenPage struct {
	Tokens []Token
	// Ranks are the tokens' discovery values, one per token.
	Ranks []Ranks
	Next  string
}

// TradeQuery selects a page of a token's trades, newest first.
type TradeQuery struct {
	Token  common.Address
	Cursor string // opaque, from a previous page
	Limit  int    // see DefaultLimit and MaxLimit
}

// TradePage is one page of trades and the cursor of the next, empty at the end.
type TradePage struct {
	Trades []Trade
	Next   string
}

// RangeQuery selects a token's trades in [From, To).
type RangeQuery struct {
	Token    common.Address
	From, To int64
}

// RangeResult holds the trades of a range and the last one before it.
type RangeResult struct {
	Before *Trade
	Trades []Trade
}

// MaxMinutes is the most bars one Bars call returns (and its Limit when 0): about three days of
// minutes of a token that trades every minute.
const MaxMinutes = 5000

// The spans of the bars a Store keeps, in seconds (MinuteQuery.Span): every UTC minute, five
// minutes, hour and day with trades.
const (
	SpanMinute      int64 = 60
	SpanFiveMinutes int64 = 300
	SpanHour        int64 = 3600
	SpanDay         int64 = 86400
)

// BarSpan is the coarsest stored span that divides res: the bars a window of res rolls up from
// (each of its buckets is a whole number of them, since both are UTC-aligned).
func BarSpan(res candles.Resolution) int64 {
	for _, span := range [...]int64{SpanDay, SpanHour, SpanFiveMinutes} {
		if res.Seconds()%span == 0 {
			return span
		}
	}
	return SpanMinute
}

// ValidSpan reports whether span is one of a MinuteQuery: 0, SpanMinute, SpanFiveMinutes,
// SpanHour or SpanDay.
func ValidSpan(span int64) bool {
	switch span {
	case 0, SpanMinute, SpanFiveMinutes, SpanHour, SpanDay:
		return true
	}
	return false
}

// MinuteQuery selects a token's bars of one span with From <= Time < To, oldest first.
type MinuteQuery struct {
	Token    common.Address
	From, To int64
	// Span is the bars' length in seconds: 0 or SpanMinute for minutes, SpanHour for hours,
	// SpanDay for days. A bar of a longer span is the candles.Minute of its trades (see
	// candles.Minute.Join), with Time its UTC-aligned start; it rolls up exactly at every
	// resolution the span divides. A caller passes From and To aligned to the span: a bar that
	// starts before From is Before, whatever trades of it lie after From. An hour or day whose
	// trades' volumes sum to 2^128 or more, which a fold of them refuses, is an error wrapping
	// candles.ErrOverflow in the range; as Before (only its close and last trade matter there)
	// its Volume reads 2^128-1.
	Span int64
	// Limit caps the bars returned; 0 or more than MaxMinutes means MaxMinutes. A caller pages
	// on from the last bar's Time plus the span.
	Limit int
}

// MinuteResult is a page of bars of one span.
type MinuteResult struct {
	// Before is the last bar of the span before From, nil when there is none: it opens the
	// window at the previous close.
	Before  *candles.Minute
	Minutes []candles.Minute
	// Last is set on the last page (fewer minutes than the limit): the trade the newest bar of
	// the page ends with, or Before's when the page is empty; nil when both are. It is the newest
	// trade the bars include.
	Last *Trade
}
