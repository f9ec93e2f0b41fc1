package stream

import (
	"context"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/curvekit/curvekit/market"
)

// Market is the market service the streams share with the REST API: *market.Service satisfies
// it. Replays come from its Candles, ticks from its Stats; Now is the chain's present, which no
// event id the server sent can lie beyond.
type Market interface {
	Candles(ctx context.Context, q market.CandleQuery) (market.Series, error)
	Stats(ctx context.Context, addr common.Address) (market.Stats, error)
	// King is the king of the hill of a pairing asset; curvekit.ErrNotFound while there is none.
	King(ctx context.Context, quote common.Address) (market.KingView, error)
	Now() time.Time
}
