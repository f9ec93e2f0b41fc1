package evm

import (
	"context"
	"crypto/ecdsa"
	"errors"
	"fmt"
	"math/big"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/curvekit/curvekit/contracts/bindings"
)

// DeployParams says where and how to deploy the reference contracts.
type DeployParams struct {
	Client Client
	// Key signs every deployment transaction; its account pays the gas and owns the factory.
	Key *ecdsa.PrivateKey
	// FeeRecipient receives launch and protocol fees; default the deployer.
	FeeRecipient common.Address
	// WETH reuses an existing WETH9-compatible contract; zero deploys a new one.
	WETH common.Address
	// PoolFeeBps is the graduated pools' swap fee; default 30.
	PoolFeeBps uint16
	// ETHParams are the curve parameters enabled for native ETH; zero values are
	// DefaultCurveParams(1e18) (docs/CURVE.md's defaults).
	ETHParams bindings.CurveParams
	// Poll is how often a receipt is looked for; default 1s.
	Poll time.Duration
	// Progress, when set, hears each step as it is sent.
	Progress func(step string, tx common.Hash)
}

// Deployment is what the server's --factory, --router and --start-block need, and the rest of
// what was deployed.
type Deployment struct {
	ChainID     uint64         `json:"chainId"`
	Deployer    common.Address `json:"deployer"`
	WETH        common.Address `json:"weth"`
	PoolFactory common.Address `json:"poolFactory"`
	Router      common.Address `json:"router"`
	Factory     common.Address `json:"factory"`
	// StartBlock is the block of the factory's deployment: no launch can be older.
	StartBlock uint64 `json:"startBlock"`
}

// DefaultCurveParams are docs/CURVE.md's defaults for a pairing asset of `unit` base units per
// whole unit: virtual reserves of 30 units and 1.073e9 tokens, 793.1e6 tokens for sale out of
// 1e9, graduation at 85 units, fee 100 bps, half to the creator.
func DefaultCurveParams(unit *big.Int) bindings.CurveParams {
	tok := new(big.Int).Exp(big.NewInt(10), big.NewInt(18), nil)
	mul := func(n int64, u *big.Int) *big.Int { return new(big.Int).Mul(big.NewInt(n), u) }
	return bindings.CurveParams{
		VirtualQuote0:   mul(30, unit),
		VirtualToken0:   mul(1_073_000_000, tok),
		TokenSupply:     mul(1_000_000_000, tok),
		RealToken0:      mul(793_100_000, tok),
		GraduationQuote: mul(85, unit),
		FeeBps:          100,
		CreatorShareBps: 5_000,
	}
}

// Deploy deploys WETH9 (unless one is given), the pool factory, the router and the launch
// factory, and enables native ETH as a pairing asset, one transaction at a time, each waited
// for until mined and the client's head holds it. It works on any chain reachable by JSON-RPC;
// on a chain that mines only on demand (the in-process devnet) something must mine meanwhile.
func Deploy(ctx context.Context, p DeployParams) (Deployment, error) {
	if p.Client == nil || p.Key == nil {
		return Deployment{}, errors.New("evm: deploy needs a client and a key")
	}
	if p.PoolFeeBps == 0 {
		p.PoolFeeBps = 30
	}
	if p.ETHParams.VirtualQuote0 == nil {
		p.ETHParams = DefaultCurveParams(big.NewInt(1e18))
	}
	if p.Poll <= 0 {
		p.Poll = time.Second
	}
	d := &deployer{p: p, from: crypto.PubkeyToAddress(p.Key.PublicKey)}
	if p.FeeRecipient == (common.Address{}) {
		d.p.FeeRecipient = d.from
	}
	id, err := p.Client.ChainID(ctx)
	if err != nil {
		return Deployment{}, fmt.Errorf("evm: chain id: %w", err)
	}
	d.chainID = id
	out := Deployment{ChainID: id.Uint64(), Deployer: d.from, WETH: p.WETH}

	if out.WETH == (common.Address{}) {
		if out.WETH, _, err = d.create(ctx, "WETH9", bindings.WETH9MetaData.Bin, nil); err != nil {
			return out, err
		}
	}
	if out.PoolFactory, _, err = d.create(ctx, "PoolFactory", bindings.PoolFactoryMetaData.Bin, bindings.NewPoolFactory().PackConstructor(p.PoolFeeBps)); err != nil {
		return out, err
	}
	if out.Router, _, err = d.create(ctx, "Router", bindings.RouterMetaData.Bin, bindings.NewRouter().PackConstructor(out.PoolFactory, out.WETH)); err != nil {
		return out, err
	}
	lf := bindings.NewLaunchFactory()
	if out.Factory, out.StartBlock, err = d.create(ctx, "LaunchFactory", bindings.LaunchFactoryMetaData.Bin, lf.PackConstructor(out.PoolFactory, out.WETH, d.p.FeeRecipient)); err != nil {
		return out, err
	}
	if _, err := d.send(ctx, "enable ETH", &out.Factory, lf.PackSetQuoteAsset(common.Address{}, p.ETHParams)); err != nil {
		return out, err
	}
	return out, nil
}

type deployer struct {
	p       DeployParams
	from    common.Address
	chainID *big.Int
}

// create deploys bin with its constructor arguments and returns the address and block.
func (d *deployer) create(ctx context.Context, name, bin string, args []byte) (common.Address, uint64, error) {
	code := append(common.FromHex(bin), args...)
	rcpt, err := d.send(ctx, "deploy "+name, nil, code)
	if err != nil {
		return common.Address{}, 0, err
	}
	return rcpt.ContractAddress, rcpt.BlockNumber.Uint64(), nil
}

// send signs an EIP-1559 transaction with estimated gas, sends it and waits for its receipt.
func (d *deployer) send(ctx context.Context, step string, to *common.Address, data []byte) (*types.Receipt, error) {
	c := d.p.Client
	fail := func(err error) (*types.Receipt, error) { return nil, fmt.Errorf("evm: %s: %w", step, err) }
	nonce, err := c.PendingNonceAt(ctx, d.from)
	if err != nil {
		return fail(err)
	}
	gas, err := c.EstimateGas(ctx, ethereum.CallMsg{From: d.from, To: to, Data: data})
	if err != nil {
		return fail(fmt.Errorf("estimate gas: %w", err))
	}
	head, err := c.HeaderByNumber(ctx, nil)
	if err != nil {
		return fail(err)
	}
	tip, err := c.SuggestGasTipCap(ctx)
	if err != nil {
		return fail(err)
	}
	feeCap := new(big.Int).Add(tip, new(big.Int).Mul(head.BaseFee, big.NewInt(2)))
	tx, err := types.SignNewTx(d.p.Key, types.LatestSignerForChainID(d.chainID), &types.DynamicFeeTx{
		ChainID: d.chainID, Nonce: nonce, GasTipCap: tip, GasFeeCap: feeCap,
		// A margin over the estimate: a constructor's cost can shift with the block it lands in.
		Gas: gas + gas/5, To: to, Data: data,
	})
	if err != nil {
		return fail(err)
	}
	if err := c.SendTransaction(ctx, tx); err != nil {
		return fail(err)
	}
	if d.p.Progress != nil {
		d.p.Progress(step, tx.Hash())
	}
	tick := time.NewTicker(d.p.Poll)
	defer tick.Stop()
	for {
		rcpt, err := c.TransactionReceipt(ctx, tx.Hash())
		err = NotYetIndexed(err)
		if err == nil {
			if rcpt.Status != types.ReceiptStatusSuccessful {
				return fail(fmt.Errorf("transaction %s reverted, using %d of its %d gas", tx.Hash(), rcpt.GasUsed, tx.Gas()))
			}
			// The next step estimates its gas against the head: a node that serves the receipt
			// before its head reaches the receipt's block (one behind a load balancer, say)
			// would estimate a call to a contract it does not hold yet as a plain transfer.
			if err := d.awaitHead(ctx, rcpt.BlockNumber.Uint64(), tick.C); err != nil {
				return fail(err)
			}
			return rcpt, nil
		}
		if !errors.Is(err, ethereum.NotFound) {
			return fail(fmt.Errorf("receipt of %s: %w", tx.Hash(), err))
		}
		select {
		case <-ctx.Done():
			return fail(fmt.Errorf("waiting for %s: %w", tx.Hash(), ctx.Err()))
		case <-tick.C:
		}
	}
}

// awaitHead returns once the client's head is at block n or later, looking again at each tick.
func (d *deployer) awaitHead(ctx context.Context, n uint64, tick <-chan time.Time) error {
	for {
		head, err := d.p.Client.HeaderByNumber(ctx, nil)
		if err != nil {
			return err
		}
		if head.Number.Uint64() >= n {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("waiting for block %d: %w", n, ctx.Err())
		case <-tick:
		}
	}
}
