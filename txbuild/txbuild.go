// Package txbuild builds unsigned transactions for the curvekit contracts: curve buys and sells,
// router swaps after graduation, factory launches, creator fee claims and the ERC-20 approvals that
// must precede some of them. It never signs or sends anything: a Plan is a request for the wallet
// owner to confirm.
//
// Building is pure: every input that lives on chain (reserves, allowances, the time) is passed in,
// so the same call gives the same bytes. Trade combines pricing (package curve) with building: it
// quotes the trade, derives the minimum output from a slippage tolerance, and encodes the call.
package txbuild

import (
	"errors"
	"fmt"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/holiman/uint256"

	"github.com/curvekit/curvekit"
)

// Errors returned by the builders wrap one of these (and curvekit.ErrInvalid for bad input).
var (
	// ErrRecipientRequired reports a pool swap without a recipient: the router delivers output
	// to an explicit address, so a build without one has nowhere to send it.
	ErrRecipientRequired = errors.New("recipient required: the token trades on the pool and the router needs an explicit recipient")
	// ErrGraduated reports a curve call for a token that trades on the pool.
	ErrGraduated = errors.New("token has graduated: trade it on the pool")
)

// Tx is one unsigned transaction.
type Tx struct {
	ChainID uint64
	// From is the sending wallet when known (the zero address otherwise).
	From  common.Address
	To    common.Address
	Data  []byte
	Value uint256.Int
	// Gas is an estimate when a chain was at hand, 0 otherwise.
	Gas uint64
}

// Plan is the transactions a wallet sends, in order: Approval (when set) first, then Tx.
type Plan struct {
	// Approval is an ERC-20 approve(spender, amount) that must be mined before Tx, set only when
	// the known allowance is short of what Tx spends.
	Approval *Tx
	Tx       Tx
}

// Config holds what every build needs to know about the chain.
type Config struct {
	ChainID uint64
	Factory common.Address
	Router  common.Address
	WETH    common.Address
	// Deadline is how long a built trade stays valid; default 30 minutes.
	Deadline time.Duration
	// Now is the clock deadlines count from; default time.Now.
	Now func() time.Time
}

func (c *Config) validate() error {
	if c.ChainID == 0 {
		return fmt.Errorf("txbuild: chain id is required")
	}
	if c.Deadline == 0 {
		c.Deadline = 30 * time.Minute
	}
	if c.Deadline < 0 {
		return fmt.Errorf("txbuild: deadline %s is negative", c.Deadline)
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	return nil
}

// Builder builds unsigned transactions for one chain and one set of contracts.
type Builder struct {
	cfg Config
}

// New returns a Builder for cfg.
func New(cfg Config) (*Builder, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	return &Builder{cfg: cfg}, nil
}

// Config returns the builder's configuration with defaults applied.
func (b *Builder) Config() Config { return b.cfg }

// deadline returns d when set, else now + the configured validity, in Unix seconds.
func (b *Builder) deadline(d int64) int64 {
	if d != 0 {
		return d
	}
	return b.cfg.Now().Add(b.cfg.Deadline).Unix()
}

func (b *Builder) tx(from, to common.Address, data []byte, value *uint256.Int) Tx {
	t := Tx{ChainID: b.cfg.ChainID, From: from, To: to, Data: data}
	if value != nil {
		t.Value = *value
	}
	return t
}

// approval returns an approve(spender, need) on asset when allowance is known and short of need.
// An unknown allowance (nil) is treated as zero: the approval is then included, since a missing
// approval makes the main transaction revert while a redundant one only costs gas.
func (b *Builder) approval(from, asset, spender common.Address, need, allowance *uint256.Int) (*Tx, error) {
	if allowance != nil && allowance.Cmp(need) >= 0 {
		return nil, nil
	}
	t, err := b.Approve(from, asset, spender, need)
	if err != nil {
		return nil, err
	}
	return &t, nil
}

// MinOut returns quoted reduced by slippageBps (rounded down): the least output a trade built from
// this quote accepts.
func MinOut(quoted *uint256.Int, slippageBps uint16) uint256.Int {
	var z uint256.Int
	if slippageBps >= 10_000 {
		return z
	}
	// quoted * (10000 - bps) / 10000 without overflow: split into quotient and remainder.
	var q, r, keep, bps uint256.Int
	bps.SetUint64(10_000)
	keep.SetUint64(uint64(10_000 - slippageBps))
	q.DivMod(quoted, &bps, &r)
	z.Mul(&q, &keep)
	r.Mul(&r, &keep)
	r.Div(&r, &bps)
	z.Add(&z, &r)
	return z
}

// MaxSlippageBps is the largest slippage tolerance a build accepts (50%).
const MaxSlippageBps = 5_000

// DefaultSlippageBps is the slippage tolerance when the caller names none (1%).
const DefaultSlippageBps = 100

// ParseSlippage parses a slippage tolerance in percent ("1", "0.5", "2.25") into basis points.
// At most two decimals; 0 <= percent <= 50.
func ParseSlippage(percent string) (uint16, error) {
	v, err := curvekit.ParseAmount(percent, 2)
	if err != nil {
		return 0, fmt.Errorf("%w: slippage %q is not a percentage with at most two decimals", curvekit.ErrInvalid, percent)
	}
	if !v.IsUint64() || v.Uint64() > MaxSlippageBps {
		return 0, fmt.Errorf("%w: slippage %s%% is above %d%%", curvekit.ErrInvalid, percent, MaxSlippageBps/100)
	}
	return uint16(v.Uint64()), nil
}
