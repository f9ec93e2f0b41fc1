package app

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/curvekit/curvekit/adapters/evm"
)

// ConfigError is a configuration the server cannot run with, found only once it reached
// something (a chain profile at odds with its node): the binaries exit with code 2 for it, as
// for a bad flag.
type ConfigError struct{ Err error }

func (e *ConfigError) Error() string { return e.Err.Error() }
func (e *ConfigError) Unwrap() error { return e.Err }

// useProfile reads --chain's profile into the flags it stands for, once: --rpc-url (its URLs,
// comma-separated), --factory, --router and --start-block. Giving both is refused.
func (c *Config) useProfile() error {
	if c.Chain == "" || c.profile != nil {
		return nil
	}
	if c.RPCURL != "" || c.Factory != "" || c.Router != "" || c.StartBlock != 0 {
		return errors.New("--chain stands for --rpc-url, --factory, --router and --start-block: give the profile or those flags, not both")
	}
	p, err := evm.ReadProfile(c.Chain)
	if err != nil {
		return fmt.Errorf("--chain: %w", err)
	}
	c.profile = &p
	c.RPCURL = strings.Join(p.RPCURLs, ",")
	c.Factory, c.Router, c.StartBlock = p.Factory.Hex(), p.Router.Hex(), p.StartBlock
	return nil
}

// checkProfile holds --chain's profile against the node: the same chain id and code at every
// contract it names. A mismatch is a ConfigError.
func (a *App) checkProfile(ctx context.Context, client evm.Client) error {
	if a.Config.profile == nil {
		return nil
	}
	if err := a.Config.profile.Verify(ctx, client); err != nil {
		if errors.Is(err, evm.ErrProfile) {
			return &ConfigError{Err: fmt.Errorf("--chain %s: %w", a.Config.Chain, err)}
		}
		return err
	}
	a.Log.Info("chain profile", "file", a.Config.Chain, "chainId", a.Config.profile.ChainID,
		"factory", a.Config.Factory, "router", a.Config.Router, "startBlock", strconv.FormatUint(a.Config.StartBlock, 10))
	return nil
}
