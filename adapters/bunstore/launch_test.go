package bunstore_test

import (
	"path/filepath"
	"testing"

	"github.com/curvekit/curvekit/adapters/bunstore"
	"github.com/curvekit/curvekit/launch/launchtest"
)

func TestLaunchSQLite(t *testing.T) {
	t.Parallel()
	launchtest.RunStore(t, func(t *testing.T) launchtest.Stores {
		db := openDB(t, bunstore.Config{DSN: filepath.Join(t.TempDir(), "launch.db")})
		return launchtest.Stores{Launch: db.Launch(), Market: db.Market()}
	})
}

func TestLaunchPostgres(t *testing.T) {
	t.Parallel()
	launchtest.RunStore(t, func(t *testing.T) launchtest.Stores {
		db := openDB(t, bunstore.Config{DSN: postgresSchema(t), MaxOpenConns: 4})
		return launchtest.Stores{Launch: db.Launch(), Market: db.Market()}
	})
}
