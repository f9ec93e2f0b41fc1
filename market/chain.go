package market

import (
	"context"

	"github.com/ethereum/go-ethereum/common"
	"github.com/holiman/uint256"

	"github.com/curvekit/curvekit/curve"
)

// Chain is what the market service and its indexer need from a blockchain. adapters/evm
// implements it on go-ethereum, over JSON-RPC or on the in-process simulated backend.
//
// Events are decoded but not trusted: the indexer accepts an event only from a contract it knows
// (the factory, a curve the factory launched, a pool a curve graduated into).
//
// A chain whose nodes cannot answer now returns errors matching curvekit.ErrUnavailable, and
// also curvekit.ErrThrottled when its provider refuses calls at this rate: the indexer says so
// in its status and retries after a pause. How many nodes stand behind the port, and the limits
// of their providers, are the adapter's business.
type Chain interface {
	// Info identifies the chain and the factory the service follows.
	Info(ctx context.Context) (ChainInfo, error)
	// Head returns the newest block.
	Head(ctx context.Context) (BlockRef, error)
	// Block returns the block with the given number; curvekit.ErrNotFound above the head.
	Block(ctx context.Context, number uint64) (BlockRef, error)
	// Events returns the events of the given kinds emitted by any of the addresses in blocks
	// [From, To], ordered by block and log index.
	Events(ctx context.Context, q EventQuery) ([]Event, error)
	// Launch reads what a Launched event does not carry: the token's parameters, supply and
	// decimals of its pairing asset.
	Launch(ctx context.Context, token common.Address) (LaunchInfo, error)
	// StateAt returns t with the fields an indexer update writes (State, Pool, PoolFeeBps,
	// PoolReserveQuote, PoolReserveToken, TotalSupply) read from the chain as of the given block.
	// The indexer uses it to restore tokens when a reorganization removes blocks.
	StateAt(ctx context.Context, t Token, block uint64) (Token, error)
	// BalancesAt returns each holder's balance of token as of the given block, in the order
	// given: the indexer restores the holders a reorganization rewrote.
	BalancesAt(ctx context.Context, token common.Address, holders []common.Address, block uint64) ([]uint256.Int, error)
}

// BlockRef identifies a block.
type BlockRef struct {
	Number     uint64
	Hash       common.Hash
	ParentHash common.Hash
	Time       int64
}

// EventKind names the contract events the indexer reads.
type EventKind uint8

const (
	EventLaunched EventKind = iota + 1
	EventTrade
	EventGraduated
	EventCreatorFeesClaimed
	EventPoolSwap
	EventPoolSync
	// EventTransfer is a launched token's ERC-20 Transfer.
	EventTransfer
)

// EventQuery selects events.
type EventQuery struct {
	From, To  uint64
	Kinds     []EventKind
	Addresses []common.Address
}

// Event is one decoded contract event. Exactly one of the typed fields is set, per Kind.
type Event struct {
	Kind      EventKind
	Address   common.Address // the emitting contract
	Block     uint64
	BlockHash common.Hash
	TxHash    common.Hash
	LogIndex  uint
	Time      int64

	Launched  *LaunchedEvent
	Trade     *TradeEvent
	Graduated *GraduatedEvent
	Claimed   *ClaimedEvent
	Swap      *SwapEvent
	Sync      *SyncEvent
	Transfer  *TransferEvent
}

// LaunchedEvent is the factory's Launched.
type LaunchedEvent struct {
	Token, Curve, Creator, Quote common.Address
	Name, Symbol, URI            string
}

// TradeEvent is a curve's Trade (docs/CURVE.md).
type TradeEvent struct {
	Trader, Recipient          common.Address
	IsBuy                      bool
	QuoteAmount, TokenAmount   uint256.Int
	Fee, CreatorFee, Refund    uint256.Int
	VirtualQuote, VirtualToken uint256.Int
	RealQuote, RealToken       uint256.Int
}

// GraduatedEvent is a curve's Graduated.
type GraduatedEvent struct {
	Pool                                         common.Address
	QuoteLiquidity, TokenLiquidity, TokensBurned uint256.Int
}

// ClaimedEvent is a curve's CreatorFeesClaimed.
type ClaimedEvent struct {
	Creator common.Address
	Amount  uint256.Int
}

// SwapEvent is a pool pair's Swap (Uniswap V2 layout), with who traded: Sender and To are what
// the pair saw (usually the router), Origin is the transaction's sender and Recipient who got the
// output (the router call's `to` when the swap went through the configured router, else To).
type SwapEvent struct {
	Sender, To                                   common.Address
	Origin, Recipient                            common.Address
	Amount0In, Amount1In, Amount0Out, Amount1Out uint256.Int
}

// SyncEvent is a pool pair's Sync: its reserves after the swap or mint.
type SyncEvent struct {
	Reserve0, Reserve1 uint256.Int
}

// TransferEvent is an ERC-20 Transfer: From is the zero address for a mint, To for a burn.
type TransferEvent struct {
	From, To common.Address
	Value    uint256.Int
}

// LaunchInfo is what the indexer reads from the chain about a newly launched token.
type LaunchInfo struct {
	Params      curve.Params
	TotalSupply uint256.Int
	Decimals    uint8
	Quote       Asset
	PoolFeeBps  uint16
}
