package evm_test

import (
	"context"
	"math/big"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/curvekit/curvekit/adapters/evm"
	"github.com/curvekit/curvekit/adapters/evm/devnet"
	"github.com/curvekit/curvekit/contracts/bindings"
	"github.com/curvekit/curvekit/market"
)

// deployChain starts a devnet for a deployment, and a minute to deploy in.
func deployChain(t *testing.T) (*devnet.Devnet, context.Context) {
	dev, err := devnet.Start(devnet.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { dev.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return dev, ctx
}

// TestDeploy deploys a second set of contracts on a devnet from an ordinary funded account, by
// the same calls a JSON-RPC node answers, then launches a token through the new factory and
// finds it where the indexer would look: the adapter configured with the deployment's
// addresses, reading events from its start block.
func TestDeploy(t *testing.T) {
	dev, ctx := deployChain(t)
	// The devnet mines on demand; a real chain mines by itself.
	stop := dev.MineEvery(5 * time.Millisecond)
	owner := dev.Accounts[6]
	var steps []string
	dep, err := evm.Deploy(ctx, evm.DeployParams{
		Client: dev.Client, Key: owner.Key, Poll: 5 * time.Millisecond,
		Progress: func(step string, _ common.Hash) { steps = append(steps, step) },
	})
	stop()
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"deploy WETH9", "deploy PoolFactory", "deploy Router", "deploy LaunchFactory", "enable ETH"}
	if len(steps) != len(want) {
		t.Fatalf("steps %v, want %v", steps, want)
	}
	if dep.ChainID != dev.ChainID.Uint64() || dep.Deployer != owner.Address {
		t.Errorf("deployment %+v", dep)
	}
	for name, a := range map[string]common.Address{"weth": dep.WETH, "pool factory": dep.PoolFactory, "router": dep.Router, "factory": dep.Factory} {
		if a == (common.Address{}) || a == dev.Addrs.Factory || a == dev.Addrs.Router {
			t.Errorf("%s at %s", name, a)
		}
	}
	// The start block holds the factory's creation and nothing before it has the factory's code.
	code, err := dev.Client.CodeAt(ctx, dep.Factory, new(big.Int).SetUint64(dep.StartBlock-1))
	if err != nil || len(code) != 0 {
		t.Errorf("factory code before the start block: %d bytes, %v", len(code), err)
	}
	if code, err := dev.Client.CodeAt(ctx, dep.Factory, new(big.Int).SetUint64(dep.StartBlock)); err != nil || len(code) == 0 {
		t.Errorf("no factory code at the start block: %v", err)
	}

	chain, err := evm.New(evm.Config{Client: dev.Client, Factory: dep.Factory, Router: dep.Router})
	if err != nil {
		t.Fatal(err)
	}
	params, enabled, err := chain.LaunchParams(ctx, common.Address{})
	if err != nil || !enabled {
		t.Fatalf("ETH launch params: %v, enabled %v", err, enabled)
	}
	if params != evm.CurveParams(evm.DefaultCurveParams(big.NewInt(1e18))) {
		t.Errorf("params %+v", params)
	}
	fee, err := chain.PoolFeeBps(ctx)
	if err != nil || fee != 30 {
		t.Errorf("pool fee %d, %v", fee, err)
	}

	lf := bindings.NewLaunchFactory()
	creator := dev.Accounts[7]
	rcpt, err := dev.Send(ctx, creator.Key, &dep.Factory, big.NewInt(1e16), lf.PackLaunch("Deployed", "DPL", "ipfs://x", common.Address{}, big.NewInt(1e16), big.NewInt(0)))
	if err != nil {
		t.Fatal(err)
	}
	events, err := chain.Events(ctx, market.EventQuery{
		From: dep.StartBlock, To: rcpt.BlockNumber.Uint64(),
		Kinds: []market.EventKind{market.EventLaunched}, Addresses: []common.Address{dep.Factory},
	})
	if err != nil || len(events) != 1 {
		t.Fatalf("launch events %v, %v", events, err)
	}
}

// laggingHead is a client that serves each receipt before its head reaches the receipt's block,
// as a node behind a load balancer can: the first look at the head after a receipt sees the
// block before it. It fails the test when a gas estimate is asked while its head is behind.
type laggingHead struct {
	evm.Client
	t      *testing.T
	mu     sync.Mutex
	behind bool
}

func (c *laggingHead) TransactionReceipt(ctx context.Context, hash common.Hash) (*types.Receipt, error) {
	r, err := c.Client.TransactionReceipt(ctx, hash)
	if err == nil {
		c.mu.Lock()
		c.behind = true
		c.mu.Unlock()
	}
	return r, err
}

func (c *laggingHead) HeaderByNumber(ctx context.Context, n *big.Int) (*types.Header, error) {
	c.mu.Lock()
	behind := c.behind && n == nil
	c.behind = false
	c.mu.Unlock()
	if behind {
		head, err := c.Client.HeaderByNumber(ctx, nil)
		if err != nil {
			return nil, err
		}
		return c.Client.HeaderByNumber(ctx, new(big.Int).Sub(head.Number, big.NewInt(1)))
	}
	return c.Client.HeaderByNumber(ctx, n)
}

func (c *laggingHead) EstimateGas(ctx context.Context, msg ethereum.CallMsg) (uint64, error) {
	c.mu.Lock()
	behind := c.behind
	c.mu.Unlock()
	if behind {
		c.t.Errorf("gas estimated while the head is behind the last receipt")
	}
	return c.Client.EstimateGas(ctx, msg)
}

// TestDeployWaitsForTheHead: each step estimates its gas only once the head holds the step
// before it.
func TestDeployWaitsForTheHead(t *testing.T) {
	dev, ctx := deployChain(t)
	defer dev.MineEvery(5 * time.Millisecond)()
	if _, err := evm.Deploy(ctx, evm.DeployParams{Client: &laggingHead{Client: dev.Client, t: t}, Key: dev.Accounts[6].Key, Poll: 5 * time.Millisecond}); err != nil {
		t.Fatal(err)
	}
}
