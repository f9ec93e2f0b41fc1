package agent

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/holiman/uint256"

	"github.com/curvekit/curvekit"
	"github.com/curvekit/curvekit/account"
)

// Profiles tells the agent the agent profile of the account a wallet belongs to (its default
// slippage and pairing asset, the largest trade it may compose per pairing asset, the tools it may
// use). internal/app implements it over the account settings; a wallet without an account has
// the defaults.
type Profiles interface {
	Profile(ctx context.Context, wallet common.Address) (account.AgentProfile, error)
}

// ProfilesFunc adapts a function to Profiles.
type ProfilesFunc func(ctx context.Context, wallet common.Address) (account.AgentProfile, error)

// Profile implements Profiles.
func (f ProfilesFunc) Profile(ctx context.Context, wallet common.Address) (account.AgentProfile, error) {
	return f(ctx, wallet)
}

// newCall is the call context of a turn or a tool call for wallet: its memory and its profile.
func (s *Service) newCall(ctx context.Context, wallet common.Address, readOnly bool) (*Call, error) {
	mem, err := s.memoryMap(ctx, wallet)
	if err != nil {
		return nil, err
	}
	c := &Call{Wallet: wallet, Memory: mem, ReadOnly: readOnly}
	if s.cfg.Profiles != nil {
		if c.Profile, err = s.cfg.Profiles.Profile(ctx, wallet); err != nil {
			return nil, fmt.Errorf("agent: profile of %s: %w", wallet.Hex(), err)
		}
	}
	return c, nil
}

// allows reports whether the profile lets the agent use the tool.
func (c *Call) allows(tool string) error {
	if c.Profile.Tools == nil || slices.Contains(*c.Profile.Tools, tool) {
		return nil
	}
	return fmt.Errorf("%w: the account's agent profile does not let the agent use %s (it may use %s)",
		curvekit.ErrForbidden, tool, strings.Join(*c.Profile.Tools, ", "))
}

// maxTrade refuses a buy that spends more than the profile's largest trade in its pairing asset.
func (c *Call) maxTrade(quote common.Address, decimals uint8, symbol string, in *uint256.Int) error {
	key := account.ETH
	if quote != (common.Address{}) {
		key = quote.Hex()
	}
	most, ok := c.Profile.MaxTrade[key]
	if !ok {
		return nil
	}
	cap, err := curvekit.ParseAmount(most, decimals)
	if err != nil || in.Gt(&cap) {
		return fmt.Errorf("%w: %s %s is more than the largest trade the account's agent profile allows, %s %s",
			curvekit.ErrInvalid, curvekit.FormatAmount(in, decimals), symbol, most, symbol)
	}
	return nil
}
