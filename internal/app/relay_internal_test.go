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
	open := func() *App {
		t.Helper()
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
	got := make(chan *http.Request, 16)
	bodies := make(chan []byte, 16)
	rcv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got <- r
		bodies <- b
		w.WriteHeader(http.StatusNoContent)
	}))
	defer rcv.Close()

	a := open()
	sub, secret, err := a.Push.Create(ctx, push.CreateParams{AccountID: "acc_relay", URL: rcv.URL + "/hook", Types: []push.Type{push.Trade}})
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
	b := open()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Close()
		t.Fatal(err)
	}
	sctx, stop := context.WithCancel(ctx)
	served := make(chan error, 1)
	go func() { served <- b.Serve(sctx, ln) }()
	defer func() {
		stop()
		<-served
		b.Close()
	}()
	wh, err := standardwebhooks.NewWebhook(secret)
	if err != nil {
		t.Fatal(err)
	}
	select {
	case req := <-got:
		body := <-bodies
		if err := wh.Verify(body, req.Header); err != nil {
			t.Fatalf("the delivery does not verify: %v", err)
		}
		var env struct {
			ID, Type string
			Data     struct{ TxHash string }
		}
		if err := json.Unmarshal(body, &env); err != nil {
			t.Fatal(err)
		}
		if env.Type != "trade" || !strings.EqualFold(env.Data.TxHash, r.TxHash.Hex()) || req.Header.Get("webhook-id") != env.ID || !strings.HasPrefix(env.ID, "evt_trade_") {
			t.Errorf("delivered %s to %s", body, sub.ID)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the trade committed before the restart was never delivered")
	}
}
