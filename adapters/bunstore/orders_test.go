package bunstore_test

import (
	"path/filepath"
	"testing"

	"github.com/curvekit/curvekit/adapters/bunstore"
	"github.com/curvekit/curvekit/orders/orderstest"
)

func ordersFixture(db *bunstore.DB) orderstest.Fixture {
	return orderstest.Fixture{Store: db.Orders(), Lease: db.Lease(), Events: db.Push()}
}

func TestOrdersSQLite(t *testing.T) {
	t.Parallel()
	orderstest.Run(t, func(t *testing.T) orderstest.Fixture {
		return ordersFixture(openDB(t, bunstore.Config{DSN: filepath.Join(t.TempDir(), "orders.db")}))
	})
}

func TestOrdersPostgres(t *testing.T) {
	t.Parallel()
	orderstest.Run(t, func(t *testing.T) orderstest.Fixture {
		return ordersFixture(openDB(t, bunstore.Config{DSN: postgresSchema(t), MaxOpenConns: 8}))
	})
}
