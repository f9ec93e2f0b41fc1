package oauth

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"
	"golang.org/x/oauth2"

	"github.com/curvekit/curvekit"
	"github.com/curvekit/curvekit/auth"
)

// OIDCConfig configures an OpenID Connect provider.
type OIDCConfig struct {
	// Issuer is the provider's issuer URL; discovery reads Issuer/.well-known/openid-configuration.
	Issuer string
	// ClientID and ClientSecret are the registered client's credentials.
	ClientID, ClientSecret string
	// RedirectURL is the registered callback URL.
	RedirectURL string
	// Scopes default to openid, profile and email.
	Scopes []string
	// Provider names the provider in Identity.Provider; default "oidc:" + Issuer.
	Provider string
	// AuthStyle says how the client authenticates at the token endpoint; the zero value
	// auto-detects (header first, then form fields).
	AuthStyle oauth2.AuthStyle
	// HTTPClient reaches the provider; default a client with a 15 s timeout.
	HTTPClient *http.Client
	// Metadata, when set, replaces discovery: New then contacts nobody and the signing keys are
	// fetched at the first sign-in. It serves a provider that the starting server itself
	// hosts (DevProvider.Metadata), which cannot answer discovery before it listens.
	Metadata *oidc.ProviderConfig
	// DiscoveryTimeout bounds discovery at New; default 10 s.
	DiscoveryTimeout time.Duration
	// Now is the clock the ID token's expiry is checked against; default time.Now.
	Now func() time.Time
}

func (c *OIDCConfig) defaults() {
	if len(c.Scopes) == 0 {
		c.Scopes = []string{oidc.ScopeOpenID, "profile", "email"}
	}
	if c.Provider == "" {
		c.Provider = "oidc:" + c.Issuer
	}
	if c.HTTPClient == nil {
		c.HTTPClient = &http.Client{Timeout: 15 * time.Second}
	}
	if c.DiscoveryTimeout <= 0 {
		c.DiscoveryTimeout = 10 * time.Second
	}
	if c.Now == nil {
		c.Now = time.Now
	}
}

func (c *OIDCConfig) validate() error {
	if c.Issuer == "" || c.ClientID == "" || c.RedirectURL == "" {
		return fmt.Errorf("oauth: OIDC needs an issuer, a client id and a redirect URL: %w", curvekit.ErrInvalid)
	}
	return nil
}

// OIDC signs people in with an OpenID Connect provider.
type OIDC struct {
	cfg      OIDCConfig
	oauth    oauth2.Config
	verifier *oidc.IDTokenVerifier
}

var _ auth.IdentityProvider = (*OIDC)(nil)

// NewOIDC discovers the provider at cfg.Issuer (bounded by DiscoveryTimeout) so that a wrong
// issuer fails at start rather than at the first sign-in.
func NewOIDC(ctx context.Context, cfg OIDCConfig) (*OIDC, error) {
	cfg.defaults()
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	p, err := discover(ctx, &cfg)
	if err != nil {
		return nil, err
	}
	ep := p.Endpoint()
	ep.AuthStyle = cfg.AuthStyle
	// The key set must outlive the discovery timeout: it refetches keys when they rotate.
	keysCtx := oidc.ClientContext(context.WithoutCancel(ctx), cfg.HTTPClient)
	return &OIDC{
		cfg: cfg,
		oauth: oauth2.Config{
			ClientID: cfg.ClientID, ClientSecret: cfg.ClientSecret,
			Endpoint: ep, RedirectURL: cfg.RedirectURL, Scopes: cfg.Scopes,
		},
		// The verifier accepts the signing algorithms discovery advertises.
		verifier: p.VerifierContext(keysCtx, &oidc.Config{ClientID: cfg.ClientID, Now: cfg.Now}),
	}, nil
}

func discover(ctx context.Context, cfg *OIDCConfig) (*oidc.Provider, error) {
	ctx = oidc.ClientContext(ctx, cfg.HTTPClient)
	if cfg.Metadata != nil {
		if cfg.Metadata.IssuerURL != cfg.Issuer {
			return nil, fmt.Errorf("oauth: metadata for issuer %q, configured %q: %w", cfg.Metadata.IssuerURL, cfg.Issuer, curvekit.ErrInvalid)
		}
		return cfg.Metadata.NewProvider(ctx), nil
	}
	ctx, cancel := context.WithTimeout(ctx, cfg.DiscoveryTimeout)
	defer cancel()
	p, err := oidc.NewProvider(ctx, cfg.Issuer)
	if err != nil {
		return nil, fmt.Errorf("oauth: discover %s: %w", cfg.Issuer, err)
	}
	return p, nil
}

// AuthCodeURL implements auth.IdentityProvider. No nonce is sent: the ID token comes from the
// token endpoint over the back channel in exchange for a code bound to our PKCE verifier, so it
// cannot be injected or replayed into this client, and the single-use state ties the code to
// the browser that started the sign-in.
func (o *OIDC) AuthCodeURL(state, verifier, loginHint string) string {
	return o.oauth.AuthCodeURL(state, authOptions(verifier, loginHint)...)
}

func authOptions(verifier, loginHint string) []oauth2.AuthCodeOption {
	opts := []oauth2.AuthCodeOption{oauth2.S256ChallengeOption(verifier)}
	if loginHint != "" {
		opts = append(opts, oauth2.SetAuthURLParam("login_hint", loginHint))
	}
	return opts
}

// Exchange implements auth.IdentityProvider.
func (o *OIDC) Exchange(ctx context.Context, code, verifier string) (auth.Identity, error) {
	ctx = oidc.ClientContext(ctx, o.cfg.HTTPClient)
	tok, err := exchange(ctx, &o.oauth, code, verifier)
	if err != nil {
		return auth.Identity{}, err
	}
	raw, _ := tok.Extra("id_token").(string)
	if raw == "" {
		return auth.Identity{}, fmt.Errorf("oauth: the provider sent no ID token: %w", curvekit.ErrUnauthorized)
	}
	idt, err := o.verifier.Verify(ctx, raw)
	if err != nil {
		return auth.Identity{}, fmt.Errorf("oauth: ID token refused (%v): %w", err, curvekit.ErrUnauthorized)
	}
	var c struct {
		PreferredUsername string `json:"preferred_username"`
		Nickname          string `json:"nickname"`
		Email             string `json:"email"`
		Name              string `json:"name"`
		Picture           string `json:"picture"`
	}
	if err := idt.Claims(&c); err != nil {
		return auth.Identity{}, fmt.Errorf("oauth: ID token claims: %w", curvekit.ErrUnauthorized)
	}
	if idt.Subject == "" {
		return auth.Identity{}, fmt.Errorf("oauth: ID token without subject: %w", curvekit.ErrUnauthorized)
	}
	handle := c.PreferredUsername
	if handle == "" {
		handle = c.Nickname
	}
	if handle == "" {
		handle, _, _ = strings.Cut(c.Email, "@")
	}
	return auth.Identity{Provider: o.cfg.Provider, Subject: idt.Subject, Handle: handle, Name: c.Name, Picture: c.Picture}, nil
}

// exchange redeems the code; a refusal by the provider (an OAuth error answer) is
// ErrUnauthorized, anything else (network, 5xx) stays a plain error.
func exchange(ctx context.Context, conf *oauth2.Config, code, verifier string) (*oauth2.Token, error) {
	tok, err := conf.Exchange(ctx, code, oauth2.VerifierOption(verifier))
	if err == nil {
		return tok, nil
	}
	var re *oauth2.RetrieveError
	if errors.As(err, &re) && re.Response != nil && re.Response.StatusCode >= 400 && re.Response.StatusCode < 500 {
		return nil, fmt.Errorf("oauth: code refused (%s): %w", re.ErrorCode, curvekit.ErrUnauthorized)
	}
	return nil, fmt.Errorf("oauth: token endpoint: %w", err)
}
