package main

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/holiman/uint256"

	"github.com/curvekit/curvekit"
	"github.com/curvekit/curvekit/internal/pgtest"
)

// builtWithIssues is build-tx's answer with from: the transaction and its issues.
type builtWithIssues struct {
	buildTx
	From   string `json:"from"`
	Gas    string `json:"gas"`
	Issues *struct {
		Balance *struct {
			Token, Actual, Expected string
		} `json:"balance"`
		Allowance *struct {
			Token, Spender, Actual, Expected string
		} `json:"allowance"`
		SimulationIncomplete bool `json:"simulationIncomplete"`
		Settings             *[]struct {
			Step, Code, Message string
		} `json:"settings"`
	} `json:"issues"`
}

// weiText shows a wei amount as whole ETH.
func weiText(t testing.TB, wei string) string {
	t.Helper()
	var v uint256.Int
	if err := v.SetFromDecimal(wei); err != nil {
		t.Fatal(err)
	}
	return curvekit.FormatAmount(&v, 18)
}

// codes are the settings' refusals as step:code.
func (b *builtWithIssues) codes() []string {
	if b.Issues == nil || b.Issues.Settings == nil {
		return nil
	}
	out := []string{}
	for _, s := range *b.Issues.Settings {
		out = append(out, s.Step+":"+s.Code)
	}
	return out
}

// Build-tx with from answers, beside the transaction, the issues the wallet would hit, on the
// devnet over HTTP: none when all is fine; a balance short of the buy (ETH) or of the sell (the
// token) with what the chain holds; a missing allowance with the approval that fixes it; and,
// for the account that owns from only, each rule of its settings that would refuse a step (a
// per-transaction cap, on the approval too, the daily cap counting what already left, the
// price-impact cap, a paused wallet, a recipient outside the list or cooling down), with the
// code the send itself then gets. A stranger's from, anonymous or signed in as another account,
// reveals the chain's facts and nothing of the settings.
func TestBuildTxIssues(t *testing.T) {
	t.Parallel()
	testBuildTxIssues(t, startServer(t))
}

// The same on PostgreSQL, where the daily window's spends are read from wallet_spends there.
func TestBuildTxIssuesOnPostgres(t *testing.T) {
	t.Parallel()
	dsn := pgtest.Schema(t, "issues")
	testBuildTxIssues(t, startServer(t, "--db", dsn, "--devnet-dir", t.TempDir()))
	db := pgtest.Connect(t, dsn)
	defer db.Close()
	var n int
	if err := db.QueryRow("SELECT count(*) FROM wallet_spends").Scan(&n); err != nil || n != 1 {
		t.Fatalf("the spends on PostgreSQL: %d, %v; want the one 0.4 ETH buy", n, err)
	}
}

func testBuildTxIssues(t *testing.T, s *testServer) {
	dev := s.app.dev
	b, m := s.signIn(t, "issues")
	w := m.User.Wallet
	s.fund(t, w, 2)
	s.fundUSD(t, w, 1000)
	deth, usdToken, grad := dev.ETHToken.Token, dev.USDToken.Token, dev.GraduatedToken.Token
	build := func(as func(method, path, body string, hdr ...string) answer, token common.Address, body string) builtWithIssues {
		t.Helper()
		var out builtWithIssues
		r := as(http.MethodPost, "/tokens/"+token.Hex()+"/build-tx", body)
		wantStatus(t, "build-tx "+body, r, http.StatusOK)
		r.decode(t, &out)
		if out.Error != "" || out.Issues == nil {
			t.Fatalf("build-tx %s: %s", body, r.body)
		}
		return out
	}
	owner := b.do
	anon := func(method, path, body string, hdr ...string) answer { return s.anon(t, method, path, body, hdr...) }
	trade := func(side, amount string) string {
		return fmt.Sprintf(`{"type":%q,"amount":%q,"slippage":5,"from":%q}`, side, amount, w)
	}
	none := func(what string, got builtWithIssues, settings bool) {
		t.Helper()
		is := got.Issues
		if is.Balance != nil || is.Allowance != nil || is.SimulationIncomplete || got.Gas == "" || got.From != common.HexToAddress(w).Hex() {
			t.Fatalf("%s: %+v", what, got)
		}
		if settings != (is.Settings != nil) || len(got.codes()) != 0 {
			t.Fatalf("%s: settings %v, want checked %v and empty", what, got.codes(), settings)
		}
	}

	// All fine: an ETH buy within the balance, no caps.
	none("a 0.1 ETH buy by the owner", build(owner, deth, trade("buy", "0.1")), true)
	none("the same buy asked anonymously", build(anon, deth, trade("buy", "0.1")), false)

	// Balance: more ETH than the wallet holds, and a sell of tokens it has none of (with the
	// allowance it lacks and the approval that fixes it).
	held := balance(t, s.app, common.Address{}, common.HexToAddress(w))
	got := build(owner, deth, trade("buy", "5"))
	if bal := got.Issues.Balance; bal == nil || bal.Token != "ETH" || bal.Expected != "5" || bal.Actual != curvekit.FormatAmount(&held, 18) || !got.Issues.SimulationIncomplete || got.Gas != "" {
		t.Fatalf("a 5 ETH buy from %s ETH: %+v", curvekit.FormatAmount(&held, 18), got.Issues)
	}
	got = build(anon, deth, trade("sell", "1000"))
	is := got.Issues
	if is.Balance == nil || is.Balance.Token != deth.Hex() || is.Balance.Actual != "0" || is.Balance.Expected != "1000" {
		t.Fatalf("a sell of tokens the wallet lacks: balance %+v", is.Balance)
	}
	if is.Allowance == nil || is.Allowance.Actual != "0" || is.Allowance.Expected != "1000" || is.Allowance.Spender != dev.ETHToken.Curve.Hex() || got.Approval == nil || !is.SimulationIncomplete {
		t.Fatalf("a sell without allowance: allowance %+v, approval %+v", is.Allowance, got.Approval)
	}
	// Allowance alone: TUSD the wallet holds, not yet approved to DUSD's curve.
	got = build(owner, usdToken, trade("buy", "10"))
	if is := got.Issues; is.Balance != nil || is.Allowance == nil || is.Allowance.Token != dev.Addrs.USD.Hex() || is.Allowance.Spender != dev.USDToken.Curve.Hex() || got.Approval == nil || len(got.codes()) != 0 {
		t.Fatalf("a TUSD buy before its approval: %+v, approval %+v", got.Issues, got.Approval)
	}

	// The account's settings.
	patch := func(body string) {
		t.Helper()
		wantStatus(t, "PATCH "+body, b.do(http.MethodPatch, "/account/settings", body), http.StatusOK)
	}
	key := b.newKey(`{"name":"bot"}`).Key
	send := func(tx builtWithIssues) answer {
		return s.anon(t, http.MethodPost, "/wallet/sign-and-submit", tx.unsigned(), "X-API-Key", key)
	}
	// wantRefused checks the issue's codes and that the send gets the transaction's code.
	wantRefused := func(what string, got builtWithIssues, status int, codes ...string) {
		t.Helper()
		if fmt.Sprint(got.codes()) != fmt.Sprint(codes) {
			t.Fatalf("%s: settings issues %v, want %v", what, got.codes(), codes)
		}
		for _, st := range *got.Issues.Settings {
			if st.Message == "" || strings.HasPrefix(st.Message, "forbidden") {
				t.Fatalf("%s: message %q", what, st.Message)
			}
		}
		last := codes[len(codes)-1]
		if !strings.HasPrefix(last, "transaction:") || got.Approval != nil {
			return // the approval step is sent first, and only the owner checks it
		}
		wantCode(t, what+", sent", send(got), status, strings.TrimPrefix(last, "transaction:"))
	}
	patch(fmt.Sprintf(`{"wallet":{"limits":{"ETH":{"perTransaction":"0.5","daily":"0.7"},%q:{"perTransaction":"100"}},"maxPriceImpact":50}}`, dev.Addrs.USD.Hex()))
	wantRefused("a 0.6 ETH buy over the per-transaction cap", build(owner, deth, trade("buy", "0.6")), http.StatusForbidden, "transaction:PER_TX_LIMIT_EXCEEDED")
	// The agent's tool composes for the account's wallet and says what its settings refuse.
	var tool struct {
		Summary string `json:"summary"`
		Data    struct {
			Issues struct {
				Settings []struct{ Step, Code string } `json:"settings"`
			} `json:"issues"`
		} `json:"data"`
	}
	r := s.anon(t, http.MethodPost, "/agent/tools/build_buy_transaction", fmt.Sprintf(`{"token":%q,"amount":"0.6"}`, deth.Hex()), "X-API-Key", key)
	wantStatus(t, "the agent's buy tool", r, http.StatusOK)
	r.decode(t, &tool)
	if st := tool.Data.Issues.Settings; len(st) != 1 || st[0].Code != "PER_TX_LIMIT_EXCEEDED" || st[0].Step != "transaction" ||
		!strings.Contains(tool.Summary, "settings would refuse the transaction as it stands (PER_TX_LIMIT_EXCEEDED)") {
		t.Fatalf("the agent's buy over the cap: %s", r.body)
	}
	// The stranger's view of the same build: the chain's facts, no settings.
	if got := build(anon, deth, trade("buy", "0.6")); got.Issues.Settings != nil {
		t.Fatalf("an anonymous from reveals the settings: %v", got.codes())
	}
	other, _ := s.signIn(t, "issues-stranger")
	if got := build(other.do, deth, trade("buy", "0.6")); got.Issues.Settings != nil || got.Issues.Balance != nil {
		t.Fatalf("another account's from reveals the settings: %+v", got.Issues)
	}
	// A launch's first buy is held to the same caps, and to the balance.
	launch := func(as func(method, path, body string, hdr ...string) answer, first string) builtWithIssues {
		t.Helper()
		var out builtWithIssues
		r := as(http.MethodPost, "/launch/build-tx", fmt.Sprintf(`{"from":%q,"name":"Issue","symbol":"ISS","uri":"https://example.com/iss.json","initialBuy":%q}`, w, first))
		wantStatus(t, "launch build-tx "+first, r, http.StatusOK)
		r.decode(t, &out)
		if out.Issues == nil {
			t.Fatalf("launch build-tx: %s", r.body)
		}
		return out
	}
	wantRefused("a launch buying 0.6 ETH first", launch(owner, "0.6"), http.StatusForbidden, "transaction:PER_TX_LIMIT_EXCEEDED")
	r = s.anon(t, http.MethodPost, "/agent/tools/build_launch_transaction", `{"name":"Issue","symbol":"ISS","uri":"https://example.com/iss.json","initialBuy":"0.6"}`, "X-API-Key", key)
	wantStatus(t, "the agent's launch tool", r, http.StatusOK)
	r.decode(t, &tool)
	if st := tool.Data.Issues.Settings; len(st) != 1 || st[0].Code != "PER_TX_LIMIT_EXCEEDED" || !strings.Contains(tool.Summary, "(PER_TX_LIMIT_EXCEEDED)") {
		t.Fatalf("the agent's launch over the cap: %s", r.body)
	}
	if got := launch(anon, "0.6"); got.Issues.Settings != nil || got.Issues.Balance != nil {
		t.Fatalf("an anonymous launch build: %+v", got.Issues)
	}
	if got := launch(anon, "5"); got.Issues.Balance == nil || got.Issues.Balance.Token != "ETH" || got.Issues.Balance.Expected != weiText(t, got.Value) || !got.Issues.SimulationIncomplete {
		t.Fatalf("a launch buying 5 ETH first from a wallet of 2: %+v (value %s)", got.Issues, got.Value)
	}
	// A 120 TUSD buy: its approval and the trade are both over the TUSD cap.
	got = build(owner, usdToken, trade("buy", "120"))
	wantRefused("a 120 TUSD buy", got, 0, "approval:PER_TX_LIMIT_EXCEEDED", "transaction:PER_TX_LIMIT_EXCEEDED")
	// The daily cap counts what already left: 0.4 sent, 0.4 more would pass 0.7.
	first := build(owner, deth, trade("buy", "0.4"))
	none("0.4 ETH, within both caps", first, true)
	wantStatus(t, "send 0.4 ETH", send(first), http.StatusOK)
	wantRefused("0.4 ETH more", build(owner, deth, trade("buy", "0.4")), http.StatusTooManyRequests, "transaction:DAILY_LIMIT_EXCEEDED")
	none("0.3 ETH more, to the cap exactly", build(owner, deth, trade("buy", "0.3")), true)
	// The price-impact cap.
	patch(`{"wallet":{"maxPriceImpact":0.5}}`)
	wantRefused("a buy moving the price 0.5%+", build(owner, deth, trade("buy", "0.05")), http.StatusForbidden, "transaction:PRICE_IMPACT_TOO_HIGH")
	patch(`{"wallet":{"maxPriceImpact":50}}`)
	// Recipients: on the pool the output may go elsewhere; the account's list decides.
	stranger, friend := common.HexToAddress("0x1111111111111111111111111111111111111111"), common.HexToAddress("0x2222222222222222222222222222222222222222")
	patch(fmt.Sprintf(`{"wallet":{"recipients":{%q:{}}}}`, friend.Hex()))
	pool := func(to common.Address) string {
		return fmt.Sprintf(`{"type":"buy","amount":"0.01","slippage":5,"from":%q,"recipient":%q}`, w, to.Hex())
	}
	wantRefused("a pool buy for a stranger", build(owner, grad, pool(stranger)), http.StatusForbidden, "transaction:RECIPIENT_NOT_ALLOWED")
	wantRefused("a pool buy for a friend still cooling down", build(owner, grad, pool(friend)), http.StatusForbidden, "transaction:RECIPIENT_COOLING_DOWN")
	if got := build(anon, grad, pool(stranger)); got.Issues.Settings != nil {
		t.Fatalf("an anonymous pool build reveals the settings: %v", got.codes())
	}
	// Paused: every step is refused, the pause first.
	patch(`{"wallet":{"paused":true}}`)
	wantRefused("any buy while paused", build(owner, deth, trade("buy", "0.01")), http.StatusForbidden, "transaction:WALLET_PAUSED")
	patch(`{"wallet":{"paused":false}}`)
	none("a small buy after resuming", build(owner, deth, trade("buy", "0.01")), true)

	// On the chain: only the one 0.4 ETH buy left the wallet.
	var sent uint64
	if n, err := dev.Client.NonceAt(context.Background(), common.HexToAddress(w), nil); err == nil {
		sent = n
	}
	if sent > 1 {
		t.Fatalf("the wallet sent %d transactions, want at most the one buy", sent)
	}
}
