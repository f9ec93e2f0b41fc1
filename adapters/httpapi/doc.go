// Package httpapi serves the curvekit HTTP API on bunrouter: the wire format of SPEC.md and
// docs/API.md on top of the market service (and, later, the auth, agent and launch services).
//
// The package owns everything about the wire and nothing about the domain: parsing paths, queries
// and bodies; turning service results into JSON (exact decimal strings for amounts, JSON numbers
// for display prices); mapping errors to {statusCode, message} (or to {error} with status 200 for
// the quote and build-tx validators); and per-class rate limiting through an auth.Limiter, keyed
// by API key or client IP.
//
// Every route is declared in one table (routes.go). A feature adds a group there - its prefix,
// its middleware and its routes with their rate-limit classes - without touching the others.
package httpapi
