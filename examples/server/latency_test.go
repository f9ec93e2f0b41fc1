package main

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestDevnetHeadsWakeTheIndexer serves the devnet with an indexer poll of an hour: only the
// devnet's own new heads, heard through the same subscription as a node's over WebSocket, can
// bring a trade to a token stream, and each trade arrives there once, in order.
func TestDevnetHeadsWakeTheIndexer(t *testing.T) {
	t.Parallel()
	s := startServer(t, "--poll", "1h")
	if s.app.Heads == nil {
		t.Fatal("the devnet server has no head subscription")
	}
	dev := s.app.dev
	token := dev.ETHToken.Token
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, s.base+"/tokens/"+token.Hex()+"/stream?res=1m", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	trades := make(chan string, 16)
	connected := make(chan struct{})
	go func() {
		_ = readEvents(resp.Body, func(ev sseEvent) bool {
			switch ev.name {
			case "reset":
				close(connected)
			case "trade":
				var v struct {
					TxHash string `json:"txHash"`
				}
				_ = json.Unmarshal([]byte(ev.data), &v)
				trades <- v.TxHash
			}
			return true
		})
		close(trades)
	}()
	<-connected
	acc := dev.Accounts[5]
	var sent, got []string
	for range 3 {
		before := dev.Backend.Head().Number.Uint64()
		if err := s.send(acc, token, "buy", "0.01"); err != nil {
			t.Fatal(err)
		}
		b, err := dev.Client.BlockByNumber(ctx, nil)
		if err != nil || b.NumberU64() != before+1 || len(b.Transactions()) != 1 {
			t.Fatalf("the buy's block: %v %v", b, err)
		}
		sent = append(sent, b.Transactions()[0].Hash().Hex())
		select {
		case tx := <-trades:
			got = append(got, tx)
		case <-time.After(20 * time.Second): // a bound on a lost event, not a measure
			t.Fatalf("trade %s did not reach the stream within 20s with a poll of an hour (heads %+v)", sent[len(sent)-1], s.app.Heads.Status())
		}
	}
	if diff := cmp.Diff(sent, got); diff != "" {
		t.Errorf("stream's trades (-sent +stream):\n%s", diff)
	}
	if st := s.app.Heads.Status(); !st.Subscribed || st.Heads < 3 {
		t.Errorf("heads status %+v, want subscribed with at least 3 heads", st)
	}
}
