package httpapi

import (
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/curvekit/curvekit/auth"
	"github.com/curvekit/curvekit/market"
	"github.com/curvekit/curvekit/txbuild"
)

func TestNewValidates(t *testing.T) {
	t.Parallel()
	b, err := txbuild.New(txbuild.Config{ChainID: 1337, Factory: factoryAddr, Router: routerAddr, WETH: wethAddr})
	if err != nil {
		t.Fatal(err)
	}
	svc, err := market.NewService(market.ServiceConfig{Store: newFakeStore(), Builder: b})
	if err != nil {
		t.Fatal(err)
	}
	valid := func() Config {
		return Config{Market: svc, Limiter: newCountLimiter(), Policy: auth.DefaultPolicy(auth.PerMinute(60))}
	}
	for _, tc := range []struct {
		name   string
		change func(c *Config)
		err    string // empty: valid
	}{
		{"valid", func(*Config) {}, ""},
		{"no market", func(c *Config) { c.Market = nil }, "Market is required"},
		{"no limiter", func(c *Config) { c.Limiter = nil }, "Limiter is required"},
		{"no policy", func(c *Config) { c.Policy = nil }, `no "default" class`},
		{"bad limit", func(c *Config) { c.Policy[auth.ClassSigning] = auth.Rule{Limit: auth.Limit{}} }, "rate"},
		{"default window not whole seconds", func(c *Config) {
			c.Policy[auth.ClassDefault] = auth.Rule{Limit: auth.Every(5, 1500*time.Millisecond)}
		}, "not a whole number of seconds"},
		{"orders window not whole seconds", func(c *Config) {
			c.Policy[auth.ClassOrders] = auth.Rule{Limit: auth.Every(5, 500*time.Millisecond)}
		}, "orders period 500ms is not a whole number of seconds"},
		{"invalid proxy", func(c *Config) { c.TrustedProxies = []netip.Prefix{{}} }, "trusted proxy 0"},
		{"chain mismatch", func(c *Config) { c.Settings.ChainID = 1 }, "chain id 1 differs"},
		{"router mismatch", func(c *Config) { c.Settings.Contracts.Router = nobody }, "router"},
		{"same router", func(c *Config) { c.Settings.Contracts.Router = routerAddr }, ""},
		{"absurd decimals", func(c *Config) { c.Settings.QuoteAssets = []market.Asset{{Decimals: 78}} }, "decimals"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := valid()
			tc.change(&c)
			s, err := New(c)
			switch {
			case tc.err == "" && err != nil:
				t.Fatalf("New: %v", err)
			case tc.err == "":
				if s.Handler() == nil {
					t.Fatal("no handler")
				}
			case err == nil || !strings.Contains(err.Error(), tc.err):
				t.Fatalf("New: %v, want an error with %q", err, tc.err)
			}
		})
	}
}
