package app

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"time"

	"github.com/curvekit/curvekit/adapters/bunstore"
	"github.com/curvekit/curvekit/adapters/evm"
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
	db, err := bunstore.Open(ctx, bunstore.Config{DSN: a.Config.DB, MaxOpenConns: a.Config.DBConns,
		// A frozen leader's open write ends within half its lease, so the lease row it may
		// lock is free when the lease runs out.
		IdleInTransaction: max(a.Config.Lease/2, time.Second)})
	if err != nil {
		return fmt.Errorf("open store: %w", err)
	}
	a.onClose(db.Close)
	a.DB, a.Store = db, db.Market()
	if err := db.Warm(ctx); err != nil {
		return err
	}

	if err := a.wireReplica(ctx); err != nil {
		return err
	}

	clock := time.Now
	if a.Devnet != nil {
		// The devnet seals blocks on demand, so its clock may run ahead of the wall clock:
		// deadlines count from the head block's time.
		clock = func() time.Time {
			head := time.Unix(int64(a.Devnet.Backend.Head().Time), 0)
			if now := time.Now(); head.Before(now) {
				return now
			}
			return head
		}
	}
	a.Builder, err = txbuild.New(txbuild.Config{ChainID: info.ChainID, Factory: a.factory, Router: a.router, WETH: info.WETH, Now: clock})
	if err != nil {
		return err
	}
	a.Market, err = market.NewService(market.ServiceConfig{Store: a.Store, Builder: a.Builder, Live: a.Chain, Guard: &buildGuard{a: a}, Now: clock, CacheTokens: 100_000, SniperWindow: a.Config.SniperWindow})
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
	a.Streams, err = stream.New(stream.Config{Hub: a.Hub, Store: a.Store, Market: a.Market, Codec: codec, Heartbeat: a.Config.Heartbeat, Accounts: accountEvents{a}, Logger: a.Log.With("component", "stream")})
	return err
}

// wireReplica builds the replica: one server among any number sharing the store. It campaigns
// for the indexer's lease at once, so a lone server indexes before it serves; the others follow
// the store, woken by the leader's announcements on PostgreSQL (a SQLite file has none: they poll).
func (a *App) wireReplica(ctx context.Context) error {
	host, _ := os.Hostname()
	random := make([]byte, 4)
	_, _ = rand.Read(random)
	cfg := market.ReplicaConfig{
		Store: a.Store,
		Indexer: market.IndexerConfig{
			Chain: a.Chain, StartBlock: a.Config.StartBlock, PollInterval: a.Config.Poll,
			Confirmations: a.Config.Confirmations,
			// A new devnet is a new chain: start its store afresh instead of refusing it.
			ResetOnChainChange: a.Devnet != nil,
			Logger:             a.Log.With("component", "indexer"),
		},
		Holder: fmt.Sprintf("%s:%d:%s", host, os.Getpid(), hex.EncodeToString(random)),
		TTL:    a.Config.Lease,
		// What the replica takes in reaches the in-process readers (the service's token
		// cache, the streams) through observers, called in order after each commit.
		OnSync: func(s market.Sync) {
			for _, o := range a.observers {
				o(s)
			}
		},
		Logger: a.Log.With("component", "replica"),
	}
	if sub, ok := a.client.(evm.HeadSubscriber); ok && a.Config.Indexer {
		// The indexer syncs as soon as the node announces a head (over WebSocket, or in process
		// on the devnet), and polls besides: the fallback while the subscription is down.
		heads, err := evm.NewHeads(evm.HeadsConfig{Client: sub, Logger: a.Log.With("component", "heads")})
		if err != nil {
			return err
		}
		a.Heads, cfg.Indexer.Wake = heads, heads.Wake()
		// Only the leader subscribes; a node that cannot announce heads (plain HTTP) leaves
		// the indexer to its polls.
		cfg.WhileLeading = func(ctx context.Context) { _ = heads.Run(ctx) }
	}
	if a.Config.Indexer {
		cfg.Lease = a.DB.Lease()
		cfg.Fence = func(term uint64) market.Store { return a.Store.Fenced(term) }
	}
	if a.DB.Postgres() {
		ann, err := a.DB.Announcer()
		if err != nil {
			return err
		}
		cfg.Announcer = ann
	}
	var err error
	if a.Replica, err = market.NewReplica(ctx, cfg); err != nil {
		return err
	}
	leading, err := a.Replica.Campaign(ctx)
	if err != nil {
		return err
	}
	// A server built and closed without serving hands the lease back at once; one that served
	// has already (Serve waits for the replica, which releases it as it stops).
	a.onClose(func() error { a.Replica.Resign(); return nil })
	if !leading && a.Config.Indexer {
		cur, _ := a.DB.Lease().Current(ctx)
		a.Log.Info("another replica leads the indexer; following the store", "leader", cur.Holder, "term", cur.Term)
	}
	return nil
}
