package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"
)

// delivery is one request a test receiver got.
type delivery struct {
	id, sig string
	body    []byte
	header  http.Header
	env     struct {
		ID        string          `json:"id"`
		Type      string          `json:"type"`
		Timestamp string          `json:"timestamp"`
		Data      json.RawMessage `json:"data"`
	}
}

// webhookReceiver is an HTTP server that hands every request on, answering 204.
func webhookReceiver(t *testing.T) (string, <-chan delivery) {
	ch := make(chan delivery, 10_000) // never full: a blocked receiver would time out and be retried
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		d := delivery{id: r.Header.Get("webhook-id"), sig: r.Header.Get("webhook-signature"), body: body, header: r.Header.Clone()}
		if err := json.Unmarshal(body, &d.env); err != nil {
			t.Errorf("delivery body %s: %v", body, err)
		}
		ch <- d
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/hook", ch
}

// await returns the next delivery of type typ (others are dropped; "" takes any), each verified
// with the Standard Webhooks library under secret.
func await(t *testing.T, ch <-chan delivery, secret, typ string) delivery {
	t.Helper()
	wh, err := standardwebhooks.NewWebhook(secret)
	if err != nil {
		t.Fatal(err)
	}
	timeout := time.After(20 * time.Second)
	for {
		select {
		case d := <-ch:
			if err := wh.Verify(d.body, d.header); err != nil {
				t.Fatalf("delivery %s does not verify: %v", d.id, err)
			}
			if d.env.ID != d.id {
				t.Errorf("body id %s, webhook-id %s", d.env.ID, d.id)
			}
			if d.env.Type == typ || typ == "" {
				return d
			}
		case <-timeout:
			t.Fatalf("no %s delivery in 20s", typ)
		}
	}
}

// awaitAll returns the first delivery of each of types, whatever their order.
func awaitAll(t *testing.T, ch <-chan delivery, secret string, types ...string) map[string]delivery {
	t.Helper()
	out := map[string]delivery{}
	for len(out) < len(types) {
		d := await(t, ch, secret, "")
		if slices.Contains(types, d.env.Type) {
			if _, ok := out[d.env.Type]; !ok {
				out[d.env.Type] = d
			}
		}
	}
	return out
}

// subscribe creates a webhook of b's account that sends the events of types to url.
func subscribe(t *testing.T, b *browser, url string, types ...string) webhookView {
	t.Helper()
	list, _ := json.Marshal(types)
	a := b.do(http.MethodPost, "/webhooks", `{"url":"`+url+`","types":`+string(list)+`}`)
	wantStatus(t, "POST /webhooks", a, http.StatusCreated)
	var hook webhookView
	a.decode(t, &hook)
	return hook
}

type webhookView struct {
	ID           string   `json:"id"`
	URL          string   `json:"url"`
	Types        []string `json:"types"`
	Tokens       []string `json:"tokens"`
	MinTradeSize *string  `json:"minTradeSize"`
	Enabled      bool     `json:"enabled"`
	Secret       string   `json:"secret"`
}

func sameJSON(t *testing.T, what string, a, b []byte) {
	t.Helper()
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil || !reflect.DeepEqual(x, y) {
		t.Errorf("%s:\n%s\nwant\n%s", what, a, b)
	}
}

// TestWebhooksEndToEnd: a signed-in account subscribes a receiver; a trade indexed from the
// chain, its custodial wallet's transaction (sent, then mined) and its agent job's end arrive
// signed as the Standard Webhooks library verifies, each with the payload of the matching read;
// a ping, the delivery log and a replay with the same webhook-id.
func TestWebhooksEndToEnd(t *testing.T) {
	t.Parallel()
	s := startServer(t, "--webhook-allow-loopback", "--webhook-max", "3")
	url, got := webhookReceiver(t)
	b, m := s.signIn(t, "hookah")
	a := b.do(http.MethodPost, "/webhooks", `{"url":"`+url+`","types":["trade","wallet.transaction","job.completed","job.failed"]}`)
	wantStatus(t, "POST /webhooks", a, http.StatusCreated)
	if cc := a.header.Get("Cache-Control"); cc != "no-store" {
		t.Errorf("Cache-Control %q", cc)
	}
	var hook webhookView
	a.decode(t, &hook)
	if !strings.HasPrefix(hook.Secret, "whsec_") || !hook.Enabled || len(hook.Types) != 4 || hook.MinTradeSize != nil {
		t.Fatalf("created %s", a.body)
	}
	a = b.do(http.MethodGet, "/webhooks", "")
	if a.status != 200 || strings.Contains(string(a.body), hook.Secret) || strings.Contains(string(a.body), "secret\"") || !strings.Contains(string(a.body), hook.ID) {
		t.Errorf("GET /webhooks: %d %s", a.status, a.body)
	}

	// A trade from the chain: its data is the trade as /trades lists it (the token stream's).
	token := s.app.dev.ETHToken.Token
	_, tx := s.buildAndSend(s.app.dev.Accounts[1], token, "buy", "0.1")
	d := await(t, got, hook.Secret, "trade")
	var page struct{ Trades []json.RawMessage }
	s.get("/tokens/"+token.Hex()+"/trades?limit=1", &page)
	sameJSON(t, "trade data", d.env.Data, page.Trades[0])
	if !strings.Contains(string(d.env.Data), tx.Hex()) {
		t.Errorf("trade delivery %s is not of %s", d.env.Data, tx.Hex())
	}

	// The custodial wallet's transaction: sent, then mined.
	s.fund(t, m.User.Wallet, 2)
	built := s.build(t, token, m.User.Wallet, "buy", "0.05", "5")
	a = b.do(http.MethodPost, "/wallet/sign-and-submit", built.unsigned())
	wantStatus(t, "sign-and-submit", a, http.StatusOK)
	var sub submission
	a.decode(t, &sub)
	sent := await(t, got, hook.Secret, "wallet.transaction")
	var wtx struct{ Hash, State, From string }
	_ = json.Unmarshal(sent.env.Data, &wtx)
	if wtx.Hash != sub.Hash || wtx.State != "pending" || !strings.EqualFold(wtx.From, m.User.Wallet) {
		t.Errorf("sent: %s", sent.env.Data)
	}
	s.receipt(t, sub.Hash)
	mined := await(t, got, hook.Secret, "wallet.transaction")
	_ = json.Unmarshal(mined.env.Data, &wtx)
	if wtx.Hash != sub.Hash || wtx.State != "mined" || mined.id == sent.id {
		t.Errorf("mined: %s (ids %s, %s)", mined.env.Data, sent.id, mined.id)
	}
	var list struct{ Transactions []json.RawMessage }
	b.do(http.MethodGet, "/wallet/transactions?limit=1", "").decode(t, &list)
	sameJSON(t, "wallet.transaction data", mined.env.Data, list.Transactions[0])

	// An agent job's end.
	k := b.newKey(`{}`)
	a = s.anon(t, http.MethodPost, "/agent/job", `{"prompt":"price of DETH"}`, "X-API-Key", k.Key)
	var job struct{ JobID string }
	a.decode(t, &job)
	done := await(t, got, hook.Secret, "job.completed")
	jobRead := s.anon(t, http.MethodGet, "/agent/job/"+job.JobID, "", "X-API-Key", k.Key)
	sameJSON(t, "job.completed data", done.env.Data, jobRead.body)

	// A ping, the delivery log, and a replay that carries the same webhook-id.
	a = b.do(http.MethodPost, "/webhooks/"+hook.ID+"/test", "")
	wantStatus(t, "test", a, http.StatusAccepted)
	ping := await(t, got, hook.Secret, "ping")
	var log struct {
		Deliveries []struct {
			ID, EventID, Type, State string
			Attempts                 []struct {
				Status    *int
				LatencyMs int64
			}
		}
		NextCursor *string
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		b.do(http.MethodGet, "/webhooks/"+hook.ID+"/deliveries?limit=1", "").decode(t, &log)
		if len(log.Deliveries) == 1 && log.Deliveries[0].State == "succeeded" || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond) // the log is written after the receiver answered
	}
	if len(log.Deliveries) != 1 || log.Deliveries[0].EventID != ping.id || log.Deliveries[0].State != "succeeded" ||
		len(log.Deliveries[0].Attempts) != 1 || *log.Deliveries[0].Attempts[0].Status != 204 || log.NextCursor == nil {
		t.Fatalf("delivery log %+v", log)
	}
	a = b.do(http.MethodPost, "/webhooks/"+hook.ID+"/deliveries/"+log.Deliveries[0].ID+"/replay", "")
	wantStatus(t, "replay", a, http.StatusAccepted)
	if again := await(t, got, hook.Secret, "ping"); again.id != ping.id {
		t.Errorf("replayed with id %s, first sent as %s", again.id, ping.id)
	}
}

// TestWebhooksRefuse: what a hostile or careless client sends is refused with SPEC's error
// shape; another account's webhook does not exist for it.
func TestWebhooksRefuse(t *testing.T) {
	t.Parallel()
	s := startServer(t, "--webhook-allow-loopback", "--webhook-max", "2")
	url, _ := webhookReceiver(t)
	b, _ := s.signIn(t, "alice")
	eve, _ := s.signIn(t, "eve")
	for _, body := range []string{
		`{"url":"https://10.0.0.1/x","types":["trade"]}`,
		`{"url":"https://169.254.169.254/latest/meta-data","types":["trade"]}`,
		`{"url":"https://[fd00:ec2::254]/","types":["trade"]}`,
		`{"url":"ftp://example.com/x","types":["trade"]}`,
		`{"url":"https://user:pw@example.com/x","types":["trade"]}`,
		`{"url":"` + url + `","types":[]}`,
		`{"url":"` + url + `","types":["trade","trades"]}`,
		`{"url":"` + url + `","types":["trade"],"tokens":["0x12"]}`,
		`{"url":"` + url + `","types":["trade"],"minTradeSize":"-1"}`,
		`{"url":"` + url + `","types":["trade"],"secret":"whsec_mine"}`,
		`{"url":"` + url + `"}`,
		`{"url":"` + url + `","types":["trade"],"Url":"x"}`,
		`[]`,
	} {
		wantStatus(t, body, b.do(http.MethodPost, "/webhooks", body), http.StatusBadRequest)
	}
	wantStatus(t, "anonymous", s.anon(t, http.MethodPost, "/webhooks", `{"url":"`+url+`","types":["trade"]}`), http.StatusUnauthorized)
	ro := b.newKey(`{"readOnly":true}`)
	wantStatus(t, "read-only key", s.anon(t, http.MethodPost, "/webhooks", `{"url":"`+url+`","types":["trade"]}`, "X-API-Key", ro.Key), http.StatusForbidden)
	wantStatus(t, "read-only list", s.anon(t, http.MethodGet, "/webhooks", "", "X-API-Key", ro.Key), http.StatusOK)

	var hook webhookView
	a := b.do(http.MethodPost, "/webhooks", `{"url":"`+url+`","types":["trade"],"tokens":["`+common.Address{1}.Hex()+`"],"minTradeSize":"0.5"}`)
	wantStatus(t, "create", a, http.StatusCreated)
	a.decode(t, &hook)
	if hook.MinTradeSize == nil || *hook.MinTradeSize != "0.5" || len(hook.Tokens) != 1 {
		t.Errorf("created %s", a.body)
	}
	for _, r := range []struct{ method, path, body string }{
		{http.MethodGet, "/webhooks/" + hook.ID, ""},
		{http.MethodPatch, "/webhooks/" + hook.ID, `{"enabled":false}`},
		{http.MethodDelete, "/webhooks/" + hook.ID, ""},
		{http.MethodPost, "/webhooks/" + hook.ID + "/rotate", ""},
		{http.MethodPost, "/webhooks/" + hook.ID + "/test", ""},
		{http.MethodGet, "/webhooks/" + hook.ID + "/deliveries", ""},
		{http.MethodPost, "/webhooks/" + hook.ID + "/replay", `{"since":0}`},
	} {
		wantStatus(t, "eve: "+r.method+" "+r.path, eve.do(r.method, r.path, r.body), http.StatusNotFound)
	}
	wantStatus(t, "unknown delivery", b.do(http.MethodPost, "/webhooks/"+hook.ID+"/deliveries/dlv_nope/replay", ""), http.StatusNotFound)
	wantStatus(t, "patch to a private URL", b.do(http.MethodPatch, "/webhooks/"+hook.ID, `{"url":"https://192.168.0.1/"}`), http.StatusBadRequest)
	wantStatus(t, "replay without since", b.do(http.MethodPost, "/webhooks/"+hook.ID+"/replay", `{}`), http.StatusBadRequest)
	for _, since := range []string{"99999999999999", "1e11", "10000000000000", "-1", "1.5", `"0"`} {
		wantStatus(t, "replay since "+since, b.do(http.MethodPost, "/webhooks/"+hook.ID+"/replay", `{"since":`+since+`}`), http.StatusBadRequest)
	}
	a = b.do(http.MethodPatch, "/webhooks/"+hook.ID, `{"enabled":false,"minTradeSize":""}`)
	wantStatus(t, "patch", a, http.StatusOK)
	a.decode(t, &hook)
	if hook.Enabled || hook.MinTradeSize != nil {
		t.Errorf("patched %s", a.body)
	}
	wantStatus(t, "second", b.do(http.MethodPost, "/webhooks", `{"url":"`+url+`","types":["trade"]}`), http.StatusCreated)
	wantStatus(t, "third of a cap of 2", b.do(http.MethodPost, "/webhooks", `{"url":"`+url+`","types":["trade"]}`), http.StatusTooManyRequests)
	a = b.do(http.MethodPost, "/webhooks/"+hook.ID+"/rotate", "")
	wantStatus(t, "rotate", a, http.StatusOK)
	var rotated struct {
		Secret              string
		PreviousSecretUntil *int64
	}
	a.decode(t, &rotated)
	if !strings.HasPrefix(rotated.Secret, "whsec_") || rotated.PreviousSecretUntil == nil || *rotated.PreviousSecretUntil < time.Now().Add(23*time.Hour).Unix() {
		t.Errorf("rotated %s", a.body)
	}
	wantStatus(t, "delete", b.do(http.MethodDelete, "/webhooks/"+hook.ID, ""), http.StatusOK)
	wantStatus(t, "deleted", b.do(http.MethodGet, "/webhooks/"+hook.ID, ""), http.StatusNotFound)
}

// accountStream opens GET /account/stream with the browser's session and hands its events, in
// order, to the channel until the test ends.
func (b *browser) accountStream(t *testing.T, lastEventID string) <-chan sseEvent {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, b.s.base+"/account/stream", nil)
	if lastEventID != "" {
		req.Header.Set("Last-Event-ID", lastEventID)
	}
	c := *b.c
	c.Timeout = 0
	resp, err := c.Do(req)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
		cancel()
		t.Fatalf("GET /account/stream: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	ch := make(chan sseEvent, 100)
	go func() {
		defer resp.Body.Close()
		_ = readEvents(resp.Body, func(ev sseEvent) bool { ch <- ev; return true })
	}()
	t.Cleanup(cancel)
	return ch
}

func next(t *testing.T, ch <-chan sseEvent) sseEvent {
	t.Helper()
	select {
	case ev := <-ch:
		return ev
	case <-time.After(20 * time.Second):
		t.Fatal("no event in 20s")
		return sseEvent{}
	}
}

// TestAccountStream: the account's events arrive on its stream with the webhook's envelope; a
// reconnect with Last-Event-ID replays what it missed, once; an id the server did not give is
// answered with reset; another account hears none of it.
func TestAccountStream(t *testing.T) {
	t.Parallel()
	s := startServer(t, "--webhook-allow-loopback")
	b, _ := s.signIn(t, "streamer")
	other, _ := s.signIn(t, "bystander")
	live := b.accountStream(t, "")
	ready := next(t, live)
	if ready.name != "ready" || !ready.hasID || ready.data != `{"reason":"connect"}` {
		t.Fatalf("first event %+v", ready)
	}
	bystander := other.accountStream(t, "")
	if ev := next(t, bystander); ev.name != "ready" {
		t.Fatalf("bystander's first event %+v", ev)
	}

	k := b.newKey(`{}`)
	a := s.anon(t, http.MethodPost, "/agent/job", `{"prompt":"price of DETH"}`, "X-API-Key", k.Key)
	var job struct{ JobID string }
	a.decode(t, &job)
	done := next(t, live)
	var env struct {
		ID, Type string
		Data     json.RawMessage
	}
	if err := json.Unmarshal([]byte(done.data), &env); err != nil || done.name != "job.completed" || env.Type != "job.completed" || !done.hasID {
		t.Fatalf("event %+v (%v)", done, err)
	}
	jobRead := s.anon(t, http.MethodGet, "/agent/job/"+job.JobID, "", "X-API-Key", k.Key)
	sameJSON(t, "job.completed on the stream", env.Data, jobRead.body)

	// A reconnect from before the job replays it, with the same id; from after it, nothing.
	resumed := b.accountStream(t, ready.id)
	if ev := next(t, resumed); ev.name != "ready" || ev.data != `{"reason":"resume"}` {
		t.Fatalf("resume opened with %+v", ev)
	}
	if ev := next(t, resumed); ev.name != "job.completed" || ev.id != done.id || ev.data != done.data {
		t.Fatalf("replayed %+v, live was %+v", ev, done)
	}
	caughtUp := b.accountStream(t, done.id)
	if ev := next(t, caughtUp); ev.name != "ready" || ev.id != done.id {
		t.Fatalf("resume at the newest id opened with %+v", ev)
	}
	for _, bad := range []string{"x", "-1", "99999999", "1e3"} {
		if ev := next(t, b.accountStream(t, bad)); ev.name != "reset" || ev.data != `{"reason":"unknown-id"}` || !ev.hasID {
			t.Errorf("Last-Event-ID %q opened with %+v", bad, ev)
		}
	}
	// The bystander's replay from the start holds nothing of the streamer's.
	replay := other.accountStream(t, "0")
	if ev := next(t, replay); ev.name != "ready" {
		t.Fatalf("bystander's resume %+v", ev)
	}
	// A second job ends: the streamer's live stream and its resumed ones hear it, in order.
	a = s.anon(t, http.MethodPost, "/agent/job", `{"prompt":"price of DETH"}`, "X-API-Key", k.Key)
	second := next(t, live)
	if second.name != "job.completed" || second.id <= done.id && len(second.id) <= len(done.id) {
		t.Fatalf("second event %+v after %+v", second, done)
	}
	if ev := next(t, caughtUp); ev.id != second.id {
		t.Errorf("the caught-up stream got %+v, want %s", ev, second.id)
	}
	select {
	case ev := <-bystander:
		t.Errorf("the bystander heard %+v", ev)
	case ev := <-replay:
		t.Errorf("the bystander's resumed stream heard %+v", ev)
	default:
	}
	wantStatus(t, "anonymous", s.anon(t, http.MethodGet, "/account/stream", ""), http.StatusUnauthorized)

	// A receiver that answers 410 to the ping: the webhook is disabled, the stream says so, and
	// so does the activity log.
	gone := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusGone) }))
	defer gone.Close()
	var hook webhookView
	a = b.do(http.MethodPost, "/webhooks", `{"url":"`+gone.URL+`","types":["trade"]}`)
	wantStatus(t, "POST /webhooks", a, http.StatusCreated)
	a.decode(t, &hook)
	wantStatus(t, "test", b.do(http.MethodPost, "/webhooks/"+hook.ID+"/test", ""), http.StatusAccepted)
	if ev := next(t, live); ev.name != "webhook.disabled" || !strings.Contains(ev.data, hook.ID) || !strings.Contains(ev.data, "410") {
		t.Fatalf("after a 410: %+v", ev)
	}
	a = b.do(http.MethodGet, "/webhooks/"+hook.ID, "")
	if !strings.Contains(string(a.body), `"enabled":false`) || !strings.Contains(string(a.body), `410 Gone`) {
		t.Errorf("the webhook after a 410: %s", a.body)
	}
	var activity struct {
		Activity []struct{ Kind, Actor, Message string }
	}
	b.do(http.MethodGet, "/account/activity", "").decode(t, &activity)
	if len(activity.Activity) == 0 || activity.Activity[0].Kind != "webhook" || activity.Activity[0].Actor != "server" || !strings.Contains(activity.Activity[0].Message, hook.ID) {
		t.Errorf("activity %+v", activity)
	}
}

// TestWebhookMarketEvents: an account launches a token through its custodial wallet; its webhook
// hears the launch (the token as GET /tokens/:address shows it), the creator fees a buy earns it
// (as GET /launch/fees/:wallet shows them), and the graduation that buy causes.
func TestWebhookMarketEvents(t *testing.T) {
	t.Parallel()
	s := startServer(t, "--webhook-allow-loopback")
	url, got := webhookReceiver(t)
	b, m := s.signIn(t, "maker")
	s.fund(t, m.User.Wallet, 5)
	a := b.do(http.MethodPost, "/webhooks", `{"url":"`+url+`","types":["token.launched","token.graduated","fees.claimable"]}`)
	wantStatus(t, "POST /webhooks", a, http.StatusCreated)
	var hook webhookView
	a.decode(t, &hook)

	built := s.anon(t, http.MethodPost, "/launch/build-tx",
		fmt.Sprintf(`{"from":%q,"name":"Pushed Cat","symbol":"PCAT","uri":"https://example.invalid/cat.json"}`, m.User.Wallet))
	wantStatus(t, "launch build-tx", built, http.StatusOK)
	var launch struct {
		To, Data, Value string
		ChainID         uint64 `json:"chainId"`
	}
	built.decode(t, &launch)
	unsigned, _ := json.Marshal(map[string]any{"to": launch.To, "data": launch.Data, "value": launch.Value, "chainId": launch.ChainID})
	a = b.do(http.MethodPost, "/wallet/sign-and-submit", string(unsigned))
	wantStatus(t, "sign the launch", a, http.StatusOK)
	var sub submission
	a.decode(t, &sub)
	s.receipt(t, sub.Hash)

	launched := await(t, got, hook.Secret, "token.launched")
	var tok struct {
		Address, Creator, Symbol, Phase string
	}
	_ = json.Unmarshal(launched.env.Data, &tok)
	if tok.Symbol != "PCAT" || !strings.EqualFold(tok.Creator, m.User.Wallet) || tok.Phase != "curve" || launched.id != "evt_token.launched_"+strings.ToLower(tok.Address) {
		t.Fatalf("launched: %s %s", launched.id, launched.env.Data)
	}
	sameJSON(t, "token.launched data", launched.env.Data, s.anon(t, http.MethodGet, "/tokens/"+tok.Address, "").body)

	// A buy large enough to sell out the curve: the creator earns its fee share, the token graduates.
	_, tx := s.buildAndSend(s.app.dev.Accounts[2], common.HexToAddress(tok.Address), "buy", "100")
	s.waitTrade(common.HexToAddress(tok.Address), tx)
	after := awaitAll(t, got, hook.Secret, "fees.claimable", "token.graduated")
	fees := after["fees.claimable"]
	var f struct {
		Wallet string
		Assets []struct{ Claimable string }
	}
	_ = json.Unmarshal(fees.env.Data, &f)
	if !strings.EqualFold(f.Wallet, m.User.Wallet) || len(f.Assets) == 0 || f.Assets[0].Claimable == "0" {
		t.Errorf("fees.claimable: %s", fees.env.Data)
	}
	sameJSON(t, "fees.claimable data", fees.env.Data, s.anon(t, http.MethodGet, "/launch/fees/"+m.User.Wallet, "").body)
	graduated := after["token.graduated"]
	_ = json.Unmarshal(graduated.env.Data, &tok)
	if tok.Phase != "graduated" {
		t.Errorf("graduated: %s", graduated.env.Data)
	}
}

// TestWebhookJobFailed: a job whose model provider refuses it fails, and the account's webhook
// gets job.failed, signed (the Standard Webhooks library verifies it), with the id
// evt_job.failed_<jobId> and the job as GET /agent/job/:id shows it: status failed, its error.
func TestWebhookJobFailed(t *testing.T) {
	t.Parallel()
	// An OpenAI-compatible provider that refuses every request (400: not retried).
	llm := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		_, _ = io.WriteString(w, `{"error":{"message":"the model is not available","type":"invalid_request_error"}}`)
	}))
	t.Cleanup(llm.Close)
	s := startServer(t, "--webhook-allow-loopback", "--llm-base-url", llm.URL+"/v1", "--llm-model", "refused")
	url, got := webhookReceiver(t)
	b, _ := s.signIn(t, "failing")
	hook := subscribe(t, b, url, "job.completed", "job.failed")

	k := b.newKey(`{}`)
	a := s.anon(t, http.MethodPost, "/agent/job", `{"prompt":"price of DETH"}`, "X-API-Key", k.Key)
	var job struct{ JobID string }
	a.decode(t, &job)
	d := await(t, got, hook.Secret, "")
	if d.env.Type != "job.failed" || d.id != "evt_job.failed_"+job.JobID {
		t.Fatalf("delivery %s %s: %s", d.id, d.env.Type, d.env.Data)
	}
	read := s.anon(t, http.MethodGet, "/agent/job/"+job.JobID, "", "X-API-Key", k.Key)
	sameJSON(t, "job.failed data", d.env.Data, read.body)
	var failed struct {
		JobID, Status, Error string
		CompletedAt          string `json:"completedAt"`
	}
	if err := json.Unmarshal(d.env.Data, &failed); err != nil || failed.JobID != job.JobID || failed.Status != "failed" || failed.Error == "" || failed.CompletedAt == "" {
		t.Errorf("job.failed data %s (%v)", d.env.Data, err)
	}
}

// TestWebhookOrderEvents: an order that fires is heard as order.triggered; one the account
// cancels (DELETE /orders/:id) as order.cancelled, once, signed, its data the order as GET
// /orders/:id shows it after.
func TestWebhookOrderEvents(t *testing.T) {
	t.Parallel()
	s := startServer(t, "--webhook-allow-loopback")
	url, got := webhookReceiver(t)
	b, _ := s.signIn(t, "canceller")
	hook := subscribe(t, b, url, "order.triggered", "order.cancelled")
	token := s.app.dev.ETHToken.Token.Hex()
	place := func(price string) orderView {
		t.Helper()
		a := b.do(http.MethodPost, "/orders", `{"kind":"limit","token":"`+token+`","side":"buy","amount":"0.001","price":"`+price+`","slippage":5}`)
		wantStatus(t, "POST /orders", a, http.StatusCreated)
		var o orderView
		a.decode(t, &o)
		return o
	}

	// A limit buy far above the price fires at the engine's next tick.
	fired := place("1000")
	d := await(t, got, hook.Secret, "")
	var view orderView
	if err := json.Unmarshal(d.env.Data, &view); err != nil || d.env.Type != "order.triggered" || len(view.Fires) != 1 ||
		d.id != "evt_order_"+view.Fires[0].ID+"_triggered" || view.ID != fired.ID || view.State != "triggered" || view.Fires[0].State != "triggered" {
		t.Fatalf("delivery %s %s: %s (%v)", d.id, d.env.Type, d.env.Data, err)
	}

	// A limit buy far below the price stays open until cancelled.
	o := place("0.000000000000000001")
	wantStatus(t, "DELETE /orders/:id", b.do(http.MethodDelete, "/orders/"+o.ID, ""), http.StatusOK)
	wantStatus(t, "DELETE /orders/:id again", b.do(http.MethodDelete, "/orders/"+o.ID, ""), http.StatusConflict)
	d = await(t, got, hook.Secret, "")
	if d.env.Type != "order.cancelled" || d.id != "evt_order_"+o.ID+"_cancelled" {
		t.Fatalf("delivery %s %s: %s", d.id, d.env.Type, d.env.Data)
	}
	read := b.do(http.MethodGet, "/orders/"+o.ID, "")
	sameJSON(t, "order.cancelled data", d.env.Data, read.body)
	select {
	case more := <-got:
		t.Errorf("a second delivery %s %s: %s", more.id, more.env.Type, more.env.Data)
	case <-time.After(500 * time.Millisecond):
	}
}

// TestWebhookSettingsChanged: a PATCH /account/settings that changes something is heard as
// settings.changed, once, signed, its data the settings as GET /account/settings shows them
// after it and the change's entry as GET /account/activity lists it; a PATCH that changes
// nothing, and one an API key may not make, are no event.
func TestWebhookSettingsChanged(t *testing.T) {
	t.Parallel()
	s := startServer(t, "--webhook-allow-loopback")
	url, got := webhookReceiver(t)
	b, _ := s.signIn(t, "settler")
	hook := subscribe(t, b, url, "settings.changed")
	k := b.newKey(`{}`)
	wantStatus(t, "PATCH by a key", s.anon(t, http.MethodPatch, "/account/settings", `{"wallet":{"paused":true}}`, "X-API-Key", k.Key), http.StatusForbidden)

	wantStatus(t, "PATCH", b.do(http.MethodPatch, "/account/settings", `{"wallet":{"paused":true}}`), http.StatusOK)
	wantStatus(t, "PATCH again", b.do(http.MethodPatch, "/account/settings", `{"wallet":{"paused":true}}`), http.StatusOK)
	d := await(t, got, hook.Secret, "")
	var data struct {
		Settings json.RawMessage `json:"settings"`
		Activity json.RawMessage `json:"activity"`
	}
	if err := json.Unmarshal(d.env.Data, &data); err != nil || d.env.Type != "settings.changed" || !strings.HasPrefix(d.id, "evt_settings_") || !strings.HasSuffix(d.id, "_1") {
		t.Fatalf("delivery %s %s: %s (%v)", d.id, d.env.Type, d.env.Data, err)
	}
	sameJSON(t, "settings.changed settings", data.Settings, b.do(http.MethodGet, "/account/settings", "").body)
	var log struct{ Activity []json.RawMessage }
	b.do(http.MethodGet, "/account/activity?limit=1", "").decode(t, &log)
	if len(log.Activity) != 1 {
		t.Fatalf("activity %+v", log)
	}
	sameJSON(t, "settings.changed activity", data.Activity, log.Activity[0])
	if !strings.Contains(string(data.Activity), `"changes":["wallet.paused"]`) {
		t.Errorf("activity %s", data.Activity)
	}
	select {
	case more := <-got:
		t.Errorf("a second delivery %s %s: %s", more.id, more.env.Type, more.env.Data)
	case <-time.After(500 * time.Millisecond):
	}
}
