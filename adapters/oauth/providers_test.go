package oauth_test

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/oauth2-proxy/mockoidc"
	"golang.org/x/oauth2"

	"github.com/curvekit/curvekit"
	"github.com/curvekit/curvekit/adapters/oauth"
	"github.com/curvekit/curvekit/auth"
)

// newMock runs mockoidc, an independent OIDC provider, on a real socket. It wants the
// client secret as a form field, and sends expires_in in nanoseconds, which only affects the
// access token the OIDC adapter does not use.
func newMock(t *testing.T) (*mockoidc.MockOIDC, *oauth.OIDC) {
	t.Helper()
	m, err := mockoidc.Run()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = m.Shutdown() })
	o, err := oauth.NewOIDC(t.Context(), oauth.OIDCConfig{
		Issuer: m.Issuer(), ClientID: m.ClientID, ClientSecret: m.ClientSecret, RedirectURL: callback,
		AuthStyle: oauth2.AuthStyleInParams, Now: m.Now,
	})
	if err != nil {
		t.Fatal(err)
	}
	return m, o
}

func TestOIDCSignsInWithMockoidc(t *testing.T) {
	for _, tc := range []struct {
		name string
		user *mockoidc.MockUser
		want auth.Identity
	}{
		{"preferred_username", &mockoidc.MockUser{Subject: "s-1", Email: "jane.doe@example.com", PreferredUsername: "jane"},
			auth.Identity{Subject: "s-1", Handle: "jane"}},
		{"email local part", &mockoidc.MockUser{Subject: "s-2", Email: "carol@example.com"},
			auth.Identity{Subject: "s-2", Handle: "carol"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, o := newMock(t)
			m.QueueUser(tc.user)
			v := oauth2.GenerateVerifier()
			authURL := o.AuthCodeURL("st", v, "jane@example.com")
			if u, _ := url.Parse(authURL); u.Query().Get("login_hint") != "jane@example.com" {
				t.Fatalf("login_hint not forwarded: %s", authURL)
			}
			cb := authorize(t, authURL)
			id, err := o.Exchange(t.Context(), cb.Get("code"), v)
			if err != nil {
				t.Fatal(err)
			}
			tc.want.Provider = "oidc:" + m.Issuer()
			if diff := cmp.Diff(tc.want, id); diff != "" {
				t.Fatalf("identity (-want +got):\n%s", diff)
			}
		})
	}
}

func TestOIDCWithMockoidcRefusesAWrongVerifier(t *testing.T) {
	_, o := newMock(t)
	cb := authorize(t, o.AuthCodeURL("st", oauth2.GenerateVerifier(), ""))
	if _, err := o.Exchange(t.Context(), cb.Get("code"), oauth2.GenerateVerifier()); !errors.Is(err, curvekit.ErrUnauthorized) {
		t.Fatalf("wrong verifier at mockoidc: %v, want ErrUnauthorized", err)
	}
}

// fakeX speaks X's OAuth 2.0: a token endpoint with Basic client credentials and PKCE, and
// GET /2/users/me answering {"data": {...}} for the bearer token.
type fakeX struct {
	challenge string // the S256 challenge of the code "good-code"
	user      any
	status    int
}

func (f *fakeX) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	switch r.URL.Path {
	case "/2/oauth2/token":
		id, secret, ok := r.BasicAuth()
		_ = r.ParseForm()
		if !ok || id != "x-client" || secret != "x-secret" {
			w.WriteHeader(http.StatusUnauthorized)
			_, _ = w.Write([]byte(`{"error":"unauthorized_client"}`))
			return
		}
		if r.PostForm.Get("code") != "good-code" || oauth2.S256ChallengeFromVerifier(r.PostForm.Get("code_verifier")) != f.challenge {
			w.WriteHeader(http.StatusBadRequest)
			_, _ = w.Write([]byte(`{"error":"invalid_request"}`))
			return
		}
		_, _ = w.Write([]byte(`{"token_type":"bearer","expires_in":7200,"access_token":"x-access","scope":"users.read tweet.read"}`))
	case "/2/users/me":
		if r.Header.Get("Authorization") != "Bearer x-access" || r.URL.Query().Get("user.fields") != "profile_image_url" {
			w.WriteHeader(http.StatusUnauthorized)
			_, _ = w.Write([]byte(`{"title":"Unauthorized","status":401}`))
			return
		}
		if f.status != 0 {
			w.WriteHeader(f.status)
		}
		_ = json.NewEncoder(w).Encode(f.user)
	default:
		http.NotFound(w, r)
	}
}

func newX(t *testing.T, f *fakeX) *oauth.OAuth2 {
	t.Helper()
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	o, err := oauth.NewOAuth2(oauth.OAuth2Config{
		Provider: "x", AuthURL: "https://x.com/i/oauth2/authorize", TokenURL: srv.URL + "/2/oauth2/token",
		UserinfoURL: srv.URL + "/2/users/me?user.fields=profile_image_url",
		Scopes:      []string{"users.read", "tweet.read"}, ClientID: "x-client", ClientSecret: "x-secret",
		RedirectURL: callback, AuthStyle: oauth2.AuthStyleInHeader,
		Fields: oauth.FieldMap{Subject: "data.id", Handle: "data.username", Name: "data.name", Picture: "data.profile_image_url"},
	})
	if err != nil {
		t.Fatal(err)
	}
	return o
}

func TestOAuth2MapsUserinfoFields(t *testing.T) {
	v := oauth2.GenerateVerifier()
	f := &fakeX{challenge: oauth2.S256ChallengeFromVerifier(v), user: map[string]any{"data": map[string]any{
		"id": "2244994945", "username": "xdev", "name": "X Dev", "profile_image_url": "https://pbs.example/p.jpg",
	}}}
	o := newX(t, f)
	u, _ := url.Parse(o.AuthCodeURL("st", v, "xdev"))
	if q := u.Query(); q.Get("code_challenge") != f.challenge || q.Get("login_hint") != "xdev" || q.Get("scope") != "users.read tweet.read" {
		t.Fatalf("authorization URL %s", u)
	}
	id, err := o.Exchange(t.Context(), "good-code", v)
	if err != nil {
		t.Fatal(err)
	}
	want := auth.Identity{Provider: "x", Subject: "2244994945", Handle: "xdev", Name: "X Dev", Picture: "https://pbs.example/p.jpg"}
	if diff := cmp.Diff(want, id); diff != "" {
		t.Fatalf("identity (-want +got):\n%s", diff)
	}
}

func TestOAuth2NumericSubject(t *testing.T) {
	v := oauth2.GenerateVerifier()
	o := newX(t, &fakeX{challenge: oauth2.S256ChallengeFromVerifier(v),
		user: map[string]any{"data": map[string]any{"id": 12345678901234567, "username": "n"}}})
	id, err := o.Exchange(t.Context(), "good-code", v)
	if err != nil {
		t.Fatal(err)
	}
	if id.Subject != "12345678901234567" {
		t.Fatalf("subject %q: a large numeric id must keep every digit", id.Subject)
	}
}

func TestOAuth2Refusals(t *testing.T) {
	v := oauth2.GenerateVerifier()
	ok := map[string]any{"data": map[string]any{"id": "1", "username": "a"}}
	for _, tc := range []struct {
		name           string
		f              fakeX
		code, verifier string
		unauthorized   bool
	}{
		{"wrong verifier", fakeX{user: ok}, "good-code", oauth2.GenerateVerifier(), true},
		{"unknown code", fakeX{user: ok}, "other", v, true},
		{"no subject", fakeX{user: map[string]any{"data": map[string]any{"username": "a"}}}, "good-code", v, true},
		{"userinfo refuses", fakeX{user: ok, status: http.StatusForbidden}, "good-code", v, true},
		{"userinfo fails", fakeX{user: ok, status: http.StatusBadGateway}, "good-code", v, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.f.challenge = oauth2.S256ChallengeFromVerifier(v)
			_, err := newX(t, &tc.f).Exchange(t.Context(), tc.code, tc.verifier)
			if err == nil || errors.Is(err, curvekit.ErrUnauthorized) != tc.unauthorized {
				t.Fatalf("%v; want an error, ErrUnauthorized=%v", err, tc.unauthorized)
			}
		})
	}
}
