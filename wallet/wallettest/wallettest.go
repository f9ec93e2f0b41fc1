// Package wallettest is the conformance suite of wallet.Store: every implementation runs it (on
// each database it supports) and must pass unchanged.
package wallettest

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"math/big"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/holiman/uint256"

	"github.com/curvekit/curvekit"
	"github.com/curvekit/curvekit/wallet"
)

// Run runs the suite; newStore returns an empty store that t owns.
func Run(t *testing.T, newStore func(t *testing.T) wallet.Store) {
	t.Run("Wallets", func(t *testing.T) { t.Parallel(); testWallets(t, newStore(t)) })
	t.Run("OneWalletPerAccountUnderConcurrency", func(t *testing.T) { t.Parallel(); testCreateRace(t, newStore(t)) })
	t.Run("Rewrap", func(t *testing.T) { t.Parallel(); testRewrap(t, newStore(t)) })
	t.Run("Nonces", func(t *testing.T) { t.Parallel(); testNonces(t, newStore(t)) })
	t.Run("ConcurrentNoncesAreDistinct", func(t *testing.T) { t.Parallel(); testNonceRace(t, newStore(t)) })
	t.Run("LaunchQuota", func(t *testing.T) { t.Parallel(); testLaunchQuota(t, newStore(t)) })
	t.Run("LaunchQuotaIndexed", func(t *testing.T) { t.Parallel(); testLaunchQuotaIndexed(t, newStore(t)) })
	t.Run("ConcurrentLaunchesKeepTheCap", func(t *testing.T) { t.Parallel(); testLaunchRace(t, newStore(t)) })
	t.Run("Idempotency", func(t *testing.T) { t.Parallel(); testIdempotency(t, newStore(t)) })
	t.Run("IdempotencySingleWinner", func(t *testing.T) { t.Parallel(); testIdempotencyRace(t, newStore(t)) })
	t.Run("Exports", func(t *testing.T) { t.Parallel(); testExports(t, newStore(t)) })
	t.Run("Transactions", func(t *testing.T) { t.Parallel(); testTransactions(t, newStore(t)) })
	t.Run("TransactionLifecycle", func(t *testing.T) { t.Parallel(); testTransactionLifecycle(t, newStore(t)) })
	t.Run("SenderHoldsItsTransaction", func(t *testing.T) { t.Parallel(); testSenderHold(t, newStore(t)) })
	t.Run("OneReplicaClaimsATransaction", func(t *testing.T) { t.Parallel(); testClaimRace(t, newStore(t)) })
	RunSpends(t, newStore)
}

// at is a fixed instant with sub-second precision, to catch stores that round times.
var at = time.Date(2026, 11, 22, 10, 30, 15, 123456789, time.UTC)

// newWallet returns a wallet as the service would store it; the key bytes are opaque here.
func newWallet(account string, n byte) wallet.Wallet {
	h := sha256.Sum256(append([]byte(account), n))
	return wallet.Wallet{
		ID:         fmt.Sprintf("%x", h[:16]),
		AccountID:  account,
		Address:    common.BytesToAddress(h[12:]),
		KeyVersion: 3,
		DataKey:    append([]byte("wrapped data key "), n),
		PrivateKey: append([]byte("sealed private key "), n),
		CreatedAt:  at,
	}
}

func create(t *testing.T, s wallet.Store, w wallet.Wallet) wallet.Wallet {
	t.Helper()
	got, _, err := s.CreateWallet(context.Background(), w)
	if err != nil {
		t.Fatalf("CreateWallet: %v", err)
	}
	return got
}

func testWallets(t *testing.T, s wallet.Store) {
	ctx := context.Background()
	if _, err := s.WalletByAccount(ctx, "alice"); !errors.Is(err, curvekit.ErrNotFound) {
		t.Fatalf("WalletByAccount before any wallet: %v, want ErrNotFound", err)
	}
	w := newWallet("alice", 1)
	got, created, err := s.CreateWallet(ctx, w)
	if err != nil || !created {
		t.Fatalf("CreateWallet = created %v, %v; want created", created, err)
	}
	if diff := cmp.Diff(w, got); diff != "" {
		t.Fatalf("CreateWallet returned (-want +got):\n%s", diff)
	}
	read, err := s.WalletByAccount(ctx, "alice")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(w, read); diff != "" {
		t.Fatalf("WalletByAccount (-want +got):\n%s", diff)
	}
	byID, err := s.Wallet(ctx, w.ID)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(w, byID); diff != "" {
		t.Fatalf("Wallet (-want +got):\n%s", diff)
	}
	if _, err := s.Wallet(ctx, "missing"); !errors.Is(err, curvekit.ErrNotFound) {
		t.Fatalf("Wallet of an unknown id: %v, want ErrNotFound", err)
	}
	// A second wallet for the account is not stored: the first one comes back.
	again, created, err := s.CreateWallet(ctx, newWallet("alice", 2))
	if err != nil || created {
		t.Fatalf("second CreateWallet = created %v, %v; want the existing wallet", created, err)
	}
	if diff := cmp.Diff(w, again); diff != "" {
		t.Fatalf("second CreateWallet (-first +got):\n%s", diff)
	}
	bob := create(t, s, newWallet("bob", 1))
	if bob.Address == w.Address {
		t.Fatal("two accounts share a wallet")
	}
}

func testCreateRace(t *testing.T, s wallet.Store) {
	ctx := context.Background()
	const n = 16
	type result struct {
		w       wallet.Wallet
		created bool
		err     error
	}
	results := make([]result, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			w, created, err := s.CreateWallet(ctx, newWallet("carol", byte(i)))
			results[i] = result{w, created, err}
		})
	}
	wg.Wait()
	winners := 0
	for i, r := range results {
		if r.err != nil {
			t.Fatalf("CreateWallet %d: %v", i, r.err)
		}
		if r.created {
			winners++
		}
		if r.w.ID != results[0].w.ID {
			t.Fatalf("concurrent creates returned wallets %s and %s for one account", results[0].w.ID, r.w.ID)
		}
	}
	if winners != 1 {
		t.Fatalf("%d creates report created, want exactly 1", winners)
	}
	stored, err := s.WalletByAccount(ctx, "carol")
	if err != nil || stored.ID != results[0].w.ID {
		t.Fatalf("WalletByAccount = %s, %v; want %s", stored.ID, err, results[0].w.ID)
	}
}

func reserve(t *testing.T, s wallet.Store, id string, pending uint64) uint64 {
	t.Helper()
	n, err := s.ReserveNonce(context.Background(), wallet.ReserveNonceParams{WalletID: id, Pending: pending})
	if err != nil {
		t.Fatalf("ReserveNonce(pending %d): %v", pending, err)
	}
	return n
}

func release(t *testing.T, s wallet.Store, id string, nonce uint64) {
	t.Helper()
	if err := s.ReleaseNonce(context.Background(), id, nonce); err != nil {
		t.Fatalf("ReleaseNonce(%d): %v", nonce, err)
	}
}

func testNonces(t *testing.T, s wallet.Store) {
	ctx := context.Background()
	if _, err := s.ReserveNonce(ctx, wallet.ReserveNonceParams{WalletID: "nobody"}); !errors.Is(err, curvekit.ErrNotFound) {
		t.Fatalf("ReserveNonce of an unknown wallet: %v, want ErrNotFound", err)
	}
	w := create(t, s, newWallet("dave", 1))
	other := create(t, s, newWallet("erin", 1))
	for want := range uint64(3) {
		if got := reserve(t, s, w.ID, 0); got != want {
			t.Fatalf("nonce %d, want %d", got, want)
		}
	}
	// Another wallet counts on its own.
	if got := reserve(t, s, other.ID, 0); got != 0 {
		t.Fatalf("other wallet's first nonce %d, want 0", got)
	}
	// The chain is ahead (a send from outside): the store follows it.
	if got := reserve(t, s, w.ID, 10); got != 10 {
		t.Fatalf("nonce with pending 10 = %d, want 10", got)
	}
	if got := reserve(t, s, w.ID, 0); got != 11 {
		t.Fatalf("nonce after 10 = %d, want 11", got)
	}
	// Released nonces come back lowest first, before new ones.
	release(t, s, w.ID, 11)
	release(t, s, w.ID, 10)
	release(t, s, w.ID, 10) // twice is once
	if got := reserve(t, s, w.ID, 10); got != 10 {
		t.Fatalf("after releasing 10 and 11: %d, want 10", got)
	}
	if got := reserve(t, s, w.ID, 10); got != 11 {
		t.Fatalf("then %d, want 11", got)
	}
	if got := reserve(t, s, w.ID, 10); got != 12 {
		t.Fatalf("then %d, want 12", got)
	}
	// A nonce never handed out is not taken back: it would be handed out twice.
	release(t, s, w.ID, 40)
	if got := reserve(t, s, w.ID, 0); got != 13 {
		t.Fatalf("after releasing a nonce never reserved: %d, want 13", got)
	}
	// A released nonce the chain has since used (pending passed it) is dropped.
	release(t, s, w.ID, 12)
	if got := reserve(t, s, w.ID, 13); got != 14 {
		t.Fatalf("released 12 with pending 13: got %d, want 14", got)
	}
	if got := reserve(t, s, w.ID, 0); got != 15 {
		t.Fatalf("12 came back after the chain used it: got %d, want 15", got)
	}
}

func testNonceRace(t *testing.T, s wallet.Store) {
	ctx := context.Background()
	w := create(t, s, newWallet("frank", 1))
	const n = 40
	got := make([]uint64, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			got[i], errs[i] = s.ReserveNonce(ctx, wallet.ReserveNonceParams{WalletID: w.ID})
			// Every fourth one gives its nonce back, as a failed send does.
			if errs[i] == nil && i%4 == 0 {
				errs[i] = s.ReleaseNonce(ctx, w.ID, got[i])
			}
		})
	}
	wg.Wait()
	held := map[uint64]bool{}
	for i := range n {
		if errs[i] != nil {
			t.Fatalf("goroutine %d: %v", i, errs[i])
		}
		if i%4 == 0 {
			continue
		}
		if held[got[i]] {
			t.Fatalf("nonce %d handed out twice while held", got[i])
		}
		held[got[i]] = true
	}
	// The released ones fill the gaps: the next reservations complete 0..n-1 without a hole.
	for len(held) < n {
		k := reserve(t, s, w.ID, 0)
		if held[k] {
			t.Fatalf("nonce %d handed out twice", k)
		}
		held[k] = true
	}
	for k := range uint64(n) {
		if !held[k] {
			t.Fatalf("nonce %d was lost: the sequence has a gap", k)
		}
	}
}

func testIdempotency(t *testing.T, s wallet.Store) {
	ctx := context.Background()
	if _, err := s.Idempotency(ctx, "gina", "k1"); !errors.Is(err, curvekit.ErrNotFound) {
		t.Fatalf("Idempotency before a claim: %v, want ErrNotFound", err)
	}
	claim := wallet.ClaimParams{AccountID: "gina", Key: "k1", RequestHash: []byte("hash one"), CreatedAt: at}
	rec, claimed, err := s.ClaimIdempotency(ctx, claim)
	if err != nil || !claimed {
		t.Fatalf("first claim = %v, %v; want claimed", claimed, err)
	}
	want := wallet.Idempotency{AccountID: "gina", Key: "k1", RequestHash: []byte("hash one"), CreatedAt: at}
	if diff := cmp.Diff(want, rec); diff != "" {
		t.Fatalf("claimed record (-want +got):\n%s", diff)
	}
	// A second claim, whatever its hash, gets the pending record.
	rec, claimed, err = s.ClaimIdempotency(ctx, wallet.ClaimParams{AccountID: "gina", Key: "k1", RequestHash: []byte("hash two"), CreatedAt: at.Add(time.Second)})
	if err != nil || claimed || rec.Done() {
		t.Fatalf("second claim = %+v, claimed %v, %v; want the pending record", rec, claimed, err)
	}
	if diff := cmp.Diff(want, rec); diff != "" {
		t.Fatalf("pending record (-want +got):\n%s", diff)
	}
	// The same key under another account is another record.
	if _, claimed, err := s.ClaimIdempotency(ctx, wallet.ClaimParams{AccountID: "hank", Key: "k1", RequestHash: []byte("h"), CreatedAt: at}); err != nil || !claimed {
		t.Fatalf("same key, other account: claimed %v, %v", claimed, err)
	}
	if err := s.CompleteIdempotency(ctx, wallet.CompleteParams{AccountID: "gina", Key: "k1", Response: []byte(`{"hash":"0x1"}`)}); err != nil {
		t.Fatal(err)
	}
	if err := s.CompleteIdempotency(ctx, wallet.CompleteParams{AccountID: "gina", Key: "k1", Response: []byte(`{"hash":"0x2"}`)}); !errors.Is(err, curvekit.ErrNotFound) {
		t.Fatalf("completing twice: %v, want ErrNotFound", err)
	}
	// Releasing a completed record keeps it.
	if err := s.ReleaseIdempotency(ctx, "gina", "k1"); err != nil {
		t.Fatal(err)
	}
	rec, err = s.Idempotency(ctx, "gina", "k1")
	if err != nil || string(rec.Response) != `{"hash":"0x1"}` || !rec.Done() {
		t.Fatalf("completed record = %+v, %v", rec, err)
	}
	rec, claimed, err = s.ClaimIdempotency(ctx, claim)
	if err != nil || claimed || string(rec.Response) != `{"hash":"0x1"}` {
		t.Fatalf("claim after completion = %+v, claimed %v, %v; want the first response", rec, claimed, err)
	}
	// Releasing a pending record frees the key.
	if err := s.ReleaseIdempotency(ctx, "hank", "k1"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Idempotency(ctx, "hank", "k1"); !errors.Is(err, curvekit.ErrNotFound) {
		t.Fatalf("released record still there: %v", err)
	}
	if err := s.CompleteIdempotency(ctx, wallet.CompleteParams{AccountID: "hank", Key: "k1", Response: []byte("x")}); !errors.Is(err, curvekit.ErrNotFound) {
		t.Fatalf("completing a released record: %v, want ErrNotFound", err)
	}
	if _, claimed, err := s.ClaimIdempotency(ctx, wallet.ClaimParams{AccountID: "hank", Key: "k1", RequestHash: []byte("h"), CreatedAt: at}); err != nil || !claimed {
		t.Fatalf("claim after release: claimed %v, %v", claimed, err)
	}
	// An expired record gives way, completed or pending; one created at the limit stays.
	later := at.Add(48 * time.Hour)
	if _, claimed, err := s.ClaimIdempotency(ctx, wallet.ClaimParams{AccountID: "gina", Key: "k1", RequestHash: []byte("h3"), CreatedAt: later, ExpiredBefore: at}); err != nil || claimed {
		t.Fatalf("claim with the record exactly at the expiry limit: claimed %v, %v; want the record kept", claimed, err)
	}
	for _, account := range []string{"gina", "hank"} {
		rec, claimed, err := s.ClaimIdempotency(ctx, wallet.ClaimParams{AccountID: account, Key: "k1", RequestHash: []byte("h3"), CreatedAt: later, ExpiredBefore: later.Add(-24 * time.Hour)})
		if err != nil || !claimed || rec.Done() || string(rec.RequestHash) != "h3" || !rec.CreatedAt.Equal(later) {
			t.Fatalf("%s: claim over an expired record = %+v, claimed %v, %v", account, rec, claimed, err)
		}
	}
}

func testIdempotencyRace(t *testing.T, s wallet.Store) {
	ctx := context.Background()
	const n = 20
	claimed := make([]bool, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			_, claimed[i], errs[i] = s.ClaimIdempotency(ctx, wallet.ClaimParams{AccountID: "ivan", Key: "race", RequestHash: []byte("h"), CreatedAt: at})
		})
	}
	wg.Wait()
	winners := 0
	for i := range n {
		if errs[i] != nil {
			t.Fatalf("claim %d: %v", i, errs[i])
		}
		if claimed[i] {
			winners++
		}
	}
	if winners != 1 {
		t.Fatalf("%d concurrent claims won, want exactly 1", winners)
	}
}

func testExports(t *testing.T, s wallet.Store) {
	ctx := context.Background()
	w := create(t, s, newWallet("judy", 1))
	if got, err := s.Exports(ctx, "judy"); err != nil || len(got) != 0 {
		t.Fatalf("Exports before any = %v, %v", got, err)
	}
	want := []wallet.Export{
		{AccountID: "judy", WalletID: w.ID, Address: w.Address, SignedInAt: at, At: at.Add(time.Minute)},
		{AccountID: "judy", WalletID: w.ID, Address: w.Address, SignedInAt: at, At: at.Add(2 * time.Minute)},
	}
	for _, e := range want {
		if err := s.RecordExport(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.RecordExport(ctx, wallet.Export{AccountID: "kate", WalletID: "x", SignedInAt: at, At: at}); err != nil {
		t.Fatal(err)
	}
	got, err := s.Exports(ctx, "judy")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("Exports (-want +got):\n%s", diff)
	}
}

func testRewrap(t *testing.T, s wallet.Store) {
	ctx := context.Background()
	w := create(t, s, newWallet("lena", 1))
	p := wallet.RewrapParams{WalletID: w.ID, FromVersion: 3, KeyVersion: 4, DataKey: []byte("data key v4"), PrivateKey: []byte("private key v4")}
	if err := s.RewrapWallet(ctx, p); err != nil {
		t.Fatal(err)
	}
	got, err := s.WalletByAccount(ctx, "lena")
	if err != nil {
		t.Fatal(err)
	}
	want := w
	want.KeyVersion, want.DataKey, want.PrivateKey = 4, p.DataKey, p.PrivateKey
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("rewrapped wallet (-want +got):\n%s", diff)
	}
	// A second rewrap from the old version lost the race: nothing changes.
	late := wallet.RewrapParams{WalletID: w.ID, FromVersion: 3, KeyVersion: 5, DataKey: []byte("x"), PrivateKey: []byte("y")}
	if err := s.RewrapWallet(ctx, late); !errors.Is(err, curvekit.ErrConflict) {
		t.Fatalf("rewrap from a stale version: %v, want ErrConflict", err)
	}
	if again, _ := s.WalletByAccount(ctx, "lena"); !cmp.Equal(want, again) {
		t.Fatalf("a stale rewrap changed the wallet: %+v", again)
	}
	late.WalletID = "nobody"
	if err := s.RewrapWallet(ctx, late); !errors.Is(err, curvekit.ErrNotFound) {
		t.Fatalf("rewrap of an unknown wallet: %v, want ErrNotFound", err)
	}
}

// day is the UTC day of at, as a launch quota counts it.
var day = at.Truncate(24 * time.Hour)

// reserveLaunch reserves a nonce for a launch under q at signedAt.
func reserveLaunch(s wallet.Store, id string, q *wallet.LaunchQuota, signedAt time.Time) (uint64, error) {
	return s.ReserveNonce(context.Background(), wallet.ReserveNonceParams{WalletID: id, Launch: q, At: signedAt})
}

// wantLaunchLimit fails unless err refuses a launch with used of limit.
func wantLaunchLimit(t *testing.T, err error, used, limit int) {
	t.Helper()
	var over *wallet.LaunchLimitError
	if !errors.As(err, &over) || !errors.Is(err, curvekit.ErrLimited) || over.Used != used || over.Limit != limit {
		t.Fatalf("launch over the quota: %v; want a LaunchLimitError (ErrLimited) with %d of %d used", err, used, limit)
	}
}

func testLaunchQuota(t *testing.T, s wallet.Store) {
	ctx := context.Background()
	w := create(t, s, newWallet("mona", 1))
	other := create(t, s, newWallet("ned", 1))
	q := &wallet.LaunchQuota{Tier: curvekit.TierFree, Limit: 3, Day: day, ResetsAt: day.Add(24 * time.Hour)}
	// Yesterday's launches, even unhashed, are not today's.
	if _, err := reserveLaunch(s, w.ID, q, day.Add(-time.Nanosecond)); err != nil {
		t.Fatal(err)
	}
	// Launches in flight (reserved, signed or not) count up to the cap.
	for want := uint64(1); want <= 3; want++ {
		got, err := reserveLaunch(s, w.ID, q, at)
		if err != nil || got != want {
			t.Fatalf("launch %d: nonce %d, %v; want nonce %d", want, got, err, want)
		}
	}
	if err := s.RecordLaunchTx(ctx, wallet.LaunchTxParams{WalletID: w.ID, Nonce: 3, Hash: common.Hash{3}}); err != nil {
		t.Fatal(err)
	}
	_, err := reserveLaunch(s, w.ID, q, at)
	wantLaunchLimit(t, err, 3, 3)
	// The refusal reserved nothing; what is not a launch is not counted.
	if got := reserve(t, s, w.ID, 0); got != 4 {
		t.Fatalf("nonce after a refused launch = %d, want 4", got)
	}
	// Another wallet has a quota of its own.
	if got, err := reserveLaunch(s, other.ID, q, at); err != nil || got != 0 {
		t.Fatalf("another wallet's launch: nonce %d, %v", got, err)
	}
	// A launch whose send failed gives its nonce back and frees its slot, once.
	release(t, s, w.ID, 2)
	if got, err := reserveLaunch(s, w.ID, q, at); err != nil || got != 2 {
		t.Fatalf("launch after a release: nonce %d, %v; want the released nonce 2", got, err)
	}
	_, err = reserveLaunch(s, w.ID, q, at)
	wantLaunchLimit(t, err, 3, 3)
	// A nonce released as a launch's and reserved for something else carries no launch.
	release(t, s, w.ID, 3)
	if got := reserve(t, s, w.ID, 0); got != 3 {
		t.Fatalf("after releasing launch 3: nonce %d, want 3", got)
	}
	if got, err := reserveLaunch(s, w.ID, q, at); err != nil || got != 5 {
		t.Fatalf("launch after its slot went to another call: nonce %d, %v; want 5", got, err)
	}
	// The hash of a launch that no longer holds its nonce, or of none, is not found.
	for _, n := range []uint64{4, 99} {
		if err := s.RecordLaunchTx(ctx, wallet.LaunchTxParams{WalletID: w.ID, Nonce: n, Hash: common.Hash{9}}); !errors.Is(err, curvekit.ErrNotFound) {
			t.Fatalf("RecordLaunchTx at nonce %d, no launch there: %v, want ErrNotFound", n, err)
		}
	}
	// A cap of 0 refuses the first launch.
	_, err = reserveLaunch(s, other.ID, &wallet.LaunchQuota{Day: day}, at)
	wantLaunchLimit(t, err, 1, 0)
}

func testLaunchQuotaIndexed(t *testing.T, s wallet.Store) {
	ctx := context.Background()
	w := create(t, s, newWallet("olga", 1))
	q := &wallet.LaunchQuota{Tier: curvekit.TierFree, Limit: 3, Day: day, ResetsAt: day.Add(24 * time.Hour)}
	for n := range uint64(2) {
		if got, err := reserveLaunch(s, w.ID, q, at); err != nil || got != n {
			t.Fatalf("launch %d: nonce %d, %v", n, got, err)
		}
		if err := s.RecordLaunchTx(ctx, wallet.LaunchTxParams{WalletID: w.ID, Nonce: n, Hash: common.Hash{byte(n + 1)}}); err != nil {
			t.Fatal(err)
		}
	}
	// Both indexed: signed and indexed count once, so one launch is left.
	q.Indexed = []common.Hash{{1}, {2}}
	if got, err := reserveLaunch(s, w.ID, q, at); err != nil || got != 2 {
		t.Fatalf("third launch with two indexed: nonce %d, %v", got, err)
	}
	_, err := reserveLaunch(s, w.ID, q, at)
	wantLaunchLimit(t, err, 3, 3)
	// A launch sent from outside the service is indexed without a record: it counts too.
	release(t, s, w.ID, 2)
	q.Indexed = []common.Hash{{1}, {0xee}}
	_, err = reserveLaunch(s, w.ID, q, at)
	wantLaunchLimit(t, err, 3, 3)
	// The next day counts afresh: indexed launches of that day only, and nothing signed before.
	next := &wallet.LaunchQuota{Limit: 1, Day: day.Add(24 * time.Hour), Indexed: []common.Hash{}}
	if got, err := reserveLaunch(s, w.ID, next, next.Day); err != nil || got != 2 {
		t.Fatalf("first launch of the next day: nonce %d, %v; want 2", got, err)
	}
	_, err = reserveLaunch(s, w.ID, next, next.Day.Add(time.Hour))
	wantLaunchLimit(t, err, 1, 1)
}

func testLaunchRace(t *testing.T, s wallet.Store) {
	ctx := context.Background()
	w := create(t, s, newWallet("pia", 1))
	q := &wallet.LaunchQuota{Tier: curvekit.TierPro, Limit: 5, Day: day, ResetsAt: day.Add(24 * time.Hour)}
	const n = 24
	nonces := make([]uint64, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			nonces[i], errs[i] = reserveLaunch(s, w.ID, q, at)
			// Every third one is a send that failed: it gives its nonce and its slot back.
			if errs[i] == nil && i%3 == 0 {
				errs[i] = s.ReleaseNonce(ctx, w.ID, nonces[i])
				nonces[i] = 1 << 62
			}
		})
	}
	wg.Wait()
	held := map[uint64]bool{}
	for i := range n {
		var over *wallet.LaunchLimitError
		switch {
		case errors.As(errs[i], &over):
			if over.Used < q.Limit {
				t.Fatalf("launch %d refused with %d of %d used", i, over.Used, over.Limit)
			}
		case errs[i] != nil:
			t.Fatalf("launch %d: %v", i, errs[i])
		case nonces[i] != 1<<62:
			if held[nonces[i]] {
				t.Fatalf("nonce %d reserved for two launches", nonces[i])
			}
			held[nonces[i]] = true
		}
	}
	if len(held) > q.Limit {
		t.Fatalf("%d launches held at once under a cap of %d", len(held), q.Limit)
	}
	// What the released ones left free is still there, and no more.
	for range q.Limit - len(held) {
		if _, err := reserveLaunch(s, w.ID, q, at); err != nil {
			t.Fatalf("a slot freed by a release: %v", err)
		}
	}
	_, err := reserveLaunch(s, w.ID, q, at)
	wantLaunchLimit(t, err, q.Limit, q.Limit)
}

// sentTx is the n-th transaction of w as the service records it before broadcasting.
func sentTx(w wallet.Wallet, nonce uint64, sentAt time.Time) wallet.Transaction {
	h := sha256.Sum256(fmt.Appendf(nil, "%s/%d", w.ID, nonce))
	return wallet.Transaction{
		ID: fmt.Sprintf("%x", h[:16]), WalletID: w.ID, From: w.Address, Nonce: nonce, ChainID: 1337,
		To: common.HexToAddress("0x00000000000000000000000000000000000000aa"), Value: *uint256.NewInt(nonce + 1),
		Data: []byte{0xde, 0xad, byte(nonce)}, Gas: 21_000 + nonce,
		Fees: wallet.Fees{MaxFeePerGas: big.NewInt(2_000_000_000), MaxPriorityFeePerGas: big.NewInt(1_000_000)},
		Hash: h, Hashes: []common.Hash{h}, State: wallet.TxPending, SentAt: sentAt, SentBlock: 10 + nonce, UpdatedAt: sentAt,
		GasPrice: uint256.Int{},
	}
}

var cmpTx = cmp.Options{cmp.Comparer(func(a, b *big.Int) bool { return a.Cmp(b) == 0 }), cmpopts.EquateEmpty()}

func testTransactions(t *testing.T, s wallet.Store) {
	ctx := context.Background()
	w := create(t, s, newWallet("alice", 1))
	other := create(t, s, newWallet("bob", 1))
	var sent []wallet.Transaction
	for n := range uint64(5) {
		tx := sentTx(w, n, at.Add(time.Duration(n/2)*time.Second)) // two share each instant
		if err := s.RecordTransaction(ctx, tx); err != nil {
			t.Fatalf("RecordTransaction: %v", err)
		}
		sent = append(sent, tx)
	}
	if err := s.RecordTransaction(ctx, sentTx(other, 0, at)); err != nil {
		t.Fatal(err)
	}
	unknown := sentTx(newWallet("carol", 1), 0, at)
	if err := s.RecordTransaction(ctx, unknown); !errors.Is(err, curvekit.ErrNotFound) {
		t.Fatalf("RecordTransaction of an unknown wallet: %v, want ErrNotFound", err)
	}
	// Newest first, two a page, the ties broken by id.
	var got []wallet.Transaction
	q := wallet.TransactionQuery{WalletID: w.ID, Limit: 2}
	for pages := 0; ; pages++ {
		page, err := s.Transactions(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		if len(page.Transactions) > 2 || pages > 3 {
			t.Fatalf("page %d: %d transactions", pages, len(page.Transactions))
		}
		got = append(got, page.Transactions...)
		if page.Next == "" {
			break
		}
		q.Cursor = page.Next
	}
	if len(got) != len(sent) {
		t.Fatalf("listed %d transactions, want %d", len(got), len(sent))
	}
	for i := 1; i < len(got); i++ {
		a, b := got[i-1], got[i]
		if a.SentAt.Before(b.SentAt) || (a.SentAt.Equal(b.SentAt) && a.ID < b.ID) {
			t.Fatalf("not newest first: %v %s before %v %s", a.SentAt, a.ID, b.SentAt, b.ID)
		}
	}
	byNonce := map[uint64]wallet.Transaction{}
	for _, tx := range got {
		byNonce[tx.Nonce] = tx
	}
	for _, want := range sent {
		if diff := cmp.Diff(want, byNonce[want.Nonce], cmpTx); diff != "" {
			t.Errorf("transaction %d (-recorded +listed):\n%s", want.Nonce, diff)
		}
	}
	for _, cursor := range []string{"nonsense", "1795395614.\x00", "1795395614.ab' OR '1'='1", "1795395614."} {
		if _, err := s.Transactions(ctx, wallet.TransactionQuery{WalletID: w.ID, Cursor: cursor}); !errors.Is(err, curvekit.ErrInvalid) {
			t.Errorf("cursor %q, which the store did not return: %v, want ErrInvalid", cursor, err)
		}
	}
	open, err := s.OpenTransactions(ctx, 100)
	if err != nil {
		t.Fatal(err)
	}
	if len(open) != 6 || open[0].SentAt.After(open[5].SentAt) {
		t.Errorf("OpenTransactions: %d, want 6, oldest first", len(open))
	}
}

// testSenderHold: a transaction is recorded held by its sender until the node answers; no
// replica claims it meanwhile, and only the sender lets go of it, keeping it (sent) or not.
func testSenderHold(t *testing.T, s wallet.Store) {
	ctx := context.Background()
	w := create(t, s, newWallet("alice", 1))
	held := func(nonce uint64) wallet.Transaction {
		tx := sentTx(w, nonce, at)
		tx.ClaimedBy, tx.ClaimedUntil = "send-1", at.Add(time.Minute)
		if err := s.RecordTransaction(ctx, tx); err != nil {
			t.Fatal(err)
		}
		return tx
	}
	sent, refused := held(0), held(1)
	open, err := s.OpenTransactions(ctx, 10)
	if err != nil || len(open) != 2 {
		t.Fatalf("OpenTransactions: %v, %d", err, len(open))
	}
	if diff := cmp.Diff(sent, open[0], cmpTx); diff != "" {
		t.Errorf("a held transaction as recorded (-want +got):\n%s", diff)
	}
	claim := wallet.ClaimTxParams{ID: sent.ID, Hash: sent.Hash, Owner: "replica-a", Now: at.Add(30 * time.Second), Until: at.Add(2 * time.Minute)}
	if err := s.ClaimTransaction(ctx, claim); !errors.Is(err, curvekit.ErrConflict) {
		t.Fatalf("a replica claims a transaction its sender holds: %v, want ErrConflict", err)
	}
	for _, p := range []wallet.ReleaseTxParams{{ID: sent.ID, Owner: "send-2", Sent: true}, {ID: refused.ID, Owner: "send-2"}} {
		if err := s.ReleaseTransaction(ctx, p); !errors.Is(err, curvekit.ErrConflict) {
			t.Fatalf("a release by another than the sender (sent %v): %v, want ErrConflict", p.Sent, err)
		}
	}
	if err := s.ReleaseTransaction(ctx, wallet.ReleaseTxParams{ID: "missing", Owner: "send-1"}); !errors.Is(err, curvekit.ErrNotFound) {
		t.Fatalf("releasing an unknown transaction: %v, want ErrNotFound", err)
	}
	if err := s.ReleaseTransaction(ctx, wallet.ReleaseTxParams{ID: sent.ID, Owner: "send-1", Sent: true, At: at.Add(time.Second)}); err != nil {
		t.Fatalf("the sender lets go of a sent transaction: %v", err)
	}
	if err := s.ReleaseTransaction(ctx, wallet.ReleaseTxParams{ID: refused.ID, Owner: "send-1"}); err != nil {
		t.Fatalf("the sender lets go of a refused transaction: %v", err)
	}
	open, err = s.OpenTransactions(ctx, 10)
	if err != nil || len(open) != 1 {
		t.Fatalf("after the sends: %v, %d open, want the sent one", err, len(open))
	}
	if got := open[0]; got.ID != sent.ID || got.ClaimedBy != "" || !got.ClaimedUntil.IsZero() {
		t.Fatalf("the sent transaction after its sender let go: %s held by %q until %v", got.ID, got.ClaimedBy, got.ClaimedUntil)
	}
	if err := s.ReleaseTransaction(ctx, wallet.ReleaseTxParams{ID: sent.ID, Owner: "send-1", Sent: true}); !errors.Is(err, curvekit.ErrConflict) {
		t.Fatalf("letting go twice: %v, want ErrConflict", err)
	}
	if err := s.ClaimTransaction(ctx, claim); err != nil {
		t.Fatalf("a replica claims it once the sender let go: %v", err)
	}
	// A hold that lapsed (the sender stopped) is the tracker's: the sender can no longer drop it.
	lapsed := held(2)
	claim = wallet.ClaimTxParams{ID: lapsed.ID, Hash: lapsed.Hash, Owner: "replica-a", Now: lapsed.ClaimedUntil.Add(time.Nanosecond), Until: at.Add(3 * time.Minute)}
	if err := s.ClaimTransaction(ctx, claim); err != nil {
		t.Fatalf("claiming after the sender's hold lapsed: %v", err)
	}
	if err := s.ReleaseTransaction(ctx, wallet.ReleaseTxParams{ID: lapsed.ID, Owner: "send-1"}); !errors.Is(err, curvekit.ErrConflict) {
		t.Fatalf("the sender drops a record taken over: %v, want ErrConflict", err)
	}
}

func testTransactionLifecycle(t *testing.T, s wallet.Store) {
	ctx := context.Background()
	w := create(t, s, newWallet("alice", 1))
	tx := sentTx(w, 0, at)
	if err := s.RecordTransaction(ctx, tx); err != nil {
		t.Fatal(err)
	}
	claim := wallet.ClaimTxParams{ID: tx.ID, Hash: tx.Hash, Owner: "replica-a", Now: at, Until: at.Add(time.Minute)}
	if err := s.ClaimTransaction(ctx, claim); err != nil {
		t.Fatalf("ClaimTransaction: %v", err)
	}
	if err := s.ClaimTransaction(ctx, claim); err != nil {
		t.Fatalf("the owner claims again: %v", err)
	}
	b := claim
	b.Owner, b.Now = "replica-b", at.Add(30*time.Second)
	if err := s.ClaimTransaction(ctx, b); !errors.Is(err, curvekit.ErrConflict) {
		t.Fatalf("another owner within the claim: %v, want ErrConflict", err)
	}
	if err := s.ReplaceTransaction(ctx, wallet.ReplaceTxParams{ID: tx.ID, Owner: "replica-b", Hash: common.Hash{1}}); !errors.Is(err, curvekit.ErrConflict) {
		t.Fatalf("replacing without the claim: %v, want ErrConflict", err)
	}
	bumped := wallet.Fees{MaxFeePerGas: big.NewInt(2_200_000_000), MaxPriorityFeePerGas: big.NewInt(1_100_000)}
	second := common.Hash{0x22}
	if err := s.ReplaceTransaction(ctx, wallet.ReplaceTxParams{ID: tx.ID, Owner: "replica-a", Hash: second, Fees: bumped, SentBlock: 14, At: at.Add(time.Second)}); err != nil {
		t.Fatalf("ReplaceTransaction: %v", err)
	}
	if err := s.ClaimTransaction(ctx, claim); !errors.Is(err, curvekit.ErrConflict) {
		t.Fatalf("a claim on the replaced hash: %v, want ErrConflict", err)
	}
	b.Hash, b.Now = second, at.Add(2*time.Second)
	if err := s.ClaimTransaction(ctx, b); err != nil {
		t.Fatalf("a claim after the replacement let go: %v", err)
	}
	a := claim
	a.Hash, a.Now = second, b.Until.Add(time.Nanosecond)
	a.Until = a.Now.Add(time.Minute)
	if err := s.ClaimTransaction(ctx, a); err != nil {
		t.Fatalf("a claim after another's expired: %v", err)
	}
	if err := s.ClaimTransaction(ctx, wallet.ClaimTxParams{ID: "missing", Hash: second, Owner: "x", Now: at, Until: at}); !errors.Is(err, curvekit.ErrNotFound) {
		t.Fatalf("claiming an unknown transaction: %v, want ErrNotFound", err)
	}
	settle := wallet.SettleTxParams{ID: tx.ID, State: wallet.TxMined, Hash: common.Hash{0x99}, Block: 15, GasUsed: 21_000, GasPrice: big.NewInt(1_000_500_000), At: at.Add(3 * time.Second)}
	if err := s.SettleTransaction(ctx, settle); !errors.Is(err, curvekit.ErrInvalid) {
		t.Fatalf("settling under a hash not its own: %v, want ErrInvalid", err)
	}
	settle.Hash = tx.Hash // the first send is the one mined
	if err := s.SettleTransaction(ctx, settle); err != nil {
		t.Fatalf("SettleTransaction: %v", err)
	}
	if err := s.SettleTransaction(ctx, wallet.SettleTxParams{ID: tx.ID, State: wallet.TxDropped, At: at}); !errors.Is(err, curvekit.ErrConflict) {
		t.Fatalf("settling twice: %v, want ErrConflict", err)
	}
	if err := s.SettleTransaction(ctx, wallet.SettleTxParams{ID: tx.ID, State: wallet.TxReplaced}); !errors.Is(err, curvekit.ErrInvalid) {
		t.Fatalf("settling to an open state: %v, want ErrInvalid", err)
	}
	page, err := s.Transactions(ctx, wallet.TransactionQuery{WalletID: w.ID})
	if err != nil || len(page.Transactions) != 1 {
		t.Fatalf("Transactions: %v, %d", err, len(page.Transactions))
	}
	want := tx
	want.State, want.Hash, want.Hashes = wallet.TxMined, tx.Hash, []common.Hash{tx.Hash, second}
	want.Fees, want.SentBlock, want.Block, want.GasUsed = bumped, 14, 15, 21_000
	want.GasPrice = *uint256.NewInt(1_000_500_000)
	want.UpdatedAt = settle.At
	if diff := cmp.Diff(want, page.Transactions[0], cmpTx); diff != "" {
		t.Errorf("mined transaction (-want +got):\n%s", diff)
	}
	if fee := page.Transactions[0].FeePaid(); fee.Uint64() != 21_000*1_000_500_000 {
		t.Errorf("FeePaid %s", fee.Dec())
	}
	if open, err := s.OpenTransactions(ctx, 10); err != nil || len(open) != 0 {
		t.Errorf("OpenTransactions after it was mined: %v, %d", err, len(open))
	}
	// A transaction sent once, then used by another: dropped.
	d := sentTx(w, 1, at)
	if err := s.RecordTransaction(ctx, d); err != nil {
		t.Fatal(err)
	}
	if err := s.SettleTransaction(ctx, wallet.SettleTxParams{ID: d.ID, State: wallet.TxDropped, At: at}); err != nil {
		t.Fatalf("dropping: %v", err)
	}
	// A replaced transaction stays when its nonce is released: the chain saw it.
	r := sentTx(w, 2, at)
	if err := s.RecordTransaction(ctx, r); err != nil {
		t.Fatal(err)
	}
	reserve(t, s, w.ID, 3)
	if err := s.ClaimTransaction(ctx, wallet.ClaimTxParams{ID: r.ID, Hash: r.Hash, Owner: "a", Now: at, Until: at.Add(time.Minute)}); err != nil {
		t.Fatal(err)
	}
	if err := s.ReplaceTransaction(ctx, wallet.ReplaceTxParams{ID: r.ID, Owner: "a", Hash: common.Hash{0x33}, Fees: bumped, At: at}); err != nil {
		t.Fatal(err)
	}
	release(t, s, w.ID, 2)
	if open, err := s.OpenTransactions(ctx, 10); err != nil || len(open) != 1 || open[0].State != wallet.TxReplaced {
		t.Errorf("OpenTransactions after releasing a replaced one's nonce: %v, %+v", err, open)
	}
}

func testClaimRace(t *testing.T, s wallet.Store) {
	ctx := context.Background()
	w := create(t, s, newWallet("alice", 1))
	tx := sentTx(w, 0, at)
	if err := s.RecordTransaction(ctx, tx); err != nil {
		t.Fatal(err)
	}
	const replicas = 8
	var wg sync.WaitGroup
	var mu sync.Mutex
	won := 0
	for i := range replicas {
		wg.Go(func() {
			err := s.ClaimTransaction(ctx, wallet.ClaimTxParams{ID: tx.ID, Hash: tx.Hash, Owner: fmt.Sprint("replica-", i), Now: at, Until: at.Add(time.Minute)})
			if err != nil && !errors.Is(err, curvekit.ErrConflict) {
				t.Errorf("ClaimTransaction: %v", err)
			}
			if err == nil {
				mu.Lock()
				won++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if won != 1 {
		t.Fatalf("%d replicas claimed the transaction, want 1", won)
	}
}
