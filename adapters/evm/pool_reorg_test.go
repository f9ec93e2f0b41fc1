package evm_test

import (
	"errors"
	"testing"

	"github.com/curvekit/curvekit"
	"github.com/curvekit/curvekit/adapters/evm"
	"github.com/curvekit/curvekit/adapters/evm/devnet"
)

// A chain that moved back to a shorter fork, behind a pool: every block above the new head is
// not found (so the indexer finds the block both chains share and rolls back to it), never an
// outage, though the pool saw those blocks before.
func TestPoolFollowsAShorterFork(t *testing.T) {
	dev, err := devnet.Start(devnet.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer dev.Close()
	ctx := t.Context()
	pool, err := evm.NewPool(evm.PoolConfig{Endpoints: []evm.Endpoint{{Name: "devnet", Client: dev.Client}}})
	if err != nil {
		t.Fatal(err)
	}
	chain, err := evm.New(evm.Config{Client: pool, Factory: dev.Addrs.Factory, Router: dev.Addrs.Router})
	if err != nil {
		t.Fatal(err)
	}
	for range 6 {
		dev.Mine()
	}
	head, err := chain.Head(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for n := head.Number - 5; n <= head.Number; n++ {
		if _, err := chain.Block(ctx, n); err != nil {
			t.Fatal(err)
		}
	}
	fork, err := chain.Block(ctx, head.Number-4)
	if err != nil {
		t.Fatal(err)
	}
	// The new chain: two blocks on the fork point, one with a transaction, so their hashes
	// differ from the old ones; its head is below the old head.
	if err := dev.Backend.Fork(fork.Hash); err != nil {
		t.Fatal(err)
	}
	to := dev.Accounts[2].Address
	if _, err := dev.Send(ctx, dev.Accounts[1].Key, &to, nil, nil); err != nil {
		t.Fatal(err)
	}
	dev.Mine()
	for n := head.Number; n > head.Number-2; n-- {
		if _, err := chain.Block(ctx, n); !errors.Is(err, curvekit.ErrNotFound) {
			t.Fatalf("block %d above the new head: %v, want ErrNotFound", n, err)
		}
	}
	b, err := chain.Block(ctx, fork.Number)
	if err != nil || b.Hash != fork.Hash {
		t.Fatalf("the fork point: %+v %v", b, err)
	}
	if nh, err := chain.Head(ctx); err != nil || nh.Number >= head.Number {
		t.Fatalf("new head %+v %v, want below %d", nh, err, head.Number)
	}
}
