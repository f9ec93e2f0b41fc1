package httpapi

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/netip"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/uptrace/bunrouter"

	"github.com/curvekit/curvekit/account"
	"github.com/curvekit/curvekit/agent"
	"github.com/curvekit/curvekit/auth"
	"github.com/curvekit/curvekit/launch"
	"github.com/curvekit/curvekit/market"
	"github.com/curvekit/curvekit/orders"
	"github.com/curvekit/curvekit/push"
	"github.com/curvekit/curvekit/stream"
	"github.com/curvekit/curvekit/wallet"
)

// Config configures a Server.
type Config struct {
	// Market serves the token, quote, build, trade, candle and stats endpoints. Required.
	Market *market.Service
	// Limiter counts requests per rate-limit class and caller. Required.
	Limiter auth.Limiter
	// Policy maps each class to its limit and says whether a class fails open or closed when the
	// Limiter errors (auth.DefaultPolicy gives SPEC section 8). Its ClassDefault limit is the
	// platform.rateLimit that GET /config shows, so its period must be whole seconds.
	Policy auth.Policy
	// Accounts serves sign-in, sessions, profiles and API keys (SPEC 4.1, 4.2); without it those
	// routes are not routed.
	Accounts *auth.Service
	// Wallet signs and broadcasts with an account's custodial wallet (SPEC 4.5); without it those
	// routes are not routed.
	Wallet *wallet.Service
	// Account serves the account's settings (the wallet's second guard, the agent profile) and
	// activity log; without it those routes are not routed.
	Account *account.Service
	// Orders places, lists and cancels the account's standing orders; without it those routes
	// are not routed.
	Orders *orders.Service
	// Agent serves the agent's jobs, streamed prompt and memory (SPEC 4.3, 6.3); without it
	// those routes are not routed.
	Agent *agent.Service
	// Push serves the webhook subscriptions, their delivery log and replays, and the account
	// stream; without it those routes are not routed.
	Push *push.Service
	// Launch serves launch preparation, creator fees, token logos and pinned content (SPEC 4.6,
	// 4.7, GET /ipfs/:cid); without it those routes are not routed.
	Launch *launch.Service
	// Terms are the tiers and fees GET /config shows; default Launch. Without either, /config
	// shows none.
	Terms LaunchTerms
	// Auth resolves credentials to principals; default Accounts. Without either, every request
	// is anonymous and guarded routes answer 401.
	Auth Authenticator
	// Holder ends event streams, streamed agent turns and guarded mounts when the credential
	// that opened them ends; default Auth when it is a Holder. Without one they end only when
	// their client leaves.
	Holder Holder
	// PublicURL is where browsers reach the server (the sign-in's redirect URI is under it). A
	// sign-in started on another host (localhost where it says 127.0.0.1) could not finish: the
	// browser would not send that host's sign-in cookie to the callback. Such a sign-in is
	// refused at once, naming the host to use. Empty: not checked.
	PublicURL string
	// SecureCookies marks cookies Secure even on plain-HTTP requests (behind a TLS-terminating
	// proxy); requests over TLS get Secure cookies anyway.
	SecureCookies bool
	// TrustedProxies are the peers whose X-Forwarded-For is believed (see clientIP). Empty: the
	// TCP peer is the client.
	TrustedProxies []netip.Prefix
	// Settings is what GET /config shows beyond the rate limit.
	Settings Settings
	// Streams serves the SSE endpoints GET /tokens/stream and /tokens/:address/stream; without
	// it they are not routed.
	Streams *stream.Service
	// StreamWriteTimeout bounds each write to a stream (the server has no WriteTimeout, which
	// would cut every stream): a client that stops reading for this long loses its stream.
	// Default 10s.
	StreamWriteTimeout time.Duration
	// BodyTimeout bounds the time a client may take to send a request body, counted from the
	// request's arrival; a slower body is cut with 408. Default 10s.
	BodyTimeout time.Duration
	// Mounts are handlers of other packages served as routes, in the same pipeline.
	Mounts []Mount
	// Ready are the conditions GET /readyz checks.
	Ready []ReadyCheck
	// Replica, when set, says what this server does among replicas; GET /readyz shows it.
	Replica func() Replica
	// Metrics, when set, receives the API's Prometheus collectors (requests by route and status,
	// latency); the operator serves them on an address of their own.
	Metrics prometheus.Registerer
	// Logger receives server-side errors (a client only sees a generic message); default
	// slog.Default().
	Logger *slog.Logger
}

func (c *Config) validate() error {
	if c.Market == nil {
		return errors.New("httpapi: Market is required")
	}
	if c.Limiter == nil {
		return errors.New("httpapi: Limiter is required")
	}
	if err := c.Policy.Validate(); err != nil {
		return fmt.Errorf("httpapi: policy: %w", err)
	}
	for class, r := range c.Policy {
		if p := r.Limit.Period; p%time.Second != 0 {
			// GET /config serves each limit as requests per window in whole seconds.
			return fmt.Errorf("httpapi: policy: %s period %v is not a whole number of seconds", class, p)
		}
	}
	proxies := make([]netip.Prefix, len(c.TrustedProxies))
	for i, p := range c.TrustedProxies {
		if !p.IsValid() {
			return fmt.Errorf("httpapi: trusted proxy %d is not a valid prefix", i)
		}
		proxies[i] = normalizePrefix(p)
	}
	c.TrustedProxies = proxies
	if err := c.Settings.complete(c.Market.Builder().Config()); err != nil {
		return fmt.Errorf("httpapi: settings: %w", err)
	}
	if c.StreamWriteTimeout < 0 {
		return errors.New("httpapi: negative stream write timeout")
	}
	if c.StreamWriteTimeout == 0 {
		c.StreamWriteTimeout = 10 * time.Second
	}
	if c.Terms == nil && c.Launch != nil {
		c.Terms = c.Launch
	}
	if c.Auth == nil && c.Accounts != nil {
		c.Auth = c.Accounts
	}
	if h, ok := c.Auth.(Holder); ok && c.Holder == nil {
		c.Holder = h
	}
	if c.BodyTimeout < 0 {
		return errors.New("httpapi: negative body timeout")
	}
	if c.BodyTimeout == 0 {
		c.BodyTimeout = 10 * time.Second
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	return nil
}

// Server is the HTTP API. It is safe for concurrent use.
type Server struct {
	cfg       Config
	log       *slog.Logger
	endpoints []endpoint
	config    configJSON
	router    *bunrouter.Router
	metrics   *metrics
	origin    *http.CrossOriginProtection
	routes    []route // the API's own, described in openapi
	openapi   []byte  // GET /openapi.json
	ready     readyLog
	answers   answers // the discovery reads, between syncs
}

// New returns a Server for cfg.
func New(cfg Config) (*Server, error) {
	return newServer(cfg, nil)
}

// newServer builds a Server with extra route groups after the API's own; tests use it to mount
// routes of other rate-limit classes.
func newServer(cfg Config, extra []group) (*Server, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	s := &Server{cfg: cfg, log: cfg.Logger, config: configOf(&cfg.Settings, cfg.Policy, cfg.Terms), origin: http.NewCrossOriginProtection()}
	if cfg.Metrics != nil {
		m, err := newMetrics(cfg.Metrics)
		if err != nil {
			return nil, fmt.Errorf("httpapi: metrics: %w", err)
		}
		s.metrics = m
	}
	own := s.groups()
	s.router = s.register(append(own, extra...), len(own))
	doc, err := s.openAPI(s.routes)
	if err != nil {
		return nil, err
	}
	s.openapi = doc
	return s, nil
}

// Handler returns the http.Handler that serves the API: the Server itself. An http.Server
// running it may set ConnContext, so that a connection's requests share one rate-limit key.
func (s *Server) Handler() http.Handler { return s }
