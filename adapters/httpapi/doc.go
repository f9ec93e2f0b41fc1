// Package httpapi serves the curvekit HTTP API on bunrouter: the wire format of SPEC.md and
// docs/API.md on top of the services (market, streams, and the account, launch and agent services
// as they are configured).
//
// The package owns everything about the wire and nothing about the domain: parsing paths, queries
// and bodies; turning service results into JSON (exact decimal strings for amounts, JSON numbers
// for display prices); the request pipeline; and mapping errors to {statusCode, message} (or to
// {error} with status 200 for the quote and build-tx validators).
//
// Every route is declared in one table (routes.go) with its method, path, access (Public, Key,
// Session, SessionOrKey) and rate-limit class. Every request runs one pipeline (pipeline.go):
//
//	recover ─► authenticate ─► cross-origin ─► authorize ─► class budget ─► handler ─► one error mapping
//
// Handlers return errors; services return the root sentinel errors of package curvekit and
// errors.go maps them to statuses in one table. Bodies are decoded strictly (decode.go: unknown,
// duplicate and case-variant keys are refused, null is not {}), within a read deadline and a size
// bound; queries go through one typed binder (params.go) that reports every problem at once.
// Operations: GET /healthz, GET /readyz (Config.Ready) and Prometheus metrics (Config.Metrics),
// counted into shards that a scrape sums (metrics.go), so that cores serving one route do not
// share a counter's cache line. An http.Server running the API may set ConnContext: a connection
// then keeps its client's rate-limit key between requests.
//
// GET /openapi.json is an OpenAPI 3.1 document built at New from the same table (openapi.go): each
// route's op in operations (openapi_ops.go) names its query parameters and the Go types of its
// request and response, reflected into named schemas; a route without one fails New. /udf serves
// the TradingView UDF datafeed (udf.go) with the bars of /tokens/:address/candles.
package httpapi
