// Package app wires the curvekit reference server by hand: every adapter and service, built in
// order from a Config, with no registration, globals or service locator. The binaries of the module
// (examples/server, cmd/curvekit) only load their configuration and call this package, so they
// share one wiring.
//
// One file per feature: chain.go (the devnet or a real chain), devnetrpc.go (the devnet's
// JSON-RPC port), market.go (store, indexer, market service, streams), settings.go (account
// settings), accounts.go (custodial wallets, sign-in, sessions and keys), launch.go (uploads,
// daily limits, creator fees), agent.go (the agent and its job runner), http.go (the API, remote
// MCP, readiness, metrics), simulate.go (devnet trades). apptest starts the whole server for tests.
package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/curvekit/curvekit/account"
	"github.com/curvekit/curvekit/adapters/bunstore"
	"github.com/curvekit/curvekit/adapters/evm"
	"github.com/curvekit/curvekit/adapters/evm/devnet"
	"github.com/curvekit/curvekit/adapters/httpapi"
	"github.com/curvekit/curvekit/agent"
	"github.com/curvekit/curvekit/auth"
	"github.com/curvekit/curvekit/internal/redact"
	"github.com/curvekit/curvekit/launch"
	"github.com/curvekit/curvekit/market"
	"github.com/curvekit/curvekit/orders"
	"github.com/curvekit/curvekit/push"
	"github.com/curvekit/curvekit/stream"
	"github.com/curvekit/curvekit/txbuild"
	"github.com/curvekit/curvekit/wallet"
)

// App is the wired server. Its parts are exported so that tests and other binaries of the module
// can reach them (the devnet to send trades, the store to inspect).
type App struct {
	Config Config
	Log    *slog.Logger

	Devnet  *devnet.Devnet // nil on a real chain
	Chain   *evm.Chain
	DB      *bunstore.DB
	Store   *bunstore.Market
	Replica *market.Replica // leads the indexer or follows the store
	// Heads wakes the indexer on each new head the chain announces, subscribed while this
	// replica leads; nil on a replica that never indexes (--no-indexer).
	Heads    *evm.Heads
	Builder  *txbuild.Builder
	Market   *market.Service
	Hub      *stream.Hub
	Streams  *stream.Service
	Agent    *agent.Service
	Launch   *launch.Service
	Wallets  *wallet.Service
	Settings *account.Service
	Orders   *orders.Service
	// OrderEngine fires orders while this replica leads the indexer.
	OrderEngine *orders.Engine
	Accounts    *auth.Service
	Push        *push.Service
	API         *httpapi.Server
	Metrics     *prometheus.Registry

	signer wallet.Signer // nil: the wallet's default
	// ordersClock is the orders engine's clock; nil: time.Now.
	ordersClock func() time.Time
	keys        wallet.KeyWrapper
	// pushSources publish what the parts commit to Push (see sources).
	pushSources *pushSources
	// marketRelay relays the market's events to Push while this replica leads.
	marketRelay *marketRelay
	wrap        func(http.Handler) http.Handler
	// devProvider is the development identity provider, served under /dev-oauth when no
	// provider is configured.
	devProvider http.Handler
	limiter     auth.Limiter // built first: Redis is checked before anything is created
	// ready are the readiness checks of optional parts (a Kubo node), added as they are wired.
	ready           []httpapi.ReadyCheck
	client          evm.Client
	factory, router common.Address
	devnetRPC       net.Listener // --devnet-rpc-addr, served by Serve

	// observers receive each indexer sync, in order, after it commits.
	observers []func(market.Sync)
	closers   []func() error
}

// Option adjusts how New builds the App (tests use them to observe parts).
type Option func(*App)

// WithSigner signs custodial transactions with s instead of the default signer: a test counts
// what reaches the signer this way.
func WithSigner(s wallet.Signer) Option { return func(a *App) { a.signer = s } }

// WithOrdersClock gives the orders engine its clock: a test runs DCA and TWAP intervals and
// expiries this way without waiting for them.
func WithOrdersClock(now func() time.Time) Option { return func(a *App) { a.ordersClock = now } }

// WithMiddleware wraps the HTTP handler Serve serves: a test checks every exchange this way.
// Several compose: a later one wraps the earlier ones.
func WithMiddleware(wrap func(http.Handler) http.Handler) Option {
	return func(a *App) {
		inner := a.wrap
		a.wrap = func(h http.Handler) http.Handler {
			if inner != nil {
				h = inner(h)
			}
			return wrap(h)
		}
	}
}

// New builds every part from cfg. Close releases what it opened, also when New fails half way.
func New(ctx context.Context, cfg Config, log *slog.Logger, opts ...Option) (_ *App, err error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	// No credential of a URL or DSN reaches the log, whoever logs it (a dial error names the URL).
	log = slog.New(redact.Handler(log.Handler()))
	a := &App{Config: cfg, Log: log, Metrics: prometheus.NewRegistry()}
	for _, o := range opts {
		o(a)
	}
	defer func() {
		if err != nil {
			a.Close()
		}
	}()
	for _, step := range []func(context.Context) error{a.wireLimiter, a.wireChain, a.wireDevnetRPC, a.wireMarket, a.wireSettings, a.wireAccounts, a.wirePush, a.wireOrders, a.wireLaunch, a.wireAgent, a.wireHTTP} {
		if err := step(ctx); err != nil {
			return nil, err
		}
	}
	return a, nil
}

// Close releases every part, in the reverse order of opening.
func (a *App) Close() {
	for i := len(a.closers) - 1; i >= 0; i-- {
		if err := a.closers[i](); err != nil {
			a.Log.Warn("close", "err", err)
		}
	}
	a.closers = nil
}

func (a *App) onClose(f func() error) { a.closers = append(a.closers, f) }

// Run listens on cfg.Addr and serves until ctx ends.
func Run(ctx context.Context, cfg Config, log *slog.Logger) error {
	a, err := New(ctx, cfg, log)
	if err != nil {
		return err
	}
	defer a.Close()
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return err
	}
	return a.Serve(ctx, ln)
}

// NewHTTPServer is the HTTP server Serve runs handler in: a slow client's headers and an idle
// connection are cut by deadline. There is no ReadTimeout or WriteTimeout: the API bounds bodies
// per request and streams set a deadline per write; either server-wide timeout would cut
// long-lived streams. Each connection keeps its client's rate-limit key (httpapi.ConnContext).
func NewHTTPServer(handler http.Handler) *http.Server {
	return &http.Server{
		Handler:           handler,
		ConnContext:       httpapi.ConnContext, // a connection's client's rate-limit key, kept
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
	}
}

// Serve runs the replica (the indexer while it leads), the simulator (on the devnet), the metrics
// endpoint (when configured) and the API on ln until ctx ends or a part fails, then shuts the API
// down gracefully.
func (a *App) Serve(ctx context.Context, ln net.Listener) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	log := a.Log
	handler, err := a.handler()
	if err != nil {
		return err
	}
	srv := NewHTTPServer(handler)
	// Shutdown waits for handlers, and a stream's never ends by itself: closing the hub ends them.
	srv.RegisterOnShutdown(a.Hub.Close)
	errc := make(chan error, 5)
	// work holds the components that run until ctx ends; Serve waits for them before it returns,
	// so that Close never closes the database under an indexer sync or a simulated trade.
	var work sync.WaitGroup
	work.Go(func() { errc <- a.Replica.Run(ctx) })
	work.Go(func() { a.Wallets.Track(ctx) }) // every replica: a replacement is claimed in the store
	work.Go(func() { _ = a.Push.Run(ctx) })  // every replica: a delivery is claimed in the store
	work.Go(func() { _ = a.tailAccounts(ctx) })
	work.Go(func() { a.marketRelay.run(ctx, time.Second) }) // acts only while this replica leads
	work.Go(func() { a.OrderEngine.Run(ctx, a.leading) })   // acts only while this replica leads the indexer
	a.serveDevnetRPC(ctx, &work, errc)
	if a.Devnet != nil && a.Config.Simulate > 0 {
		sim, err := newSimulator(a.Devnet, a.Chain, a.Builder, log.With("component", "simulator"))
		if err != nil {
			return err
		}
		work.Go(func() { errc <- sim.run(ctx, a.Config.Simulate) })
	}
	var metricsSrv *http.Server
	if a.Config.MetricsAddr != "" {
		mln, err := net.Listen("tcp", a.Config.MetricsAddr)
		if err != nil {
			return fmt.Errorf("--metrics-addr: %w", err)
		}
		metricsSrv = &http.Server{Handler: a.metricsHandler(), ReadHeaderTimeout: 10 * time.Second}
		go func() {
			if err := metricsSrv.Serve(mln); !errors.Is(err, http.ErrServerClosed) {
				errc <- err
			}
		}()
		log.Info("metrics", "addr", mln.Addr().String())
	}
	go func() {
		if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
			errc <- err
		}
	}()
	chain := "devnet"
	if urls := a.Config.rpcURLs(); len(urls) > 0 {
		names := make([]string, len(urls))
		for i, u := range urls {
			names[i] = endpointName(u) // scheme and host: a provider's key is in the rest
		}
		chain = strings.Join(names, ",")
	}
	log.Info("listening", "addr", "http://"+ln.Addr().String(), "db", a.Config.DB, "redis", a.Config.Redis, "chain", chain, "ipfs", a.Config.IPFSAPI)
	var failed error
	select {
	case <-ctx.Done():
	case err := <-errc:
		if err != nil && ctx.Err() == nil {
			log.Error("component failed", "err", err)
			failed = err
		}
	}
	log.Info("shutting down")
	shutdown, stop := context.WithTimeout(context.Background(), 10*time.Second)
	defer stop()
	if metricsSrv != nil {
		_ = metricsSrv.Shutdown(shutdown)
	}
	err = srv.Shutdown(shutdown)
	cancel()
	work.Wait()
	if err != nil {
		return err
	}
	return failed
}
