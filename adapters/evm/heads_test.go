package evm_test

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"net"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/rpc"
	"github.com/google/go-cmp/cmp"

	"github.com/curvekit/curvekit/adapters/evm"
	"github.com/curvekit/curvekit/adapters/evm/devnet"
	"github.com/curvekit/curvekit/contracts/bindings"
	"github.com/curvekit/curvekit/market"
)

// flakyHeads is a node's newHeads as providers serve it: a subscription that can be dropped (it
// ends with an error), refused for a while, or muted (up, but silent).
type flakyHeads struct {
	c evm.HeadSubscriber

	mu      sync.Mutex
	refuse  bool
	muted   bool
	current *flakySub
	made    int
}

type flakySub struct {
	inner ethereum.Subscription
	err   chan error
}

func (s *flakySub) Err() <-chan error { return s.err }
func (s *flakySub) Unsubscribe()      { s.inner.Unsubscribe() }

func (f *flakyHeads) SubscribeNewHead(ctx context.Context, ch chan<- *types.Header) (ethereum.Subscription, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.refuse {
		return nil, errors.New("connection refused")
	}
	in := make(chan *types.Header, 16)
	inner, err := f.c.SubscribeNewHead(ctx, in)
	if err != nil {
		return nil, err
	}
	s := &flakySub{inner: inner, err: make(chan error, 2)}
	go func() {
		for {
			select {
			case h := <-in:
				f.mu.Lock()
				muted := f.muted
				f.mu.Unlock()
				if !muted {
					ch <- h
				}
			case err, ok := <-inner.Err():
				if ok {
					s.err <- err
				}
				return
			}
		}
	}()
	f.current, f.made = s, f.made+1
	return s, nil
}

// drop ends the current subscription with an error and refuses new ones until allow.
func (f *flakyHeads) drop() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.refuse = true
	f.current.inner.Unsubscribe()
	f.current.err <- errors.New("websocket: close 1006 (abnormal closure)")
}

func (f *flakyHeads) allow() {
	f.mu.Lock()
	f.refuse = false
	f.mu.Unlock()
}

func (f *flakyHeads) mute(m bool) {
	f.mu.Lock()
	f.muted = m
	f.mu.Unlock()
}

func (f *flakyHeads) subscriptions() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.made
}

// waitFor retries ok every few milliseconds for up to 20 s.
func waitFor(t *testing.T, what string, ok func() bool) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); !ok(); time.Sleep(2 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("not within 20s: %s", what)
		}
	}
}

// TestHeadsWakeTheIndexerAcrossADroppedSubscription runs the indexer on the devnet, woken by
// its newHeads, through a subscription that drops and is refused for a while before it comes
// back. With a poll of an hour only wake-ups can index: the trades mined while the subscription
// was down come with the first head after it is back. With a short poll, polling indexes them
// while it is down. Either way every trade reaches OnSync exactly once, in chain order, and
// each sync continues from the block the last one ended at.
func TestHeadsWakeTheIndexerAcrossADroppedSubscription(t *testing.T) {
	for _, poll := range []time.Duration{time.Hour, 5 * time.Millisecond} {
		t.Run(fmt.Sprintf("poll %v", poll), func(t *testing.T) {
			d := startDevnet(t)
			ctx, cancel := context.WithCancel(context.Background())
			chain, db := indexing(t, d, d.Client)
			flaky := &flakyHeads{c: d.Client}
			heads, err := evm.NewHeads(evm.HeadsConfig{Client: flaky, Idle: time.Hour, Retry: time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			var (
				mu      sync.Mutex
				handed  []common.Hash // trades' transactions, as OnSync got them
				last    market.Cursor
				gapless = true
			)
			ix, err := market.NewIndexer(ctx, market.IndexerConfig{
				Chain: chain, Store: db.Market(), PollInterval: poll, Wake: heads.Wake(),
				OnSync: func(s market.Sync) {
					mu.Lock()
					defer mu.Unlock()
					if s.Batch == nil {
						return
					}
					for _, tr := range s.Batch.Trades {
						handed = append(handed, tr.TxHash)
						gapless = gapless && tr.Block > last.Block
					}
					last = s.Cursor
				},
			})
			if err != nil {
				t.Fatal(err)
			}
			var running sync.WaitGroup
			running.Go(func() { _ = heads.Run(ctx) })
			running.Go(func() { _ = ix.Run(ctx) })
			t.Cleanup(func() { cancel(); running.Wait() })
			indexed := func(h common.Hash) func() bool {
				return func() bool {
					mu.Lock()
					defer mu.Unlock()
					return slices.Contains(handed, h)
				}
			}
			waitFor(t, "the first sync and the subscription", func() bool {
				return ix.Status().Indexed == d.Backend.Head().Number.Uint64() && heads.Status().Subscribed
			})
			mu.Lock()
			setup := len(handed)
			mu.Unlock()

			crv := bindings.NewBondingCurve()
			buy := func(i int) common.Hash {
				deadline, err := d.Deadline(ctx, time.Hour)
				if err != nil {
					t.Fatal(err)
				}
				value := big.NewInt(int64(i+1) * 1e15)
				r, err := d.Send(ctx, d.Accounts[4].Key, &d.ETHToken.Curve, value, crv.PackBuy(value, big.NewInt(1), deadline))
				if err != nil {
					t.Fatal(err)
				}
				return r.TxHash
			}
			var sent []common.Hash
			sent = append(sent, buy(0))
			waitFor(t, "a trade indexed on its head", indexed(sent[0]))

			flaky.drop()
			waitFor(t, "the subscription seen down", func() bool { return !heads.Status().Subscribed })
			sent = append(sent, buy(1), buy(2))
			if poll < time.Second {
				waitFor(t, "the trades of the gap indexed by polling", indexed(sent[2]))
			}
			flaky.allow()
			waitFor(t, "the subscription back", func() bool { return heads.Status().Subscribed })
			waitFor(t, "the trades of the gap indexed", indexed(sent[2]))
			sent = append(sent, buy(3))
			waitFor(t, "a trade indexed on its head after the gap", indexed(sent[3]))
			// With a short poll, polling may index the last trade before its head arrives.
			waitFor(t, "a second subscription and heads on both", func() bool {
				st := heads.Status()
				return st.Subscriptions >= 2 && st.Heads >= 2
			})

			mu.Lock()
			defer mu.Unlock()
			if diff := cmp.Diff(sent, handed[setup:]); diff != "" {
				t.Errorf("trades handed to OnSync (-sent +handed):\n%s", diff)
			}
			if !gapless {
				t.Error("a sync handed on a block an earlier sync had handed on")
			}
		})
	}
}

// TestHeadsWatchdog takes a subscription that stays up but silent for a dropped one: after Idle
// without a head it subscribes again, and the heads of a new subscription are heard.
func TestHeadsWatchdog(t *testing.T) {
	d := startDevnet(t)
	flaky := &flakyHeads{c: d.Client, muted: true}
	heads, err := evm.NewHeads(evm.HeadsConfig{Client: flaky, Idle: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- heads.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	waitFor(t, "three subscriptions of a silent node", func() bool { return flaky.subscriptions() >= 3 })
	d.Mine()
	if st := heads.Status(); st.Heads != 0 {
		t.Fatalf("status %+v: a muted head was heard", st)
	}
	flaky.mute(false)
	waitFor(t, "a head heard once the node speaks", func() bool {
		d.Mine()
		return heads.Status().Heads > 0
	})
}

// startDevnet starts a devnet, closed when the test ends.
func startDevnet(t *testing.T) *devnet.Devnet {
	t.Helper()
	d, err := devnet.Start(devnet.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

// serveRPC serves d's JSON-RPC (HTTP and WebSocket) on a loopback port until stop or the end of
// the test, and returns its address.
func serveRPC(t *testing.T, d *devnet.Devnet) (addr string, stop func()) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- d.ServeRPC(ctx, ln) }()
	stop = sync.OnceFunc(func() { cancel(); <-served })
	t.Cleanup(stop)
	return ln.Addr().String(), stop
}

// TestPoolSubscribesWhereItCan subscribes through a pool whose first endpoint speaks plain HTTP
// and whose second speaks WebSocket: the subscription is made on the second and delivers the
// devnet's heads. A pool of HTTP endpoints alone cannot subscribe, and says so, and Heads then
// leaves the indexer to its polls.
func TestPoolSubscribesWhereItCan(t *testing.T) {
	d := startDevnet(t)
	addr, _ := serveRPC(t, d)
	httpc, wsc := dial(t, "http://"+addr), dial(t, "ws://"+addr)
	ctx := context.Background()

	pool, err := evm.NewPool(evm.PoolConfig{Endpoints: []evm.Endpoint{{Name: "http", Client: httpc}, {Name: "ws", Client: wsc}}})
	if err != nil {
		t.Fatal(err)
	}
	ch := make(chan *types.Header, 4)
	sub, err := pool.SubscribeNewHead(ctx, ch)
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Unsubscribe()
	want := d.Mine()
	select {
	case h := <-ch:
		if h.Hash() != want {
			t.Errorf("head %s, want %s", h.Hash(), want)
		}
	case err := <-sub.Err():
		t.Fatal(err)
	case <-time.After(10 * time.Second):
		t.Fatal("no head within 10s")
	}

	only, err := evm.NewPool(evm.PoolConfig{Endpoints: []evm.Endpoint{{Name: "http", Client: httpc}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := only.SubscribeNewHead(ctx, ch); !errors.Is(err, rpc.ErrNotificationsUnsupported) {
		t.Fatalf("subscribing over HTTP alone: %v, want notifications unsupported", err)
	}
	heads, err := evm.NewHeads(evm.HeadsConfig{Client: only})
	if err != nil {
		t.Fatal(err)
	}
	if err := heads.Run(ctx); !errors.Is(err, rpc.ErrNotificationsUnsupported) {
		t.Fatalf("Heads.Run over HTTP alone: %v", err)
	}
}

// TestHeadsFailOverBetweenEndpoints follows the devnet's heads through a pool of two WebSocket
// endpoints: when the first stops serving, its subscription ends, Heads subscribes again, and
// the pool makes the new subscription on the second.
func TestHeadsFailOverBetweenEndpoints(t *testing.T) {
	d := startDevnet(t)
	first, stopFirst := serveRPC(t, d)
	second, _ := serveRPC(t, d)
	pool, err := evm.NewPool(evm.PoolConfig{Endpoints: []evm.Endpoint{{Name: "first", Client: dial(t, "ws://"+first)}, {Name: "second", Client: dial(t, "ws://"+second)}}})
	if err != nil {
		t.Fatal(err)
	}
	heads, err := evm.NewHeads(evm.HeadsConfig{Client: pool, Retry: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- heads.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	heard := func(what string) {
		t.Helper()
		before := heads.Status().Heads
		waitFor(t, what, func() bool {
			d.Mine()
			return heads.Status().Heads > before
		})
	}
	heard("a head through the first endpoint")
	stopFirst()
	waitFor(t, "a second subscription", func() bool { return heads.Status().Subscriptions >= 2 && heads.Status().Subscribed })
	heard("a head through the second endpoint")
}
