package market_test

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/curvekit/curvekit"
	"github.com/curvekit/curvekit/market"
)

// downChain is a chain whose node stops answering while down is set.
type downChain struct {
	market.Chain
	down  atomic.Bool
	heads atomic.Int64 // Head calls
}

func (c *downChain) Head(ctx context.Context) (market.BlockRef, error) {
	c.heads.Add(1)
	if c.down.Load() {
		return market.BlockRef{}, curvekit.ErrUnavailable
	}
	return c.Chain.Head(ctx)
}

// A wake-up starts a sync at once, between polls; while syncs fail, wake-ups wait for the pause
// after the failure, as polls do: a new head says nothing of a node that does not answer.
func TestIndexerWakeStartsASyncUnlessItFails(t *testing.T) {
	t.Parallel()
	w := newWorld(t, "")
	chain := &downChain{Chain: w.chain}
	wake := make(chan struct{}) // unbuffered: a send succeeds only while Run waits on it
	ix, err := market.NewIndexer(w.ctx, market.IndexerConfig{Chain: chain, Store: w.store, PollInterval: time.Hour, Wake: wake, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(w.ctx)
	var running sync.WaitGroup
	running.Go(func() { _ = ix.Run(ctx) })
	t.Cleanup(func() { cancel(); running.Wait() })
	synced := func(n int64) {
		t.Helper()
		for deadline := time.Now().Add(20 * time.Second); chain.heads.Load() < n; time.Sleep(time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("%d syncs within 20s, want %d", chain.heads.Load(), n)
			}
		}
	}
	synced(1) // the first sync, at once
	for i := range 3 {
		wake <- struct{}{}
		synced(int64(i + 2))
	}
	chain.down.Store(true)
	wake <- struct{}{}
	synced(5)
	for deadline := time.Now().Add(20 * time.Second); ix.Status().Failures == 0; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the failed sync is not in the status after 20s")
		}
	}
	if st := ix.Status(); st.Failures != 1 || !errors.Is(st.LastErr, curvekit.ErrUnavailable) {
		t.Fatalf("status %+v after the node went down", st)
	}
	select {
	case wake <- struct{}{}:
		t.Error("a wake-up was taken while the indexer pauses after a failure")
	case <-time.After(50 * time.Millisecond):
	}
	if n := chain.heads.Load(); n != 5 {
		t.Errorf("%d syncs, want 5: a failing indexer synced again before its pause ended", n)
	}
}
