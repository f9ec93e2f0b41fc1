package txbuild

import (
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/holiman/uint256"

	"github.com/curvekit/curvekit"
	"github.com/curvekit/curvekit/contracts"
)

// pack encodes a call and turns an encoding failure into an error (it can only come from a
// mismatch between this package and the contracts' ABI, which the tests pin down).
func pack(a *abi.ABI, method string, args ...any) ([]byte, error) {
	data, err := a.Pack(method, args...)
	if err != nil {
		return nil, fmt.Errorf("txbuild: encode %s: %w", method, err)
	}
	return data, nil
}

func positive(what string, v *uint256.Int) error {
	if v.IsZero() {
		return fmt.Errorf("%w: %s must be positive", curvekit.ErrInvalid, what)
	}
	return nil
}

// Approve builds approve(spender, amount) on an ERC-20 asset.
func (b *Builder) Approve(from, asset, spender common.Address, amount *uint256.Int) (Tx, error) {
	data, err := pack(contracts.ERC20ABI, "approve", spender, amount.ToBig())
	if err != nil {
		return Tx{}, err
	}
	return b.tx(from, asset, data, nil), nil
}

// CurveBuy describes buy(amountIn, minTokensOut, deadline) on a token's curve.
type CurveBuy struct {
	From  common.Address
	Curve common.Address
	// Quote is the pairing asset: the zero address for native ETH (sent as value), else an
	// ERC-20 the curve pulls with transferFrom.
	Quote        common.Address
	AmountIn     uint256.Int
	MinTokensOut uint256.Int
	// Deadline in Unix seconds; 0 means now plus the configured validity.
	Deadline int64
	// Allowance of Quote already granted to the curve; nil when unknown.
	Allowance *uint256.Int
}

// CurveBuy builds a buy on the curve; tokens (and a graduation refund) go to the sender.
func (b *Builder) CurveBuy(p CurveBuy) (Plan, error) {
	if err := positive("amount", &p.AmountIn); err != nil {
		return Plan{}, err
	}
	data, err := pack(contracts.BondingCurveABI, "buy", p.AmountIn.ToBig(), p.MinTokensOut.ToBig(), big.NewInt(b.deadline(p.Deadline)))
	if err != nil {
		return Plan{}, err
	}
	if p.Quote == (common.Address{}) {
		return Plan{Tx: b.tx(p.From, p.Curve, data, &p.AmountIn)}, nil
	}
	appr, err := b.approval(p.From, p.Quote, p.Curve, &p.AmountIn, p.Allowance)
	if err != nil {
		return Plan{}, err
	}
	return Plan{Approval: appr, Tx: b.tx(p.From, p.Curve, data, nil)}, nil
}

// CurveSell describes sell(tokenAmount, minQuoteOut, deadline) on a token's curve.
type CurveSell struct {
	From        common.Address
	Curve       common.Address
	Token       common.Address
	TokenAmount uint256.Int
	MinQuoteOut uint256.Int
	Deadline    int64
	// Allowance of Token already granted to the curve; nil when unknown.
	Allowance *uint256.Int
}

// CurveSell builds a sell on the curve; the pairing asset goes to the sender. The curve pulls the
// tokens with transferFrom, so an approval precedes it when the allowance is short.
func (b *Builder) CurveSell(p CurveSell) (Plan, error) {
	if err := positive("amount", &p.TokenAmount); err != nil {
		return Plan{}, err
	}
	data, err := pack(contracts.BondingCurveABI, "sell", p.TokenAmount.ToBig(), p.MinQuoteOut.ToBig(), big.NewInt(b.deadline(p.Deadline)))
	if err != nil {
		return Plan{}, err
	}
	appr, err := b.approval(p.From, p.Token, p.Curve, &p.TokenAmount, p.Allowance)
	if err != nil {
		return Plan{}, err
	}
	return Plan{Approval: appr, Tx: b.tx(p.From, p.Curve, data, nil)}, nil
}

// Swap describes an exact-input router swap along Path (Path[0] in, Path[len-1] out). A path that
// starts with the configured WETH spends native ETH (swapExactETHForTokens); one that ends with it
// pays native ETH (swapExactTokensForETH); any other is swapExactTokensForTokens.
type Swap struct {
	From      common.Address
	Path      []common.Address
	AmountIn  uint256.Int
	MinOut    uint256.Int
	Recipient common.Address
	Deadline  int64
	// Allowance of Path[0] already granted to the router; nil when unknown. Unused for ETH in.
	Allowance *uint256.Int
}

// Swap builds a router swap. The router delivers to Recipient, which is required.
func (b *Builder) Swap(p Swap) (Plan, error) {
	if p.Recipient == (common.Address{}) {
		return Plan{}, fmt.Errorf("%w", ErrRecipientRequired)
	}
	if len(p.Path) < 2 {
		return Plan{}, fmt.Errorf("%w: swap path needs at least two assets", curvekit.ErrInvalid)
	}
	if err := positive("amount", &p.AmountIn); err != nil {
		return Plan{}, err
	}
	deadline := big.NewInt(b.deadline(p.Deadline))
	in, out := p.Path[0], p.Path[len(p.Path)-1]
	switch {
	case in == b.cfg.WETH && b.cfg.WETH != (common.Address{}):
		data, err := pack(contracts.RouterABI, "swapExactETHForTokens", p.MinOut.ToBig(), p.Path, p.Recipient, deadline)
		if err != nil {
			return Plan{}, err
		}
		return Plan{Tx: b.tx(p.From, b.cfg.Router, data, &p.AmountIn)}, nil
	case out == b.cfg.WETH && b.cfg.WETH != (common.Address{}):
		data, err := pack(contracts.RouterABI, "swapExactTokensForETH", p.AmountIn.ToBig(), p.MinOut.ToBig(), p.Path, p.Recipient, deadline)
		if err != nil {
			return Plan{}, err
		}
		appr, err := b.approval(p.From, in, b.cfg.Router, &p.AmountIn, p.Allowance)
		if err != nil {
			return Plan{}, err
		}
		return Plan{Approval: appr, Tx: b.tx(p.From, b.cfg.Router, data, nil)}, nil
	default:
		data, err := pack(contracts.RouterABI, "swapExactTokensForTokens", p.AmountIn.ToBig(), p.MinOut.ToBig(), p.Path, p.Recipient, deadline)
		if err != nil {
			return Plan{}, err
		}
		appr, err := b.approval(p.From, in, b.cfg.Router, &p.AmountIn, p.Allowance)
		if err != nil {
			return Plan{}, err
		}
		return Plan{Approval: appr, Tx: b.tx(p.From, b.cfg.Router, data, nil)}, nil
	}
}

// Launch describes the factory's launch(name, symbol, uri, quoteAsset, initialBuy, minTokensOut):
// one call that creates the token and its curve, optionally with a first buy for the creator.
type Launch struct {
	From   common.Address
	Name   string
	Symbol string
	// URI is the token metadata URI (an ipfs:// address from the metadata upload).
	URI string
	// Quote is the pairing asset: zero for native ETH.
	Quote        common.Address
	InitialBuy   uint256.Int
	MinTokensOut uint256.Int
	// LaunchFee is the factory's current launch fee in ETH (read it from the chain).
	LaunchFee uint256.Int
	// Allowance of Quote already granted to the factory; nil when unknown. Used only for an
	// ERC-20-paired launch with a first buy.
	Allowance *uint256.Int
}

// Launch builds a factory launch. For an ETH-paired token the value is the launch fee plus the
// first buy; for an ERC-20-paired token the value is the launch fee and the factory pulls the first
// buy with transferFrom, so an approval to the factory may precede it.
func (b *Builder) Launch(p Launch) (Plan, error) {
	if p.Name == "" || p.Symbol == "" {
		return Plan{}, fmt.Errorf("%w: name and symbol are required", curvekit.ErrInvalid)
	}
	if b.cfg.Factory == (common.Address{}) {
		return Plan{}, fmt.Errorf("txbuild: no factory address configured")
	}
	data, err := pack(contracts.LaunchFactoryABI, "launch", p.Name, p.Symbol, p.URI, p.Quote, p.InitialBuy.ToBig(), p.MinTokensOut.ToBig())
	if err != nil {
		return Plan{}, err
	}
	value := p.LaunchFee
	if p.Quote == (common.Address{}) {
		if _, over := value.AddOverflow(&value, &p.InitialBuy); over {
			return Plan{}, fmt.Errorf("%w: launch fee plus first buy overflows", curvekit.ErrInvalid)
		}
		return Plan{Tx: b.tx(p.From, b.cfg.Factory, data, &value)}, nil
	}
	var appr *Tx
	if !p.InitialBuy.IsZero() {
		if appr, err = b.approval(p.From, p.Quote, b.cfg.Factory, &p.InitialBuy, p.Allowance); err != nil {
			return Plan{}, err
		}
	}
	return Plan{Approval: appr, Tx: b.tx(p.From, b.cfg.Factory, data, &value)}, nil
}

// ClaimCreatorFees builds claimCreatorFees() on a token's curve. Only the creator's wallet can
// claim; from anyone else the call reverts.
func (b *Builder) ClaimCreatorFees(from, curveAddr common.Address) (Tx, error) {
	data, err := pack(contracts.BondingCurveABI, "claimCreatorFees")
	if err != nil {
		return Tx{}, err
	}
	return b.tx(from, curveAddr, data, nil), nil
}
