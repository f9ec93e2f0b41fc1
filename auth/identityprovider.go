package auth

import "context"

// IdentityProvider is an OAuth 2.0 / OpenID Connect provider that signs people in (SPEC 5 rule 1).
// Adapters live in adapters/oauth; the sign-in flow (state, PKCE verifier, returnTo) is the auth
// package's and reaches the provider only through this port.
type IdentityProvider interface {
	// AuthCodeURL is the provider's authorization URL for the authorization-code flow with
	// PKCE: state is the single-use state, verifier the PKCE code verifier (the URL carries its
	// S256 challenge), loginHint the optional OIDC login_hint ("" omits it).
	AuthCodeURL(state, verifier, loginHint string) string
	// Exchange redeems the authorization code with the PKCE verifier and returns who signed in.
	// A code the provider refuses, or an ID token that does not verify, is
	// curvekit.ErrUnauthorized; an unreachable provider is any other error.
	Exchange(ctx context.Context, code, verifier string) (Identity, error)
}

// Identity is who a provider says signed in.
type Identity struct {
	// Provider names the provider ("oidc:https://accounts.example", "x", "dev"); with Subject it
	// identifies the person across sign-ins.
	Provider string
	// Subject is the provider's stable id for the person (the OIDC "sub").
	Subject string
	// Handle is the public handle shown as user.handle (preferred_username, the X handle).
	Handle string
	// Name is the display name, Picture the profile picture URL (user.pfp); either may be empty.
	Name, Picture string
}
