package evm

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/rpc"
)

// HeadSubscriber subscribes to the node's new heads (eth_subscribe "newHeads"): go-ethereum's
// client over WebSocket or IPC, the devnet's in-process client, and a Pool (on an endpoint that
// can) do; a client over plain HTTP answers rpc.ErrNotificationsUnsupported.
type HeadSubscriber interface {
	SubscribeNewHead(ctx context.Context, ch chan<- *types.Header) (ethereum.Subscription, error)
}

// HeadsConfig configures Heads.
type HeadsConfig struct {
	Client HeadSubscriber
	// Idle is how long a subscription may stay silent before it is taken for dropped (some
	// providers stop sending without an error) and made again; default 30s. Polling covers the
	// heads it missed, so a quiet chain that trips it costs one more subscription, no block.
	Idle time.Duration
	// Retry is the first pause after a failed subscription, doubled at each failure in a row up
	// to Idle and jittered; default 1s.
	Retry  time.Duration
	Logger *slog.Logger
}

func (c *HeadsConfig) validate() error {
	if c.Client == nil {
		return errors.New("evm: heads need a client")
	}
	if c.Idle <= 0 {
		c.Idle = 30 * time.Second
	}
	if c.Retry <= 0 {
		c.Retry = time.Second
	}
	c.Retry = min(c.Retry, c.Idle)
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	return nil
}

// Heads turns the node's newHeads subscription into wake-ups for the indexer
// (market.IndexerConfig.Wake): each head the node announces is one receive on Wake, at once. A
// head is only a wake-up, never data: the indexer reads the chain from its cursor, so a head
// missed, repeated or out of order changes nothing but when it looks. Run keeps the subscription
// up: it subscribes again after an error and, as a watchdog, after Idle without a head; a node
// that cannot subscribe at all (plain HTTP) leaves the indexer to its polling.
type Heads struct {
	cfg  HeadsConfig
	wake chan struct{}

	mu     sync.Mutex
	status HeadsStatus
}

// HeadsStatus is how the subscription fares.
type HeadsStatus struct {
	// Subscribed: a subscription is up now.
	Subscribed bool
	// Heads counts the heads heard; Subscriptions the subscriptions made, the first included.
	Heads, Subscriptions uint64
	// Last is when the last head was heard.
	Last time.Time
}

// NewHeads returns Heads for cfg; Run subscribes.
func NewHeads(cfg HeadsConfig) (*Heads, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	return &Heads{cfg: cfg, wake: make(chan struct{}, 1)}, nil
}

// Wake receives once for every head heard (heads that come while one is pending merge into it).
func (h *Heads) Wake() <-chan struct{} { return h.wake }

// Status is the subscription's state; safe for concurrent use.
func (h *Heads) Status() HeadsStatus {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.status
}

func (h *Heads) notify() {
	select {
	case h.wake <- struct{}{}:
	default: // a wake-up is pending; the sync it starts reads every block up to the head
	}
}

// Run keeps the subscription up until ctx ends, and returns nil then. It returns early, with an
// error matching rpc.ErrNotificationsUnsupported, when the node cannot subscribe at all.
func (h *Heads) Run(ctx context.Context) error {
	failures := 0
	for ctx.Err() == nil {
		made := h.Status().Subscriptions
		err := h.listen(ctx)
		if ctx.Err() != nil {
			return nil
		}
		if h.Status().Subscriptions > made {
			failures = 0 // it was up: a drop after that is a first failure
		}
		if errors.Is(err, rpc.ErrNotificationsUnsupported) || errors.Is(err, errors.ErrUnsupported) {
			h.cfg.Logger.Info("the chain node does not announce new heads (a plain HTTP endpoint): the indexer polls", "err", err)
			return fmt.Errorf("evm: heads: %w", rpc.ErrNotificationsUnsupported)
		}
		if err == nil {
			continue // the watchdog's: subscribe again at once
		}
		failures++
		if failures == 1 {
			h.cfg.Logger.Warn("new-head subscription failed; the indexer polls until it is back", "err", err)
		}
		d := h.cfg.Retry << min(failures-1, 16)
		if d > h.cfg.Idle || d <= 0 {
			d = h.cfg.Idle
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(d/2 + rand.N(d/2+1)):
		}
	}
	return nil
}

// listen subscribes once and hands on heads until the subscription fails (its error), stays
// silent for Idle (nil), or ctx ends.
func (h *Heads) listen(ctx context.Context) error {
	ch := make(chan *types.Header, 16)
	sub, err := h.cfg.Client.SubscribeNewHead(ctx, ch)
	if err != nil {
		return err
	}
	defer sub.Unsubscribe()
	h.mu.Lock()
	h.status.Subscribed = true
	h.status.Subscriptions++
	again := h.status.Subscriptions > 1
	h.mu.Unlock()
	defer func() {
		h.mu.Lock()
		h.status.Subscribed = false
		h.mu.Unlock()
	}()
	if again {
		h.notify() // heads may have come while it was down: look now rather than at the next poll
		h.cfg.Logger.Debug("new-head subscription made again")
	}
	idle := time.NewTimer(h.cfg.Idle)
	defer idle.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case err := <-sub.Err():
			if err == nil {
				err = errors.New("the node ended the subscription")
			}
			return err
		case <-idle.C:
			h.cfg.Logger.Debug("no new head for a while; subscribing again", "idle", h.cfg.Idle)
			return nil
		case <-ch:
			h.notify()
			h.mu.Lock()
			h.status.Heads++
			h.status.Last = time.Now()
			h.mu.Unlock()
			idle.Reset(h.cfg.Idle)
		}
	}
}
