package wallettest

import (
	"context"
	"errors"
	"math/big"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/holiman/uint256"

	"github.com/curvekit/curvekit/wallet"
)

// RunSpends runs the suite's tests of the account's daily caps (ReserveNonce with Spend, and the
// releases of ReleaseNonce and SettleTransaction); Run runs them too.
func RunSpends(t *testing.T, newStore func(t *testing.T) wallet.Store) {
	t.Run("DailyCaps", func(t *testing.T) { t.Parallel(); testSpends(t, newStore(t)) })
	t.Run("SettlementReleasesOnce", func(t *testing.T) { t.Parallel(); testSpendSettle(t, newStore(t)) })
	t.Run("ConcurrentSpendsKeepTheCap", func(t *testing.T) { t.Parallel(); testSpendRace(t, newStore(t)) })
	t.Run("SpentReadsTheWindow", func(t *testing.T) { t.Parallel(); testSpent(t, newStore(t)) })
}

// Spent reads what ReserveNonce counts: recorded spends in the window, by asset, without the
// held approvals, the released ones or another wallet's.
func testSpent(t *testing.T, s wallet.Store) {
	ctx := context.Background()
	w := create(t, s, newWallet("sue", 1))
	other := create(t, s, newWallet("sid", 2))
	eth := func(n uint64) wallet.Spend { return wallet.Spend{Amount: units(n)} }
	want := func(what string, since time.Time, ethWant, usdWant uint64) {
		t.Helper()
		got, err := s.Spent(ctx, w.ID, since)
		if err != nil {
			t.Fatal(err)
		}
		e, u := got[common.Address{}], got[usd]
		if e.Uint64() != ethWant || u.Uint64() != usdWant || len(got) > 2 {
			t.Fatalf("%s: spent %v, want %d ETH and %d TUSD", what, got, ethWant, usdWant)
		}
	}
	want("nothing yet", at.Add(-wallet.DailyWindow), 0, 0)
	n1, err := reserveSpend(s, w.ID, quota(at, 100, eth(6), wallet.Spend{Asset: usd, Amount: units(7)}))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := reserveSpend(s, w.ID, quota(at.Add(time.Minute), 100, eth(3), wallet.Spend{Amount: units(50), CheckOnly: true})); err != nil {
		t.Fatal(err)
	}
	if _, err := reserveSpend(s, other.ID, quota(at, 100, eth(40))); err != nil {
		t.Fatal(err)
	}
	want("both sends", at.Add(-wallet.DailyWindow), 9, 7)
	want("since the second", at.Add(time.Second), 3, 0)
	if err := s.ReleaseNonce(ctx, w.ID, n1); err != nil {
		t.Fatal(err)
	}
	want("the first released", at.Add(-wallet.DailyWindow), 3, 0)
}

var usd = common.HexToAddress("0x00000000000000000000000000000000000000a6")

func units(n uint64) uint256.Int { return *uint256.NewInt(n) }

// quota spends amounts (ETH first, then TUSD) at now under daily caps of ethCap (and none on TUSD).
func quota(now time.Time, ethCap uint64, spends ...wallet.Spend) *wallet.SpendQuota {
	c := uint256.NewInt(ethCap)
	return &wallet.SpendQuota{Spends: spends, Daily: map[common.Address]*uint256.Int{{}: c}, Since: now.Add(-wallet.DailyWindow), At: now}
}

func reserveSpend(s wallet.Store, walletID string, q *wallet.SpendQuota) (uint64, error) {
	return s.ReserveNonce(context.Background(), wallet.ReserveNonceParams{WalletID: walletID, Spend: q, At: q.At})
}

func wantOver(t *testing.T, err error, spent, amount, cap uint64) {
	t.Helper()
	var over *wallet.SpendLimitError
	if !errors.As(err, &over) || over.Spent.Uint64() != spent || over.Amount.Uint64() != amount || over.Cap.Uint64() != cap || over.Asset != (common.Address{}) {
		t.Fatalf("err = %v (%+v), want a SpendLimitError of %d spent, %d more, cap %d", err, over, spent, amount, cap)
	}
}

func testSpends(t *testing.T, s wallet.Store) {
	ctx := context.Background()
	w := create(t, s, newWallet("sam", 1))
	eth := func(n uint64) wallet.Spend { return wallet.Spend{Amount: units(n)} }
	// 6 of a cap of 10, and TUSD without a cap: recorded, never refused.
	n1, err := reserveSpend(s, w.ID, quota(at, 10, eth(6), wallet.Spend{Asset: usd, Amount: units(1 << 60)}))
	if err != nil {
		t.Fatal(err)
	}
	// Two spends of one transaction count together.
	_, err = reserveSpend(s, w.ID, quota(at, 10, eth(3), eth(2)))
	wantOver(t, err, 6, 5, 10)
	// A held approval counts in the check and is not recorded.
	_, err = reserveSpend(s, w.ID, quota(at, 10, wallet.Spend{Amount: units(5), CheckOnly: true}))
	wantOver(t, err, 6, 5, 10)
	if _, err := reserveSpend(s, w.ID, quota(at, 10, wallet.Spend{Amount: units(4), CheckOnly: true})); err != nil {
		t.Fatalf("a held approval within the cap: %v", err)
	}
	n3, err := reserveSpend(s, w.ID, quota(at, 10, eth(4)))
	if err != nil {
		t.Fatalf("up to the cap exactly: %v", err)
	}
	_, err = reserveSpend(s, w.ID, quota(at, 10, eth(1)))
	wantOver(t, err, 10, 1, 10)
	// A refused send's nonce gives its spend back, once.
	if err := s.ReleaseNonce(ctx, w.ID, n1); err != nil {
		t.Fatal(err)
	}
	if err := s.ReleaseNonce(ctx, w.ID, n1); err != nil {
		t.Fatal(err)
	}
	again, err := reserveSpend(s, w.ID, quota(at, 10, eth(5)))
	if err != nil || again != n1 {
		t.Fatalf("after the release: nonce %d, %v; want the released %d", again, err, n1)
	}
	_, err = reserveSpend(s, w.ID, quota(at, 10, eth(2)))
	wantOver(t, err, 9, 2, 10)
	// Releasing the reused nonce releases its new spend, not the old one twice.
	if err := s.ReleaseNonce(ctx, w.ID, again); err != nil {
		t.Fatal(err)
	}
	_, err = reserveSpend(s, w.ID, quota(at, 10, eth(7)))
	wantOver(t, err, 4, 7, 10)
	// The window rolls: 24 hours after the first spends they no longer count.
	later := at.Add(wallet.DailyWindow + time.Nanosecond)
	if _, err := reserveSpend(s, w.ID, quota(later, 10, eth(10))); err != nil {
		t.Fatalf("a day later: %v", err)
	}
	_, err = reserveSpend(s, w.ID, quota(later, 10, eth(1)))
	wantOver(t, err, 10, 1, 10)
	_ = n3
}

// A failed or dropped transaction releases its spends, once; a mined one keeps them.
func testSpendSettle(t *testing.T, s wallet.Store) {
	ctx := context.Background()
	w := create(t, s, newWallet("tia", 1))
	var ids []string
	for i := range 3 {
		tx := sentTx(w, uint64(i), at.Add(time.Duration(i)*time.Second))
		q := quota(at, 9, wallet.Spend{Amount: units(3)})
		q.TxID = tx.ID
		if n, err := reserveSpend(s, w.ID, q); err != nil || n != uint64(i) {
			t.Fatalf("reservation %d: nonce %d, %v", i, n, err)
		}
		if err := s.RecordTransaction(ctx, tx); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, tx.ID)
	}
	// A recorded transaction's nonce given back keeps its spends: it may still be mined.
	if err := s.ReleaseNonce(ctx, w.ID, 2); err != nil {
		t.Fatal(err)
	}
	_, err := reserveSpend(s, w.ID, quota(at, 9, wallet.Spend{Amount: units(1)}))
	wantOver(t, err, 9, 1, 9)
	mined := wallet.SettleTxParams{ID: ids[0], State: wallet.TxMined, Hash: sentTx(w, 0, at).Hash, Block: 5, GasUsed: 21000, GasPrice: big.NewInt(1), At: at}
	failed := wallet.SettleTxParams{ID: ids[1], State: wallet.TxFailed, Hash: sentTx(w, 1, at).Hash, Block: 5, GasUsed: 21000, GasPrice: big.NewInt(1), At: at}
	dropped := wallet.SettleTxParams{ID: ids[2], State: wallet.TxDropped, At: at}
	if err := s.SettleTransaction(ctx, mined); err != nil {
		t.Fatal(err)
	}
	_, err = reserveSpend(s, w.ID, quota(at, 9, wallet.Spend{Amount: units(1)}))
	wantOver(t, err, 9, 1, 9)
	if err := s.SettleTransaction(ctx, failed); err != nil {
		t.Fatal(err)
	}
	if err := s.SettleTransaction(ctx, failed); err == nil {
		t.Fatal("a transaction settled twice")
	}
	if err := s.SettleTransaction(ctx, dropped); err != nil {
		t.Fatal(err)
	}
	_, err = reserveSpend(s, w.ID, quota(at, 9, wallet.Spend{Amount: units(7)}))
	wantOver(t, err, 3, 7, 9)
}

// Thirty reservations at once, each a tenth of the cap and some given back, never hold more than
// the cap, to the unit.
func testSpendRace(t *testing.T, s wallet.Store) {
	ctx := context.Background()
	w := create(t, s, newWallet("uma", 1))
	const n, each, capUnits = 30, 1_000_000_000_000_000_001, 10_000_000_000_000_000_009
	var wg sync.WaitGroup
	held := make([]bool, n)
	errs := make([]error, n)
	for i := range n {
		wg.Go(func() {
			nonce, err := reserveSpend(s, w.ID, quota(at, capUnits, wallet.Spend{Amount: units(each)}))
			var over *wallet.SpendLimitError
			switch {
			case errors.As(err, &over):
			case err != nil:
				errs[i] = err
			case i%5 == 0:
				errs[i] = s.ReleaseNonce(ctx, w.ID, nonce)
			default:
				held[i] = true
			}
		})
	}
	wg.Wait()
	count := 0
	for i := range n {
		if errs[i] != nil {
			t.Fatalf("reservation %d: %v", i, errs[i])
		}
		if held[i] {
			count++
		}
	}
	if count > capUnits/each {
		t.Fatalf("%d spends of %d held under a cap of %d", count, uint64(each), uint64(capUnits))
	}
	// What is left is exactly what the held ones leave.
	left := capUnits - uint64(count)*each
	if _, err := reserveSpend(s, w.ID, quota(at, capUnits, wallet.Spend{Amount: units(left)})); err != nil {
		t.Fatalf("the rest of the cap (%d): %v", left, err)
	}
	_, err := reserveSpend(s, w.ID, quota(at, capUnits, wallet.Spend{Amount: units(1)}))
	wantOver(t, err, capUnits, 1, capUnits)
}
