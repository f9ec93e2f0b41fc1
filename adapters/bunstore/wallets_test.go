package bunstore_test

import (
	"path/filepath"
	"testing"

	"github.com/curvekit/curvekit/adapters/bunstore"
	"github.com/curvekit/curvekit/push"
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

func TestWalletsOutboxSQLite(t *testing.T) {
	t.Parallel()
	wallettest.RunOutbox(t, func(t *testing.T) (wallet.Store, push.Store) {
		db := openDB(t, bunstore.Config{DSN: filepath.Join(t.TempDir(), "wallets.db")})
		return db.Wallets(), db.Push()
	})
}

func TestWalletsOutboxPostgres(t *testing.T) {
	t.Parallel()
	wallettest.RunOutbox(t, func(t *testing.T) (wallet.Store, push.Store) {
		db := openDB(t, bunstore.Config{DSN: postgresSchema(t), MaxOpenConns: 8})
		return db.Wallets(), db.Push()
	})
}
