package markettest

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/curvekit/curvekit/market"
)

// RunLease is the conformance suite of market.Lease: one holder at a time, terms that grow with
// every change of holder, renewal only while live, release, and no two winners among
// concurrent campaigners. newLease gives a lease on a fresh store each call.
func RunLease(t *testing.T, newLease func(t *testing.T) market.Lease) {
	ctx := context.Background()
	t.Run("OneHolderAndGrowingTerms", func(t *testing.T) {
		l := newLease(t)
		if cur, err := l.Current(ctx); err != nil || cur.Term != 0 {
			t.Fatalf("a fresh lease: %+v %v", cur, err)
		}
		a, ok, err := l.Acquire(ctx, "a", time.Minute)
		if err != nil || !ok || a.Term != 1 || a.Holder != "a" || !a.Expires.After(a.Since) {
			t.Fatalf("first acquire: %+v %v %v", a, ok, err)
		}
		if _, ok, err := l.Acquire(ctx, "b", time.Minute); err != nil || ok {
			t.Fatalf("b took a live lease of a: %v %v", ok, err)
		}
		again, ok, err := l.Acquire(ctx, "a", time.Minute)
		if err != nil || !ok || again.Term != 1 {
			t.Fatalf("a's own live lease again: %+v %v %v", again, ok, err)
		}
		if ok, err := l.Renew(ctx, "a", 1, time.Minute); err != nil || !ok {
			t.Fatalf("renew: %v %v", ok, err)
		}
		if ok, err := l.Renew(ctx, "b", 1, time.Minute); err != nil || ok {
			t.Fatalf("b renewed a's lease: %v %v", ok, err)
		}
		if err := l.Release(ctx, "a", 1); err != nil {
			t.Fatal(err)
		}
		if ok, err := l.Renew(ctx, "a", 1, time.Minute); err != nil || ok {
			t.Fatalf("a renewed a released lease: %v %v", ok, err)
		}
		b, ok, err := l.Acquire(ctx, "b", time.Minute)
		if err != nil || !ok || b.Term != 2 || b.Holder != "b" {
			t.Fatalf("b after the release: %+v %v %v", b, ok, err)
		}
		if cur, err := l.Current(ctx); err != nil || cur.Holder != "b" || cur.Term != 2 {
			t.Fatalf("current: %+v %v", cur, err)
		}
		// A stale holder's release changes nothing.
		if err := l.Release(ctx, "a", 1); err != nil {
			t.Fatal(err)
		}
		if _, ok, _ := l.Acquire(ctx, "a", time.Minute); ok {
			t.Fatal("a stale release freed b's lease")
		}
	})
	t.Run("Expiry", func(t *testing.T) {
		l := newLease(t)
		if _, ok, err := l.Acquire(ctx, "a", 150*time.Millisecond); err != nil || !ok {
			t.Fatalf("acquire: %v %v", ok, err)
		}
		time.Sleep(300 * time.Millisecond)
		if ok, err := l.Renew(ctx, "a", 1, time.Minute); err != nil || ok {
			t.Fatalf("an expired lease was renewed: %v %v", ok, err)
		}
		b, ok, err := l.Acquire(ctx, "b", time.Minute)
		if err != nil || !ok || b.Term != 2 {
			t.Fatalf("b after the expiry: %+v %v %v", b, ok, err)
		}
		// A holder whose own lease lapsed comes back with a new term: its old term's writes are
		// fenced even when nobody else led meanwhile.
		if _, ok, err := l.Acquire(ctx, "c", 100*time.Millisecond); err != nil || ok {
			t.Fatalf("c took b's live lease: %v %v", ok, err)
		}
		if err := l.Release(ctx, "b", 2); err != nil {
			t.Fatal(err)
		}
		c, ok, err := l.Acquire(ctx, "c", 100*time.Millisecond)
		if err != nil || !ok || c.Term != 3 {
			t.Fatalf("c: %+v %v %v", c, ok, err)
		}
		time.Sleep(250 * time.Millisecond)
		c2, ok, err := l.Acquire(ctx, "c", time.Minute)
		if err != nil || !ok || c2.Term != 4 {
			t.Fatalf("c after its own lease lapsed: %+v %v %v", c2, ok, err)
		}
	})
	t.Run("OneWinnerAmongMany", func(t *testing.T) {
		l := newLease(t)
		for round := 0; round < 20; round++ {
			var wg sync.WaitGroup
			var mu sync.Mutex
			winners := map[string]uint64{}
			for i := range 8 {
				holder := string(rune('a'+i)) + "-" + string(rune('0'+round%10))
				wg.Go(func() {
					got, ok, err := l.Acquire(ctx, holder, time.Minute)
					if err != nil {
						t.Error(err)
						return
					}
					if ok {
						mu.Lock()
						winners[holder] = got.Term
						mu.Unlock()
					}
				})
			}
			wg.Wait()
			if len(winners) != 1 {
				t.Fatalf("round %d: %d winners: %v", round, len(winners), winners)
			}
			for h, term := range winners {
				if err := l.Release(ctx, h, term); err != nil {
					t.Fatal(err)
				}
			}
		}
	})
}
