package oauth_test

import (
	"context"
	"encoding/json"
	"errors"
	"html"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/oauth2"

	"github.com/curvekit/curvekit"
	"github.com/curvekit/curvekit/adapters/oauth"
	"github.com/curvekit/curvekit/auth"
)

const callback = "http://127.0.0.1:1/auth/callback"

// clock is a settable clock shared by the provider and the adapter.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time      { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) Add(d time.Duration) { c.mu.Lock(); c.t = c.t.Add(d); c.mu.Unlock() }

// noFollow is a browser that stops at the redirect back to the callback.
var noFollow = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

type devEnv struct {
	srv      *httptest.Server
	provider *oauth.DevProvider
	clock    *clock
}

// newDev mounts the development provider under /dev-oauth on a real server, as the reference
// server does (the handler sees the full path).
func newDev(t *testing.T) *devEnv {
	t.Helper()
	mux := http.NewServeMux()
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	clk := &clock{t: time.Now()}
	p, err := oauth.NewDevProvider(oauth.DevConfig{
		Issuer: srv.URL + "/dev-oauth", RedirectURL: callback, Now: clk.Now,
		Logger: slog.New(slog.DiscardHandler),
	})
	if err != nil {
		t.Fatal(err)
	}
	mux.Handle("/dev-oauth/", p)
	return &devEnv{srv: srv, provider: p, clock: clk}
}

func (e *devEnv) client(t *testing.T, mutate func(*oauth.OIDCConfig)) *oauth.OIDC {
	t.Helper()
	cfg := oauth.OIDCConfig{
		Issuer: e.provider.Issuer(), ClientID: e.provider.ClientID(), ClientSecret: e.provider.ClientSecret(),
		RedirectURL: callback, Provider: "dev", Now: e.clock.Now, HTTPClient: e.srv.Client(),
	}
	if mutate != nil {
		mutate(&cfg)
	}
	o, err := oauth.NewOIDC(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

// authorize plays the browser: it opens the authorization URL and returns the query of the
// redirect back to the callback.
func authorize(t *testing.T, authURL string) url.Values {
	t.Helper()
	resp, err := noFollow.Get(authURL)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	return callbackQuery(t, resp)
}

func callbackQuery(t *testing.T, resp *http.Response) url.Values {
	t.Helper()
	if resp.StatusCode != http.StatusFound {
		body, _ := io.ReadAll(resp.Body)
		t.Fatalf("authorize: status %d, want 302: %s", resp.StatusCode, body)
	}
	loc, err := url.Parse(resp.Header.Get("Location"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(loc.String(), callback+"?") {
		t.Fatalf("redirected to %s, want the callback", loc)
	}
	return loc.Query()
}

func TestOIDCSignsInWithTheDevProvider(t *testing.T) {
	e := newDev(t)
	o := e.client(t, nil)
	verifier := oauth2.GenerateVerifier()
	u, _ := url.Parse(o.AuthCodeURL("st-1", verifier, "alice"))
	q := u.Query()
	if q.Get("login_hint") != "alice" || q.Get("code_challenge_method") != "S256" ||
		q.Get("code_challenge") != oauth2.S256ChallengeFromVerifier(verifier) || q.Get("code_verifier") != "" {
		t.Fatalf("authorization URL %s lacks the hint or the S256 challenge, or leaks the verifier", u)
	}
	cb := authorize(t, u.String())
	if cb.Get("state") != "st-1" {
		t.Fatalf("state %q, want st-1", cb.Get("state"))
	}
	id, err := o.Exchange(t.Context(), cb.Get("code"), verifier)
	if err != nil {
		t.Fatal(err)
	}
	want := auth.Identity{Provider: "dev", Subject: "alice", Handle: "alice", Name: "alice"}
	if diff := cmp.Diff(want, id); diff != "" {
		t.Fatalf("identity (-want +got):\n%s", diff)
	}
}

func TestDevProviderEnforcesPKCE(t *testing.T) {
	e := newDev(t)
	o := e.client(t, nil)
	for name, sent := range map[string]string{"wrong": oauth2.GenerateVerifier(), "missing": ""} {
		t.Run(name, func(t *testing.T) {
			cb := authorize(t, o.AuthCodeURL("s", oauth2.GenerateVerifier(), "alice"))
			if _, err := o.Exchange(t.Context(), cb.Get("code"), sent); !errors.Is(err, curvekit.ErrUnauthorized) {
				t.Fatalf("exchange with a %s verifier: %v, want ErrUnauthorized", name, err)
			}
		})
	}
	t.Run("no challenge", func(t *testing.T) {
		plain := oauth2.Config{ClientID: e.provider.ClientID(), RedirectURL: callback,
			Endpoint: oauth2.Endpoint{AuthURL: e.provider.Issuer() + "/authorize"}}
		cb := authorize(t, plain.AuthCodeURL("s", oauth2.SetAuthURLParam("login_hint", "alice")))
		if cb.Get("error") != "invalid_request" || cb.Get("code") != "" {
			t.Fatalf("authorize without a challenge answered %v, want error=invalid_request and no code", cb)
		}
	})
}

func TestDevProviderCodesAreSingleUse(t *testing.T) {
	e := newDev(t)
	o := e.client(t, nil)
	v := oauth2.GenerateVerifier()
	code := authorize(t, o.AuthCodeURL("s", v, "alice")).Get("code")
	if _, err := o.Exchange(t.Context(), code, v); err != nil {
		t.Fatal(err)
	}
	if _, err := o.Exchange(t.Context(), code, v); !errors.Is(err, curvekit.ErrUnauthorized) {
		t.Fatalf("second redemption: %v, want ErrUnauthorized", err)
	}
}

func TestDevProviderCodesExpireAfterAMinute(t *testing.T) {
	e := newDev(t)
	o := e.client(t, nil)
	v := oauth2.GenerateVerifier()
	fresh := authorize(t, o.AuthCodeURL("s", v, "alice")).Get("code")
	stale := authorize(t, o.AuthCodeURL("s", v, "alice")).Get("code")
	e.clock.Add(59 * time.Second)
	if _, err := o.Exchange(t.Context(), fresh, v); err != nil {
		t.Fatalf("code at 59 s: %v", err)
	}
	e.clock.Add(2 * time.Second)
	if _, err := o.Exchange(t.Context(), stale, v); !errors.Is(err, curvekit.ErrUnauthorized) {
		t.Fatalf("code at 61 s: %v, want ErrUnauthorized", err)
	}
}

func TestDevProviderChecksTheClientSecret(t *testing.T) {
	e := newDev(t)
	good := e.client(t, nil)
	bad := e.client(t, func(c *oauth.OIDCConfig) { c.ClientSecret = "guess" })
	v := oauth2.GenerateVerifier()
	code := authorize(t, good.AuthCodeURL("s", v, "alice")).Get("code")
	if _, err := bad.Exchange(t.Context(), code, v); !errors.Is(err, curvekit.ErrUnauthorized) {
		t.Fatalf("wrong client secret: %v, want ErrUnauthorized", err)
	}
}

func TestDevProviderRefusesAnotherRedirectURI(t *testing.T) {
	e := newDev(t)
	for _, ru := range []string{"https://evil.example/cb", callback + "/x", callback + "?a=1"} {
		conf := oauth2.Config{ClientID: e.provider.ClientID(), RedirectURL: ru,
			Endpoint: oauth2.Endpoint{AuthURL: e.provider.Issuer() + "/authorize"}}
		resp, err := noFollow.Get(conf.AuthCodeURL("s", oauth2.S256ChallengeOption(oauth2.GenerateVerifier()),
			oauth2.SetAuthURLParam("login_hint", "alice")))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest || resp.Header.Get("Location") != "" {
			t.Fatalf("redirect_uri %s: status %d, Location %q; want 400 and no redirect", ru, resp.StatusCode, resp.Header.Get("Location"))
		}
	}
}

var hiddenField = regexp.MustCompile(`<input type="hidden" name="([^"]*)" value="([^"]*)">`)

func TestDevProviderFormSignsInTheTypedHandle(t *testing.T) {
	e := newDev(t)
	o := e.client(t, nil)
	v := oauth2.GenerateVerifier()
	state := `x"><script>alert(1)</script>`
	resp, err := noFollow.Get(o.AuthCodeURL(state, v, ""))
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(page), `name="login_hint"`) {
		t.Fatalf("without login_hint: status %d, want 200 and the form:\n%s", resp.StatusCode, page)
	}
	if strings.Contains(string(page), "<script>") {
		t.Fatalf("the state was not escaped:\n%s", page)
	}
	form := url.Values{"login_hint": {"bob"}}
	for _, m := range hiddenField.FindAllStringSubmatch(string(page), -1) {
		form.Set(html.UnescapeString(m[1]), html.UnescapeString(m[2]))
	}
	post, err := noFollow.PostForm(e.provider.Issuer()+"/authorize", form)
	if err != nil {
		t.Fatal(err)
	}
	defer post.Body.Close()
	cb := callbackQuery(t, post)
	if cb.Get("state") != state {
		t.Fatalf("state came back as %q", cb.Get("state"))
	}
	id, err := o.Exchange(t.Context(), cb.Get("code"), v)
	if err != nil {
		t.Fatal(err)
	}
	if id.Handle != "bob" || id.Subject != "bob" {
		t.Fatalf("signed in %+v, want bob", id)
	}
}

func TestDevProviderUserinfo(t *testing.T) {
	e := newDev(t)
	// The plain OAuth 2.0 adapter reads the same person from the userinfo endpoint.
	o, err := oauth.NewOAuth2(oauth.OAuth2Config{
		Provider: "dev", ClientID: e.provider.ClientID(), ClientSecret: e.provider.ClientSecret(), RedirectURL: callback,
		AuthURL: e.provider.Issuer() + "/authorize", TokenURL: e.provider.Issuer() + "/token",
		UserinfoURL: e.provider.Issuer() + "/userinfo",
	})
	if err != nil {
		t.Fatal(err)
	}
	v := oauth2.GenerateVerifier()
	id, err := o.Exchange(t.Context(), authorize(t, o.AuthCodeURL("s", v, "carol")).Get("code"), v)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(auth.Identity{Provider: "dev", Subject: "carol", Handle: "carol", Name: "carol"}, id); diff != "" {
		t.Fatalf("identity (-want +got):\n%s", diff)
	}
	resp, err := http.Get(e.provider.Issuer() + "/userinfo")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("userinfo without a token: %d, want 401", resp.StatusCode)
	}
}

// TestOIDCRefusesAForgedIDToken puts a second provider, with the same issuer and client but
// its own key, behind the token endpoint: its ID tokens do not verify against the JWKS.
func TestOIDCRefusesAForgedIDToken(t *testing.T) {
	mux := http.NewServeMux()
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	cfg := oauth.DevConfig{Issuer: srv.URL, RedirectURL: callback, Logger: slog.New(slog.DiscardHandler)}
	honest, err := oauth.NewDevProvider(cfg)
	if err != nil {
		t.Fatal(err)
	}
	forger, err := oauth.NewDevProvider(cfg)
	if err != nil {
		t.Fatal(err)
	}
	mux.Handle("/", honest)
	mux.Handle("/authorize", forger)
	mux.Handle("/token", forger)
	o, err := oauth.NewOIDC(t.Context(), oauth.OIDCConfig{Issuer: srv.URL, ClientID: honest.ClientID(),
		ClientSecret: honest.ClientSecret(), RedirectURL: callback})
	if err != nil {
		t.Fatal(err)
	}
	v := oauth2.GenerateVerifier()
	_, err = o.Exchange(t.Context(), authorize(t, o.AuthCodeURL("s", v, "mallory")).Get("code"), v)
	if !errors.Is(err, curvekit.ErrUnauthorized) || !strings.Contains(err.Error(), "signature") {
		t.Fatalf("forged ID token: %v, want ErrUnauthorized", err)
	}
}

func TestOIDCRefusesAnExpiredIDToken(t *testing.T) {
	e := newDev(t)
	late := &clock{t: e.clock.Now().Add(6 * time.Minute)} // the dev tokens live 5 minutes
	o := e.client(t, func(c *oauth.OIDCConfig) { c.Now = late.Now })
	v := oauth2.GenerateVerifier()
	_, err := o.Exchange(t.Context(), authorize(t, o.AuthCodeURL("s", v, "alice")).Get("code"), v)
	if !errors.Is(err, curvekit.ErrUnauthorized) || !strings.Contains(err.Error(), "expired") {
		t.Fatalf("expired ID token: %v, want ErrUnauthorized", err)
	}
}

func TestOIDCUnreachableProviderIsNotUnauthorized(t *testing.T) {
	e := newDev(t)
	o := e.client(t, nil)
	v := oauth2.GenerateVerifier()
	code := authorize(t, o.AuthCodeURL("s", v, "alice")).Get("code")
	e.srv.Close()
	_, err := o.Exchange(t.Context(), code, v)
	if err == nil || errors.Is(err, curvekit.ErrUnauthorized) {
		t.Fatalf("provider down: %v, want a plain error", err)
	}
}

func TestNewOIDCFailsOnAWrongIssuer(t *testing.T) {
	e := newDev(t)
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	_, err := oauth.NewOIDC(ctx, oauth.OIDCConfig{Issuer: e.srv.URL + "/elsewhere", ClientID: "c", RedirectURL: callback})
	if err == nil {
		t.Fatal("discovery of a wrong issuer succeeded")
	}
	if _, err := oauth.NewOIDC(ctx, oauth.OIDCConfig{Issuer: e.provider.Issuer()}); !errors.Is(err, curvekit.ErrInvalid) {
		t.Fatalf("config without client: %v, want ErrInvalid", err)
	}
	if _, err := oauth.NewOIDC(ctx, oauth.OIDCConfig{Issuer: e.srv.URL, Metadata: e.provider.Metadata(), ClientID: "c", RedirectURL: callback}); !errors.Is(err, curvekit.ErrInvalid) {
		t.Fatalf("metadata of another issuer: %v, want ErrInvalid", err)
	}
}

func TestCheckDevAddr(t *testing.T) {
	for _, tc := range []struct {
		addr   string
		public bool
		ok     bool
	}{
		{"127.0.0.1:8080", false, true},
		{"[::1]:8080", false, true},
		{"localhost:8080", false, true},
		{"127.5.6.7:80", false, true},
		{":8080", false, false},
		{"0.0.0.0:8080", false, false},
		{"[::]:8080", false, false},
		{"192.168.1.10:8080", false, false},
		{"example.com:80", false, false},
		{"nonsense", false, false},
		{":8080", true, true},
		{"0.0.0.0:8080", true, true},
	} {
		err := oauth.CheckDevAddr(tc.addr, tc.public)
		if (err == nil) != tc.ok || (err != nil && !errors.Is(err, curvekit.ErrInvalid)) {
			t.Errorf("CheckDevAddr(%q, %v) = %v, want ok=%v", tc.addr, tc.public, err, tc.ok)
		}
	}
}

// TestDevProviderWithoutDiscoveryBehindStripPrefix builds the client before the provider's
// server answers anything (as the reference server does for the provider it hosts) and mounts
// the provider with its prefix stripped.
func TestDevProviderWithoutDiscoveryBehindStripPrefix(t *testing.T) {
	mux := http.NewServeMux()
	srv := httptest.NewUnstartedServer(mux)
	issuer := "http://" + srv.Listener.Addr().String() + "/dev-oauth"
	p, err := oauth.NewDevProvider(oauth.DevConfig{Issuer: issuer, RedirectURL: callback, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	o, err := oauth.NewOIDC(t.Context(), oauth.OIDCConfig{Issuer: p.Issuer(), Metadata: p.Metadata(),
		ClientID: p.ClientID(), ClientSecret: p.ClientSecret(), RedirectURL: callback})
	if err != nil {
		t.Fatal(err)
	}
	mux.Handle("/dev-oauth/", http.StripPrefix("/dev-oauth", p))
	srv.Start()
	t.Cleanup(srv.Close)
	v := oauth2.GenerateVerifier()
	id, err := o.Exchange(t.Context(), authorize(t, o.AuthCodeURL("s", v, "dora")).Get("code"), v)
	if err != nil {
		t.Fatal(err)
	}
	if id.Subject != "dora" || id.Provider != "oidc:"+issuer {
		t.Fatalf("identity %+v", id)
	}
	resp, err := http.Get(issuer + "/.well-known/openid-configuration")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var doc map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&doc); err != nil || doc["issuer"] != issuer || doc["jwks_uri"] != p.Metadata().JWKSURL {
		t.Fatalf("discovery document %v (%v)", doc, err)
	}
}

func TestDevProviderBoundsOutstandingCodes(t *testing.T) {
	if testing.Short() {
		t.Skip("10,000 authorizations")
	}
	e := newDev(t)
	o := e.client(t, nil)
	authURL := o.AuthCodeURL("s", oauth2.GenerateVerifier(), "alice")
	status := func() int {
		resp, err := noFollow.Get(authURL)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	for i := range 10000 {
		if s := status(); s != http.StatusFound {
			t.Fatalf("authorization %d: %d", i, s)
		}
	}
	if s := status(); s != http.StatusServiceUnavailable {
		t.Fatalf("authorization 10,001 with every code outstanding: %d, want 503", s)
	}
	e.clock.Add(61 * time.Second) // the outstanding codes expire and are swept
	if s := status(); s != http.StatusFound {
		t.Fatalf("after the codes expired: %d, want 302", s)
	}
}

// A sign-in that another site started (a cross-site navigation to /auth/login?login_hint=mallory
// reaches the provider with Sec-Fetch-Site: cross-site) is not signed in at once: the provider
// shows its form with the handle filled in and signs in only when the person submits it from the
// provider's own page. Sign-ins started here, typed, or from no browser at all go straight through.
func TestDevProviderAsksBeforeASignInFromAnotherSite(t *testing.T) {
	e := newDev(t)
	o := e.client(t, nil)
	v := oauth2.GenerateVerifier()
	open := func(header, value string, extra ...string) *http.Response {
		t.Helper()
		req, _ := http.NewRequest(http.MethodGet, o.AuthCodeURL("s", v, "mallory")+strings.Join(extra, ""), nil)
		if header != "" {
			req.Header.Set(header, value)
		}
		resp, err := noFollow.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	for _, c := range []struct{ header, value string }{
		{"Sec-Fetch-Site", "cross-site"},
		{"Sec-Fetch-Site", "same-site"},
		{"Referer", "https://evil.example/page"},
	} {
		resp := open(c.header, c.value)
		page, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || resp.Header.Get("Location") != "" ||
			!strings.Contains(string(page), `value="mallory"`) || !strings.Contains(string(page), "not started from this server") {
			t.Fatalf("%s: %s: status %d, Location %q; want the confirmation form:\n%s", c.header, c.value, resp.StatusCode, resp.Header.Get("Location"), page)
		}
		csp := resp.Header.Get("Content-Security-Policy")
		if !strings.Contains(csp, "frame-ancestors 'none'") || !strings.Contains(csp, "default-src 'none'") ||
			resp.Header.Get("X-Frame-Options") != "DENY" || resp.Header.Get("X-Content-Type-Options") != "nosniff" {
			t.Fatalf("the form's headers: %v", resp.Header)
		}
		// The person's own submission, from the provider's page, signs in.
		form := url.Values{"login_hint": {"mallory"}}
		for _, m := range hiddenField.FindAllStringSubmatch(string(page), -1) {
			form.Set(html.UnescapeString(m[1]), html.UnescapeString(m[2]))
		}
		req, _ := http.NewRequest(http.MethodPost, e.provider.Issuer()+"/authorize", strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Sec-Fetch-Site", "same-origin")
		post, err := noFollow.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		code := callbackQuery(t, post).Get("code")
		post.Body.Close()
		if id, err := o.Exchange(t.Context(), code, v); err != nil || id.Handle != "mallory" {
			t.Fatalf("confirmed sign-in: %+v %v", id, err)
		}
	}
	// The same form posted by another site's page is asked again, not signed in.
	req, _ := http.NewRequest(http.MethodPost, e.provider.Issuer()+"/authorize", strings.NewReader(url.Values{
		"login_hint": {"mallory"}, "client_id": {e.provider.ClientID()}, "redirect_uri": {callback}, "response_type": {"code"},
		"code_challenge_method": {"S256"}, "code_challenge": {oauth2.S256ChallengeFromVerifier(v)}, "state": {"s"},
	}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Sec-Fetch-Site", "cross-site")
	resp, err := noFollow.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Location") != "" {
		t.Fatalf("a cross-site post: status %d, Location %q; want the form again", resp.StatusCode, resp.Header.Get("Location"))
	}
	// prompt=login asks as well.
	resp = open("Sec-Fetch-Site", "same-origin", "&prompt=login")
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("prompt=login: status %d, want the form", resp.StatusCode)
	}
	// Started here, typed into the address bar, from our own page's referrer, or from curl.
	for _, c := range []struct{ header, value string }{
		{"Sec-Fetch-Site", "same-origin"}, {"Sec-Fetch-Site", "none"}, {"Referer", callback}, {"", ""},
	} {
		resp := open(c.header, c.value)
		callbackQuery(t, resp)
		resp.Body.Close()
	}
}
