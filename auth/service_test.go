package auth_test

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/google/go-cmp/cmp"

	"github.com/curvekit/curvekit"
	"github.com/curvekit/curvekit/adapters/bunstore"
	"github.com/curvekit/curvekit/auth"
	"github.com/curvekit/curvekit/auth/authtest"
)

// clock is a settable clock.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

type fixture struct {
	svc      *auth.Service
	db       *bunstore.DB
	provider *authtest.Provider
	wallets  *authtest.Wallets
	clock    *clock
}

func newFixture(t *testing.T, edit ...func(*auth.Config)) *fixture {
	t.Helper()
	db, err := bunstore.Open(context.Background(), bunstore.Config{DSN: "file::memory:"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	f := &fixture{db: db, provider: &authtest.Provider{}, wallets: &authtest.Wallets{},
		clock: &clock{now: time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)}}
	cfg := auth.Config{Accounts: db.Accounts(), Provider: f.provider, Wallets: f.wallets, Now: f.clock.Now}
	for _, e := range edit {
		e(&cfg)
	}
	if f.svc, err = auth.New(cfg); err != nil {
		t.Fatal(err)
	}
	return f
}

var alice = auth.Identity{Provider: "test", Subject: "alice-sub", Handle: "alice", Name: "Alice", Picture: "https://pics.example/alice.png"}

func (f *fixture) signIn(t *testing.T, id auth.Identity) auth.SignIn {
	t.Helper()
	return authtest.SignIn(t, f.svc, f.provider, id)
}

func (f *fixture) session(t *testing.T, id auth.Identity) *auth.Principal {
	t.Helper()
	return authtest.SessionPrincipal(t, f.svc, f.signIn(t, id).Token)
}

func (f *fixture) authenticate(t *testing.T, creds auth.Credentials) (*auth.Principal, auth.Outcome) {
	t.Helper()
	p, outcome, err := f.svc.Authenticate(context.Background(), creds)
	if err != nil {
		t.Fatalf("Authenticate: %v", err)
	}
	if (p != nil) != (outcome == auth.Authenticated) {
		t.Fatalf("Authenticate = principal %v with outcome %v", p != nil, outcome)
	}
	return p, outcome
}

func TestNewRefusesIncompleteConfig(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	for name, cfg := range map[string]auth.Config{
		"no store":         {Provider: f.provider, Wallets: f.wallets},
		"no provider":      {Accounts: f.db.Accounts(), Wallets: f.wallets},
		"no wallets":       {Accounts: f.db.Accounts(), Provider: f.provider},
		"negative max":     {Accounts: f.db.Accounts(), Provider: f.provider, Wallets: f.wallets, MaxKeys: -1},
		"negative session": {Accounts: f.db.Accounts(), Provider: f.provider, Wallets: f.wallets, SessionLifetime: -time.Hour},
	} {
		if _, err := auth.New(cfg); err == nil {
			t.Errorf("%s: New succeeded", name)
		}
	}
}

func TestSignIn(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	start, err := f.svc.Begin(ctx, auth.BeginParams{ReturnTo: "/tokens/0xabc?tab=trades", LoginHint: "alice"})
	if err != nil {
		t.Fatal(err)
	}
	u, err := url.Parse(start.URL)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	if q.Get("login_hint") != "alice" || q.Get("code_challenge_method") != "S256" || len(q.Get("state")) != 43 {
		t.Fatalf("authorization URL %s lacks the login hint, the S256 challenge or a state", start.URL)
	}
	if !start.ExpiresAt.Equal(f.clock.Now().Add(10 * time.Minute)) {
		t.Fatalf("sign-in expires at %v, want 10 minutes from now", start.ExpiresAt)
	}
	code, state, err := f.provider.Approve(start.URL, alice)
	if err != nil {
		t.Fatal(err)
	}
	in, err := f.svc.Complete(ctx, auth.CompleteParams{State: state, Code: code, Binding: start.Binding})
	if err != nil {
		t.Fatal(err)
	}
	if in.ReturnTo != "/tokens/0xabc?tab=trades" || !in.FirstSignIn || !in.ExpiresAt.Equal(f.clock.Now().Add(7*24*time.Hour)) {
		t.Fatalf("SignIn = returnTo %q, first %v, expires %v", in.ReturnTo, in.FirstSignIn, in.ExpiresAt)
	}
	wallet := authtest.AddressOf(in.User.ID)
	if in.User.Wallet != wallet || in.User.Handle != "alice" || in.User.Picture != alice.Picture || f.wallets.Calls(in.User.ID) != 1 {
		t.Fatalf("user %+v, wallet created %d times; want the custodial wallet %s, created once", in.User, f.wallets.Calls(in.User.ID), wallet)
	}
	p, _ := f.authenticate(t, auth.Credentials{SessionToken: in.Token})
	want := &auth.Principal{
		AccountID: in.User.ID, Wallet: wallet, Handle: "alice", Picture: alice.Picture, Tier: curvekit.TierFree,
		Kind: auth.KindSession, SessionID: p.SessionID, SignedInAt: f.clock.Now(),
	}
	if diff := cmp.Diff(want, p, cmp.Comparer(func(a, b netip.Prefix) bool { return a == b })); diff != "" {
		t.Fatalf("principal (-want +got):\n%s", diff)
	}

	// Signing in again from the same browser: the same account and wallet, a new session, and
	// the previous session ends.
	f.clock.Advance(time.Hour)
	start, err = f.svc.Begin(ctx, auth.BeginParams{})
	if err != nil {
		t.Fatal(err)
	}
	code, state, _ = f.provider.Approve(start.URL, auth.Identity{Provider: "test", Subject: "alice-sub", Handle: "alice_renamed"})
	again, err := f.svc.Complete(ctx, auth.CompleteParams{State: state, Code: code, Binding: start.Binding, PreviousSession: in.Token})
	if err != nil {
		t.Fatal(err)
	}
	if again.FirstSignIn || again.User.ID != in.User.ID || again.User.Wallet != wallet || again.Token == in.Token || again.ReturnTo != "/" {
		t.Fatalf("second sign-in = %+v", again)
	}
	if f.wallets.Calls(in.User.ID) != 1 {
		t.Fatalf("wallet created %d times, want once", f.wallets.Calls(in.User.ID))
	}
	if p, outcome := f.authenticate(t, auth.Credentials{SessionToken: in.Token}); p != nil || outcome != auth.Refused {
		t.Fatalf("the rotated-out session still authenticates: %v", outcome)
	}
	p, _ = f.authenticate(t, auth.Credentials{SessionToken: again.Token})
	if p == nil || p.Handle != "alice_renamed" || !p.SignedInAt.Equal(f.clock.Now()) {
		t.Fatalf("new session principal = %+v", p)
	}
}

func TestSignInStateIsSingleUse(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	start, _ := f.svc.Begin(ctx, auth.BeginParams{})
	code, state, _ := f.provider.Approve(start.URL, alice)
	if _, err := f.svc.Complete(ctx, auth.CompleteParams{State: state, Code: code, Binding: start.Binding}); err != nil {
		t.Fatal(err)
	}
	exchanges := f.provider.Exchanges
	_, err := f.svc.Complete(ctx, auth.CompleteParams{State: state, Code: code, Binding: start.Binding})
	if !errors.Is(err, curvekit.ErrUnauthorized) {
		t.Fatalf("replayed state: %v, want ErrUnauthorized", err)
	}
	if f.provider.Exchanges != exchanges {
		t.Fatal("a replayed state reached the provider")
	}
}

func TestSignInRefusals(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	tests := []struct {
		name string
		// complete finishes the sign-in begun as start, after the provider approved it.
		complete func(f *fixture, start auth.Start, code, state string) (auth.SignIn, error)
	}{
		{"expired state", func(f *fixture, start auth.Start, code, state string) (auth.SignIn, error) {
			f.clock.Advance(10 * time.Minute)
			return f.svc.Complete(ctx, auth.CompleteParams{State: state, Code: code, Binding: start.Binding})
		}},
		{"another browser", func(f *fixture, _ auth.Start, code, state string) (auth.SignIn, error) {
			other, _ := f.svc.Begin(ctx, auth.BeginParams{})
			return f.svc.Complete(ctx, auth.CompleteParams{State: state, Code: code, Binding: other.Binding})
		}},
		{"no binding", func(f *fixture, _ auth.Start, code, state string) (auth.SignIn, error) {
			return f.svc.Complete(ctx, auth.CompleteParams{State: state, Code: code})
		}},
		{"unknown state", func(f *fixture, start auth.Start, code, _ string) (auth.SignIn, error) {
			return f.svc.Complete(ctx, auth.CompleteParams{State: strings.Repeat("A", 43), Code: code, Binding: start.Binding})
		}},
		{"malformed state", func(f *fixture, start auth.Start, code, _ string) (auth.SignIn, error) {
			return f.svc.Complete(ctx, auth.CompleteParams{State: "x'; DROP TABLE accounts", Code: code, Binding: start.Binding})
		}},
		{"no code", func(f *fixture, start auth.Start, _, state string) (auth.SignIn, error) {
			return f.svc.Complete(ctx, auth.CompleteParams{State: state, Binding: start.Binding})
		}},
		// A code issued for another sign-in carries another PKCE challenge: injected into this
		// callback, the provider refuses it.
		{"code of another sign-in", func(f *fixture, start auth.Start, _, state string) (auth.SignIn, error) {
			other, _ := f.svc.Begin(ctx, auth.BeginParams{})
			code, _, _ := f.provider.Approve(other.URL, auth.Identity{Provider: "test", Subject: "mallory"})
			return f.svc.Complete(ctx, auth.CompleteParams{State: state, Code: code, Binding: start.Binding})
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			start, err := f.svc.Begin(ctx, auth.BeginParams{})
			if err != nil {
				t.Fatal(err)
			}
			code, state, _ := f.provider.Approve(start.URL, alice)
			in, err := tt.complete(f, start, code, state)
			if !errors.Is(err, curvekit.ErrUnauthorized) {
				t.Fatalf("Complete = %+v, %v; want ErrUnauthorized", in, err)
			}
			if in.Token != "" {
				t.Fatal("a refused sign-in returned a session token")
			}
			// Nothing was stored for the refused sign-in: the next one creates the account.
			if !f.signIn(t, alice).FirstSignIn {
				t.Fatal("a refused sign-in created the account")
			}
		})
	}
}

func TestBeginRefusesBadLoginHint(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	for _, hint := range []string{"a\nb", strings.Repeat("x", 257), "\xff"} {
		if _, err := f.svc.Begin(context.Background(), auth.BeginParams{LoginHint: hint}); !errors.Is(err, curvekit.ErrInvalid) {
			t.Errorf("Begin(login hint %q) = %v, want ErrInvalid", hint, err)
		}
	}
}

func TestSafeReturnTo(t *testing.T) {
	t.Parallel()
	for raw, want := range map[string]string{
		"":                              "/",
		"/":                             "/",
		"/tokens":                       "/tokens",
		"/tokens/0xabc?tab=x#top":       "/tokens/0xabc?tab=x#top",
		"/%2F%2Fevil.example":           "/", // a server that decodes and cleans it would see //evil.example
		"/%5Cevil.example/":             "/",
		"/%255Cevil.example/":           "/",
		"/%25255C%25255Cevil":           "/",
		"/tokens/%5C":                   "/",
		"//evil.example":                "/",
		"///evil.example":               "/",
		"/\\evil.example":               "/",
		"/a\\b":                         "/",
		"\\\\evil.example":              "/",
		"https://evil.example/":         "/",
		"javascript:alert(1)":           "/",
		"evil.example":                  "/",
		"tokens":                        "/",
		"/a b":                          "/",
		"/a\tb":                         "/",
		"/\t/evil.example":              "/",
		"/a\r\nSet-Cookie: x=1":         "/",
		"/é":                            "/",
		"/" + strings.Repeat("a", 2048): "/",
	} {
		if got := auth.SafeReturnTo(raw); got != want {
			t.Errorf("SafeReturnTo(%q) = %q, want %q", raw, got, want)
		}
	}
	// Begin applies it: the callback lands on "/".
	f := newFixture(t)
	start, _ := f.svc.Begin(context.Background(), auth.BeginParams{ReturnTo: "//evil.example"})
	code, state, _ := f.provider.Approve(start.URL, alice)
	in, err := f.svc.Complete(context.Background(), auth.CompleteParams{State: state, Code: code, Binding: start.Binding})
	if err != nil || in.ReturnTo != "/" {
		t.Fatalf("returnTo //evil.example completed to %q, %v; want /", in.ReturnTo, err)
	}
}

// A sign-in whose wallet could not be created opens no session; the next one creates it.
func TestSignInWithoutWalletRetries(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	f.wallets.Fail = errors.New("keyring unavailable")
	start, _ := f.svc.Begin(ctx, auth.BeginParams{})
	code, state, _ := f.provider.Approve(start.URL, alice)
	if in, err := f.svc.Complete(ctx, auth.CompleteParams{State: state, Code: code, Binding: start.Binding}); err == nil || in.Token != "" {
		t.Fatalf("Complete with a failing wallet creator = %+v, %v", in, err)
	}
	f.wallets.Fail = nil
	in := f.signIn(t, alice)
	if in.FirstSignIn || in.User.Wallet != authtest.AddressOf(in.User.ID) || f.wallets.Calls(in.User.ID) != 2 {
		t.Fatalf("retried sign-in = %+v (wallet calls %d)", in, f.wallets.Calls(in.User.ID))
	}
}

func TestIdentityIsCleaned(t *testing.T) {
	t.Parallel()
	tests := []struct {
		id                auth.Identity
		handle, picture   string
		sameHandleAsAgain bool
	}{
		{auth.Identity{Handle: " bob\x00\n ", Picture: "javascript:alert(1)"}, "bob", "", false},
		{auth.Identity{Handle: strings.Repeat("é", 70), Picture: "https://pics.example/a b.png"}, strings.Repeat("é", 64), "", false},
		{auth.Identity{Name: "Carol C", Picture: "http://pics.example/c.png"}, "Carol C", "http://pics.example/c.png", false},
		{auth.Identity{Picture: "data:image/png;base64,AAAA"}, "", "", true},
	}
	for i, tt := range tests {
		f := newFixture(t)
		tt.id.Provider, tt.id.Subject = "test", fmt.Sprintf("s%d", i)
		u := f.signIn(t, tt.id).User
		if tt.sameHandleAsAgain {
			// No handle and no name: a stable handle derived from the identity.
			if !strings.HasPrefix(u.Handle, "user-") || len(u.Handle) != len("user-")+8 || f.signIn(t, tt.id).User.Handle != u.Handle {
				t.Errorf("%d: derived handle %q", i, u.Handle)
			}
		} else if u.Handle != tt.handle {
			t.Errorf("%d: handle %q, want %q", i, u.Handle, tt.handle)
		}
		if u.Picture != tt.picture {
			t.Errorf("%d: picture %q, want %q", i, u.Picture, tt.picture)
		}
	}
}

func TestAuthenticate(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	in := f.signIn(t, alice)
	owner := authtest.SessionPrincipal(t, f.svc, in.Token)
	nk, err := f.svc.CreateKey(ctx, owner, auth.KeyRequest{
		Name: "bot", ReadOnly: true, AllowedIPs: []string{"10.1.2.0/24"}, AllowedRecipients: []string{"0x52908400098527886E0F7030069857D2E4169EE7"},
	})
	if err != nil {
		t.Fatal(err)
	}
	p, _ := f.authenticate(t, auth.Credentials{APIKey: nk.Raw})
	want := &auth.Principal{
		AccountID: owner.AccountID, Wallet: owner.Wallet, Handle: "alice", Picture: alice.Picture, Tier: curvekit.TierFree,
		Kind: auth.KindKey, KeyID: nk.Key.ID, ReadOnly: true,
		AllowedIPs:        []netip.Prefix{netip.MustParsePrefix("10.1.2.0/24")},
		AllowedRecipients: []common.Address{common.HexToAddress("0x52908400098527886E0F7030069857D2E4169EE7")},
	}
	if diff := cmp.Diff(want, p, cmp.Comparer(func(a, b netip.Prefix) bool { return a == b })); diff != "" {
		t.Fatalf("key principal (-want +got):\n%s", diff)
	}
	unknownKey := auth.KeyPrefix + strings.Repeat("0", 48)
	for name, tt := range map[string]struct {
		creds auth.Credentials
		want  auth.Outcome
	}{
		"nothing":                      {auth.Credentials{}, auth.NoCredential},
		"session":                      {auth.Credentials{SessionToken: in.Token}, auth.Authenticated},
		"key":                          {auth.Credentials{APIKey: nk.Raw}, auth.Authenticated},
		"key wins over session":        {auth.Credentials{APIKey: nk.Raw, SessionToken: in.Token}, auth.Authenticated},
		"bad key, no fallback":         {auth.Credentials{APIKey: unknownKey, SessionToken: in.Token}, auth.Refused},
		"unknown key":                  {auth.Credentials{APIKey: unknownKey}, auth.Refused},
		"uppercase key":                {auth.Credentials{APIKey: strings.ToUpper(nk.Raw)}, auth.Refused},
		"key with a trailing newline":  {auth.Credentials{APIKey: nk.Raw + "\n"}, auth.Refused},
		"truncated key":                {auth.Credentials{APIKey: nk.Raw[:len(nk.Raw)-1]}, auth.Refused},
		"unknown session":              {auth.Credentials{SessionToken: strings.Repeat("A", 43)}, auth.Refused},
		"malformed session":            {auth.Credentials{SessionToken: in.Token + "="}, auth.Refused},
		"session token offered as key": {auth.Credentials{APIKey: in.Token}, auth.Refused},
		"key offered as session token": {auth.Credentials{SessionToken: nk.Raw}, auth.Refused},
	} {
		p, outcome := f.authenticate(t, tt.creds)
		if outcome != tt.want {
			t.Errorf("%s: outcome %v, want %v", name, outcome, tt.want)
		}
		if tt.want == auth.Authenticated && p.AccountID != owner.AccountID {
			t.Errorf("%s: principal of account %s", name, p.AccountID)
		}
	}
	if p, _ := f.authenticate(t, auth.Credentials{APIKey: nk.Raw, SessionToken: in.Token}); p.Kind != auth.KindKey {
		t.Errorf("with both credentials the principal is a %s", p.Kind)
	}
}

func TestSessionExpiresAndLogsOut(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	first := f.signIn(t, alice)
	f.clock.Advance(7*24*time.Hour - time.Second)
	if p, _ := f.authenticate(t, auth.Credentials{SessionToken: first.Token}); p == nil {
		t.Fatal("session refused a second before it expires")
	}
	f.clock.Advance(time.Second)
	if p, outcome := f.authenticate(t, auth.Credentials{SessionToken: first.Token}); p != nil || outcome != auth.Refused {
		t.Fatalf("expired session: %v", outcome)
	}
	second := f.signIn(t, alice)
	p := authtest.SessionPrincipal(t, f.svc, second.Token)
	if err := f.svc.Logout(ctx, p); err != nil {
		t.Fatal(err)
	}
	if p, outcome := f.authenticate(t, auth.Credentials{SessionToken: second.Token}); p != nil || outcome != auth.Refused {
		t.Fatalf("session after logout: %v", outcome)
	}
	nk, err := f.svc.CreateKey(ctx, authtest.SessionPrincipal(t, f.svc, f.signIn(t, alice).Token), auth.KeyRequest{})
	if err != nil {
		t.Fatal(err)
	}
	kp, _ := f.authenticate(t, auth.Credentials{APIKey: nk.Raw})
	if err := f.svc.Logout(ctx, kp); !errors.Is(err, curvekit.ErrForbidden) {
		t.Fatalf("Logout with a key: %v, want ErrForbidden", err)
	}
	if err := f.svc.Logout(ctx, nil); !errors.Is(err, curvekit.ErrUnauthorized) {
		t.Fatalf("Logout without a principal: %v, want ErrUnauthorized", err)
	}
}

// A store that cannot answer is an error, not a refusal: the request fails instead of being
// treated as anonymous.
func TestAuthenticateStoreFailure(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.db.Close()
	for _, creds := range []auth.Credentials{
		{APIKey: auth.KeyPrefix + strings.Repeat("a", 48)},
		{SessionToken: strings.Repeat("A", 43)},
	} {
		if p, _, err := f.svc.Authenticate(context.Background(), creds); err == nil || p != nil {
			t.Errorf("Authenticate on a closed store = %v, %v; want an error", p, err)
		}
	}
	// A malformed credential never reaches the store.
	if _, outcome, err := f.svc.Authenticate(context.Background(), auth.Credentials{APIKey: "svc_nope"}); err != nil || outcome != auth.Refused {
		t.Errorf("malformed key on a closed store = %v, %v; want Refused without asking the store", outcome, err)
	}
}

func TestCreateKey(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	owner := f.session(t, alice)
	nk, err := f.svc.CreateKey(ctx, owner, auth.KeyRequest{Name: "trading bot"})
	if err != nil {
		t.Fatal(err)
	}
	if !auth.ValidKeyShape(nk.Raw) || nk.Key.Hint != "svc_…"+nk.Raw[len(nk.Raw)-4:] || nk.Key.ReadOnly {
		t.Fatalf("created key %q with hint %q, read-only %v", nk.Raw, nk.Key.Hint, nk.Key.ReadOnly)
	}
	f.clock.Advance(time.Second)
	ips := make([]string, auth.MaxAllowlist)
	recipients := make([]string, auth.MaxAllowlist)
	for i := range ips {
		ips[i] = fmt.Sprintf("10.0.%d.0/24", i)
		recipients[i] = common.BytesToAddress([]byte{1, byte(i + 1)}).Hex()
	}
	full, err := f.svc.CreateKey(ctx, owner, auth.KeyRequest{AllowedIPs: ips, AllowedRecipients: recipients})
	if err != nil {
		t.Fatalf("%d allowedIps and %d allowedRecipients: %v", len(ips), len(recipients), err)
	}
	keys, err := f.svc.Keys(ctx, owner)
	if err != nil {
		t.Fatal(err)
	}
	if len(keys) != 2 || keys[0].ID != full.Key.ID || keys[1].ID != nk.Key.ID || len(keys[0].AllowedIPs) != 50 || len(keys[0].AllowedRecipients) != 50 {
		t.Fatalf("Keys = %+v", keys)
	}
	if nk.Raw == full.Raw {
		t.Fatal("two keys share a raw key")
	}
	// Another account sees none of them.
	if keys, err := f.svc.Keys(ctx, f.session(t, auth.Identity{Provider: "test", Subject: "bob"})); err != nil || len(keys) != 0 {
		t.Fatalf("another account's Keys = %v, %v", keys, err)
	}
}

func TestCreateKeyListsEveryProblem(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	owner := f.session(t, alice)
	ips := make([]string, auth.MaxAllowlist+1)
	for i := range ips {
		ips[i] = "10.0.0.1"
	}
	_, err := f.svc.CreateKey(context.Background(), owner, auth.KeyRequest{
		Name:              strings.Repeat("n", auth.MaxKeyName+1),
		AllowedIPs:        ips,
		AllowedRecipients: []string{"0x1", "0x52908400098527886E0F7030069857D2E4169EE7", "0x52908400098527886e0f7030069857d2e4169ee7"},
	})
	var problems curvekit.Problems
	if !errors.As(err, &problems) || !errors.Is(err, curvekit.ErrInvalid) {
		t.Fatalf("CreateKey = %v, want curvekit.Problems", err)
	}
	want := curvekit.Problems{
		"name: at most 64 characters",
		"allowedIps: at most 50 entries, got 51",
		`allowedRecipients[0]: "0x1" is not an address (0x and 40 hex digits)`,
		`allowedRecipients[2]: "0x52908400098527886e0f7030069857d2e4169ee7" repeats allowedRecipients[1]`,
	}
	if diff := cmp.Diff(want, problems); diff != "" {
		t.Fatalf("problems (-want +got):\n%s", diff)
	}
	if keys, _ := f.svc.Keys(context.Background(), owner); len(keys) != 0 {
		t.Fatal("an invalid request stored a key")
	}
}

func TestCreateKeyLimit(t *testing.T) {
	t.Parallel()
	f := newFixture(t, func(c *auth.Config) { c.MaxKeys = 2 })
	ctx := context.Background()
	owner := f.session(t, alice)
	for range 2 {
		if _, err := f.svc.CreateKey(ctx, owner, auth.KeyRequest{}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := f.svc.CreateKey(ctx, owner, auth.KeyRequest{}); !errors.Is(err, curvekit.ErrLimited) || !strings.Contains(err.Error(), "at most 2 active API keys") {
		t.Fatalf("third key: %v, want ErrLimited naming the limit", err)
	}
}

// SPEC 5 rule 7: keys are managed from a session, never with a key.
func TestKeysAreManagedFromASession(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	owner := f.session(t, alice)
	nk, err := f.svc.CreateKey(ctx, owner, auth.KeyRequest{})
	if err != nil {
		t.Fatal(err)
	}
	kp, _ := f.authenticate(t, auth.Credentials{APIKey: nk.Raw})
	for name, call := range map[string]func(*auth.Principal) error{
		"create": func(p *auth.Principal) error { _, err := f.svc.CreateKey(ctx, p, auth.KeyRequest{}); return err },
		"list":   func(p *auth.Principal) error { _, err := f.svc.Keys(ctx, p); return err },
		"revoke": func(p *auth.Principal) error { return f.svc.RevokeKey(ctx, p, nk.Key.ID) },
	} {
		if err := call(kp); !errors.Is(err, curvekit.ErrForbidden) {
			t.Errorf("%s with a key: %v, want ErrForbidden", name, err)
		}
		if err := call(nil); !errors.Is(err, curvekit.ErrUnauthorized) {
			t.Errorf("%s without a principal: %v, want ErrUnauthorized", name, err)
		}
	}
	if p, _ := f.authenticate(t, auth.Credentials{APIKey: nk.Raw}); p == nil {
		t.Fatal("the key was revoked by itself")
	}
}

func TestRevokeKey(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	owner := f.session(t, alice)
	bob := f.session(t, auth.Identity{Provider: "test", Subject: "bob"})
	nk, err := f.svc.CreateKey(ctx, owner, auth.KeyRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if err := f.svc.RevokeKey(ctx, bob, nk.Key.ID); !errors.Is(err, curvekit.ErrForbidden) {
		t.Fatalf("revoking another account's key: %v, want ErrForbidden", err)
	}
	for _, id := range []string{"key_" + strings.Repeat("0", 24), "nope", "", "key_../../etc"} {
		if err := f.svc.RevokeKey(ctx, owner, id); !errors.Is(err, curvekit.ErrNotFound) {
			t.Fatalf("revoking key %q: %v, want ErrNotFound", id, err)
		}
	}
	if p, _ := f.authenticate(t, auth.Credentials{APIKey: nk.Raw}); p == nil {
		t.Fatal("refused revocations revoked the key")
	}
	f.clock.Advance(time.Minute)
	if err := f.svc.RevokeKey(ctx, owner, nk.Key.ID); err != nil {
		t.Fatal(err)
	}
	if p, outcome := f.authenticate(t, auth.Credentials{APIKey: nk.Raw}); p != nil || outcome != auth.Refused {
		t.Fatalf("revoked key: %v", outcome)
	}
	if err := f.svc.RevokeKey(ctx, owner, nk.Key.ID); err != nil {
		t.Fatalf("revoking again: %v", err)
	}
	keys, _ := f.svc.Keys(ctx, owner)
	if len(keys) != 1 || !keys[0].RevokedAt.Equal(f.clock.Now()) {
		t.Fatalf("Keys after revocation = %+v", keys)
	}
}

func TestLastUsedAtIsWrittenOncePerMinute(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	owner := f.session(t, alice)
	nk, err := f.svc.CreateKey(ctx, owner, auth.KeyRequest{})
	if err != nil {
		t.Fatal(err)
	}
	lastUsed := func() time.Time {
		t.Helper()
		keys, err := f.svc.Keys(ctx, owner)
		if err != nil {
			t.Fatal(err)
		}
		return keys[0].LastUsedAt
	}
	if !lastUsed().IsZero() {
		t.Fatal("a new key has been used")
	}
	first := f.clock.Now()
	for _, step := range []struct {
		advance time.Duration
		want    time.Time
	}{
		{0, first},
		{30 * time.Second, first},
		{29 * time.Second, first},
		{time.Second, first.Add(time.Minute)},
	} {
		f.clock.Advance(step.advance)
		if p, _ := f.authenticate(t, auth.Credentials{APIKey: nk.Raw}); p == nil {
			t.Fatal("key refused")
		}
		if got := lastUsed(); !got.Equal(step.want) {
			t.Fatalf("after %v: lastUsedAt %v, want %v", f.clock.Now().Sub(first), got, step.want)
		}
	}
}

func TestTierAndProfile(t *testing.T) {
	t.Parallel()
	listed := authtest.AddressOf("listed")
	f := newFixture(t, func(c *auth.Config) { c.ProWallets = []common.Address{listed} })
	ctx := context.Background()
	in := f.signIn(t, alice)
	w := in.User.Wallet
	tier := func(w common.Address) curvekit.Tier {
		t.Helper()
		got, err := f.svc.Tier(ctx, w)
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	if tier(w) != curvekit.TierFree || tier(authtest.AddressOf("nobody")) != curvekit.TierFree || tier(listed) != curvekit.TierPro {
		t.Fatal("free by default, pro when listed")
	}
	if err := f.svc.SetTier(ctx, w, curvekit.TierPro); err != nil {
		t.Fatal(err)
	}
	if tier(w) != curvekit.TierPro || authtest.SessionPrincipal(t, f.svc, in.Token).Tier != curvekit.TierPro {
		t.Fatal("SetTier(pro) did not make the account pro")
	}
	if err := f.svc.SetTier(ctx, w, "gold"); !errors.Is(err, curvekit.ErrInvalid) {
		t.Fatalf("SetTier(gold): %v, want ErrInvalid", err)
	}
	if err := f.svc.SetTier(ctx, authtest.AddressOf("nobody"), curvekit.TierPro); !errors.Is(err, curvekit.ErrNotFound) {
		t.Fatalf("SetTier of an unknown wallet: %v, want ErrNotFound", err)
	}
	// A listed wallet's account is pro whatever is recorded.
	g, err := auth.New(auth.Config{Accounts: f.db.Accounts(), Provider: f.provider, Wallets: f.wallets, ProWallets: []common.Address{w}})
	if err != nil {
		t.Fatal(err)
	}
	if err := g.SetTier(ctx, w, curvekit.TierFree); err != nil {
		t.Fatal(err)
	}
	if got, _ := g.Tier(ctx, w); got != curvekit.TierPro {
		t.Fatalf("listed wallet's tier %q, want pro", got)
	}

	p, err := f.svc.Profile(ctx, w)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(auth.Profile{Wallet: w, Handle: "alice", Picture: alice.Picture, JoinedAt: in.User.CreatedAt}, p); diff != "" {
		t.Fatalf("Profile (-want +got):\n%s", diff)
	}
	if _, err := f.svc.Profile(ctx, authtest.AddressOf("nobody")); !errors.Is(err, curvekit.ErrNotFound) {
		t.Fatalf("Profile of an unknown wallet: %v, want ErrNotFound", err)
	}
}

func TestPrune(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	start, _ := f.svc.Begin(ctx, auth.BeginParams{})
	code, state, _ := f.provider.Approve(start.URL, alice)
	f.clock.Advance(11 * time.Minute)
	if err := f.svc.Prune(ctx); err != nil {
		t.Fatal(err)
	}
	f.clock.Advance(-11 * time.Minute)
	// Even with the clock turned back, the pruned sign-in is gone.
	if _, err := f.svc.Complete(ctx, auth.CompleteParams{State: state, Code: code, Binding: start.Binding}); !errors.Is(err, curvekit.ErrUnauthorized) {
		t.Fatalf("Complete after Prune: %v, want ErrUnauthorized", err)
	}
}
