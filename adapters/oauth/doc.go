// Package oauth holds the identity providers behind auth.IdentityProvider:
//
//   - OIDC: any OpenID Connect provider found by its issuer URL (discovery), authorization code
//     with PKCE S256, the ID token verified for issuer, audience, expiry and signature.
//   - OAuth2: a plain OAuth 2.0 provider without OIDC, whose identity comes from a userinfo
//     endpoint through a field mapping of dotted paths.
//   - DevProvider: a real OAuth 2.0 / OIDC authorization server for development, served as an
//     http.Handler and reached by the same OIDC adapter a real provider uses. It signs in any
//     handle, so CheckDevAddr keeps it on loopback unless the operator says otherwise. A server
//     that hosts it passes DevProvider.Metadata as OIDCConfig.Metadata: it cannot answer its
//     own discovery before it listens.
//
// Configuring a real provider. Google is OpenID Connect:
//
//	oauth.NewOIDC(ctx, oauth.OIDCConfig{
//		Issuer:       "https://accounts.google.com",
//		ClientID:     id, ClientSecret: secret,
//		RedirectURL:  "https://example.com/auth/callback",
//	})
//
// X (Twitter) is OAuth 2.0 with a userinfo endpoint:
//
//	oauth.NewOAuth2(oauth.OAuth2Config{
//		Provider:    "x",
//		AuthURL:     "https://x.com/i/oauth2/authorize",
//		TokenURL:    "https://api.x.com/2/oauth2/token",
//		UserinfoURL: "https://api.x.com/2/users/me?user.fields=profile_image_url",
//		Scopes:      []string{"users.read", "tweet.read"},
//		ClientID:    id, ClientSecret: secret,
//		RedirectURL: "https://example.com/auth/callback",
//		Fields: oauth.FieldMap{Subject: "data.id", Handle: "data.username",
//			Name: "data.name", Picture: "data.profile_image_url"},
//	})
package oauth
