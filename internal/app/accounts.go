package app

import (
	"context"
	"fmt"
	"math/big"
	"strings"

	"github.com/ethereum/go-ethereum/common"

	"github.com/curvekit/curvekit/adapters/evm"
	"github.com/curvekit/curvekit/adapters/oauth"
	"github.com/curvekit/curvekit/auth"
	"github.com/curvekit/curvekit/wallet"
)

// wireAccounts builds the custodial wallets and the account service: sign-in through the
// configured identity provider (the development provider when none is), sessions and API keys.
func (a *App) wireAccounts(ctx context.Context) error {
	keyFile := a.Config.MasterKeyFile
	if keyFile == "" {
		keyFile = a.sidePath(".master.key")
	}
	keys, err := wallet.OpenKeyring(wallet.KeyringConfig{
		Keys: a.Config.MasterKey, File: keyFile, Create: a.Config.MasterKey == "",
		Logger: a.Log.With("component", "wallet"),
	})
	if err != nil {
		return fmt.Errorf("master key: %w", err)
	}
	a.keys = keys
	bc, err := evm.NewBroadcaster(evm.BroadcastConfig{Client: a.client})
	if err != nil {
		return err
	}
	a.Wallets, err = wallet.New(wallet.Config{
		Store: a.DB.Wallets(), Broadcaster: bc, Keys: keys, Signer: a.signer,
		Factory: a.factory, Launches: wallet.LaunchesFunc(a.launchQuota),
		Guard: a.Settings, Markets: &guardMarkets{a: a}, Router: a.router, WETH: a.Builder.Config().WETH,
		MaxFeePerGas: gweiToWei(a.Config.MaxFeeGwei), ReplaceAfter: a.Config.ReplaceAfter, Notifier: a.sources(),
		Logger: a.Log.With("component", "wallet"),
	})
	if err != nil {
		return err
	}
	provider, err := a.identityProvider(ctx)
	if err != nil {
		return err
	}
	pro := make([]common.Address, 0, len(a.Config.ProWallets))
	for _, w := range a.Config.ProWallets {
		w = strings.TrimSpace(w)
		if w == "" {
			continue
		}
		if !common.IsHexAddress(w) {
			return fmt.Errorf("--pro-wallets: %q is not an address", w)
		}
		pro = append(pro, common.HexToAddress(w))
	}
	a.Accounts, err = auth.New(auth.Config{
		Accounts: a.DB.Accounts(), Provider: provider, Wallets: auth.WalletCreatorFunc(a.Wallets.Create),
		ProWallets: pro, Logger: a.Log.With("component", "auth"),
	})
	return err
}

// gweiToWei is --max-fee-gwei in wei (to the wei below); nil for 0, no ceiling.
func gweiToWei(gwei float64) *big.Int {
	if gwei <= 0 {
		return nil
	}
	wei, _ := new(big.Float).Mul(big.NewFloat(gwei), big.NewFloat(1e9)).Int(nil)
	return wei
}

// launchQuota tells the custodial wallet the daily launch limit the launch service enforces.
// The launch service is wired after the wallets (its tiers come from the accounts, which create
// wallets), so it is looked up when a launch is signed.
func (a *App) launchQuota(ctx context.Context, w common.Address) (wallet.LaunchQuota, error) {
	d, err := a.Launch.DailyLimit(ctx, w)
	if err != nil {
		return wallet.LaunchQuota{}, err
	}
	return wallet.LaunchQuota{Tier: d.Tier, Limit: d.Limit, Day: d.ResetsAt.AddDate(0, 0, -1), ResetsAt: d.ResetsAt, Indexed: d.LaunchTxs}, nil
}

// sidePath is a file beside the SQLite database (the devnet's state, the master key); on
// PostgreSQL, beside the working directory's curvekit.db name.
func (a *App) sidePath(suffix string) string {
	base := a.Config.DB
	if a.DB != nil && a.DB.Postgres() {
		base = "curvekit"
	}
	base = strings.TrimPrefix(base, "file:")
	if i := strings.IndexByte(base, '?'); i >= 0 {
		base = base[:i]
	}
	return base + suffix
}

// devOAuthPath is where the development identity provider is served on the API's listener.
const devOAuthPath = "/dev-oauth"

// identityProvider is the configured provider: OpenID Connect by issuer, plain OAuth 2.0 with a
// userinfo endpoint, or, with neither, the development provider served on this server.
func (a *App) identityProvider(ctx context.Context) (auth.IdentityProvider, error) {
	redirect := a.publicURL() + "/auth/callback"
	switch {
	case a.Config.OAuthIssuer != "":
		return oauth.NewOIDC(ctx, oauth.OIDCConfig{
			Issuer: a.Config.OAuthIssuer, ClientID: a.Config.OAuthClientID, ClientSecret: a.Config.OAuthClientSecret,
			RedirectURL: redirect, Scopes: a.Config.OAuthScopes,
		})
	case a.Config.OAuthAuthURL != "":
		f := append(append([]string(nil), a.Config.OAuthFields...), "", "", "")
		return oauth.NewOAuth2(oauth.OAuth2Config{
			Provider: a.Config.OAuthName, AuthURL: a.Config.OAuthAuthURL, TokenURL: a.Config.OAuthTokenURL,
			UserinfoURL: a.Config.OAuthUserinfoURL, ClientID: a.Config.OAuthClientID, ClientSecret: a.Config.OAuthClientSecret,
			RedirectURL: redirect, Scopes: a.Config.OAuthScopes,
			Fields: oauth.FieldMap{Subject: f[0], Handle: f[1], Picture: f[2]},
		})
	}
	if err := oauth.CheckDevAddr(a.Config.Addr, a.Config.DevOAuthPublic); err != nil {
		return nil, fmt.Errorf("the development identity provider signs anyone in as anyone: %w (configure a real provider, or pass --dev-oauth-public)", err)
	}
	dev, err := oauth.NewDevProvider(oauth.DevConfig{
		Issuer: a.publicURL() + devOAuthPath, RedirectURL: redirect, Logger: a.Log.With("component", "dev-oauth"),
	})
	if err != nil {
		return nil, err
	}
	a.devProvider = dev
	return oauth.NewOIDC(ctx, oauth.OIDCConfig{
		Issuer: dev.Issuer(), ClientID: dev.ClientID(), ClientSecret: dev.ClientSecret(), RedirectURL: redirect,
		Provider: "dev", Metadata: dev.Metadata(),
	})
}
