package devnet

import (
	"errors"
	"fmt"
	"maps"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/rawdb"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/eth"
	"github.com/ethereum/go-ethereum/eth/catalyst"
	"github.com/ethereum/go-ethereum/eth/ethconfig"
	"github.com/ethereum/go-ethereum/eth/filters"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/ethclient/simulated"
	"github.com/ethereum/go-ethereum/node"
	"github.com/ethereum/go-ethereum/p2p"
	"github.com/ethereum/go-ethereum/params"
	"github.com/ethereum/go-ethereum/rpc"
)

// Backend is an in-process go-ethereum node that seals a block whenever it is told to: the parts
// of ethclient/simulated's Backend, with the same methods. It is assembled here rather than by
// simulated.NewBackend because that one rewinds every chain to its genesis when it starts, which
// would throw away a chain kept on disk.
type Backend struct {
	node   *node.Node
	eth    *eth.Ethereum
	beacon *catalyst.SimulatedBeacon
	client *ethclient.Client
	// filterAPI is the node's eth filter API (logs, filters, subscriptions), also served by
	// ServeRPC.
	filterAPI *filters.FilterAPI
}

// chainDirName is the node's directory inside Config.Dir (geth's "instance" directory, which
// holds chaindata and the node's lock).
const chainDirName = "chain"

// newBackend starts a node on genesis (its alloc must already hold the system contracts). With
// dir empty the chain lives in memory; otherwise in dir/chain, continued from there when it
// exists.
func newBackend(dir string, genesis *core.Genesis) (*Backend, error) {
	nodeConf := node.DefaultConfig
	nodeConf.DataDir = dir
	// A fixed name: geth derives it from the executable otherwise, so a test binary and the
	// server would each keep their own chain in the same directory.
	nodeConf.Name = chainDirName
	nodeConf.P2P = p2p.Config{NoDiscovery: true}

	ethConf := ethconfig.Defaults
	ethConf.Genesis = genesis
	ethConf.SyncMode = ethconfig.FullSync
	ethConf.TxPool.NoLocals = true
	// Logs are searched block by block, as in the simulated backend: a devnet is small, and an
	// index would be one more thing to keep consistent on disk.
	ethConf.LogNoHistory = true
	if dir != "" {
		// Every block's state is written to disk as the block is (an archive on the hash
		// scheme), so a process that dies without Close loses at most the last few blocks, and
		// any block's state can be read back (the indexer reads old states to undo a reorg).
		// The path scheme keeps recent states in memory until a clean shutdown: a crash there
		// rewinds the chain to where this run began.
		ethConf.StateScheme = rawdb.HashScheme
		ethConf.NoPruning = true
		// A devnet's state is a few megabytes; geth's defaults are sized for mainnet.
		ethConf.DatabaseCache = 32
		ethConf.TrieCleanCache = 16
		ethConf.TrieDirtyCache = 16
		ethConf.SnapshotCache = 0
	}

	stack, err := node.New(&nodeConf)
	if err != nil {
		if errors.Is(err, node.ErrDatadirUsed) {
			return nil, fmt.Errorf("%s is in use by another process: %w", dir, err)
		}
		return nil, fmt.Errorf("node: %w", err)
	}
	backend, err := eth.New(stack, &ethConf)
	if err != nil {
		_ = stack.Close()
		return nil, fmt.Errorf("chain: %w", err)
	}
	filterAPI := filters.NewFilterAPI(filters.NewFilterSystem(backend.APIBackend, filters.Config{}))
	stack.RegisterAPIs([]rpc.API{{Namespace: "eth", Service: filterAPI}})
	if err := stack.Start(); err != nil {
		_ = stack.Close()
		return nil, fmt.Errorf("start node: %w", err)
	}
	beacon, err := catalyst.NewSimulatedBeacon(0, common.Address{}, backend)
	if err != nil {
		_ = stack.Close()
		return nil, fmt.Errorf("beacon: %w", err)
	}
	return &Backend{node: stack, eth: backend, beacon: beacon, client: ethclient.NewClient(stack.Attach()), filterAPI: filterAPI}, nil
}

// genesisOf is the devnet's genesis: the dev chain config without Bogota, the system contracts
// the active forks call into, and alloc on top.
func genesisOf(alloc types.GenesisAlloc) *core.Genesis {
	all := core.SystemContractAllocs()
	maps.Copy(all, alloc)
	return &core.Genesis{Config: chainConfig(), GasLimit: ethconfig.Defaults.Miner.GasCeil, Alloc: all}
}

// chainConfig is go-ethereum's dev config without Bogota (FACTS.md: it reprices gas).
func chainConfig() *params.ChainConfig {
	cfg := *params.AllDevChainProtocolChanges
	cfg.BogotaTime = nil
	return &cfg
}

// Client returns a client of the chain; it may be used concurrently.
func (b *Backend) Client() simulated.Client { return b.client }

// Commit seals a block with the pending transactions and returns the new head's hash once the
// transaction pool stands on it. The pool moves to a new head on a thread of its own, and a
// transaction sent before it has moved is checked against the state before the block: a balance
// the block just paid reads as absent, a nonce it just used as free.
func (b *Backend) Commit() common.Hash {
	h := b.beacon.Commit()
	_ = b.eth.TxPool().Sync() // fails only once the pool has stopped, when nothing is sent
	return h
}

// Head is the chain's current head, read from the chain itself (no JSON-RPC round trip): cheap
// enough for a clock read on every request.
func (b *Backend) Head() *types.Header { return b.eth.BlockChain().CurrentBlock() }

// Rollback drops the pending transactions.
func (b *Backend) Rollback() { b.beacon.Rollback() }

// Fork makes the block parentHash the head, so that the next Commits build a side chain that
// becomes canonical once it is longer (reorganization tests).
func (b *Backend) Fork(parentHash common.Hash) error { return b.beacon.Fork(parentHash) }

// AdjustTime seals an empty block dt after the head's time; it fails while transactions are
// pending.
func (b *Backend) AdjustTime(dt time.Duration) error { return b.beacon.AdjustTime(dt) }

// Close stops the node, writing what it holds in memory to disk. The Backend cannot be used
// afterwards.
func (b *Backend) Close() error {
	if b.node == nil {
		return nil
	}
	b.client.Close()
	err := b.beacon.Stop()
	err = errors.Join(err, b.node.Close())
	b.node = nil
	return err
}
