package evm_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/curvekit/curvekit/account"
	"github.com/curvekit/curvekit/adapters/bunstore"
	"github.com/curvekit/curvekit/adapters/evm"
	"github.com/curvekit/curvekit/wallet"
)

// What the account's guard and the simulation add to a send: the same ETH transfer signed and
// sent on the devnet (SQLite) bare, with the guard (caps set, so the daily sum is read under the
// wallet's lock), with the simulation (eth_simulateV1), and with both, as every send runs now.
func BenchmarkSendGuard(b *testing.B) {
	c := newCustodial(b)
	db, err := bunstore.Open(c.ctx, bunstore.Config{DSN: filepath.Join(b.TempDir(), "settings.db")})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	settings, err := account.New(account.Config{Store: db.AccountSettings(),
		Assets: account.AssetsFunc(func(context.Context) ([]account.Asset, error) {
			return []account.Asset{{Symbol: "ETH", Decimals: 18}}, nil
		})})
	if err != nil {
		b.Fatal(err)
	}
	bc, err := evm.NewBroadcaster(evm.BroadcastConfig{Client: c.dev.Client})
	if err != nil {
		b.Fatal(err)
	}
	runs := 0
	for _, v := range []struct {
		name     string
		guarded  bool
		simulate bool
	}{{"bare", false, false}, {"guard", true, false}, {"simulation", false, true}, {"guard+simulation", true, true}} {
		b.Run(v.name, func(b *testing.B) {
			cfg := wallet.Config{Store: c.store, Broadcaster: stale{bc}, Keys: c.keys}
			if v.simulate {
				cfg.Broadcaster = bc
			}
			if v.guarded {
				cfg.Guard, cfg.Markets = settings, marketsFunc(noMarket)
			}
			svc, err := wallet.New(cfg)
			if err != nil {
				b.Fatal(err)
			}
			runs++ // a wallet of its own each run: the daily sum reads the spends of 24 hours
			acct := fmt.Sprintf("acct-bench-%d", runs)
			if _, err := svc.Create(c.ctx, acct); err != nil {
				b.Fatal(err)
			}
			c.wallet(acct, 1000)
			c.dev.Mine()
			if _, err := settings.Update(c.ctx, account.UpdateParams{AccountID: acct, Actor: account.Actor{SignedInAt: time.Now()},
				Patch: []byte(`{"wallet":{"limits":{"ETH":{"perTransaction":"1","daily":"1000"}}}}`)}); err != nil {
				b.Fatal(err)
			}
			tx := c.transfer(c.dev.Accounts[4].Address, 1, 21_000)
			b.ReportAllocs()
			b.ResetTimer()
			for i := range b.N {
				if _, err := svc.SignAndSubmit(c.ctx, wallet.SignParams{AccountID: acct, Tx: tx}); err != nil {
					b.Fatal(fmt.Errorf("op %d: %w", i, err))
				}
				if i%100 == 99 {
					b.StopTimer()
					c.dev.Mine()
					b.StartTimer()
				}
			}
		})
	}
}
