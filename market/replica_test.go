package market_test

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/holiman/uint256"

	"github.com/curvekit/curvekit"
	"github.com/curvekit/curvekit/internal/pgtest"
	"github.com/curvekit/curvekit/market"
)

// stuckLease is a lease whose renewals hang while stuck is set: a leader whose process stalls
// between renewals (a long pause, a partition from the database) while its indexer goes on.
type stuckLease struct {
	market.Lease
	mu    sync.Mutex
	stuck chan struct{} // closed to unstick; nil while renewing normally
}

func (l *stuckLease) Renew(ctx context.Context, holder string, term uint64, ttl time.Duration) (bool, error) {
	l.mu.Lock()
	stuck := l.stuck
	l.mu.Unlock()
	if stuck != nil {
		select {
		case <-stuck:
		case <-ctx.Done():
			return false, ctx.Err()
		}
	}
	return l.Lease.Renew(ctx, holder, term, ttl)
}

func (l *stuckLease) stick() {
	l.mu.Lock()
	l.stuck = make(chan struct{})
	l.mu.Unlock()
}

func (l *stuckLease) unstick() {
	l.mu.Lock()
	close(l.stuck)
	l.stuck = nil
	l.mu.Unlock()
}

// Two replicas on one PostgreSQL store: one leads, the other follows by announcement; when the
// leader stops renewing, the other takes over within the lease's TTL, the stalled leader's
// writes are refused by the fence, and once it runs again it steps down and follows. Each replica
// hands on every trade of the store exactly once, in chain order, across the change of leader.
func TestReplicasFailOverWithoutLosingOrDoubling(t *testing.T) {
	t.Parallel()
	w := newWorld(t, pgtest.Schema(t, "market_test"))
	w.sync()
	start := len(w.storeTrades())
	ann, err := w.db.Announcer()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(w.ctx)
	defer cancel()
	const ttl = 900 * time.Millisecond
	type replica struct {
		r     *market.Replica
		lease *stuckLease
		tape  tape
		done  chan struct{}
	}
	newReplica := func(holder string) *replica {
		rp := &replica{lease: &stuckLease{Lease: w.db.Lease()}, done: make(chan struct{})}
		rp.r, err = market.NewReplica(ctx, market.ReplicaConfig{
			Store: w.store, Lease: rp.lease, Fence: func(term uint64) market.Store { return w.store.Fenced(term) },
			Indexer: market.IndexerConfig{Chain: w.chain, PollInterval: 20 * time.Millisecond},
			Holder:  holder, TTL: ttl, Announcer: ann, OnSync: rp.tape.onSync, Poll: time.Hour,
			Logger: slog.New(slog.DiscardHandler),
		})
		if err != nil {
			t.Fatal(err)
		}
		return rp
	}
	a, b := newReplica("a"), newReplica("b")
	if ok, err := a.r.Campaign(ctx); !ok || err != nil {
		t.Fatalf("a's campaign on a free lease: %v %v", ok, err)
	}
	for _, rp := range []*replica{a, b} {
		go func() { defer close(rp.done); _ = rp.r.Run(ctx) }()
	}
	time.Sleep(300 * time.Millisecond) // b's LISTEN is in place
	if st := b.r.Status(); st.Leading {
		t.Fatalf("b leads while a holds the lease: %+v", st)
	}

	trader := w.dev.Accounts[4]
	waitFor := func(what string, ok func() bool) time.Duration {
		t.Helper()
		began := time.Now()
		for !ok() {
			if time.Since(began) > 15*time.Second {
				t.Fatalf("timed out waiting until %s; a %+v, b %+v", what, a.r.Status(), b.r.Status())
			}
			time.Sleep(5 * time.Millisecond)
		}
		return time.Since(began)
	}
	caughtUp := func() bool {
		cur, err := w.store.Cursor(ctx)
		return err == nil && a.r.Position() == cur && b.r.Position() == cur
	}
	for i := range 3 {
		w.trade(trader, w.dev.ETHToken.Token, curvekit.Buy, uint256.NewInt(uint64(1e16*(i+1))))
		waitFor("both replicas hold the trade", func() bool { return len(w.storeTrades()) == start+i+1 && caughtUp() })
	}

	// a stalls: no renewal reaches the database, while its indexer still tries to write.
	a.lease.stick()
	took := waitFor("b leads", func() bool { return b.r.Status().Leading })
	t.Logf("b took over %v after a stopped renewing (TTL %v)", took, ttl)
	if took > 2*ttl {
		t.Errorf("takeover after %v, more than twice the TTL %v", took, ttl)
	}
	for i := range 3 {
		w.trade(trader, w.dev.USDToken.Token, curvekit.Buy, uint256.NewInt(uint64(2_000_000*(i+1))))
		waitFor("b indexes the trade", func() bool { return len(w.storeTrades()) == start+4+i })
	}
	waitFor("a's indexer is fenced", func() bool {
		st := a.r.Status()
		return st.Leading && errors.Is(st.Indexer.LastErr, market.ErrFenced)
	})
	a.lease.unstick()
	waitFor("a steps down and follows", func() bool { return !a.r.Status().Leading && caughtUp() })
	if st := b.r.Status(); !st.Leading || st.Term <= 1 {
		t.Fatalf("b after a stepped down: %+v", st)
	}

	want := w.storeTrades()[start:]
	for name, rp := range map[string]*replica{"a": a, "b": b} {
		got, _ := rp.tape.get()
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("replica %s's trades (-store +handed on):\n%s", name, diff)
		}
	}
	cancel()
	<-a.done
	<-b.done
	if l, err := w.db.Lease().Current(w.ctx); err != nil || l.Expires.After(time.Now()) {
		t.Errorf("the lease after b shut down: %+v %v, want released", l, err)
	}
}

// A replica that campaigned and never ran hands the lease back when it resigns, so the next
// server on the store leads at once instead of after the lease's TTL.
func TestReplicaResignReleasesTheLease(t *testing.T) {
	t.Parallel()
	w := newWorld(t, "")
	newReplica := func(holder string) *market.Replica {
		r, err := market.NewReplica(w.ctx, market.ReplicaConfig{
			Store: w.store, Lease: w.db.Lease(), Fence: func(term uint64) market.Store { return w.store.Fenced(term) },
			Indexer: market.IndexerConfig{Chain: w.chain}, Holder: holder, TTL: time.Hour,
			OnSync: func(market.Sync) {}, Logger: slog.New(slog.DiscardHandler),
		})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	first := newReplica("first")
	if ok, err := first.Campaign(w.ctx); !ok || err != nil {
		t.Fatalf("first campaign: %v %v", ok, err)
	}
	first.Resign()
	if st := first.Status(); st.Leading {
		t.Fatalf("after resigning: %+v", st)
	}
	if ok, err := newReplica("second").Campaign(w.ctx); !ok || err != nil {
		t.Fatalf("the next server's campaign: %v %v, want the lease at once", ok, err)
	}
}

// WhileLeading runs beside the leader's indexer and ends with its term, before Run returns; a
// replica that follows never runs it.
func TestReplicaRunsWhileLeadingForItsTerm(t *testing.T) {
	t.Parallel()
	w := newWorld(t, "")
	type life struct{ started, ended chan struct{} }
	newReplica := func(holder string, l life) *market.Replica {
		r, err := market.NewReplica(w.ctx, market.ReplicaConfig{
			Store: w.store, Lease: w.db.Lease(), Fence: func(term uint64) market.Store { return w.store.Fenced(term) },
			Indexer: market.IndexerConfig{Chain: w.chain}, Holder: holder, TTL: time.Hour,
			WhileLeading: func(ctx context.Context) {
				close(l.started)
				<-ctx.Done()
				close(l.ended)
			},
			OnSync: func(market.Sync) {}, Logger: slog.New(slog.DiscardHandler),
		})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	run := func(r *market.Replica) (stop func()) {
		ctx, cancel := context.WithCancel(w.ctx)
		done := make(chan struct{})
		go func() { _ = r.Run(ctx); close(done) }()
		return func() { cancel(); <-done }
	}
	leader := life{make(chan struct{}), make(chan struct{})}
	first := newReplica("first", leader)
	if ok, err := first.Campaign(w.ctx); !ok || err != nil {
		t.Fatalf("campaign: %v %v", ok, err)
	}
	stopFirst := run(first)
	<-leader.started
	follower := life{make(chan struct{}), make(chan struct{})}
	stopSecond := run(newReplica("second", follower))
	if err := first.Sync(w.ctx); err != nil { // the leader works meanwhile
		t.Fatal(err)
	}
	stopSecond()
	select {
	case <-follower.started:
		t.Error("a following replica ran WhileLeading")
	default:
	}
	stopFirst()
	select {
	case <-leader.ended:
	default:
		t.Error("Run returned before the term's WhileLeading ended")
	}
}
