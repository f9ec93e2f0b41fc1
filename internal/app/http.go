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
	"github.com/curvekit/curvekit/internal/redact"
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
	r, err := ratelimit.NewRedis(ratelimit.RedisConfig{Addr: a.Config.Redis, Prefix: a.Config.RedisPrefix})
	if err != nil {
		return err
	}
	a.onClose(r.Close)
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if err := r.Ping(ctx); err != nil {
		return fmt.Errorf("--redis %s: %w", redact.Text(a.Config.Redis), err)
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
		Accounts: a.Accounts, Wallet: a.Wallets, Account: a.Settings, Push: a.Push, Orders: a.Orders, PublicURL: a.publicURL(), SecureCookies: strings.HasPrefix(a.publicURL(), "https://"),
		Policy:  auth.DefaultPolicy(auth.Every(a.Config.RateLimit, a.Config.RateWindow)),
		Ready:   a.readyChecks(),
		Replica: a.replicaInfo,
		Metrics: a.Metrics,
		Logger:  a.Log.With("component", "http"),
	})
	return err
}

// readyChecks are what GET /readyz checks: the store answers, and the data served follows the
// chain within ReadyLag blocks, so a server whose data went stale stops being ready instead of
// serving it silently. The leader checks its indexer; a follower that it keeps up with the store
// and that the store keeps up with the chain (its leader, wherever it runs, indexes). Each
// failure says what failed in words (httpapi.Unready); its error goes to the log only.
func (a *App) readyChecks() []httpapi.ReadyCheck {
	return append([]httpapi.ReadyCheck{
		{Name: "store", Check: func(ctx context.Context) error {
			if err := a.DB.Ping(ctx); err != nil {
				return &httpapi.Unready{Reason: "database unreachable", Err: err}
			}
			return nil
		}},
		{Name: "indexer", Check: func(ctx context.Context) error {
			st := a.Replica.Status()
			if st.Leading {
				if st.Indexer.Check(a.Config.ReadyLag) != nil {
					// The reason says how; the error, once, why (Check's error is the
					// reason and the error again).
					u := &httpapi.Unready{Reason: st.Indexer.Reason()}
					if st.Indexer.Failures > 0 {
						u.Err = st.Indexer.LastErr
					}
					return u
				}
				return nil
			}
			if f := st.Follower; f.Failures > 0 {
				return &httpapi.Unready{Reason: fmt.Sprintf("following the store failed %d times in a row", f.Failures), Err: f.LastErr}
			}
			cur, err := a.Store.Cursor(ctx)
			if err != nil {
				return &httpapi.Unready{Reason: "database unreachable", Err: err}
			}
			head, err := a.Chain.Head(ctx)
			if err != nil {
				return &httpapi.Unready{Reason: "chain node unreachable", Err: err}
			}
			if head.Number > cur.Block+a.Config.Confirmations+a.Config.ReadyLag {
				return &httpapi.Unready{Reason: fmt.Sprintf("the indexer (another replica) is %d blocks behind the head (block %d of %d)", head.Number-cur.Block, cur.Block, head.Number)}
			}
			return nil
		}},
	}, a.ready...)
}

// replicaInfo is this server's part among replicas, as GET /readyz shows it.
func (a *App) replicaInfo() httpapi.Replica {
	st := a.Replica.Status()
	r := httpapi.Replica{Role: "follower", Holder: publicHolder(st.Holder), Block: st.Position.Block}
	switch {
	case st.Leading:
		r.Role, r.Term, r.LeaderSince = "leader", st.Term, new(st.Since.UTC())
	case !st.Elected:
		r.Role = "api-only"
	}
	return r
}

// publicHolder is the part of a replica's lease name that GET /readyz shows: its random suffix,
// without the host name and process id before it.
func publicHolder(holder string) string {
	return holder[strings.LastIndexByte(holder, ':')+1:]
}

// registerMarketMetrics adds the indexer's, the replica's and the streams' gauges, read at scrape
// time from the replica's status (no chain or store call). The indexer's are those of this
// replica's indexer while it leads, and 0 while it follows.
func (a *App) registerMarketMetrics() {
	gauge := func(name, help string, v func(market.ReplicaStatus) float64) prometheus.Collector {
		return prometheus.NewGaugeFunc(prometheus.GaugeOpts{Namespace: "curvekit", Subsystem: "indexer", Name: name, Help: help},
			func() float64 { return v(a.Replica.Status()) })
	}
	a.Metrics.MustRegister(
		gauge("indexed_block", "The last block the indexer committed.", func(s market.ReplicaStatus) float64 { return float64(s.Indexer.Indexed) }),
		gauge("head_block", "The chain's head as the indexer last saw it.", func(s market.ReplicaStatus) float64 { return float64(s.Indexer.Head) }),
		gauge("lag_blocks", "Blocks between the head and the last indexed block.", func(s market.ReplicaStatus) float64 { return float64(s.Indexer.Lag) }),
		gauge("failures", "Syncs failed in a row.", func(s market.ReplicaStatus) float64 { return float64(s.Indexer.Failures) }),
		gauge("throttled", "1 while the indexer's syncs fail because the chain's provider throttles it (it backs off), else 0.", func(s market.ReplicaStatus) float64 {
			if s.Indexer.Failures > 0 && s.Indexer.Throttled {
				return 1
			}
			return 0
		}),
		gauge("leader", "1 while this replica leads the indexer, else 0.", func(s market.ReplicaStatus) float64 {
			if s.Leading {
				return 1
			}
			return 0
		}),
		gauge("leader_since_seconds", "Unix time at which this replica's term as the indexer began; 0 while it follows.", func(s market.ReplicaStatus) float64 {
			if !s.Leading {
				return 0
			}
			return float64(s.Since.UnixMilli()) / 1000
		}),
		gauge("term", "The indexer lease's term while this replica leads; 0 while it follows.", func(s market.ReplicaStatus) float64 { return float64(s.Term) }),
		gauge("position_block", "The last block of the store this replica's streams and caches took in.", func(s market.ReplicaStatus) float64 { return float64(s.Position.Block) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Namespace: "curvekit", Subsystem: "stream", Name: "subscribers",
			Help: "Open SSE stream subscriptions, global and per token.",
		}, func() float64 { return float64(a.Hub.TotalSubscribers()) }),
	)
	if a.Heads != nil {
		a.Metrics.MustRegister(
			prometheus.NewGaugeFunc(prometheus.GaugeOpts{
				Namespace: "curvekit", Subsystem: "chain", Name: "heads_subscribed",
				Help: "1 while this replica's indexer hears the chain's new heads as they come, 0 while it only polls or the replica follows.",
			}, func() float64 {
				if a.Heads.Status().Subscribed {
					return 1
				}
				return 0
			}),
			prometheus.NewCounterFunc(prometheus.CounterOpts{
				Namespace: "curvekit", Subsystem: "chain", Name: "heads_total",
				Help: "New heads the chain announced to this replica.",
			}, func() float64 { return float64(a.Heads.Status().Heads) }),
		)
	}
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

// settingsFor describes the deployment for GET /config, read from the chain on the devnet and on
// a real chain alike: the factory's pool factory and the pairing assets it enables (tiers and
// fees come from the launch service, which enforces them).
func settingsFor(ctx context.Context, a *App) (httpapi.Settings, error) {
	var st httpapi.Settings
	pf, err := a.Chain.PoolFactory(ctx)
	if err != nil {
		return st, err
	}
	if pf != (common.Address{}) {
		st.Contracts.PoolFactory = pf
	}
	if st.QuoteAssets, err = a.Chain.PairingAssets(ctx, a.Config.StartBlock); err != nil {
		return st, err
	}
	if a.Devnet != nil {
		st.RPCURL = a.DevnetRPCURL()
	}
	return st, nil
}
