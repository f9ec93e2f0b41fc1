package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/core/types"

	"github.com/curvekit/curvekit/internal/app"
	"github.com/curvekit/curvekit/internal/app/apptest"
)

type dailyLimit struct {
	Tier      string `json:"tier"`
	Limit     int    `json:"limit"`
	Used      int    `json:"used"`
	Remaining int    `json:"remaining"`
	CanLaunch bool   `json:"canLaunch"`
	ResetsAt  string `json:"resetsAt"`
}

// TestCustodialLaunchesKeepTheDailyLimit: a free account's custodial wallet signs factory
// launches through sign-and-submit. Three are signed; the fourth, while the three are still in
// flight, is 429 without reaching the signer, and so is one after the three are indexed
// (counted once, not as indexed and signed). Other transactions are not limited.
func TestCustodialLaunchesKeepTheDailyLimit(t *testing.T) {
	t.Parallel()
	signer := &apptest.CountingSigner{}
	s := startServerWith(t, nil, []app.Option{app.WithSigner(signer)})
	b, m := s.signIn(t, "launcher")
	s.fund(t, m.User.Wallet, 5)

	var launch struct {
		To      string `json:"to"`
		Data    string `json:"data"`
		Value   string `json:"value"`
		ChainID uint64 `json:"chainId"`
	}
	built := s.anon(t, http.MethodPost, "/launch/build-tx",
		fmt.Sprintf(`{"from":%q,"name":"Capped Cat","symbol":"CCAT","uri":"https://example.invalid/cat.json"}`, m.User.Wallet))
	wantStatus(t, "build-tx", built, http.StatusOK)
	built.decode(t, &launch)
	if launch.To != s.app.dev.Addrs.Factory.Hex() {
		t.Fatalf("the launch goes to %s, not the factory", launch.To)
	}
	unsigned, _ := json.Marshal(launch)

	refused := func(what string) {
		t.Helper()
		a := b.do(http.MethodPost, "/wallet/sign-and-submit", string(unsigned))
		wantStatus(t, what, a, http.StatusTooManyRequests)
		var e errBody
		a.decode(t, &e)
		msg, _ := e.Message.(string)
		if !strings.HasPrefix(msg, "daily launch limit reached: ") || !strings.Contains(msg, "3 of 3 launches today (free tier)") {
			t.Fatalf("%s: message %q", what, msg)
		}
	}
	var hashes []string
	for n := range 3 {
		a := b.do(http.MethodPost, "/wallet/sign-and-submit", string(unsigned))
		wantStatus(t, fmt.Sprintf("launch %d", n+1), a, http.StatusOK)
		var sub submission
		a.decode(t, &sub)
		if sub.Nonce != uint64(n) {
			t.Fatalf("launch %d signed at nonce %d", n+1, sub.Nonce)
		}
		hashes = append(hashes, sub.Hash)
	}
	refused("a fourth launch while three are in flight")
	if signer.Calls() != 3 {
		t.Fatalf("the signer signed %d transactions, want 3", signer.Calls())
	}

	for _, h := range hashes {
		if r := s.receipt(t, h); r.Status != types.ReceiptStatusSuccessful {
			t.Fatalf("launch %s reverted", h)
		}
	}
	var lim dailyLimit
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		a := s.anon(t, http.MethodGet, "/launch/daily-limit/"+m.User.Wallet, "")
		wantStatus(t, "daily-limit", a, http.StatusOK)
		a.decode(t, &lim)
		if lim.Used >= 3 || time.Now().After(deadline) {
			break
		}
	}
	if lim.Tier != "free" || lim.Used != 3 || lim.Limit != 3 || lim.Remaining != 0 || lim.CanLaunch {
		t.Fatalf("daily limit after three signed launches: %+v, want used 3 of 3", lim)
	}
	refused("a launch after three are indexed")

	// What is not a launch still signs, at the next nonce: no refusal took one.
	transfer := fmt.Sprintf(`{"to":%q,"value":"1","chainId":%d}`, s.app.dev.Accounts[1].Address.Hex(), launch.ChainID)
	a := b.do(http.MethodPost, "/wallet/sign-and-submit", transfer)
	wantStatus(t, "a transfer at the cap", a, http.StatusOK)
	var sub submission
	a.decode(t, &sub)
	if sub.Nonce != 3 || signer.Calls() != 4 {
		t.Fatalf("transfer at nonce %d after %d signatures; want nonce 3, the 4th signature", sub.Nonce, signer.Calls())
	}
}
