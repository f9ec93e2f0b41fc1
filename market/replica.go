package market

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"
)

// ReplicaConfig configures a Replica.
type ReplicaConfig struct {
	// Store is the store every replica shares; the follower reads it.
	Store Store
	// Lease elects the one indexer among the replicas; nil keeps this replica out of the
	// election (an API-only replica): it only ever follows.
	Lease Lease
	// Fence returns the store writing under a lease term, which refuses every write once the
	// term has ended (bunstore's Market.Fenced); required with Lease.
	Fence func(term uint64) Store
	// Indexer configures the indexer each term of leadership runs; its Store and OnSync are the
	// replica's (the fenced store, and OnSync below).
	Indexer IndexerConfig
	// WhileLeading, when set, runs beside each term's indexer and is stopped (its ctx ends) when
	// the term does: what only the indexer needs, such as the subscription to the chain's new
	// heads that feeds Indexer.Wake, so that replicas that follow hold none.
	WhileLeading func(ctx context.Context)
	// Holder names this replica in the lease; unique among replicas (host, process and a random
	// part), so that a restarted process is a new holder.
	Holder string
	// TTL is how long the lease lasts unrenewed: the longest a dead or frozen leader holds up
	// indexing. The leader renews every TTL/3; the others try to take it every TTL/5. Default 10s.
	TTL time.Duration
	// Announcer carries the leader's commits to the followers at once; nil: they poll.
	Announcer Announcer
	// OnSync receives every step of the store, led or followed, in order, one at a time.
	OnSync func(Sync)
	// Poll is how often a follower reads the store unannounced; default 2s with an Announcer,
	// else the indexer's PollInterval.
	Poll   time.Duration
	Logger *slog.Logger
}

// Replica is one server among several on a shared store: it leads the indexer while it holds the
// lease and follows the store otherwise, handing OnSync the same steps either way, so streams and
// caches are fed alike on every replica. A leader steps down when it cannot renew the lease or
// its fenced store refuses a write; a follower takes the lease once it is free or expired.
type Replica struct {
	cfg ReplicaConfig

	mu       sync.Mutex // guards the fields below; OnSync is never called under it
	pos      Cursor     // what OnSync was last handed
	term     Leadership // the lease while leading; zero while following
	ix       *Indexer   // while leading
	follower *Follower  // while following
}

// ReplicaStatus says what a replica does: leading the indexer (since when, in which term) or
// following the store, and how well.
type ReplicaStatus struct {
	Holder string
	// Elected: the replica takes part in the election (it has a Lease).
	Elected bool
	Leading bool
	// Term and Since are the lease's term and its start while leading; zero while following.
	Term  uint64
	Since time.Time
	// Position is the cursor OnSync was last handed.
	Position Cursor
	// Indexer is the indexer's status while leading; Follower the follower's while following.
	Indexer  IndexerStatus
	Follower FollowerStatus
}

// NewReplica validates cfg and starts from the store's cursor; Campaign or Run do the rest.
func NewReplica(ctx context.Context, cfg ReplicaConfig) (*Replica, error) {
	if cfg.Store == nil || cfg.OnSync == nil {
		return nil, errors.New("market: replica needs a Store and OnSync")
	}
	if cfg.Lease != nil && (cfg.Fence == nil || cfg.Holder == "") {
		return nil, errors.New("market: an elected replica needs Fence and a Holder")
	}
	if cfg.TTL <= 0 {
		cfg.TTL = 10 * time.Second
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Poll <= 0 {
		cfg.Poll = 2 * time.Second
		if cfg.Announcer == nil && cfg.Indexer.PollInterval > 0 {
			cfg.Poll = cfg.Indexer.PollInterval
		}
	}
	pos, err := cfg.Store.Cursor(ctx)
	if err != nil {
		return nil, fmt.Errorf("market: replica: %w", err)
	}
	return &Replica{cfg: cfg, pos: pos}, nil
}

// Status is what the replica does now; cheap and safe for concurrent use.
func (r *Replica) Status() ReplicaStatus {
	r.mu.Lock()
	st := ReplicaStatus{Holder: r.cfg.Holder, Elected: r.cfg.Lease != nil, Position: r.pos}
	ix, f := r.ix, r.follower
	if ix != nil {
		st.Leading, st.Term, st.Since = true, r.term.Term, r.term.Since
	}
	r.mu.Unlock()
	if ix != nil {
		st.Indexer = ix.Status()
	}
	if f != nil {
		st.Follower = f.Status()
	}
	return st
}

// Campaign tries once to take the lease and, when it does, catches up with the store and builds
// the term's indexer. It reports whether the replica leads. The server calls it before it serves,
// so a lone replica indexes at once; Run calls it while following.
func (r *Replica) Campaign(ctx context.Context) (bool, error) {
	r.mu.Lock()
	leading := r.ix != nil
	r.mu.Unlock()
	if leading || r.cfg.Lease == nil {
		return leading, nil
	}
	l, ok, err := r.cfg.Lease.Acquire(ctx, r.cfg.Holder, r.cfg.TTL)
	if err != nil || !ok {
		return false, err
	}
	return true, r.takeOver(ctx, l)
}

// takeOver starts the term l: it hands on what the previous leader committed before the lease
// passed (it can commit nothing more: its writes are fenced), so the new indexer continues exactly
// where the handed steps end, then builds the term's indexer. On failure it releases the lease.
func (r *Replica) takeOver(ctx context.Context, l Leadership) error {
	err := r.catchUp(ctx)
	var ix *Indexer
	if err == nil {
		cfg := r.cfg.Indexer
		cfg.Store, cfg.OnSync = r.cfg.Fence(l.Term), r.announce
		if cfg.Logger == nil {
			cfg.Logger = r.cfg.Logger
		}
		ix, err = NewIndexer(ctx, cfg)
	}
	if err != nil {
		r.release(l)
		return fmt.Errorf("market: taking over the indexer: %w", err)
	}
	r.mu.Lock()
	r.term, r.ix = l, ix
	r.mu.Unlock()
	r.cfg.Logger.Info("leading the indexer", "holder", r.cfg.Holder, "term", l.Term, "position", r.Position().Block)
	return nil
}

// Sync brings the replica up to date once: the leader indexes the chain, a follower catches up
// with the store. Tests call it; Run does it continuously.
func (r *Replica) Sync(ctx context.Context) error {
	r.mu.Lock()
	ix := r.ix
	r.mu.Unlock()
	if ix != nil {
		_, err := ix.Sync(ctx)
		return err
	}
	return r.catchUp(ctx)
}

// Resign gives up the lease if the replica holds it: for a server that campaigned but never ran
// (Run releases the lease itself when it ends). Call it only when Run is not running.
func (r *Replica) Resign() {
	r.mu.Lock()
	ix, l := r.ix, r.term
	r.ix, r.term = nil, Leadership{}
	r.mu.Unlock()
	if ix != nil {
		r.release(l)
	}
}

// Position is the cursor OnSync was last handed.
func (r *Replica) Position() Cursor {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.pos
}

// Run leads or follows until ctx ends, then releases the lease if it holds it.
func (r *Replica) Run(ctx context.Context) error {
	for ctx.Err() == nil {
		r.mu.Lock()
		leading := r.ix != nil
		r.mu.Unlock()
		if leading {
			r.lead(ctx)
		} else {
			r.follow(ctx)
		}
	}
	return nil
}

// lead runs the term's indexer and renews the lease until ctx ends or the term does.
func (r *Replica) lead(ctx context.Context) {
	r.mu.Lock()
	ix, l := r.ix, r.term
	r.mu.Unlock()
	ictx, stop := context.WithCancel(ctx)
	var running sync.WaitGroup
	running.Go(func() { _ = ix.Run(ictx) })
	if r.cfg.WhileLeading != nil {
		running.Go(func() { r.cfg.WhileLeading(ictx) })
	}
	renewed := time.Now()
	t := time.NewTicker(r.cfg.TTL / 3)
	var why string
	for why == "" {
		select {
		case <-ctx.Done():
			why = "shutting down"
		case <-t.C:
			ok, err := r.cfg.Lease.Renew(ctx, r.cfg.Holder, l.Term, r.cfg.TTL)
			switch {
			case err == nil && ok:
				renewed = time.Now()
			case err == nil:
				why = "the lease passed to another replica"
			case ctx.Err() != nil:
				why = "shutting down"
			case time.Since(renewed) >= r.cfg.TTL:
				why = "the lease could not be renewed: " + err.Error()
			default:
				r.cfg.Logger.Warn("renewing the indexer lease failed; retrying", "err", err)
			}
			if st := ix.Status(); why == "" && st.Failures > 0 && errors.Is(st.LastErr, ErrFenced) {
				why = "the store refused this term's writes"
			}
		}
	}
	t.Stop()
	stop()
	running.Wait()
	r.mu.Lock()
	r.ix, r.term = nil, Leadership{}
	r.mu.Unlock()
	if ctx.Err() != nil {
		r.release(l)
		r.cfg.Logger.Info("released the indexer lease", "term", l.Term)
		return
	}
	r.cfg.Logger.Warn("stepped down as the indexer; following the store", "term", l.Term, "why", why)
}

// follow follows the store until ctx ends or the replica takes the lease.
func (r *Replica) follow(ctx context.Context) {
	f, err := NewFollower(ctx, FollowerConfig{Store: r.cfg.Store, Announcer: r.cfg.Announcer, From: new(r.Position()),
		OnSync: r.handOn, Poll: r.cfg.Poll, Logger: r.cfg.Logger})
	if err != nil {
		r.cfg.Logger.Error("follower", "err", err)
		return
	}
	var running sync.WaitGroup
	stop := func() {}
	start := func() {
		fctx, cancel := context.WithCancel(ctx)
		stop = func() { cancel(); running.Wait() }
		running.Go(func() { _ = f.Run(fctx) })
	}
	start()
	r.mu.Lock()
	r.follower = f
	r.mu.Unlock()
	defer func() {
		stop()
		r.mu.Lock()
		r.follower = nil
		r.mu.Unlock()
	}()
	if r.cfg.Lease == nil {
		<-ctx.Done()
		return
	}
	t := time.NewTicker(r.cfg.TTL / 5)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		l, ok, err := r.cfg.Lease.Acquire(ctx, r.cfg.Holder, r.cfg.TTL)
		if err != nil && ctx.Err() == nil {
			r.cfg.Logger.Warn("campaigning for the indexer lease failed; retrying", "err", err)
		}
		if !ok {
			continue
		}
		// Stop following before leading: OnSync is handed one step at a time.
		stop()
		err = r.takeOver(ctx, l)
		if err == nil || ctx.Err() != nil {
			return
		}
		r.cfg.Logger.Error("could not lead the indexer; following on", "err", err)
		start()
	}
}

// catchUp hands OnSync what the store holds beyond the replica's position.
func (r *Replica) catchUp(ctx context.Context) error {
	f, err := NewFollower(ctx, FollowerConfig{Store: r.cfg.Store, From: new(r.Position()), OnSync: r.handOn, Logger: r.cfg.Logger})
	if err != nil {
		return err
	}
	return f.CatchUp(ctx)
}

// handOn passes a step to OnSync.
func (r *Replica) handOn(s Sync) {
	r.cfg.OnSync(s)
	r.mu.Lock()
	r.pos = s.Cursor
	r.mu.Unlock()
}

// announce is the leader's OnSync: it tells the other replicas, then hands the step on. The
// step is committed, so the followers may read it at once: they build their streams from the
// store while this replica builds its own, rather than after.
func (r *Replica) announce(s Sync) {
	if r.cfg.Announcer != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		if err := r.cfg.Announcer.Announce(ctx, s.Cursor); err != nil {
			r.cfg.Logger.Warn("announcing a sync failed; followers will poll", "err", err)
		}
		cancel()
	}
	r.handOn(s)
}

// release gives up the lease of l, bounded in time: a replica that cannot reach the database
// lets it expire instead.
func (r *Replica) release(l Leadership) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := r.cfg.Lease.Release(ctx, r.cfg.Holder, l.Term); err != nil {
		r.cfg.Logger.Warn("releasing the indexer lease failed; it expires by itself", "err", err)
	}
}
