package llm_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"math/big"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/curvekit/curvekit"
	"github.com/curvekit/curvekit/adapters/evm/devnet"
	"github.com/curvekit/curvekit/adapters/ipfs"
	"github.com/curvekit/curvekit/adapters/llm"
	"github.com/curvekit/curvekit/agent"
	"github.com/curvekit/curvekit/internal/testworld"
	"github.com/curvekit/curvekit/launch"
	"github.com/curvekit/curvekit/market"
	"github.com/curvekit/curvekit/orders"
)

var quiet = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelError}))

// model is the fake provider acting as a model: a user message gets the tool call the script
// names for it, streamed in fragments; tool results get a text answer that repeats their
// summaries, streamed in pieces.
func model(script map[string][2]string) func(w http.ResponseWriter, _ int, req *wireRequest) {
	return func(w http.ResponseWriter, _ int, req *wireRequest) {
		last := req.Messages[len(req.Messages)-1]
		if last.Role == "tool" {
			var out struct{ Summary, Error string }
			json.Unmarshal([]byte(last.Content), &out)
			sse(w, textChunks("Done. "+out.Summary+out.Error)...)
			return
		}
		call, ok := script[last.Content]
		if !ok {
			sse(w, textChunks("I can only trade.")...)
			return
		}
		sse(w, toolCallChunks("call_1", call[0], call[1], 9)...)
	}
}

type world struct {
	dev *devnet.Devnet
	ix  *market.Indexer
	mkt *market.Service
	svc *agent.Service
}

func newWorld(t *testing.T, p *provider) *world {
	t.Helper()
	ctx := context.Background()
	tw := testworld.New(t)
	dev, chain, db, ix, mkt, builder := tw.Dev, tw.Chain, tw.DB, tw.Indexer, tw.Market, tw.Builder
	pins, err := ipfs.NewStore(ipfs.StoreConfig{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	launcher, err := launch.New(launch.Config{Store: db.Launch(), Pinner: pins, Builder: builder, Chain: chain})
	if err != nil {
		t.Fatal(err)
	}
	c := client(t, p, llm.Config{MaxRetries: 1})
	book, err := orders.NewService(orders.Config{Store: db.Orders(), Tokens: db.Market()})
	if err != nil {
		t.Fatal(err)
	}
	a := db.Agent()
	svc, err := agent.New(agent.Config{Jobs: a, Memory: a, Threads: a, Market: mkt, Balances: chain, Launcher: launcher, Orders: book, LLM: c, Model: c.Model(), Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	r, err := agent.NewRunner(agent.RunnerConfig{Workers: 2, Logger: quiet}, svc)
	if err != nil {
		t.Fatal(err)
	}
	rctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { r.Run(rctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	return &world{dev: dev, ix: ix, mkt: mkt, svc: svc}
}

func (w *world) job(t *testing.T, wallet common.Address, prompt string) agent.Job {
	t.Helper()
	j, err := w.svc.Submit(context.Background(), agent.SubmitParams{Wallet: wallet, Prompt: prompt})
	if err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if j, err = w.svc.Job(context.Background(), wallet, j.ID); err != nil {
			t.Fatal(err)
		}
		if j.Status.Terminal() {
			return j
		}
	}
	t.Fatalf("job %s did not end", j.ID)
	return j
}

// Through the OpenAI-compatible adapter, a buy job planned by the (fake) model completes with
// richData that executes on the devnet for the quoted amount.
func TestModelBuyJobExecutesOnDevnet(t *testing.T) {
	p := newProvider(t, model(map[string][2]string{
		"buy 0.01 ETH of DETH": {"build_buy_transaction", `{"token":"DETH","amount":"0.01","asset":"ETH"}`},
	}))
	w := newWorld(t, p)
	buyer := w.dev.Accounts[7]
	ctx := context.Background()
	quote, err := w.mkt.Quote(ctx, w.dev.ETHToken.Token, curvekit.Buy, "0.01")
	if err != nil {
		t.Fatal(err)
	}
	j := w.job(t, buyer.Address, "buy 0.01 ETH of DETH")
	if j.Status != agent.StatusCompleted || len(j.RichData) != 1 || !strings.HasPrefix(j.Response, "Done. Buy DETH (Demo Ether Token, token "+w.dev.ETHToken.Token.Hex()+") with 0.01 ETH") {
		t.Fatalf("job = %s %q %q %+v", j.Status, j.Error, j.Response, j.RichData)
	}
	tx := j.RichData[0]
	before, _ := w.dev.Balance(ctx, w.dev.ETHToken.Token, buyer.Address)
	value, _ := new(big.Int).SetString(tx.Value, 10)
	to := common.HexToAddress(tx.To)
	if _, err := w.dev.Send(ctx, buyer.Key, &to, value, common.FromHex(tx.Data)); err != nil {
		t.Fatal(err)
	}
	after, _ := w.dev.Balance(ctx, w.dev.ETHToken.Token, buyer.Address)
	if got := new(big.Int).Sub(after, before); got.Cmp(quote.Quote.Out.ToBig()) != 0 {
		t.Fatalf("bought %s, quoted %s", got, quote.Quote.Out.Dec())
	}
	// The model saw the tool's answer on the second request.
	if n := p.count(); n != 2 || p.requests[1].Messages[len(p.requests[1].Messages)-1].Role != "tool" {
		t.Fatalf("%d requests", n)
	}
}

// A provider answering 500 with a stack trace gives a failed job whose error is generic.
func TestProviderFailureFailsTheJobGenerically(t *testing.T) {
	p := newProvider(t, func(w http.ResponseWriter, _ int, _ *wireRequest) {
		http.Error(w, stackTrace, http.StatusInternalServerError)
	})
	w := newWorld(t, p)
	j := w.job(t, w.dev.Accounts[7].Address, "buy 0.01 ETH of DETH")
	if j.Status != agent.StatusFailed || j.Error != "the model provider failed to answer; try again later" || j.Response != "" || len(j.RichData) != 0 {
		t.Fatalf("job = %s error %q response %q", j.Status, j.Error, j.Response)
	}
	if p.count() != 2 {
		t.Fatalf("%d requests; want 2 (one retry)", p.count())
	}
	var events []agent.Event
	_, err := w.svc.Prompt(context.Background(), agent.TurnParams{Wallet: w.dev.Accounts[7].Address, Prompt: "hi"}, func(e agent.Event) error {
		events = append(events, e)
		return nil
	})
	if err == nil || len(events) != 1 || events[0].Type != agent.EventError || strings.Contains(events[0].Error, "goroutine") || strings.Contains(events[0].Error, "500") {
		t.Fatalf("streamed failure: %v, events %+v", err, events)
	}
}

// A sell planned by the model: the approval and the sell, sent in order, sell what it said.
func TestModelSellJobExecutesOnDevnet(t *testing.T) {
	p := newProvider(t, model(map[string][2]string{
		"sell 1000 DETH": {"build_sell_transaction", `{"token":"DETH","amount":"1000"}`},
	}))
	w := newWorld(t, p)
	seller := w.dev.Accounts[0] // DETH's creator holds its launch buy
	ctx := context.Background()
	j := w.job(t, seller.Address, "sell 1000 DETH")
	if j.Status != agent.StatusCompleted || len(j.RichData) != 1 || j.RichData[0].Approval == nil {
		t.Fatalf("job = %s %q %+v", j.Status, j.Error, j.RichData)
	}
	before, _ := w.dev.Balance(ctx, w.dev.ETHToken.Token, seller.Address)
	for _, tx := range []agent.TxRequest{*j.RichData[0].Approval, j.RichData[0].TxRequest} {
		to := common.HexToAddress(tx.To)
		value, _ := new(big.Int).SetString(tx.Value, 10)
		if _, err := w.dev.Send(ctx, seller.Key, &to, value, common.FromHex(tx.Data)); err != nil {
			t.Fatal(err)
		}
	}
	after, _ := w.dev.Balance(ctx, w.dev.ETHToken.Token, seller.Address)
	if sold := new(big.Int).Sub(before, after); sold.Cmp(new(big.Int).Mul(big.NewInt(1000), big.NewInt(1e18))) != 0 {
		t.Fatalf("sold %s", sold)
	}
}

// A launch and a creator's fee claim planned by the model execute on the devnet; a claim the
// model composes for someone else is refused and the model is told why.
func TestModelLaunchAndClaim(t *testing.T) {
	p := newProvider(t, model(map[string][2]string{
		"launch Moon Cat":   {"build_launch_transaction", `{"name":"Moon Cat","symbol":"MCAT","description":"a cat on the moon"}`},
		"claim DETH fees":   {"build_claim_fees_transaction", `{"token":"DETH"}`},
		"buy 1 ETH of DETH": {"build_buy_transaction", `{"token":"DETH","amount":"1"}`},
	}))
	w := newWorld(t, p)
	ctx := context.Background()
	send := func(acc devnet.Account, tx agent.TxRequest) {
		t.Helper()
		to := common.HexToAddress(tx.To)
		value, _ := new(big.Int).SetString(tx.Value, 10)
		if _, err := w.dev.Send(ctx, acc.Key, &to, value, common.FromHex(tx.Data)); err != nil {
			t.Fatal(err)
		}
		if _, err := w.ix.Sync(ctx); err != nil {
			t.Fatal(err)
		}
	}
	creator, buyer := w.dev.Accounts[0], w.dev.Accounts[7]

	j := w.job(t, w.dev.Accounts[8].Address, "launch Moon Cat")
	if j.Status != agent.StatusCompleted || len(j.RichData) != 1 || j.RichData[0].Kind != "launch" {
		t.Fatalf("launch job = %s %q %+v", j.Status, j.Error, j.RichData)
	}
	send(w.dev.Accounts[8], j.RichData[0].TxRequest)
	if page, err := w.mkt.Tokens(ctx, market.TokenQuery{Search: "MCAT"}); err != nil || len(page.Tokens) != 1 || !strings.HasPrefix(page.Tokens[0].URI, "ipfs://") {
		t.Fatalf("launched token: %+v, %v", page.Tokens, err)
	}

	j = w.job(t, buyer.Address, "buy 1 ETH of DETH")
	send(buyer, j.RichData[0].TxRequest)
	if j = w.job(t, buyer.Address, "claim DETH fees"); j.Status != agent.StatusCompleted || len(j.RichData) != 0 || !strings.Contains(j.Response, "only the token's creator can claim its fees") {
		t.Fatalf("claim by the buyer: %s %q", j.Status, j.Response)
	}
	j = w.job(t, creator.Address, "claim DETH fees")
	if len(j.RichData) != 1 || j.RichData[0].Kind != "claim_fees" {
		t.Fatalf("claim by the creator: %q %+v", j.Response, j.RichData)
	}
	send(creator, j.RichData[0].TxRequest)
}

// Through the OpenAI-compatible adapter, a schedule the (fake) model proposes with propose_order
// completes as a job whose richData is the order, the body POST /orders takes, with nothing
// armed; the model's own answer is joined as for any tool.
func TestModelProposesAnOrder(t *testing.T) {
	p := newProvider(t, model(map[string][2]string{
		"buy 0.01 ETH of DETH every minute, 3 times": {"propose_order", `{"kind":"dca","token":"DETH","side":"buy","amount":"0.01","asset":"ETH","every":"1m","times":3}`},
	}))
	w := newWorld(t, p)
	j := w.job(t, w.dev.Accounts[7].Address, "buy 0.01 ETH of DETH every minute, 3 times")
	if j.Status != agent.StatusCompleted || len(j.RichData) != 1 || j.RichData[0].Order == nil || !strings.HasPrefix(j.Response, "Done. I composed a dca order on DETH") {
		t.Fatalf("job = %s %q %q %+v", j.Status, j.Error, j.Response, j.RichData)
	}
	got := j.RichData[0].Order
	want := orders.Request{Kind: "dca", Token: w.dev.ETHToken.Token.Hex(), Side: "buy", Amount: "0.01", Every: "1m", Times: 3}
	if got.Request != want || got.Type != "order" || got.Confirm != "POST /orders" {
		t.Fatalf("proposed %+v, want the order %+v", got, want)
	}
}
