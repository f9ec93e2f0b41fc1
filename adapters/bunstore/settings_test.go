package bunstore_test

import (
	"path/filepath"
	"testing"

	"github.com/curvekit/curvekit/account"
	"github.com/curvekit/curvekit/account/accounttest"
	"github.com/curvekit/curvekit/adapters/bunstore"
)

func TestAccountSettingsSQLite(t *testing.T) {
	t.Parallel()
	accounttest.Run(t, func(t *testing.T) account.Store {
		return openDB(t, bunstore.Config{DSN: filepath.Join(t.TempDir(), "settings.db")}).AccountSettings()
	})
}

func TestAccountSettingsPostgres(t *testing.T) {
	t.Parallel()
	accounttest.Run(t, func(t *testing.T) account.Store {
		return openDB(t, bunstore.Config{DSN: postgresSchema(t), MaxOpenConns: 8}).AccountSettings()
	})
}
