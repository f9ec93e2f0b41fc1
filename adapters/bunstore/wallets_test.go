package bunstore_test

import (
	"path/filepath"
	"testing"

	"github.com/curvekit/curvekit/adapters/bunstore"
	"github.com/curvekit/curvekit/wallet"
	"github.com/curvekit/curvekit/wallet/wallettest"
)

func TestWalletsSQLite(t *testing.T) {
	t.Parallel()
	wallettest.Run(t, func(t *testing.T) wallet.Store {
		return openDB(t, bunstore.Config{DSN: filepath.Join(t.TempDir(), "wallets.db")}).Wallets()
	})
}

func TestWalletsPostgres(t *testing.T) {
	t.Parallel()
	wallettest.Run(t, func(t *testing.T) wallet.Store {
		return openDB(t, bunstore.Config{DSN: postgresSchema(t), MaxOpenConns: 8}).Wallets()
	})
}
