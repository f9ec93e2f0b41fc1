// Package devnet runs an in-process Ethereum chain (a go-ethereum node that seals blocks on
// demand, as ethclient/simulated does) with the curvekit contracts deployed and three demo tokens
// launched, for tests and the reference server. The chain lives in memory, or on disk when
// Config.Dir is set, so that a restarted server continues it.
//
// Start deploys, from Deployer (who owns the factory and the demo pairing asset and receives the
// launch and protocol fees): WETH9, MockERC20 "Test USD"/TUSD (6 decimals, 1e12 TUSD minted to the
// deployer and to every account), PoolFactory (PoolFeeBps), Router and LaunchFactory, enables native
// ETH and TUSD as pairing assets with curves that graduate quickly (DefaultETHParams,
// DefaultUSDParams) and launches:
//
//   - ETHToken: "Demo Ether Token"/DETH paired with ETH, by Accounts[0], initial buy 0.5 ETH;
//   - USDToken: "Demo USD Token"/DUSD paired with TUSD, by Accounts[1], initial buy 500 TUSD;
//   - GraduatedToken: "Graduated Demo"/GRAD paired with ETH, by Accounts[2] (initial buy 1 ETH),
//     then a 10 ETH buy by Accounts[3] crosses graduationQuote, so its token/WETH pool exists.
//
// Accounts[4:] are untouched apart from their TUSD. Keys derive from a fixed seed, so every run has
// the same addresses (contracts included) and the same genesis; the setup takes six blocks. A
// block's time is the wall clock's second or its parent's plus one, whichever is later: a
// transaction sealed at once into a block of its own (the default) runs the chain's clock ahead
// of the wall clock at more than one a second, while with Config.WallClock transactions wait for
// the next second, together, and the chain's clock keeps with the wall clock. With Config.Dir the
// chain is kept on disk and a restart continues it.
//
// The chain config is go-ethereum's dev config without the Bogota fork, which would reprice gas
// (see shared FACTS.md); Osaka is active, so a transaction may use at most 16,777,216 gas.
package devnet

import (
	"context"
	"crypto/ecdsa"
	"encoding/binary"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient/simulated"

	"github.com/curvekit/curvekit/contracts/bindings"
)

// Account is a funded devnet account.
type Account struct {
	Key     *ecdsa.PrivateKey
	Address common.Address
}

// Launch is a token launched on the devnet and its bonding curve.
type Launch struct {
	Token common.Address
	Curve common.Address
}

// Addresses are the deployed infrastructure bindings.
type Addresses struct {
	Factory     common.Address // LaunchFactory
	PoolFactory common.Address
	Router      common.Address
	WETH        common.Address // WETH9
	USD         common.Address // MockERC20 "Test USD" (TUSD, 6 decimals)
}

// Config tunes Start. The zero value is the standard devnet.
type Config struct {
	Accounts   int                  // funded accounts besides the deployer; default 10, at least 4
	Balance    *big.Int             // wei per account (deployer too); default 1e9 ETH
	ETHParams  bindings.CurveParams // curve parameters for ETH pairing; zero = DefaultETHParams()
	USDParams  bindings.CurveParams // curve parameters for TUSD pairing; zero = DefaultUSDParams()
	PoolFeeBps uint16               // pool swap fee; 0 = 30
	LaunchFee  *big.Int             // factory launch fee in wei; nil = 0

	// Dir keeps the chain on disk. The first Start with a Dir sets the devnet up there; every
	// later Start with the same Dir and the same settings continues that chain: same genesis,
	// blocks, contract addresses, accounts and balances, and no setup is run again. Another
	// process using Dir at the same time is refused; a Dir set up with other settings is
	// refused too (delete it to start a new chain). Empty: the chain lives in memory and is gone
	// at Close.
	Dir string

	// WallClock keeps block times with the wall clock, as a chain that seals on a period does
	// (geth --dev.period): a transaction that Send, or ServeRPC's mining, seals goes into a block
	// at once while the wall clock is past the head's time, and otherwise waits, with every
	// transaction sent meanwhile, for the block sealed when the wall clock reaches the head's
	// time plus a second. The head's time never passes the wall clock, however fast
	// transactions come. Without it (what tests want: no waiting) each is sealed at once into a
	// block of its own, a second after its parent at least, so a fast sender puts the chain's
	// clock ahead of the wall clock. The setup's blocks are sealed the same way (with it, a
	// new chain's setup takes about six seconds). Mine always seals at once.
	WallClock bool
}

// Devnet is a running chain with the contracts deployed. Send and Mine serialize on an internal
// lock; Client may be used concurrently for reads. ServeRPC serves the chain's JSON-RPC to
// wallets and mines what they send.
type Devnet struct {
	Backend        *Backend
	Client         simulated.Client
	ChainID        *big.Int
	Deployer       Account
	Accounts       []Account
	Addrs          Addresses
	ETHToken       Launch // DETH, paired with ETH, launched by Accounts[0]
	USDToken       Launch // DUSD, paired with TUSD, launched by Accounts[1]
	GraduatedToken Launch // GRAD, paired with ETH, launched by Accounts[2], graduated by Accounts[3]
	// Resumed reports that Start continued a chain kept in Config.Dir rather than setting up a
	// new one.
	Resumed bool

	mu        sync.Mutex
	closed    bool          // by Close, under mu
	closing   chan struct{} // closed by Close: ServeRPC ends
	wallClock bool          // Config.WallClock
}

// Amounts used by the defaults (never mutated).
var (
	oneETH = new(big.Int).Exp(big.NewInt(10), big.NewInt(18), nil) // 1e18 wei
	oneUSD = big.NewInt(1_000_000)                                 // one TUSD (6 decimals)
	// usdPerAccount is what Start mints to the deployer and every account: 1e12 TUSD.
	usdPerAccount = new(big.Int).Mul(big.NewInt(1_000_000_000_000), oneUSD)
)

// tokens returns n whole 18-decimal tokens in base units.
func tokens(n int64) *big.Int { return new(big.Int).Mul(big.NewInt(n), oneETH) }

// DefaultETHParams are the devnet's ETH curve parameters: docs/CURVE.md's defaults with
// virtualQuote0 = 3 ETH and graduationQuote = 8.5 ETH (a tenth of the usual), fee 100 bps, half
// to the creator.
func DefaultETHParams() bindings.CurveParams {
	return defaultParams(new(big.Int).Mul(big.NewInt(3), oneETH), new(big.Int).Div(new(big.Int).Mul(big.NewInt(85), oneETH), big.NewInt(10)))
}

// DefaultUSDParams are the devnet's TUSD curve parameters: virtualQuote0 = 3,000 TUSD and
// graduationQuote = 8,500 TUSD, token numbers as DefaultETHParams.
func DefaultUSDParams() bindings.CurveParams {
	return defaultParams(new(big.Int).Mul(big.NewInt(3_000), oneUSD), new(big.Int).Mul(big.NewInt(8_500), oneUSD))
}

func defaultParams(virtualQuote0, graduationQuote *big.Int) bindings.CurveParams {
	return bindings.CurveParams{
		VirtualQuote0:   virtualQuote0,
		VirtualToken0:   tokens(1_073_000_000),
		TokenSupply:     tokens(1_000_000_000),
		RealToken0:      tokens(793_100_000),
		GraduationQuote: graduationQuote,
		FeeBps:          100,
		CreatorShareBps: 5_000,
	}
}

func isZeroParams(p bindings.CurveParams) bool {
	isZero := func(x *big.Int) bool { return x == nil || x.Sign() == 0 }
	return isZero(p.VirtualQuote0) && isZero(p.VirtualToken0) && isZero(p.TokenSupply) &&
		isZero(p.RealToken0) && isZero(p.GraduationQuote) && p.FeeBps == 0 && p.CreatorShareBps == 0
}

// keySeed is the fixed seed devnet keys derive from: key i = keccak256(keySeed || uint32(i)),
// i = 0 for the deployer and 1.. for Accounts. Public knowledge: never fund these keys elsewhere.
const keySeed = "curvekit devnet key"

// DeriveAccount returns the devnet account with index i (0 is the deployer, i+1 is Accounts[i]).
func DeriveAccount(i int) (Account, error) {
	var idx [4]byte
	binary.BigEndian.PutUint32(idx[:], uint32(i))
	key, err := crypto.ToECDSA(crypto.Keccak256([]byte(keySeed), idx[:]))
	if err != nil {
		return Account{}, fmt.Errorf("devnet: derive key %d: %w", i, err)
	}
	return Account{Key: key, Address: crypto.PubkeyToAddress(key.PublicKey)}, nil
}

// Start launches a devnet as described in the package documentation. With cfg.Dir set, a chain
// kept there by an earlier Start is continued instead (see Config.Dir).
func Start(cfg Config) (*Devnet, error) {
	if err := cfg.withDefaults(); err != nil {
		return nil, err
	}
	d := &Devnet{closing: make(chan struct{}), wallClock: cfg.WallClock}
	alloc := types.GenesisAlloc{}
	for i := 0; i <= cfg.Accounts; i++ {
		acc, err := DeriveAccount(i)
		if err != nil {
			return nil, err
		}
		if i == 0 {
			d.Deployer = acc
		} else {
			d.Accounts = append(d.Accounts, acc)
		}
		alloc[acc.Address] = types.Account{Balance: new(big.Int).Set(cfg.Balance)}
	}
	genesis := genesisOf(alloc)
	d.ChainID = new(big.Int).Set(genesis.Config.ChainID)

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if cfg.Dir != "" {
		if err := d.startIn(ctx, cfg, genesis); err != nil {
			if d.Backend != nil {
				_ = d.Backend.Close()
			}
			return nil, fmt.Errorf("devnet: %w", err)
		}
		return d, nil
	}
	b, err := newBackend("", genesis)
	if err != nil {
		return nil, fmt.Errorf("devnet: %w", err)
	}
	d.use(b)
	if err := d.setup(ctx, cfg); err != nil {
		_ = d.Backend.Close()
		return nil, fmt.Errorf("devnet: %w", err)
	}
	return d, nil
}

// withDefaults fills the zero fields of c and checks the rest.
func (c *Config) withDefaults() error {
	if c.Accounts == 0 {
		c.Accounts = 10
	}
	if c.Accounts < 4 {
		return fmt.Errorf("devnet: need at least 4 accounts for the demo launches, got %d", c.Accounts)
	}
	if c.Balance == nil {
		c.Balance = new(big.Int).Mul(big.NewInt(1_000_000_000), oneETH)
	}
	if isZeroParams(c.ETHParams) {
		c.ETHParams = DefaultETHParams()
	}
	if isZeroParams(c.USDParams) {
		c.USDParams = DefaultUSDParams()
	}
	if c.PoolFeeBps == 0 {
		c.PoolFeeBps = 30
	}
	if c.LaunchFee == nil {
		c.LaunchFee = new(big.Int)
	}
	return nil
}

// use makes b the devnet's chain.
func (d *Devnet) use(b *Backend) {
	d.Backend, d.Client = b, b.Client()
}

// Close stops the chain; with Config.Dir set, everything it holds is on disk afterwards. It waits
// for a Send in progress (with Config.WallClock, one waiting for its block returns an error).
func (d *Devnet) Close() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if !d.closed {
		d.closed = true
		close(d.closing)
	}
	return d.Backend.Close()
}

// Mine seals a block with whatever is pending and returns its hash.
func (d *Devnet) Mine() common.Hash {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.Backend.Commit()
}

// MineEvery mines a block every interval until stop is called, as a real chain mines by itself;
// stop returns once the last block is mined.
func (d *Devnet) MineEvery(interval time.Duration) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				d.Mine()
			}
		}
	})
	return sync.OnceFunc(func() { close(done); wg.Wait() })
}

// AdjustTime moves the chain's clock forward by d and seals an empty block there. The simulated
// backend refuses while its transaction pool still holds transactions, which it clears in the
// background after each block (later on a loaded machine), so AdjustTime tries again for up to
// a second.
func (d *Devnet) AdjustTime(dt time.Duration) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	for i := 0; ; i++ {
		err := d.Backend.AdjustTime(dt)
		if err == nil || !strings.Contains(err.Error(), "non-empty block") || i == 200 {
			return err
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// Deadline returns the latest block's timestamp plus ahead, for the deadline parameter of curve
// and router calls (block timestamps run ahead of the wall clock when many blocks are mined).
func (d *Devnet) Deadline(ctx context.Context, ahead time.Duration) (*big.Int, error) {
	h, err := d.Client.HeaderByNumber(ctx, nil)
	if err != nil {
		return nil, err
	}
	return new(big.Int).SetUint64(h.Time + uint64(ahead/time.Second)), nil
}

// Send signs an EIP-1559 transaction from key (to == nil deploys data as creation code), with the
// gas estimated for it, sends it, has it mined and returns the receipt: in a block of its own at
// once, or with Config.WallClock in the next block the wall clock allows, with every other
// transaction pending then (Sends from several goroutines share it). A transaction that would
// revert fails at estimation with a *RevertError; one that reverts when mined returns its receipt
// together with an error.
func (d *Devnet) Send(ctx context.Context, key *ecdsa.PrivateKey, to *common.Address, value *big.Int, data []byte) (*types.Receipt, error) {
	rcpts, err := d.sendAll(ctx, sendCall{key, to, value, data})
	if len(rcpts) == 0 {
		return nil, err
	}
	return rcpts[0], err
}

// sendCall is a transaction for sendAll to sign and send.
type sendCall struct {
	key   *ecdsa.PrivateKey
	to    *common.Address
	value *big.Int
	data  []byte
}

// sendAll sends calls as Send does, each estimated against the head, so none may depend on
// another, and has them mined together: in one block at once, or with Config.WallClock in the
// next block the wall clock allows. It returns the receipts it got, in order, and stops at the
// first error (a reverted call's receipt comes with it).
func (d *Devnet) sendAll(ctx context.Context, calls ...sendCall) ([]*types.Receipt, error) {
	d.mu.Lock()
	txs := make([]*types.Transaction, 0, len(calls))
	// A sender's later calls take the nonces after its first: the pool's pending nonce may not
	// count a transaction sent a moment ago.
	next := map[common.Address]uint64{}
	for _, c := range calls {
		from := crypto.PubkeyToAddress(c.key.PublicKey)
		var nonce *uint64
		if n, ok := next[from]; ok {
			nonce = &n
		}
		tx, err := d.submit(ctx, c.key, c.to, c.value, c.data, nonce)
		if err != nil {
			d.mu.Unlock()
			return nil, err
		}
		next[from] = tx.Nonce() + 1
		txs = append(txs, tx)
	}
	if d.wallClock {
		d.mu.Unlock()
	} else {
		defer d.mu.Unlock()
		d.Backend.Commit()
	}
	rcpts := make([]*types.Receipt, 0, len(txs))
	for _, tx := range txs {
		if d.wallClock {
			if err := d.sealIncluding(ctx, tx.Hash()); err != nil {
				return rcpts, err
			}
		}
		rcpt, err := d.receipt(ctx, tx)
		if rcpt != nil {
			rcpts = append(rcpts, rcpt)
		}
		if err != nil {
			return rcpts, err
		}
	}
	return rcpts, nil
}

// submit signs and sends a transaction, under d.mu (nonces are taken one sender at a time),
// with the given nonce or, when nil, the pool's pending nonce of the sender.
func (d *Devnet) submit(ctx context.Context, key *ecdsa.PrivateKey, to *common.Address, value *big.Int, data []byte, given *uint64) (*types.Transaction, error) {
	if value == nil {
		value = new(big.Int)
	}
	from := crypto.PubkeyToAddress(key.PublicKey)
	var nonce uint64
	if given != nil {
		nonce = *given
	} else {
		n, err := d.Client.PendingNonceAt(ctx, from)
		if err != nil {
			return nil, err
		}
		nonce = n
	}
	gas, err := d.Client.EstimateGas(ctx, ethereum.CallMsg{From: from, To: to, Value: value, Data: data})
	if err != nil {
		return nil, wrapRevert(err)
	}
	head, err := d.Client.HeaderByNumber(ctx, nil)
	if err != nil {
		return nil, err
	}
	tip, err := d.Client.SuggestGasTipCap(ctx)
	if err != nil {
		return nil, err
	}
	feeCap := new(big.Int).Add(new(big.Int).Mul(head.BaseFee, big.NewInt(2)), tip)
	tx, err := types.SignNewTx(key, types.LatestSignerForChainID(d.ChainID), &types.DynamicFeeTx{
		ChainID:   d.ChainID,
		Nonce:     nonce,
		GasTipCap: tip,
		GasFeeCap: feeCap,
		Gas:       gas,
		To:        to,
		Value:     value,
		Data:      data,
	})
	if err != nil {
		return nil, err
	}
	if err := d.Client.SendTransaction(ctx, tx); err != nil {
		return nil, err
	}
	// The pool counts a new transaction in the sender's pending nonce in the background; the
	// next submit, before any block, asks for that nonce.
	if err := d.Backend.eth.TxPool().Sync(); err != nil {
		return nil, err
	}
	return tx, nil
}

// receipt is the receipt of tx, mined; a reverted transaction's comes with an error.
func (d *Devnet) receipt(ctx context.Context, tx *types.Transaction) (*types.Receipt, error) {
	rcpt, err := d.Client.TransactionReceipt(ctx, tx.Hash())
	if err != nil {
		return nil, fmt.Errorf("receipt of %s: %w", tx.Hash(), err)
	}
	if rcpt.Status != types.ReceiptStatusSuccessful {
		return rcpt, fmt.Errorf("transaction %s reverted (gas used %d)", tx.Hash(), rcpt.GasUsed)
	}
	return rcpt, nil
}

// Call runs a read-only call against the latest block; a revert comes back as a *RevertError.
func (d *Devnet) Call(ctx context.Context, from common.Address, to common.Address, data []byte) ([]byte, error) {
	out, err := d.Client.CallContract(ctx, ethereum.CallMsg{From: from, To: &to, Data: data}, nil)
	if err != nil {
		return nil, wrapRevert(err)
	}
	return out, nil
}

// Balance returns addr's ETH balance (asset == address(0)) or its balance of the ERC-20 asset.
func (d *Devnet) Balance(ctx context.Context, asset, addr common.Address) (*big.Int, error) {
	if asset == (common.Address{}) {
		return d.Client.BalanceAt(ctx, addr, nil)
	}
	erc20 := bindings.NewCurveToken()
	out, err := d.Call(ctx, addr, asset, erc20.PackBalanceOf(addr))
	if err != nil {
		return nil, err
	}
	return erc20.UnpackBalanceOf(out)
}

// setup deploys and launches what the package documentation lists, in six blocks: each holds
// the calls that need only the blocks before it. The launches keep their order in blocks of
// their own, so the factory gives the tokens the same addresses on every chain.
func (d *Devnet) setup(ctx context.Context, cfg Config) error {
	dep := d.Deployer
	nonce, err := d.Client.PendingNonceAt(ctx, dep.Address)
	if err != nil {
		return err
	}
	// The deployments' addresses follow from the deployer's nonces, so those that name each
	// other go into one block.
	next := func() common.Address {
		nonce++
		return crypto.CreateAddress(dep.Address, nonce-1)
	}
	d.Addrs.WETH, d.Addrs.USD, d.Addrs.PoolFactory, d.Addrs.Router, d.Addrs.Factory = next(), next(), next(), next(), next()
	usd, pf, router, lf := bindings.NewMockERC20(), bindings.NewPoolFactory(), bindings.NewRouter(), bindings.NewLaunchFactory()
	deploy := func(bin string, ctorArgs []byte) sendCall {
		return sendCall{key: dep.Key, data: append(common.FromHex(bin), ctorArgs...)}
	}
	rcpts, err := d.sendAll(ctx,
		deploy(bindings.WETH9MetaData.Bin, nil),
		deploy(bindings.MockERC20MetaData.Bin, usd.PackConstructor("Test USD", "TUSD", 6)),
		deploy(bindings.PoolFactoryMetaData.Bin, pf.PackConstructor(cfg.PoolFeeBps)),
		deploy(bindings.RouterMetaData.Bin, router.PackConstructor(d.Addrs.PoolFactory, d.Addrs.WETH)),
		deploy(bindings.LaunchFactoryMetaData.Bin, lf.PackConstructor(d.Addrs.PoolFactory, d.Addrs.WETH, dep.Address)))
	if err != nil {
		return fmt.Errorf("deploy: %w", err)
	}
	for i, want := range []common.Address{d.Addrs.WETH, d.Addrs.USD, d.Addrs.PoolFactory, d.Addrs.Router, d.Addrs.Factory} {
		if rcpts[i].ContractAddress != want {
			return fmt.Errorf("deploy: contract %d at %s, want %s", i, rcpts[i].ContractAddress, want)
		}
	}

	calls := []sendCall{
		{key: dep.Key, to: &d.Addrs.Factory, data: lf.PackSetQuoteAsset(common.Address{}, cfg.ETHParams)},
		{key: dep.Key, to: &d.Addrs.Factory, data: lf.PackSetQuoteAsset(d.Addrs.USD, cfg.USDParams)},
	}
	if cfg.LaunchFee.Sign() != 0 {
		calls = append(calls, sendCall{key: dep.Key, to: &d.Addrs.Factory, data: lf.PackSetLaunchFee(cfg.LaunchFee)})
	}
	for _, acc := range append([]Account{dep}, d.Accounts...) {
		calls = append(calls, sendCall{key: dep.Key, to: &d.Addrs.USD, data: usd.PackMint(acc.Address, usdPerAccount)})
	}
	if _, err := d.sendAll(ctx, calls...); err != nil {
		return fmt.Errorf("enable pairing assets and mint TUSD: %w", err)
	}

	half := new(big.Int).Div(oneETH, big.NewInt(2))
	usdBuy := new(big.Int).Mul(big.NewInt(500), oneUSD)
	rcpts, err = d.sendAll(ctx,
		d.launchCall(cfg, d.Accounts[0], "Demo Ether Token", "DETH", "https://curvekit.invalid/deth.json", common.Address{}, half),
		sendCall{key: d.Accounts[1].Key, to: &d.Addrs.USD, data: usd.PackApprove(d.Addrs.Factory, usdBuy)})
	if err != nil {
		return fmt.Errorf("launch DETH, approve TUSD: %w", err)
	}
	if d.ETHToken, err = d.launched(rcpts[0], "DETH"); err != nil {
		return err
	}
	if rcpts, err = d.sendAll(ctx, d.launchCall(cfg, d.Accounts[1], "Demo USD Token", "DUSD", "https://curvekit.invalid/dusd.json", d.Addrs.USD, usdBuy)); err != nil {
		return fmt.Errorf("launch DUSD: %w", err)
	}
	if d.USDToken, err = d.launched(rcpts[0], "DUSD"); err != nil {
		return err
	}
	if rcpts, err = d.sendAll(ctx, d.launchCall(cfg, d.Accounts[2], "Graduated Demo", "GRAD", "https://curvekit.invalid/grad.json", common.Address{}, oneETH)); err != nil {
		return fmt.Errorf("launch GRAD: %w", err)
	}
	if d.GraduatedToken, err = d.launched(rcpts[0], "GRAD"); err != nil {
		return err
	}
	deadline, err := d.Deadline(ctx, time.Hour)
	if err != nil {
		return err
	}
	ten := new(big.Int).Mul(big.NewInt(10), oneETH)
	curve := bindings.NewBondingCurve()
	if _, err := d.Send(ctx, d.Accounts[3].Key, &d.GraduatedToken.Curve, ten, curve.PackBuy(ten, big.NewInt(1), deadline)); err != nil {
		return fmt.Errorf("graduating buy: %w", err)
	}
	pool, err := d.Call(ctx, d.Accounts[3].Address, d.GraduatedToken.Curve, curve.PackPool())
	if err != nil {
		return err
	}
	if addr, err := curve.UnpackPool(pool); err != nil || addr == (common.Address{}) {
		return errors.Join(errors.New("GRAD did not graduate"), err)
	}
	return nil
}

// launchCall launches a token from acc with an initial buy (the ERC-20 allowance must be in
// place when it is estimated).
func (d *Devnet) launchCall(cfg Config, acc Account, name, symbol, uri string, quote common.Address, initialBuy *big.Int) sendCall {
	lf := bindings.NewLaunchFactory()
	value := new(big.Int).Set(cfg.LaunchFee)
	if quote == (common.Address{}) {
		value.Add(value, initialBuy)
	}
	return sendCall{key: acc.Key, to: &d.Addrs.Factory, value: value, data: lf.PackLaunch(name, symbol, uri, quote, initialBuy, big.NewInt(1))}
}

// launched reads token and curve from a launch's Launched event.
func (d *Devnet) launched(rcpt *types.Receipt, symbol string) (Launch, error) {
	lf := bindings.NewLaunchFactory()
	for _, l := range rcpt.Logs {
		if l.Address != d.Addrs.Factory {
			continue
		}
		if ev, err := lf.UnpackLaunchedEvent(l); err == nil {
			return Launch{Token: ev.Token, Curve: ev.Curve}, nil
		}
	}
	return Launch{}, fmt.Errorf("launch %s: no Launched event", symbol)
}
