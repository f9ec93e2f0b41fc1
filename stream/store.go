package stream

import (
	"context"

	"github.com/ethereum/go-ethereum/common"

	"github.com/curvekit/curvekit/market"
)

// Store is what the streams read: market.Store satisfies it.
type Store interface {
	Token(ctx context.Context, addr common.Address) (market.Token, error)
	// Trades pages a token's trades newest first.
	Trades(ctx context.Context, q market.TradeQuery) (market.TradePage, error)
	// TradesBetween returns a token's trades in [From, To), oldest first, and the last one before.
	TradesBetween(ctx context.Context, q market.RangeQuery) (market.RangeResult, error)
	// Bars returns a token's bars of one span (the feed reads minutes) in [From, To), oldest
	// first, and the last one before.
	Bars(ctx context.Context, q market.MinuteQuery) (market.MinuteResult, error)
}
