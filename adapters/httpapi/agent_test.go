package httpapi

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/curvekit/curvekit/adapters/bunstore"
	"github.com/curvekit/curvekit/agent"
	"github.com/curvekit/curvekit/auth"
	"github.com/curvekit/curvekit/market"
	"github.com/curvekit/curvekit/txbuild"
)

// principals authenticates fixed API keys and session tokens, each of its own wallet.
type principals map[string]*auth.Principal

func (p principals) Authenticate(_ context.Context, c auth.Credentials) (*auth.Principal, auth.Outcome, error) {
	for _, cred := range []string{c.APIKey, c.SessionToken} {
		if cred == "" {
			continue
		}
		if pr, ok := p[cred]; ok {
			return pr, auth.Authenticated, nil
		}
		return nil, auth.Refused, nil
	}
	return nil, auth.NoCredential, nil
}

var (
	traderKey     = "svc_" + strings.Repeat("7a", 24)
	readOnlyKey   = "svc_" + strings.Repeat("7b", 24)
	nobodyKey     = "svc_" + strings.Repeat("0d", 24)
	traderSession = "session-of-the-trader"
	nobodySession = "session-of-nobody"
)

type agentEnv struct {
	srv *httptest.Server
	svc *agent.Service
}

// newAgentEnv is the API with the agent on bunstore (SQLite) over the fixture market, on a real
// socket; with run, a runner works off the jobs.
func newAgentEnv(t testing.TB, run bool) *agentEnv {
	t.Helper()
	return newAgentEnvWith(t, run, nil)
}

// newAgentEnvWith is newAgentEnv with llm as the planner (nil: the offline planner).
func newAgentEnvWith(t testing.TB, run bool, llm agent.LLM) *agentEnv {
	t.Helper()
	eth, tusd, grad, trades := fixtureTokens(t)
	store := newFakeStore()
	store.add(eth, trades...)
	store.add(tusd)
	store.add(grad)
	clock := func() time.Time { return time.Unix(now, 0) }
	b, err := txbuild.New(txbuild.Config{ChainID: 1337, Factory: factoryAddr, Router: routerAddr, WETH: wethAddr, Now: clock})
	if err != nil {
		t.Fatal(err)
	}
	mkt, err := market.NewService(market.ServiceConfig{Store: store, Builder: b, Now: clock})
	if err != nil {
		t.Fatal(err)
	}
	db, err := bunstore.Open(context.Background(), bunstore.Config{DSN: filepath.Join(t.TempDir(), "agent.db")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	quiet := slog.New(slog.DiscardHandler)
	a := db.Agent()
	svc, err := agent.New(agent.Config{Jobs: a, Memory: a, Threads: a, Market: mkt, MaxPending: 3, LLM: llm, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	if run {
		r, err := agent.NewRunner(agent.RunnerConfig{Workers: 2, Poll: 20 * time.Millisecond, Logger: quiet}, svc)
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() { r.Run(ctx); close(done) }()
		t.Cleanup(func() { cancel(); <-done })
	}
	who := principals{
		traderKey:     {AccountID: "acc-trader", Wallet: trader, Kind: auth.KindKey, KeyID: "k1"},
		readOnlyKey:   {AccountID: "acc-trader", Wallet: trader, Kind: auth.KindKey, KeyID: "k2", ReadOnly: true},
		nobodyKey:     {AccountID: "acc-nobody", Wallet: nobody, Kind: auth.KindKey, KeyID: "k3"},
		traderSession: {AccountID: "acc-trader", Wallet: trader, Kind: auth.KindSession, SessionID: "s1"},
		nobodySession: {AccountID: "acc-nobody", Wallet: nobody, Kind: auth.KindSession, SessionID: "s2"},
	}
	s, err := newServer(Config{
		Market: mkt, Agent: svc, Auth: who, Limiter: newCountLimiter(), Policy: auth.DefaultPolicy(auth.Every(100_000, time.Minute)),
		Terms: fixedTerms{},
		Settings: Settings{
			Contracts:   Contracts{PoolFactory: poolFactory},
			QuoteAssets: []market.Asset{{Symbol: "ETH", Decimals: 18}, {Address: tusdAddr, Symbol: "TUSD", Decimals: 6}},
		},
		Logger: quiet,
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(s.Handler())
	t.Cleanup(srv.Close)
	return &agentEnv{srv: srv, svc: svc}
}

func (e *agentEnv) do(t *testing.T, method, path, body string, header ...string) response {
	t.Helper()
	return (&testEnv{srv: e.srv}).do(t, method, path, body, header...)
}

func (e *agentEnv) poll(t *testing.T, id, key string) jobJSON {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		var j jobJSON
		r := e.do(t, http.MethodGet, "/agent/job/"+id, "", "X-API-Key", key)
		if r.status != http.StatusOK {
			t.Fatalf("poll: %d %s", r.status, r.body)
		}
		r.decode(t, &j)
		if agent.Status(j.Status).Terminal() {
			return j
		}
	}
	t.Fatalf("job %s did not end", id)
	return jobJSON{}
}

// agentEvent is one event read off the wire.
type agentEvent struct {
	name string
	data string
}

func readAgentSSE(t *testing.T, body io.Reader) []agentEvent {
	t.Helper()
	var out []agentEvent
	var cur agentEvent
	sc := bufio.NewScanner(body)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			if cur.name != "" {
				out = append(out, cur)
			}
			cur = agentEvent{}
		case strings.HasPrefix(line, "event: "):
			cur.name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			cur.data += strings.TrimPrefix(line, "data: ")
		}
	}
	return out
}

func TestAgentJobOverHTTP(t *testing.T) {
	t.Parallel()
	e := newAgentEnv(t, true)
	r := e.do(t, http.MethodPost, "/agent/job", `{"prompt":"buy 0.01 ETH of FROG","threadId":"chat-1"}`, "X-API-Key", readOnlyKey)
	if r.status != http.StatusAccepted {
		t.Fatalf("submit: %d %s", r.status, r.body)
	}
	var sub struct{ JobID, ThreadID, Status string }
	r.decode(t, &sub)
	if !strings.HasPrefix(sub.JobID, "job_") || sub.ThreadID != "chat-1" || sub.Status != "pending" {
		t.Fatalf("submit answered %s", r.body)
	}
	j := e.poll(t, sub.JobID, traderKey)
	if j.Status != agent.StatusCompleted || j.Cancellable || j.Error != "" || j.ProcessingTime == nil || j.StartedAt == "" || j.CompletedAt == "" ||
		len(j.StatusUpdates) == 0 || !strings.Contains(j.Response, "Buy FROG (Frog Coin, token 0xAAaA000000000000000000000000000000000001) with 0.01 ETH") || len(j.RichData) != 1 {
		t.Fatalf("job = %+v", j)
	}
	tx := j.RichData[0]
	if tx.Type != "transaction" || tx.To != ethCurve.Hex() || tx.Value != "10000000000000000" || tx.ChainID != 1337 || tx.From != trader.Hex() || !strings.HasPrefix(tx.Data, "0x") {
		t.Fatalf("richData = %+v", tx)
	}
	raw := e.do(t, http.MethodGet, "/agent/job/"+sub.JobID, "", "X-API-Key", traderKey)
	if strings.Contains(string(raw.body), `"error"`) || raw.header.Get("Cache-Control") != "no-store" {
		t.Fatalf("a completed job carries an error key or is cacheable: %s", raw.body)
	}

	e.do(t, http.MethodGet, "/agent/job/"+sub.JobID, "", "X-API-Key", nobodyKey).want(t, http.StatusForbidden,
		`{"statusCode":403,"message":"the job belongs to another wallet"}`)
	e.do(t, http.MethodGet, "/agent/job/job_0000", "", "X-API-Key", traderKey).want(t, http.StatusNotFound,
		`{"statusCode":404,"message":"no job job_0000"}`)
	if r := e.do(t, http.MethodGet, "/agent/job/"+sub.JobID, ""); r.status != http.StatusUnauthorized {
		t.Fatalf("no credential: %d", r.status)
	}
	if r := e.do(t, http.MethodGet, "/agent/job/"+sub.JobID, "", "Cookie", sessionCookie+"="+traderSession); r.status != http.StatusForbidden {
		t.Fatalf("a session on a key route: %d", r.status)
	}
	e.do(t, http.MethodPost, "/agent/job/"+sub.JobID+"/cancel", "", "X-API-Key", traderKey).want(t, http.StatusConflict,
		`{"statusCode":409,"message":"job `+sub.JobID+` is completed; only a pending job can be cancelled"}`)
}

func TestAgentJobValidationCancelAndCap(t *testing.T) {
	t.Parallel()
	e := newAgentEnv(t, false)
	e.do(t, http.MethodPost, "/agent/job", `{"prompt":"","model":"gpt-9","history":[{"role":"system","content":"x"}]}`, "X-API-Key", traderKey).want(t, http.StatusBadRequest,
		`{"statusCode":400,"message":["prompt is required","model must be one of offline","history[0].role must be user or assistant"],"code":"VALIDATION_FAILED"}`)
	e.do(t, http.MethodPost, "/agent/job", `{"threadId":"t"}`, "X-API-Key", traderKey).want(t, http.StatusBadRequest,
		`{"statusCode":400,"message":"prompt is required","code":"VALIDATION_FAILED"}`)
	if r := e.do(t, http.MethodPost, "/agent/job", `{"prompt":"hi","sudo":true}`, "X-API-Key", traderKey); r.status != http.StatusBadRequest {
		t.Fatalf("unknown field: %d %s", r.status, r.body)
	}
	var ids []string
	for range 3 {
		var sub struct{ JobID string }
		e.do(t, http.MethodPost, "/agent/job", `{"prompt":"trending tokens"}`, "X-API-Key", traderKey).decode(t, &sub)
		ids = append(ids, sub.JobID)
	}
	e.do(t, http.MethodPost, "/agent/job", `{"prompt":"trending tokens"}`, "X-API-Key", traderKey).want(t, http.StatusTooManyRequests,
		`{"statusCode":429,"message":"at most 3 pending jobs per wallet; wait for one to finish"}`)
	e.do(t, http.MethodPost, "/agent/job/"+ids[0]+"/cancel", "", "X-API-Key", nobodyKey).want(t, http.StatusForbidden,
		`{"statusCode":403,"message":"job `+ids[0]+` belongs to another wallet"}`)
	r := e.do(t, http.MethodPost, "/agent/job/"+ids[0]+"/cancel", "", "X-API-Key", traderKey)
	var j jobJSON
	r.decode(t, &j)
	if r.status != http.StatusOK || j.Status != agent.StatusCancelled || j.Cancellable || j.CancelledAt == "" || j.CompletedAt != "" {
		t.Fatalf("cancel: %d %s", r.status, r.body)
	}
	if r := e.do(t, http.MethodPost, "/agent/job", `{"prompt":"trending tokens"}`, "X-API-Key", traderKey); r.status != http.StatusAccepted {
		t.Fatalf("after a cancel the cap has room: %d %s", r.status, r.body)
	}
}

func TestAgentPromptStreams(t *testing.T) {
	t.Parallel()
	e := newAgentEnv(t, true)
	req, _ := http.NewRequest(http.MethodPost, e.srv.URL+"/agent/prompt", strings.NewReader(`{"prompt":"buy 0.01 ETH of FROG"}`))
	req.Header.Set("Cookie", sessionCookie+"="+traderSession)
	req.Header.Set("Content-Type", "application/json")
	res, err := e.srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK || res.Header.Get("Content-Type") != "text/event-stream" || res.Header.Get("X-Accel-Buffering") != "no" {
		t.Fatalf("%d %v", res.StatusCode, res.Header)
	}
	events := readAgentSSE(t, res.Body)
	var order []string
	var text strings.Builder
	for _, ev := range events {
		if len(order) == 0 || order[len(order)-1] != ev.name {
			order = append(order, ev.name)
		}
		if ev.name == "text_delta" {
			var d struct{ Text string }
			json.Unmarshal([]byte(ev.data), &d)
			text.WriteString(d.Text)
		}
	}
	if strings.Join(order, ",") != "usage_update,text_delta,usage_update,transaction,done" {
		t.Fatalf("event order %v", order)
	}
	var tx agent.Transaction
	for _, ev := range events {
		if ev.name == "transaction" {
			json.Unmarshal([]byte(ev.data), &tx)
		}
	}
	if tx.To != ethCurve.Hex() || tx.Value != "10000000000000000" {
		t.Fatalf("transaction event %+v", tx)
	}
	// The same prompt as a job answers with the same text.
	var sub struct{ JobID string }
	e.do(t, http.MethodPost, "/agent/job", `{"prompt":"buy 0.01 ETH of FROG"}`, "X-API-Key", traderKey).decode(t, &sub)
	if j := e.poll(t, sub.JobID, traderKey); j.Response != text.String() {
		t.Fatalf("job response %q, streamed text %q", j.Response, text.String())
	}

	e.do(t, http.MethodPost, "/agent/prompt", `{"prompt":" "}`, "Cookie", sessionCookie+"="+traderSession).want(t, http.StatusBadRequest,
		`{"statusCode":400,"message":["prompt is required"],"code":"VALIDATION_FAILED"}`)
	if r := e.do(t, http.MethodPost, "/agent/prompt", `{"prompt":"hi"}`, "X-API-Key", traderKey); r.status != http.StatusForbidden {
		t.Fatalf("a key on the session route: %d", r.status)
	}
}

func TestAgentMemoryOverHTTP(t *testing.T) {
	t.Parallel()
	e := newAgentEnv(t, false)
	cookie := sessionCookie + "=" + traderSession
	e.do(t, http.MethodGet, "/agent/memory", "", "Cookie", cookie).want(t, http.StatusOK, `{"memories":[]}`)
	r := e.do(t, http.MethodPost, "/agent/prompt", `{"prompt":"remember my slippage is 0.5%"}`, "Cookie", cookie)
	if r.status != http.StatusOK || !strings.Contains(string(r.body), "event: done") {
		t.Fatalf("remember: %d %s", r.status, r.body)
	}
	var mem struct {
		Memories []memoryJSON `json:"memories"`
	}
	e.do(t, http.MethodGet, "/agent/memory", "", "Cookie", cookie).decode(t, &mem)
	if len(mem.Memories) != 1 || mem.Memories[0].Key != "slippage" || mem.Memories[0].Value != "0.5%" || mem.Memories[0].UpdatedAt == "" {
		t.Fatalf("memories = %+v", mem)
	}
	e.do(t, http.MethodDelete, "/agent/memory/slippage", "", "Cookie", cookie).want(t, http.StatusOK, `{"key":"slippage","deleted":true}`)
	e.do(t, http.MethodDelete, "/agent/memory/slippage", "", "Cookie", cookie).want(t, http.StatusNotFound,
		`{"statusCode":404,"message":"no memory \"slippage\""}`)
	if r := e.do(t, http.MethodGet, "/agent/memory", ""); r.status != http.StatusUnauthorized {
		t.Fatalf("memory without a session: %d", r.status)
	}
}

// slowLLM answers after a pause, as a model's first step may.
type slowLLM time.Duration

func (d slowLLM) Complete(ctx context.Context, _ *agent.Request) (agent.Reply, error) {
	select {
	case <-time.After(time.Duration(d)):
		return agent.Reply{Text: "done thinking"}, nil
	case <-ctx.Done():
		return agent.Reply{}, ctx.Err()
	}
}

// A turn whose planner is silent for a while still sends heartbeat comments, so proxies keep the
// stream open.
func TestAgentPromptHeartbeats(t *testing.T) {
	old := promptHeartbeat
	promptHeartbeat = 50 * time.Millisecond
	t.Cleanup(func() { promptHeartbeat = old })
	e := newAgentEnvWith(t, false, slowLLM(400*time.Millisecond))
	req, _ := http.NewRequest(http.MethodPost, e.srv.URL+"/agent/prompt", strings.NewReader(`{"prompt":"think"}`))
	req.Header.Set("Cookie", sessionCookie+"="+traderSession)
	res, err := e.srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(body), "\n: "); n < 2 && !strings.HasPrefix(string(body), ": ") {
		t.Fatalf("%d heartbeat comments in a 400ms silence:\n%s", n, body)
	}
	if !strings.Contains(string(body), "event: done") {
		t.Fatalf("the turn did not finish:\n%s", body)
	}
}

// echoLLM answers every prompt with the user prompts it was shown, the thread's included.
type echoLLM struct{}

func (echoLLM) Complete(_ context.Context, r *agent.Request) (agent.Reply, error) {
	var seen []string
	for _, m := range r.Messages {
		if m.Role == agent.RoleUser {
			seen = append(seen, m.Content)
		}
	}
	text := strings.Join(seen, " | ")
	if r.OnText != nil {
		r.OnText(text)
	}
	return agent.Reply{Text: text}, nil
}

// Threads belong to accounts: two accounts that pick the same threadId at once both get their
// job accepted and completed, and each sees only its own turns, by job and by streamed turn.
func TestAgentThreadsPerAccountOverHTTP(t *testing.T) {
	t.Parallel()
	e := newAgentEnvWith(t, true, echoLLM{})
	submit := func(key, prompt string) string {
		r := e.do(t, http.MethodPost, "/agent/job", `{"prompt":"`+prompt+`","threadId":"chat-1"}`, "X-API-Key", key)
		if r.status != http.StatusAccepted {
			t.Errorf("%s: %d %s", prompt, r.status, r.body)
			return ""
		}
		var sub struct{ JobID, ThreadID string }
		r.decode(t, &sub)
		if sub.ThreadID != "chat-1" {
			t.Errorf("%s: accepted on thread %q", prompt, sub.ThreadID)
		}
		return sub.JobID
	}
	keys := map[string]string{"trader": traderKey, "nobody": nobodyKey}
	ids := map[string]string{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for who, key := range keys {
		wg.Go(func() {
			id := submit(key, who+" first")
			mu.Lock()
			ids[who] = id
			mu.Unlock()
		})
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	for who, key := range keys {
		if j := e.poll(t, ids[who], key); j.Status != agent.StatusCompleted || j.Response != who+" first" {
			t.Fatalf("%s's first job: %s %q %q", who, j.Status, j.Response, j.Error)
		}
	}
	for who, key := range keys {
		if j := e.poll(t, submit(key, who+" second"), key); j.Status != agent.StatusCompleted || j.Response != who+" first | "+who+" second" {
			t.Fatalf("%s's second job: %s %q %q", who, j.Status, j.Response, j.Error)
		}
	}
	for who, session := range map[string]string{"trader": traderSession, "nobody": nobodySession} {
		r := e.do(t, http.MethodPost, "/agent/prompt", `{"prompt":"`+who+` streamed","threadId":"chat-1"}`, "Cookie", sessionCookie+"="+session)
		want := who + " first | " + who + " second | " + who + " streamed"
		var text strings.Builder
		for _, ev := range readAgentSSE(t, strings.NewReader(string(r.body))) {
			if ev.name == "text_delta" {
				var d struct{ Text string }
				json.Unmarshal([]byte(ev.data), &d)
				text.WriteString(d.Text)
			}
		}
		if r.status != http.StatusOK || !strings.Contains(string(r.body), "event: done") || text.String() != want {
			t.Fatalf("%s's streamed turn: %d, text %q, want %q:\n%s", who, r.status, text.String(), want, r.body)
		}
	}
}
