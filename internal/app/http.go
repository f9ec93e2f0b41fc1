package app

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/curvekit/curvekit/adapters/httpapi"
	"github.com/curvekit/curvekit/adapters/mcp"
	"github.com/curvekit/curvekit/adapters/ratelimit"
	"github.com/curvekit/curvekit/adapters/web"
	"github.com/curvekit/curvekit/auth"
	"github.com/curvekit/curvekit/market"
)

// wireLimiter builds the rate limiter first of all: Redis is checked before anything else is
// created, so a server pointed at an address where nothing answers stops at once, saying so.
func (a *App) wireLimiter(ctx context.Context) error {
	if a.Config.Redis == "" {
		m, err := ratelimit.NewMemory(ratelimit.MemoryConfig{})
		a.limiter = m
		return err
	}
	ratelimit.LogTo(a.Log.With("component", "redis"))
	r, err := ratelimit.NewRedis(ratelimit.RedisConfig{Addr: a.Config.Redis})
	if err != nil {
		return err
	}
	a.onClose(r.Close)
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if err := r.Ping(ctx); err != nil {
		return fmt.Errorf("--redis %s: %w", a.Config.Redis, err)
	}
	a.limiter = r
	return nil
}

// wireHTTP builds the API with its readiness checks and metrics.
func (a *App) wireHTTP(ctx context.Context) error {
	limiter := a.limiter
	proxies, err := a.Config.proxies()
	if err != nil {
		return err
	}
	settings, err := settingsFor(ctx, a)
	if err != nil {
		return err
	}
	a.Metrics.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	a.registerMarketMetrics()
	// Remote MCP's tool calls run through the API in process with the caller's key and address,
	// so every restriction of the key applies as over HTTP; the API is built just below.
	tools, err := mcp.NewHandler(mcp.HandlerConfig{API: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a.API.ServeHTTP(w, r)
	})})
	if err != nil {
		return err
	}
	mounts := []httpapi.Mount{{
		Methods: []string{http.MethodGet, http.MethodPost, http.MethodDelete}, Path: "/mcp",
		Access: httpapi.Key, Class: auth.ClassDefault, Bearer: true, Handler: tools,
		Doc: httpapi.MountDoc{ID: "mcp", Summary: "Remote MCP (Streamable HTTP): the agent's tools for MCP clients",
			Consumes: []string{"application/json"}, Produces: []string{"application/json", "text/event-stream"}},
	}}
	if a.devProvider != nil {
		// The development identity provider: its authorize endpoint is a sign-in and is
		// limited like GET /auth/login.
		const json, form, html = "application/json", "application/x-www-form-urlencoded", "text/html"
		for _, ep := range []struct {
			path    string
			methods []string
			class   auth.Class
			doc     httpapi.MountDoc
		}{
			{"/.well-known/openid-configuration", []string{http.MethodGet}, auth.ClassDefault,
				httpapi.MountDoc{ID: "devOAuthDiscovery", Summary: "Development identity provider: OpenID Connect discovery", Produces: []string{json}}},
			{"/jwks", []string{http.MethodGet}, auth.ClassDefault,
				httpapi.MountDoc{ID: "devOAuthKeys", Summary: "Development identity provider: its signing keys", Produces: []string{json}}},
			{"/authorize", []string{http.MethodGet, http.MethodPost}, auth.ClassProviderSignIn,
				httpapi.MountDoc{ID: "devOAuthAuthorize", Summary: "Development identity provider: the sign-in form", Consumes: []string{form},
					Produces: []string{html, json}, Redirects: true}},
			{"/token", []string{http.MethodPost}, auth.ClassDefault,
				httpapi.MountDoc{ID: "devOAuthToken", Summary: "Development identity provider: the token endpoint", Consumes: []string{form}, Produces: []string{json}}},
			{"/userinfo", []string{http.MethodGet, http.MethodPost}, auth.ClassDefault,
				httpapi.MountDoc{ID: "devOAuthUserInfo", Summary: "Development identity provider: the signed-in user", Consumes: []string{form}, Produces: []string{json}}},
		} {
			mounts = append(mounts, httpapi.Mount{Methods: ep.methods, Path: devOAuthPath + ep.path, Access: httpapi.Public, Class: ep.class, Handler: a.devProvider, Doc: ep.doc})
		}
	}
	if a.Config.Web {
		// The page and its assets, in the API's pipeline like every route.
		page := web.Handler()
		mounts = append(mounts,
			httpapi.Mount{Methods: []string{http.MethodGet}, Path: "/", Access: httpapi.Public, Class: auth.ClassExempt, Handler: page,
				Doc: httpapi.MountDoc{ID: "webPage", Summary: "The web front-end", Produces: []string{"text/html"}}},
			httpapi.Mount{Methods: []string{http.MethodGet}, Path: "/assets/:name", Access: httpapi.Public, Class: auth.ClassExempt, Handler: page,
				Doc: httpapi.MountDoc{ID: "webAsset", Summary: "The web front-end's scripts, styles and icon", Produces: []string{"text/javascript", "text/css", "image/svg+xml"}}},
		)
	}
	a.API, err = httpapi.New(httpapi.Config{
		Mounts: mounts,
		Market: a.Market, Streams: a.Streams, Agent: a.Agent, Launch: a.Launch, Limiter: limiter, TrustedProxies: proxies, Settings: settings,
		Accounts: a.Accounts, Wallet: a.Wallets, PublicURL: a.publicURL(), SecureCookies: strings.HasPrefix(a.publicURL(), "https://"),
		Policy:  auth.DefaultPolicy(auth.Every(a.Config.RateLimit, a.Config.RateWindow)),
		Ready:   a.readyChecks(),
		Metrics: a.Metrics,
		Logger:  a.Log.With("component", "http"),
	})
	return err
}

// readyChecks are what GET /readyz checks: the store answers, and the indexer follows the chain
// within ReadyLag blocks, so a server whose data went stale stops being ready instead of serving
// it silently.
func (a *App) readyChecks() []httpapi.ReadyCheck {
	return append([]httpapi.ReadyCheck{
		{Name: "store", Check: a.DB.Ping},
		{Name: "indexer", Check: func(context.Context) error {
			return a.Indexer.Status().Check(a.Config.ReadyLag)
		}},
	}, a.ready...)
}

// registerMarketMetrics adds the indexer's and the streams' gauges, read at scrape time from the
// indexer's status (no chain or store call).
func (a *App) registerMarketMetrics() {
	gauge := func(name, help string, v func() float64) prometheus.Collector {
		return prometheus.NewGaugeFunc(prometheus.GaugeOpts{Namespace: "curvekit", Subsystem: "indexer", Name: name, Help: help}, v)
	}
	a.Metrics.MustRegister(
		gauge("indexed_block", "The last block the indexer committed.", func() float64 { return float64(a.Indexer.Status().Indexed) }),
		gauge("head_block", "The chain's head as the indexer last saw it.", func() float64 { return float64(a.Indexer.Status().Head) }),
		gauge("lag_blocks", "Blocks between the head and the last indexed block.", func() float64 { return float64(a.Indexer.Status().Lag) }),
		gauge("failures", "Syncs failed in a row.", func() float64 { return float64(a.Indexer.Status().Failures) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Namespace: "curvekit", Subsystem: "stream", Name: "subscribers",
			Help: "Open SSE stream subscriptions, global and per token.",
		}, func() float64 { return float64(a.Hub.TotalSubscribers()) }),
	)
}

// handler is what the API's listener serves: the API, remote MCP at /mcp and the development
// identity provider under /dev-oauth when it runs, all routes of the API's table.
func (a *App) handler() (http.Handler, error) {
	if a.wrap != nil {
		return a.wrap(a.API.Handler()), nil
	}
	return a.API.Handler(), nil
}

// publicURL is where browsers reach the server, without a trailing slash.
func (a *App) publicURL() string {
	if a.Config.PublicURL != "" {
		return strings.TrimRight(a.Config.PublicURL, "/")
	}
	return "http://" + a.Config.Addr
}

// metricsHandler serves the registry at /metrics.
func (a *App) metricsHandler() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", promhttp.HandlerFor(a.Metrics, promhttp.HandlerOpts{}))
	return mux
}

// settingsFor describes the deployment for GET /config: the pairing assets from the chain (tiers
// and fees come from the launch service, which enforces them).
func settingsFor(ctx context.Context, a *App) (httpapi.Settings, error) {
	var st httpapi.Settings
	eth, err := a.Chain.Asset(ctx, common.Address{})
	if err != nil {
		return st, err
	}
	st.QuoteAssets = []market.Asset{eth}
	if a.Devnet != nil {
		usd, err := a.Chain.Asset(ctx, a.Devnet.Addrs.USD)
		if err != nil {
			return st, err
		}
		st.QuoteAssets = append(st.QuoteAssets, usd)
		st.Contracts.PoolFactory = a.Devnet.Addrs.PoolFactory
		st.RPCURL = a.DevnetRPCURL()
	}
	return st, nil
}
