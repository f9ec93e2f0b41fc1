package bunstore_test

import (
	"path/filepath"
	"testing"

	"github.com/curvekit/curvekit/account/accounttest"
	"github.com/curvekit/curvekit/adapters/bunstore"
)

func settingsFixture(db *bunstore.DB) accounttest.Fixture {
	return accounttest.Fixture{Store: db.AccountSettings(), Events: db.Push()}
}

func TestAccountSettingsSQLite(t *testing.T) {
	t.Parallel()
	accounttest.Run(t, func(t *testing.T) accounttest.Fixture {
		return settingsFixture(openDB(t, bunstore.Config{DSN: filepath.Join(t.TempDir(), "settings.db")}))
	})
}

func TestAccountSettingsPostgres(t *testing.T) {
	t.Parallel()
	accounttest.Run(t, func(t *testing.T) accounttest.Fixture {
		return settingsFixture(openDB(t, bunstore.Config{DSN: postgresSchema(t), MaxOpenConns: 8}))
	})
}
