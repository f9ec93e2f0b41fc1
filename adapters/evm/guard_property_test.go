package evm_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/holiman/uint256"

	"github.com/curvekit/curvekit"
	"github.com/curvekit/curvekit/account"
	"github.com/curvekit/curvekit/adapters/bunstore"
	"github.com/curvekit/curvekit/adapters/evm"
	"github.com/curvekit/curvekit/txbuild"
	"github.com/curvekit/curvekit/wallet"
)

// The account's guard against a model, on the devnet and on each database: random sends (taken,
// refused by the node, or lost on the way after reaching it), relaxations, recipients added and
// removed, caps changed and the clock moved by hours. Every send is signed exactly when the model
// says the settings allow it, with the model's refusal code otherwise; so no 24 hours ever hold
// more than the cap in force, a refused send gives its spend back once and a lost one keeps it,
// and a relaxation stops counting the moment it ends. wallet.Service.Check, the preview, gives each
// send's verdict before it is sent.
func TestGuardModel(t *testing.T) {
	t.Parallel()
	t.Run("sqlite", func(t *testing.T) {
		t.Parallel()
		testGuardModel(t, filepath.Join(t.TempDir(), "curvekit.db"), 1)
	})
	t.Run("postgres", func(t *testing.T) {
		t.Parallel()
		testGuardModel(t, postgresSchema(t), 2)
	})
}

// sendMode is what happens to a send at the node.
type sendMode int

const (
	taken   sendMode = iota
	refused          // the node refuses it: it never reached the chain
	lost             // it reached the node, but the answer was lost
)

// flaky is the broadcaster whose next send meets mode.
type flaky struct {
	*evm.Broadcaster
	mode  sendMode
	sends int
}

func (f *flaky) Send(ctx context.Context, tx *types.Transaction) error {
	f.sends++
	switch f.mode {
	case refused:
		return fmt.Errorf("%w: the chain refused the transaction: replacement transaction underpriced", curvekit.ErrInvalid)
	case lost:
		if err := f.Broadcaster.Send(ctx, tx); err != nil {
			return err
		}
		return errors.New("evm: send: connection reset by peer")
	}
	return f.Broadcaster.Send(ctx, tx)
}

// guardModel is what the account's settings and the wallet's spends should be.
type guardModel struct {
	perTx, daily uint64
	relax        *struct {
		until        int64
		perTx, daily uint64
	}
	recipients map[common.Address]time.Time // activeAt
	spends     []struct {
		at     time.Time
		amount uint64
	}
}

// caps are the caps in force at now.
func (m *guardModel) caps(now time.Time) (perTx, daily uint64) {
	if m.relax != nil && now.Unix() < m.relax.until {
		return m.relax.perTx, m.relax.daily
	}
	return m.perTx, m.daily
}

// verdict is the code a send of amount to r at now meets, "" when it is allowed.
func (m *guardModel) verdict(now time.Time, r common.Address, amount uint64) curvekit.Code {
	if len(m.recipients) > 0 {
		active, ok := m.recipients[r]
		switch {
		case !ok:
			return curvekit.CodeRecipientNotAllowed
		case now.Before(active):
			return curvekit.CodeRecipientCoolingDown
		}
	}
	perTx, daily := m.caps(now)
	if amount > perTx {
		return curvekit.CodePerTxLimitExceeded
	}
	var spent uint64
	for _, s := range m.spends {
		if !s.at.Before(now.Add(-wallet.DailyWindow)) {
			spent += s.amount
		}
	}
	if spent+amount > daily {
		return curvekit.CodeDailyLimitExceeded
	}
	return ""
}

func testGuardModel(t *testing.T, dsn string, seed uint64) {
	h := newHarness(t)
	ctx := h.ctx
	db, err := bunstore.Open(ctx, bunstore.Config{DSN: dsn})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	now := time.Date(2026, 11, 26, 0, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	settings, err := account.New(account.Config{Store: db.AccountSettings(), Now: clock,
		Assets: account.AssetsFunc(func(context.Context) ([]account.Asset, error) {
			return []account.Asset{{Symbol: "ETH", Decimals: 18}}, nil
		})})
	if err != nil {
		t.Fatal(err)
	}
	ring, err := wallet.OpenKeyring(wallet.KeyringConfig{File: filepath.Join(t.TempDir(), "master.key"), Create: true})
	if err != nil {
		t.Fatal(err)
	}
	bc, err := evm.NewBroadcaster(evm.BroadcastConfig{Client: h.dev.Client})
	if err != nil {
		t.Fatal(err)
	}
	node := &flaky{Broadcaster: bc}
	svc, err := wallet.New(wallet.Config{Store: db.Wallets(), Broadcaster: node, Keys: ring, Now: clock,
		Guard: settings, Markets: marketsFunc(noMarket)})
	if err != nil {
		t.Fatal(err)
	}
	const acct = "acct-model"
	self, err := svc.Create(ctx, acct)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.dev.Send(ctx, h.dev.Accounts[6].Key, &self, wei(1), nil); err != nil {
		t.Fatal(err)
	}
	weiStr := func(n uint64) string { return curvekit.FormatAmount(uint256.NewInt(n), 18) }
	patch := func(p string) {
		t.Helper()
		if _, err := settings.Update(ctx, account.UpdateParams{AccountID: acct, Patch: []byte(p), Actor: account.Actor{SignedInAt: now}}); err != nil {
			t.Fatalf("patch %s: %v", p, err)
		}
	}
	m := &guardModel{perTx: 400, daily: 1000, recipients: map[common.Address]time.Time{}}
	patch(fmt.Sprintf(`{"wallet":{"limits":{"ETH":{"perTransaction":%q,"daily":%q}},"recipientCooldownHours":1}}`, weiStr(m.perTx), weiStr(m.daily)))
	to := []common.Address{h.dev.Accounts[4].Address, h.dev.Accounts[5].Address, common.HexToAddress("0x00000000000000000000000000000000000000c0")}
	rng := rand.New(rand.NewPCG(seed, 32))
	var signed, refusedByGuard, relaxed, expired int
	codes := map[curvekit.Code]int{}
	for step := range 200 {
		switch op := rng.IntN(17); {
		case op < 9: // a send
			r, amount := to[rng.IntN(len(to))], uint64(1+rng.IntN(300))
			for _, a := range to {
				if _, listed := m.recipients[a]; listed && rng.IntN(4) > 0 {
					r = a // mostly to a listed one, so the caps are what decides
				}
			}
			node.mode = []sendMode{taken, taken, taken, taken, refused, lost}[rng.IntN(6)]
			want := m.verdict(now, r, amount)
			tx := wallet.Tx{To: r, Value: *uint256.NewInt(amount), ChainID: h.dev.ChainID.Uint64(), Gas: 21_000}
			// The preview that build-tx's issues show gives the send's verdict, before it.
			preview, err := svc.Check(ctx, acct, []wallet.Tx{tx})
			if err != nil || len(preview) != 1 || curvekit.CodeOf(preview[0]) != want {
				t.Fatalf("step %d: %d wei to %s at %s: Check %v (%v), want %q", step, amount, r.Hex(), now, preview, err, want)
			}
			before := node.sends
			_, err = svc.SignAndSubmit(ctx, wallet.SignParams{AccountID: acct, KeyID: "k1", Tx: tx})
			reached := node.sends > before
			switch {
			case want != "":
				if got := curvekit.CodeOf(err); got != want || reached {
					t.Fatalf("step %d: %d wei to %s at %s: %v (code %q, reached the node %v), want %s",
						step, amount, r.Hex(), now, err, got, reached, want)
				}
				refusedByGuard++
				codes[want]++
			case !reached:
				t.Fatalf("step %d: %d wei to %s at %s allowed by the model, refused: %v", step, amount, r.Hex(), now, err)
			case node.mode == taken && err != nil, node.mode != taken && err == nil:
				t.Fatalf("step %d: a send %v answered %v", step, node.mode, err)
			}
			if want == "" && node.mode != refused {
				m.spends = append(m.spends, struct {
					at     time.Time
					amount uint64
				}{now, amount})
				signed++
			}
			if rng.IntN(3) == 0 {
				h.dev.Mine()
			}
		case op < 10: // a relaxation
			minutes := account.RelaxMinutes[rng.IntN(len(account.RelaxMinutes))]
			perTx, daily := uint64(200+rng.IntN(400)), uint64(600+rng.IntN(900))
			patch(fmt.Sprintf(`{"wallet":{"relax":{"minutes":%d,"limits":{"ETH":{"perTransaction":%q,"daily":%q}}}}}`, minutes, weiStr(perTx), weiStr(daily)))
			m.relax = &struct {
				until        int64
				perTx, daily uint64
			}{now.Add(time.Duration(minutes) * time.Minute).Unix(), perTx, daily}
			relaxed++
		case op < 11: // the caps change
			m.perTx, m.daily = uint64(150+rng.IntN(350)), uint64(300+rng.IntN(600))
			patch(fmt.Sprintf(`{"wallet":{"limits":{"ETH":{"perTransaction":%q,"daily":%q}}}}`, weiStr(m.perTx), weiStr(m.daily)))
		case op < 12: // a recipient added
			r := to[rng.IntN(len(to))]
			patch(fmt.Sprintf(`{"wallet":{"recipients":{%q:{}}}}`, r.Hex()))
			if _, ok := m.recipients[r]; !ok {
				m.recipients[r] = time.Unix(now.Add(time.Hour).Unix(), 0)
			}
		case op < 13: // a recipient removed
			r := to[rng.IntN(len(to))]
			patch(fmt.Sprintf(`{"wallet":{"recipients":{%q:null}}}`, r.Hex()))
			delete(m.recipients, r)
		case op < 15: // a recent nonce given back again releases nothing recorded
			if err := db.Wallets().ReleaseNonce(ctx, mustWallet(t, db, acct).ID, uint64(max(signed-rng.IntN(3), 0))); err != nil {
				t.Fatal(err)
			}
		default: // the clock moves
			if m.relax != nil && now.Unix() < m.relax.until {
				expired++
			}
			now = now.Add(time.Duration(rng.IntN(8*60)) * time.Minute)
		}
		// The relaxation reverts by itself: the rules in force are the model's.
		rules, err := settings.Rules(ctx, acct)
		if err != nil {
			t.Fatal(err)
		}
		perTx, daily := m.caps(now)
		eth := rules.Caps[common.Address{}]
		if eth.PerTransaction.Uint64() != perTx || eth.Daily.Uint64() != daily || rules.RelaxedUntil.IsZero() != (perTx == m.perTx && daily == m.daily && (m.relax == nil || now.Unix() >= m.relax.until)) {
			t.Fatalf("step %d at %s: rules %v/%v relaxed until %v, want %d/%d", step, now, eth.PerTransaction, eth.Daily, rules.RelaxedUntil, perTx, daily)
		}
	}
	t.Logf("%d sends signed, refusals by the guard %v, %d relaxations, %d clock moves during one", signed, codes, relaxed, expired)
	if signed < 20 || codes[curvekit.CodeDailyLimitExceeded] < 5 || codes[curvekit.CodePerTxLimitExceeded] < 5 || relaxed < 3 || expired < 1 {
		t.Fatalf("the walk did too little: %d signed, refusals %v, %d relaxations, %d clock moves during one", signed, codes, relaxed, expired)
	}
}

// noMarket knows no market: every address is a plain one.
func noMarket(_ context.Context, a common.Address) (txbuild.Market, error) {
	return txbuild.Market{}, fmt.Errorf("%w: %s", curvekit.ErrNotFound, a.Hex())
}

type marketsFunc func(context.Context, common.Address) (txbuild.Market, error)

func (f marketsFunc) MarketOf(ctx context.Context, a common.Address) (txbuild.Market, error) {
	return f(ctx, a)
}

func mustWallet(t *testing.T, db *bunstore.DB, acct string) wallet.Wallet {
	t.Helper()
	w, err := db.Wallets().WalletByAccount(context.Background(), acct)
	if err != nil {
		t.Fatal(err)
	}
	return w
}
