package app

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/ethclient"

	"github.com/curvekit/curvekit/adapters/evm"
	"github.com/curvekit/curvekit/adapters/evm/devnet"
)

// wireChain connects to the chain: a real one over JSON-RPC, or the in-process devnet.
func (a *App) wireChain(ctx context.Context) error {
	var (
		client          evm.Client
		factory, router common.Address
	)
	if urls := a.Config.rpcURLs(); len(urls) > 0 {
		if !common.IsHexAddress(a.Config.Factory) || !common.IsHexAddress(a.Config.Router) {
			return errors.New("--factory and --router must be addresses")
		}
		// Every URL is one endpoint of the pool, which fails over between them, backs off from
		// those that throttle and logs an outage once.
		var endpoints []evm.Endpoint
		for _, u := range urls {
			c, err := ethclient.DialContext(ctx, u)
			if err != nil {
				return fmt.Errorf("dial %s: %w", endpointName(u), err)
			}
			a.onClose(func() error { c.Close(); return nil })
			endpoints = append(endpoints, evm.Endpoint{Name: endpointName(u), Client: c})
		}
		pool, err := evm.NewPool(evm.PoolConfig{Endpoints: endpoints, Logger: a.Log.With("component", "chain")})
		if err != nil {
			return err
		}
		if err := pool.Check(ctx); err != nil {
			return err
		}
		if err := a.checkProfile(ctx, pool); err != nil {
			return err
		}
		client, factory, router = pool, common.HexToAddress(a.Config.Factory), common.HexToAddress(a.Config.Router)
	} else {
		// The devnet keeps its chain on disk, so a restart continues it: beside a SQLite file,
		// or named after a PostgreSQL database in the working directory. Beside in-memory
		// SQLite it lives in memory too.
		dir := a.Config.DevnetDir
		switch {
		case dir != "":
		case sqliteFile(a.Config.DB):
			dir = a.sidePath(".devnet")
		case postgresDSN(a.Config.DB):
			dir = "curvekit-" + postgresName(a.Config.DB) + ".devnet"
		}
		d, err := devnet.Start(devnet.Config{Dir: dir, WallClock: a.Config.DevnetBlocks != "instant"})
		if err != nil {
			return fmt.Errorf("start devnet: %w", err)
		}
		a.onClose(d.Close)
		a.Devnet, client, factory, router = d, d.Client, d.Addrs.Factory, d.Addrs.Router
		msg := "devnet started"
		if d.Resumed {
			msg = "devnet resumed"
		}
		a.Log.Info(msg, "chainId", d.ChainID, "dir", dir, "factory", factory, "router", router,
			"ETH token", d.ETHToken.Token, "TUSD token", d.USDToken.Token, "graduated token", d.GraduatedToken.Token)
	}
	chain, err := evm.New(evm.Config{Client: client, Factory: factory, Router: router, Head: a.Config.Head, Logger: a.Log.With("component", "chain")})
	if err != nil {
		return err
	}
	a.Chain, a.client, a.factory, a.router = chain, client, factory, router
	return nil
}

// rpcURLs are the endpoints --rpc-url lists.
func (c *Config) rpcURLs() []string {
	var out []string
	for _, u := range strings.Split(c.RPCURL, ",") {
		if u = strings.TrimSpace(u); u != "" {
			out = append(out, u)
		}
	}
	return out
}

// endpointName names an endpoint in logs and errors by its scheme and host: providers put the
// key in the path (Infura, Alchemy, QuickNode) or in the user part.
func endpointName(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return "an endpoint of --rpc-url"
	}
	return u.Scheme + "://" + u.Host
}

// postgresDSN reports whether dsn names a PostgreSQL database.
func postgresDSN(dsn string) bool {
	return strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://")
}

// postgresName is the database a PostgreSQL DSN names, reduced to characters safe in a file
// name ("postgres" when the DSN names none, as the server then does).
func postgresName(dsn string) string {
	name := "postgres"
	if u, err := url.Parse(dsn); err == nil && strings.Trim(u.Path, "/") != "" {
		name = strings.Trim(u.Path, "/")
	}
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' {
			return r
		}
		return '_'
	}, name)
}

// sqliteFile reports whether dsn names a SQLite file (not memory, not PostgreSQL).
func sqliteFile(dsn string) bool {
	if strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://") {
		return false
	}
	path, query, _ := strings.Cut(strings.TrimPrefix(dsn, "file:"), "?")
	return path != "" && path != ":memory:" && !strings.Contains(query, "mode=memory")
}
