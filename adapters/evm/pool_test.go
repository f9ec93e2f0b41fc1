package evm_test

import (
	"context"
	"errors"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/curvekit/curvekit"
	"github.com/curvekit/curvekit/adapters/evm"
	"github.com/curvekit/curvekit/adapters/evm/devnet"
)

// The pool reaches eth_feeHistory and the nonce at the head where its endpoints have them, so the
// custodial sender prices and tracks through several endpoints as through one; an endpoint
// without them says so.
func TestPoolFeeHistoryAndNonce(t *testing.T) {
	dev, pool := devnetPool(t)
	ctx := t.Context()
	fh, err := pool.FeeHistory(ctx, 1, nil, []float64{})
	if err != nil || len(fh.BaseFee) != 2 || fh.BaseFee[1].Sign() <= 0 {
		t.Fatalf("fee history: %+v %v", fh, err)
	}
	acc := dev.Accounts[0].Address
	want, err := dev.Client.NonceAt(ctx, acc, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := pool.NonceAt(ctx, acc, nil); err != nil || got != want {
		t.Fatalf("nonce %d %v, want %d", got, err, want)
	}
	bare, err := evm.NewPool(evm.PoolConfig{Endpoints: []evm.Endpoint{{Name: "bare", Client: struct{ evm.Client }{dev.Client}}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := bare.NonceAt(ctx, acc, nil); !errors.Is(err, errors.ErrUnsupported) {
		t.Fatalf("an endpoint without NonceAt: %v", err)
	}
}

// The broadcaster prices the next block's base fee as eth_feeHistory gives it, through a pool
// as through the node's client, not the head's estimate.
func TestBroadcasterPricesFromFeeHistory(t *testing.T) {
	dev, pool := devnetPool(t)
	ctx := t.Context()
	// A full block moves the base fee; an empty one lowers it, so the head's estimate (up an
	// eighth) and the history differ.
	for range 3 {
		dev.Mine()
	}
	fh, err := dev.Client.FeeHistory(ctx, 1, nil, []float64{})
	if err != nil {
		t.Fatal(err)
	}
	want := fh.BaseFee[len(fh.BaseFee)-1]
	for name, c := range map[string]evm.Client{"client": dev.Client, "pool": pool} {
		bc, err := evm.NewBroadcaster(evm.BroadcastConfig{Client: c})
		if err != nil {
			t.Fatal(err)
		}
		fees, err := bc.SuggestFees(ctx)
		if err != nil || fees.BaseFee.Cmp(want) != 0 {
			t.Errorf("%s: base fee %v %v, want %v from eth_feeHistory", name, fees.BaseFee, err, want)
		}
	}
}

// A chain that moved back to a shorter fork, behind a pool: every block above the new head is
// not found (so the indexer finds the block both chains share and rolls back to it), never an
// outage, though the pool saw those blocks before.
func TestPoolFollowsAShorterFork(t *testing.T) {
	dev, pool := devnetPool(t)
	ctx := t.Context()
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

// devnetPool is a devnet and a pool of one endpoint on it, closed when t ends.
func devnetPool(t *testing.T) (*devnet.Devnet, *evm.Pool) {
	t.Helper()
	dev, err := devnet.Start(devnet.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { dev.Close() })
	pool, err := evm.NewPool(evm.PoolConfig{Endpoints: []evm.Endpoint{{Name: "devnet", Client: dev.Client}}})
	if err != nil {
		t.Fatal(err)
	}
	return dev, pool
}

// stillIndexing is a node that has just started: it answers every read by hash with geth's
// "transaction indexing is in progress".
type stillIndexing struct{ evm.Client }

type indexingErr struct{}

func (indexingErr) Error() string  { return "transaction indexing is in progress" }
func (indexingErr) ErrorCode() int { return -32000 }

func (stillIndexing) TransactionReceipt(context.Context, common.Hash) (*types.Receipt, error) {
	return nil, indexingErr{}
}

func (stillIndexing) TransactionByHash(context.Context, common.Hash) (*types.Transaction, bool, error) {
	return nil, false, indexingErr{}
}

// A node still indexing its transactions does not know them yet: the pool asks the next
// endpoint, and with none that knows, the receipt is "not found" (pending), never a failure.
func TestPoolTreatsIndexingAsNotFoundYet(t *testing.T) {
	ctx := context.Background()
	dev, _ := devnetPool(t)
	r, err := dev.Send(ctx, dev.Accounts[0].Key, &dev.Accounts[1].Address, big.NewInt(1), nil)
	if err != nil {
		t.Fatal(err)
	}
	both, err := evm.NewPool(evm.PoolConfig{Endpoints: []evm.Endpoint{
		{Name: "indexing", Client: stillIndexing{dev.Client}}, {Name: "devnet", Client: dev.Client},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := both.TransactionReceipt(ctx, r.TxHash); err != nil || got.TxHash != r.TxHash {
		t.Errorf("receipt through a pool with a node still indexing = %v, %v; want the other node's", got, err)
	}
	if _, _, err := both.TransactionByHash(ctx, r.TxHash); err != nil {
		t.Errorf("transaction through a pool with a node still indexing: %v", err)
	}
	alone, err := evm.NewPool(evm.PoolConfig{Endpoints: []evm.Endpoint{{Name: "indexing", Client: stillIndexing{dev.Client}}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := alone.TransactionReceipt(ctx, r.TxHash); !errors.Is(err, ethereum.NotFound) {
		t.Errorf("receipt from a node still indexing: %v, want ethereum.NotFound", err)
	}
	b, err := evm.NewBroadcaster(evm.BroadcastConfig{Client: stillIndexing{dev.Client}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Receipt(ctx, r.TxHash); !errors.Is(err, curvekit.ErrNotFound) {
		t.Errorf("broadcaster's receipt from a node still indexing: %v, want curvekit.ErrNotFound", err)
	}
}
