// Package auth holds accounts: who a request acts as (Principal), the OAuth 2.0 sign-in flow
// (a single-use state bound to returnTo and to the browser, a PKCE verifier), server-side
// sessions, API keys with their restrictions (read-only, IP and recipient allowlists), the
// subscription tier, and the rate-limit classes of the API. Secrets are random and reach the
// store only as SHA-256 digests; nothing positive is cached, so a revocation or a logout holds
// from the next request on. What a credential keeps open (an event stream, a streamed turn) runs
// under Service.Hold, which ends it within WatchEvery of the credential's end on any process.
//
// Service is the entry point; it reaches the outside through ports declared here: Accounts (the
// store of users, sessions, keys and pending sign-ins; conformance suite in auth/authtest),
// IdentityProvider (adapters/oauth), WalletCreator (the wallet package) and Limiter
// (adapters/ratelimit). limiter.go holds the Limiter port, limit.go the Limit and Decision types it speaks,
// and the endpoint classes with their Policy (SPEC section 8: throttling is per endpoint class,
// not one global bucket); the HTTP middleware that applies a Policy lives in adapters/httpapi.
package auth
