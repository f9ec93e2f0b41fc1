package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math/big"
	"net/http"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/holiman/uint256"

	"github.com/curvekit/curvekit"
	"github.com/curvekit/curvekit/internal/app"
	"github.com/curvekit/curvekit/internal/app/apptest"
)

// fund sends eth whole ETH from a devnet account to w and mines it.
func (s *testServer) fund(t testing.TB, w string, eth int64) {
	t.Helper()
	to := common.HexToAddress(w)
	value := new(big.Int).Mul(big.NewInt(eth), big.NewInt(1e18))
	if _, err := s.app.dev.Send(context.Background(), s.app.dev.Accounts[9].Key, &to, value, nil); err != nil {
		t.Fatal(err)
	}
	// The node's transaction pool learns of the new block in the background, and until then it
	// refuses the wallet's transactions for want of funds. AdjustTime returns once the pool has
	// caught up (it waits for the pool to drop the mined transfer).
	if err := s.app.dev.AdjustTime(time.Second); err != nil {
		t.Fatal(err)
	}
}

// build asks build-tx for an unsigned trade with wallet w as sender and recipient.
func (s *testServer) build(t testing.TB, token common.Address, w, side, amount, slippage string) buildTx {
	t.Helper()
	body := fmt.Sprintf(`{"type":%q,"amount":%q,"recipient":%q,"slippage":%q}`, side, amount, w, slippage)
	var b buildTx
	s.anon(t, http.MethodPost, "/tokens/"+token.Hex()+"/build-tx", body).decode(t, &b)
	if b.Error != "" || b.To == "" {
		t.Fatalf("build-tx: %+v", b)
	}
	return b
}

// unsigned is the body of POST /wallet/sign-and-submit for a built transaction.
func (b buildTx) unsigned() string {
	raw, _ := json.Marshal(map[string]any{"to": b.To, "data": b.Data, "value": b.Value, "chainId": b.ChainID})
	return string(raw)
}

type submission struct {
	Hash     string `json:"hash"`
	From     string `json:"from"`
	To       string `json:"to"`
	Nonce    uint64 `json:"nonce"`
	ChainID  uint64 `json:"chainId"`
	Gas      string `json:"gas"`
	Value    string `json:"value"`
	Replayed bool   `json:"replayed"`
}

// receipt mines what is pending until tx has a receipt.
func (s *testServer) receipt(t testing.TB, tx string) *types.Receipt {
	t.Helper()
	for range 50 {
		r, err := s.app.dev.Client.TransactionReceipt(context.Background(), common.HexToHash(tx))
		if err == nil {
			return r
		}
		s.app.dev.Mine()
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("transaction %s never mined", tx)
	return nil
}

// TestSignAndSubmitBuyExecutes: a buy built by build-tx and submitted through the custodial
// wallet over HTTP executes for the quoted amount.
func TestSignAndSubmitBuyExecutes(t *testing.T) {
	t.Parallel()
	signer := &apptest.CountingSigner{}
	s := startServerWith(t, nil, []app.Option{app.WithSigner(signer)})
	b, m := s.signIn(t, "olivia")
	s.fund(t, m.User.Wallet, 5)
	token := s.app.dev.ETHToken.Token
	w := common.HexToAddress(m.User.Wallet)

	before := balance(t, s.app, token, w)
	built := s.build(t, token, m.User.Wallet, "buy", "0.25", "1")
	a := b.do(http.MethodPost, "/wallet/sign-and-submit", built.unsigned())
	wantStatus(t, "sign-and-submit", a, http.StatusOK)
	var sub submission
	a.decode(t, &sub)
	if sub.From != m.User.Wallet || sub.To != built.To || sub.Nonce != 0 || sub.ChainID != 1337 || sub.Value != built.Value || sub.Replayed {
		t.Fatalf("submission %s for %+v", a.body, built)
	}
	if r := s.receipt(t, sub.Hash); r.Status != types.ReceiptStatusSuccessful {
		t.Fatalf("the buy reverted: %+v", r)
	}
	after := balance(t, s.app, token, w)
	var got uint256.Int
	got.Sub(&after, &before)
	want, err := curvekit.ParseAmount(built.Quote.AmountOut, 18)
	if err != nil {
		t.Fatal(err)
	}
	if !got.Eq(&want) {
		t.Fatalf("received %s tokens, quoted %s", got.Dec(), want.Dec())
	}
	if signer.Calls() != 1 {
		t.Fatalf("signer called %d times", signer.Calls())
	}
	// A chain id that is not the chain's is refused before signing.
	wrong := strings.Replace(built.unsigned(), `"chainId":1337`, `"chainId":1`, 1)
	wantStatus(t, "another chain", b.do(http.MethodPost, "/wallet/sign-and-submit", wrong), http.StatusBadRequest)
	if signer.Calls() != 1 {
		t.Fatalf("signer called for another chain")
	}
}

// TestSignAndSubmitConcurrentNonces: 30 concurrent submissions from one wallet all get distinct
// nonces and all mine; the 31st within the minute is 429.
func TestSignAndSubmitConcurrentNonces(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	b, m := s.signIn(t, "peggy")
	s.fund(t, m.User.Wallet, 10)
	const n = 30
	subs := make([]submission, n)
	budget := signingBudget{first: time.Now()}
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			// Plain transfers to distinct addresses: each transaction is different, so no two
			// hash alike, and none can fail for price movement.
			body := fmt.Sprintf(`{"to":%q,"value":"%d","chainId":1337}`, common.BigToAddress(big.NewInt(int64(1000+i))).Hex(), 1000+i)
			a := b.do(http.MethodPost, "/wallet/sign-and-submit", body)
			if a.status != http.StatusOK {
				t.Errorf("submission %d: %d %s", i, a.status, a.body)
				return
			}
			a.decode(t, &subs[i])
		})
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	// Past the budget: to an address outside the recipients, whose balances are checked below.
	budget.spent = n
	budget.exhaust(t, http.StatusOK, func() answer {
		return b.do(http.MethodPost, "/wallet/sign-and-submit", `{"to":"0x00000000000000000000000000000000000003e7","value":"1","chainId":1337}`)
	})
	nonces := make([]int, n)
	for i, sub := range subs {
		nonces[i] = int(sub.Nonce)
	}
	sort.Ints(nonces)
	for i, nonce := range nonces {
		if nonce != i {
			t.Fatalf("nonces %v, want 0..%d each once", nonces, n-1)
		}
	}
	for _, sub := range subs {
		if r := s.receipt(t, sub.Hash); r.Status != types.ReceiptStatusSuccessful {
			t.Fatalf("%s failed", sub.Hash)
		}
	}
	for i := range n {
		got, err := s.app.dev.Client.BalanceAt(context.Background(), common.BigToAddress(big.NewInt(int64(1000+i))), nil)
		if err != nil || got.Int64() != int64(1000+i) {
			t.Fatalf("recipient %d holds %v (%v)", i, got, err)
		}
	}
}

// signingBudget follows a test's use of an account's signing budget: 30 a minute, refilled one
// every 2 s. A slow run (the race detector on a loaded machine) earns signatures back while it
// goes, so a test that spends the budget counts what it spent since first and accepts what the
// refill earned, and no more.
type signingBudget struct {
	first time.Time // before the budget's first charge
	spent int
}

// exhaust calls sign until the budget answers 429. Every other answer must be status (what the
// handler answers a call the budget let through), and spends one signature; more than 30 and the
// refill fails the test.
func (b *signingBudget) exhaust(t *testing.T, status int, sign func() answer) {
	t.Helper()
	for {
		a := sign()
		if a.status == http.StatusTooManyRequests {
			return
		}
		wantStatus(t, fmt.Sprintf("signature %d", b.spent+1), a, status)
		b.spent++
		if earned := int(time.Since(b.first) / (2 * time.Second)); b.spent > 30+earned {
			t.Fatalf("signature %d granted; the budget of 30 had refilled %d in %v", b.spent, earned, time.Since(b.first))
		}
	}
}

// TestSignAndSubmitIdempotent: the same request with the same Idempotency-Key sends once and
// the second answer says replayed; the key with another body is 409.
func TestSignAndSubmitIdempotent(t *testing.T) {
	t.Parallel()
	signer := &apptest.CountingSigner{}
	s := startServerWith(t, nil, []app.Option{app.WithSigner(signer)})
	b, m := s.signIn(t, "quentin")
	s.fund(t, m.User.Wallet, 5)
	built := s.build(t, s.app.dev.ETHToken.Token, m.User.Wallet, "buy", "0.1", "1")

	var first, second submission
	a := b.do(http.MethodPost, "/wallet/sign-and-submit", built.unsigned(), "Idempotency-Key", "order-42")
	wantStatus(t, "first", a, http.StatusOK)
	a.decode(t, &first)
	a = b.do(http.MethodPost, "/wallet/sign-and-submit", built.unsigned(), "Idempotency-Key", "order-42")
	wantStatus(t, "retry", a, http.StatusOK)
	a.decode(t, &second)
	if first.Replayed || !second.Replayed || second.Hash != first.Hash || second.Nonce != first.Nonce {
		t.Fatalf("first %+v, retry %+v", first, second)
	}
	if signer.Calls() != 1 {
		t.Fatalf("signer called %d times for one idempotent request", signer.Calls())
	}
	other := strings.Replace(built.unsigned(), `"value":"`, `"value":"1`, 1)
	wantStatus(t, "the key with another request", b.do(http.MethodPost, "/wallet/sign-and-submit", other, "Idempotency-Key", "order-42"), http.StatusConflict)
	s.receipt(t, first.Hash)
	pending, err := s.app.dev.Client.PendingNonceAt(context.Background(), common.HexToAddress(m.User.Wallet))
	if err != nil || pending != 1 {
		t.Fatalf("wallet nonce %d (%v): sent more than once", pending, err)
	}
}

// TestExportKey: within 15 minutes of sign-in the session gets the wallet's key (no-store) and
// the export is audited; an older sign-in is 403 saying to sign in again; an API key is 403.
func TestExportKey(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	b, m := s.signIn(t, "rupert")
	a := b.do(http.MethodPost, "/wallet/export-key", "")
	wantStatus(t, "export", a, http.StatusOK)
	if cc := a.header.Get("Cache-Control"); cc != "no-store" {
		t.Errorf("export: Cache-Control %q", cc)
	}
	var out struct{ Wallet, PrivateKey string }
	a.decode(t, &out)
	key, err := crypto.HexToECDSA(strings.TrimPrefix(out.PrivateKey, "0x"))
	if err != nil || crypto.PubkeyToAddress(key.PublicKey).Hex() != m.User.Wallet || out.Wallet != m.User.Wallet {
		t.Fatalf("exported %+v (%v) for %s", out, err, m.User.Wallet)
	}
	u, err := s.app.DB.Accounts().UserByWallet(context.Background(), common.HexToAddress(m.User.Wallet))
	if err != nil {
		t.Fatal(err)
	}
	audit, err := s.app.DB.Wallets().Exports(context.Background(), u.ID)
	if err != nil || len(audit) != 1 || audit[0].Address.Hex() != m.User.Wallet {
		t.Fatalf("audit %+v (%v)", audit, err)
	}

	now := time.Now()
	stale := s.plantSession(t, m.User.Wallet, now.Add(-16*time.Minute), now.Add(time.Hour))
	a = s.anon(t, http.MethodPost, "/wallet/export-key", "", "Cookie", "svc_session="+stale)
	wantStatus(t, "export 16 minutes after sign-in", a, http.StatusForbidden)
	if msg, _ := mustErr(t, a).Message.(string); !strings.Contains(msg, "sign in again") {
		t.Fatalf("stale export message %q", msg)
	}
	k := b.newKey(`{"name":"export"}`)
	wantStatus(t, "export with an API key", s.anon(t, http.MethodPost, "/wallet/export-key", "", "X-API-Key", k.Key), http.StatusForbidden)
}

// BenchmarkSignAndSubmit is the latency of POST /wallet/sign-and-submit over HTTP on the
// devnet: a transfer signed by a custodial wallet and broadcast (the answer comes after the
// node accepted it; mining is not timed). The signing class allows 30 a minute per account, so
// every 30 calls the benchmark signs in a new, funded account, from a new address behind the
// trusted proxy, with the timer stopped.
func BenchmarkSignAndSubmit(b *testing.B) {
	s := startServer(b, "--trusted-proxies", "127.0.0.1")
	to := s.app.dev.Accounts[4].Address.Hex()
	body := fmt.Sprintf(`{"to":%q,"value":"1","chainId":1337,"gas":"21000"}`, to)
	var br *browser
	used := 30
	b.ResetTimer()
	for b.Loop() {
		if used == 30 {
			b.StopTimer()
			s.app.dev.Mine()
			var m me
			br, m = s.signIn(b, "bench"+randomIP()[3:], "X-Forwarded-For", randomIP())
			s.fund(b, m.User.Wallet, 1)
			used = 0
			b.StartTimer()
		}
		a := br.do(http.MethodPost, "/wallet/sign-and-submit", body)
		if a.status != http.StatusOK {
			b.Fatalf("%d %s", a.status, a.body)
		}
		used++
	}
}

// TestSignAndSubmitIdempotentConcurrent: eight simultaneous requests with one Idempotency-Key
// send one transaction; every answer names it, all but one replayed.
func TestSignAndSubmitIdempotentConcurrent(t *testing.T) {
	t.Parallel()
	signer := &apptest.CountingSigner{}
	s := startServerWith(t, nil, []app.Option{app.WithSigner(signer)})
	b, m := s.signIn(t, "sybil")
	s.fund(t, m.User.Wallet, 1)
	body := fmt.Sprintf(`{"to":%q,"value":"5","chainId":1337}`, s.app.dev.Accounts[4].Address.Hex())
	const n = 8
	subs := make([]submission, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			a := b.do(http.MethodPost, "/wallet/sign-and-submit", body, "Idempotency-Key", "once")
			if a.status != http.StatusOK {
				t.Errorf("request %d: %d %s", i, a.status, a.body)
				return
			}
			a.decode(t, &subs[i])
		})
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	replayed := 0
	for _, sub := range subs {
		if sub.Hash != subs[0].Hash {
			t.Fatalf("answers name different transactions: %+v", subs)
		}
		if sub.Replayed {
			replayed++
		}
	}
	if replayed != n-1 || signer.Calls() != 1 {
		t.Fatalf("%d replayed, signer called %d times", replayed, signer.Calls())
	}
}
