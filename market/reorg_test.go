package market_test

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"strconv"
	"sync"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/google/go-cmp/cmp"
	"github.com/holiman/uint256"

	"github.com/curvekit/curvekit"
	"github.com/curvekit/curvekit/adapters/bunstore"
	"github.com/curvekit/curvekit/market"
	"github.com/curvekit/curvekit/txbuild"
)

// dump is everything a store holds that the market API reads.
type dump struct {
	Cursor market.Cursor
	Tokens []market.Token
	Trades map[common.Address][]market.Trade
}

func dumpStore(t *testing.T, s market.Store) dump {
	t.Helper()
	ctx := context.Background()
	d := dump{Trades: map[common.Address][]market.Trade{}}
	var err error
	if d.Cursor, err = s.Cursor(ctx); err != nil {
		t.Fatal(err)
	}
	q := market.TokenQuery{Sort: market.SortNewest, Limit: 100}
	for {
		page, err := s.Tokens(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		d.Tokens = append(d.Tokens, page.Tokens...)
		if page.Next == "" {
			break
		}
		q.Cursor = page.Next
	}
	for _, tok := range d.Tokens {
		tq := market.TradeQuery{Token: tok.Address, Limit: 100}
		for {
			page, err := s.Trades(ctx, tq)
			if err != nil {
				t.Fatal(err)
			}
			d.Trades[tok.Address] = append(d.Trades[tok.Address], page.Trades...)
			if page.Next == "" {
				break
			}
			tq.Cursor = page.Next
		}
	}
	return d
}

// freshIndex indexes the devnet's canonical chain into a new store and dumps it.
func (w *world) freshIndex() dump {
	w.t.Helper()
	db, err := bunstore.Open(w.ctx, bunstore.Config{DSN: filepath.Join(w.t.TempDir(), "fresh.db")})
	if err != nil {
		w.t.Fatal(err)
	}
	defer db.Close()
	store := db.Market()
	ix, err := market.NewIndexer(w.ctx, market.IndexerConfig{Chain: w.chain, Store: store, BatchBlocks: 5})
	if err != nil {
		w.t.Fatal(err)
	}
	if _, err := ix.Sync(w.ctx); err != nil {
		w.t.Fatal(err)
	}
	return dumpStore(w.t, store)
}

// A reorganization on the simulated chain (Fork) rolls back what the orphaned blocks wrote and
// indexes the new chain: the store then equals a fresh index of the canonical chain, and the
// indexer reports the rewritten tokens so that their streams reset.
func TestIndexerFollowsAReorganization(t *testing.T) {
	t.Parallel()
	w := newWorld(t, "")
	var mu sync.Mutex
	reorged := map[common.Address]bool{}
	tape := &logTape{}
	ix, err := market.NewIndexer(w.ctx, market.IndexerConfig{Chain: w.chain, Store: w.store, BatchBlocks: 2, Logger: slog.New(tape), OnSync: func(s market.Sync) {
		mu.Lock()
		defer mu.Unlock()
		for _, a := range s.Reorged {
			reorged[a] = true
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	w.ix = ix
	w.sync()
	fork, err := w.chain.Head(w.ctx)
	if err != nil {
		t.Fatal(err)
	}

	// The old chain: trades on two curves and the pool, and a launch, then indexed.
	old := w.dev.Accounts[4]
	w.trade(old, w.dev.ETHToken.Token, curvekit.Buy, uint256.NewInt(3e17))
	w.trade(old, w.dev.USDToken.Token, curvekit.Buy, uint256.NewInt(40_000_000))
	w.trade(old, w.dev.GraduatedToken.Token, curvekit.Buy, uint256.NewInt(2e17))
	plan, err := w.builder.Launch(txbuild.Launch{From: old.Address, Name: "Orphan", Symbol: "ORPH", URI: "ipfs://orphan"})
	if err != nil {
		t.Fatal(err)
	}
	to := plan.Tx.To
	if _, err := w.dev.Send(w.ctx, old.Key, &to, plan.Tx.Value.ToBig(), plan.Tx.Data); err != nil {
		t.Fatal(err)
	}
	w.sync()
	before := dumpStore(t, w.store)
	if len(before.Tokens) != 4 {
		t.Fatalf("indexed %d tokens before the reorg, want 4", len(before.Tokens))
	}

	// The new chain forks below all of that and grows longer with other trades.
	if err := w.dev.Backend.Fork(fork.Hash); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 6; i++ {
		w.dev.Mine()
	}
	head, err := w.chain.Head(w.ctx)
	if err != nil {
		t.Fatal(err)
	}
	if head.Number <= before.Cursor.Block {
		t.Fatalf("the fork did not become canonical: head %d, old cursor %d", head.Number, before.Cursor.Block)
	}
	other := w.dev.Accounts[5]
	w.trade(other, w.dev.USDToken.Token, curvekit.Buy, uint256.NewInt(90_000_000))
	w.trade(other, w.dev.GraduatedToken.Token, curvekit.Buy, uint256.NewInt(1e17))

	w.sync()
	after := dumpStore(t, w.store)
	if diff := cmp.Diff(w.freshIndex(), after); diff != "" {
		t.Fatalf("store after the reorg differs from a fresh index of the canonical chain (-fresh +store):\n%s", diff)
	}
	w.checkAgainstChain()
	// The log says which head was left, how deep the reorganization went and what it removed.
	var line *logLine
	for _, l := range tape.take() {
		if l.Msg == "chain reorganized; rolled back" {
			line = &l
		}
	}
	if line == nil {
		t.Fatal("no line about the reorganization")
	}
	back, _ := strconv.ParseUint(line.Attrs["to"], 10, 64)
	removed, launches := 0, 0
	for _, trades := range before.Trades {
		for _, tr := range trades {
			if tr.Block > back {
				removed++
			}
		}
	}
	for _, tk := range before.Tokens {
		if tk.LaunchBlock > back {
			launches++
		}
	}
	want := map[string]string{"oldHead": fmt.Sprint(before.Cursor.Block), "oldHash": before.Cursor.Hash.Hex(), "depth": fmt.Sprint(before.Cursor.Block - back),
		"tradesRemoved": fmt.Sprint(removed), "launchesRemoved": fmt.Sprint(launches)}
	for k, v := range want {
		if line.Attrs[k] != v {
			t.Errorf("the reorganization's log line: %s=%s, want %s (%v)", k, line.Attrs[k], v, line.Attrs)
		}
	}
	if removed < 3 || launches != 1 || back != fork.Number {
		t.Errorf("removed %d trades and %d launches back to %d (fork at %d)", removed, launches, back, fork.Number)
	}
	mu.Lock()
	defer mu.Unlock()
	for _, tk := range []common.Address{w.dev.ETHToken.Token, w.dev.USDToken.Token, w.dev.GraduatedToken.Token} {
		if !reorged[tk] {
			t.Errorf("token %s was rewritten but not reported for a stream reset (%v)", tk, reorged)
		}
	}
}
