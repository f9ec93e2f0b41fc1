package bunstore_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/curvekit/curvekit/adapters/bunstore"
	"github.com/curvekit/curvekit/auth"
	"github.com/curvekit/curvekit/push/pushtest"
)

func pushFixture(db *bunstore.DB) pushtest.Fixture {
	return pushtest.Fixture{Store: db.Push(), AddAccount: func(t *testing.T, wallet common.Address) string {
		ctx := context.Background()
		u, _, err := db.Accounts().UpsertUser(ctx, &auth.UpsertUserParams{ID: "acc_" + wallet.Hex()[2:10], Provider: "test", Subject: wallet.Hex(), Handle: "h", At: time.Now()})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.Accounts().SetWallet(ctx, u.ID, wallet); err != nil {
			t.Fatal(err)
		}
		return u.ID
	}}
}

func TestPushSQLite(t *testing.T) {
	t.Parallel()
	pushtest.Run(t, func(t *testing.T) pushtest.Fixture {
		return pushFixture(openDB(t, bunstore.Config{DSN: filepath.Join(t.TempDir(), "push.db")}))
	})
}

func TestPushPostgres(t *testing.T) {
	t.Parallel()
	pushtest.Run(t, func(t *testing.T) pushtest.Fixture {
		return pushFixture(openDB(t, bunstore.Config{DSN: postgresSchema(t), MaxOpenConns: 8}))
	})
}
