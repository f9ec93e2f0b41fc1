// Package authtest is the conformance suite of auth.Accounts: every implementation runs it (on
// each database it supports) and must pass unchanged. It also holds the in-process identity
// provider and wallet creator that tests of the sign-in flow use.
package authtest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"net/netip"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/curvekit/curvekit"
	"github.com/curvekit/curvekit/auth"
)

// Harness is one empty store under test.
type Harness struct {
	Accounts auth.Accounts
	// Contents returns every byte the store holds (each value of each table, and its files if it
	// has any), for the test that no raw secret is kept. nil skips that test.
	Contents func(t *testing.T) []byte
}

// Run runs the suite; open returns an empty store that t owns.
func Run(t *testing.T, open func(t *testing.T) Harness) {
	for _, tc := range []struct {
		name string
		f    func(t *testing.T, h Harness)
	}{
		{"Users", testUsers},
		{"OneUserPerIdentityUnderConcurrency", testUpsertRace},
		{"Wallets", testWallets},
		{"Tiers", testTiers},
		{"LoginStates", testLoginStates},
		{"LoginStateTakenOnceUnderConcurrency", testLoginStateRace},
		{"Sessions", testSessions},
		{"SessionRotation", testRotation},
		{"Keys", testKeys},
		{"KeyRevocation", testRevoke},
		{"KeyLimit", testKeyLimit},
		{"KeyLimitUnderConcurrency", testKeyLimitRace},
		{"RevokedKeyRefusedUnderConcurrency", testRevokeRace},
		{"LiveCredentials", testLiveCredentials},
		{"Prune", testPrune},
		{"NoSecretsAtRest", testNoSecrets},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.f(t, open(t))
		})
	}
}

// at is a fixed instant with sub-second precision, to catch stores that round times.
var at = time.Date(2026, 11, 22, 10, 30, 15, 123456789, time.UTC)

// cmpOpts compares netip values, whose fields are unexported.
var cmpOpts = cmp.Options{
	cmp.Comparer(func(a, b netip.Prefix) bool { return a == b }),
}

func hashOf(s string) []byte {
	h := sha256.Sum256([]byte(s))
	return h[:]
}

func addr(n byte) common.Address { return common.BytesToAddress([]byte{0xaa, n}) }

// newUser stores a user with a wallet and returns it.
func newUser(t *testing.T, a auth.Accounts, id string, wallet common.Address) auth.User {
	t.Helper()
	ctx := context.Background()
	if _, _, err := a.UpsertUser(ctx, &auth.UpsertUserParams{ID: id, Provider: "test", Subject: "sub-" + id, Handle: "h-" + id, At: at}); err != nil {
		t.Fatalf("UpsertUser: %v", err)
	}
	u, err := a.SetWallet(ctx, id, wallet)
	if err != nil {
		t.Fatalf("SetWallet: %v", err)
	}
	return u
}

func testUsers(t *testing.T, h Harness) {
	ctx := context.Background()
	a := h.Accounts
	u, created, err := a.UpsertUser(ctx, &auth.UpsertUserParams{
		ID: "acc_1", Provider: "dev", Subject: "s1", Handle: "alice", Name: "Alice", Picture: "https://pics.example/a.png", At: at,
	})
	if err != nil || !created {
		t.Fatalf("first UpsertUser = created %v, %v; want created", created, err)
	}
	want := auth.User{
		ID: "acc_1", Provider: "dev", Subject: "s1", Handle: "alice", Name: "Alice", Picture: "https://pics.example/a.png",
		Tier: curvekit.TierFree, CreatedAt: at, UpdatedAt: at,
	}
	if diff := cmp.Diff(want, u); diff != "" {
		t.Fatalf("first UpsertUser (-want +got):\n%s", diff)
	}
	// The same identity signs in again under a new handle: same user, updated, created kept.
	later := at.Add(time.Hour)
	u, created, err = a.UpsertUser(ctx, &auth.UpsertUserParams{ID: "acc_2", Provider: "dev", Subject: "s1", Handle: "alice2", At: later})
	if err != nil || created {
		t.Fatalf("second UpsertUser = created %v, %v; want the existing user", created, err)
	}
	want.Handle, want.Name, want.Picture, want.UpdatedAt = "alice2", "", "", later
	if diff := cmp.Diff(want, u); diff != "" {
		t.Fatalf("second UpsertUser (-want +got):\n%s", diff)
	}
	// Another subject, and the same subject at another provider, are other people.
	for _, p := range []auth.UpsertUserParams{
		{ID: "acc_3", Provider: "dev", Subject: "s2", Handle: "bob", At: at},
		{ID: "acc_4", Provider: "oidc:https://idp.example", Subject: "s1", Handle: "carol", At: at},
	} {
		u, created, err := a.UpsertUser(ctx, &p)
		if err != nil || !created || u.ID != p.ID {
			t.Fatalf("UpsertUser(%s/%s) = %s created %v, %v; want a new user %s", p.Provider, p.Subject, u.ID, created, err, p.ID)
		}
	}
}

func testUpsertRace(t *testing.T, h Harness) {
	const n = 12
	type result struct {
		u       auth.User
		created bool
		err     error
	}
	results := make([]result, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			u, created, err := h.Accounts.UpsertUser(context.Background(), &auth.UpsertUserParams{
				ID: fmt.Sprintf("acc_race_%d", i), Provider: "dev", Subject: "same", Handle: "racer", At: at,
			})
			results[i] = result{u, created, err}
		})
	}
	wg.Wait()
	created := 0
	for i, r := range results {
		if r.err != nil {
			t.Fatalf("UpsertUser %d: %v", i, r.err)
		}
		if r.created {
			created++
		}
		if r.u.ID != results[0].u.ID {
			t.Fatalf("concurrent sign-ins of one identity made users %s and %s", results[0].u.ID, r.u.ID)
		}
	}
	if created != 1 {
		t.Fatalf("%d of %d concurrent upserts report creating the user, want 1", created, n)
	}
}

func testWallets(t *testing.T, h Harness) {
	ctx := context.Background()
	a := h.Accounts
	w := addr(1)
	if _, err := a.UserByWallet(ctx, w); !errors.Is(err, curvekit.ErrNotFound) {
		t.Fatalf("UserByWallet of an unknown wallet: %v, want ErrNotFound", err)
	}
	if _, _, err := a.UpsertUser(ctx, &auth.UpsertUserParams{ID: "acc_1", Provider: "dev", Subject: "s1", Handle: "alice", At: at}); err != nil {
		t.Fatal(err)
	}
	// A user without a wallet is not found by the zero address.
	if _, err := a.UserByWallet(ctx, common.Address{}); !errors.Is(err, curvekit.ErrNotFound) {
		t.Fatalf("UserByWallet(zero) before any wallet: %v, want ErrNotFound", err)
	}
	u, err := a.SetWallet(ctx, "acc_1", w)
	if err != nil || u.Wallet != w || u.ID != "acc_1" {
		t.Fatalf("SetWallet = %+v, %v", u, err)
	}
	got, err := a.UserByWallet(ctx, w)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(u, got); diff != "" {
		t.Fatalf("UserByWallet (-SetWallet +got):\n%s", diff)
	}
	if _, err := a.SetWallet(ctx, "acc_1", w); err != nil {
		t.Fatalf("SetWallet with the same wallet again: %v", err)
	}
	if _, err := a.SetWallet(ctx, "acc_1", addr(2)); !errors.Is(err, curvekit.ErrConflict) {
		t.Fatalf("SetWallet with another wallet: %v, want ErrConflict", err)
	}
	if _, err := a.SetWallet(ctx, "acc_nobody", addr(3)); !errors.Is(err, curvekit.ErrNotFound) {
		t.Fatalf("SetWallet of an unknown account: %v, want ErrNotFound", err)
	}
	if _, _, err := a.UpsertUser(ctx, &auth.UpsertUserParams{ID: "acc_2", Provider: "dev", Subject: "s2", Handle: "bob", At: at}); err != nil {
		t.Fatal(err)
	}
	if _, err := a.SetWallet(ctx, "acc_2", w); !errors.Is(err, curvekit.ErrConflict) {
		t.Fatalf("SetWallet with another account's wallet: %v, want ErrConflict", err)
	}
	// Signing in again keeps the wallet.
	u, _, err = a.UpsertUser(ctx, &auth.UpsertUserParams{ID: "acc_x", Provider: "dev", Subject: "s1", Handle: "alice", At: at.Add(time.Minute)})
	if err != nil || u.Wallet != w {
		t.Fatalf("UpsertUser after SetWallet = wallet %s, %v; want %s", u.Wallet, err, w)
	}
}

func testTiers(t *testing.T, h Harness) {
	ctx := context.Background()
	a := h.Accounts
	if err := a.SetTier(ctx, addr(9), curvekit.TierPro); !errors.Is(err, curvekit.ErrNotFound) {
		t.Fatalf("SetTier of an unknown wallet: %v, want ErrNotFound", err)
	}
	u := newUser(t, a, "acc_1", addr(1))
	other := newUser(t, a, "acc_2", addr(2))
	if u.Tier != curvekit.TierFree {
		t.Fatalf("new user's tier %q, want free", u.Tier)
	}
	if err := a.SetTier(ctx, u.Wallet, curvekit.TierPro); err != nil {
		t.Fatal(err)
	}
	for w, want := range map[common.Address]curvekit.Tier{u.Wallet: curvekit.TierPro, other.Wallet: curvekit.TierFree} {
		got, err := a.UserByWallet(ctx, w)
		if err != nil || got.Tier != want {
			t.Fatalf("tier of %s = %q, %v; want %q", w, got.Tier, err, want)
		}
	}
	// A sign-in does not reset the tier.
	again, _, err := a.UpsertUser(ctx, &auth.UpsertUserParams{ID: "acc_x", Provider: "test", Subject: "sub-acc_1", Handle: "h", At: at})
	if err != nil || again.Tier != curvekit.TierPro {
		t.Fatalf("tier after signing in again = %q, %v; want pro", again.Tier, err)
	}
	if err := a.SetTier(ctx, u.Wallet, curvekit.TierFree); err != nil {
		t.Fatal(err)
	}
	if got, _ := a.UserByWallet(ctx, u.Wallet); got.Tier != curvekit.TierFree {
		t.Fatalf("tier after setting free = %q", got.Tier)
	}
}

func loginState(name string, expires time.Time) auth.LoginState {
	return auth.LoginState{
		StateHash: hashOf("state " + name), BindingHash: hashOf("binding " + name), Verifier: "verifier-" + name,
		ReturnTo: "/tokens/" + name, CreatedAt: at, ExpiresAt: expires,
	}
}

func testLoginStates(t *testing.T, h Harness) {
	ctx := context.Background()
	a := h.Accounts
	live, expired := loginState("live", at.Add(10*time.Minute)), loginState("expired", at.Add(-time.Second))
	for _, ls := range []auth.LoginState{live, expired} {
		if err := a.PutLoginState(ctx, ls); err != nil {
			t.Fatal(err)
		}
	}
	for _, ls := range []auth.LoginState{live, expired} {
		got, err := a.TakeLoginState(ctx, ls.StateHash)
		if err != nil {
			t.Fatalf("TakeLoginState(%s): %v", ls.ReturnTo, err)
		}
		if diff := cmp.Diff(ls, got); diff != "" {
			t.Fatalf("TakeLoginState (-want +got):\n%s", diff)
		}
		if _, err := a.TakeLoginState(ctx, ls.StateHash); !errors.Is(err, curvekit.ErrNotFound) {
			t.Fatalf("TakeLoginState a second time: %v, want ErrNotFound", err)
		}
	}
	if _, err := a.TakeLoginState(ctx, hashOf("never")); !errors.Is(err, curvekit.ErrNotFound) {
		t.Fatalf("TakeLoginState of an unknown state: %v, want ErrNotFound", err)
	}
}

func testLoginStateRace(t *testing.T, h Harness) {
	ctx := context.Background()
	ls := loginState("contended", at.Add(time.Hour))
	if err := h.Accounts.PutLoginState(ctx, ls); err != nil {
		t.Fatal(err)
	}
	const n = 16
	var won, lost atomic.Int32
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			_, err := h.Accounts.TakeLoginState(ctx, ls.StateHash)
			switch {
			case err == nil:
				won.Add(1)
			case errors.Is(err, curvekit.ErrNotFound):
				lost.Add(1)
			default:
				t.Errorf("TakeLoginState: %v", err)
			}
		})
	}
	wg.Wait()
	if won.Load() != 1 || lost.Load() != n-1 {
		t.Fatalf("%d of %d concurrent takes got the state (%d found nothing), want exactly 1", won.Load(), n, lost.Load())
	}
}

func session(id, account string, signedIn time.Time) auth.Session {
	return auth.Session{ID: id, AccountID: account, SignedInAt: signedIn, ExpiresAt: signedIn.Add(auth.SessionLifetime)}
}

func testSessions(t *testing.T, h Harness) {
	ctx := context.Background()
	a := h.Accounts
	u := newUser(t, a, "acc_1", addr(1))
	s1 := session("ses_1", u.ID, at)
	if err := a.OpenSession(ctx, &auth.OpenSessionParams{Session: s1, TokenHash: hashOf("token 1")}); err != nil {
		t.Fatal(err)
	}
	gotS, gotU, err := a.SessionByHash(ctx, hashOf("token 1"))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(s1, gotS); diff != "" {
		t.Fatalf("SessionByHash session (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(u, gotU); diff != "" {
		t.Fatalf("SessionByHash user (-want +got):\n%s", diff)
	}
	if _, _, err := a.SessionByHash(ctx, hashOf("token 2")); !errors.Is(err, curvekit.ErrNotFound) {
		t.Fatalf("SessionByHash of an unknown token: %v, want ErrNotFound", err)
	}
	end := at.Add(time.Hour)
	if err := a.EndSession(ctx, "ses_1", end); err != nil {
		t.Fatal(err)
	}
	if err := a.EndSession(ctx, "ses_1", end.Add(time.Hour)); err != nil {
		t.Fatalf("ending an ended session: %v", err)
	}
	gotS, _, err = a.SessionByHash(ctx, hashOf("token 1"))
	if err != nil || !gotS.EndedAt.Equal(end) {
		t.Fatalf("ended session: EndedAt %v, %v; want the first end %v", gotS.EndedAt, err, end)
	}
	if err := a.EndSession(ctx, "ses_unknown", end); !errors.Is(err, curvekit.ErrNotFound) {
		t.Fatalf("EndSession of an unknown session: %v, want ErrNotFound", err)
	}
}

func testRotation(t *testing.T, h Harness) {
	ctx := context.Background()
	a := h.Accounts
	u := newUser(t, a, "acc_1", addr(1))
	other := newUser(t, a, "acc_2", addr(2))
	open := func(p auth.OpenSessionParams) {
		t.Helper()
		if err := a.OpenSession(ctx, &p); err != nil {
			t.Fatalf("OpenSession %s: %v", p.Session.ID, err)
		}
	}
	endedAt := func(token string) time.Time {
		t.Helper()
		s, _, err := a.SessionByHash(ctx, hashOf(token))
		if err != nil {
			t.Fatalf("SessionByHash(%s): %v", token, err)
		}
		return s.EndedAt
	}
	open(auth.OpenSessionParams{Session: session("ses_1", u.ID, at), TokenHash: hashOf("t1")})
	open(auth.OpenSessionParams{Session: session("ses_x", other.ID, at), TokenHash: hashOf("tx")})
	// The browser signs in again, as another account: its previous session ends, others stay.
	second := at.Add(time.Minute)
	open(auth.OpenSessionParams{Session: session("ses_2", other.ID, second), TokenHash: hashOf("t2"), EndTokenHash: hashOf("t1")})
	if got := endedAt("t1"); !got.Equal(second) {
		t.Fatalf("previous session EndedAt %v, want the new sign-in's time %v", got, second)
	}
	for _, tok := range []string{"t2", "tx"} {
		if got := endedAt(tok); !got.IsZero() {
			t.Fatalf("session %s ended at %v by another browser's rotation", tok, got)
		}
	}
	// Rotating from an unknown or already ended token is no error and changes nothing else.
	open(auth.OpenSessionParams{Session: session("ses_3", u.ID, second.Add(time.Minute)), TokenHash: hashOf("t3"), EndTokenHash: hashOf("unknown")})
	open(auth.OpenSessionParams{Session: session("ses_4", u.ID, second.Add(2*time.Minute)), TokenHash: hashOf("t4"), EndTokenHash: hashOf("t1")})
	if got := endedAt("t1"); !got.Equal(second) {
		t.Fatalf("an ended session's end moved to %v", got)
	}
}

func key(id, account string, created time.Time) auth.Key {
	return auth.Key{ID: id, AccountID: account, Name: "bot " + id, Hint: "svc_…" + id[len(id)-4:], CreatedAt: created}
}

func createKey(t *testing.T, a auth.Accounts, k auth.Key, max int) {
	t.Helper()
	if err := a.CreateKey(context.Background(), &auth.CreateKeyParams{Key: k, Hash: hashOf("raw " + k.ID), MaxActive: max}); err != nil {
		t.Fatalf("CreateKey %s: %v", k.ID, err)
	}
}

func testKeys(t *testing.T, h Harness) {
	ctx := context.Background()
	a := h.Accounts
	u := newUser(t, a, "acc_1", addr(1))
	newUser(t, a, "acc_2", addr(2))
	k1 := key("key_0001", u.ID, at)
	k1.ReadOnly = true
	k1.AllowedIPs = []netip.Prefix{netip.MustParsePrefix("10.1.2.0/24"), netip.MustParsePrefix("192.0.2.7/32"), netip.MustParsePrefix("0.0.0.0/0")}
	k1.AllowedRecipients = []common.Address{addr(7), common.HexToAddress("0x52908400098527886E0F7030069857D2E4169EE7")}
	k2 := key("key_0002", u.ID, at.Add(time.Second))
	k2.Name = ""
	createKey(t, a, k1, 10)
	createKey(t, a, k2, 10)
	keys, err := a.Keys(ctx, u.ID)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]auth.Key{k2, k1}, keys, cmpOpts); diff != "" {
		t.Fatalf("Keys, newest first (-want +got):\n%s", diff)
	}
	if keys, err := a.Keys(ctx, "acc_2"); err != nil || len(keys) != 0 {
		t.Fatalf("another account's Keys = %v, %v; want none", keys, err)
	}
	gotK, gotU, err := a.KeyByHash(ctx, hashOf("raw key_0001"))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(k1, gotK, cmpOpts); diff != "" {
		t.Fatalf("KeyByHash key (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(u, gotU); diff != "" {
		t.Fatalf("KeyByHash user (-want +got):\n%s", diff)
	}
	if _, _, err := a.KeyByHash(ctx, hashOf("raw key_9999")); !errors.Is(err, curvekit.ErrNotFound) {
		t.Fatalf("KeyByHash of an unknown key: %v, want ErrNotFound", err)
	}
	// Last use only moves forward.
	for _, step := range []struct {
		touch, want time.Time
	}{
		{at.Add(time.Minute), at.Add(time.Minute)},
		{at.Add(30 * time.Second), at.Add(time.Minute)},
		{at.Add(2 * time.Minute), at.Add(2 * time.Minute)},
	} {
		if err := a.TouchKey(ctx, k1.ID, step.touch); err != nil {
			t.Fatal(err)
		}
		got, _, err := a.KeyByHash(ctx, hashOf("raw key_0001"))
		if err != nil || !got.LastUsedAt.Equal(step.want) {
			t.Fatalf("after TouchKey(%v): LastUsedAt %v, %v; want %v", step.touch, got.LastUsedAt, err, step.want)
		}
	}
	if err := a.CreateKey(ctx, &auth.CreateKeyParams{Key: key("key_0003", "acc_nobody", at), Hash: hashOf("raw key_0003"), MaxActive: 10}); !errors.Is(err, curvekit.ErrNotFound) {
		t.Fatalf("CreateKey for an unknown account: %v, want ErrNotFound", err)
	}
}

func testRevoke(t *testing.T, h Harness) {
	ctx := context.Background()
	a := h.Accounts
	u := newUser(t, a, "acc_1", addr(1))
	other := newUser(t, a, "acc_2", addr(2))
	createKey(t, a, key("key_0001", u.ID, at), 10)
	revokedAt := func() time.Time {
		t.Helper()
		k, _, err := a.KeyByHash(ctx, hashOf("raw key_0001"))
		if err != nil {
			t.Fatal(err)
		}
		return k.RevokedAt
	}
	if err := a.RevokeKey(ctx, &auth.RevokeKeyParams{AccountID: other.ID, KeyID: "key_0001", At: at}); !errors.Is(err, curvekit.ErrForbidden) {
		t.Fatalf("revoking another account's key: %v, want ErrForbidden", err)
	}
	if got := revokedAt(); !got.IsZero() {
		t.Fatalf("another account's revocation took effect at %v", got)
	}
	if err := a.RevokeKey(ctx, &auth.RevokeKeyParams{AccountID: u.ID, KeyID: "key_9999", At: at}); !errors.Is(err, curvekit.ErrNotFound) {
		t.Fatalf("revoking an unknown key: %v, want ErrNotFound", err)
	}
	first := at.Add(time.Hour)
	if err := a.RevokeKey(ctx, &auth.RevokeKeyParams{AccountID: u.ID, KeyID: "key_0001", At: first}); err != nil {
		t.Fatal(err)
	}
	if err := a.RevokeKey(ctx, &auth.RevokeKeyParams{AccountID: u.ID, KeyID: "key_0001", At: first.Add(time.Hour)}); err != nil {
		t.Fatalf("revoking a revoked key: %v", err)
	}
	if got := revokedAt(); !got.Equal(first) {
		t.Fatalf("RevokedAt %v, want the first revocation %v", got, first)
	}
	keys, err := a.Keys(ctx, u.ID)
	if err != nil || len(keys) != 1 || !keys[0].RevokedAt.Equal(first) {
		t.Fatalf("Keys after revocation = %+v, %v", keys, err)
	}
}

func testLiveCredentials(t *testing.T, h Harness) {
	ctx := context.Background()
	a := h.Accounts
	u := newUser(t, a, "acc_1", addr(1))
	open := func(id string, signedIn time.Time) {
		t.Helper()
		if err := a.OpenSession(ctx, &auth.OpenSessionParams{Session: session(id, u.ID, signedIn), TokenHash: hashOf("token " + id)}); err != nil {
			t.Fatal(err)
		}
	}
	// ses_live lasts; ses_ended was logged out of; ses_expiring expires a nanosecond after at
	// (and is no longer valid at its expiry); ses_gone was pruned (never stored here).
	open("ses_live", at)
	open("ses_ended", at)
	open("ses_expiring", at.Add(time.Nanosecond-auth.SessionLifetime))
	if err := a.EndSession(ctx, "ses_ended", at.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	createKey(t, a, key("key_0001", u.ID, at), 10)
	createKey(t, a, key("key_0002", u.ID, at), 10)
	if err := a.RevokeKey(ctx, &auth.RevokeKeyParams{AccountID: u.ID, KeyID: "key_0002", At: at.Add(time.Minute)}); err != nil {
		t.Fatal(err)
	}
	sessions := []string{"ses_live", "ses_ended", "ses_expiring", "ses_gone"}
	keys := []string{"key_0001", "key_0002", "key_9999"}
	check := func(when time.Time, wantSessions []string) {
		t.Helper()
		got, err := a.LiveCredentials(ctx, &auth.LiveCredentialsParams{IDs: auth.CredentialIDs{Sessions: sessions, Keys: keys}, At: when})
		if err != nil {
			t.Fatal(err)
		}
		slices.Sort(got.Sessions)
		slices.Sort(got.Keys)
		want := auth.CredentialIDs{Sessions: wantSessions, Keys: []string{"key_0001"}}
		if diff := cmp.Diff(want, got, cmpopts.EquateEmpty()); diff != "" {
			t.Fatalf("LiveCredentials at %v (-want +got):\n%s", when, diff)
		}
	}
	check(at, []string{"ses_expiring", "ses_live"})
	check(at.Add(time.Nanosecond), []string{"ses_live"})
	// Many ids at once: every live one comes back, whatever the store's limit on a statement.
	many := make([]string, 0, 1203)
	for i := range 1200 {
		many = append(many, fmt.Sprintf("ses_%04d", i))
	}
	many = append(many, "ses_live", "ses_ended", "ses_live")
	got, err := a.LiveCredentials(ctx, &auth.LiveCredentialsParams{IDs: auth.CredentialIDs{Sessions: many}, At: at})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(got.Sessions, "ses_live") || slices.Contains(got.Sessions, "ses_ended") || len(got.Keys) != 0 {
		t.Fatalf("LiveCredentials of %d ids: %+v", len(many), got)
	}
	if got, err := a.LiveCredentials(ctx, &auth.LiveCredentialsParams{At: at}); err != nil || len(got.Sessions)+len(got.Keys) != 0 {
		t.Fatalf("LiveCredentials of no ids: %+v, %v", got, err)
	}
}

func testKeyLimit(t *testing.T, h Harness) {
	ctx := context.Background()
	a := h.Accounts
	u := newUser(t, a, "acc_1", addr(1))
	createKey(t, a, key("key_0001", u.ID, at), 2)
	createKey(t, a, key("key_0002", u.ID, at), 2)
	third := key("key_0003", u.ID, at)
	if err := a.CreateKey(ctx, &auth.CreateKeyParams{Key: third, Hash: hashOf("raw key_0003"), MaxActive: 2}); !errors.Is(err, curvekit.ErrLimited) {
		t.Fatalf("CreateKey over the limit: %v, want ErrLimited", err)
	}
	if err := a.RevokeKey(ctx, &auth.RevokeKeyParams{AccountID: u.ID, KeyID: "key_0001", At: at}); err != nil {
		t.Fatal(err)
	}
	createKey(t, a, third, 2) // revoked keys do not count
	if err := a.CreateKey(ctx, &auth.CreateKeyParams{Key: key("key_0004", u.ID, at), Hash: hashOf("raw key_0004"), MaxActive: 2}); !errors.Is(err, curvekit.ErrLimited) {
		t.Fatalf("CreateKey over the limit after a revocation: %v, want ErrLimited", err)
	}
	// The limit is per account.
	createKey(t, a, key("key_0005", newUser(t, a, "acc_2", addr(2)).ID, at), 2)
}

func testKeyLimitRace(t *testing.T, h Harness) {
	ctx := context.Background()
	u := newUser(t, h.Accounts, "acc_1", addr(1))
	const n, max = 12, 5
	var ok, limited atomic.Int32
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			id := fmt.Sprintf("key_%04d", i)
			err := h.Accounts.CreateKey(ctx, &auth.CreateKeyParams{Key: key(id, u.ID, at), Hash: hashOf("raw " + id), MaxActive: max})
			switch {
			case err == nil:
				ok.Add(1)
			case errors.Is(err, curvekit.ErrLimited):
				limited.Add(1)
			default:
				t.Errorf("CreateKey %s: %v", id, err)
			}
		})
	}
	wg.Wait()
	keys, err := h.Accounts.Keys(ctx, u.ID)
	if err != nil {
		t.Fatal(err)
	}
	if ok.Load() != max || limited.Load() != n-max || len(keys) != max {
		t.Fatalf("%d concurrent creations under a limit of %d: %d stored (%d keys listed), %d limited", n, max, ok.Load(), len(keys), limited.Load())
	}
}

func testPrune(t *testing.T, h Harness) {
	ctx := context.Background()
	a := h.Accounts
	u := newUser(t, a, "acc_1", addr(1))
	now := at.Add(time.Hour)
	for _, ls := range []auth.LoginState{loginState("old", now.Add(-time.Second)), loginState("new", now.Add(time.Minute))} {
		if err := a.PutLoginState(ctx, ls); err != nil {
			t.Fatal(err)
		}
	}
	expired := session("ses_expired", u.ID, now.Add(-auth.SessionLifetime-time.Second))
	ended := session("ses_ended", u.ID, at)
	ended.EndedAt = at.Add(time.Minute)
	live := session("ses_live", u.ID, at)
	for tok, s := range map[string]auth.Session{"expired": expired, "ended": ended, "live": live} {
		if err := a.OpenSession(ctx, &auth.OpenSessionParams{Session: s, TokenHash: hashOf(tok)}); err != nil {
			t.Fatal(err)
		}
	}
	if err := a.Prune(ctx, now); err != nil {
		t.Fatal(err)
	}
	if _, err := a.TakeLoginState(ctx, hashOf("state old")); !errors.Is(err, curvekit.ErrNotFound) {
		t.Errorf("expired sign-in survived Prune: %v", err)
	}
	if _, err := a.TakeLoginState(ctx, hashOf("state new")); err != nil {
		t.Errorf("live sign-in pruned: %v", err)
	}
	for tok, gone := range map[string]bool{"expired": true, "ended": true, "live": false} {
		_, _, err := a.SessionByHash(ctx, hashOf(tok))
		if gone != errors.Is(err, curvekit.ErrNotFound) || (!gone && err != nil) {
			t.Errorf("session %s after Prune: %v (want gone %v)", tok, err, gone)
		}
	}
}

// newService returns a Service on the harness's store with the in-process provider.
func newService(t *testing.T, h Harness, now func() time.Time) (*auth.Service, *Provider) {
	t.Helper()
	p := &Provider{}
	s, err := auth.New(auth.Config{Accounts: h.Accounts, Provider: p, Wallets: &Wallets{}, Now: now})
	if err != nil {
		t.Fatal(err)
	}
	return s, p
}

// SignIn runs the whole sign-in flow for id on s and returns its result.
func SignIn(t testing.TB, s *auth.Service, p *Provider, id auth.Identity) auth.SignIn {
	t.Helper()
	ctx := context.Background()
	start, err := s.Begin(ctx, auth.BeginParams{ReturnTo: "/"})
	if err != nil {
		t.Fatalf("Begin: %v", err)
	}
	code, state, err := p.Approve(start.URL, id)
	if err != nil {
		t.Fatal(err)
	}
	in, err := s.Complete(ctx, auth.CompleteParams{State: state, Code: code, Binding: start.Binding})
	if err != nil {
		t.Fatalf("Complete: %v", err)
	}
	return in
}

// SessionPrincipal returns the principal of a signed-in session token.
func SessionPrincipal(t testing.TB, s *auth.Service, token string) *auth.Principal {
	t.Helper()
	p, outcome, err := s.Authenticate(context.Background(), auth.Credentials{SessionToken: token})
	if err != nil || outcome != auth.Authenticated {
		t.Fatalf("Authenticate(session) = %v, %v", outcome, err)
	}
	return p
}

func testRevokeRace(t *testing.T, h Harness) {
	ctx := context.Background()
	s, p := newService(t, h, nil)
	owner := SessionPrincipal(t, s, SignIn(t, s, p, auth.Identity{Provider: "test", Subject: "owner", Handle: "owner"}).Token)
	nk, err := s.CreateKey(ctx, owner, auth.KeyRequest{Name: "bot"})
	if err != nil {
		t.Fatal(err)
	}
	const readers, afterRevoke = 6, 25
	var revoked atomic.Bool
	var admitted atomic.Int32
	started := make(chan struct{}, readers)
	var wg sync.WaitGroup
	for range readers {
		wg.Go(func() {
			once := false
			for seen := 0; seen < afterRevoke; {
				after := revoked.Load()
				pr, outcome, err := s.Authenticate(ctx, auth.Credentials{APIKey: nk.Raw})
				if !once {
					once = true
					started <- struct{}{}
				}
				if err != nil {
					t.Errorf("Authenticate: %v", err)
					return
				}
				if pr != nil {
					admitted.Add(1)
				}
				if after {
					seen++
					if pr != nil || outcome != auth.Refused {
						t.Errorf("a lookup that began after RevokeKey returned was %v", outcome)
						return
					}
				}
			}
		})
	}
	for range readers {
		<-started
	}
	if err := s.RevokeKey(ctx, owner, nk.Key.ID); err != nil {
		t.Fatal(err)
	}
	revoked.Store(true)
	wg.Wait()
	if admitted.Load() == 0 {
		t.Fatal("the key never authenticated before its revocation; the test proved nothing")
	}
}

func testNoSecrets(t *testing.T, h Harness) {
	if h.Contents == nil {
		t.Skip("the store cannot list its contents")
	}
	ctx := context.Background()
	s, p := newService(t, h, nil)
	in := SignIn(t, s, p, auth.Identity{Provider: "test", Subject: "secretive", Handle: "secretive"})
	nk, err := s.CreateKey(ctx, SessionPrincipal(t, s, in.Token), auth.KeyRequest{Name: "bot"})
	if err != nil {
		t.Fatal(err)
	}
	pending, err := s.Begin(ctx, auth.BeginParams{ReturnTo: "/later"})
	if err != nil {
		t.Fatal(err)
	}
	_, state, err := p.Approve(pending.URL, auth.Identity{Provider: "test", Subject: "x"})
	if err != nil {
		t.Fatal(err)
	}
	contents := h.Contents(t)
	// The check must be able to fail: the digests are there, so the contents are what is stored.
	for name, d := range map[string][]byte{"API key digest": hashOf(nk.Raw), "session digest": hashOf(in.Token), "state digest": hashOf(state)} {
		if !bytes.Contains(contents, d) {
			t.Fatalf("the %s is not among the store's contents: Contents does not see the data", name)
		}
	}
	secrets := map[string]string{"API key": nk.Raw, "session token": in.Token, "sign-in state": state, "sign-in binding": pending.Binding}
	for name, raw := range secrets {
		forms := [][]byte{[]byte(raw)}
		if digits, ok := strings.CutPrefix(raw, auth.KeyPrefix); ok {
			b, _ := hex.DecodeString(digits)
			forms = append(forms, []byte(digits), b)
		} else if b, err := base64.RawURLEncoding.DecodeString(raw); err == nil {
			forms = append(forms, b)
		}
		for _, f := range forms {
			if bytes.Contains(contents, f) {
				t.Errorf("the store holds the raw %s", name)
			}
		}
	}
}
