package app

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"

	"github.com/curvekit/curvekit"
	"github.com/curvekit/curvekit/account"
	"github.com/curvekit/curvekit/contracts"
	"github.com/curvekit/curvekit/txbuild"
	"github.com/curvekit/curvekit/wallet"
)

// wireSettings builds the account settings: the wallet's second guard and the agent profile,
// stored beside everything else, with the pairing assets the chain's factory enables.
func (a *App) wireSettings(context.Context) error {
	var err error
	a.Settings, err = account.New(account.Config{Store: a.DB.AccountSettings(), Assets: &pairingAssets{a: a}, Tools: a.agentTools, Notifier: a.sources()})
	return err
}

// pairingAssets are the chain's pairing assets, read from the factory at most once a minute: the
// factory's owner may enable another at any time.
type pairingAssets struct {
	a    *App
	mu   sync.Mutex
	list []account.Asset
	at   time.Time
}

func (p *pairingAssets) PairingAssets(ctx context.Context) ([]account.Asset, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.list != nil && time.Since(p.at) < time.Minute {
		return p.list, nil
	}
	assets, err := p.a.Chain.PairingAssets(ctx, p.a.Config.StartBlock)
	if err != nil {
		return nil, err
	}
	list := make([]account.Asset, len(assets))
	for i, as := range assets {
		list[i] = account.Asset{Address: as.Address, Symbol: as.Symbol, Decimals: as.Decimals}
	}
	p.list, p.at = list, time.Now()
	return list, nil
}

// guardMarkets prices trades for the wallet's guard from the state the indexer holds. A curve is
// found through its token: the curve names it on the chain (once; it never changes), and the
// indexed token must name the curve back.
type guardMarkets struct {
	a      *App
	tokens sync.Map // curve → token
}

func (g *guardMarkets) MarketOf(ctx context.Context, addr common.Address) (txbuild.Market, error) {
	t, err := g.a.Store.Token(ctx, addr)
	if err == nil {
		return t.Market(), nil
	}
	if !errors.Is(err, curvekit.ErrNotFound) {
		return txbuild.Market{}, err
	}
	token, ok := g.tokens.Load(addr)
	if !ok {
		if token, err = g.curveToken(ctx, addr); err != nil {
			return txbuild.Market{}, err
		}
	}
	t, err = g.a.Store.Token(ctx, token.(common.Address))
	if err != nil {
		return txbuild.Market{}, err
	}
	if t.Curve != addr {
		return txbuild.Market{}, fmt.Errorf("%w: %s is not an indexed token's curve", curvekit.ErrNotFound, addr.Hex())
	}
	g.tokens.Store(addr, t.Address)
	return t.Market(), nil
}

// curveToken asks addr for its token(), as a curve answers; anything else is not found.
func (g *guardMarkets) curveToken(ctx context.Context, addr common.Address) (any, error) {
	out, err := g.a.client.CallContract(ctx, ethereum.CallMsg{To: &addr, Data: curveTokenCall}, nil)
	if err != nil && !strings.Contains(err.Error(), "revert") {
		return nil, fmt.Errorf("read the token of %s: %w", addr.Hex(), err) // the node, not the address
	}
	if err != nil || len(out) != 32 {
		// An account without code, or a contract without token(): not a curve.
		return nil, fmt.Errorf("%w: %s is not a curve", curvekit.ErrNotFound, addr.Hex())
	}
	return common.BytesToAddress(out), nil
}

var curveTokenCall = contracts.BondingCurveABI.Methods["token"].ID

// buildGuard tells a build's issues what the account owning a wallet would refuse to sign: the
// custodial wallet's guard, previewed (nothing is signed, simulated or recorded).
type buildGuard struct{ a *App }

func (g *buildGuard) Refusals(ctx context.Context, w common.Address, txs []txbuild.Tx) ([]error, error) {
	none := make([]error, len(txs))
	if g.a.Wallets == nil {
		return none, nil
	}
	u, err := g.a.DB.Accounts().UserByWallet(ctx, w)
	if errors.Is(err, curvekit.ErrNotFound) {
		return none, nil
	}
	if err != nil {
		return nil, err
	}
	wtxs := make([]wallet.Tx, len(txs))
	for i, tx := range txs {
		wtxs[i] = wallet.Tx{To: tx.To, Data: tx.Data, Value: tx.Value, ChainID: tx.ChainID, Gas: tx.Gas}
	}
	out, err := g.a.Wallets.Check(ctx, u.ID, wtxs)
	if errors.Is(err, curvekit.ErrNotFound) {
		return none, nil // an account without a custodial wallet signs nothing here
	}
	return out, err
}

// agentProfile is the agent profile of the account whose wallet is w; a wallet of no account has
// the defaults.
func (a *App) agentProfile(ctx context.Context, w common.Address) (account.AgentProfile, error) {
	u, err := a.DB.Accounts().UserByWallet(ctx, w)
	if errors.Is(err, curvekit.ErrNotFound) {
		return account.Defaults().Agent, nil
	}
	if err != nil {
		return account.AgentProfile{}, err
	}
	st, err := a.Settings.Settings(ctx, u.ID)
	return st.Agent, err
}

// agentTools are the agent's tool names, which agent.tools may list; the agent is wired after the
// settings, so they are read when a profile changes.
func (a *App) agentTools() []string {
	if a.Agent == nil {
		return nil
	}
	var names []string
	for _, t := range a.Agent.Tools() {
		names = append(names, t.Name)
	}
	return names
}
