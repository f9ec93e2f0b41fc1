package evm_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/big"
	"math/rand/v2"
	"path/filepath"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/holiman/uint256"

	"github.com/curvekit/curvekit"
	"github.com/curvekit/curvekit/adapters/bunstore"
	"github.com/curvekit/curvekit/adapters/evm"
	"github.com/curvekit/curvekit/adapters/evm/devnet"
	"github.com/curvekit/curvekit/adapters/ipfs"
	"github.com/curvekit/curvekit/launch"
	"github.com/curvekit/curvekit/market"
	"github.com/curvekit/curvekit/txbuild"
)

// launchEnv is a devnet with a launch fee, an indexer on SQLite and the launch service.
type launchEnv struct {
	*harness
	ix  *market.Indexer
	svc *launch.Service
	pro devnet.Account
	// cfg is what svc was made of.
	cfg launch.Config
}

var launchFee = big.NewInt(1e16) // 0.01 ETH

func newLaunchEnv(t *testing.T) *launchEnv {
	t.Helper()
	ctx := context.Background()
	dev, err := devnet.Start(devnet.Config{Accounts: 8, LaunchFee: launchFee})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { dev.Close() })
	chain, err := evm.New(evm.Config{Client: dev.Client, Factory: dev.Addrs.Factory})
	if err != nil {
		t.Fatal(err)
	}
	// The devnet seals blocks faster than one a second: its clock is the head's.
	clock := func() time.Time {
		head, err := chain.Head(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		return time.Unix(head.Time, 0)
	}
	h := &harness{t: t, ctx: ctx, dev: dev, chain: chain}
	h.builder, err = txbuild.New(txbuild.Config{ChainID: dev.ChainID.Uint64(), Factory: dev.Addrs.Factory, Router: dev.Addrs.Router, WETH: dev.Addrs.WETH, Now: clock})
	if err != nil {
		t.Fatal(err)
	}
	db, err := bunstore.Open(ctx, bunstore.Config{DSN: filepath.Join(t.TempDir(), "launch.db")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	ix, err := market.NewIndexer(ctx, market.IndexerConfig{Chain: chain, Store: db.Market(), Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	pins, err := ipfs.NewStore(ipfs.StoreConfig{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	pro := dev.Accounts[5]
	cfg := launch.Config{
		Store: db.Launch(), Pinner: pins, Builder: h.builder, Chain: chain,
		Tiers:          launch.StaticTiers{Pro: map[common.Address]bool{pro.Address: true}},
		LaunchesPerDay: map[curvekit.Tier]int{curvekit.TierFree: 2, curvekit.TierPro: 3},
		Now:            clock,
	}
	svc, err := launch.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	e := &launchEnv{harness: h, ix: ix, svc: svc, pro: pro, cfg: cfg}
	e.sync()
	return e
}

// launchToken launches through the service's composed plan, as a wallet would.
func (e *launchEnv) launchToken(creator devnet.Account, quote common.Address, name string) token {
	e.t.Helper()
	plan, err := e.svc.ComposeLaunch(e.ctx, launch.LaunchParams{From: creator.Address, Name: name, Symbol: name[:3], URI: "https://metadata.example/" + name, Quote: quote})
	if err != nil {
		e.t.Fatal(err)
	}
	rcpt, err := e.sendPlan(creator, &plan)
	if err != nil {
		e.t.Fatalf("launch %s: %v", name, err)
	}
	evs := e.events(rcpt, []market.EventKind{market.EventLaunched}, e.dev.Addrs.Factory)
	if len(evs) != 1 {
		e.t.Fatalf("launch %s: %d Launched events", name, len(evs))
	}
	info, err := e.chain.Launch(e.ctx, evs[0].Launched.Token)
	if err != nil {
		e.t.Fatal(err)
	}
	return token{addr: evs[0].Launched.Token, curve: evs[0].Launched.Curve, quote: quote, params: info.Params}
}

func (e *launchEnv) sync() {
	e.t.Helper()
	if _, err := e.ix.Sync(e.ctx); err != nil {
		e.t.Fatal(err)
	}
}

// Creator fees of an ETH- and a TUSD-paired token after random trades equal what each curve holds
// to the wei; a claim composed for another wallet is refused; the creator's claim, once mined and
// indexed, leaves nothing claimable and shows in the earnings as claimed.
func TestLaunchCreatorFeesMatchChain(t *testing.T) {
	t.Parallel()
	e := newLaunchEnv(t)
	creator := e.dev.Accounts[7]
	toks := []token{e.launchToken(creator, common.Address{}, "EthFees"), e.launchToken(creator, e.dev.Addrs.USD, "UsdFees")}
	rng := rand.New(rand.NewPCG(9, 9))
	traders := e.dev.Accounts[2:5]
	for range 16 {
		tk := &toks[rng.IntN(len(toks))]
		acc := traders[rng.IntN(len(traders))]
		bal := e.balance(tk.addr, acc.Address)
		if rng.IntN(3) == 0 && !bal.IsZero() {
			var amt uint256.Int
			amt.Div(&bal, uint256.NewInt(uint64(2+rng.IntN(5))))
			e.tradeAndCheck(acc, tk, curvekit.Sell, amt)
			continue
		}
		var amt uint256.Int
		amt.Div(&tk.params.GraduationQuote, uint256.NewInt(uint64(100+rng.IntN(400))))
		amt.AddUint64(&amt, rng.Uint64N(1_000_000_007))
		e.tradeAndCheck(acc, tk, curvekit.Buy, amt)
	}
	e.sync()

	check := func(wantZero bool) map[common.Address]uint256.Int {
		t.Helper()
		fees, err := e.svc.CreatorFees(e.ctx, creator.Address)
		if err != nil {
			t.Fatal(err)
		}
		got := map[common.Address]uint256.Int{}
		for _, a := range fees {
			var sum uint256.Int
			for _, tc := range a.Tokens {
				if tc.Token.Quote.Address != a.Quote.Address {
					t.Fatalf("token %s paired with %s listed under %s", tc.Token.Address, tc.Token.Quote.Address, a.Quote.Address)
				}
				got[tc.Token.Address] = tc.Claimable
				sum.Add(&sum, &tc.Claimable)
			}
			eq(t, "asset claimable is the sum of its tokens", &a.Claimable, &sum)
		}
		for _, tk := range toks {
			onChain, err := e.chain.CreatorFeesAccrued(e.ctx, tk.curve)
			if err != nil {
				t.Fatal(err)
			}
			c := got[tk.addr]
			eq(t, "claimable vs curve's creatorFeesAccrued", &c, &onChain)
			if wantZero != onChain.IsZero() {
				t.Fatalf("token %s accrued %s, want zero: %v", tk.addr, onChain.Dec(), wantZero)
			}
		}
		return got
	}
	before := check(false)

	// Anyone but the creator is refused before a transaction exists.
	if _, err := e.svc.ComposeClaim(e.ctx, launch.ClaimParams{From: traders[0].Address, Token: toks[0].addr}); !errors.Is(err, launch.ErrNotCreator) || !errors.Is(err, curvekit.ErrForbidden) {
		t.Fatalf("claim by a trader: %v, want ErrNotCreator", err)
	}
	if _, err := e.svc.ComposeClaim(e.ctx, launch.ClaimParams{From: creator.Address, Token: common.HexToAddress("0x1234")}); !errors.Is(err, curvekit.ErrNotFound) {
		t.Fatalf("claim of an unknown token: %v", err)
	}
	for _, tk := range toks {
		c, err := e.svc.ComposeClaim(e.ctx, launch.ClaimParams{From: creator.Address, Token: tk.addr})
		if err != nil {
			t.Fatal(err)
		}
		want := before[tk.addr]
		eq(t, "composed claim's amount", &c.Claimable, &want)
		balBefore := e.balance(tk.quote, creator.Address)
		rcpt, err := e.send(creator, &c.Tx)
		if err != nil {
			t.Fatalf("claim: %v", err)
		}
		balAfter := e.balance(tk.quote, creator.Address)
		if tk.quote == (common.Address{}) {
			g := gasCost(rcpt)
			balAfter.Add(&balAfter, &g)
		}
		var paid uint256.Int
		paid.Sub(&balAfter, &balBefore)
		eq(t, "claim paid the creator", &paid, &want)
	}
	e.sync()
	check(true)
	for _, tk := range toks {
		if _, err := e.svc.ComposeClaim(e.ctx, launch.ClaimParams{From: creator.Address, Token: tk.addr}); !errors.Is(err, curvekit.ErrInvalid) {
			t.Fatalf("second claim with nothing accrued: %v, want ErrInvalid", err)
		}
	}

	// Earnings: everything happened within the last two days of the chain's clock.
	ern, err := e.svc.Earnings(e.ctx, launch.EarningsParams{Wallet: creator.Address, Days: 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(ern.Assets) != 2 || ern.Assets[0].Quote.Address != (common.Address{}) || ern.Assets[1].Quote.Address != e.dev.Addrs.USD {
		t.Fatalf("earnings assets %+v, want ETH then TUSD", ern.Assets)
	}
	for i, a := range ern.Assets {
		want := before[toks[i].addr]
		eq(t, a.Quote.Symbol+" earned", &a.Earned, &want)
		eq(t, a.Quote.Symbol+" claimed", &a.Claimed, &want)
		var se, sc uint256.Int
		for _, p := range a.Series {
			se.Add(&se, &p.Earned)
			sc.Add(&sc, &p.Claimed)
		}
		eq(t, "series earned sums to the total", &se, &a.Earned)
		eq(t, "series claimed sums to the total", &sc, &a.Claimed)
		if len(a.Series) != 2 {
			t.Fatalf("%d days in a 2-day series", len(a.Series))
		}
	}
}

// The daily cap by tier is checked when a launch is composed; the estimate is the launch's cost.
func TestLaunchDailyLimitAndEstimate(t *testing.T) {
	t.Parallel()
	e := newLaunchEnv(t)
	free := e.dev.Accounts[6]
	meta, _, err := e.svc.UploadMetadata(e.ctx, launch.Metadata{Name: "Capped", Symbol: "CAP"})
	if err != nil {
		t.Fatal(err)
	}

	est, err := e.svc.EstimateFee(e.ctx, free.Address)
	if err != nil {
		t.Fatal(err)
	}
	fee := uint256.MustFromBig(launchFee)
	eq(t, "estimate's launch fee", &est.LaunchFee, fee)
	var total uint256.Int
	total.Mul(&est.GasPrice, uint256.NewInt(est.Gas))
	total.Add(&total, fee)
	eq(t, "estimate total", &est.Total, &total)
	// An empty wallet cannot pay the launch fee: the estimate says so.
	if _, err := e.svc.EstimateFee(e.ctx, common.HexToAddress("0x00000000000000000000000000000000000e0001")); !errors.Is(err, curvekit.ErrInvalid) {
		t.Fatalf("estimate from an empty wallet: %v, want ErrInvalid", err)
	}

	launchOnce := func(acc devnet.Account, n int) error {
		t.Helper()
		plan, err := e.svc.ComposeLaunch(e.ctx, launch.LaunchParams{From: acc.Address, Name: "Capped", Symbol: "CAP", URI: meta.URI})
		if err != nil {
			return err
		}
		if plan.Tx.Gas == 0 || plan.Tx.Gas > est.Gas*2 || !plan.Tx.Value.Eq(fee) {
			t.Fatalf("plan gas %d value %s, estimate %d", plan.Tx.Gas, plan.Tx.Value.Dec(), est.Gas)
		}
		rcpt, err := e.sendPlan(acc, &plan)
		if err != nil {
			t.Fatalf("launch %d: %v", n, err)
		}
		if rcpt.GasUsed > est.Gas {
			t.Fatalf("launch used %d gas, estimate %d", rcpt.GasUsed, est.Gas)
		}
		e.sync()
		return nil
	}
	for n := range 2 {
		lim, err := e.svc.DailyLimit(e.ctx, free.Address)
		if err != nil {
			t.Fatal(err)
		}
		if lim.Tier != curvekit.TierFree || lim.Limit != 2 || lim.Used != n || lim.Remaining != 2-n || !lim.CanLaunch {
			t.Fatalf("before launch %d: %+v", n, lim)
		}
		if err := launchOnce(free, n); err != nil {
			t.Fatal(err)
		}
	}
	lim, err := e.svc.DailyLimit(e.ctx, free.Address)
	if err != nil {
		t.Fatal(err)
	}
	if lim.Used != 2 || lim.Remaining != 0 || lim.CanLaunch || !lim.ResetsAt.After(time.Unix(0, 0)) || lim.ResetsAt.Hour() != 0 || lim.ResetsAt.Location() != time.UTC {
		t.Fatalf("after 2 launches: %+v", lim)
	}
	if err := launchOnce(free, 2); !errors.Is(err, launch.ErrDailyLimit) || !errors.Is(err, curvekit.ErrLimited) {
		t.Fatalf("third launch of a free wallet: %v, want ErrDailyLimit", err)
	}
	// The pro tier's cap is higher.
	for n := range 3 {
		if err := launchOnce(e.pro, n); err != nil {
			t.Fatalf("pro launch %d: %v", n, err)
		}
	}
	if err := launchOnce(e.pro, 3); !errors.Is(err, launch.ErrDailyLimit) {
		t.Fatalf("fourth launch of a pro wallet: %v, want ErrDailyLimit", err)
	}
	// A day later the count starts again.
	if err := e.dev.AdjustTime(24 * time.Hour); err != nil {
		t.Fatal(err)
	}
	e.dev.Mine()
	if err := launchOnce(free, 3); err != nil {
		t.Fatalf("launch the next day: %v", err)
	}
}

// A TUSD-paired launch with a first buy is composed with the approval the factory needs to pull
// the buy; sent in order, it launches and leaves the creator holding the first buy's tokens.
func TestLaunchComposedWithFirstBuy(t *testing.T) {
	t.Parallel()
	e := newLaunchEnv(t)
	creator := e.dev.Accounts[3]
	first := *uint256.NewInt(250_000_000) // 250 TUSD
	plan, err := e.svc.ComposeLaunch(e.ctx, launch.LaunchParams{From: creator.Address, Name: "First Buy", Symbol: "FBUY",
		URI: "https://metadata.example/fbuy.json", Quote: e.dev.Addrs.USD, InitialBuy: first})
	if err != nil {
		t.Fatal(err)
	}
	if plan.Approval == nil || plan.Approval.To != e.dev.Addrs.USD || plan.Tx.Gas != 0 || !plan.Tx.Value.Eq(uint256.MustFromBig(launchFee)) {
		t.Fatalf("plan %+v: want an approval of TUSD, no estimate before it, the launch fee as value", plan)
	}
	rcpt, err := e.sendPlan(creator, &plan)
	if err != nil {
		t.Fatal(err)
	}
	evs := e.events(rcpt, []market.EventKind{market.EventLaunched}, e.dev.Addrs.Factory)
	if len(evs) != 1 {
		t.Fatalf("%d Launched events", len(evs))
	}
	if bal := e.balance(evs[0].Launched.Token, creator.Address); bal.IsZero() {
		t.Fatal("the creator holds none of the first buy's tokens")
	}
	e.sync()
	lim, err := e.svc.DailyLimit(e.ctx, creator.Address)
	if err != nil || lim.Used != 1 {
		t.Fatalf("daily limit after the launch: %+v, %v", lim, err)
	}
}

// downAtEstimate is the chain whose node stops answering between the launch fee's read and the
// gas estimate.
type downAtEstimate struct{ launch.Chain }

func (downAtEstimate) EstimateGas(context.Context, *txbuild.Tx) (uint64, error) {
	return 0, fmt.Errorf("evm: estimate gas: %w", curvekit.ErrUnavailable)
}

// A node that stops answering during the estimate is the node's outage (503), not a launch that
// fails (400).
func TestEstimateFeeWhenTheNodeGoesAway(t *testing.T) {
	e := newLaunchEnv(t)
	cfg := e.cfg
	cfg.Chain = downAtEstimate{cfg.Chain}
	svc, err := launch.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.EstimateFee(e.ctx, e.pro.Address); !errors.Is(err, curvekit.ErrUnavailable) || errors.Is(err, curvekit.ErrInvalid) {
		t.Fatalf("estimate with the node gone: %v, want ErrUnavailable", err)
	}
}
