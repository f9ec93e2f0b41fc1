package httpapi

import (
	"fmt"
	"net/http"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/uptrace/bunrouter"

	"github.com/curvekit/curvekit"
	"github.com/curvekit/curvekit/auth"
	"github.com/curvekit/curvekit/launch"
	"github.com/curvekit/curvekit/market"
	"github.com/curvekit/curvekit/txbuild"
)

// Settings is what GET /config shows (SPEC 2.12) about the deployment. The numbers that are
// enforced elsewhere come from where they are enforced, so that the number shown is the number
// enforced: platform.rateLimit from Config.Policy, the tiers' launches per day and the fees from
// Config.Terms (the launch service).
type Settings struct {
	// ChainID defaults to the market builder's chain; another value is a configuration error.
	ChainID uint64
	// Contracts default to the market builder's factory, router and WETH (PoolFactory has no
	// default); a value that differs from the builder's is a configuration error.
	Contracts Contracts
	// QuoteAssets are the pairing assets a launch may choose; the zero address is native ETH.
	QuoteAssets []market.Asset
	// RPCURL is a JSON-RPC URL of the chain that a browser wallet may add it with
	// (wallet_addEthereumChain); empty when the deployment names none.
	RPCURL string
}

// LaunchTerms are the launch service's tiers and fees, which GET /config shows; *launch.Service
// implements it.
type LaunchTerms interface {
	LaunchesPerDay() map[curvekit.Tier]int
	Fees() launch.Fees
}

// Contracts are the addresses a client composes transactions against.
type Contracts struct {
	Factory, Router, WETH, PoolFactory common.Address
}

// complete fills defaults from the builder's configuration and checks the rest.
func (st *Settings) complete(b txbuild.Config) error {
	if st.ChainID == 0 {
		st.ChainID = b.ChainID
	}
	if st.ChainID != b.ChainID {
		return fmt.Errorf("chain id %d differs from the market builder's %d", st.ChainID, b.ChainID)
	}
	for _, c := range []struct {
		name      string
		v         *common.Address
		fromBuild common.Address
	}{{"factory", &st.Contracts.Factory, b.Factory}, {"router", &st.Contracts.Router, b.Router}, {"weth", &st.Contracts.WETH, b.WETH}} {
		if *c.v == (common.Address{}) {
			*c.v = c.fromBuild
		}
		if *c.v != c.fromBuild {
			return fmt.Errorf("%s %s differs from the market builder's %s", c.name, c.v.Hex(), c.fromBuild.Hex())
		}
	}
	for _, a := range st.QuoteAssets {
		if a.Decimals > curvekit.MaxDecimals {
			return fmt.Errorf("quote asset %s: %d decimals above %d", a.Address.Hex(), a.Decimals, curvekit.MaxDecimals)
		}
	}
	return nil
}

type configJSON struct {
	ChainID      uint64           `json:"chainId"`
	Platform     platformJSON     `json:"platform"`
	Subscription subscriptionJSON `json:"subscription"`
	Fees         feesJSON         `json:"fees"`
	Contracts    contractsJSON    `json:"contracts"`
	QuoteAssets  []assetJSON      `json:"quoteAssets"`
	RPCURL       *string          `json:"rpcUrl"`
}

type platformJSON struct {
	RateLimit  rateLimitJSON  `json:"rateLimit"`
	RateLimits rateLimitsJSON `json:"rateLimits"`
	Slippage   slippageJSON   `json:"slippage"`
}

// rateLimitsJSON is the limit of each class besides the default one (which rateLimit is), as the
// server enforces it: a bot reads how fast it may place orders, sign, sign in, export.
type rateLimitsJSON struct {
	SignIn    rateLimitJSON `json:"signIn"`
	Signing   rateLimitJSON `json:"signing"`
	Orders    rateLimitJSON `json:"orders"`
	KeyExport rateLimitJSON `json:"keyExport"`
	Upload    rateLimitJSON `json:"upload"`
	Export    rateLimitJSON `json:"export"`
}

// slippageJSON is the tolerance build-tx and the agent apply when none is given, and the most
// they accept (a remembered slippage above it is refused too).
type slippageJSON struct {
	DefaultBps uint16 `json:"defaultBps"`
	MaxBps     uint16 `json:"maxBps"`
}

type rateLimitJSON struct {
	Requests      int   `json:"requests"`
	WindowSeconds int64 `json:"windowSeconds"`
	Burst         int   `json:"burst"`
}

type subscriptionJSON struct {
	Tiers struct {
		Free tierJSON `json:"free"`
		Pro  tierJSON `json:"pro"`
	} `json:"tiers"`
}

type tierJSON struct {
	LaunchesPerDay int `json:"launchesPerDay"`
}

type feesJSON struct {
	CurveBps        uint16 `json:"curveBps"`
	CreatorShareBps uint16 `json:"creatorShareBps"`
	PoolBps         uint16 `json:"poolBps"`
}

type contractsJSON struct {
	Factory     *string `json:"factory"`
	Router      *string `json:"router"`
	WETH        *string `json:"weth"`
	PoolFactory *string `json:"poolFactory"`
}

// configOf is the body of GET /config; the server computes it once, as settings do not change
// while it runs.
func configOf(st *Settings, p auth.Policy, terms LaunchTerms) configJSON {
	limit := func(c auth.Class) rateLimitJSON {
		r, _ := p.Lookup(c) // a class without a rule of its own is held to the default's
		return rateLimitJSON{Requests: r.Limit.Rate, WindowSeconds: int64(r.Limit.Period / time.Second), Burst: r.Limit.Burst}
	}
	out := configJSON{
		ChainID: st.ChainID,
		Platform: platformJSON{RateLimit: limit(auth.ClassDefault), RateLimits: rateLimitsJSON{
			SignIn: limit(auth.ClassSignIn), Signing: limit(auth.ClassSigning), Orders: limit(auth.ClassOrders),
			KeyExport: limit(auth.ClassKeyExport), Upload: limit(auth.ClassUpload), Export: limit(auth.ClassExport),
		}, Slippage: slippageJSON{DefaultBps: txbuild.DefaultSlippageBps, MaxBps: txbuild.MaxSlippageBps}},
		Contracts: contractsJSON{
			Factory: addrOrNull(st.Contracts.Factory), Router: addrOrNull(st.Contracts.Router),
			WETH: addrOrNull(st.Contracts.WETH), PoolFactory: addrOrNull(st.Contracts.PoolFactory),
		},
		QuoteAssets: make([]assetJSON, len(st.QuoteAssets)),
	}
	if st.RPCURL != "" {
		out.RPCURL = &st.RPCURL
	}
	if terms != nil {
		perDay, fees := terms.LaunchesPerDay(), terms.Fees()
		out.Subscription.Tiers.Free.LaunchesPerDay = perDay[curvekit.TierFree]
		out.Subscription.Tiers.Pro.LaunchesPerDay = perDay[curvekit.TierPro]
		out.Fees = feesJSON{CurveBps: fees.CurveBps, CreatorShareBps: fees.CreatorShareBps, PoolBps: fees.PoolBps}
	}
	for i, a := range st.QuoteAssets {
		out.QuoteAssets[i] = assetOf(a)
	}
	return out
}

// GET /config
func (s *Server) getConfig(w http.ResponseWriter, _ bunrouter.Request) error {
	return writeJSON(w, http.StatusOK, s.config)
}
