// Package market is the market-data service: tokens, trades, holders, quotes and stats, and the
// indexer that follows the chain (launches, trades, graduations, fee claims and every Transfer of
// the launched tokens) and writes what it sees into a Store. It talks to the outside world only
// through its ports (Store here, Chain in chain.go); adapters/bunstore and adapters/evm implement
// them.
package market

import (
	"math"
	"math/big"

	"github.com/curvekit/curvekit"
	"github.com/ethereum/go-ethereum/common"
	"github.com/holiman/uint256"

	"github.com/curvekit/curvekit/curve"
)

// Phase says where a token trades: on its bonding curve, or on the pool after graduation.
type Phase string

const (
	PhaseCurve     Phase = "curve"
	PhaseGraduated Phase = "graduated"
)

// Asset describes a pairing asset. The zero Address is the chain's native asset (ETH).
type Asset struct {
	Address  common.Address
	Symbol   string
	Decimals uint8
}

// Token is a launched token with its latest known state. Amounts are base units.
type Token struct {
	Address     common.Address
	Curve       common.Address
	Creator     common.Address
	Quote       Asset
	Name        string
	Symbol      string
	URI         string
	Decimals    uint8
	TotalSupply uint256.Int
	Params      curve.Params
	State       curve.State
	// Pool is set once the token has graduated; the pool reserves then price it.
	Pool             common.Address
	PoolFeeBps       uint16
	PoolReserveQuote uint256.Int
	PoolReserveToken uint256.Int
	// Where and when the launch happened.
	LaunchBlock uint64
	LaunchTx    common.Hash
	LaunchLog   uint
	CreatedAt   int64 // block time, Unix seconds
	// LastTradeAt is the block time of the newest trade, 0 before the first.
	LastTradeAt int64
	// GraduatedAt is the block time of the graduation, 0 on the curve.
	GraduatedAt int64
}

// Phase reports where the token trades now.
func (t *Token) Phase() Phase {
	if t.State.Graduated {
		return PhaseGraduated
	}
	return PhaseCurve
}

// Trade is one executed trade, on the curve or on the pool. It is identified by (TxHash, LogIndex).
type Trade struct {
	Token     common.Address
	Block     uint64
	BlockHash common.Hash
	TxHash    common.Hash
	LogIndex  uint
	Time      int64 // block time, Unix seconds
	Trader    common.Address
	Recipient common.Address
	Side      curvekit.Side
	Venue     curvekit.Venue
	// QuoteAmount is the pairing asset that entered (buy) or left (sell) the reserves, fees
	// excluded: the curve's net/gross amount, or the pool's amount in/out.
	QuoteAmount uint256.Int
	TokenAmount uint256.Int
	Fee         uint256.Int
	CreatorFee  uint256.Int
	Refund      uint256.Int
	// Price is the execution price in pairing-asset base units per whole token, scaled by
	// PriceScale so that cheap tokens keep their digits: QuoteAmount * 10^decimals * PriceScale /
	// TokenAmount, rounded down. PriceFloat turns it into a display value.
	Price uint256.Int
	// Reserves after the trade: the curve's virtual reserves, or the pool's reserves.
	ReserveQuote uint256.Int
	ReserveToken uint256.Int
}

// FeeClaim records a creator claiming accrued fees from a curve.
type FeeClaim struct {
	Token    common.Address
	Curve    common.Address
	Creator  common.Address
	Quote    common.Address
	Amount   uint256.Int
	Block    uint64
	TxHash   common.Hash
	LogIndex uint
	Time     int64
}

// ChainInfo identifies the chain a store indexes.
type ChainInfo struct {
	ChainID     uint64
	GenesisHash common.Hash
	Factory     common.Address
	// WETH is the wrapped native asset that ETH-paired tokens' pools trade against. It follows
	// from Factory, so a store compares only the three fields above.
	WETH common.Address
}

// Cursor is the last block the indexer has fully written.
type Cursor struct {
	Block uint64
	Hash  common.Hash
}

// PriceScale is the fixed-point scale of Trade.Price (18 extra decimals).
const PriceScale = 1e18

// PriceFloat converts a scaled price (pairing-asset base units per whole token times PriceScale)
// into whole pairing asset per whole token, a display value.
func PriceFloat(price *uint256.Int, quoteDecimals uint8) float64 {
	f, _ := new(big.Float).SetInt(price.ToBig()).Float64()
	return f / math.Pow10(int(quoteDecimals)+18)
}
