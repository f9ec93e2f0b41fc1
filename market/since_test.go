package market_test

import (
	"log/slog"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/google/go-cmp/cmp"
	"github.com/holiman/uint256"

	"github.com/curvekit/curvekit"
	"github.com/curvekit/curvekit/market"
)

// mutable are the fields a sync changes, which a follower's feed and cache read.
type mutable struct {
	TotalSupply, PoolReserveQuote, PoolReserveToken uint256.Int
	State                                           any
	Pool                                            common.Address
	PoolFeeBps                                      uint16
	LastTradeAt                                     int64
}

func finalStates(b *market.Batch) map[common.Address]mutable {
	out := map[common.Address]mutable{}
	for _, list := range [][]market.Token{b.Launches, b.Updates} {
		for _, t := range list {
			out[t.Address] = mutable{t.TotalSupply, t.PoolReserveQuote, t.PoolReserveToken, t.State, t.Pool, t.PoolFeeBps, t.LastTradeAt}
		}
	}
	return out
}

// A replica that does not index rebuilds from the store exactly what each of the leader's syncs
// carried: the same trades in the same order, and every touched token in its state after the
// sync. A position the store no longer holds is ErrRewound.
func TestSyncSinceRebuildsTheLeadersSyncs(t *testing.T) {
	t.Parallel()
	w := newWorld(t, "")
	prev, err := w.store.Cursor(w.ctx)
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	var failure string
	ix, err := market.NewIndexer(w.ctx, market.IndexerConfig{Chain: w.chain, Store: w.store, BatchBlocks: 3, Logger: slog.New(slog.DiscardHandler),
		OnSync: func(s market.Sync) {
			// Called after the commit and before the next: the store holds exactly this sync.
			got, err := market.SyncSince(w.ctx, w.store, prev)
			prev = s.Cursor
			if failure != "" {
				return
			}
			if err != nil {
				failure = err.Error()
				return
			}
			if got.Cursor != s.Cursor {
				failure = "cursor differs"
				return
			}
			if diff := cmp.Diff(s.Batch.Trades, got.Batch.Trades); diff != "" {
				failure = "trades (-leader +rebuilt):\n" + diff
				return
			}
			want, have := finalStates(s.Batch), finalStates(got.Batch)
			for addr, st := range want {
				if diff := cmp.Diff(st, have[addr]); diff != "" {
					failure = addr.Hex() + " (-leader +rebuilt):\n" + diff
					return
				}
			}
			checked++
		}})
	if err != nil {
		t.Fatal(err)
	}
	sync := func() {
		t.Helper()
		if _, err := ix.Sync(w.ctx); err != nil {
			t.Fatal(err)
		}
		if failure != "" {
			t.Fatal(failure)
		}
	}
	sync() // the devnet's launches, first buys and graduation, 3 blocks per batch
	trader := w.dev.Accounts[4]
	for i := range 6 {
		w.trade(trader, w.dev.ETHToken.Token, curvekit.Buy, uint256.NewInt(uint64(1e16*(i+1))))
		w.trade(trader, w.dev.USDToken.Token, curvekit.Buy, uint256.NewInt(uint64(3_000_000*(i+1))))
		if i%2 == 1 {
			w.trade(trader, w.dev.GraduatedToken.Token, curvekit.Buy, uint256.NewInt(1e16))
		}
		sync()
	}
	sync()
	if checked < 5 {
		t.Fatalf("only %d syncs checked", checked)
	}
	if got, err := market.SyncSince(w.ctx, w.store, prev); err != nil || got.Batch != nil {
		t.Fatalf("nothing new: %+v %v", got, err)
	}
	if _, err := market.SyncSince(w.ctx, w.store, market.Cursor{Block: prev.Block, Hash: common.Hash{0xde, 0xad}}); err != market.ErrRewound {
		t.Fatalf("a position of another chain: %v, want ErrRewound", err)
	}
	if _, err := market.SyncSince(w.ctx, w.store, market.Cursor{Block: prev.Block + 100}); err != market.ErrRewound {
		t.Fatalf("a position past the store's cursor: %v, want ErrRewound", err)
	}
}
