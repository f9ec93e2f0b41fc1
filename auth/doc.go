// Package auth holds accounts: API keys, sessions, the OAuth 2.0 sign-in flow, IP allowlists and
// the rate-limit classes of the API. It declares the ports its adapters implement (key and session
// stores, the custodial Signer, the Limiter) and depends only on pure packages.
//
// limit.go holds the Limiter port, the Limit and Decision types it speaks, and the endpoint classes
// with their Policy (SPEC section 8: throttling is per endpoint class, not one global bucket). The
// HTTP middleware that applies a Policy lives in adapters/httpapi; the limiters live in
// adapters/ratelimit.
package auth
