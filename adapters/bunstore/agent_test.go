package bunstore_test

import (
	"path/filepath"
	"testing"

	"github.com/curvekit/curvekit/adapters/bunstore"
	"github.com/curvekit/curvekit/agent/agenttest"
)

func agentStores(db *bunstore.DB) agenttest.Stores {
	a := db.Agent()
	return agenttest.Stores{Jobs: a, Memory: a, Threads: a, Changes: a}
}

func TestAgentSQLite(t *testing.T) {
	t.Parallel()
	agenttest.Run(t, func(t *testing.T) agenttest.Stores {
		return agentStores(openDB(t, bunstore.Config{DSN: filepath.Join(t.TempDir(), "agent.db")}))
	})
}

func TestAgentPostgres(t *testing.T) {
	t.Parallel()
	agenttest.Run(t, func(t *testing.T) agenttest.Stores {
		return agentStores(openDB(t, bunstore.Config{DSN: postgresSchema(t), MaxOpenConns: 4}))
	})
}
