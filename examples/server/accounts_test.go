package main

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/big"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/google/go-cmp/cmp"
	"github.com/oauth2-proxy/mockoidc"
	"golang.org/x/oauth2"

	"github.com/curvekit/curvekit"
	"github.com/curvekit/curvekit/auth"
	"github.com/curvekit/curvekit/internal/app"
	"github.com/curvekit/curvekit/internal/app/apptest"
	"github.com/curvekit/curvekit/wallet"
)

// browser is a person's HTTP client: a cookie jar, redirects followed, and headers sent with
// every request (X-Forwarded-For from a trusted proxy, when the test sets one).
type browser struct {
	t      testing.TB
	s      *testServer
	c      *http.Client
	header http.Header
}

func (s *testServer) browser(t testing.TB) *browser {
	jar, _ := cookiejar.New(nil)
	return &browser{t: t, s: s, c: &http.Client{Jar: jar, Timeout: 30 * time.Second, Transport: s.transport()}, header: http.Header{}}
}

// transport is the client transport for this server (trusting its certificate over https).
func (s *testServer) transport() http.RoundTripper {
	roots, ok := tlsRoots.Load(s.base)
	if !ok {
		return http.DefaultTransport
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.TLSClientConfig = &tls.Config{RootCAs: roots.(*x509.CertPool)}
	return tr
}

// tlsRoots holds, by base URL, the certificate pool of each server a test serves over TLS.
var tlsRoots sync.Map

// answer is a response read in full.
type answer struct {
	status int
	header http.Header
	body   []byte
	url    *url.URL
}

func (a answer) decode(t testing.TB, out any) {
	t.Helper()
	if err := json.Unmarshal(a.body, out); err != nil {
		t.Fatalf("%v in %s", err, a.body)
	}
}

// do sends a request with the browser's cookies and headers plus hdr (pairs of name, value).
func (b *browser) do(method, path, body string, hdr ...string) answer {
	b.t.Helper()
	return do(b.t, b.c, b.s.base, b.header, method, path, body, hdr...)
}

func do(t testing.TB, c *http.Client, base string, common http.Header, method, path, body string, hdr ...string) answer {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	u := path
	if strings.HasPrefix(path, "/") {
		u = base + path
	}
	req, err := http.NewRequest(method, u, rd)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range common {
		req.Header[k] = v
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	return answer{status: resp.StatusCode, header: resp.Header, body: raw, url: resp.Request.URL}
}

// anon sends a request without cookies.
func (s *testServer) anon(t testing.TB, method, path, body string, hdr ...string) answer {
	t.Helper()
	return do(t, &http.Client{Timeout: 30 * time.Second, Transport: s.transport()}, s.base, nil, method, path, body, hdr...)
}

type me struct {
	User *struct {
		Wallet string `json:"wallet"`
		Handle string `json:"handle"`
		Pfp    string `json:"pfp"`
		Tier   string `json:"tier"`
	} `json:"user"`
	SignedInAt *int64 `json:"signedInAt"`
}

// signIn signs in through the server's development identity provider as handle and returns the
// browser holding the session, and the user.
func (s *testServer) signIn(t testing.TB, handle string, hdr ...string) (*browser, me) {
	t.Helper()
	b := s.browser(t)
	for i := 0; i+1 < len(hdr); i += 2 {
		b.header.Set(hdr[i], hdr[i+1])
	}
	a := b.do(http.MethodGet, "/auth/login?login_hint="+url.QueryEscape(handle)+"&returnTo=/auth/me", "")
	if a.status != http.StatusOK || a.url.Path != "/auth/me" {
		t.Fatalf("sign-in as %s ended at %s with %d: %s", handle, a.url, a.status, a.body)
	}
	var m me
	a.decode(t, &m)
	if m.User == nil || m.User.Handle != handle || !common.IsHexAddress(m.User.Wallet) {
		t.Fatalf("signed in as %s: %s", handle, a.body)
	}
	return b, m
}

type keyJSON struct {
	ID                string   `json:"id"`
	Key               string   `json:"key,omitempty"`
	Name              string   `json:"name"`
	Hint              string   `json:"hint"`
	ReadOnly          bool     `json:"readOnly"`
	AllowedIPs        []string `json:"allowedIps"`
	AllowedRecipients []string `json:"allowedRecipients"`
	CreatedAt         int64    `json:"createdAt"`
	LastUsedAt        *int64   `json:"lastUsedAt"`
	RevokedAt         *int64   `json:"revokedAt"`
}

// newKey creates an API key with body and returns it, raw key included.
func (b *browser) newKey(body string) keyJSON {
	b.t.Helper()
	a := b.do(http.MethodPost, "/api-keys", body)
	if a.status != http.StatusCreated {
		b.t.Fatalf("POST /api-keys %s: %d %s", body, a.status, a.body)
	}
	if cc := a.header.Get("Cache-Control"); cc != "no-store" {
		b.t.Errorf("POST /api-keys: Cache-Control %q, want no-store", cc)
	}
	var k keyJSON
	a.decode(b.t, &k)
	if !auth.ValidKeyShape(k.Key) {
		b.t.Fatalf("raw key %q", k.Key)
	}
	return k
}

// errBody is the error shape of SPEC 7.
type errBody struct {
	StatusCode int `json:"statusCode"`
	Message    any `json:"message"`
}

func wantStatus(t testing.TB, what string, a answer, status int) {
	t.Helper()
	if a.status != status {
		t.Fatalf("%s: %d %s, want %d", what, a.status, a.body, status)
	}
	if status >= 400 {
		var e errBody
		if err := json.Unmarshal(a.body, &e); err != nil || e.StatusCode != status || e.Message == nil {
			t.Fatalf("%s: error body %s", what, a.body)
		}
	}
}

// newToken is a session token as the server makes them: 32 random bytes, base64url.
func newToken() string {
	var b [32]byte
	rand.Read(b[:])
	return base64.RawURLEncoding.EncodeToString(b[:])
}

func digest(s string) []byte {
	h := sha256.Sum256([]byte(s))
	return h[:]
}

func newID(prefix string) string {
	var b [12]byte
	rand.Read(b[:])
	return prefix + hex.EncodeToString(b[:])
}

// plantSession stores a session for the account of wallet directly in the server's store, with
// the given sign-in and expiry times, and returns its raw token: sessions the clock has passed
// by, without waiting a week.
func (s *testServer) plantSession(t testing.TB, w string, signedIn, expires time.Time) string {
	t.Helper()
	ctx := context.Background()
	u, err := s.app.DB.Accounts().UserByWallet(ctx, common.HexToAddress(w))
	if err != nil {
		t.Fatal(err)
	}
	token := newToken()
	err = s.app.DB.Accounts().OpenSession(ctx, &auth.OpenSessionParams{
		Session:   auth.Session{ID: newID("ses_"), AccountID: u.ID, SignedInAt: signedIn, ExpiresAt: expires},
		TokenHash: digest(token),
	})
	if err != nil {
		t.Fatal(err)
	}
	return token
}

// serveOn wires the server like startServerWith, but on a listener the test made, behind wrap
// (TLS) when given; flags should name --public-url when the listener's address is not what
// browsers use.
func serveOn(t testing.TB, ln net.Listener, wrap func(net.Listener) net.Listener, base string, flags []string, opts []app.Option) *testServer {
	t.Helper()
	return serveLogged(t, ln, wrap, base, flags, opts, discardLogger())
}

// serveLogged is serveOn with the server's logger.
func serveLogged(t testing.TB, ln net.Listener, wrap func(net.Listener) net.Listener, base string, flags []string, opts []app.Option, log *slog.Logger) *testServer {
	t.Helper()
	args := append([]string{"--db", filepath.Join(t.TempDir(), "e2e.db"), "--addr", ln.Addr().String(),
		"--simulate", "0", "--poll", "20ms", "--rate-limit", "100000000"}, flags...)
	cfg, err := app.ParseConfig(args)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	a, err := app.New(ctx, cfg, log, opts...)
	if err != nil {
		t.Fatal(err)
	}
	if wrap != nil {
		ln = wrap(ln)
	}
	done := make(chan error, 1)
	go func() { done <- a.Serve(ctx, ln) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
		a.Close()
	})
	return &testServer{t: t, app: &testApp{App: a, dev: a.Devnet, chain: a.Chain, store: a.Store}, base: base}
}

// selfSigned is a certificate for 127.0.0.1 and the pool that trusts it.
func selfSigned(t testing.TB) (tls.Certificate, *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "127.0.0.1"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}, KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, pool
}

// sessionCookieOf returns the svc_session cookie a response sets, exactly as sent.
func sessionCookieOf(t testing.TB, h http.Header) *http.Cookie {
	t.Helper()
	var found *http.Cookie
	for _, line := range h.Values("Set-Cookie") {
		c, err := http.ParseSetCookie(line)
		if err != nil {
			t.Fatalf("Set-Cookie %q: %v", line, err)
		}
		if c.Name == "svc_session" {
			if found != nil {
				t.Fatalf("svc_session set twice: %v", h.Values("Set-Cookie"))
			}
			found = c
		}
	}
	if found == nil {
		t.Fatalf("no svc_session in %v", h.Values("Set-Cookie"))
	}
	return found
}

// wantSessionCookie checks the attributes of SPEC 3.3 and FACTS.md, exactly.
func wantSessionCookie(t testing.TB, c *http.Cookie, secure bool) {
	t.Helper()
	got := *c
	got.Raw, got.Value = "", ""
	want := http.Cookie{Name: "svc_session", Path: "/", MaxAge: 604800, HttpOnly: true, Secure: secure, SameSite: http.SameSiteLaxMode}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("svc_session attributes (-want +got):\n%s\nraw: %s", diff, c.Raw)
	}
	if len(c.Value) != 43 {
		t.Errorf("svc_session value %q is not a 256-bit token", c.Value)
	}
}

// noRedirect is a client that stops at each redirect, so every step of a sign-in is seen.
func noRedirect(s *testServer) *http.Client {
	jar, _ := cookiejar.New(nil)
	return &http.Client{Jar: jar, Timeout: 30 * time.Second, Transport: s.transport(),
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

// step follows one redirect by hand.
func step(t testing.TB, c *http.Client, u string) answer {
	t.Helper()
	return do(t, c, "", nil, http.MethodGet, u, "")
}

// TestSignInDevProvider signs in through the development provider step by step: the login
// redirect carries an S256 challenge, state and login_hint; the callback sets svc_session with
// exact attributes and lands on returnTo; the state cannot be replayed; a tampered challenge
// fails the sign-in (the provider checks the verifier the server sends); logout ends the session.
func TestSignInDevProvider(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	c := noRedirect(s)

	login := step(t, c, s.base+"/auth/login?login_hint=alice&returnTo="+url.QueryEscape("/tokens?sort=new"))
	if login.status != http.StatusFound || login.header.Get("Cache-Control") != "no-store" {
		t.Fatalf("login: %d %v", login.status, login.header)
	}
	authz, err := url.Parse(login.header.Get("Location"))
	if err != nil {
		t.Fatal(err)
	}
	q := authz.Query()
	if authz.Path != "/dev-oauth/authorize" || q.Get("code_challenge_method") != "S256" || len(q.Get("code_challenge")) != 43 ||
		q.Get("login_hint") != "alice" || len(q.Get("state")) != 43 || q.Get("redirect_uri") != s.base+"/auth/callback" {
		t.Fatalf("authorization URL %s", authz)
	}
	cb := step(t, c, authz.String())
	if cb.status != http.StatusFound {
		t.Fatalf("provider: %d %s", cb.status, cb.body)
	}
	callback := cb.header.Get("Location")
	done := step(t, c, callback)
	if done.status != http.StatusFound || done.header.Get("Location") != "/tokens?sort=new" {
		t.Fatalf("callback: %d to %q %s", done.status, done.header.Get("Location"), done.body)
	}
	cookie := sessionCookieOf(t, done.header)
	wantSessionCookie(t, cookie, false)

	a := do(t, c, s.base, nil, http.MethodGet, "/auth/me", "")
	var m me
	a.decode(t, &m)
	if a.status != http.StatusOK || m.User == nil || m.User.Handle != "alice" || m.User.Tier != "free" || m.SignedInAt == nil {
		t.Fatalf("/auth/me: %d %s", a.status, a.body)
	}

	// The callback again, even with the browser's binding cookie restored, finds no state.
	replay := noRedirect(s)
	u, _ := url.Parse(s.base)
	replay.Jar.SetCookies(u, c.Jar.Cookies(u))
	if r := step(t, replay, callback); r.status != http.StatusUnauthorized {
		t.Fatalf("replayed callback: %d %s", r.status, r.body)
	}

	// A challenge that is not the server's: the provider binds the code to it, and the server's
	// verifier does not match, so the sign-in fails.
	c2 := noRedirect(s)
	login = step(t, c2, s.base+"/auth/login?login_hint=mallory")
	authz, _ = url.Parse(login.header.Get("Location"))
	q = authz.Query()
	q.Set("code_challenge", oauth2.S256ChallengeFromVerifier(oauth2.GenerateVerifier()))
	authz.RawQuery = q.Encode()
	cb = step(t, c2, authz.String())
	if r := step(t, c2, cb.header.Get("Location")); r.status != http.StatusUnauthorized {
		t.Fatalf("sign-in with a foreign challenge: %d %s", r.status, r.body)
	}

	// Logout ends the session server-side: the old cookie, sent by hand, is refused.
	out := do(t, c, s.base, nil, http.MethodGet, "/auth/logout", "")
	if out.status != http.StatusOK {
		t.Fatalf("logout: %d %s", out.status, out.body)
	}
	if cleared := sessionCookieOf(t, out.header); cleared.MaxAge >= 0 || cleared.Value != "" {
		t.Errorf("logout did not clear the cookie: %s", cleared.Raw)
	}
	old := s.anon(t, http.MethodGet, "/auth/me", "", "Cookie", "svc_session="+cookie.Value)
	wantStatus(t, "old cookie after logout", old, http.StatusUnauthorized)
	var visitor me
	s.anon(t, http.MethodGet, "/auth/session", "", "Cookie", "svc_session="+cookie.Value).decode(t, &visitor)
	if visitor.User != nil {
		t.Fatalf("/auth/session after logout: %+v", visitor)
	}
}

// TestSignInReturnToStaysOnSite: returnTo values that would leave the site land on /.
func TestSignInReturnToStaysOnSite(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	for _, rt := range []string{"//evil.example", "//evil.example/x", "https://evil.example", `/\evil.example`, "evil.example", "/ok/path?x=1"} {
		b := s.browser(t)
		b.c.CheckRedirect = func(req *http.Request, via []*http.Request) error {
			if req.URL.Host != strings.TrimPrefix(s.base, "http://") {
				return fmt.Errorf("left the site for %s", req.URL)
			}
			if req.URL.Path == "/auth/callback" || strings.HasPrefix(req.URL.Path, "/dev-oauth/") {
				return nil
			}
			return http.ErrUseLastResponse // the landing page: stop here
		}
		a := b.do(http.MethodGet, "/auth/login?login_hint=bob&returnTo="+url.QueryEscape(rt), "")
		want := "/"
		if rt == "/ok/path?x=1" {
			want = rt
		}
		if a.status != http.StatusFound || a.header.Get("Location") != want {
			t.Errorf("returnTo=%s: %d to %q, want %q", rt, a.status, a.header.Get("Location"), want)
		}
	}
}

// TestSignInStateExpires: a state the store holds past its expiry is refused, while the same
// sign-in with a live state succeeds (the code and verifier are real in both).
func TestSignInStateExpires(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	ctx := context.Background()
	for _, tc := range []struct {
		name    string
		expires time.Duration
		status  int
	}{{"live", time.Minute, http.StatusFound}, {"expired", -time.Second, http.StatusUnauthorized}} {
		state, binding, verifier := newToken(), newToken(), oauth2.GenerateVerifier()
		now := time.Now()
		err := s.app.DB.Accounts().PutLoginState(ctx, auth.LoginState{
			StateHash: digest(state), BindingHash: digest(binding), Verifier: verifier, ReturnTo: "/x",
			CreatedAt: now.Add(-10 * time.Minute), ExpiresAt: now.Add(tc.expires),
		})
		if err != nil {
			t.Fatal(err)
		}
		// The provider's authorization, as the login redirect would have asked for it.
		c := noRedirect(s)
		authz := s.base + "/dev-oauth/authorize?" + url.Values{
			"client_id": {"curvekit-dev"}, "redirect_uri": {s.base + "/auth/callback"}, "response_type": {"code"},
			"scope": {"openid profile"}, "state": {state}, "login_hint": {"carol"},
			"code_challenge": {oauth2.S256ChallengeFromVerifier(verifier)}, "code_challenge_method": {"S256"},
		}.Encode()
		cb := step(t, c, authz)
		u, _ := url.Parse(s.base)
		c.Jar.SetCookies(u, []*http.Cookie{{Name: "svc_signin", Value: binding, Path: "/auth"}})
		if r := step(t, c, cb.header.Get("Location")); r.status != tc.status {
			t.Fatalf("%s state: %d %s, want %d", tc.name, r.status, r.body, tc.status)
		}
	}
}

// TestSessionExpired: a session past its expiry (stored so by the store, as a week later) is
// 401 on /auth/me and a visitor on /auth/session; the same session still valid is 200.
func TestSessionExpired(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	_, m := s.signIn(t, "dave")
	now := time.Now()
	live := s.plantSession(t, m.User.Wallet, now.Add(-time.Hour), now.Add(time.Hour))
	expired := s.plantSession(t, m.User.Wallet, now.Add(-7*24*time.Hour-time.Second), now.Add(-time.Second))
	wantStatus(t, "live session", s.anon(t, http.MethodGet, "/auth/me", "", "Cookie", "svc_session="+live), http.StatusOK)
	wantStatus(t, "expired session", s.anon(t, http.MethodGet, "/auth/me", "", "Cookie", "svc_session="+expired), http.StatusUnauthorized)
	var v me
	a := s.anon(t, http.MethodGet, "/auth/session", "", "Cookie", "svc_session="+expired)
	a.decode(t, &v)
	if a.status != http.StatusOK || v.User != nil {
		t.Fatalf("/auth/session with an expired session: %d %s", a.status, a.body)
	}
}

// TestSignInRotatesSession: signing in again in the same browser ends the previous session.
func TestSignInRotatesSession(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	b, _ := s.signIn(t, "erin")
	u, _ := url.Parse(s.base)
	first := b.c.Jar.Cookies(u)
	var old string
	for _, c := range first {
		if c.Name == "svc_session" {
			old = c.Value
		}
	}
	// returnTo defaults to /, where this API has no page.
	if a := b.do(http.MethodGet, "/auth/login?login_hint=erin", ""); a.url.Path != "/" {
		t.Fatalf("second sign-in ended at %s: %d %s", a.url, a.status, a.body)
	}
	wantStatus(t, "rotated-out session", s.anon(t, http.MethodGet, "/auth/me", "", "Cookie", "svc_session="+old), http.StatusUnauthorized)
	wantStatus(t, "new session", b.do(http.MethodGet, "/auth/me", ""), http.StatusOK)
}

// TestSignInOIDCOverHTTPS signs in against mockoidc, an independent OpenID Connect provider,
// configured by flags, with the server on TLS: the cookie is Secure there; PKCE holds (a code
// redeemed by the server with its verifier; mockoidc refuses a wrong one, see adapters/oauth);
// the profile shows the provider's handle.
func TestSignInOIDCOverHTTPS(t *testing.T) {
	t.Parallel()
	m, err := mockoidc.Run()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = m.Shutdown() })
	m.QueueUser(&mockoidc.MockUser{Subject: "oidc-7", Email: "frank@example.com", PreferredUsername: "frank"})

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	base := "https://" + ln.Addr().String()
	cert, roots := selfSigned(t)
	s := serveOn(t, ln, func(l net.Listener) net.Listener {
		return tls.NewListener(l, &tls.Config{Certificates: []tls.Certificate{cert}})
	}, base, []string{"--public-url", base, "--oauth-issuer", m.Issuer(),
		// mockoidc's random credentials may start with "-": the = form keeps them values.
		"--oauth-client-id=" + m.ClientID, "--oauth-client-secret=" + m.ClientSecret}, nil)
	tlsRoots.Store(base, roots)

	c := noRedirect(s)
	login := step(t, c, base+"/auth/login?returnTo=/auth/me&login_hint=frank@example.com")
	authz, _ := url.Parse(login.header.Get("Location"))
	if !strings.HasPrefix(authz.String(), m.AuthorizationEndpoint()) || authz.Query().Get("code_challenge_method") != "S256" ||
		authz.Query().Get("login_hint") != "frank@example.com" || authz.Query().Get("redirect_uri") != base+"/auth/callback" {
		t.Fatalf("authorization URL %s", authz)
	}
	cb := step(t, c, authz.String())
	done := step(t, c, cb.header.Get("Location"))
	if done.status != http.StatusFound || done.header.Get("Location") != "/auth/me" {
		t.Fatalf("callback: %d %s %s", done.status, done.header.Get("Location"), done.body)
	}
	wantSessionCookie(t, sessionCookieOf(t, done.header), true)
	var who me
	a := do(t, c, base, nil, http.MethodGet, "/auth/me", "")
	a.decode(t, &who)
	if a.status != http.StatusOK || who.User == nil || who.User.Handle != "frank" {
		t.Fatalf("/auth/me: %d %s", a.status, a.body)
	}
	var prof struct{ Wallet, Handle string }
	s.anon(t, http.MethodGet, "/auth/user/"+who.User.Wallet, "").decode(t, &prof)
	if prof.Handle != "frank" || prof.Wallet != who.User.Wallet {
		t.Fatalf("profile %+v", prof)
	}
	if r := step(t, c, cb.header.Get("Location")); r.status != http.StatusUnauthorized {
		t.Fatalf("replayed callback: %d", r.status)
	}
	// PKCE at mockoidc: a challenge that is not the server's binds the code to another verifier,
	// and the server's redemption is refused.
	c2 := noRedirect(s)
	login = step(t, c2, base+"/auth/login")
	authz, _ = url.Parse(login.header.Get("Location"))
	q := authz.Query()
	q.Set("code_challenge", oauth2.S256ChallengeFromVerifier(oauth2.GenerateVerifier()))
	authz.RawQuery = q.Encode()
	cb = step(t, c2, authz.String())
	if r := step(t, c2, cb.header.Get("Location")); r.status != http.StatusUnauthorized {
		t.Fatalf("sign-in with a foreign challenge at mockoidc: %d %s", r.status, r.body)
	}
}

// TestProfile: the public profile of a signed-in user; 404 for a wallet without an account,
// 400 for a malformed one.
func TestProfile(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	_, m := s.signIn(t, "grace")
	var p map[string]any
	a := s.anon(t, http.MethodGet, "/auth/user/"+strings.ToLower(m.User.Wallet), "")
	a.decode(t, &p)
	if a.status != http.StatusOK || p["wallet"] != m.User.Wallet || p["handle"] != "grace" || p["joinedAt"] == nil {
		t.Fatalf("profile: %d %s", a.status, a.body)
	}
	wantStatus(t, "unknown wallet", s.anon(t, http.MethodGet, "/auth/user/0x000000000000000000000000000000000000dEaD", ""), http.StatusNotFound)
	wantStatus(t, "malformed wallet", s.anon(t, http.MethodGet, "/auth/user/0x12", ""), http.StatusBadRequest)
}

// TestKeyLifecycle: create shows the raw key once (no-store), only a hint in the list and
// nothing of it in the database's files; 50 allowlist entries are accepted, 51 refused with
// every failing field listed; revoke is 403 for another account's key and 404 for an unknown
// one.
func TestKeyLifecycle(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	b, _ := s.signIn(t, "heidi")
	other, _ := s.signIn(t, "ivan")

	ips := make([]string, 51)
	recipients := make([]string, 51)
	for i := range ips {
		ips[i] = fmt.Sprintf("10.0.%d.0/24", i)
		recipients[i] = common.BigToAddress(big.NewInt(int64(i + 1))).Hex()
	}
	body := func(name string, ips, recipients []string) string {
		raw, _ := json.Marshal(map[string]any{"name": name, "readOnly": true, "allowedIps": ips, "allowedRecipients": recipients})
		return string(raw)
	}
	k := b.newKey(body("fifty", ips[:50], recipients[:50]))
	if len(k.AllowedIPs) != 50 || len(k.AllowedRecipients) != 50 || !k.ReadOnly || k.Name != "fifty" ||
		k.Hint != "svc_…"+k.Key[len(k.Key)-4:] || k.LastUsedAt != nil || k.RevokedAt != nil {
		t.Fatalf("created key %+v", k)
	}
	a := b.do(http.MethodPost, "/api-keys", body("too many", ips, recipients))
	wantStatus(t, "51 entries", a, http.StatusBadRequest)
	var e struct{ Message []string }
	a.decode(t, &e)
	if len(e.Message) != 2 || !strings.Contains(e.Message[0], "allowedIps") || !strings.Contains(e.Message[1], "allowedRecipients") {
		t.Fatalf("51 entries: messages %q", e.Message)
	}
	a = b.do(http.MethodPost, "/api-keys", `{"allowedIps":["10.0.0.0/33","::1","banana"]}`)
	wantStatus(t, "bad addresses", a, http.StatusBadRequest)
	if _, isList := mustErr(t, a).Message.([]any); !isList {
		t.Fatalf("bad addresses: message not an array: %s", a.body)
	}

	var list struct{ Keys []keyJSON }
	a = b.do(http.MethodGet, "/api-keys", "")
	a.decode(t, &list)
	want := k
	want.Key = ""
	if diff := cmp.Diff([]keyJSON{want}, list.Keys); diff != "" {
		t.Fatalf("list (-want +got):\n%s", diff)
	}
	if strings.Contains(string(a.body), k.Key) || strings.Contains(string(a.body), k.Key[4:20]) {
		t.Fatal("the list shows the raw key")
	}

	wantStatus(t, "revoke another account's key", other.do(http.MethodDelete, "/api-keys/"+k.ID, ""), http.StatusForbidden)
	wantStatus(t, "revoke an unknown key", b.do(http.MethodDelete, "/api-keys/key_000000000000000000000000", ""), http.StatusNotFound)
	wantStatus(t, "revoke", b.do(http.MethodDelete, "/api-keys/"+k.ID, ""), http.StatusOK)
	b.do(http.MethodGet, "/api-keys", "").decode(t, &list)
	if len(list.Keys) != 1 || list.Keys[0].RevokedAt == nil {
		t.Fatalf("after revoke: %+v", list.Keys)
	}

	// Nothing of the raw key is at rest: not in the database nor its journal.
	files, _ := filepath.Glob(s.app.Config.DB + "*")
	if len(files) == 0 {
		t.Fatal("no database files")
	}
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			continue // a directory (the devnet's)
		}
		if bytes.Contains(raw, []byte(k.Key)) || bytes.Contains(raw, []byte(k.Key[4:])) {
			t.Fatalf("%s holds the raw key", f)
		}
	}
}

func mustErr(t testing.TB, a answer) errBody {
	t.Helper()
	var e errBody
	a.decode(t, &e)
	return e
}

// TestKeyRevokedUnderConcurrency: goroutines use a key in a loop while it is revoked; every
// request sent after DELETE returned is 401. Each goroutine comes through the trusted proxy
// from its own address, so the refusals do not exhaust one address's budget of failed
// credentials.
func TestKeyRevokedUnderConcurrency(t *testing.T) {
	t.Parallel()
	s := startServer(t, "--trusted-proxies", "127.0.0.1")
	b, _ := s.signIn(t, "judy")
	k := b.newKey(`{"name":"bot"}`)
	var job struct{ JobID string }
	a := s.anon(t, http.MethodPost, "/agent/job", `{"prompt":"price of DETH"}`, "X-API-Key", k.Key)
	a.decode(t, &job)
	if a.status != http.StatusAccepted {
		t.Fatalf("job: %d %s", a.status, a.body)
	}
	path := "/agent/job/" + job.JobID

	const workers = 16
	var revoked atomic.Bool
	var ok, after, wrong atomic.Int64
	var wg sync.WaitGroup
	client := &http.Client{Timeout: 30 * time.Second}
	for g := range workers {
		wg.Go(func() {
			ip := fmt.Sprintf("10.7.%d.1", g)
			extra := 0
			for extra < 5 {
				sentAfter := revoked.Load()
				r := do(t, client, s.base, nil, http.MethodGet, path, "", "X-API-Key", k.Key, "X-Forwarded-For", ip)
				switch {
				case sentAfter && r.status != http.StatusUnauthorized:
					wrong.Add(1)
					t.Errorf("request sent after the revocation: %d %s", r.status, r.body)
				case sentAfter:
					after.Add(1)
				case r.status == http.StatusOK:
					ok.Add(1)
				case r.status != http.StatusUnauthorized:
					t.Errorf("before or during the revocation: %d %s", r.status, r.body)
				}
				if sentAfter {
					extra++
				}
			}
		})
	}
	for ok.Load() < 3*workers {
		time.Sleep(time.Millisecond)
	}
	wantStatus(t, "revoke", b.do(http.MethodDelete, "/api-keys/"+k.ID, ""), http.StatusOK)
	revoked.Store(true)
	wg.Wait()
	if after.Load() != 5*workers || wrong.Load() != 0 {
		t.Fatalf("after the revocation: %d refused, %d served", after.Load(), wrong.Load())
	}
}

// dualStack listens on every IPv6 and IPv4 address; it skips the test where IPv6 or the
// mapping of IPv4 peers is not available.
func dualStack(t *testing.T) net.Listener {
	t.Helper()
	ln, err := net.Listen("tcp", "[::]:0")
	if err != nil {
		t.Skipf("no dual-stack listener: %v", err)
	}
	// Check that an IPv4 client shows up as ::ffff:127.0.0.1 here, or the test proves nothing.
	probe, err := net.Listen("tcp", "[::]:0")
	if err != nil {
		t.Skip(err)
	}
	defer probe.Close()
	port := probe.Addr().(*net.TCPAddr).Port
	go func() {
		if c, err := net.Dial("tcp4", fmt.Sprintf("127.0.0.1:%d", port)); err == nil {
			defer c.Close()
			time.Sleep(100 * time.Millisecond)
		}
	}()
	c, err := probe.Accept()
	if err != nil {
		t.Skip(err)
	}
	peer := c.RemoteAddr().(*net.TCPAddr).AddrPort().Addr()
	c.Close()
	if !peer.Is4In6() {
		ln.Close()
		t.Skipf("IPv4 peers appear as %s, not IPv4-mapped", peer)
	}
	return ln
}

// TestKeyAllowedIPsDualStack: on a listener for [::], an IPv4 client is ::ffff:127.0.0.1 to the
// socket; a key allowing 127.0.0.0/8 works from it, a key allowing 10.1.2.0/24 is 403, and
// passes for 10.1.2.3 forwarded by the trusted proxy 127.0.0.1.
func TestKeyAllowedIPsDualStack(t *testing.T) {
	t.Parallel()
	ln := dualStack(t)
	port := ln.Addr().(*net.TCPAddr).Port
	base := fmt.Sprintf("http://127.0.0.1:%d", port)
	s := serveOn(t, ln, nil, base, []string{"--public-url", base, "--dev-oauth-public", "--trusted-proxies", "127.0.0.1"}, nil)
	if err := s.app.Replica.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
	b, _ := s.signIn(t, "ken")
	loopback := b.newKey(`{"allowedIps":["127.0.0.0/8"]}`)
	elsewhere := b.newKey(`{"allowedIps":["10.1.2.0/24"]}`)
	path := "/tokens/" + s.app.dev.ETHToken.Token.Hex()
	wantStatus(t, "127.0.0.0/8 from ::ffff:127.0.0.1", s.anon(t, http.MethodGet, path, "", "X-API-Key", loopback.Key), http.StatusOK)
	wantStatus(t, "10.1.2.0/24 from ::ffff:127.0.0.1", s.anon(t, http.MethodGet, path, "", "X-API-Key", elsewhere.Key), http.StatusForbidden)
	a := s.anon(t, http.MethodPost, "/agent/job", `{"prompt":"price of DETH"}`, "X-API-Key", loopback.Key)
	wantStatus(t, "a job with the loopback key", a, http.StatusAccepted)
	// The mapped peer is also recognised as the trusted proxy 127.0.0.1, so the client it
	// forwards for is what the allowlist sees.
	wantStatus(t, "10.1.2.0/24 from 10.1.2.3 through the proxy", s.anon(t, http.MethodGet, path, "", "X-API-Key", elsewhere.Key, "X-Forwarded-For", "10.1.2.3"), http.StatusOK)
	wantStatus(t, "10.1.2.0/24 from 10.1.3.3 through the proxy", s.anon(t, http.MethodGet, path, "", "X-API-Key", elsewhere.Key, "X-Forwarded-For", "10.1.3.3"), http.StatusForbidden)
}

// pollJob reads an agent job with key until it has finished.
func (s *testServer) pollJob(t testing.TB, key, id string) jobView {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		var j jobView
		a := s.anon(t, http.MethodGet, "/agent/job/"+id, "", "X-API-Key", key)
		if a.status != http.StatusOK {
			t.Fatalf("job %s: %d %s", id, a.status, a.body)
		}
		a.decode(t, &j)
		if j.Status == "completed" || j.Status == "failed" || j.Status == "cancelled" {
			return j
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("job %s did not finish", id)
	return jobView{}
}

type jobView struct {
	JobID    string            `json:"jobId"`
	Status   string            `json:"status"`
	Response string            `json:"response"`
	Error    string            `json:"error"`
	RichData []json.RawMessage `json:"richData"`
}

// submitJob submits a prompt as an agent job with key and returns its id.
func (s *testServer) submitJob(t testing.TB, key, prompt string, hdr ...string) string {
	t.Helper()
	body, _ := json.Marshal(map[string]string{"prompt": prompt})
	a := s.anon(t, http.MethodPost, "/agent/job", string(body), append([]string{"X-API-Key", key}, hdr...)...)
	if a.status != http.StatusAccepted {
		t.Fatalf("POST /agent/job: %d %s", a.status, a.body)
	}
	var j jobView
	a.decode(t, &j)
	return j.JobID
}

// SPEC 5 rule 1: a session is created by signing in through GET /auth/login; the callback sets
// svc_session, HttpOnly, valid 7 days.
func TestRule1SessionFromSignIn(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	b := s.browser(t)
	wantStatus(t, "/auth/me before sign-in", b.do(http.MethodGet, "/auth/me", ""), http.StatusUnauthorized)
	var seen *http.Cookie
	b.c.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if prev := via[len(via)-1]; prev.URL.Path == "/auth/callback" && req.Response != nil {
			seen = sessionCookieOf(t, req.Response.Header)
		}
		return nil
	}
	a := b.do(http.MethodGet, "/auth/login?login_hint=rule1&returnTo=/auth/me", "")
	if seen == nil {
		t.Fatal("the callback set no svc_session")
	}
	wantSessionCookie(t, seen, false)
	var m me
	a.decode(t, &m)
	if a.status != http.StatusOK || m.User == nil || m.User.Handle != "rule1" || !common.IsHexAddress(m.User.Wallet) {
		t.Fatalf("/auth/me after sign-in: %d %s", a.status, a.body)
	}
}

// SPEC 5 rule 2: keys are checked on every request, and revocation takes effect at once.
func TestRule2KeyCheckedOnEveryRequest(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	b, _ := s.signIn(t, "rule2")
	k := b.newKey(`{}`)
	id := s.submitJob(t, k.Key, "price of DETH")
	wantStatus(t, "the key", s.anon(t, http.MethodGet, "/agent/job/"+id, "", "X-API-Key", k.Key), http.StatusOK)
	for _, bad := range []string{"svc_" + strings.Repeat("0", 48), k.Key[:len(k.Key)-1], strings.ToUpper(k.Key), k.Key + "0"} {
		wantStatus(t, "key "+bad, s.anon(t, http.MethodGet, "/agent/job/"+id, "", "X-API-Key", bad), http.StatusUnauthorized)
	}
	wantStatus(t, "revoke", b.do(http.MethodDelete, "/api-keys/"+k.ID, ""), http.StatusOK)
	wantStatus(t, "the key after revocation", s.anon(t, http.MethodGet, "/agent/job/"+id, "", "X-API-Key", k.Key), http.StatusUnauthorized)
}

// SPEC 5 rule 3: a key never grants beyond its wallet, and each option only restricts: another
// wallet's job is 403, a transaction from another wallet is refused, and allowedRecipients
// refuses other recipients inside the wallet service itself, before the signer, even when the
// HTTP layer is bypassed, while letting a listed one through.
func TestRule3KeyNeverBeyondItsWallet(t *testing.T) {
	t.Parallel()
	signer := &apptest.CountingSigner{}
	s := startServerWith(t, nil, []app.Option{app.WithSigner(signer)})
	alice, am := s.signIn(t, "rule3a")
	bob, bm := s.signIn(t, "rule3b")
	ak := alice.newKey(`{}`)
	bk := bob.newKey(`{}`)
	bobsJob := s.submitJob(t, bk.Key, "price of DETH")
	wantStatus(t, "another wallet's job", s.anon(t, http.MethodGet, "/agent/job/"+bobsJob, "", "X-API-Key", ak.Key), http.StatusForbidden)
	wantStatus(t, "cancel another wallet's job", s.anon(t, http.MethodPost, "/agent/job/"+bobsJob+"/cancel", "", "X-API-Key", ak.Key), http.StatusForbidden)
	from := fmt.Sprintf(`{"to":%q,"value":"1","chainId":1337,"from":%q}`, am.User.Wallet, bm.User.Wallet)
	wantStatus(t, "a transaction from another wallet", s.anon(t, http.MethodPost, "/wallet/sign-and-submit", from, "X-API-Key", ak.Key), http.StatusBadRequest)

	allowed := common.HexToAddress("0x00000000000000000000000000000000000a11ce")
	other := common.HexToAddress("0x000000000000000000000000000000000000b0b0")
	rk := alice.newKey(fmt.Sprintf(`{"allowedRecipients":[%q]}`, allowed.Hex()))
	wantStatus(t, "a recipient outside allowedRecipients", s.anon(t, http.MethodPost, "/wallet/sign-and-submit",
		fmt.Sprintf(`{"to":%q,"value":"1","chainId":1337}`, other.Hex()), "X-API-Key", rk.Key), http.StatusForbidden)

	// The wallet service itself, called as a handler that forgot every check would.
	u, err := s.app.DB.Accounts().UserByWallet(context.Background(), common.HexToAddress(am.User.Wallet))
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.app.Wallets.SignAndSubmit(context.Background(), wallet.SignParams{
		AccountID: u.ID, AllowedRecipients: []common.Address{allowed}, Tx: wallet.Tx{To: other, ChainID: 1337},
	})
	if !errors.Is(err, curvekit.ErrForbidden) {
		t.Fatalf("the service with a recipient outside the list: %v", err)
	}
	if n := signer.Calls(); n != 0 {
		t.Fatalf("the signer was reached %d times", n)
	}
	// The listed recipient goes through.
	s.fund(t, am.User.Wallet, 1)
	a := s.anon(t, http.MethodPost, "/wallet/sign-and-submit", fmt.Sprintf(`{"to":%q,"value":"1","chainId":1337}`, allowed.Hex()), "X-API-Key", rk.Key)
	wantStatus(t, "a recipient in allowedRecipients", a, http.StatusOK)
	if n := signer.Calls(); n != 1 {
		t.Fatalf("the signer was reached %d times, want 1", n)
	}
}

// SPEC 5 rule 4: a read-only key cannot reach the signing path: sign-and-submit is 403 and the
// counting signer sees nothing, over HTTP and in the service; reads and agent planning work.
func TestRule4ReadOnlyKeyNeverReachesSigner(t *testing.T) {
	t.Parallel()
	signer := &apptest.CountingSigner{}
	s := startServerWith(t, nil, []app.Option{app.WithSigner(signer)})
	b, m := s.signIn(t, "rule4")
	s.fund(t, m.User.Wallet, 1)
	k := b.newKey(`{"readOnly":true}`)
	tx := fmt.Sprintf(`{"to":%q,"value":"1","chainId":1337}`, s.app.dev.Accounts[4].Address.Hex())
	for range 3 {
		a := s.anon(t, http.MethodPost, "/wallet/sign-and-submit", tx, "X-API-Key", k.Key)
		wantStatus(t, "read-only key", a, http.StatusForbidden)
		if msg, _ := mustErr(t, a).Message.(string); !strings.Contains(msg, "read-only") {
			t.Fatalf("message %q", msg)
		}
	}
	u, err := s.app.DB.Accounts().UserByWallet(context.Background(), common.HexToAddress(m.User.Wallet))
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.app.Wallets.SignAndSubmit(context.Background(), wallet.SignParams{
		AccountID: u.ID, ReadOnly: true, Tx: wallet.Tx{To: s.app.dev.Accounts[4].Address, ChainID: 1337},
	})
	if !errors.Is(err, curvekit.ErrForbidden) {
		t.Fatalf("the service with a read-only caller: %v", err)
	}
	if n := signer.Calls(); n != 0 {
		t.Fatalf("a read-only key reached the signer %d times", n)
	}
	wantStatus(t, "a read with the read-only key", s.anon(t, http.MethodGet, "/tokens/"+s.app.dev.ETHToken.Token.Hex(), "", "X-API-Key", k.Key), http.StatusOK)
	if j := s.pollJob(t, k.Key, s.submitJob(t, k.Key, "buy 0.01 ETH of DETH")); j.Status != "completed" || len(j.RichData) != 1 {
		t.Fatalf("planning with a read-only key: %+v", j)
	}
	// The same request with the session signs: the refusal was the key's.
	wantStatus(t, "the session", b.do(http.MethodPost, "/wallet/sign-and-submit", tx), http.StatusOK)
}

// SPEC 5 rule 5: a key used from outside a non-empty allowedIps is 403. Behind a trusted proxy
// the client is the rightmost untrusted X-Forwarded-For entry; from an untrusted peer the
// header is ignored.
func TestRule5AllowedIPs(t *testing.T) {
	t.Parallel()
	s := startServer(t, "--trusted-proxies", "127.0.0.1")
	b, _ := s.signIn(t, "rule5")
	k := b.newKey(`{"allowedIps":["10.1.2.0/24"]}`)
	id := s.submitJob(t, k.Key, "price of DETH", "X-Forwarded-For", "10.1.2.3")
	path := "/agent/job/" + id
	for _, tc := range []struct {
		xff    string
		status int
	}{
		{"10.1.2.3", http.StatusOK},
		{"10.1.2.250", http.StatusOK},
		{"192.0.2.7, 10.1.2.3", http.StatusOK}, // the client's own claim, left of it, is not read
		{"10.1.3.3", http.StatusForbidden},
		{"10.1.2.3, 192.0.2.7", http.StatusForbidden}, // a forged entry cannot win
		{"", http.StatusForbidden},                    // the proxy itself, 127.0.0.1
		{"::ffff:10.1.2.3", http.StatusOK},            // mapped form of an allowed address
	} {
		hdr := []string{"X-API-Key", k.Key}
		if tc.xff != "" {
			hdr = append(hdr, "X-Forwarded-For", tc.xff)
		}
		wantStatus(t, "from "+tc.xff, s.anon(t, http.MethodGet, path, "", hdr...), tc.status)
	}
	// Public routes too: the key restricts wherever it is presented.
	wantStatus(t, "a public read from elsewhere", s.anon(t, http.MethodGet, "/config", "", "X-API-Key", k.Key, "X-Forwarded-For", "10.9.9.9"), http.StatusForbidden)

	direct := startServer(t)
	db, _ := direct.signIn(t, "rule5")
	dk := db.newKey(`{"allowedIps":["10.1.2.0/24"]}`)
	wantStatus(t, "X-Forwarded-For from an untrusted peer", direct.anon(t, http.MethodGet, "/config", "", "X-API-Key", dk.Key, "X-Forwarded-For", "10.1.2.3"), http.StatusForbidden)
}

// guarded is every route that needs a credential, with a body where it takes one.
var guarded = []struct{ method, path, body string }{
	{http.MethodGet, "/auth/me", ""},
	{http.MethodGet, "/auth/logout", ""},
	{http.MethodPost, "/api-keys", `{}`},
	{http.MethodGet, "/api-keys", ""},
	{http.MethodDelete, "/api-keys/key_000000000000000000000000", ""},
	{http.MethodPost, "/agent/job", `{"prompt":"hi"}`},
	{http.MethodGet, "/agent/job/job_000000000000000000000000", ""},
	{http.MethodPost, "/agent/job/job_000000000000000000000000/cancel", ""},
	{http.MethodPost, "/agent/prompt", `{"prompt":"hi"}`},
	{http.MethodGet, "/agent/memory", ""},
	{http.MethodDelete, "/agent/memory/risk", ""},
	{http.MethodPost, "/wallet/sign-and-submit", `{"to":"0x000000000000000000000000000000000000dEaD","chainId":1337}`},
	{http.MethodPost, "/wallet/export-key", ""},
}

// SPEC 5 rule 6: a guarded route without credentials, or with an expired session cookie, is 401.
func TestRule6GuardedRoutesWithoutCredentials(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	_, m := s.signIn(t, "rule6")
	now := time.Now()
	expired := s.plantSession(t, m.User.Wallet, now.Add(-8*24*time.Hour), now.Add(-24*time.Hour))
	for _, r := range guarded {
		wantStatus(t, r.method+" "+r.path+" without credentials", s.anon(t, r.method, r.path, r.body), http.StatusUnauthorized)
		wantStatus(t, r.method+" "+r.path+" with an expired session", s.anon(t, r.method, r.path, r.body, "Cookie", "svc_session="+expired), http.StatusUnauthorized)
	}
}

// SPEC 5 rule 7: key management needs a session; an API key gets 403 and changes nothing.
func TestRule7KeyManagementNeedsSession(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	b, _ := s.signIn(t, "rule7")
	k := b.newKey(`{"name":"first"}`)
	wantStatus(t, "create with a key", s.anon(t, http.MethodPost, "/api-keys", `{"name":"second"}`, "X-API-Key", k.Key), http.StatusForbidden)
	wantStatus(t, "list with a key", s.anon(t, http.MethodGet, "/api-keys", "", "X-API-Key", k.Key), http.StatusForbidden)
	wantStatus(t, "revoke with a key", s.anon(t, http.MethodDelete, "/api-keys/"+k.ID, "", "X-API-Key", k.Key), http.StatusForbidden)
	wantStatus(t, "export with a key", s.anon(t, http.MethodPost, "/wallet/export-key", "", "X-API-Key", k.Key), http.StatusForbidden)
	var list struct{ Keys []keyJSON }
	b.do(http.MethodGet, "/api-keys", "").decode(t, &list)
	if len(list.Keys) != 1 || list.Keys[0].RevokedAt != nil {
		t.Fatalf("keys after the key's attempts: %+v", list.Keys)
	}
}

// SPEC 5 rule 8: sign-and-submit accepts a session or an API key; both sign with the account's
// wallet.
func TestRule8SignAndSubmitSessionOrKey(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	b, m := s.signIn(t, "rule8")
	s.fund(t, m.User.Wallet, 1)
	k := b.newKey(`{}`)
	tx := fmt.Sprintf(`{"to":%q,"value":"7","chainId":1337}`, s.app.dev.Accounts[4].Address.Hex())
	var bySession, byKey submission
	a := b.do(http.MethodPost, "/wallet/sign-and-submit", tx)
	wantStatus(t, "session", a, http.StatusOK)
	a.decode(t, &bySession)
	a = s.anon(t, http.MethodPost, "/wallet/sign-and-submit", tx, "X-API-Key", k.Key)
	wantStatus(t, "key", a, http.StatusOK)
	a.decode(t, &byKey)
	if bySession.From != m.User.Wallet || byKey.From != m.User.Wallet || bySession.Nonce == byKey.Nonce {
		t.Fatalf("session %+v, key %+v", bySession, byKey)
	}
	for _, h := range []string{bySession.Hash, byKey.Hash} {
		if r := s.receipt(t, h); r.Status != types.ReceiptStatusSuccessful {
			t.Fatalf("%s failed", h)
		}
	}
}

// SPEC 5 rule 9: the agent returns the transaction for a person to confirm and never calls the
// signer: a job with a read-write key completes with an unsigned transaction (to, data, value),
// the streamed prompt of a session sends one too, and the counting signer sees zero calls and
// the wallet's nonce stays 0.
func TestRule9AgentNeverSigns(t *testing.T) {
	t.Parallel()
	signer := &apptest.CountingSigner{}
	s := startServerWith(t, nil, []app.Option{app.WithSigner(signer)})
	b, m := s.signIn(t, "rule9")
	s.fund(t, m.User.Wallet, 1)
	k := b.newKey(`{}`)
	j := s.pollJob(t, k.Key, s.submitJob(t, k.Key, "buy 0.01 ETH of DETH"))
	if j.Status != "completed" || len(j.RichData) != 1 {
		t.Fatalf("job %+v", j)
	}
	var tx map[string]any
	if err := json.Unmarshal(j.RichData[0], &tx); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"to", "data", "value"} {
		if _, ok := tx[f].(string); !ok {
			t.Fatalf("richData lacks %s: %s", f, j.RichData[0])
		}
	}
	for _, f := range []string{"hash", "r", "s", "v", "raw", "signature"} {
		if _, ok := tx[f]; ok {
			t.Fatalf("richData carries %s: %s", f, j.RichData[0])
		}
	}
	a := b.do(http.MethodPost, "/agent/prompt", `{"prompt":"buy 0.01 ETH of DETH"}`)
	if a.status != http.StatusOK || !strings.Contains(string(a.body), "event: transaction") || !strings.Contains(string(a.body), "event: done") {
		t.Fatalf("prompt stream: %d %s", a.status, a.body)
	}
	if n := signer.Calls(); n != 0 {
		t.Fatalf("the agent reached the signer %d times", n)
	}
	pending, err := s.app.dev.Client.PendingNonceAt(context.Background(), common.HexToAddress(m.User.Wallet))
	if err != nil || pending != 0 {
		t.Fatalf("wallet nonce %d (%v): something was sent", pending, err)
	}
}

// BenchmarkKeyedRead reads GET /tokens/:address alternately without a credential and with an
// API key (looked up in the store on every request, its allowedIps checked), on one server in
// one run, and reports the requests per second of each and their ratio.
func BenchmarkKeyedRead(b *testing.B) {
	s := startServer(b)
	br, _ := s.signIn(b, "bench")
	k := br.newKey(`{"allowedIps":["127.0.0.0/8"]}`)
	path := s.base + "/tokens/" + s.app.dev.ETHToken.Token.Hex()
	c := &http.Client{}
	get := func(key string) time.Duration {
		req, _ := http.NewRequest(http.MethodGet, path, nil)
		if key != "" {
			req.Header.Set("X-API-Key", key)
		}
		start := time.Now()
		resp, err := c.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		d := time.Since(start)
		if resp.StatusCode != http.StatusOK {
			b.Fatalf("%d", resp.StatusCode)
		}
		return d
	}
	get("")
	get(k.Key)
	var anon, keyed time.Duration
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		// Alternate which goes first, so neither always meets a warm or a cold path.
		if i%2 == 0 {
			anon += get("")
			keyed += get(k.Key)
		} else {
			keyed += get(k.Key)
			anon += get("")
		}
	}
	n := float64(b.N)
	b.ReportMetric(n/anon.Seconds(), "anon-req/s")
	b.ReportMetric(n/keyed.Seconds(), "key-req/s")
	b.ReportMetric(anon.Seconds()/keyed.Seconds(), "key/anon")
}

// TestSecretsNeverLogged runs sign-in, key creation and use, refusals, signing and export with
// the server logging at debug level, and finds none of the secrets in the log: not the session
// token, the sign-in state or binding, the raw key, nor the exported private key.
func TestSecretsNeverLogged(t *testing.T) {
	t.Parallel()
	var sink syncBuffer
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + ln.Addr().String()
	s := serveLogged(t, ln, nil, base, nil, nil, slog.New(slog.NewTextHandler(&sink, &slog.HandlerOptions{Level: slog.LevelDebug})))

	c := noRedirect(s)
	login := step(t, c, base+"/auth/login?login_hint=secretive&returnTo=/auth/me")
	authz, _ := url.Parse(login.header.Get("Location"))
	binding := ""
	signinURL, _ := url.Parse(base + "/auth/callback")
	for _, ck := range c.Jar.Cookies(signinURL) {
		if ck.Name == "svc_signin" {
			binding = ck.Value
		}
	}
	cb := step(t, c, authz.String())
	cbURL, _ := url.Parse(cb.header.Get("Location"))
	done := step(t, c, cbURL.String())
	token := sessionCookieOf(t, done.header).Value
	b := &browser{t: t, s: s, c: c, header: http.Header{}}
	var m me
	b.do(http.MethodGet, "/auth/me", "").decode(t, &m)
	k := b.newKey(`{"name":"logged?"}`)
	ro := b.newKey(`{"readOnly":true,"allowedIps":["10.0.0.0/8"]}`)
	s.anon(t, http.MethodGet, "/config", "", "X-API-Key", ro.Key)                                    // 403: wrong address
	s.anon(t, http.MethodPost, "/wallet/sign-and-submit", `{"to":"0x12"}`, "X-API-Key", k.Key)       // 400
	s.anon(t, http.MethodGet, "/auth/me", "", "Cookie", "svc_session="+token[:42]+"A")               // a near miss
	s.anon(t, http.MethodGet, "/agent/job/job_000000000000000000000000", "", "X-API-Key", k.Key+"0") // malformed
	s.fund(t, m.User.Wallet, 1)
	b.do(http.MethodPost, "/wallet/sign-and-submit", fmt.Sprintf(`{"to":%q,"value":"1","chainId":1337}`, m.User.Wallet), "Idempotency-Key", "logged")
	var exp struct{ PrivateKey string }
	b.do(http.MethodPost, "/wallet/export-key", "").decode(t, &exp)
	wantStatus(t, "revoke", b.do(http.MethodDelete, "/api-keys/"+k.ID, ""), http.StatusOK)
	b.do(http.MethodGet, "/auth/logout", "")

	log := sink.String()
	if !strings.Contains(log, "level=DEBUG") {
		t.Fatal("nothing was logged at debug level: the test proves nothing")
	}
	// The security events are there for an operator to see, with ids but no secret.
	for _, event := range []string{
		`level=INFO msg="security: signed in"`, `level=INFO msg="security: API key created"`,
		`level=WARN msg="security: request refused"`, `level=WARN msg="security: credential refused"`,
		`level=WARN msg="security: private key exported"`, `level=INFO msg="security: API key revoked"`,
		"key_id=" + ro.ID, "revoked_key_id=" + k.ID, `reason="this API key may not be used from this address"`,
	} {
		if !strings.Contains(log, event) {
			t.Errorf("the log lacks %s", event)
		}
	}
	for name, secret := range map[string]string{
		"session token": token, "state": cbURL.Query().Get("state"), "code": cbURL.Query().Get("code"),
		"binding": binding, "API key": k.Key[4:], "read-only key": ro.Key[4:], "private key": strings.TrimPrefix(exp.PrivateKey, "0x"),
	} {
		if len(secret) < 32 {
			t.Fatalf("%s %q was not captured", name, secret)
		}
		if strings.Contains(log, secret) {
			t.Errorf("the log holds the %s", name)
		}
	}
}
