// Package testworld builds the market side of curvekit on real parts for tests: the in-process
// devnet, the evm adapter, bunstore on a SQLite file, an indexer synced to the chain once, the
// transaction builder and the market service. Tests of the services built on top (agent, launch,
// the HTTP API, the LLM adapter) start from it instead of wiring the same parts each.
package testworld

import (
	"context"
	"log/slog"
	"path/filepath"
	"testing"
	"time"

	"github.com/curvekit/curvekit/adapters/bunstore"
	"github.com/curvekit/curvekit/adapters/evm"
	"github.com/curvekit/curvekit/adapters/evm/devnet"
	"github.com/curvekit/curvekit/market"
	"github.com/curvekit/curvekit/txbuild"
)

// World is the market side on real parts. Every part closes when the test ends.
type World struct {
	Dev     *devnet.Devnet
	Chain   *evm.Chain
	DB      *bunstore.DB
	DSN     string // the SQLite file behind DB
	Indexer *market.Indexer
	Builder *txbuild.Builder
	Market  *market.Service
	// Clock is the chain's present: the head block's time when the devnet runs ahead of the
	// wall clock (it seals blocks on demand and tests move its time), else the wall clock.
	Clock func() time.Time
}

// New starts a World and indexes the devnet's demo launches.
func New(t testing.TB) *World {
	t.Helper()
	ctx := context.Background()
	dev, err := devnet.Start(devnet.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { dev.Close() })
	chain, err := evm.New(evm.Config{Client: dev.Client, Factory: dev.Addrs.Factory, Router: dev.Addrs.Router})
	if err != nil {
		t.Fatal(err)
	}
	info, err := chain.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	dsn := filepath.Join(t.TempDir(), "world.db")
	db, err := bunstore.Open(ctx, bunstore.Config{DSN: dsn})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	quiet := slog.New(slog.DiscardHandler)
	ix, err := market.NewIndexer(ctx, market.IndexerConfig{Chain: chain, Store: db.Market(), Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ix.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	clock := func() time.Time {
		h, err := chain.Head(context.Background())
		if err != nil || time.Unix(h.Time, 0).Before(time.Now()) {
			return time.Now()
		}
		return time.Unix(h.Time, 0)
	}
	b, err := txbuild.New(txbuild.Config{ChainID: info.ChainID, Factory: dev.Addrs.Factory, Router: dev.Addrs.Router, WETH: info.WETH, Now: clock})
	if err != nil {
		t.Fatal(err)
	}
	mkt, err := market.NewService(market.ServiceConfig{Store: db.Market(), Builder: b, Live: chain, Now: clock})
	if err != nil {
		t.Fatal(err)
	}
	return &World{Dev: dev, Chain: chain, DB: db, DSN: dsn, Indexer: ix, Builder: b, Market: mkt, Clock: clock}
}
