package main

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"
)

// A chain reorganization under a connected token stream reaches the client as a reset (reason
// "reorg") once the indexer has rolled the store back.
func TestStreamResetsOnReorganization(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	dev := s.app.dev
	tok := dev.USDToken.Token
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.base+"/tokens/"+tok.Hex()+"/stream?res=1m", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	events := make(chan sseEvent, 256)
	go func() {
		defer close(events)
		_ = readEvents(resp.Body, func(ev sseEvent) bool {
			select {
			case events <- ev:
				return true
			case <-ctx.Done():
				return false
			}
		})
	}()
	wait := func(what string, match func(sseEvent) bool) sseEvent {
		t.Helper()
		timeout := time.After(10 * time.Second)
		for {
			select {
			case ev, ok := <-events:
				if !ok {
					t.Fatalf("stream ended while waiting for %s", what)
				}
				if match(ev) {
					return ev
				}
			case <-timeout:
				t.Fatalf("no %s within 10s", what)
			}
		}
	}
	resetWith := func(reason string) func(sseEvent) bool {
		return func(ev sseEvent) bool {
			if ev.name != "reset" {
				return false
			}
			var r streamReset
			return json.Unmarshal([]byte(ev.data), &r) == nil && r.Reason == reason
		}
	}
	wait("the connect reset", resetWith("connect"))

	fork, err := s.app.chain.Head(ctx)
	if err != nil {
		t.Fatal(err)
	}
	_, tx := s.buildAndSend(dev.Accounts[4], tok, "buy", "75")
	wait("the trade event", func(ev sseEvent) bool {
		var tr streamTrade
		return ev.name == "trade" && json.Unmarshal([]byte(ev.data), &tr) == nil && tr.TxHash == tx.Hex()
	})

	// Another chain, longer than the one the trade is on, replaces it.
	if err := dev.Backend.Fork(fork.Hash); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 4; i++ {
		dev.Mine()
	}
	wait("a reorg reset", resetWith("reorg"))
}
