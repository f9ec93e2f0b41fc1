package market

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"
)

// Announcer carries the leader's commits to every replica: the indexing replica announces each
// sync's cursor, the others hear it and catch up from the store by position (SyncSince), so an
// announcement lost with a dropped connection loses nothing: the next one, or the follower's own
// poll, covers it.
type Announcer interface {
	// Announce tells every listening replica that the store's cursor is c.
	Announce(ctx context.Context, c Cursor) error
	// Listen calls heard with every announcement until ctx ends, reconnecting as needed; it
	// returns when ctx ends.
	Listen(ctx context.Context, heard func(Cursor)) error
}

// FollowerConfig configures a Follower.
type FollowerConfig struct {
	Store Store
	// Announcer wakes the follower on each commit; nil: it reads the store every Poll alone.
	Announcer Announcer
	// From is the position to follow from; nil: the store's cursor when NewFollower runs.
	From *Cursor
	// OnSync receives what the leader committed, rebuilt from the store, as an indexer's OnSync
	// would: the same consumers (the streams' feed, the service's cache) take it.
	OnSync func(Sync)
	// Poll is how often the follower reads the store's cursor without being told; it bounds the
	// delay after a lost announcement. Default 2s.
	Poll   time.Duration
	Logger *slog.Logger
}

// Follower is a replica's view of the indexer it does not run: it follows the store from its
// cursor at start, and hands each step to OnSync.
type Follower struct {
	cfg  FollowerConfig
	wake chan struct{}

	mu       sync.Mutex // guards prev and the status: other goroutines read them
	prev     Cursor
	failures int
	lastErr  error
}

// FollowerStatus is how well a follower keeps up with the store.
type FollowerStatus struct {
	// Position is the cursor the follower has handed on.
	Position Cursor
	// Failures counts the catch-ups that failed in a row; LastErr is the last one's error.
	Failures int
	LastErr  error
}

// NewFollower starts following from the store's current cursor.
func NewFollower(ctx context.Context, cfg FollowerConfig) (*Follower, error) {
	if cfg.Store == nil || cfg.OnSync == nil {
		return nil, errors.New("market: follower needs a Store and OnSync")
	}
	if cfg.Poll <= 0 {
		cfg.Poll = 2 * time.Second
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.From != nil {
		return &Follower{cfg: cfg, prev: *cfg.From, wake: make(chan struct{}, 1)}, nil
	}
	prev, err := cfg.Store.Cursor(ctx)
	if err != nil {
		return nil, fmt.Errorf("market: follower: %w", err)
	}
	return &Follower{cfg: cfg, prev: prev, wake: make(chan struct{}, 1)}, nil
}

// Run follows until ctx ends, and returns once its listener has stopped too.
func (f *Follower) Run(ctx context.Context) error {
	var listening sync.WaitGroup
	defer listening.Wait()
	if f.cfg.Announcer != nil {
		listening.Go(func() {
			_ = f.cfg.Announcer.Listen(ctx, func(Cursor) {
				select {
				case f.wake <- struct{}{}:
				default: // a catch-up is already due; it reads everything committed
				}
			})
		})
	}
	t := time.NewTicker(f.cfg.Poll)
	defer t.Stop()
	for {
		err := f.CatchUp(ctx)
		if ctx.Err() != nil {
			return nil
		}
		f.mu.Lock()
		if err != nil {
			f.failures, f.lastErr = f.failures+1, err
		} else {
			f.failures = 0
		}
		f.mu.Unlock()
		if err != nil {
			f.cfg.Logger.Warn("follower: catching up with the store failed; retrying", "err", err)
		}
		select {
		case <-ctx.Done():
			return nil
		case <-f.wake:
		case <-t.C:
		}
	}
}

// CatchUp hands OnSync whatever the store holds beyond the followed position. Run calls it; a
// test may too. It is not safe for concurrent use.
func (f *Follower) CatchUp(ctx context.Context) error {
	s, err := SyncSince(ctx, f.cfg.Store, f.Position())
	if errors.Is(err, ErrRewound) {
		cur, err := f.cfg.Store.Cursor(ctx)
		if err != nil {
			return err
		}
		f.cfg.OnSync(Sync{Rewound: true, Cursor: cur})
		f.setPosition(cur)
		return nil
	}
	if err != nil {
		return err
	}
	if s.Batch != nil {
		f.cfg.OnSync(s)
	}
	f.setPosition(s.Cursor)
	return nil
}

// Position is the cursor the follower has handed on; safe to call from any goroutine.
func (f *Follower) Position() Cursor {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.prev
}

// Status is the follower's position and failures; safe to call from any goroutine.
func (f *Follower) Status() FollowerStatus {
	f.mu.Lock()
	defer f.mu.Unlock()
	return FollowerStatus{Position: f.prev, Failures: f.failures, LastErr: f.lastErr}
}

func (f *Follower) setPosition(c Cursor) {
	f.mu.Lock()
	f.prev = c
	f.mu.Unlock()
}
