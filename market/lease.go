package market

import (
	"context"
	"fmt"
	"time"

	"github.com/curvekit/curvekit"
)

// ErrFenced refuses a write by an indexer whose leadership term has ended: another replica took
// the lease (this one was paused, partitioned or too slow to renew), so what it would write may
// already be written, or contradicted, by the new leader.
var ErrFenced = fmt.Errorf("%w: indexer leadership lost to a newer term", curvekit.ErrConflict)

// Lease elects the one indexer among replicas that share a store: one row naming its holder, a
// term that grows with every change of holder, and an expiry kept on the database's clock, so
// replicas' clocks never have to agree. A store fenced with a term (see Fenced) refuses to write
// once the lease has passed to a newer one, in the same transaction as the write.
type Lease interface {
	// Acquire takes the lease for holder, for ttl, when it is free, expired, or holder's own and
	// live; a holder whose lease expired gets a new term too. ok is false while another holds it.
	Acquire(ctx context.Context, holder string, ttl time.Duration) (l Leadership, ok bool, err error)
	// Renew extends holder's live lease of term by ttl; false when it expired or passed on.
	Renew(ctx context.Context, holder string, term uint64, ttl time.Duration) (bool, error)
	// Release ends holder's lease of term at once, so another replica need not wait for expiry.
	Release(ctx context.Context, holder string, term uint64) error
	// Current is the lease as stored: the holder and term of the latest leadership, expired or not.
	Current(ctx context.Context) (Leadership, error)
}

// Leadership is one term of the lease.
type Leadership struct {
	Holder string
	Term   uint64
	// Since is when the term began, on the database's clock.
	Since time.Time
	// Expires is when the lease lapses unless renewed.
	Expires time.Time
}
