package main

import (
	"encoding/json"
	"fmt"
	"math/big"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/curvekit/curvekit/contracts"
	"github.com/curvekit/curvekit/internal/app"
	"github.com/curvekit/curvekit/internal/app/apptest"
)

// A key limited to the router and TUSD cannot pay a stranger through the call data: a router
// swap built with a stranger's recipient, an unlimited approval to a stranger and a transfer to
// one are 403 naming the stranger, and nothing reaches the signer. Those refusals spend nothing
// of the account's signing budget: after 40 of them the owner's own key still signs 30, and the
// same swap to the wallet itself goes through.
func TestAllowedRecipientsReadsTheCallData(t *testing.T) {
	t.Parallel()
	signer := &apptest.CountingSigner{}
	s := startServerWith(t, nil, []app.Option{app.WithSigner(signer)})
	b, m := s.signIn(t, "bot-owner")
	s.fund(t, m.User.Wallet, 5)
	a := s.app.dev.Addrs
	stranger := "0x1111111111111111111111111111111111111111"
	limited := b.newKey(fmt.Sprintf(`{"name":"limited","allowedRecipients":[%q,%q]}`, a.Router.Hex(), a.USD.Hex()))
	own := b.newKey(`{"name":"own"}`)

	// GRAD trades on the pool: build-tx composes a router swap paying its recipient.
	grad := s.app.dev.GraduatedToken.Token
	swap := s.build(t, grad, stranger, "buy", "0.01", "1")
	if !strings.EqualFold(swap.To, a.Router.Hex()) {
		t.Fatalf("the GRAD buy is not a router swap: %+v", swap)
	}
	approve, _ := contracts.ERC20ABI.Pack("approve", common.HexToAddress(stranger), new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 256), big.NewInt(1)))
	transfer, _ := contracts.ERC20ABI.Pack("transfer", common.HexToAddress(stranger), big.NewInt(1_000_000))
	call := func(to string, data []byte) string {
		raw, _ := json.Marshal(map[string]any{"to": to, "data": "0x" + common.Bytes2Hex(data), "chainId": 1337, "gas": "200000"})
		return string(raw)
	}
	for _, tc := range []struct{ name, body, role string }{
		{"swap to a stranger", swap.unsigned(), "the to argument of swapExactETHForTokens"},
		{"approve max to a stranger", call(a.USD.Hex(), approve), "the spender argument of approve"},
		{"transfer to a stranger", call(a.USD.Hex(), transfer), "the to argument of transfer"},
	} {
		r := s.anon(t, http.MethodPost, "/wallet/sign-and-submit", tc.body, "X-API-Key", limited.Key)
		if r.status != http.StatusForbidden || !strings.Contains(string(r.body), stranger) || !strings.Contains(string(r.body), tc.role) {
			t.Errorf("%s: %d %s", tc.name, r.status, r.body)
		}
	}
	for range 37 {
		s.anon(t, http.MethodPost, "/wallet/sign-and-submit", swap.unsigned(), "X-API-Key", limited.Key)
	}
	if n := signer.Calls(); n != 0 {
		t.Fatalf("refused calls reached the signer %d times", n)
	}
	// Within the list, the limited key signs: the same swap paying the wallet itself, mined.
	mine := s.build(t, grad, m.User.Wallet, "buy", "0.01", "1")
	budget := signingBudget{first: time.Now()}
	r := s.anon(t, http.MethodPost, "/wallet/sign-and-submit", mine.unsigned(), "X-API-Key", limited.Key)
	wantStatus(t, "the swap to the wallet itself", r, http.StatusOK)
	var sub submission
	r.decode(t, &sub)
	if rc := s.receipt(t, sub.Hash); rc.Status != types.ReceiptStatusSuccessful {
		t.Fatalf("the allowed swap reverted")
	}
	// The account's budget (30 a minute) lost one signature to it and none to the 40 refusals.
	transfer1 := fmt.Sprintf(`{"to":%q,"value":"1","chainId":1337,"gas":"21000"}`, s.app.dev.Accounts[4].Address.Hex())
	for i := range 29 {
		r := s.anon(t, http.MethodPost, "/wallet/sign-and-submit", transfer1, "X-API-Key", own.Key)
		if r.status != http.StatusOK {
			t.Fatalf("the owner's signature %d after 40 refusals: %d %s", i+1, r.status, r.body)
		}
	}
	budget.spent = 30
	budget.exhaust(t, http.StatusOK, func() answer {
		return s.anon(t, http.MethodPost, "/wallet/sign-and-submit", transfer1, "X-API-Key", own.Key)
	})
	if n := signer.Calls(); n != int64(budget.spent) {
		t.Fatalf("signer saw %d calls, want %d", n, budget.spent)
	}
}
