package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math/big"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/curvekit/curvekit/contracts"
	"github.com/curvekit/curvekit/internal/app"
	"github.com/curvekit/curvekit/internal/app/apptest"
)

// fundUSD sends whole TUSD from a devnet account to w.
func (s *testServer) fundUSD(t testing.TB, w string, whole int64) {
	t.Helper()
	data, _ := contracts.ERC20ABI.Pack("transfer", common.HexToAddress(w), new(big.Int).Mul(big.NewInt(whole), big.NewInt(1e6)))
	usd := s.app.dev.Addrs.USD
	if _, err := s.app.dev.Send(context.Background(), s.app.dev.Accounts[5].Key, &usd, nil, data); err != nil {
		t.Fatal(err)
	}
	if err := s.app.dev.AdjustTime(time.Second); err != nil {
		t.Fatal(err)
	}
}

// unsignedCall is a sign-and-submit body calling to with data and value (wei).
func unsignedCall(to common.Address, data []byte, value string) string {
	raw, _ := json.Marshal(map[string]any{"to": to.Hex(), "data": "0x" + common.Bytes2Hex(data), "value": value, "chainId": 1337, "gas": "300000"})
	return string(raw)
}

func ether(s string) string {
	v, _ := new(big.Float).SetString(s)
	wei, _ := v.Mul(v, big.NewFloat(1e18)).Int(nil)
	return wei.String()
}

// The account's guard over HTTP, attacked as a bot with a stolen key would: every way around a
// cap (splitting, an approval, a transfer, the router, a launch's initial buy) is refused with its
// code before the key is unsealed, as are a paused wallet, a trade that moves the price too much
// and a recipient still cooling down; each refusal is in the activity log, and nothing refused
// reaches the signer.
func TestGuardRefusesEveryDodge(t *testing.T) {
	t.Parallel()
	signer := &apptest.CountingSigner{}
	s := startServerWith(t, nil, []app.Option{app.WithSigner(signer)})
	b, m := s.signIn(t, "guarded")
	s.fund(t, m.User.Wallet, 5)
	s.fundUSD(t, m.User.Wallet, 1000)
	key := b.newKey(`{"name":"bot"}`).Key
	dev := s.app.dev
	usd, router, stranger := dev.Addrs.USD, dev.Addrs.Router, common.HexToAddress("0x1111111111111111111111111111111111111111")
	wallet := common.HexToAddress(m.User.Wallet)

	r := b.do(http.MethodPatch, "/account/settings", fmt.Sprintf(`{"wallet":{"limits":{"ETH":{"perTransaction":"0.5","daily":"1"},%q:{"perTransaction":"100","daily":"150"}},"maxPriceImpact":50}}`, usd.Hex()))
	wantStatus(t, "set the caps", r, http.StatusOK)

	sign := func(body string) answer {
		return s.anon(t, http.MethodPost, "/wallet/sign-and-submit", body, "X-API-Key", key)
	}
	mined := func(what string, r answer) {
		t.Helper()
		wantStatus(t, what, r, http.StatusOK)
		var sub submission
		r.decode(t, &sub)
		if rc := s.receipt(t, sub.Hash); rc.Status != types.ReceiptStatusSuccessful {
			t.Fatalf("%s reverted", what)
		}
	}
	deth := dev.ETHToken.Token
	buy := func(amount string) string { return s.build(t, deth, m.User.Wallet, "buy", amount, "5").unsigned() }
	before := signer.Calls()
	refusals := []struct {
		what, body string
		status     int
		code       string
	}{
		{"a 0.6 ETH buy", buy("0.6"), 403, "PER_TX_LIMIT_EXCEEDED"},
		{"0.6 ETH through the router", s.build(t, dev.GraduatedToken.Token, m.User.Wallet, "buy", "0.6", "5").unsigned(), 403, "PER_TX_LIMIT_EXCEEDED"},
		{"a plain 0.51 ETH transfer", fmt.Sprintf(`{"to":%q,"value":%q,"chainId":1337}`, stranger.Hex(), ether("0.51")), 403, "PER_TX_LIMIT_EXCEEDED"},
		{"approve 200 TUSD to a stranger", unsignedCall(usd, pack(t, contracts.ERC20ABI, "approve", stranger, big.NewInt(200e6)), "0"), 403, "PER_TX_LIMIT_EXCEEDED"},
		{"an unlimited approval to the router", unsignedCall(usd, pack(t, contracts.ERC20ABI, "approve", router, maxUint()), "0"), 403, "PER_TX_LIMIT_EXCEEDED"},
		{"transfer 100.000001 TUSD", unsignedCall(usd, pack(t, contracts.ERC20ABI, "transfer", stranger, big.NewInt(100_000_001)), "0"), 403, "PER_TX_LIMIT_EXCEEDED"},
		{"a TUSD launch buying 120 TUSD first", unsignedCall(dev.Addrs.Factory, pack(t, contracts.LaunchFactoryABI, "launch", "Dodge", "DDG", "ipfs://x", usd, big.NewInt(120e6), big.NewInt(1)), "0"), 403, "PER_TX_LIMIT_EXCEEDED"},
		{"an ETH launch buying 0.6 ETH first", unsignedCall(dev.Addrs.Factory, pack(t, contracts.LaunchFactoryABI, "launch", "Dodge", "DDG", "ipfs://x", common.Address{}, big.NewInt(6e17), big.NewInt(1)), ether("0.6")), 403, "PER_TX_LIMIT_EXCEEDED"},
		{"call data nobody reads", unsignedCall(usd, []byte{0xde, 0xad, 0xbe, 0xef}, "0"), 403, "CALL_NOT_UNDERSTOOD"},
	}
	for _, c := range refusals {
		wantCode(t, c.what, sign(c.body), c.status, c.code)
	}
	// Split: two buys of 0.45 ETH pass, the third would pass the daily 1 ETH by 0.35.
	mined("the first 0.45 ETH buy", sign(buy("0.45")))
	mined("the second 0.45 ETH buy", sign(buy("0.45")))
	wantCode(t, "a third 0.45 ETH buy", sign(buy("0.45")), http.StatusTooManyRequests, "DAILY_LIMIT_EXCEEDED")
	wantCode(t, "0.2 ETH through the router", sign(s.build(t, dev.GraduatedToken.Token, m.User.Wallet, "buy", "0.2", "5").unsigned()), http.StatusTooManyRequests, "DAILY_LIMIT_EXCEEDED")
	wantCode(t, "a 0.2 ETH gift", sign(fmt.Sprintf(`{"to":%q,"value":%q,"chainId":1337}`, stranger.Hex(), ether("0.2"))), http.StatusTooManyRequests, "DAILY_LIMIT_EXCEEDED")
	mined("0.1 ETH more, to the cap exactly", sign(buy("0.1")))
	wantCode(t, "one wei more", sign(fmt.Sprintf(`{"to":%q,"value":"1","chainId":1337}`, stranger.Hex())), http.StatusTooManyRequests, "DAILY_LIMIT_EXCEEDED")
	// TUSD: approvals to strangers count; split approvals meet the daily cap.
	mined("approve 90 TUSD to a stranger", sign(unsignedCall(usd, pack(t, contracts.ERC20ABI, "approve", stranger, big.NewInt(90e6)), "0")))
	wantCode(t, "approve 61 TUSD more", sign(unsignedCall(usd, pack(t, contracts.ERC20ABI, "approve", stranger, big.NewInt(61e6)), "0")), http.StatusTooManyRequests, "DAILY_LIMIT_EXCEEDED")
	wantCode(t, "transfer 61 TUSD", sign(unsignedCall(usd, pack(t, contracts.ERC20ABI, "transfer", stranger, big.NewInt(61e6)), "0")), http.StatusTooManyRequests, "DAILY_LIMIT_EXCEEDED")
	mined("transfer 60 TUSD", sign(unsignedCall(usd, pack(t, contracts.ERC20ABI, "transfer", stranger, big.NewInt(60e6)), "0")))
	if got := signer.Calls() - before; got != 5 {
		t.Fatalf("the signer signed %d times, want the 5 allowed sends", got)
	}

	// The impact cap, checked before the daily cap: at 0.5% a 0.05 ETH buy moves DETH too much.
	wantStatus(t, "tighten the impact cap", b.do(http.MethodPatch, "/account/settings", `{"wallet":{"maxPriceImpact":0.5}}`), http.StatusOK)
	e := wantCode(t, "a buy moving the price", sign(buy("0.05")), http.StatusForbidden, "PRICE_IMPACT_TOO_HIGH")
	if !strings.Contains(string(e.Message), "above this account's cap of 0.5%") {
		t.Fatalf("impact refusal: %s", e.Message)
	}

	// Recipients: the first one restricts; it cools down for a day.
	wantStatus(t, "add a recipient", b.do(http.MethodPatch, "/account/settings", fmt.Sprintf(`{"wallet":{"recipients":{%q:{}}}}`, stranger.Hex())), http.StatusOK)
	wantCode(t, "TUSD to the new recipient", sign(unsignedCall(usd, pack(t, contracts.ERC20ABI, "transfer", stranger, big.NewInt(1)), "0")), http.StatusForbidden, "RECIPIENT_COOLING_DOWN")
	other := common.HexToAddress("0x2222222222222222222222222222222222222222")
	wantCode(t, "TUSD to another", sign(unsignedCall(usd, pack(t, contracts.ERC20ABI, "transfer", other, big.NewInt(1)), "0")), http.StatusForbidden, "RECIPIENT_NOT_ALLOWED")
	wantCode(t, "a router swap paying another", sign(s.build(t, dev.GraduatedToken.Token, other.Hex(), "buy", "0.0001", "5").unsigned()), http.StatusForbidden, "RECIPIENT_NOT_ALLOWED")
	wantCode(t, "an approval to another", sign(unsignedCall(usd, pack(t, contracts.ERC20ABI, "approve", other, big.NewInt(1)), "0")), http.StatusForbidden, "RECIPIENT_NOT_ALLOWED")

	// Paused: nothing is signed; the key can still be exported by a fresh session.
	wantStatus(t, "pause", b.do(http.MethodPatch, "/account/settings", `{"wallet":{"paused":true}}`), http.StatusOK)
	wantCode(t, "a send while paused", sign(fmt.Sprintf(`{"to":%q,"value":"0","chainId":1337}`, wallet.Hex())), http.StatusForbidden, "WALLET_PAUSED")
	wantStatus(t, "export while paused", b.do(http.MethodPost, "/wallet/export-key", ""), http.StatusOK)
	if got := signer.Calls() - before; got != 5 {
		t.Fatalf("refusals reached the signer: %d signatures, want 5", got)
	}

	// Every refusal is in the activity log with its code, newest first.
	var act activityList
	b.do(http.MethodGet, "/account/activity?limit=100", "").decode(t, &act)
	counts := map[string]int{}
	for _, a := range act.Activity {
		if a.Kind == "refusal" {
			counts[*a.Code]++
			if !strings.HasPrefix(a.Actor, "key ") {
				t.Errorf("a refusal's actor %q", a.Actor)
			}
		}
	}
	want := map[string]int{"PER_TX_LIMIT_EXCEEDED": 8, "CALL_NOT_UNDERSTOOD": 1, "DAILY_LIMIT_EXCEEDED": 6, "PRICE_IMPACT_TOO_HIGH": 1,
		"RECIPIENT_COOLING_DOWN": 1, "RECIPIENT_NOT_ALLOWED": 3, "WALLET_PAUSED": 1}
	if fmt.Sprint(counts) != fmt.Sprint(want) {
		t.Fatalf("refusals logged: %v, want %v", counts, want)
	}
}

// Thirty sends at once against a daily cap of ten of them: ten are signed, twenty refused, and
// the cap holds to the wei.
func TestGuardConcurrentSendsKeepTheDailyCap(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	b, m := s.signIn(t, "racer")
	s.fund(t, m.User.Wallet, 3)
	key := b.newKey(`{"name":"bot"}`).Key
	wantStatus(t, "set the cap", b.do(http.MethodPatch, "/account/settings", `{"wallet":{"limits":{"ETH":{"daily":"0.100000000000000009"}}}}`), http.StatusOK)
	gift := fmt.Sprintf(`{"to":%q,"value":"10000000000000001","chainId":1337,"gas":"21000"}`, s.app.dev.Accounts[7].Address.Hex())
	var wg sync.WaitGroup
	statuses := make([]int, 30)
	for i := range statuses {
		wg.Go(func() {
			statuses[i] = s.anon(t, http.MethodPost, "/wallet/sign-and-submit", gift, "X-API-Key", key).status
		})
	}
	wg.Wait()
	count := map[int]int{}
	for _, st := range statuses {
		count[st]++
	}
	if count[http.StatusOK] != 9 || count[http.StatusTooManyRequests] != 21 {
		t.Fatalf("30 sends of 0.010000000000000001 ETH under a daily cap of 0.100000000000000009: %v, want 9 signed and 21 refused", count)
	}
}

func pack(t testing.TB, abi interface {
	Pack(string, ...any) ([]byte, error)
}, method string, args ...any) []byte {
	t.Helper()
	data, err := abi.Pack(method, args...)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func maxUint() *big.Int { return new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 256), big.NewInt(1)) }
