package app

import (
	"context"
	"sync"
	"time"

	"github.com/curvekit/curvekit/account"
)

// wireSettings builds the account settings: the wallet's second guard and the agent profile,
// stored beside everything else, with the pairing assets the chain's factory enables.
func (a *App) wireSettings(context.Context) error {
	var err error
	a.Settings, err = account.New(account.Config{Store: a.DB.AccountSettings(), Assets: &pairingAssets{a: a}})
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
