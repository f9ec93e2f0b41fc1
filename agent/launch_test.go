package agent_test

import (
	"github.com/curvekit/curvekit"

	"context"
	"strings"
	"testing"

	"github.com/curvekit/curvekit/adapters/ipfs"
	"github.com/curvekit/curvekit/agent"
	"github.com/curvekit/curvekit/launch"
	"github.com/curvekit/curvekit/market"
	"github.com/curvekit/curvekit/txbuild"
)

// withLaunch rebuilds e's agent with the launch service on the same database and chain, each
// wallet allowed perDay launches a day.
func (e *env) withLaunch(t *testing.T, perDay int) *launch.Service {
	t.Helper()
	pins, err := ipfs.NewStore(ipfs.StoreConfig{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	b, err := txbuild.New(txbuild.Config{ChainID: e.dev.ChainID.Uint64(), Factory: e.dev.Addrs.Factory, Router: e.dev.Addrs.Router, WETH: e.dev.Addrs.WETH})
	if err != nil {
		t.Fatal(err)
	}
	l, err := launch.New(launch.Config{Store: e.db.Launch(), Pinner: pins, Builder: b, Chain: e.chain,
		LaunchesPerDay: map[curvekit.Tier]int{curvekit.TierFree: perDay}})
	if err != nil {
		t.Fatal(err)
	}
	a := e.db.Agent()
	if e.svc, err = agent.New(agent.Config{Jobs: a, Memory: a, Threads: a, Market: e.mkt, Balances: e.chain, Launcher: l, Logger: quiet}); err != nil {
		t.Fatal(err)
	}
	return l
}

func (e *env) ask(t *testing.T, p agent.TurnParams) agent.TurnResult {
	t.Helper()
	res, err := e.svc.Prompt(context.Background(), p, func(agent.Event) error { return nil })
	if err != nil {
		t.Fatalf("%q: %v", p.Prompt, err)
	}
	return res
}

func (e *env) sync(t *testing.T) {
	t.Helper()
	if _, err := e.ix.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// Offline, a launch job pins the metadata and composes the factory call; sent by the creator,
// the token appears in the market with its metadata URI; the next launch past the daily cap is
// refused in text.
func TestOfflineLaunch(t *testing.T) {
	e := newEnv(t, nil)
	e.withLaunch(t, 1)
	e.run(t, agent.RunnerConfig{Workers: 1})
	creator := e.dev.Accounts[6]
	j := e.await(t, creator.Address, e.submit(t, creator.Address, "launch a token named Moon Cat with symbol MCAT", "").ID)
	if j.Status != agent.StatusCompleted || len(j.RichData) != 1 || j.RichData[0].Kind != "launch" || j.RichData[0].To != e.dev.Addrs.Factory.Hex() {
		t.Fatalf("job = %s %q %+v", j.Status, j.Error, j.RichData)
	}
	if !strings.Contains(j.Response, "Launch Moon Cat (MCAT) paired with ETH, with metadata ipfs://") || !strings.Contains(j.Response, "launch 1 of 1 today") {
		t.Fatalf("response = %q", j.Response)
	}
	e.send(t, creator, j.RichData[0].TxRequest)
	e.sync(t)
	page, err := e.mkt.Tokens(context.Background(), market.TokenQuery{Search: "MCAT"})
	if err != nil || len(page.Tokens) != 1 {
		t.Fatalf("tokens after the launch: %+v, %v", page.Tokens, err)
	}
	tok := page.Tokens[0]
	if tok.Name != "Moon Cat" || tok.Creator != creator.Address || !strings.HasPrefix(tok.URI, "ipfs://") || !strings.Contains(j.Response, tok.URI) {
		t.Fatalf("launched token %+v; response %q", tok.Token, j.Response)
	}

	res := e.ask(t, agent.TurnParams{Wallet: creator.Address, Prompt: "launch a token named Moon Dog with symbol MDOG"})
	if len(res.Transactions) != 0 || !strings.Contains(res.Response, "daily launch limit reached") {
		t.Fatalf("a launch past the cap: %q", res.Response)
	}
	if res := e.ask(t, agent.TurnParams{Wallet: creator.Address, Prompt: "what is my launch limit?"}); !strings.Contains(res.Response, "You have launched 1 of 1 tokens today (free tier): 0 left.") {
		t.Fatalf("limit: %q", res.Response)
	}
}

// The creator sees and claims the fees a buy paid; the claim, sent, empties the curve's accrued
// fees; someone else asking to claim is refused in text.
func TestOfflineClaimFees(t *testing.T) {
	e := newEnv(t, nil)
	e.withLaunch(t, 3)
	creator, buyer := e.dev.Accounts[0], e.dev.Accounts[5] // DETH's creator; anyone
	ctx := context.Background()
	buy := e.ask(t, agent.TurnParams{Wallet: buyer.Address, Prompt: "buy 1 ETH of DETH"})
	e.send(t, buyer, buy.Transactions[0].TxRequest)
	e.sync(t)

	accrued, err := e.chain.CreatorFeesAccrued(ctx, e.dev.ETHToken.Curve)
	if err != nil || accrued.IsZero() {
		t.Fatalf("accrued %s, %v", accrued.Dec(), err)
	}
	if res := e.ask(t, agent.TurnParams{Wallet: creator.Address, Prompt: "my fees"}); !strings.Contains(res.Response, "ETH claimable (DETH") {
		t.Fatalf("fees: %q", res.Response)
	}
	refused := e.ask(t, agent.TurnParams{Wallet: buyer.Address, Prompt: "claim fees for DETH"})
	if len(refused.Transactions) != 0 || !strings.Contains(refused.Response, "only the token's creator can claim its fees") {
		t.Fatalf("claim by someone else: %q", refused.Response)
	}
	if res := e.ask(t, agent.TurnParams{Wallet: buyer.Address, Prompt: "claim my fees"}); len(res.Transactions) != 0 || !strings.Contains(res.Response, "no creator fees to claim") {
		t.Fatalf("claim by a wallet without tokens: %q", res.Response)
	}

	claim := e.ask(t, agent.TurnParams{Wallet: creator.Address, Prompt: "claim my fees"})
	if len(claim.Transactions) != 1 || claim.Transactions[0].Kind != "claim_fees" || claim.Transactions[0].To != e.dev.ETHToken.Curve.Hex() {
		t.Fatalf("claim: %q %+v", claim.Response, claim.Transactions)
	}
	e.send(t, creator, claim.Transactions[0].TxRequest)
	e.sync(t)
	if left, err := e.chain.CreatorFeesAccrued(ctx, e.dev.ETHToken.Curve); err != nil || !left.IsZero() {
		t.Fatalf("accrued after the claim: %s, %v", left.Dec(), err)
	}
	if res := e.ask(t, agent.TurnParams{Wallet: creator.Address, Prompt: "my earnings"}); !strings.Contains(res.Response, "Over the last 30 days you earned") || strings.Contains(res.Response, "claimed 0 ETH") {
		t.Fatalf("earnings: %q", res.Response)
	}
}
