package main

import (
	"encoding/json"
	"fmt"
	"math/big"
	"net/http"
	"strings"
	"testing"

	"github.com/curvekit/curvekit/contracts"
	"github.com/curvekit/curvekit/internal/app"
	"github.com/curvekit/curvekit/internal/app/apptest"
)

type simulationView struct {
	Simulated      bool   `json:"simulated"`
	Success        bool   `json:"success"`
	Gas            string `json:"gas"`
	Complete       bool   `json:"complete"`
	BalanceChanges []struct {
		Asset string `json:"asset"`
		Delta string `json:"delta"`
	} `json:"balanceChanges"`
}

// withSimulateOnly is a sign-and-submit body asking for the simulation alone.
func withSimulateOnly(body string) string {
	return strings.TrimSuffix(body, "}") + `,"simulateOnly":true}`
}

// Every send is simulated first: simulateOnly answers the balance changes a buy makes (the ETH
// out, the tokens in, to the unit of the quote) and signs nothing, 31 times over the signing
// budget of 30; a send that would revert is refused with the reference contract's error by name,
// simulated or not.
func TestSimulationBeforeEverySend(t *testing.T) {
	t.Parallel()
	signer := &apptest.CountingSigner{}
	s := startServerWith(t, nil, []app.Option{app.WithSigner(signer)})
	b, m := s.signIn(t, "simulator")
	s.fund(t, m.User.Wallet, 2)
	key := b.newKey(`{"name":"bot"}`).Key
	deth := s.app.dev.ETHToken
	built := s.build(t, deth.Token, m.User.Wallet, "buy", "0.01", "1")
	for i := range 31 {
		r := s.anon(t, http.MethodPost, "/wallet/sign-and-submit", withSimulateOnly(built.unsigned()), "X-API-Key", key)
		wantStatus(t, fmt.Sprintf("simulation %d", i+1), r, http.StatusOK)
		if i > 0 {
			continue
		}
		t.Logf("simulateOnly: %s", r.body)
		var sim simulationView
		r.decode(t, &sim)
		out := decimalUnits(t, built.Quote.AmountOut, 18)
		want := fmt.Sprintf("[{ETH -10000000000000000} {%s %s}]", deth.Token.Hex(), out)
		got := fmt.Sprint(sim.BalanceChanges)
		if !sim.Simulated || !sim.Success || !sim.Complete || sim.Gas == "0" || got != want {
			t.Fatalf("simulation: %s; balance changes %s, want %s", r.body, got, want)
		}
	}
	if n := signer.Calls(); n != 0 {
		t.Fatalf("simulations reached the signer %d times", n)
	}
	// A sell without its approval reverts in the token: refused, named, nothing signed.
	sell := s.build(t, deth.Token, m.User.Wallet, "sell", "1000", "1")
	for _, body := range []string{sell.unsigned(), withSimulateOnly(sell.unsigned())} {
		e := wantCode(t, "a sell without approval", s.anon(t, http.MethodPost, "/wallet/sign-and-submit", body, "X-API-Key", key),
			http.StatusBadRequest, "SIMULATION_REVERTED")
		var msg string
		_ = json.Unmarshal(e.Message, &msg)
		t.Logf("sell without approval: %s", msg)
		if !strings.Contains(msg, "ERC20InsufficientBalance(") && !strings.Contains(msg, "ERC20InsufficientAllowance(") {
			t.Fatalf("the revert is not named: %s", msg)
		}
	}
	// A buy past its deadline: the curve's own error, with its arguments.
	late := pack(t, contracts.BondingCurveABI, "buy", big.NewInt(1e16), big.NewInt(1), big.NewInt(1))
	e := wantCode(t, "a late buy", s.anon(t, http.MethodPost, "/wallet/sign-and-submit", unsignedCall(deth.Curve, late, "10000000000000000"), "X-API-Key", key),
		http.StatusBadRequest, "SIMULATION_REVERTED")
	t.Logf("late buy: %s", e.Message)
	if !strings.Contains(string(e.Message), "DeadlineExpired(deadline: 1, timestamp: ") {
		t.Fatalf("late buy: %s", e.Message)
	}
	// A duplicated key cannot make a send pass for a simulation.
	r := s.anon(t, http.MethodPost, "/wallet/sign-and-submit", strings.TrimSuffix(built.unsigned(), "}")+`,"simulateOnly":true,"simulateOnly":false}`, "X-API-Key", key)
	wantCode(t, "simulateOnly twice", r, http.StatusBadRequest, "VALIDATION_FAILED")
	// The real send, after all that, is within the budget and signed once.
	r = s.anon(t, http.MethodPost, "/wallet/sign-and-submit", built.unsigned(), "X-API-Key", key)
	wantStatus(t, "the real buy", r, http.StatusOK)
	if n := signer.Calls(); n != 1 {
		t.Fatalf("signer saw %d calls, want 1", n)
	}
}
