package auth

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/curvekit/curvekit"
)

// Profile is the public profile of an account, looked up by wallet (GET /auth/user/:wallet):
// what any visitor may see, nothing about its credentials.
type Profile struct {
	Wallet   common.Address
	Handle   string
	Picture  string
	JoinedAt time.Time
}

// Profile returns the public profile of the account whose wallet is wallet, or
// curvekit.ErrNotFound.
func (s *Service) Profile(ctx context.Context, wallet common.Address) (Profile, error) {
	u, err := s.cfg.Accounts.UserByWallet(ctx, wallet)
	if errors.Is(err, curvekit.ErrNotFound) {
		return Profile{}, fmt.Errorf("%w: no user with wallet %s", curvekit.ErrNotFound, wallet.Hex())
	}
	if err != nil {
		return Profile{}, fmt.Errorf("auth: profile: %w", err)
	}
	return Profile{Wallet: u.Wallet, Handle: u.Handle, Picture: u.Picture, JoinedAt: u.CreatedAt}, nil
}

// Tier returns the subscription tier of the account whose wallet is wallet: pro when the
// operator listed the wallet or set it, else free. A wallet without an account is free.
func (s *Service) Tier(ctx context.Context, wallet common.Address) (curvekit.Tier, error) {
	if s.pro[wallet] {
		return curvekit.TierPro, nil
	}
	u, err := s.cfg.Accounts.UserByWallet(ctx, wallet)
	if errors.Is(err, curvekit.ErrNotFound) {
		return curvekit.TierFree, nil
	}
	if err != nil {
		return "", fmt.Errorf("auth: tier: %w", err)
	}
	return s.tierOf(u), nil
}

// tierOf is u's tier: the store's, raised to pro by Config.ProWallets.
func (s *Service) tierOf(u User) curvekit.Tier {
	if s.pro[u.Wallet] || u.Tier == curvekit.TierPro {
		return curvekit.TierPro
	}
	return curvekit.TierFree
}

// SetTier records the tier of the account whose wallet is wallet (the operator's command).
// Unknown wallet: curvekit.ErrNotFound; unknown tier: curvekit.ErrInvalid. A wallet listed in
// Config.ProWallets stays pro whatever is recorded.
func (s *Service) SetTier(ctx context.Context, wallet common.Address, tier curvekit.Tier) error {
	if _, err := ParseTier(string(tier)); err != nil {
		return err
	}
	err := s.cfg.Accounts.SetTier(ctx, wallet, tier)
	if errors.Is(err, curvekit.ErrNotFound) {
		return fmt.Errorf("%w: no user with wallet %s", curvekit.ErrNotFound, wallet.Hex())
	}
	if err != nil {
		return fmt.Errorf("auth: set tier: %w", err)
	}
	return nil
}
