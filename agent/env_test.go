package agent_test

import (
	"context"
	"log/slog"
	"math/big"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/curvekit/curvekit/adapters/bunstore"
	"github.com/curvekit/curvekit/adapters/evm"
	"github.com/curvekit/curvekit/adapters/evm/devnet"
	"github.com/curvekit/curvekit/agent"
	"github.com/curvekit/curvekit/internal/testworld"
	"github.com/curvekit/curvekit/market"
)

// env is the agent on real parts: the in-process devnet, the evm adapter, bunstore on SQLite and
// the market service over an indexer synced to the chain.
type env struct {
	dev   *devnet.Devnet
	chain *evm.Chain
	db    *bunstore.DB
	ix    *market.Indexer
	mkt   *market.Service
	svc   *agent.Service
	dsn   string // the SQLite file of db
}

var quiet = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelError}))

func newEnv(t *testing.T, llm agent.LLM) *env {
	t.Helper()
	w := testworld.New(t)
	a := w.DB.Agent()
	svc, err := agent.New(agent.Config{Jobs: a, Memory: a, Threads: a, Market: w.Market, Balances: w.Chain, LLM: llm, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	return &env{dev: w.Dev, chain: w.Chain, db: w.DB, ix: w.Indexer, mkt: w.Market, svc: svc, dsn: w.DSN}
}

// run starts a runner of e's jobs and stops it when t ends.
func (e *env) run(t *testing.T, cfg agent.RunnerConfig) *agent.Runner {
	t.Helper()
	if cfg.Logger == nil {
		cfg.Logger = quiet
	}
	r, err := agent.NewRunner(cfg, e.svc)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() { r.Run(ctx) })
	t.Cleanup(func() { cancel(); wg.Wait() })
	return r
}

// await polls a job like a client until it ends.
func (e *env) await(t *testing.T, wallet common.Address, id string) agent.Job {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		j, err := e.svc.Job(context.Background(), wallet, id)
		if err != nil {
			t.Fatal(err)
		}
		if j.Status.Terminal() {
			return j
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("job %s did not end", id)
	return agent.Job{}
}

func (e *env) submit(t *testing.T, wallet common.Address, prompt, thread string) agent.Job {
	t.Helper()
	j, err := e.svc.Submit(context.Background(), agent.SubmitParams{Wallet: wallet, Prompt: prompt, ThreadID: thread})
	if err != nil {
		t.Fatalf("Submit %q: %v", prompt, err)
	}
	return j
}

// send signs tx with key, as the wallet owner would, and mines it.
func (e *env) send(t *testing.T, key devnet.Account, tx agent.TxRequest) {
	t.Helper()
	if tx.From != "" && common.HexToAddress(tx.From) != key.Address {
		t.Fatalf("transaction from %s sent by %s", tx.From, key.Address)
	}
	value, ok := new(big.Int).SetString(tx.Value, 10)
	if !ok {
		t.Fatalf("value %q", tx.Value)
	}
	to := common.HexToAddress(tx.To)
	if _, err := e.dev.Send(context.Background(), key.Key, &to, value, common.FromHex(tx.Data)); err != nil {
		t.Fatalf("sending the agent's transaction: %v", err)
	}
}

func (e *env) balance(t *testing.T, asset, who common.Address) *big.Int {
	t.Helper()
	b, err := e.dev.Balance(context.Background(), asset, who)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
