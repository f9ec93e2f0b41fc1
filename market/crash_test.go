package market_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/google/go-cmp/cmp"
	"github.com/holiman/uint256"

	"github.com/curvekit/curvekit"
	"github.com/curvekit/curvekit/adapters/bunstore"
	"github.com/curvekit/curvekit/market"
)

var errCrash = errors.New("injected crash")

// failpoint counts the indexer's port calls and crashes at call number at (1-based): before the
// call, or, with afterCommit, after an Apply or Rollback has committed (the process dies before
// it learns the result).
type failpoint struct {
	at          int
	afterCommit bool
	n           int
}

func (f *failpoint) step() bool {
	f.n++
	return f.n == f.at
}

type crashChain struct {
	market.Chain
	f *failpoint
}

func (c crashChain) Info(ctx context.Context) (market.ChainInfo, error) {
	if c.f.step() {
		return market.ChainInfo{}, errCrash
	}
	return c.Chain.Info(ctx)
}

func (c crashChain) Head(ctx context.Context) (market.BlockRef, error) {
	if c.f.step() {
		return market.BlockRef{}, errCrash
	}
	return c.Chain.Head(ctx)
}

func (c crashChain) Block(ctx context.Context, n uint64) (market.BlockRef, error) {
	if c.f.step() {
		return market.BlockRef{}, errCrash
	}
	return c.Chain.Block(ctx, n)
}

func (c crashChain) Events(ctx context.Context, q market.EventQuery) ([]market.Event, error) {
	if c.f.step() {
		return nil, errCrash
	}
	return c.Chain.Events(ctx, q)
}

func (c crashChain) Launch(ctx context.Context, token common.Address) (market.LaunchInfo, error) {
	if c.f.step() {
		return market.LaunchInfo{}, errCrash
	}
	return c.Chain.Launch(ctx, token)
}

type crashStore struct {
	market.Store
	f *failpoint
}

func (s crashStore) Cursor(ctx context.Context) (market.Cursor, error) {
	if s.f.step() {
		return market.Cursor{}, errCrash
	}
	return s.Store.Cursor(ctx)
}

func (s crashStore) Tokens(ctx context.Context, q market.TokenQuery) (market.TokenPage, error) {
	if s.f.step() {
		return market.TokenPage{}, errCrash
	}
	return s.Store.Tokens(ctx, q)
}

func (s crashStore) Bind(ctx context.Context, c market.ChainInfo) error {
	if s.f.step() {
		return errCrash
	}
	return s.Store.Bind(ctx, c)
}

func (s crashStore) Apply(ctx context.Context, b *market.Batch) error {
	if s.f.step() {
		if s.f.afterCommit {
			if err := s.Store.Apply(ctx, b); err != nil {
				return err
			}
		}
		return errCrash
	}
	return s.Store.Apply(ctx, b)
}

// Stopping the indexer at every one of its steps (each call to the chain or the store, and right
// after each commit) and restarting it gives the same store as an uninterrupted run.
func TestIndexerCrashAtEveryStep(t *testing.T) {
	t.Parallel()
	if raceDetector {
		t.Skip("a single-goroutine property: the plain suite runs it")
	}
	w := newWorld(t, "")
	// History worth several batches: trades on all three demo tokens, both directions.
	acc := w.dev.Accounts[4]
	w.sync()
	w.trade(acc, w.dev.ETHToken.Token, curvekit.Buy, uint256.NewInt(2e17))
	w.trade(acc, w.dev.USDToken.Token, curvekit.Buy, uint256.NewInt(30_000_000))
	w.trade(acc, w.dev.GraduatedToken.Token, curvekit.Buy, uint256.NewInt(1e17))
	held, err := w.chain.Balance(w.ctx, w.dev.ETHToken.Token, acc.Address)
	if err != nil {
		t.Fatal(err)
	}
	w.trade(acc, w.dev.ETHToken.Token, curvekit.Sell, new(uint256.Int).Div(&held, uint256.NewInt(3)))

	// Reference: one uninterrupted run, in the same batch size.
	const batch = 4
	run := func(name string, f *failpoint) (dump, error) {
		db, err := bunstore.Open(w.ctx, bunstore.Config{DSN: filepath.Join(t.TempDir(), name+".db")})
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		store := db.Market()
		var crashErr error
		if f != nil {
			ix, err := market.NewIndexer(w.ctx, market.IndexerConfig{Chain: crashChain{w.chain, f}, Store: crashStore{store, f}, BatchBlocks: batch})
			if err == nil {
				_, err = ix.Sync(w.ctx)
			}
			crashErr = err
		}
		// Restart without failures and finish.
		ix, err := market.NewIndexer(w.ctx, market.IndexerConfig{Chain: w.chain, Store: store, BatchBlocks: batch})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := ix.Sync(w.ctx); err != nil {
			t.Fatal(err)
		}
		return dumpStore(t, store), crashErr
	}
	want, _ := run("reference", nil)

	// Count the steps of an uninterrupted run, then crash at each of them in turn.
	counter := &failpoint{at: -1}
	if _, err := run("count", counter); err != nil {
		t.Fatal(err)
	}
	steps := counter.n
	if steps < 10 {
		t.Fatalf("only %d steps: the history is too short to mean much", steps)
	}
	crashes := 0
	for at := 1; at <= steps; at++ {
		for _, afterCommit := range []bool{false, true} {
			name := fmt.Sprintf("crash-%d-%v", at, afterCommit)
			got, err := run(name, &failpoint{at: at, afterCommit: afterCommit})
			if errors.Is(err, errCrash) {
				crashes++
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Fatalf("%s: store differs from an uninterrupted run (-want +got):\n%s", name, diff)
			}
		}
	}
	if crashes < steps {
		t.Fatalf("only %d of %d injected crashes happened", crashes, steps)
	}
	t.Logf("crashed at each of %d steps, before and after commits: the store always equals an uninterrupted run", steps)
}
