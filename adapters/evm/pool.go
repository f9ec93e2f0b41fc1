package evm

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/big"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/curvekit/curvekit"
)

// Endpoint is one node of the chain: its client and the name logs give it (a URL without its
// key).
type Endpoint struct {
	Name   string
	Client Client
}

// PoolConfig configures a Pool.
type PoolConfig struct {
	// Endpoints serve the same chain, in the operator's order of preference.
	Endpoints []Endpoint
	// MaxWait is the longest one call waits for a throttled endpoint before it reports
	// curvekit.ErrThrottled; default 2s. An endpoint that does not answer is not waited for.
	MaxWait time.Duration
	// Backoff is the first pause of an endpoint after a failure, doubled at each failure in a
	// row up to MaxBackoff and jittered; defaults 250ms and 10s.
	Backoff, MaxBackoff time.Duration
	// LagTolerance is how many blocks an endpoint may trail the highest head before the
	// others are preferred; default 2.
	LagTolerance uint64
	Now          func() time.Time
	Logger       *slog.Logger
}

func (c *PoolConfig) validate() error {
	if len(c.Endpoints) == 0 {
		return errors.New("evm: a pool needs at least one endpoint")
	}
	for i, e := range c.Endpoints {
		if e.Client == nil {
			return fmt.Errorf("evm: endpoint %d has no client", i)
		}
		if e.Name == "" {
			c.Endpoints[i].Name = fmt.Sprintf("endpoint %d", i+1)
		}
	}
	if c.MaxWait <= 0 {
		c.MaxWait = 2 * time.Second
	}
	if c.Backoff <= 0 {
		c.Backoff = 250 * time.Millisecond
	}
	if c.MaxBackoff < c.Backoff {
		c.MaxBackoff = max(10*time.Second, c.Backoff)
	}
	if c.LagTolerance == 0 {
		c.LagTolerance = 2
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	return nil
}

// Pool is a Client over several endpoints of one chain, as hosted providers serve it: each call
// goes to the healthiest endpoint that has the block it needs, fails over when an endpoint does
// not answer or throttles, and pauses an endpoint that failed (exponential back-off with
// jitter). Endpoints may stand at different heads, and one endpoint's head may drop back (a
// load-balanced provider answers from backends at different heights): a call that names a block
// goes to an endpoint that has reached it, or to them all when none says it has, and a "not
// found" for a block the pool saw the chain reach is taken for behind, not for a
// reorganization, unless the hashes of the blocks both saw say that the chain moved back. Such a
// call fails with an error matching curvekit.ErrUnavailable ("no chain node has reached block N
// yet") until an endpoint serves the block; ethereum.NotFound is the answer only for a block
// beyond every head the pool saw, or on a chain whose hashes moved back.
//
// When no endpoint can answer, calls fail with an error matching curvekit.ErrUnavailable (and
// curvekit.ErrThrottled when the endpoints throttle), whose message is fit for clients; the
// pool logs such an outage once, with its cause, and its end.
type Pool struct {
	cfg PoolConfig

	mu        sync.Mutex
	endpoints []*endpoint
	best      uint64                 // the highest head any endpoint reported
	seen      map[uint64]common.Hash // hashes of recent blocks by number, as endpoints served them
	out       bool                   // an outage is under way (logged)
	outSince  time.Time
}

// endpoint is an Endpoint and its health, guarded by Pool.mu.
type endpoint struct {
	Endpoint
	head     uint64    // the newest block it reported
	failures int       // failed calls in a row
	until    time.Time // paused until
	kind     failure   // of the last failure
}

var _ Client = (*Pool)(nil)

// seenBlocks is how many recent block hashes the pool keeps to tell a lagging endpoint from a
// reorganization.
const seenBlocks = 8192

// NewPool returns a pool over cfg.Endpoints.
func NewPool(cfg PoolConfig) (*Pool, error) {
	cfg.Endpoints = append([]Endpoint(nil), cfg.Endpoints...)
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	p := &Pool{cfg: cfg, seen: make(map[uint64]common.Hash)}
	for _, e := range cfg.Endpoints {
		p.endpoints = append(p.endpoints, &endpoint{Endpoint: e})
	}
	return p, nil
}

// EndpointStatus is one endpoint's health as the pool sees it.
type EndpointStatus struct {
	Name     string
	Head     uint64
	Failures int
	Paused   bool
}

// Status is every endpoint's health, in the configured order.
func (p *Pool) Status() []EndpointStatus {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.cfg.Now()
	out := make([]EndpointStatus, len(p.endpoints))
	for i, e := range p.endpoints {
		out[i] = EndpointStatus{Name: e.Name, Head: e.head, Failures: e.failures, Paused: now.Before(e.until)}
	}
	return out
}

// outageError is the error of a call no endpoint could answer. Its message is for clients; the
// cause goes to the log once per outage (LogValue).
type outageError struct {
	throttled bool
	behind    uint64 // the block no endpoint has reached yet; 0: none
	retry     time.Duration
	cause     error
}

func (e *outageError) Error() string {
	switch {
	case e.throttled:
		return curvekit.ErrThrottled.Error() + ": chain node rate limited, retry later"
	case e.behind > 0:
		return fmt.Sprintf("%s: no chain node has reached block %d yet, retry later", curvekit.ErrUnavailable.Error(), e.behind)
	}
	return curvekit.ErrUnavailable.Error() + ": chain node unavailable, retry later"
}

func (e *outageError) Unwrap() []error {
	if e.throttled {
		return []error{curvekit.ErrThrottled, curvekit.ErrUnavailable, e.cause}
	}
	return []error{curvekit.ErrUnavailable, e.cause}
}

// ClientMessage is what a client is told: Error without the sentinel's prefix.
func (e *outageError) ClientMessage() string {
	msg := e.Error()
	if i := len(curvekit.ErrUnavailable.Error()) + 2; !e.throttled && len(msg) > i {
		return msg[i:]
	}
	return msg[len(curvekit.ErrThrottled.Error())+2:]
}

// RetryAfter is the pause to suggest to a client: until an endpoint may be asked again.
func (e *outageError) RetryAfter() time.Duration { return e.retry }

// OutageLogged says that the pool logs the outage itself, once: callers log the call at debug
// level at most.
func (e *outageError) OutageLogged() bool { return true }

// LogValue is what a log line shows: the message and the cause.
func (e *outageError) LogValue() slog.Value {
	return slog.StringValue(fmt.Sprintf("%s (%v)", e.Error(), e.cause))
}

// need is what a call needs of an endpoint: to have reached a block, and whether "not found"
// may be another endpoint's "found" (reads by hash).
type need struct {
	block    uint64
	hasBlock bool
	byHash   bool
	// header: the call reads the block's header, whose answer is the block itself or "not
	// found", so it may be asked of an endpoint whose head is below the block.
	header bool
}

// failover runs f on the endpoints, healthiest first, until one answers.
func failover[T any](ctx context.Context, p *Pool, n need, f func(Client) (T, error)) (T, error) {
	var (
		zero     T
		tried    = make(map[*endpoint]bool, len(p.endpoints))
		deadline = p.cfg.Now().Add(p.cfg.MaxWait)
		last     error
		lastKind failure
		notFound error
		behind   bool
		// asked: the heads were asked again because every endpoint seemed behind n; fresh:
		// they answered. anyHead: endpoints whose head is below n are asked all the same.
		asked, fresh, anyHead bool
	)
	for {
		e, wait, throttled, ahead := p.pick(n, tried, anyHead)
		if e == nil && ahead && !asked {
			// Every endpoint free to ask was behind the block when it last said; its head may
			// have moved since, on or back (a reorganization to a shorter chain). Ask again.
			asked = true
			if _, err := p.heads(ctx); err == nil {
				fresh = true
				continue
			}
		}
		if e == nil && ahead && fresh {
			if n.block > p.highest() && wait == 0 && notFound == nil && last == nil {
				// No endpoint, none of them paused, has reached the block, and none ever
				// reported it: beyond every head it does not exist (yet), as a single node
				// would answer.
				return zero, ethereum.NotFound
			}
			// The chain reached the block before, and a head below it is no proof that the
			// chain moved back: the endpoints are behind. A load-balanced provider reports the
			// head of whichever backend answers, so a header is asked for all the same: one
			// that has the block answers it, and a "not found" is weighed by the hashes
			// (lagging). Other calls are not: a node behind may answer them without the
			// blocks it lacks (eth_getLogs).
			behind = true
			if n.header && !anyHead {
				anyHead = true
				continue
			}
		}
		if e == nil {
			if lastKind == failCall && throttled {
				lastKind = failThrottled // paused for throttling by earlier calls
			}
			switch {
			case notFound != nil && !behind:
				return zero, notFound
			case wait > 0 && (lastKind == failThrottled || lastKind == failDown && !refused(last)) && !p.cfg.Now().Add(wait).After(deadline):
				// Every endpoint is throttled or failed transiently (a cut answer, a timeout,
				// a 5xx): wait for the first to be free, within MaxWait. A refused
				// connection is a node that is down: the call fails at once.
				select {
				case <-ctx.Done():
					return zero, ctx.Err()
				case <-time.After(wait):
				}
				clear(tried)
				continue
			}
			return zero, p.outage(n, behind, last, lastKind, wait)
		}
		tried[e] = true
		v, err := f(e.Client)
		if ctx.Err() != nil {
			return v, err // the caller gave up: nobody's failure
		}
		kind := classify(err)
		switch {
		case errors.Is(err, ethereum.NotFound) && (n.byHash || n.hasBlock && n.block <= p.highest()):
			// Another endpoint may hold it: this one may be behind.
			if n.hasBlock && !p.lagging(ctx, e, n.block) {
				p.succeeded(e)
				return v, err // the chain moved back: the block is gone
			}
			notFound, behind = err, behind || n.hasBlock
			p.succeeded(e)
			continue
		case kind == failBehind:
			p.behindAt(e, n.block)
			behind, last, lastKind = true, err, kind
			continue
		case kind == failThrottled || kind == failDown:
			p.failed(e, kind, err)
			last, lastKind = err, kind
			continue
		}
		p.succeeded(e)
		return v, err
	}
}

// pick returns the best endpoint not yet tried that may serve n, or nil, how long until a
// paused one may be asked again, whether one is paused for throttling, and whether one was
// passed over for having a head below n's block (none is with anyHead).
func (p *Pool) pick(n need, tried map[*endpoint]bool, anyHead bool) (e *endpoint, wait time.Duration, throttled, ahead bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.cfg.Now()
	var (
		best     *endpoint
		bestRank int
	)
	for _, e := range p.endpoints {
		if now.Before(e.until) {
			if d := e.until.Sub(now); wait == 0 || d < wait {
				wait = d
			}
			throttled = throttled || e.kind == failThrottled
			continue
		}
		if tried[e] {
			continue
		}
		if n.hasBlock && e.head > 0 && e.head < n.block && !anyHead {
			ahead = true
			continue // an endpoint known to be behind the block might answer without it
		}
		// Rank: endpoints known to have the block, then those whose head is unknown; among
		// them, the up-to-date before the lagging, then the fewest recent failures; the
		// configured order breaks ties.
		rank := 0
		if n.hasBlock && e.head < n.block {
			rank += 2
		}
		if e.head+p.cfg.LagTolerance < p.best {
			rank++
		}
		rank = rank*1000 + min(e.failures, 999)
		if best == nil || rank < bestRank {
			best, bestRank = e, rank
		}
	}
	return best, wait, throttled, ahead
}

// highest is the highest head any endpoint reported.
func (p *Pool) highest() uint64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.best
}

// succeeded records an answer of e, and the end of an outage.
func (p *Pool) succeeded(e *endpoint) {
	p.mu.Lock()
	failures, out, since := e.failures, p.out, p.outSince
	e.failures, e.until, p.out = 0, time.Time{}, false
	many := len(p.endpoints) > 1
	p.mu.Unlock()
	if failures > 0 && many {
		p.cfg.Logger.Info("chain endpoint answers again", "endpoint", e.Name, "failures", failures)
	}
	if out {
		p.cfg.Logger.Info("chain node recovered", "after", p.cfg.Now().Sub(since).Round(time.Millisecond))
	}
}

// failed pauses e after a failure: Backoff doubled per failure in a row, up to MaxBackoff,
// jittered between half and all of it so that replicas do not retry in step.
func (p *Pool) failed(e *endpoint, kind failure, err error) {
	p.mu.Lock()
	e.failures++
	e.kind = kind
	d := p.cfg.Backoff << min(e.failures-1, 16)
	if d > p.cfg.MaxBackoff || d <= 0 {
		d = p.cfg.MaxBackoff
	}
	d = d/2 + rand.N(d/2+1)
	e.until = p.cfg.Now().Add(d)
	first, many := e.failures == 1, len(p.endpoints) > 1
	p.mu.Unlock()
	if first && many {
		p.cfg.Logger.Warn("chain endpoint failing; using the others", "endpoint", e.Name, "throttled", kind == failThrottled, "err", err)
	}
}

// behindAt notes that e has not reached block n.
func (p *Pool) behindAt(e *endpoint, n uint64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if n > 0 && e.head >= n {
		e.head = n - 1
	}
}

// outage is the error of a call that no endpoint answered, logged once per outage.
func (p *Pool) outage(n need, behind bool, cause error, kind failure, wait time.Duration) error {
	if cause == nil && behind {
		cause = fmt.Errorf("no endpoint has block %d", n.block)
	}
	if cause == nil {
		cause = errors.New("every endpoint is paused after failures")
	}
	err := &outageError{throttled: kind == failThrottled, retry: max(wait, time.Second), cause: cause}
	if behind {
		// An endpoint answered, without the block: it has not caught up yet. That is no
		// outage, whatever the others do (each endpoint that fails is logged once by failed),
		// so it neither starts one nor, when the endpoint answers the next call, ends one.
		if !err.throttled {
			err.behind = n.block
		}
		return err
	}
	p.mu.Lock()
	first := !p.out
	if first {
		p.out, p.outSince = true, p.cfg.Now()
	}
	p.mu.Unlock()
	if first {
		p.cfg.Logger.Error("chain node unavailable", "endpoints", len(p.endpoints), "throttled", err.throttled, "err", cause)
	}
	return err
}

// observe records a header an endpoint served as its head or as the block of a number. A head
// below the highest the pool saw moves the chain back only when its hash differs from the one the
// pool saw at its number; with the same hash (or none to compare) the endpoint is behind.
func (p *Pool) observe(e *endpoint, h *types.Header, head bool) {
	if h == nil || h.Number == nil {
		return
	}
	n := h.Number.Uint64()
	p.mu.Lock()
	defer p.mu.Unlock()
	if head {
		e.head = n // only a head it reported: a block it served is a lower bound
		if prev, ok := p.seen[n]; ok && n < p.best && prev != h.Hash() {
			p.movedBack(n)
		}
	}
	p.best = max(p.best, n)
	p.seen[n] = h.Hash()
	if len(p.seen) > seenBlocks {
		for k := range p.seen {
			if k+seenBlocks/2 < p.best {
				delete(p.seen, k)
			}
		}
	}
}

// movedBack forgets the heads and hashes above block n, the head of a chain that moved back
// below them. p.mu is held.
func (p *Pool) movedBack(n uint64) {
	p.best = n
	for k := range p.seen {
		if k > n {
			delete(p.seen, k)
		}
	}
	for _, o := range p.endpoints {
		o.head = min(o.head, n)
	}
}

// lagging asks e, which answered "not found" for block n that some endpoint reported, whether it
// is behind on the same chain (true) or the chain moved back below n (false): it compares e's
// block at the newest number the pool saw at or below e's head with the hash the pool saw
// there. Only a different hash says that the chain moved back; with nothing to compare, e is
// taken for behind. When the chain moved back, the pool forgets the heads and hashes above e's
// head.
func (p *Pool) lagging(ctx context.Context, e *endpoint, n uint64) bool {
	h, err := e.Client.HeaderByNumber(ctx, nil)
	if err != nil || h == nil {
		return true // cannot tell: wait rather than roll back
	}
	head := h.Number.Uint64()
	p.mu.Lock()
	e.head = head
	var (
		at   uint64
		hash common.Hash
		ok   bool
	)
	for k, v := range p.seen {
		if k <= head && (!ok || k > at) {
			at, hash, ok = k, v, true
		}
	}
	p.mu.Unlock()
	if head >= n || !ok {
		return true // it has the block by now (ask again), or nothing tells: wait
	}
	mine, err := e.Client.HeaderByNumber(ctx, new(big.Int).SetUint64(at))
	if err != nil || mine == nil || mine.Hash() == hash {
		return true
	}
	p.mu.Lock()
	p.movedBack(head)
	p.mu.Unlock()
	return false
}

// heads asks every endpoint that is not paused for its head at once and returns the highest;
// the others are remembered as lagging.
func (p *Pool) heads(ctx context.Context) (*types.Header, error) {
	type answer struct {
		e   *endpoint
		h   *types.Header
		err error
	}
	p.mu.Lock()
	now := p.cfg.Now()
	var ask []*endpoint
	for _, e := range p.endpoints {
		if !now.Before(e.until) {
			ask = append(ask, e)
		}
	}
	p.mu.Unlock()
	if len(ask) <= 1 {
		var from *endpoint
		h, err := failover(ctx, p, need{}, func(c Client) (*types.Header, error) {
			from = p.endpointOf(c)
			return c.HeaderByNumber(ctx, nil)
		})
		if err == nil && from != nil {
			p.observe(from, h, true)
		}
		return h, err
	}
	answers := make(chan answer, len(ask))
	for _, e := range ask {
		go func() {
			h, err := e.Client.HeaderByNumber(ctx, nil)
			answers <- answer{e, h, err}
		}()
	}
	var (
		top  *types.Header
		last error
		kind failure
	)
	for range ask {
		a := <-answers
		k := classify(a.err)
		switch {
		case ctx.Err() != nil:
			last = ctx.Err()
		case a.err == nil && a.h != nil:
			p.succeeded(a.e)
			p.observe(a.e, a.h, true)
			if top == nil || a.h.Number.Cmp(top.Number) > 0 {
				top = a.h
			}
		case k == failThrottled || k == failDown:
			p.failed(a.e, k, a.err)
			last, kind = a.err, k
		default:
			last = a.err
		}
	}
	switch {
	case top != nil:
		return top, nil
	case ctx.Err() != nil:
		return nil, ctx.Err()
	case kind == failThrottled || kind == failDown:
		return nil, p.outage(need{}, false, last, kind, 0)
	}
	return nil, last
}

// HeaderByNumber returns the header of a block: nil asks every endpoint and answers the highest
// head; a tag (safe, finalized: negative numbers) the healthiest endpoint's.
func (p *Pool) HeaderByNumber(ctx context.Context, number *big.Int) (*types.Header, error) {
	if number == nil {
		return p.heads(ctx)
	}
	n := need{}
	if number.Sign() >= 0 {
		n = need{block: number.Uint64(), hasBlock: true, header: true}
	}
	var from *endpoint
	h, err := failover(ctx, p, n, func(c Client) (*types.Header, error) {
		from = p.endpointOf(c)
		return c.HeaderByNumber(ctx, number)
	})
	if err == nil && n.hasBlock && from != nil {
		p.observe(from, h, false)
	}
	return h, err
}

// endpointOf finds the endpoint of a client.
func (p *Pool) endpointOf(c Client) *endpoint {
	for _, e := range p.endpoints {
		if e.Client == c {
			return e
		}
	}
	return nil
}

// BlockNumber returns the highest head of the endpoints.
func (p *Pool) BlockNumber(ctx context.Context) (uint64, error) {
	h, err := p.heads(ctx)
	if err != nil {
		return 0, err
	}
	return h.Number.Uint64(), nil
}

// at is what a call at a block needs; nil (the latest) and tags need nothing.
func at(block *big.Int) need {
	if block == nil || block.Sign() < 0 {
		return need{}
	}
	return need{block: block.Uint64(), hasBlock: true}
}

// FilterLogs reads logs from an endpoint that has reached the range's end: an endpoint behind
// it might answer without the logs it has not seen yet.
func (p *Pool) FilterLogs(ctx context.Context, q ethereum.FilterQuery) ([]types.Log, error) {
	n := need{byHash: q.BlockHash != nil}
	if q.ToBlock != nil {
		n = at(q.ToBlock)
		if n.hasBlock && n.block > p.highest() {
			if _, err := p.heads(ctx); err != nil {
				return nil, err
			}
		}
		if n.hasBlock && p.noneHas(n.block) {
			return nil, p.outage(n, true, nil, failCall, 0)
		}
	}
	return failover(ctx, p, n, func(c Client) ([]types.Log, error) { return c.FilterLogs(ctx, q) })
}

// noneHas reports whether every endpoint's known head is below block.
func (p *Pool) noneHas(block uint64) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, e := range p.endpoints {
		if e.head >= block {
			return false
		}
	}
	return true
}

// SubscribeFilterLogs subscribes on the healthiest endpoint.
func (p *Pool) SubscribeFilterLogs(ctx context.Context, q ethereum.FilterQuery, ch chan<- types.Log) (ethereum.Subscription, error) {
	return failover(ctx, p, need{}, func(c Client) (ethereum.Subscription, error) { return c.SubscribeFilterLogs(ctx, q, ch) })
}

// SubscribeNewHead subscribes on the healthiest endpoint that can (one reached over WebSocket
// or IPC), failing over to the next when one refuses or fails; an endpoint that fails to
// subscribe is paused as a failed call would pause it. When none can subscribe at all, the error
// matches rpc.ErrNotificationsUnsupported. Heads runs it again when the subscription drops, so
// a failed endpoint's subscription moves to another.
func (p *Pool) SubscribeNewHead(ctx context.Context, ch chan<- *types.Header) (ethereum.Subscription, error) {
	tried := make(map[*endpoint]bool, len(p.endpoints))
	var (
		last   error
		paused bool
	)
	for {
		e, wait, _, _ := p.pick(need{}, tried, false)
		paused = paused || wait > 0
		if e == nil {
			break
		}
		tried[e] = true
		s, ok := e.Client.(HeadSubscriber)
		if !ok {
			continue
		}
		sub, err := s.SubscribeNewHead(ctx, ch)
		if err == nil {
			return sub, nil
		}
		if ctx.Err() != nil {
			return nil, err
		}
		if errors.Is(err, rpc.ErrNotificationsUnsupported) {
			continue
		}
		if kind := classify(err); kind == failThrottled || kind == failDown {
			p.failed(e, kind, err)
		}
		last = err
	}
	switch {
	case last == nil && paused:
		return nil, errors.New("evm: subscribe to new heads: every endpoint that might is paused after failures")
	case last == nil:
		return nil, fmt.Errorf("evm: no endpoint subscribes to new heads: %w", rpc.ErrNotificationsUnsupported)
	}
	return nil, fmt.Errorf("evm: subscribe to new heads: %w", last)
}

func (p *Pool) CodeAt(ctx context.Context, contract common.Address, block *big.Int) ([]byte, error) {
	return failover(ctx, p, at(block), func(c Client) ([]byte, error) { return c.CodeAt(ctx, contract, block) })
}

func (p *Pool) CallContract(ctx context.Context, msg ethereum.CallMsg, block *big.Int) ([]byte, error) {
	return failover(ctx, p, at(block), func(c Client) ([]byte, error) { return c.CallContract(ctx, msg, block) })
}

func (p *Pool) EstimateGas(ctx context.Context, msg ethereum.CallMsg) (uint64, error) {
	return failover(ctx, p, need{}, func(c Client) (uint64, error) { return c.EstimateGas(ctx, msg) })
}

func (p *Pool) SuggestGasPrice(ctx context.Context) (*big.Int, error) {
	return failover(ctx, p, need{}, func(c Client) (*big.Int, error) { return c.SuggestGasPrice(ctx) })
}

func (p *Pool) SuggestGasTipCap(ctx context.Context) (*big.Int, error) {
	return failover(ctx, p, need{}, func(c Client) (*big.Int, error) { return c.SuggestGasTipCap(ctx) })
}

// SendTransaction sends tx through the first endpoint that answers; a transaction is the same
// wherever it enters, so sending it again elsewhere after a failure is safe.
func (p *Pool) SendTransaction(ctx context.Context, tx *types.Transaction) error {
	_, err := failover(ctx, p, need{}, func(c Client) (struct{}, error) { return struct{}{}, c.SendTransaction(ctx, tx) })
	return err
}

// FeeHistory reads eth_feeHistory from an endpoint that has it (go-ethereum's client does): the
// custodial sender prices the next block's base fee from it.
func (p *Pool) FeeHistory(ctx context.Context, blockCount uint64, lastBlock *big.Int, rewardPercentiles []float64) (*ethereum.FeeHistory, error) {
	return failover(ctx, p, at(lastBlock), func(c Client) (*ethereum.FeeHistory, error) {
		r, ok := c.(ethereum.FeeHistoryReader)
		if !ok {
			return nil, fmt.Errorf("evm: fee history: %w", errors.ErrUnsupported)
		}
		return r.FeeHistory(ctx, blockCount, lastBlock, rewardPercentiles)
	})
}

// NonceAt reads an account's nonce at a block (nil: the head) from an endpoint that has reached
// it: the custodial sender tells a dropped transaction from a pending one by it.
func (p *Pool) NonceAt(ctx context.Context, account common.Address, block *big.Int) (uint64, error) {
	return failover(ctx, p, at(block), func(c Client) (uint64, error) {
		r, ok := c.(interface {
			NonceAt(context.Context, common.Address, *big.Int) (uint64, error)
		})
		if !ok {
			return 0, fmt.Errorf("evm: nonce: %w", errors.ErrUnsupported)
		}
		return r.NonceAt(ctx, account, block)
	})
}

func (p *Pool) PendingCodeAt(ctx context.Context, account common.Address) ([]byte, error) {
	return failover(ctx, p, need{}, func(c Client) ([]byte, error) { return c.PendingCodeAt(ctx, account) })
}

func (p *Pool) PendingNonceAt(ctx context.Context, account common.Address) (uint64, error) {
	return failover(ctx, p, need{}, func(c Client) (uint64, error) { return c.PendingNonceAt(ctx, account) })
}

func (p *Pool) ChainID(ctx context.Context) (*big.Int, error) {
	return failover(ctx, p, need{}, func(c Client) (*big.Int, error) { return c.ChainID(ctx) })
}

func (p *Pool) HeaderByHash(ctx context.Context, hash common.Hash) (*types.Header, error) {
	return failover(ctx, p, need{byHash: true}, func(c Client) (*types.Header, error) { return c.HeaderByHash(ctx, hash) })
}

func (p *Pool) BalanceAt(ctx context.Context, account common.Address, block *big.Int) (*big.Int, error) {
	return failover(ctx, p, at(block), func(c Client) (*big.Int, error) { return c.BalanceAt(ctx, account, block) })
}

func (p *Pool) TransactionReceipt(ctx context.Context, hash common.Hash) (*types.Receipt, error) {
	return failover(ctx, p, need{byHash: true}, func(c Client) (*types.Receipt, error) {
		r, err := c.TransactionReceipt(ctx, hash)
		return r, NotYetIndexed(err)
	})
}

// TransactionByHash reads a transaction from the first endpoint that knows it.
func (p *Pool) TransactionByHash(ctx context.Context, hash common.Hash) (*types.Transaction, bool, error) {
	type found struct {
		tx      *types.Transaction
		pending bool
	}
	f, err := failover(ctx, p, need{byHash: true}, func(c Client) (found, error) {
		tx, pending, err := c.TransactionByHash(ctx, hash)
		return found{tx, pending}, NotYetIndexed(err)
	})
	return f.tx, f.pending, err
}

// Check asks every endpoint for its chain id and refuses endpoints of different chains; an
// endpoint that does not answer now is only logged.
func (p *Pool) Check(ctx context.Context) error {
	var first *big.Int
	for _, e := range p.endpoints {
		id, err := e.Client.ChainID(ctx)
		if err != nil {
			p.cfg.Logger.Warn("chain endpoint does not answer yet", "endpoint", e.Name, "err", err)
			continue
		}
		if first == nil {
			first = id
		} else if id.Cmp(first) != 0 {
			return fmt.Errorf("evm: endpoint %s serves chain %s, another chain %s", e.Name, id, first)
		}
	}
	return nil
}
