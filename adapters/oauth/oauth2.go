package oauth

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"golang.org/x/oauth2"

	"github.com/curvekit/curvekit"
	"github.com/curvekit/curvekit/auth"
)

// FieldMap says where the userinfo answer holds each part of the identity, as dotted paths
// into its JSON ("data.username").
type FieldMap struct {
	Subject, Handle, Name, Picture string
}

// OAuth2Config configures a plain OAuth 2.0 provider with a userinfo endpoint.
type OAuth2Config struct {
	// Provider names the provider in Identity.Provider ("x"); required.
	Provider string
	// AuthURL, TokenURL and UserinfoURL are the provider's endpoints.
	AuthURL, TokenURL, UserinfoURL string
	// ClientID and ClientSecret are the registered client's credentials.
	ClientID, ClientSecret string
	// RedirectURL is the registered callback URL.
	RedirectURL string
	// Scopes requested; the provider's own names.
	Scopes []string
	// AuthStyle says how the client authenticates at the token endpoint; zero auto-detects.
	AuthStyle oauth2.AuthStyle
	// Fields maps userinfo to the identity; empty paths default to the OIDC claim names
	// (sub, preferred_username, name, picture).
	Fields FieldMap
	// HTTPClient reaches the provider; default a client with a 15 s timeout.
	HTTPClient *http.Client
}

func (c *OAuth2Config) defaults() {
	if c.Fields.Subject == "" {
		c.Fields.Subject = "sub"
	}
	if c.Fields.Handle == "" {
		c.Fields.Handle = "preferred_username"
	}
	if c.Fields.Name == "" {
		c.Fields.Name = "name"
	}
	if c.Fields.Picture == "" {
		c.Fields.Picture = "picture"
	}
	if c.HTTPClient == nil {
		c.HTTPClient = &http.Client{Timeout: 15 * time.Second}
	}
}

func (c *OAuth2Config) validate() error {
	if c.Provider == "" || c.AuthURL == "" || c.TokenURL == "" || c.UserinfoURL == "" || c.ClientID == "" || c.RedirectURL == "" {
		return fmt.Errorf("oauth: OAuth 2.0 needs a provider name, auth, token and userinfo URLs, a client id and a redirect URL: %w", curvekit.ErrInvalid)
	}
	return nil
}

// OAuth2 signs people in with an OAuth 2.0 provider that has no OpenID Connect: who signed in
// is read from its userinfo endpoint with the access token.
type OAuth2 struct {
	cfg   OAuth2Config
	oauth oauth2.Config
}

var _ auth.IdentityProvider = (*OAuth2)(nil)

// NewOAuth2 returns the adapter; it reaches the provider only at sign-in.
func NewOAuth2(cfg OAuth2Config) (*OAuth2, error) {
	cfg.defaults()
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	return &OAuth2{cfg: cfg, oauth: oauth2.Config{
		ClientID: cfg.ClientID, ClientSecret: cfg.ClientSecret, RedirectURL: cfg.RedirectURL, Scopes: cfg.Scopes,
		Endpoint: oauth2.Endpoint{AuthURL: cfg.AuthURL, TokenURL: cfg.TokenURL, AuthStyle: cfg.AuthStyle},
	}}, nil
}

// AuthCodeURL implements auth.IdentityProvider; login_hint is sent too, providers that do not
// know it ignore it.
func (o *OAuth2) AuthCodeURL(state, verifier, loginHint string) string {
	return o.oauth.AuthCodeURL(state, authOptions(verifier, loginHint)...)
}

// Exchange implements auth.IdentityProvider.
func (o *OAuth2) Exchange(ctx context.Context, code, verifier string) (auth.Identity, error) {
	ctx = context.WithValue(ctx, oauth2.HTTPClient, o.cfg.HTTPClient)
	tok, err := exchange(ctx, &o.oauth, code, verifier)
	if err != nil {
		return auth.Identity{}, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, o.cfg.UserinfoURL, nil)
	if err != nil {
		return auth.Identity{}, fmt.Errorf("oauth: userinfo request: %w", err)
	}
	tok.SetAuthHeader(req)
	req.Header.Set("Accept", "application/json")
	resp, err := o.cfg.HTTPClient.Do(req)
	if err != nil {
		return auth.Identity{}, fmt.Errorf("oauth: userinfo: %w", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return auth.Identity{}, fmt.Errorf("oauth: userinfo: %w", err)
	}
	switch {
	case resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden:
		return auth.Identity{}, fmt.Errorf("oauth: userinfo refused the token (%d): %w", resp.StatusCode, curvekit.ErrUnauthorized)
	case resp.StatusCode != http.StatusOK:
		return auth.Identity{}, fmt.Errorf("oauth: userinfo answered %d", resp.StatusCode)
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var doc any
	if err := dec.Decode(&doc); err != nil {
		return auth.Identity{}, fmt.Errorf("oauth: userinfo is not JSON: %w", err)
	}
	id := auth.Identity{
		Provider: o.cfg.Provider,
		Subject:  lookup(doc, o.cfg.Fields.Subject),
		Handle:   lookup(doc, o.cfg.Fields.Handle),
		Name:     lookup(doc, o.cfg.Fields.Name),
		Picture:  lookup(doc, o.cfg.Fields.Picture),
	}
	if id.Subject == "" {
		return auth.Identity{}, fmt.Errorf("oauth: userinfo has no %q: %w", o.cfg.Fields.Subject, curvekit.ErrUnauthorized)
	}
	return id, nil
}

// lookup follows a dotted path through JSON objects; a string or a number (ids are often
// numbers) is its text, anything else is "".
func lookup(doc any, path string) string {
	for _, key := range strings.Split(path, ".") {
		m, ok := doc.(map[string]any)
		if !ok {
			return ""
		}
		doc = m[key]
	}
	switch v := doc.(type) {
	case string:
		return v
	case json.Number:
		return v.String()
	}
	return ""
}
