package app

import (
	"context"
	"fmt"
	"time"

	"github.com/curvekit/curvekit/adapters/bunstore"
	"github.com/curvekit/curvekit/adapters/httpapi"
	"github.com/curvekit/curvekit/market"
	"github.com/curvekit/curvekit/stream"
	"github.com/curvekit/curvekit/txbuild"
)

// wireMarket opens the store and builds the indexer, the market service and the streams.
func (a *App) wireMarket(ctx context.Context) error {
	info, err := a.Chain.Info(ctx)
	if err != nil {
		return err
	}
	db, err := bunstore.Open(ctx, bunstore.Config{DSN: a.Config.DB})
	if err != nil {
		return fmt.Errorf("open store: %w", err)
	}
	a.onClose(db.Close)
	a.DB, a.Store = db, db.Market()

	// What the indexer writes reaches the in-process readers (the service's token cache, the
	// streams) through observers, called in order after each commit.
	a.Indexer, err = market.NewIndexer(ctx, market.IndexerConfig{
		OnSync: func(s market.Sync) {
			for _, o := range a.observers {
				o(s)
			}
		},
		Chain: a.Chain, Store: a.Store, StartBlock: a.Config.StartBlock, PollInterval: a.Config.Poll,
		Confirmations: a.Config.Confirmations,
		// A new devnet is a new chain: start its store afresh instead of refusing it.
		ResetOnChainChange: a.Devnet != nil,
		Logger:             a.Log.With("component", "indexer"),
	})
	if err != nil {
		return err
	}

	clock := time.Now
	if a.Devnet != nil {
		// The devnet seals blocks on demand, so its clock may run ahead of the wall clock:
		// deadlines count from the head block's time.
		clock = func() time.Time {
			h, err := a.Chain.Head(context.Background())
			if err != nil || time.Unix(h.Time, 0).Before(time.Now()) {
				return time.Now()
			}
			return time.Unix(h.Time, 0)
		}
	}
	a.Builder, err = txbuild.New(txbuild.Config{ChainID: info.ChainID, Factory: a.factory, Router: a.router, WETH: info.WETH, Now: clock})
	if err != nil {
		return err
	}
	a.Market, err = market.NewService(market.ServiceConfig{Store: a.Store, Builder: a.Builder, Live: a.Chain, Now: clock, CacheTokens: 100_000})
	if err != nil {
		return err
	}
	a.observers = append(a.observers, a.Market.Observe)

	// The streams are fed by the indexer alone, after the service's cache: what a client sees
	// live is what REST answers afterwards.
	a.Hub, err = stream.NewHub(stream.HubConfig{Buffer: a.Config.StreamBuffer})
	if err != nil {
		return err
	}
	codec := httpapi.StreamCodec()
	feed, err := stream.NewFeed(stream.FeedConfig{Hub: a.Hub, Store: a.Store, Market: a.Market, Codec: codec, Logger: a.Log.With("component", "feed")})
	if err != nil {
		return err
	}
	a.observers = append(a.observers, feed.Apply)
	a.Streams, err = stream.New(stream.Config{Hub: a.Hub, Store: a.Store, Market: a.Market, Codec: codec, Heartbeat: a.Config.Heartbeat, Logger: a.Log.With("component", "stream")})
	return err
}
