package agent_test

import (
	"context"
	"errors"
	"math/big"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/google/go-cmp/cmp"

	"github.com/curvekit/curvekit"
	"github.com/curvekit/curvekit/adapters/bunstore"
	"github.com/curvekit/curvekit/agent"
)

// Offline, a buy job completes with richData that, signed by the wallet owner and sent to the
// devnet, buys exactly the quoted amount.
func TestOfflineBuyJobExecutesOnDevnet(t *testing.T) {
	e := newEnv(t, nil)
	e.run(t, agent.RunnerConfig{Workers: 2})
	buyer := e.dev.Accounts[5]
	ctx := context.Background()

	quote, err := e.mkt.Quote(ctx, e.dev.ETHToken.Token, curvekit.Buy, "0.01")
	if err != nil {
		t.Fatal(err)
	}
	j := e.submit(t, buyer.Address, "buy 0.01 ETH of DETH", "")
	if j.Status != agent.StatusPending || !j.Cancellable() || !strings.HasPrefix(j.ThreadID, "thr_") {
		t.Fatalf("submitted job = %+v", j)
	}
	j = e.await(t, buyer.Address, j.ID)
	if j.Status != agent.StatusCompleted || j.Error != "" {
		t.Fatalf("job ended %s: %q", j.Status, j.Error)
	}
	if len(j.RichData) != 1 {
		t.Fatalf("richData = %+v", j.RichData)
	}
	tx := j.RichData[0]
	if tx.Kind != "buy" || tx.ChainID != 1337 || tx.Approval != nil || tx.To != e.dev.ETHToken.Curve.Hex() || tx.Value != "10000000000000000" {
		t.Fatalf("transaction = %+v", tx)
	}
	if !strings.Contains(j.Response, "DETH") || !strings.Contains(j.Response, "unsigned") {
		t.Fatalf("response = %q", j.Response)
	}
	if len(j.StatusUpdates) == 0 || j.ProcessingTime() <= 0 {
		t.Fatalf("status updates %+v, processing time %s", j.StatusUpdates, j.ProcessingTime())
	}

	before := e.balance(t, e.dev.ETHToken.Token, buyer.Address)
	e.send(t, buyer, tx.TxRequest)
	got := new(big.Int).Sub(e.balance(t, e.dev.ETHToken.Token, buyer.Address), before)
	if got.Cmp(quote.Quote.Out.ToBig()) != 0 {
		t.Fatalf("the buy delivered %s tokens; quoted %s", got, quote.Quote.Out.Dec())
	}
	if _, err := e.svc.Job(ctx, e.dev.Accounts[6].Address, j.ID); !errors.Is(err, curvekit.ErrForbidden) {
		t.Fatalf("another wallet reading the job: %v", err)
	}
	if _, err := e.svc.Job(ctx, buyer.Address, "job_unknown"); !errors.Is(err, curvekit.ErrNotFound) {
		t.Fatalf("unknown job: %v", err)
	}
}

// A sell needs the token's approval first; both, sent in order, execute for the quoted amount.
func TestOfflineSellJobWithApproval(t *testing.T) {
	e := newEnv(t, nil)
	e.run(t, agent.RunnerConfig{Workers: 1})
	seller := e.dev.Accounts[0] // DETH's creator, who bought at launch
	ctx := context.Background()
	quote, err := e.mkt.Quote(ctx, e.dev.ETHToken.Token, curvekit.Sell, "1000")
	if err != nil {
		t.Fatal(err)
	}
	j := e.await(t, seller.Address, e.submit(t, seller.Address, "Sell 1000 $DETH.", "").ID)
	if j.Status != agent.StatusCompleted || len(j.RichData) != 1 {
		t.Fatalf("job = %+v", j)
	}
	tx := j.RichData[0]
	if tx.Kind != "sell" || tx.Approval == nil || tx.Value != "0" || !strings.Contains(j.Response, "approval") {
		t.Fatalf("transaction = %+v, response %q", tx, j.Response)
	}
	e.send(t, seller, *tx.Approval)
	before := e.balance(t, e.dev.ETHToken.Token, seller.Address)
	e.send(t, seller, tx.TxRequest)
	sold := new(big.Int).Sub(before, e.balance(t, e.dev.ETHToken.Token, seller.Address))
	if sold.Cmp(quote.Quote.In.ToBig()) != 0 {
		t.Fatalf("sold %s, want %s", sold, quote.Quote.In.Dec())
	}
}

// "Sell all" sells the wallet's whole balance; a wallet without the token is told so.
func TestSellAll(t *testing.T) {
	e := newEnv(t, nil)
	seller := e.dev.Accounts[0]
	ctx := context.Background()
	res, err := e.svc.Prompt(ctx, agent.TurnParams{Wallet: seller.Address, Prompt: "sell all my DETH"}, func(agent.Event) error { return nil })
	if err != nil || len(res.Transactions) != 1 || res.Transactions[0].Approval == nil {
		t.Fatalf("%+v, %v", res, err)
	}
	e.send(t, seller, *res.Transactions[0].Approval)
	e.send(t, seller, res.Transactions[0].TxRequest)
	if left := e.balance(t, e.dev.ETHToken.Token, seller.Address); left.Sign() != 0 {
		t.Fatalf("%s DETH left after selling all", left)
	}
	res, err = e.svc.Prompt(ctx, agent.TurnParams{Wallet: seller.Address, Prompt: "sell all my DETH"}, func(agent.Event) error { return nil })
	if err != nil || len(res.Transactions) != 0 || !strings.Contains(res.Response, "your wallet holds no DETH") {
		t.Fatalf("selling all of nothing: %q, %v", res.Response, err)
	}
}

// The streamed prompt emits usage_update, text, transaction and done in that order, and its
// text joins to the response a job gets for the same prompt.
func TestPromptStreamsTheSameTurn(t *testing.T) {
	e := newEnv(t, nil)
	e.run(t, agent.RunnerConfig{Workers: 1})
	w := e.dev.Accounts[5].Address
	var events []agent.Event
	res, err := e.svc.Prompt(context.Background(), agent.TurnParams{Wallet: w, Prompt: "buy 0.01 ETH of DETH"}, func(ev agent.Event) error {
		events = append(events, ev)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var order []agent.EventType
	var text strings.Builder
	for _, ev := range events {
		if len(order) == 0 || order[len(order)-1] != ev.Type {
			order = append(order, ev.Type)
		}
		if ev.Type == agent.EventText {
			text.WriteString(ev.Text)
		}
	}
	want := []agent.EventType{agent.EventUsage, agent.EventText, agent.EventUsage, agent.EventTransaction, agent.EventDone}
	if diff := cmp.Diff(want, order); diff != "" {
		t.Fatalf("event order (-want +got):\n%s", diff)
	}
	if text.String() != res.Response || len(res.Transactions) != 1 || events[len(events)-1].Done.ThreadID != res.ThreadID {
		t.Fatalf("joined text %q, result %+v", text.String(), res)
	}
	j := e.await(t, w, e.submit(t, w, "buy 0.01 ETH of DETH", "").ID)
	if j.Response != res.Response {
		t.Fatalf("job response %q differs from the streamed text %q", j.Response, res.Response)
	}
	if diff := cmp.Diff(res.Transactions[0].TxRequest.Data[:10], j.RichData[0].Data[:10]); diff != "" {
		t.Fatalf("job and prompt call different functions: %s", diff)
	}
}

// A client that goes away ends the turn; nothing is recorded in the thread.
func TestPromptStopsWhenTheClientLeaves(t *testing.T) {
	e := newEnv(t, nil)
	w := e.dev.Accounts[5].Address
	gone := errors.New("client gone")
	n := 0
	_, err := e.svc.Prompt(context.Background(), agent.TurnParams{Wallet: w, ThreadID: "t1", Prompt: "trending tokens"}, func(ev agent.Event) error {
		n++
		return gone
	})
	if !errors.Is(err, gone) || n != 1 {
		t.Fatalf("Prompt = %v after %d events", err, n)
	}
	if turns, err := e.db.Agent().Turns(context.Background(), &agent.TurnsParams{Wallet: w, Thread: "t1", Limit: 10}); err != nil || len(turns) != 0 {
		t.Fatalf("thread after an abandoned turn: %+v, %v", turns, err)
	}
}

// Remembered slippage applies to later trades; forgetting restores the default; another
// wallet's memory is its own.
func TestMemoryDrivesSlippage(t *testing.T) {
	e := newEnv(t, nil)
	w := e.dev.Accounts[5].Address
	ctx := context.Background()
	prompt := func(p string) agent.TurnResult {
		t.Helper()
		res, err := e.svc.Prompt(ctx, agent.TurnParams{Wallet: w, Prompt: p}, func(agent.Event) error { return nil })
		if err != nil {
			t.Fatalf("%q: %v", p, err)
		}
		return res
	}
	if res := prompt("remember my slippage is 2.5%"); !strings.Contains(res.Response, "slippage: 2.5%") {
		t.Fatalf("remember: %q", res.Response)
	}
	mem, err := e.svc.Memories(ctx, w)
	if err != nil || len(mem) != 1 || mem[0].Key != "slippage" || mem[0].Value != "2.5%" {
		t.Fatalf("memories = %+v, %v", mem, err)
	}
	if res := prompt("buy 0.01 ETH of DETH"); !strings.Contains(res.Response, "with 2.5% slippage") {
		t.Fatalf("buy after remembering 2.5%%: %q", res.Response)
	}
	if res := prompt("forget my slippage"); !strings.Contains(res.Response, "forgot slippage") {
		t.Fatalf("forget: %q", res.Response)
	}
	if res := prompt("buy 0.01 ETH of DETH"); !strings.Contains(res.Response, "with 1% slippage") {
		t.Fatalf("buy after forgetting: %q", res.Response)
	}
	if res := prompt("forget my slippage"); !strings.Contains(res.Response, `I could not do that: no memory "slippage".`) {
		t.Fatalf("forgetting twice: %q", res.Response)
	}
	if err := e.svc.Forget(ctx, w, "slippage"); !errors.Is(err, curvekit.ErrNotFound) {
		t.Fatalf("Forget of an unknown key: %v", err)
	}
	if res := prompt("remember my slippage is 80%"); !strings.Contains(res.Response, "could not") {
		t.Fatalf("remembering an impossible slippage: %q", res.Response)
	}
}

// recorder is the offline planner that also keeps what each step was shown.
type recorder struct {
	agent.Offline
	mu   sync.Mutex
	seen [][]agent.Message
}

func (r *recorder) Complete(ctx context.Context, req *agent.Request) (agent.Reply, error) {
	r.mu.Lock()
	r.seen = append(r.seen, append([]agent.Message(nil), req.Messages...))
	r.mu.Unlock()
	return r.Offline.Complete(ctx, req)
}

func (r *recorder) first() []agent.Message {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.seen[0]
}

func (r *recorder) reset() {
	r.mu.Lock()
	r.seen = nil
	r.mu.Unlock()
}

// Turns of one thread see each other; the same id in another wallet is another thread.
func TestThreadsCarryHistory(t *testing.T) {
	rec := &recorder{}
	e := newEnv(t, rec)
	w := e.dev.Accounts[5].Address
	ctx := context.Background()
	first, err := e.svc.Prompt(ctx, agent.TurnParams{Wallet: w, ThreadID: "chat-1", Prompt: "price of DETH"}, func(agent.Event) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	rec.reset()
	if _, err := e.svc.Prompt(ctx, agent.TurnParams{Wallet: w, ThreadID: "chat-1", Prompt: "trending tokens"}, func(agent.Event) error { return nil }); err != nil {
		t.Fatal(err)
	}
	msgs := rec.first()
	if len(msgs) != 4 || msgs[1].Content != "price of DETH" || msgs[2].Role != agent.RoleAssistant || msgs[2].Content != first.Response || msgs[3].Content != "trending tokens" {
		t.Fatalf("the second turn saw %+v", msgs)
	}
	// A job on the thread sees it too, and joins it once completed.
	e.run(t, agent.RunnerConfig{Workers: 1})
	rec.reset()
	if j := e.await(t, w, e.submit(t, w, "newest tokens", "chat-1").ID); j.Status != agent.StatusCompleted {
		t.Fatalf("job on the thread: %+v", j)
	}
	if msgs := rec.first(); len(msgs) != 6 || msgs[3].Content != "trending tokens" || msgs[5].Content != "newest tokens" {
		t.Fatalf("the job saw %+v", msgs)
	}
	if turns, err := e.db.Agent().Turns(ctx, &agent.TurnsParams{Wallet: w, Thread: "chat-1", Limit: 10}); err != nil || len(turns) != 3 || turns[2].Prompt != "newest tokens" {
		t.Fatalf("thread after the job: %+v, %v", turns, err)
	}
	// Another wallet's chat-1 is a thread of its own: it starts empty, by a job or a streamed
	// turn, and neither touches the first wallet's.
	other := e.dev.Accounts[6].Address
	rec.reset()
	if j := e.await(t, other, e.submit(t, other, "price of DETH", "chat-1").ID); j.Status != agent.StatusCompleted {
		t.Fatalf("another wallet's job on its chat-1: %+v", j)
	}
	if msgs := rec.first(); len(msgs) != 2 || msgs[1].Content != "price of DETH" {
		t.Fatalf("another wallet's first turn on its chat-1 saw %+v", msgs)
	}
	rec.reset()
	if _, err := e.svc.Prompt(ctx, agent.TurnParams{Wallet: other, ThreadID: "chat-1", Prompt: "hi"}, func(agent.Event) error { return nil }); err != nil {
		t.Fatalf("another wallet's turn on its chat-1: %v", err)
	}
	if msgs := rec.first(); len(msgs) != 4 || msgs[1].Content != "price of DETH" || msgs[3].Content != "hi" {
		t.Fatalf("another wallet's second turn saw %+v", msgs)
	}
	if turns, err := e.db.Agent().Turns(ctx, &agent.TurnsParams{Wallet: w, Thread: "chat-1", Limit: 10}); err != nil || len(turns) != 3 {
		t.Fatalf("the first wallet's thread after the other's turns: %+v, %v", turns, err)
	}
}

// The answer says plainly when the wallet holds less than the trade spends, and the
// transaction is composed anyway.
func TestShortfallIsSaid(t *testing.T) {
	e := newEnv(t, nil)
	poor := common.HexToAddress("0x000000000000000000000000000000000000dEaD")
	res, err := e.svc.Prompt(context.Background(), agent.TurnParams{Wallet: poor, Prompt: "buy 0.01 ETH of DETH"}, func(agent.Event) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Transactions) != 1 || !strings.Contains(res.Response, "Your wallet holds only 0 ETH, less than the 0.01 ETH") {
		t.Fatalf("response %q, %d transactions", res.Response, len(res.Transactions))
	}
}

// Refusals come back as text a person can act on, never as a transaction.
func TestOfflineRefusals(t *testing.T) {
	e := newEnv(t, nil)
	w := e.dev.Accounts[5].Address
	for prompt, want := range map[string]string{
		"buy 0.01 ETH of NOPE":                           "no token with the symbol NOPE",
		"buy 0.01 TUSD of DETH":                          "DETH trades against ETH",
		"buy 1000 DETH":                                  "I buy by the amount you spend",
		"write me a poem":                                "CURVEKIT_LLM_BASE_URL",
		"buy 0.0000000000000000001 ETH of DETH":          "decimals",
		"launch a token named Moon Cat with symbol MCAT": "does not offer build launch transaction",
		"sell 1 DETH to vitalik.eth":                     "CURVEKIT_LLM_BASE_URL",
	} {
		res, err := e.svc.Prompt(context.Background(), agent.TurnParams{Wallet: w, Prompt: prompt}, func(agent.Event) error { return nil })
		if err != nil {
			t.Fatalf("%q: %v", prompt, err)
		}
		if !strings.Contains(res.Response, want) || len(res.Transactions) != 0 {
			t.Errorf("%q answered %q with %d transactions; want it to say %q", prompt, res.Response, len(res.Transactions), want)
		}
	}
}

func TestSubmitValidation(t *testing.T) {
	e := newEnv(t, nil)
	w := e.dev.Accounts[5].Address
	ctx := context.Background()
	_, err := e.svc.Submit(ctx, agent.SubmitParams{Wallet: w, Prompt: " ", ThreadID: "bad id!", Model: "gpt-9",
		History: []agent.Message{{Role: agent.RoleSystem, Content: "obey"}}})
	var p curvekit.Problems
	if !errors.As(err, &p) || len(p) != 4 {
		t.Fatalf("Submit of a bad request = %v; want 4 problems", err)
	}
	_, err = e.svc.Submit(ctx, agent.SubmitParams{Wallet: w, Prompt: strings.Repeat("x", 4001)})
	if !errors.Is(err, curvekit.ErrInvalid) {
		t.Fatalf("oversized prompt: %v", err)
	}
	for range 10 {
		e.submit(t, w, "trending tokens", "")
	}
	if _, err := e.svc.Submit(ctx, agent.SubmitParams{Wallet: w, Prompt: "trending tokens"}); !errors.Is(err, curvekit.ErrLimited) {
		t.Fatalf("the 11th pending job: %v", err)
	}
	j := e.submit(t, e.dev.Accounts[6].Address, "trending tokens", "")
	if _, err := e.svc.Cancel(ctx, w, j.ID); !errors.Is(err, curvekit.ErrForbidden) {
		t.Fatalf("cancelling another wallet's job: %v", err)
	}
	c, err := e.svc.Cancel(ctx, e.dev.Accounts[6].Address, j.ID)
	if err != nil || c.Status != agent.StatusCancelled || c.CancelledAt.IsZero() {
		t.Fatalf("Cancel = %+v, %v", c, err)
	}
	if _, err := e.svc.Cancel(ctx, e.dev.Accounts[6].Address, j.ID); !errors.Is(err, curvekit.ErrConflict) {
		t.Fatalf("cancelling twice: %v", err)
	}
}

// Nothing in the agent can sign: it does not reach the wallet package or a key store (SPEC 5
// rule 9).
func TestAgentCannotSign(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "github.com/curvekit/curvekit/agent").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, dep := range strings.Fields(string(out)) {
		if dep == "github.com/curvekit/curvekit/wallet" || strings.HasPrefix(dep, "github.com/curvekit/curvekit/wallet/") ||
			dep == "github.com/ethereum/go-ethereum/accounts/keystore" {
			t.Errorf("agent reaches %s", dep)
		}
	}
}

// looping is a planner that asks for a tool at every step and never answers.
type looping struct{}

func (looping) Complete(ctx context.Context, r *agent.Request) (agent.Reply, error) {
	return agent.Reply{ToolCalls: []agent.ToolCall{{ID: "c", Name: "list_tokens", Arguments: `{}`}}}, nil
}

// A planner that never stops calling tools is stopped after MaxSteps, and says so.
func TestStepsAreBounded(t *testing.T) {
	e := newEnv(t, looping{})
	res, err := e.svc.Prompt(context.Background(), agent.TurnParams{Wallet: e.dev.Accounts[5].Address, Prompt: "loop"}, func(agent.Event) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	if res.Steps != 6 || res.Response != "\n(I stopped after 6 planning steps.)" {
		t.Fatalf("%d steps, response %q", res.Steps, res.Response)
	}
}

// contextCounting is the real store behind both the memory and thread ports, counting the
// turns that read their context at once.
type contextCounting struct {
	*bunstore.Agent
	n atomic.Int64
}

func (c *contextCounting) TurnContext(ctx context.Context, p *agent.TurnsParams) ([]agent.MemoryEntry, []agent.Turn, error) {
	c.n.Add(1)
	return c.Agent.TurnContext(ctx, p)
}

// A turn reads its memory and thread in one step when one store holds both, and only then.
func TestTurnReadsItsContextOnce(t *testing.T) {
	e := newEnv(t, nil)
	w := e.dev.Accounts[5].Address
	for _, tc := range []struct {
		name     string
		separate bool
		want     int64
	}{{"one store", false, 1}, {"two stores", true, 0}} {
		store := &contextCounting{Agent: e.db.Agent()}
		var threads agent.ThreadStore = store
		if tc.separate {
			threads = e.db.Agent()
		}
		svc, err := agent.New(agent.Config{Jobs: store, Memory: store, Threads: threads, Market: e.mkt, Balances: e.chain, Logger: quiet})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := svc.Prompt(context.Background(), agent.TurnParams{Wallet: w, Prompt: "trending tokens"}, func(agent.Event) error { return nil }); err != nil {
			t.Fatal(err)
		}
		if got := store.n.Load(); got != tc.want {
			t.Errorf("%s: %d context reads, want %d", tc.name, got, tc.want)
		}
	}
}

// "who holds DETH" lists its holders with their labels and the concentration; "which tokens
// are about to graduate" and "what's trending" ask list_tokens for those lists.
func TestOfflineDiscovery(t *testing.T) {
	e := newEnv(t, nil)
	w := e.dev.Accounts[5].Address
	ctx := context.Background()
	for prompt, want := range map[string]string{
		"who holds DETH":                     "holders; the ten largest (curve and pool aside) hold",
		"which tokens are about to graduate": "No tokens match.",
		"what's trending":                    "tokens by trending:",
	} {
		res, err := e.svc.Prompt(ctx, agent.TurnParams{Wallet: w, Prompt: prompt}, func(agent.Event) error { return nil })
		if err != nil {
			t.Fatalf("%q: %v", prompt, err)
		}
		if !strings.Contains(res.Response, want) {
			t.Errorf("%q answered %q; want it to say %q", prompt, res.Response, want)
		}
	}
	res, err := e.svc.Prompt(ctx, agent.TurnParams{Wallet: w, Prompt: "who holds DETH"}, func(agent.Event) error { return nil })
	if err != nil || !strings.Contains(res.Response, ", curve") || !strings.Contains(res.Response, ", creator") {
		t.Fatalf("DETH's holders: %q, %v", res.Response, err)
	}
}
