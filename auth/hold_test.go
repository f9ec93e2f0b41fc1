package auth_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/curvekit/curvekit/auth"
)

// ends waits for ctx to end with the cause ErrCredentialEnded.
func ends(t *testing.T, what string, ctx context.Context) {
	t.Helper()
	select {
	case <-ctx.Done():
		if cause := context.Cause(ctx); !errors.Is(cause, auth.ErrCredentialEnded) {
			t.Fatalf("%s ended with %v, want ErrCredentialEnded", what, cause)
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("%s still held 10s after its credential ended", what)
	}
}

func open(t *testing.T, what string, ctx context.Context) {
	t.Helper()
	if err := ctx.Err(); err != nil {
		t.Fatalf("%s ended (%v) while its credential lasts", what, context.Cause(ctx))
	}
}

// A held context ends once its credential ends, also when another Service on the same store (a
// replica) ends it, and when the session expires; a release lets go of it; other credentials'
// holds last.
func TestHoldEndsWithItsCredential(t *testing.T) {
	t.Parallel()
	f := newFixture(t, func(c *auth.Config) { c.WatchEvery = 20 * time.Millisecond })
	replica, err := auth.New(auth.Config{Accounts: f.db.Accounts(), Provider: f.provider, Wallets: f.wallets, Now: f.clock.Now, WatchEvery: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	sess := f.session(t, alice)
	keyOf := func(name string) *auth.Principal {
		t.Helper()
		nk, err := f.svc.CreateKey(ctx, sess, auth.KeyRequest{Name: name})
		if err != nil {
			t.Fatal(err)
		}
		p, _ := f.authenticate(t, auth.Credentials{APIKey: nk.Raw})
		return p
	}
	revoked, kept, local := keyOf("revoked"), keyOf("kept"), keyOf("local")

	onKey, releaseKey := replica.Hold(ctx, revoked)
	defer releaseKey()
	onKept, releaseKept := replica.Hold(ctx, kept)
	defer releaseKept()
	onSession, releaseSession := replica.Hold(ctx, sess)
	defer releaseSession()
	onLocal, releaseLocal := f.svc.Hold(ctx, local)
	defer releaseLocal()

	// A revocation through this Service ends its own holds before it returns.
	if err := f.svc.RevokeKey(ctx, sess, local.KeyID); err != nil {
		t.Fatal(err)
	}
	if context.Cause(onLocal) != auth.ErrCredentialEnded {
		t.Fatalf("the revoked key's hold on the revoking Service: %v", context.Cause(onLocal))
	}
	// The replica learns revocations and logouts from the store.
	if err := f.svc.RevokeKey(ctx, sess, revoked.KeyID); err != nil {
		t.Fatal(err)
	}
	ends(t, "the revoked key's hold on the replica", onKey)
	open(t, "another key's hold", onKept)
	open(t, "the session's hold", onSession)
	if err := f.svc.Logout(ctx, sess); err != nil {
		t.Fatal(err)
	}
	ends(t, "the logged-out session's hold on the replica", onSession)
	open(t, "another key's hold", onKept)

	// A session ends when it expires too.
	expiring := f.session(t, alice)
	onExpiring, releaseExpiring := replica.Hold(ctx, expiring)
	defer releaseExpiring()
	open(t, "a fresh session's hold", onExpiring)
	f.clock.Advance(auth.SessionLifetime)
	ends(t, "the expired session's hold", onExpiring)

	// A release ends the context without blaming the credential, and lets go of the hold.
	releaseKept()
	if !errors.Is(context.Cause(onKept), context.Canceled) {
		t.Fatalf("a released hold ended with %v", context.Cause(onKept))
	}
	if n := replica.Held(); n != 0 {
		t.Fatalf("the replica holds %d contexts after every one ended", n)
	}
	// A principal without a credential id (none is ever made so) holds nothing.
	anon, release := replica.Hold(ctx, &auth.Principal{AccountID: "x", Kind: auth.KindKey})
	release()
	if !errors.Is(context.Cause(anon), context.Canceled) || replica.Held() != 0 {
		t.Fatalf("a hold without a credential: %v, %d held", context.Cause(anon), replica.Held())
	}
}

// flakyAccounts fails LiveCredentials while down is set.
type flakyAccounts struct {
	auth.Accounts
	down atomic.Bool
}

func (a *flakyAccounts) LiveCredentials(ctx context.Context, p *auth.LiveCredentialsParams) (auth.CredentialIDs, error) {
	if a.down.Load() {
		return auth.CredentialIDs{}, errors.New("connection refused")
	}
	return a.Accounts.LiveCredentials(ctx, p)
}

// A store that stops answering ends no hold, and is logged once when it stops and once when it
// answers again, however many checks fall in between.
func TestHoldLogsAStoreOutageOnce(t *testing.T) {
	t.Parallel()
	f := newFixture(t, func(c *auth.Config) {})
	accounts := &flakyAccounts{Accounts: f.db.Accounts()}
	var logs syncBuffer
	svc, err := auth.New(auth.Config{Accounts: accounts, Provider: f.provider, Wallets: f.wallets, Now: f.clock.Now,
		WatchEvery: 5 * time.Millisecond, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	held, release := svc.Hold(context.Background(), f.session(t, alice))
	defer release()
	accounts.down.Store(true)
	time.Sleep(100 * time.Millisecond) // twenty checks
	open(t, "a session held while the store is down", held)
	accounts.down.Store(false)
	time.Sleep(50 * time.Millisecond)
	open(t, "a session held after the store is back", held)
	out := logs.String()
	if w, i := strings.Count(out, "level=WARN"), strings.Count(out, "checking the credentials of open streams again"); w != 1 || i != 1 {
		t.Errorf("%d warnings and %d recoveries logged, want one each:\n%s", w, i, out)
	}
}

// syncBuffer is a bytes.Buffer safe for the watcher's goroutine.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}
func (s *syncBuffer) String() string { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }
