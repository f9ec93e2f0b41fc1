package wallet

import (
	"context"
	"fmt"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/curvekit/curvekit"
)

// Launches tells the signing policy a wallet's daily launch cap, so that what the custodial
// wallet signs obeys the same limit as what the launch service composes. The launch service
// implements it (wired in internal/app); an unknown wallet has its tier's cap, not an error.
type Launches interface {
	// LaunchQuota returns the wallet's cap for the current day and the launches of the wallet
	// the indexer recorded since the day began.
	LaunchQuota(ctx context.Context, wallet common.Address) (LaunchQuota, error)
}

// LaunchesFunc adapts a function to Launches.
type LaunchesFunc func(ctx context.Context, wallet common.Address) (LaunchQuota, error)

// LaunchQuota implements Launches.
func (f LaunchesFunc) LaunchQuota(ctx context.Context, wallet common.Address) (LaunchQuota, error) {
	return f(ctx, wallet)
}

// LaunchQuota is a wallet's daily launch cap and what the indexer saw of the day.
type LaunchQuota struct {
	Tier  curvekit.Tier
	Limit int
	// Day is when the counted day began (UTC midnight); ResetsAt is when the next begins.
	Day, ResetsAt time.Time
	// Indexed are the transaction hashes of the wallet's launches the indexer recorded since
	// Day. A launch the wallet signed whose hash is here counts once, as indexed.
	Indexed []common.Hash
}

// ErrLaunchLimit refuses a launch beyond the tier's daily cap; the launch service's refusal of a
// composed launch (launch.ErrDailyLimit) says the same.
var ErrLaunchLimit = fmt.Errorf("%w: daily launch limit reached", curvekit.ErrLimited)

// LaunchLimitError is the Store's refusal to reserve a nonce for a launch over its quota: Used
// launches of the day (indexed and signed) of Limit. It wraps ErrLaunchLimit.
type LaunchLimitError struct {
	Used, Limit int
}

func (e *LaunchLimitError) Error() string {
	return fmt.Sprintf("%v: %d of %d launches used today", ErrLaunchLimit, e.Used, e.Limit)
}

func (e *LaunchLimitError) Unwrap() error { return ErrLaunchLimit }
