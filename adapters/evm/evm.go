// Package evm implements curvekit's chain ports on go-ethereum. The same code runs over JSON-RPC
// (ethclient.Client) and on the in-process simulated backend (simulated.Client): both satisfy
// Client. It reads curve and pool state, balances and allowances, decodes the contracts' events
// for the indexer, and estimates, and sends already signed transactions. It never holds a key.
package evm

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/big"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/accounts/abi/bind/v2"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/rpc"
	"github.com/holiman/uint256"

	"github.com/curvekit/curvekit"
	"github.com/curvekit/curvekit/contracts/bindings"
	"github.com/curvekit/curvekit/curve"
	"github.com/curvekit/curvekit/market"
	"github.com/curvekit/curvekit/txbuild"
)

// Client is the part of go-ethereum's client API the adapter uses; *ethclient.Client and
// simulated.Client both implement it.
type Client interface {
	bind.ContractBackend
	ethereum.ChainIDReader
	ethereum.BlockNumberReader
	HeaderByHash(ctx context.Context, hash common.Hash) (*types.Header, error)
	BalanceAt(ctx context.Context, account common.Address, block *big.Int) (*big.Int, error)
	TransactionReceipt(ctx context.Context, hash common.Hash) (*types.Receipt, error)
	TransactionByHash(ctx context.Context, hash common.Hash) (*types.Transaction, bool, error)
}

// Config configures a Chain.
type Config struct {
	Client Client
	// Factory is the LaunchFactory the service follows.
	Factory common.Address
	// Router, when set, lets Events read a pool swap's final recipient from the router call
	// (the pair only sees the router when the output is native ETH).
	Router common.Address
	// Head is the block Head reports: "latest" (the default), or "safe" or "finalized" where the
	// node has them (after the merge); a node without them is followed at its latest block.
	Head string
	// LogsBackoff is the first pause before a narrower eth_getLogs after a refusal in words no
	// known provider uses; doubled at each such refusal in a row, up to 2s. Default 100ms.
	LogsBackoff time.Duration
	Logger      *slog.Logger
}

func (c *Config) validate() error {
	if c.Client == nil {
		return errors.New("evm: a client is required")
	}
	if c.Factory == (common.Address{}) {
		return errors.New("evm: the factory address is required")
	}
	if _, ok := headTags[c.Head]; !ok {
		return fmt.Errorf("evm: head %q is not latest, safe or finalized", c.Head)
	}
	return nil
}

// headTags are the blocks Head may follow, as block-number tags.
var headTags = map[string]*big.Int{
	"": nil, "latest": nil,
	"safe":      big.NewInt(int64(rpc.SafeBlockNumber)),
	"finalized": big.NewInt(int64(rpc.FinalizedBlockNumber)),
}

// Chain implements market.Chain and the reads and writes the services need.
type Chain struct {
	cfg     Config
	factory *bindings.LaunchFactory
	curve   *bindings.BondingCurve
	token   *bindings.CurveToken
	erc20   *bindings.MockERC20
	pair    *bindings.Pair
	poolf   *bindings.PoolFactory
	// routerABI decodes router calls; parsed once.
	routerABI abi.ABI
	// logs is the widest range one eth_getLogs covers.
	logs window
	// unknownLogs is set once the node refused eth_getLogs in words not known (said once in
	// the log).
	unknownLogs atomic.Bool
	// untagged is set once the node answered that it has no safe or finalized block: Head
	// follows the latest block instead (said once in the log).
	untagged atomic.Bool
	// times keeps the time of recent blocks by hash, as Head and Block read them: a hash fixes
	// its block's time, so Events dates a sync's logs without asking for headers the indexer
	// has just read (one round trip less per call with logs, under every sync).
	times blockTimes
}

// blockTimes is a small map of block times by hash; emptied when full (recent blocks are what
// the indexer asks for).
type blockTimes struct {
	mu sync.Mutex
	m  map[common.Hash]int64
}

// maxBlockTimes bounds blockTimes.
const maxBlockTimes = 4096

func (b *blockTimes) put(hash common.Hash, t int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.m == nil || len(b.m) >= maxBlockTimes {
		b.m = make(map[common.Hash]int64)
	}
	b.m[hash] = t
}

func (b *blockTimes) get(hash common.Hash) (int64, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	t, ok := b.m[hash]
	return t, ok
}

var _ market.Chain = (*Chain)(nil)

// New returns a Chain for cfg.
func New(cfg Config) (*Chain, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.LogsBackoff <= 0 {
		cfg.LogsBackoff = 100 * time.Millisecond
	}
	return &Chain{
		cfg:       cfg,
		factory:   bindings.NewLaunchFactory(),
		curve:     bindings.NewBondingCurve(),
		token:     bindings.NewCurveToken(),
		erc20:     bindings.NewMockERC20(),
		pair:      bindings.NewPair(),
		poolf:     bindings.NewPoolFactory(),
		routerABI: bindings.NewRouter().GetABI(),
	}, nil
}

// Client returns the underlying client.
func (c *Chain) Client() Client { return c.cfg.Client }

// call runs a view call at the latest block and decodes its result.
func call[T any](ctx context.Context, c *Chain, to common.Address, data []byte, unpack func([]byte) (T, error)) (T, error) {
	return callAt(ctx, c, nil, to, data, unpack)
}

// callAt runs a view call at the given block (nil: the latest) and decodes its result.
func callAt[T any](ctx context.Context, c *Chain, block *big.Int, to common.Address, data []byte, unpack func([]byte) (T, error)) (T, error) {
	out, err := c.cfg.Client.CallContract(ctx, ethereum.CallMsg{To: &to, Data: data}, block)
	if err != nil {
		var zero T
		return zero, err
	}
	return unpack(out)
}

func u256(v *big.Int) uint256.Int {
	var z uint256.Int
	z.SetFromBig(v)
	return z
}

// Info identifies the chain: chain id, genesis hash, factory and its WETH.
func (c *Chain) Info(ctx context.Context) (market.ChainInfo, error) {
	id, err := c.cfg.Client.ChainID(ctx)
	if err != nil {
		return market.ChainInfo{}, fmt.Errorf("evm: chain id: %w", err)
	}
	genesis, err := c.cfg.Client.HeaderByNumber(ctx, big.NewInt(0))
	if err != nil {
		return market.ChainInfo{}, fmt.Errorf("evm: genesis header: %w", err)
	}
	weth, err := call(ctx, c, c.cfg.Factory, c.factory.PackWeth(), c.factory.UnpackWeth)
	if err != nil {
		return market.ChainInfo{}, fmt.Errorf("evm: factory %s: %w", c.cfg.Factory, err)
	}
	return market.ChainInfo{ChainID: id.Uint64(), GenesisHash: genesis.Hash(), Factory: c.cfg.Factory, WETH: weth}, nil
}

// ref is h as the market sees it; its time is kept for Events.
func (c *Chain) ref(h *types.Header) market.BlockRef {
	r := market.BlockRef{Number: h.Number.Uint64(), Hash: h.Hash(), ParentHash: h.ParentHash, Time: int64(h.Time)}
	c.times.put(r.Hash, r.Time)
	return r
}

// Head returns the newest block, or the newest safe or finalized one (Config.Head).
func (c *Chain) Head(ctx context.Context) (market.BlockRef, error) {
	tag := headTags[c.cfg.Head]
	if tag != nil && !c.untagged.Load() {
		h, err := c.cfg.Client.HeaderByNumber(ctx, tag)
		if err == nil && h != nil {
			return c.ref(h), nil
		}
		if classify(err) != failCall && !errors.Is(err, ethereum.NotFound) {
			return market.BlockRef{}, fmt.Errorf("evm: %s head: %w", c.cfg.Head, err)
		}
		// Before the merge, and on development nodes, there is no such block.
		c.untagged.Store(true)
		c.cfg.Logger.Warn("the chain node has no "+c.cfg.Head+" block; following its latest block", "err", err)
	}
	h, err := c.cfg.Client.HeaderByNumber(ctx, nil)
	if err != nil {
		return market.BlockRef{}, fmt.Errorf("evm: head: %w", err)
	}
	return c.ref(h), nil
}

// Block returns the block with the given number, curvekit.ErrNotFound above the head.
func (c *Chain) Block(ctx context.Context, number uint64) (market.BlockRef, error) {
	h, err := c.cfg.Client.HeaderByNumber(ctx, new(big.Int).SetUint64(number))
	if errors.Is(err, ethereum.NotFound) || (err == nil && h == nil) {
		return market.BlockRef{}, fmt.Errorf("evm: block %d: %w", number, curvekit.ErrNotFound)
	}
	if err != nil {
		return market.BlockRef{}, fmt.Errorf("evm: block %d: %w", number, err)
	}
	return c.ref(h), nil
}

// topics maps event kinds to their topic0.
var topics = func() map[market.EventKind]common.Hash {
	factory, crv, pair, token := bindings.NewLaunchFactory().GetABI(), bindings.NewBondingCurve().GetABI(), bindings.NewPair().GetABI(), bindings.NewCurveToken().GetABI()
	return map[market.EventKind]common.Hash{
		market.EventLaunched:           factory.Events["Launched"].ID,
		market.EventTrade:              crv.Events["Trade"].ID,
		market.EventGraduated:          crv.Events["Graduated"].ID,
		market.EventCreatorFeesClaimed: crv.Events["CreatorFeesClaimed"].ID,
		market.EventPoolSwap:           pair.Events["Swap"].ID,
		market.EventPoolSync:           pair.Events["Sync"].ID,
		market.EventTransfer:           token.Events["Transfer"].ID,
	}
}()

// Events returns the decoded events of q.Kinds emitted by q.Addresses in [q.From, q.To], in
// chain order, each with its block time.
func (c *Chain) Events(ctx context.Context, q market.EventQuery) ([]market.Event, error) {
	if len(q.Addresses) == 0 || len(q.Kinds) == 0 {
		return nil, nil
	}
	want := make([]common.Hash, 0, len(q.Kinds))
	for _, k := range q.Kinds {
		t, ok := topics[k]
		if !ok {
			return nil, fmt.Errorf("evm: unknown event kind %d", k)
		}
		want = append(want, t)
	}
	logs, err := c.filterLogs(ctx, ethereum.FilterQuery{Addresses: q.Addresses, Topics: [][]common.Hash{want}}, q.From, q.To)
	if err != nil {
		return nil, err
	}
	events := make([]market.Event, 0, len(logs))
	for i := range logs {
		l := &logs[i]
		if l.Removed {
			continue
		}
		t, ok := c.times.get(l.BlockHash)
		if !ok {
			h, err := c.cfg.Client.HeaderByHash(ctx, l.BlockHash)
			if err != nil {
				return nil, fmt.Errorf("evm: header %s: %w", l.BlockHash, err)
			}
			t = int64(h.Time)
			c.times.put(l.BlockHash, t)
		}
		ev := market.Event{Address: l.Address, Block: l.BlockNumber, BlockHash: l.BlockHash, TxHash: l.TxHash, LogIndex: l.Index, Time: t}
		if err := c.decode(l, &ev); err != nil {
			return nil, fmt.Errorf("evm: decode log %s/%d: %w", l.TxHash, l.Index, err)
		}
		if ev.Swap != nil {
			if err := c.swapParties(ctx, l.TxHash, ev.Swap); err != nil {
				return nil, err
			}
		}
		events = append(events, ev)
	}
	return events, nil
}

func (c *Chain) decode(l *types.Log, ev *market.Event) error {
	switch l.Topics[0] {
	case topics[market.EventLaunched]:
		e, err := c.factory.UnpackLaunchedEvent(l)
		if err != nil {
			return err
		}
		ev.Kind = market.EventLaunched
		ev.Launched = &market.LaunchedEvent{Token: e.Token, Curve: e.Curve, Creator: e.Creator, Quote: e.QuoteAsset, Name: e.Name, Symbol: e.Symbol, URI: e.Uri}
	case topics[market.EventTrade]:
		e, err := c.curve.UnpackTradeEvent(l)
		if err != nil {
			return err
		}
		ev.Kind = market.EventTrade
		ev.Trade = &market.TradeEvent{
			Trader: e.Trader, Recipient: e.Recipient, IsBuy: e.IsBuy,
			QuoteAmount: u256(e.QuoteAmount), TokenAmount: u256(e.TokenAmount), Fee: u256(e.Fee),
			CreatorFee: u256(e.CreatorFee), Refund: u256(e.Refund),
			VirtualQuote: u256(e.VirtualQuote), VirtualToken: u256(e.VirtualToken),
			RealQuote: u256(e.RealQuote), RealToken: u256(e.RealToken),
		}
	case topics[market.EventGraduated]:
		e, err := c.curve.UnpackGraduatedEvent(l)
		if err != nil {
			return err
		}
		ev.Kind = market.EventGraduated
		ev.Graduated = &market.GraduatedEvent{Pool: e.Pool, QuoteLiquidity: u256(e.QuoteLiquidity), TokenLiquidity: u256(e.TokenLiquidity), TokensBurned: u256(e.TokensBurned)}
	case topics[market.EventCreatorFeesClaimed]:
		e, err := c.curve.UnpackCreatorFeesClaimedEvent(l)
		if err != nil {
			return err
		}
		ev.Kind = market.EventCreatorFeesClaimed
		ev.Claimed = &market.ClaimedEvent{Creator: e.Creator, Amount: u256(e.Amount)}
	case topics[market.EventPoolSwap]:
		e, err := c.pair.UnpackSwapEvent(l)
		if err != nil {
			return err
		}
		ev.Kind = market.EventPoolSwap
		ev.Swap = &market.SwapEvent{Sender: e.Sender, To: e.To, Recipient: e.To, Amount0In: u256(e.Amount0In), Amount1In: u256(e.Amount1In), Amount0Out: u256(e.Amount0Out), Amount1Out: u256(e.Amount1Out)}
	case topics[market.EventPoolSync]:
		e, err := c.pair.UnpackSyncEvent(l)
		if err != nil {
			return err
		}
		ev.Kind = market.EventPoolSync
		ev.Sync = &market.SyncEvent{Reserve0: u256(e.Reserve0), Reserve1: u256(e.Reserve1)}
	case topics[market.EventTransfer]:
		e, err := c.token.UnpackTransferEvent(l)
		if err != nil {
			return err
		}
		ev.Kind = market.EventTransfer
		ev.Transfer = &market.TransferEvent{From: e.From, To: e.To, Value: u256(e.Value)}
	default:
		return fmt.Errorf("unexpected topic %s", l.Topics[0])
	}
	return nil
}

// swapParties fills a swap's Origin from its transaction and, for a call to the configured
// router, its Recipient from the call's `to` argument.
func (c *Chain) swapParties(ctx context.Context, hash common.Hash, s *market.SwapEvent) error {
	tx, _, err := c.cfg.Client.TransactionByHash(ctx, hash)
	if err != nil {
		return fmt.Errorf("evm: transaction %s: %w", hash, err)
	}
	from, err := types.Sender(types.LatestSignerForChainID(tx.ChainId()), tx)
	if err != nil {
		return fmt.Errorf("evm: sender of %s: %w", hash, err)
	}
	s.Origin = from
	if c.cfg.Router == (common.Address{}) || tx.To() == nil || *tx.To() != c.cfg.Router || len(tx.Data()) < 4 {
		return nil
	}
	m, err := c.routerABI.MethodById(tx.Data()[:4])
	if err != nil {
		return nil // not a swap method: keep the pair's view
	}
	args, err := m.Inputs.Unpack(tx.Data()[4:])
	if err != nil {
		return nil
	}
	for i, in := range m.Inputs {
		if in.Name == "to" {
			if to, ok := args[i].(common.Address); ok {
				s.Recipient = to
			}
		}
	}
	return nil
}

// Launch reads a launched token's curve parameters, supply, pairing asset and pool fee.
func (c *Chain) Launch(ctx context.Context, token common.Address) (market.LaunchInfo, error) {
	curveAddr, err := call(ctx, c, c.cfg.Factory, c.factory.PackCurveOf(token), c.factory.UnpackCurveOf)
	if err != nil {
		return market.LaunchInfo{}, fmt.Errorf("evm: curve of %s: %w", token, err)
	}
	if curveAddr == (common.Address{}) {
		return market.LaunchInfo{}, fmt.Errorf("evm: token %s: %w", token, curvekit.ErrNotFound)
	}
	p, err := call(ctx, c, curveAddr, c.curve.PackCurveParams(), c.curve.UnpackCurveParams)
	if err != nil {
		return market.LaunchInfo{}, fmt.Errorf("evm: curve params of %s: %w", token, err)
	}
	quote, err := call(ctx, c, curveAddr, c.curve.PackQuoteAsset(), c.curve.UnpackQuoteAsset)
	if err != nil {
		return market.LaunchInfo{}, fmt.Errorf("evm: quote asset of %s: %w", token, err)
	}
	asset, err := c.Asset(ctx, quote)
	if err != nil {
		return market.LaunchInfo{}, err
	}
	decimals, err := call(ctx, c, token, c.token.PackDecimals(), c.token.UnpackDecimals)
	if err != nil {
		return market.LaunchInfo{}, fmt.Errorf("evm: decimals of %s: %w", token, err)
	}
	poolFee, err := c.PoolFeeBps(ctx)
	if err != nil {
		return market.LaunchInfo{}, err
	}
	info := market.LaunchInfo{Params: CurveParams(p), Decimals: decimals, Quote: asset, PoolFeeBps: poolFee}
	info.TotalSupply = info.Params.TokenSupply
	return info, nil
}

// PoolFeeBps reads the swap fee of the factory's pools.
func (c *Chain) PoolFeeBps(ctx context.Context) (uint16, error) {
	poolFactory, err := call(ctx, c, c.cfg.Factory, c.factory.PackPoolFactory(), c.factory.UnpackPoolFactory)
	if err != nil {
		return 0, fmt.Errorf("evm: pool factory: %w", err)
	}
	fee, err := call(ctx, c, poolFactory, c.poolf.PackFeeBps(), c.poolf.UnpackFeeBps)
	if err != nil {
		return 0, fmt.Errorf("evm: pool fee: %w", err)
	}
	return fee, nil
}

// LaunchParams reads the curve parameters the factory gives new launches paired with asset (the
// zero address for native ETH), and whether that pairing is enabled.
func (c *Chain) LaunchParams(ctx context.Context, asset common.Address) (curve.Params, bool, error) {
	out, err := call(ctx, c, c.cfg.Factory, c.factory.PackQuoteAssetParams(asset), c.factory.UnpackQuoteAssetParams)
	if err != nil {
		return curve.Params{}, false, fmt.Errorf("evm: launch params for %s: %w", asset, err)
	}
	return CurveParams(out.Params), out.Enabled, nil
}

// StateAt reads a token's mutable state as of the given block: the curve's reserves, the pool and
// its reserves once graduated, and the total supply. Block 0 reads the latest block (no token
// exists at genesis).
func (c *Chain) StateAt(ctx context.Context, t market.Token, block uint64) (market.Token, error) {
	var at *big.Int // nil: the latest block
	if block > 0 {
		at = new(big.Int).SetUint64(block)
	}
	r, err := callAt(ctx, c, at, t.Curve, c.curve.PackReserves(), c.curve.UnpackReserves)
	if err != nil {
		return t, fmt.Errorf("evm: reserves of %s at %d: %w", t.Curve, block, err)
	}
	t.State = curve.State{VirtualQuote: u256(r.VirtualQuote), VirtualToken: u256(r.VirtualToken), RealQuote: u256(r.RealQuote), RealToken: u256(r.RealToken), Graduated: r.Graduated}
	supply, err := callAt(ctx, c, at, t.Address, c.token.PackTotalSupply(), c.token.UnpackTotalSupply)
	if err != nil {
		return t, fmt.Errorf("evm: supply of %s at %d: %w", t.Address, block, err)
	}
	t.TotalSupply = u256(supply)
	t.Pool, t.PoolReserveQuote, t.PoolReserveToken = common.Address{}, uint256.Int{}, uint256.Int{}
	if !r.Graduated {
		return t, nil
	}
	if t.Pool, err = callAt(ctx, c, at, t.Curve, c.curve.PackPool(), c.curve.UnpackPool); err != nil {
		return t, fmt.Errorf("evm: pool of %s at %d: %w", t.Curve, block, err)
	}
	res, err := callAt(ctx, c, at, t.Pool, c.pair.PackGetReserves(), c.pair.UnpackGetReserves)
	if err != nil {
		return t, fmt.Errorf("evm: reserves of pair %s at %d: %w", t.Pool, block, err)
	}
	token0, err := callAt(ctx, c, at, t.Pool, c.pair.PackToken0(), c.pair.UnpackToken0)
	if err != nil {
		return t, fmt.Errorf("evm: token0 of pair %s: %w", t.Pool, err)
	}
	if token0 == t.Address {
		t.PoolReserveToken, t.PoolReserveQuote = u256(res.Reserve0), u256(res.Reserve1)
	} else {
		t.PoolReserveQuote, t.PoolReserveToken = u256(res.Reserve0), u256(res.Reserve1)
	}
	return t, nil
}

// BalancesAt reads each holder's balance of token as of the given block (0: the latest).
func (c *Chain) BalancesAt(ctx context.Context, token common.Address, holders []common.Address, block uint64) ([]uint256.Int, error) {
	var at *big.Int
	if block > 0 {
		at = new(big.Int).SetUint64(block)
	}
	out := make([]uint256.Int, len(holders))
	for i, h := range holders {
		b, err := callAt(ctx, c, at, token, c.token.PackBalanceOf(h), c.token.UnpackBalanceOf)
		if err != nil {
			return nil, fmt.Errorf("evm: balance of %s in %s at %d: %w", h, token, block, err)
		}
		out[i] = u256(b)
	}
	return out, nil
}

// Market reads everything pricing and building need about a token as the chain holds it now:
// its curve, pairing asset and parameters, the curve's reserves and, once graduated, the pool's.
func (c *Chain) Market(ctx context.Context, token common.Address) (txbuild.Market, error) {
	curveAddr, err := call(ctx, c, c.cfg.Factory, c.factory.PackCurveOf(token), c.factory.UnpackCurveOf)
	if err != nil {
		return txbuild.Market{}, fmt.Errorf("evm: curve of %s: %w", token, err)
	}
	if curveAddr == (common.Address{}) {
		return txbuild.Market{}, fmt.Errorf("evm: token %s: %w", token, curvekit.ErrNotFound)
	}
	p, err := call(ctx, c, curveAddr, c.curve.PackCurveParams(), c.curve.UnpackCurveParams)
	if err != nil {
		return txbuild.Market{}, fmt.Errorf("evm: curve params of %s: %w", token, err)
	}
	quote, err := call(ctx, c, curveAddr, c.curve.PackQuoteAsset(), c.curve.UnpackQuoteAsset)
	if err != nil {
		return txbuild.Market{}, fmt.Errorf("evm: quote asset of %s: %w", token, err)
	}
	t, err := c.StateAt(ctx, market.Token{Address: token, Curve: curveAddr}, 0)
	if err != nil {
		return txbuild.Market{}, err
	}
	m := txbuild.Market{Token: token, Curve: curveAddr, Quote: quote, Params: CurveParams(p), State: t.State}
	if t.State.Graduated {
		fee, err := c.PoolFeeBps(ctx)
		if err != nil {
			return txbuild.Market{}, err
		}
		m.Pool = curve.Pool{ReserveQuote: t.PoolReserveQuote, ReserveToken: t.PoolReserveToken, FeeBps: fee}
	}
	return m, nil
}

// CurveParams converts the contracts' parameter struct.
func CurveParams(p bindings.CurveParams) curve.Params {
	return curve.Params{
		VirtualQuote0: u256(p.VirtualQuote0), VirtualToken0: u256(p.VirtualToken0),
		TokenSupply: u256(p.TokenSupply), RealToken0: u256(p.RealToken0),
		GraduationQuote: u256(p.GraduationQuote), FeeBps: p.FeeBps, CreatorShareBps: p.CreatorShareBps,
	}
}

// Asset describes a pairing asset; the zero address is native ETH.
func (c *Chain) Asset(ctx context.Context, addr common.Address) (market.Asset, error) {
	if addr == (common.Address{}) {
		return market.Asset{Symbol: "ETH", Decimals: 18}, nil
	}
	decimals, err := call(ctx, c, addr, c.erc20.PackDecimals(), c.erc20.UnpackDecimals)
	if err != nil {
		return market.Asset{}, fmt.Errorf("evm: decimals of %s: %w", addr, err)
	}
	symbol, err := call(ctx, c, addr, c.erc20.PackSymbol(), c.erc20.UnpackSymbol)
	if err != nil {
		return market.Asset{}, fmt.Errorf("evm: symbol of %s: %w", addr, err)
	}
	return market.Asset{Address: addr, Symbol: symbol, Decimals: decimals}, nil
}

// CurveState reads a curve's reserves.
func (c *Chain) CurveState(ctx context.Context, curveAddr common.Address) (curve.State, error) {
	r, err := call(ctx, c, curveAddr, c.curve.PackReserves(), c.curve.UnpackReserves)
	if err != nil {
		return curve.State{}, fmt.Errorf("evm: reserves of %s: %w", curveAddr, err)
	}
	return curve.State{VirtualQuote: u256(r.VirtualQuote), VirtualToken: u256(r.VirtualToken), RealQuote: u256(r.RealQuote), RealToken: u256(r.RealToken), Graduated: r.Graduated}, nil
}

// Pool returns the pool a curve graduated into, the zero address before graduation.
func (c *Chain) Pool(ctx context.Context, curveAddr common.Address) (common.Address, error) {
	p, err := call(ctx, c, curveAddr, c.curve.PackPool(), c.curve.UnpackPool)
	if err != nil {
		return common.Address{}, fmt.Errorf("evm: pool of %s: %w", curveAddr, err)
	}
	return p, nil
}

// PoolReserves reads a pair's reserves of quote and token (ordered by the caller's assets).
func (c *Chain) PoolReserves(ctx context.Context, pair, quote common.Address) (reserveQuote, reserveToken uint256.Int, err error) {
	r, err := call(ctx, c, pair, c.pair.PackGetReserves(), c.pair.UnpackGetReserves)
	if err != nil {
		return reserveQuote, reserveToken, fmt.Errorf("evm: reserves of pair %s: %w", pair, err)
	}
	t0, err := call(ctx, c, pair, c.pair.PackToken0(), c.pair.UnpackToken0)
	if err != nil {
		return reserveQuote, reserveToken, fmt.Errorf("evm: token0 of pair %s: %w", pair, err)
	}
	r0, r1 := u256(r.Reserve0), u256(r.Reserve1)
	if t0 == quote {
		return r0, r1, nil
	}
	return r1, r0, nil
}

// Balance returns owner's balance of asset (native ETH for the zero address).
func (c *Chain) Balance(ctx context.Context, asset, owner common.Address) (uint256.Int, error) {
	if asset == (common.Address{}) {
		b, err := c.cfg.Client.BalanceAt(ctx, owner, nil)
		if err != nil {
			return uint256.Int{}, fmt.Errorf("evm: balance of %s: %w", owner, err)
		}
		return u256(b), nil
	}
	b, err := call(ctx, c, asset, c.erc20.PackBalanceOf(owner), c.erc20.UnpackBalanceOf)
	if err != nil {
		return uint256.Int{}, fmt.Errorf("evm: %s balance of %s: %w", asset, owner, err)
	}
	return u256(b), nil
}

// Allowance returns what owner allows spender to take of an ERC-20 asset.
func (c *Chain) Allowance(ctx context.Context, asset, owner, spender common.Address) (uint256.Int, error) {
	a, err := call(ctx, c, asset, c.erc20.PackAllowance(owner, spender), c.erc20.UnpackAllowance)
	if err != nil {
		return uint256.Int{}, fmt.Errorf("evm: allowance of %s on %s: %w", owner, asset, err)
	}
	return u256(a), nil
}

// LaunchFee reads the factory's launch fee in ETH.
func (c *Chain) LaunchFee(ctx context.Context) (uint256.Int, error) {
	f, err := call(ctx, c, c.cfg.Factory, c.factory.PackLaunchFee(), c.factory.UnpackLaunchFee)
	if err != nil {
		return uint256.Int{}, fmt.Errorf("evm: launch fee: %w", err)
	}
	return u256(f), nil
}

// CreatorFeesAccrued reads what a curve holds for its creator.
func (c *Chain) CreatorFeesAccrued(ctx context.Context, curveAddr common.Address) (uint256.Int, error) {
	f, err := call(ctx, c, curveAddr, c.curve.PackCreatorFeesAccrued(), c.curve.UnpackCreatorFeesAccrued)
	if err != nil {
		return uint256.Int{}, fmt.Errorf("evm: creator fees of %s: %w", curveAddr, err)
	}
	return u256(f), nil
}

// PreviewBuy runs the curve's own previewBuy view (an eth_call).
func (c *Chain) PreviewBuy(ctx context.Context, curveAddr common.Address, in *uint256.Int) (bindings.PreviewBuyOutput, error) {
	return call(ctx, c, curveAddr, c.curve.PackPreviewBuy(in.ToBig()), c.curve.UnpackPreviewBuy)
}

// PreviewSell runs the curve's own previewSell view (an eth_call).
func (c *Chain) PreviewSell(ctx context.Context, curveAddr common.Address, amount *uint256.Int) (bindings.PreviewSellOutput, error) {
	return call(ctx, c, curveAddr, c.curve.PackPreviewSell(amount.ToBig()), c.curve.UnpackPreviewSell)
}

func callMsg(tx *txbuild.Tx) ethereum.CallMsg {
	to := tx.To
	return ethereum.CallMsg{From: tx.From, To: &to, Data: tx.Data, Value: tx.Value.ToBig()}
}

// EstimateGas estimates an unsigned transaction's gas. It fails when the transaction would
// revert now (for example before its approval is mined).
func (c *Chain) EstimateGas(ctx context.Context, tx *txbuild.Tx) (uint64, error) {
	g, err := c.cfg.Client.EstimateGas(ctx, callMsg(tx))
	if err != nil {
		return 0, fmt.Errorf("evm: estimate gas: %w", err)
	}
	return g, nil
}

// Nonce returns the next nonce of account, pending transactions included.
func (c *Chain) Nonce(ctx context.Context, account common.Address) (uint64, error) {
	n, err := c.cfg.Client.PendingNonceAt(ctx, account)
	if err != nil {
		return 0, fmt.Errorf("evm: nonce of %s: %w", account, err)
	}
	return n, nil
}

// Fees suggests EIP-1559 fee caps: the tip the node suggests and twice the head's base fee
// plus that tip.
func (c *Chain) Fees(ctx context.Context) (feeCap, tipCap *big.Int, err error) {
	tip, err := c.cfg.Client.SuggestGasTipCap(ctx)
	if err != nil {
		return nil, nil, fmt.Errorf("evm: tip cap: %w", err)
	}
	head, err := c.cfg.Client.HeaderByNumber(ctx, nil)
	if err != nil {
		return nil, nil, fmt.Errorf("evm: head: %w", err)
	}
	base := head.BaseFee
	if base == nil {
		base = new(big.Int)
	}
	feeCap = new(big.Int).Add(new(big.Int).Mul(base, big.NewInt(2)), tip)
	return feeCap, tip, nil
}

// Send broadcasts a signed transaction.
func (c *Chain) Send(ctx context.Context, tx *types.Transaction) error {
	if err := c.cfg.Client.SendTransaction(ctx, tx); err != nil {
		return fmt.Errorf("evm: send %s: %w", tx.Hash(), err)
	}
	return nil
}

// Receipt returns a mined transaction's receipt; curvekit.ErrNotFound while it is pending.
func (c *Chain) Receipt(ctx context.Context, hash common.Hash) (*types.Receipt, error) {
	r, err := c.cfg.Client.TransactionReceipt(ctx, hash)
	err = NotYetIndexed(err)
	if errors.Is(err, ethereum.NotFound) {
		return nil, fmt.Errorf("evm: receipt %s: %w", hash, curvekit.ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("evm: receipt %s: %w", hash, err)
	}
	return r, nil
}
