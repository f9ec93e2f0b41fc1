package auth

import "context"

// Limiter decides whether one more call under a key fits its Limit. Implementations use GCRA (the
// generic cell rate algorithm): a Limit admits a burst of Burst calls, then one call every
// Period/Rate.
//
// A denied call changes no state: a client that keeps retrying while throttled is not pushed
// further back. Allow returns an error only when it cannot decide: the backend is unreachable or
// ctx is done (the error wraps ctx.Err()), or l is invalid (wraps curvekit.ErrInvalid). The caller
// then applies the fail mode of the endpoint class (Rule.FailClosed).
type Limiter interface {
	Allow(ctx context.Context, key string, l Limit) (Decision, error)
}
