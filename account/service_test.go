package account_test

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/holiman/uint256"

	"github.com/curvekit/curvekit"
	"github.com/curvekit/curvekit/account"
	"github.com/curvekit/curvekit/adapters/bunstore"
)

var (
	usd    = common.HexToAddress("0x00000000000000000000000000000000000000a6")
	assets = []account.Asset{{Symbol: "ETH", Decimals: 18}, {Address: usd, Symbol: "TUSD", Decimals: 6}}
	t0     = time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
)

type env struct {
	svc *account.Service
	now time.Time
}

func newEnv(t *testing.T) *env {
	t.Helper()
	db, err := bunstore.Open(context.Background(), bunstore.Config{DSN: filepath.Join(t.TempDir(), "account.db")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	e := &env{now: t0}
	e.svc, err = account.New(account.Config{
		Store: db.AccountSettings(), Assets: account.AssetsFunc(func(context.Context) ([]account.Asset, error) { return assets, nil }),
		Tools: func() []string { return []string{"quote", "build_trade"} }, Now: func() time.Time { return e.now },
	})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// fresh is a session that signed in a minute ago; stale one that signed in an hour ago.
func (e *env) fresh() account.Actor { return account.Actor{SignedInAt: e.now.Add(-time.Minute)} }
func (e *env) stale() account.Actor { return account.Actor{SignedInAt: e.now.Add(-time.Hour)} }

func (e *env) patch(t *testing.T, who account.Actor, patch string) (account.Settings, error) {
	t.Helper()
	return e.svc.Update(context.Background(), account.UpdateParams{AccountID: "acc", Patch: []byte(patch), Actor: who})
}

func TestDefaults(t *testing.T) {
	e := newEnv(t)
	st, err := e.svc.Settings(context.Background(), "acc")
	if err != nil {
		t.Fatal(err)
	}
	if st.Wallet.Paused || len(st.Wallet.Limits) != 0 || st.Wallet.MaxPriceImpact != 1500 || st.Wallet.RecipientCooldownHours != 24 || st.Version != 0 {
		t.Fatalf("defaults: %+v", st)
	}
	r, err := e.svc.Rules(context.Background(), "acc")
	if err != nil || r.MaxPriceImpactBps != 1500 || len(r.Caps) != 0 || r.Recipients != nil {
		t.Fatalf("default rules: %+v, %v", r, err)
	}
}

// Every failing field of a patch is listed at once, and nothing is stored.
func TestPatchListsEveryFailingField(t *testing.T) {
	e := newEnv(t)
	_, err := e.patch(t, e.fresh(), `{
		"wallet": {
			"limits": {"ETH": {"perTransaction": "-1", "daily": "0.1234567890123456789"}, "DOGE": {"daily": "1"},
			           "0x00000000000000000000000000000000000000a6": {"daily": "1.0000001", "weekly": "3"}},
			"maxPriceImpact": 101,
			"recipientCooldownHours": 169,
			"recipients": {"0x12": {}},
			"relax": {"minutes": 15},
			"colour": "red"
		},
		"agent": {"slippage": 50.001, "tools": ["quote", "launch_rocket"]},
		"version": 9
	}`)
	var probs curvekit.Problems
	if !errors.As(err, &probs) {
		t.Fatalf("err = %v, want Problems", err)
	}
	for _, want := range []string{
		"wallet.limits.ETH.perTransaction:", "wallet.limits.ETH.daily:", "wallet.limits.DOGE:",
		"wallet.limits.0x00000000000000000000000000000000000000a6.daily:", "wallet.limits.0x00000000000000000000000000000000000000a6.weekly: unknown field",
		"wallet.maxPriceImpact:", "wallet.recipientCooldownHours:", "wallet.recipients.0x12:", "wallet.relax.minutes:",
		"wallet.relax: raises nothing", "wallet.colour: unknown field", "agent.slippage:", "agent.tools[1]:", "version: is read-only",
	} {
		if !slices.ContainsFunc(probs, func(p string) bool { return strings.HasPrefix(p, want) }) {
			t.Errorf("no problem %q among %q", want, probs)
		}
	}
	if len(probs) != 14 {
		t.Errorf("%d problems, want 14: %q", len(probs), probs)
	}
	if st, _ := e.svc.Settings(context.Background(), "acc"); st.Version != 0 {
		t.Fatalf("a refused patch was stored: %+v", st)
	}
	for _, bad := range []string{`null`, `[]`, `{"wallet": {"paused": true}, "wallet": {"paused": false}}`, `{} {}`, `{"wallet": 1}`} {
		if _, err := e.patch(t, e.fresh(), bad); !errors.Is(err, curvekit.ErrInvalid) {
			t.Errorf("patch %s: %v, want ErrInvalid", bad, err)
		}
	}
}

// Any session may tighten; loosening needs a sign-in within 15 minutes; a key changes nothing.
func TestLooseningNeedsARecentSignIn(t *testing.T) {
	e := newEnv(t)
	st, err := e.patch(t, e.stale(), `{"wallet": {"paused": true, "limits": {"ETH": {"perTransaction": "0.5", "daily": "2"}}, "maxPriceImpact": 5}}`)
	if err != nil {
		t.Fatalf("tightening from an old session: %v", err)
	}
	if st.Version != 1 || !st.Wallet.Paused || *st.Wallet.Limits["ETH"].Daily != "2" || st.Wallet.MaxPriceImpact != 500 {
		t.Fatalf("after tightening: %+v", st)
	}
	for _, loosen := range []string{
		`{"wallet": {"paused": false}}`,
		`{"wallet": {"limits": {"ETH": {"daily": "2.000000000000000001"}}}}`,
		`{"wallet": {"limits": {"ETH": null}}}`,
		`{"wallet": {"limits": null}}`,
		`{"wallet": null}`,
		`{"wallet": {"maxPriceImpact": 6}}`,
		`{"wallet": {"recipientCooldownHours": 1}}`,
		`{"wallet": {"relax": {"minutes": 10, "limits": {"ETH": {"daily": "3"}}}}}`,
	} {
		if _, err := e.patch(t, e.stale(), loosen); !errors.Is(err, curvekit.ErrForbidden) || !strings.Contains(err.Error(), "sign in again") {
			t.Errorf("%s from an old session: %v, want forbidden", loosen, err)
		}
	}
	_, err = e.patch(t, account.Actor{KeyID: "k1"}, `{"wallet": {"paused": true}}`)
	if !errors.Is(err, curvekit.ErrForbidden) || curvekit.CodeOf(err) != curvekit.CodeReadOnlyKey {
		t.Fatalf("a key's patch: %v", err)
	}
	e.now = t0.Add(time.Minute)
	if st, err = e.patch(t, e.fresh(), `{"wallet": {"paused": false, "limits": {"eth": {"daily": null}}}}`); err != nil {
		t.Fatalf("loosening from a fresh session: %v", err)
	}
	if st.Wallet.Paused || st.Wallet.Limits["ETH"].Daily != nil || *st.Wallet.Limits["ETH"].PerTransaction != "0.5" || st.Version != 2 {
		t.Fatalf("after loosening: %+v", st.Wallet)
	}
	page, err := e.svc.Activity(context.Background(), "acc", "", 10)
	if err != nil || len(page.Entries) != 2 || page.Entries[0].Kind != account.KindSettings ||
		!slices.Equal(page.Entries[0].Changes, []string{"wallet.paused", "wallet.limits.ETH"}) {
		t.Fatalf("activity: %+v, %v", page, err)
	}
}

// A relaxation raises the caps it names until it ends, then reads as none and the caps are back.
func TestRelaxationRevertsByItself(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	if _, err := e.patch(t, e.fresh(), `{"wallet": {"limits": {"ETH": {"perTransaction": "0.5", "daily": "2"}, "0x00000000000000000000000000000000000000A6": {"daily": "100"}}}}`); err != nil {
		t.Fatal(err)
	}
	st, err := e.patch(t, e.fresh(), `{"wallet": {"relax": {"minutes": 30, "limits": {"ETH": {"daily": "5"}}, "maxPriceImpact": 40}}}`)
	if err != nil {
		t.Fatal(err)
	}
	if x := st.Wallet.Relax; x == nil || x.Until != t0.Add(30*time.Minute).Unix() {
		t.Fatalf("relax: %+v", st.Wallet.Relax)
	}
	ether := func(s string) *uint256.Int { v, _ := curvekit.ParseAmount(s, 18); return &v }
	r, _ := e.svc.Rules(ctx, "acc")
	eth := r.Caps[common.Address{}]
	if !eth.Daily.Eq(ether("5")) || !eth.PerTransaction.Eq(ether("0.5")) || r.MaxPriceImpactBps != 4000 || r.RelaxedUntil.IsZero() {
		t.Fatalf("relaxed rules: %+v %+v", r, eth)
	}
	if usdCap := r.Caps[usd]; usdCap.Daily.Uint64() != 100_000_000 {
		t.Fatalf("TUSD cap: %+v", usdCap)
	}
	e.now = t0.Add(30 * time.Minute)
	r, _ = e.svc.Rules(ctx, "acc")
	if eth := r.Caps[common.Address{}]; !eth.Daily.Eq(ether("2")) || r.MaxPriceImpactBps != 1500 || !r.RelaxedUntil.IsZero() {
		t.Fatalf("rules after the relaxation: %+v", r)
	}
	if st, _ := e.svc.Settings(ctx, "acc"); st.Wallet.Relax != nil {
		t.Fatalf("an ended relaxation still reads: %+v", st.Wallet.Relax)
	}
}

// A recipient may receive once its cooldown has passed; one added again keeps its first cooldown.
func TestRecipientCooldown(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	st, err := e.patch(t, e.stale(), `{"wallet": {"recipients": {"0x1111111111111111111111111111111111111111": {}}}}`)
	if err != nil {
		t.Fatal(err)
	}
	rec := st.Wallet.Recipients["0x1111111111111111111111111111111111111111"]
	if rec.ActiveAt != t0.Add(24*time.Hour).Unix() {
		t.Fatalf("recipient: %+v", rec)
	}
	e.now = t0.Add(time.Hour)
	if _, err := e.patch(t, e.fresh(), `{"wallet": {"recipientCooldownHours": 0, "recipients": {"0x1111111111111111111111111111111111111111": {}, "0x2222222222222222222222222222222222222222": {}}}}`); err != nil {
		t.Fatal(err)
	}
	r, _ := e.svc.Rules(ctx, "acc")
	if got := r.Recipients[common.HexToAddress("0x1111111111111111111111111111111111111111")]; !got.Equal(t0.Add(24 * time.Hour)) {
		t.Fatalf("the first recipient's cooldown moved: %v", got)
	}
	if got := r.Recipients[common.HexToAddress("0x2222222222222222222222222222222222222222")]; !got.Equal(e.now) {
		t.Fatalf("the second recipient: %v", got)
	}
	// Removing one is tightening; removing the last lifts the restriction: loosening.
	if _, err := e.patch(t, e.stale(), `{"wallet": {"recipients": {"0x2222222222222222222222222222222222222222": null}}}`); err != nil {
		t.Fatal(err)
	}
	if _, err := e.patch(t, e.stale(), `{"wallet": {"recipients": null}}`); !errors.Is(err, curvekit.ErrForbidden) {
		t.Fatalf("removing the last recipient from an old session: %v", err)
	}
}

func TestAgentProfile(t *testing.T) {
	e := newEnv(t)
	st, err := e.patch(t, e.stale(), `{"agent": {"slippage": 2.5, "quote": "0x00000000000000000000000000000000000000a6", "maxTrade": {"ETH": "0.25"}, "tools": ["quote"]}}`)
	if err != nil {
		t.Fatal(err)
	}
	a := st.Agent
	if a.Slippage.String() != "2.5" || *a.Quote != usd.Hex() || a.MaxTrade["ETH"] != "0.25" || a.Tools == nil || !slices.Equal(*a.Tools, []string{"quote"}) {
		t.Fatalf("agent: %+v", a)
	}
	// The same patch again changes nothing and records nothing.
	again, _ := e.patch(t, e.stale(), `{"agent": {"slippage": 2.50}}`)
	if again.Version != 1 {
		t.Fatalf("an idle patch made version %d", again.Version)
	}
}
