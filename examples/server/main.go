// Command server is the curvekit reference server: the public market API over HTTP, fed by an
// indexer that follows the chain into SQLite or PostgreSQL.
//
// With no flags it runs entirely on this machine: an in-process devnet chain with the reference
// contracts and three demo tokens, a SQLite file, the in-memory rate limiter, and a trade
// simulator that sends real trades to the devnet so the API shows live data that came through
// the indexer:
//
//	go run ./examples/server
//
// Every flag has an environment variable of the same meaning (CURVEKIT_ADDR, CURVEKIT_DB, ...);
// a flag given on the command line wins.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/ethclient"

	"github.com/curvekit/curvekit/adapters/bunstore"
	"github.com/curvekit/curvekit/adapters/evm"
	"github.com/curvekit/curvekit/adapters/evm/devnet"
	"github.com/curvekit/curvekit/adapters/httpapi"
	"github.com/curvekit/curvekit/adapters/ratelimit"
	"github.com/curvekit/curvekit/auth"
	"github.com/curvekit/curvekit/market"
	"github.com/curvekit/curvekit/stream"
	"github.com/curvekit/curvekit/txbuild"
)

// options are the server's flags.
type options struct {
	addr           string
	db             string
	redis          string
	rpcURL         string
	factory        string
	router         string
	startBlock     uint64
	confirmations  uint64
	simulate       time.Duration
	poll           time.Duration
	rateLimit      int
	rateWindow     time.Duration
	trustedProxies string
	logLevel       string
	heartbeat      time.Duration
	streamBuffer   int
}

func parseOptions(args []string, getenv func(string) string) (options, error) {
	var o options
	fs := flag.NewFlagSet("server", flag.ContinueOnError)
	env := func(name, def string) string {
		if v := getenv(name); v != "" {
			return v
		}
		return def
	}
	envDuration := func(name string, def time.Duration) time.Duration {
		if v := getenv(name); v != "" {
			if d, err := time.ParseDuration(v); err == nil {
				return d
			}
		}
		return def
	}
	fs.StringVar(&o.addr, "addr", env("CURVEKIT_ADDR", "127.0.0.1:8080"), "listen address (CURVEKIT_ADDR)")
	fs.StringVar(&o.db, "db", env("CURVEKIT_DB", "curvekit.db"), "a SQLite path or a postgres:// DSN (CURVEKIT_DB)")
	fs.StringVar(&o.redis, "redis", env("CURVEKIT_REDIS", ""), "Redis address for rate limits; empty: in memory (CURVEKIT_REDIS)")
	fs.StringVar(&o.rpcURL, "rpc-url", env("CURVEKIT_RPC_URL", ""), "JSON-RPC URL of a real chain; empty: the in-process devnet (CURVEKIT_RPC_URL)")
	fs.StringVar(&o.factory, "factory", env("CURVEKIT_FACTORY", ""), "LaunchFactory address on the real chain (CURVEKIT_FACTORY)")
	fs.StringVar(&o.router, "router", env("CURVEKIT_ROUTER", ""), "Router address on the real chain (CURVEKIT_ROUTER)")
	fs.Uint64Var(&o.startBlock, "start-block", 0, "first block to index on an empty store, the factory's deployment block (CURVEKIT_START_BLOCK)")
	fs.Uint64Var(&o.confirmations, "confirmations", 0, "blocks the indexer stays behind the head; reorganizations below are rolled back either way (CURVEKIT_CONFIRMATIONS)")
	fs.DurationVar(&o.simulate, "simulate", envDuration("CURVEKIT_SIMULATE", 2*time.Second), "interval of simulated devnet trades; 0 turns it off (CURVEKIT_SIMULATE)")
	fs.DurationVar(&o.poll, "poll", envDuration("CURVEKIT_POLL", 500*time.Millisecond), "indexer poll interval (CURVEKIT_POLL)")
	fs.IntVar(&o.rateLimit, "rate-limit", 600, "default rate limit: requests per window (CURVEKIT_RATE_LIMIT)")
	fs.DurationVar(&o.rateWindow, "rate-window", time.Minute, "default rate limit window, whole seconds (CURVEKIT_RATE_WINDOW)")
	fs.StringVar(&o.trustedProxies, "trusted-proxies", env("CURVEKIT_TRUSTED_PROXIES", ""), "comma-separated CIDRs whose X-Forwarded-For is believed (CURVEKIT_TRUSTED_PROXIES)")
	fs.StringVar(&o.logLevel, "log-level", env("CURVEKIT_LOG_LEVEL", "info"), "debug, info, warn or error (CURVEKIT_LOG_LEVEL)")
	fs.DurationVar(&o.heartbeat, "heartbeat", envDuration("CURVEKIT_HEARTBEAT", 15*time.Second), "idle time after which a stream sends a heartbeat comment (CURVEKIT_HEARTBEAT)")
	fs.IntVar(&o.streamBuffer, "stream-buffer", 1000, "messages a stream subscriber may fall behind before it is cut off (CURVEKIT_STREAM_BUFFER)")
	if v := getenv("CURVEKIT_STREAM_BUFFER"); v != "" {
		if _, err := fmt.Sscan(v, &o.streamBuffer); err != nil {
			return o, fmt.Errorf("CURVEKIT_STREAM_BUFFER: %w", err)
		}
	}
	if v := getenv("CURVEKIT_START_BLOCK"); v != "" {
		if _, err := fmt.Sscan(v, &o.startBlock); err != nil {
			return o, fmt.Errorf("CURVEKIT_START_BLOCK: %w", err)
		}
	}
	if v := getenv("CURVEKIT_CONFIRMATIONS"); v != "" {
		if _, err := fmt.Sscan(v, &o.confirmations); err != nil {
			return o, fmt.Errorf("CURVEKIT_CONFIRMATIONS: %w", err)
		}
	}
	if v := getenv("CURVEKIT_RATE_LIMIT"); v != "" {
		if _, err := fmt.Sscan(v, &o.rateLimit); err != nil {
			return o, fmt.Errorf("CURVEKIT_RATE_LIMIT: %w", err)
		}
	}
	o.rateWindow = envDuration("CURVEKIT_RATE_WINDOW", o.rateWindow)
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if o.rpcURL != "" && (o.factory == "" || o.router == "") {
		return o, errors.New("--rpc-url needs --factory and --router")
	}
	if o.rateLimit <= 0 || o.rateWindow < time.Second {
		return o, errors.New("--rate-limit must be positive and --rate-window at least 1s")
	}
	if o.heartbeat <= 0 || o.streamBuffer <= 0 {
		return o, errors.New("--heartbeat and --stream-buffer must be positive")
	}
	return o, nil
}

func main() {
	o, err := parseOptions(os.Args[1:], os.Getenv)
	if err != nil {
		fmt.Fprintln(os.Stderr, "server:", err)
		os.Exit(2)
	}
	var level slog.Level
	if err := level.UnmarshalText([]byte(o.logLevel)); err != nil {
		fmt.Fprintln(os.Stderr, "server: --log-level:", err)
		os.Exit(2)
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, o, log, nil); err != nil {
		log.Error("server stopped", "err", err)
		os.Exit(1)
	}
}

// run wires the server and serves until ctx ends. ready, when set, receives the listening
// address once the server accepts connections.
func run(ctx context.Context, o options, log *slog.Logger, ready chan<- string) error {
	a, err := wire(ctx, o, log)
	if err != nil {
		return err
	}
	defer a.close()
	ln, err := net.Listen("tcp", o.addr)
	if err != nil {
		return err
	}
	if ready != nil {
		ready <- ln.Addr().String()
	}
	return a.serve(ctx, ln, o)
}

// app is the wired server: every part, so that tests can reach the devnet and the store.
type app struct {
	log     *slog.Logger
	dev     *devnet.Devnet // nil on a real chain
	chain   *evm.Chain
	store   *bunstore.Market
	ix      *market.Indexer
	builder *txbuild.Builder
	svc     *market.Service
	hub     *stream.Hub
	api     *httpapi.Server
	closers []func() error
}

func (a *app) close() {
	for i := len(a.closers) - 1; i >= 0; i-- {
		if err := a.closers[i](); err != nil {
			a.log.Warn("close", "err", err)
		}
	}
}

// wire builds every part by hand: no registration, no globals.
func wire(ctx context.Context, o options, log *slog.Logger) (_ *app, err error) {
	a := &app{log: log}
	defer func() {
		if err != nil {
			a.close()
		}
	}()
	// The chain: a real one over JSON-RPC, or the in-process devnet.
	var (
		client  evm.Client
		dev     *devnet.Devnet
		factory common.Address
		router  common.Address
	)
	if o.rpcURL != "" {
		if !common.IsHexAddress(o.factory) || !common.IsHexAddress(o.router) {
			return nil, errors.New("--factory and --router must be addresses")
		}
		c, err := ethclient.DialContext(ctx, o.rpcURL)
		if err != nil {
			return nil, fmt.Errorf("dial %s: %w", o.rpcURL, err)
		}
		a.closers = append(a.closers, func() error { c.Close(); return nil })
		client, factory, router = c, common.HexToAddress(o.factory), common.HexToAddress(o.router)
	} else {
		d, err := devnet.Start(devnet.Config{})
		if err != nil {
			return nil, fmt.Errorf("start devnet: %w", err)
		}
		a.closers = append(a.closers, d.Close)
		dev, client, factory, router = d, d.Client, d.Addrs.Factory, d.Addrs.Router
		log.Info("devnet started", "chainId", d.ChainID, "factory", factory, "router", router,
			"ETH token", d.ETHToken.Token, "TUSD token", d.USDToken.Token, "graduated token", d.GraduatedToken.Token)
	}
	chain, err := evm.New(evm.Config{Client: client, Factory: factory, Router: router})
	if err != nil {
		return nil, err
	}
	info, err := chain.Info(ctx)
	if err != nil {
		return nil, err
	}

	db, err := bunstore.Open(ctx, bunstore.Config{DSN: o.db})
	if err != nil {
		return nil, fmt.Errorf("open store: %w", err)
	}
	a.closers = append(a.closers, db.Close)
	store := db.Market()

	// What the indexer writes reaches the in-process readers (the service's token cache, the
	// streams) through observers, called in order after each commit.
	var observers []func(market.Sync)
	ix, err := market.NewIndexer(ctx, market.IndexerConfig{
		OnSync: func(s market.Sync) {
			for _, o := range observers {
				o(s)
			}
		},
		Chain: chain, Store: store, StartBlock: o.startBlock, PollInterval: o.poll, Confirmations: o.confirmations,
		// A new devnet is a new chain: start its store afresh instead of refusing it.
		ResetOnChainChange: dev != nil,
		Logger:             log.With("component", "indexer"),
	})
	if err != nil {
		return nil, err
	}

	clock := time.Now
	if dev != nil {
		// The devnet seals blocks on demand, so its clock may run ahead of the wall clock:
		// deadlines count from the head block's time.
		clock = func() time.Time {
			h, err := chain.Head(context.Background())
			if err != nil || time.Unix(h.Time, 0).Before(time.Now()) {
				return time.Now()
			}
			return time.Unix(h.Time, 0)
		}
	}
	builder, err := txbuild.New(txbuild.Config{ChainID: info.ChainID, Factory: factory, Router: router, WETH: info.WETH, Now: clock})
	if err != nil {
		return nil, err
	}
	svc, err := market.NewService(market.ServiceConfig{Store: store, Builder: builder, Live: chain, Now: clock, CacheTokens: 100_000})
	if err != nil {
		return nil, err
	}
	observers = append(observers, svc.Observe)

	// The streams are fed by the indexer alone, after the service's cache: what a client sees
	// live is what REST answers afterwards.
	hub, err := stream.NewHub(stream.HubConfig{Buffer: o.streamBuffer})
	if err != nil {
		return nil, err
	}
	codec := httpapi.StreamCodec()
	feed, err := stream.NewFeed(stream.FeedConfig{Hub: hub, Store: store, Market: svc, Codec: codec, Logger: log.With("component", "feed")})
	if err != nil {
		return nil, err
	}
	observers = append(observers, feed.Apply)
	streams, err := stream.New(stream.Config{Hub: hub, Store: store, Market: svc, Codec: codec, Heartbeat: o.heartbeat, Logger: log.With("component", "stream")})
	if err != nil {
		return nil, err
	}

	var limiter auth.Limiter
	if o.redis != "" {
		r, err := ratelimit.NewRedis(ratelimit.RedisConfig{Addr: o.redis})
		if err != nil {
			return nil, err
		}
		a.closers = append(a.closers, r.Close)
		limiter = r
	} else {
		m, err := ratelimit.NewMemory(ratelimit.MemoryConfig{})
		if err != nil {
			return nil, err
		}
		limiter = m
	}
	proxies, err := parsePrefixes(o.trustedProxies)
	if err != nil {
		return nil, err
	}
	settings, err := settingsFor(ctx, chain, dev)
	if err != nil {
		return nil, err
	}
	api, err := httpapi.New(httpapi.Config{
		Market: svc, Streams: streams, Limiter: limiter, TrustedProxies: proxies, Settings: settings,
		Policy: auth.DefaultPolicy(auth.Every(o.rateLimit, o.rateWindow)),
		Logger: log.With("component", "http"),
	})
	if err != nil {
		return nil, err
	}

	a.dev, a.chain, a.store, a.ix, a.builder, a.svc, a.hub, a.api = dev, chain, store, ix, builder, svc, hub, api
	return a, nil
}

// serve runs the indexer, the simulator (on the devnet) and the HTTP server on ln until ctx ends,
// then shuts the server down gracefully.
func (a *app) serve(ctx context.Context, ln net.Listener, o options) error {
	log := a.log
	srv := &http.Server{
		Handler:           a.api.Handler(),
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		// No WriteTimeout: it would cut long-lived streams; handlers set per-write deadlines.
	}
	// Shutdown waits for handlers, and a stream's never ends by itself: closing the hub ends them.
	srv.RegisterOnShutdown(a.hub.Close)
	errc := make(chan error, 3)
	go func() { errc <- a.ix.Run(ctx) }()
	if a.dev != nil && o.simulate > 0 {
		sim, err := newSimulator(a.dev, a.chain, a.builder, log.With("component", "simulator"))
		if err != nil {
			return err
		}
		go func() { errc <- sim.run(ctx, o.simulate) }()
	}
	go func() {
		if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
			errc <- err
		}
	}()
	log.Info("listening", "addr", ln.Addr().String(), "db", o.db, "redis", o.redis != "")
	select {
	case <-ctx.Done():
	case err := <-errc:
		if err != nil {
			log.Error("component failed", "err", err)
		}
	}
	log.Info("shutting down")
	shutdown, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return srv.Shutdown(shutdown)
}

func parsePrefixes(s string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		if !strings.Contains(part, "/") {
			addr, err := netip.ParseAddr(part)
			if err != nil {
				return nil, fmt.Errorf("--trusted-proxies: %w", err)
			}
			out = append(out, netip.PrefixFrom(addr, addr.BitLen()))
			continue
		}
		p, err := netip.ParsePrefix(part)
		if err != nil {
			return nil, fmt.Errorf("--trusted-proxies: %w", err)
		}
		out = append(out, p)
	}
	return out, nil
}

// settingsFor describes the deployment for GET /config: fees and pairing assets from the chain.
func settingsFor(ctx context.Context, chain *evm.Chain, dev *devnet.Devnet) (httpapi.Settings, error) {
	st := httpapi.Settings{
		Tiers: httpapi.Tiers{Free: httpapi.Tier{LaunchesPerDay: 3}, Pro: httpapi.Tier{LaunchesPerDay: 25}},
	}
	params, _, err := chain.LaunchParams(ctx, common.Address{})
	if err != nil {
		return st, err
	}
	poolFee, err := chain.PoolFeeBps(ctx)
	if err != nil {
		return st, err
	}
	st.Fees = httpapi.Fees{CurveBps: params.FeeBps, CreatorShareBps: params.CreatorShareBps, PoolBps: poolFee}
	eth, err := chain.Asset(ctx, common.Address{})
	if err != nil {
		return st, err
	}
	st.QuoteAssets = []market.Asset{eth}
	if dev != nil {
		usd, err := chain.Asset(ctx, dev.Addrs.USD)
		if err != nil {
			return st, err
		}
		st.QuoteAssets = append(st.QuoteAssets, usd)
		st.Contracts.PoolFactory = dev.Addrs.PoolFactory
	}
	return st, nil
}
