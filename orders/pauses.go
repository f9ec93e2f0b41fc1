package orders

import "context"

// Pauses says whether an account's wallet is paused (its settings' wallet.paused). The engine
// holds a price order's fire that a pause refused, and asks at each tick, for the accounts whose
// fires it holds, whether the pause ended.
type Pauses interface {
	// Paused reports whether the account's wallet is paused now.
	Paused(ctx context.Context, accountID string) (bool, error)
}
