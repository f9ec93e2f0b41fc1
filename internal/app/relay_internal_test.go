package app

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/curvekit/curvekit"
	"github.com/curvekit/curvekit/market"
	"github.com/curvekit/curvekit/push"
)

// TestTradeOfALeaderKilledAfterItsCommit: the indexer's leader commits a block with a trade and
// dies before it relays the block's events (here: the block is committed by an indexer without
// the relay, and the server is closed). Nothing recorded the trade's event then, as nothing did
// before the relay's position existed. The server restarted on the same database and devnet
// relays it from the store, and the subscription gets it, signed, with the trade's stable id.
func TestTradeOfALeaderKilledAfterItsCommit(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	rcv := newHookReceiver(t)

	a := openOn(t, dir)
	sub, secret, err := a.Push.Create(ctx, push.CreateParams{AccountID: "acc_relay", URL: rcv.url, Types: []push.Type{push.Trade}})
	if err != nil {
		a.Close()
		t.Fatal(err)
	}
	token := a.Devnet.ETHToken.Token
	acc := a.Devnet.Accounts[1]
	built, err := a.Market.BuildTx(ctx, token, market.BuildRequest{Side: curvekit.Buy, Amount: "0.1", SlippageBps: 5_000, Wallet: acc.Address, Recipient: acc.Address})
	if err != nil {
		a.Close()
		t.Fatal(err)
	}
	to := built.Plan.Tx.To
	r, err := a.Devnet.Send(ctx, acc.Key, &to, built.Plan.Tx.Value.ToBig(), built.Plan.Tx.Data)
	if err != nil {
		a.Close()
		t.Fatal(err)
	}
	// The commit without its relay: what a leader killed right after it leaves behind.
	ix, err := market.NewIndexer(ctx, market.IndexerConfig{Chain: a.Chain, Store: a.Store})
	if err != nil {
		a.Close()
		t.Fatal(err)
	}
	if _, err := ix.Sync(ctx); err != nil {
		a.Close()
		t.Fatal(err)
	}
	page, err := a.Store.Trades(ctx, market.TradeQuery{Token: token, Limit: 1})
	if err != nil || len(page.Trades) != 1 || page.Trades[0].TxHash != r.TxHash {
		a.Close()
		t.Fatalf("the trade is not committed: %+v, %v", page.Trades, err)
	}
	events, err := a.DB.Push().EventsSince(ctx, 0, 100)
	a.Close()
	if err != nil || len(events) != 0 {
		t.Fatalf("events recorded before the restart: %+v, %v", events, err)
	}

	// The restart: the relay catches up from its position, the sender delivers.
	serve(t, openOn(t, dir))
	body, hdr := rcv.await(t, secret, "the trade committed before the restart")
	var env struct {
		ID, Type string
		Data     struct{ TxHash string }
	}
	if err := json.Unmarshal(body, &env); err != nil {
		t.Fatal(err)
	}
	if env.Type != "trade" || !strings.EqualFold(env.Data.TxHash, r.TxHash.Hex()) || hdr.Get("webhook-id") != env.ID || !strings.HasPrefix(env.ID, "evt_trade_") {
		t.Errorf("delivered %s to %s", body, sub.ID)
	}
}

// openOn opens the server on the SQLite database in dir and the in-process devnet, indexed up to
// the chain's head, without serving it: a restart is another openOn of the same dir.
func openOn(t *testing.T, dir string) *App {
	t.Helper()
	ctx := context.Background()
	cfg, err := ParseConfig([]string{"--db", filepath.Join(dir, "server.db"), "--addr", "127.0.0.1:0", "--simulate", "0", "--poll", "20ms",
		"--webhook-allow-loopback", "--rate-limit", "100000000"})
	if err != nil {
		t.Fatal(err)
	}
	a, err := New(ctx, cfg, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Replica.Sync(ctx); err != nil {
		a.Close()
		t.Fatal(err)
	}
	return a
}

// serve serves a on a loopback port until the test ends, then closes it.
func serve(t *testing.T, a *App) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		a.Close()
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- a.Serve(ctx, ln) }()
	t.Cleanup(func() {
		stop()
		<-served
		a.Close()
	})
}

// hookReceiver is a webhook endpoint on loopback that answers 204 and keeps what it was sent.
type hookReceiver struct {
	url    string
	got    chan *http.Request
	bodies chan []byte
}

func newHookReceiver(t *testing.T) *hookReceiver {
	h := &hookReceiver{got: make(chan *http.Request, 16), bodies: make(chan []byte, 16)}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		h.got <- r
		h.bodies <- b
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(srv.Close)
	h.url = srv.URL + "/hook"
	return h
}

// await returns the next delivery's body and headers once its signature verifies with secret;
// what names the event in the failure when none comes within 20 s.
func (h *hookReceiver) await(t *testing.T, secret, what string) ([]byte, http.Header) {
	t.Helper()
	wh, err := standardwebhooks.NewWebhook(secret)
	if err != nil {
		t.Fatal(err)
	}
	select {
	case req := <-h.got:
		body := <-h.bodies
		if err := wh.Verify(body, req.Header); err != nil {
			t.Fatalf("the delivery does not verify: %v", err)
		}
		return body, req.Header
	case <-time.After(20 * time.Second):
		t.Fatalf("%s was never delivered", what)
		return nil, nil
	}
}
