package market_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/holiman/uint256"

	"github.com/curvekit/curvekit"
	"github.com/curvekit/curvekit/internal/pgtest"
	"github.com/curvekit/curvekit/market"
)

// unannounced is a replica that hears nothing: it catches up from the store by position alone.
type unannounced struct{}

func (unannounced) Announce(context.Context, market.Cursor) error { return nil }
func (unannounced) Listen(ctx context.Context, _ func(market.Cursor)) error {
	<-ctx.Done()
	return nil
}

// tape collects what a follower hands on.
type tape struct {
	mu      sync.Mutex
	trades  []market.Trade
	rewound int
}

func (tp *tape) onSync(s market.Sync) {
	tp.mu.Lock()
	defer tp.mu.Unlock()
	if s.Rewound {
		tp.rewound++
		tp.trades = nil
	}
	if s.Batch != nil {
		tp.trades = append(tp.trades, s.Batch.Trades...)
	}
}

func (tp *tape) get() ([]market.Trade, int) {
	tp.mu.Lock()
	defer tp.mu.Unlock()
	return append([]market.Trade(nil), tp.trades...), tp.rewound
}

// storeTrades is every trade of the devnet's three tokens in the store, in chain order.
func (w *world) storeTrades() []market.Trade {
	w.t.Helper()
	got, err := market.SyncSince(w.ctx, w.store, market.Cursor{})
	if err != nil {
		w.t.Fatal(err)
	}
	return got.Batch.Trades
}

// A replica that missed every announcement catches up from the store by position, however many
// commits it skipped, with each trade once; after a rollback below its position it hands on a
// Rewound sync and follows again from there.
func TestFollowerCatchesUpByPosition(t *testing.T) {
	t.Parallel()
	w := newWorld(t, "")
	w.sync()
	var tp tape
	f, err := market.NewFollower(w.ctx, market.FollowerConfig{Store: w.store, Announcer: unannounced{}, OnSync: tp.onSync})
	if err != nil {
		t.Fatal(err)
	}
	start := len(w.storeTrades())
	trader := w.dev.Accounts[4]
	for i := range 6 {
		w.trade(trader, w.dev.ETHToken.Token, curvekit.Buy, uint256.NewInt(uint64(1e16*(i+1))))
		w.sync()
		if i%3 == 2 {
			if err := f.CatchUp(w.ctx); err != nil {
				t.Fatal(err)
			}
		}
	}
	got, _ := tp.get()
	if diff := cmp.Diff(w.storeTrades()[start:], got); diff != "" {
		t.Fatalf("followed trades (-store +follower):\n%s", diff)
	}

	// A rollback below the follower's position (as a reorganization does): Rewound, then on.
	recent, err := w.store.RecentBlocks(w.ctx, 10)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.store.Rollback(w.ctx, &market.Rollback{To: recent[3]}); err != nil {
		t.Fatal(err)
	}
	if err := f.CatchUp(w.ctx); err != nil {
		t.Fatal(err)
	}
	if _, rewound := tp.get(); rewound != 1 || f.Position() != recent[3] {
		t.Fatalf("after the rollback: rewound %d, position %+v, want %+v", rewound, f.Position(), recent[3])
	}
	w.sync() // the indexer writes the same chain again
	if err := f.CatchUp(w.ctx); err != nil {
		t.Fatal(err)
	}
	got, _ = tp.get()
	all := w.storeTrades()
	var want []market.Trade
	for _, tr := range all {
		if tr.Block > recent[3].Block {
			want = append(want, tr)
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("trades followed after the rollback (-store +follower):\n%s", diff)
	}
}

// On PostgreSQL, a follower hears the leader's announcements (LISTEN/NOTIFY) and is at the
// leader's cursor, with the leader's trades each once, soon after each commit.
func TestFollowerHearsAnnouncements(t *testing.T) {
	t.Parallel()
	w := newWorld(t, pgtest.Schema(t, "market_test"))
	w.sync()
	ann, err := w.db.Announcer()
	if err != nil {
		t.Fatal(err)
	}
	var tp tape
	// A poll longer than the test: what the follower learns, it learns by announcement.
	f, err := market.NewFollower(w.ctx, market.FollowerConfig{Store: w.store, Announcer: ann, OnSync: tp.onSync, Poll: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(w.ctx)
	defer cancel()
	go f.Run(ctx)
	leader, err := market.NewIndexer(w.ctx, market.IndexerConfig{Chain: w.chain, Store: w.store,
		OnSync: func(s market.Sync) { _ = ann.Announce(w.ctx, s.Cursor) }})
	if err != nil {
		t.Fatal(err)
	}
	start := len(w.storeTrades())
	trader := w.dev.Accounts[4]
	time.Sleep(300 * time.Millisecond) // the follower's LISTEN is in place
	for i := range 4 {
		w.trade(trader, w.dev.USDToken.Token, curvekit.Buy, uint256.NewInt(uint64(2_000_000*(i+1))))
		cur, err := leader.Sync(w.ctx)
		if err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(10 * time.Second)
		for f.Position() != cur {
			if time.Now().After(deadline) {
				t.Fatalf("the follower is at %+v, the leader at %+v", f.Position(), cur)
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	got, _ := tp.get()
	if diff := cmp.Diff(w.storeTrades()[start:], got); diff != "" {
		t.Fatalf("followed trades (-store +follower):\n%s", diff)
	}
}
