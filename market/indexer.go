package market

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"sort"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/holiman/uint256"

	"github.com/curvekit/curvekit"
	"github.com/curvekit/curvekit/curve"
)

// IndexerConfig configures an Indexer.
type IndexerConfig struct {
	Chain Chain
	Store Store
	// StartBlock is where indexing begins on an empty store (the factory's deployment block).
	StartBlock uint64
	// BatchBlocks is the most blocks one Apply covers; default 2,000.
	BatchBlocks uint64
	// Confirmations is how many blocks the indexer stays behind the head: 0 indexes the head
	// itself (the devnet), a few on a chain whose recent blocks may still be replaced. Deeper
	// reorganizations are handled too (see Sync); confirmations only make them rarer.
	Confirmations uint64
	// PollInterval is how often Run looks for new blocks; default 1s. With Wake it is the
	// fallback that covers the heads a dropped subscription never delivered.
	PollInterval time.Duration
	// Wake, when set, starts a Sync at once on every receive, between polls: the chain adapter
	// sends on it when the node announces a new head. A wake-up only says "look now": Sync
	// always continues from the store's cursor, so a head heard twice, late or never neither
	// skips nor repeats a block.
	Wake <-chan struct{}
	// ResetOnChainChange lets the indexer wipe a store that indexes another chain instead of
	// refusing it: one whose chain id, genesis or factory differ, and also one none of whose
	// recorded blocks is on the chain (a development chain started anew with the same genesis,
	// such as a devnet whose directory was deleted). NewIndexer checks both, so nothing of the
	// old chain is served once it returns. The devnet sets it; on a public chain a reorganization
	// deeper than the recorded blocks is an error instead.
	ResetOnChainChange bool
	// OnSync, when set, is called after every Apply that wrote something, with what it wrote.
	OnSync func(Sync)
	// ProgressInterval is how often Sync logs a progress line at info level (blocks and trades
	// indexed since the previous line, head, lag) and, while syncs keep failing, a reminder at
	// error level; default 30s.
	ProgressInterval time.Duration
	// Now is the clock of Status and of the progress lines; default time.Now.
	Now    func() time.Time
	Logger *slog.Logger
}

func (c *IndexerConfig) validate() error {
	if c.Chain == nil || c.Store == nil {
		return errors.New("market: indexer needs a Chain and a Store")
	}
	if c.BatchBlocks == 0 {
		c.BatchBlocks = 2_000
	}
	if c.PollInterval <= 0 {
		c.PollInterval = time.Second
	}
	if c.ProgressInterval <= 0 {
		c.ProgressInterval = 30 * time.Second
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	return nil
}

// Sync tells live consumers (the streams) what the indexer just did to the store. It is
// delivered after the store committed it, so a consumer that reads the store sees at least this.
type Sync struct {
	// Batch is what one Apply wrote; nil for a rollback.
	Batch *Batch
	// Reorged lists the tokens whose stored history a chain reorganization rewrote: their
	// trades after Cursor were removed and will be indexed again from the new chain. Streams of
	// these tokens must send reset and rebuild from the store.
	Reorged []common.Address
	// Cursor is the store's cursor after this step.
	Cursor Cursor
	// Rewound: a replica following the store (Follower) found it rolled back below where it
	// had followed, without knowing which tokens the reorganization rewrote. Consumers drop
	// everything they derived (every stream resets) and rebuild from the store.
	Rewound bool
}

// Indexer follows the chain from the store's cursor and writes launches, trades, graduations and
// fee claims through Store.Apply, one batch of blocks per transaction. A crash at any point leaves
// the store at the previous batch; the next run applies the batch again, which changes nothing
// that was already written.
type Indexer struct {
	cfg  IndexerConfig
	info ChainInfo

	mu sync.Mutex // serializes Sync; guards tokens and progress
	// tokens caches the state of every known token by address; curves and pools map emitters
	// back to their token.
	tokens   map[common.Address]*Token
	curves   map[common.Address]common.Address
	pools    map[common.Address]common.Address
	progress progress

	// statusMu guards status alone and is never held across a chain or store call, so Status
	// answers at once while a Sync runs.
	statusMu sync.Mutex
	status   IndexerStatus
}

// IndexerStatus is how well the indexer follows the chain, for readiness checks, metrics and
// progress lines. Lag is computed from the head the last Sync saw, so a chain that stopped
// answering shows up in Failures and LastErr, not in Lag.
type IndexerStatus struct {
	// Head is the newest block the chain reported to the last Sync that read it; 0 before.
	Head uint64
	// Indexed is the last block committed to the store (the store's cursor).
	Indexed uint64
	// Lag is how many blocks Indexed trails Head, confirmations included.
	Lag uint64
	// LastSync is when a Sync last succeeded; zero before the first.
	LastSync time.Time
	// LastErr and LastErrAt are the last failed Sync's error and time. They stay after a
	// success: Failures tells whether the indexer is failing now.
	LastErr   error
	LastErrAt time.Time
	// Failures counts the Syncs that failed in a row; 0 once one succeeds. FailingSince is
	// when the first of them failed; zero while the indexer is not failing.
	Failures     int
	FailingSince time.Time
	// Throttled: the last Sync failed because the chain's provider refuses calls at this rate
	// for now (curvekit.ErrThrottled); the indexer backs off and retries.
	Throttled bool
	// Blocks and Trades count what this Indexer indexed since it was made; Resets how often it
	// started the store afresh because the chain under it was another one.
	Blocks, Trades uint64
	Resets         int
}

// Status returns the indexer's status. It is cheap and safe for concurrent use.
func (ix *Indexer) Status() IndexerStatus {
	ix.statusMu.Lock()
	defer ix.statusMu.Unlock()
	st := ix.status
	if st.Head > st.Indexed {
		st.Lag = st.Head - st.Indexed
	}
	return st
}

// Check says whether the indexer serves current data: nil when its last Sync succeeded and
// left it at most maxLag blocks behind the head, else an error whose message is Reason and, for
// a failing indexer, the last error.
func (s IndexerStatus) Check(maxLag uint64) error {
	switch {
	case s.Failures > 0:
		return fmt.Errorf("%s: %v", s.Reason(), s.LastErr)
	case s.LastSync.IsZero() || s.Lag > maxLag:
		return errors.New(s.Reason())
	}
	return nil
}

// Reason says in words fit for a readiness probe how the indexer follows the chain: throttled or
// failing since the first failure of the current run, not synced yet, or how far behind the
// head it is. It names no error (an error may carry the node's URL).
func (s IndexerStatus) Reason() string {
	switch {
	case s.Failures > 0 && s.Throttled:
		return fmt.Sprintf("indexer throttled by the chain's provider since %s (%d attempts)", s.FailingSince.UTC().Format(time.RFC3339), s.Failures)
	case s.Failures > 0:
		return fmt.Sprintf("indexer failing since %s (%d attempts)", s.FailingSince.UTC().Format(time.RFC3339), s.Failures)
	case s.LastSync.IsZero():
		return "indexer has not synced yet"
	}
	return fmt.Sprintf("indexer is %d blocks behind the head (block %d of %d)", s.Lag, s.Indexed, s.Head)
}

func (ix *Indexer) updateStatus(f func(*IndexerStatus)) {
	ix.statusMu.Lock()
	defer ix.statusMu.Unlock()
	f(&ix.status)
}

// progress is what the progress lines have said so far.
type progress struct {
	started        bool      // the first successful Sync was logged
	at             time.Time // the last progress line
	blocks, trades uint64    // Status counters at that line
	failedAt       time.Time // the last line about failing syncs
}

// NewIndexer checks the chain binding of the store and loads the known tokens. With
// ResetOnChainChange it also checks that the chain still holds the store's cursor, and starts the
// store afresh when it holds none of the blocks the store recorded.
func NewIndexer(ctx context.Context, cfg IndexerConfig) (*Indexer, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	info, err := cfg.Chain.Info(ctx)
	if err != nil {
		return nil, fmt.Errorf("market: read chain identity: %w", err)
	}
	ix := &Indexer{cfg: cfg, info: info}
	if err := cfg.Store.Bind(ctx, info); err != nil {
		if !errors.Is(err, ErrChainMismatch) || !cfg.ResetOnChainChange {
			return nil, fmt.Errorf("market: %w", err)
		}
		if err := ix.reset(ctx, "store indexed another chain; starting afresh", "chainId", info.ChainID, "genesis", info.GenesisHash, "factory", info.Factory); err != nil {
			return nil, err
		}
	}
	if err := ix.load(ctx); err != nil {
		return nil, err
	}
	cur, err := cfg.Store.Cursor(ctx)
	if err != nil {
		return nil, fmt.Errorf("market: read cursor: %w", err)
	}
	ix.status.Indexed = cur.Block
	if cfg.ResetOnChainChange && cur != (Cursor{}) {
		// A development chain started anew keeps its chain id, genesis and factory address:
		// only its blocks tell. Finding out here, before anything is served from the store,
		// also runs an ordinary reorganization's rollback early, which Sync would do anyway.
		if _, err := ix.follow(ctx, cur); err != nil {
			return nil, err
		}
	}
	return ix, nil
}

// reset empties the store and binds it to the chain again, saying so in one log line. The tokens
// it knew are reported as reorganized, so that caches and streams drop them.
func (ix *Indexer) reset(ctx context.Context, msg string, args ...any) error {
	ix.cfg.Logger.Warn(msg, args...)
	if err := ix.cfg.Store.Reset(ctx); err != nil {
		return fmt.Errorf("market: reset store: %w", err)
	}
	if err := ix.cfg.Store.Bind(ctx, ix.info); err != nil {
		return fmt.Errorf("market: %w", err)
	}
	gone := make([]common.Address, 0, len(ix.tokens))
	for a := range ix.tokens {
		gone = append(gone, a)
	}
	sort.Slice(gone, func(i, j int) bool { return gone[i].Cmp(gone[j]) < 0 })
	if err := ix.load(ctx); err != nil {
		return err
	}
	ix.updateStatus(func(s *IndexerStatus) { s.Indexed, s.Resets = 0, s.Resets+1 })
	if ix.cfg.OnSync != nil && len(gone) > 0 {
		ix.cfg.OnSync(Sync{Reorged: gone})
	}
	return nil
}

// load fills the token cache from the store.
func (ix *Indexer) load(ctx context.Context) error {
	ix.tokens = make(map[common.Address]*Token)
	ix.curves = make(map[common.Address]common.Address)
	ix.pools = make(map[common.Address]common.Address)
	q := TokenQuery{Sort: SortNewest, Limit: 100}
	for {
		page, err := ix.cfg.Store.Tokens(ctx, q)
		if err != nil {
			return fmt.Errorf("market: load tokens: %w", err)
		}
		for i := range page.Tokens {
			t := page.Tokens[i]
			ix.remember(&t)
		}
		if page.Next == "" {
			return nil
		}
		q.Cursor = page.Next
	}
}

func (ix *Indexer) remember(t *Token) {
	ix.tokens[t.Address] = t
	ix.curves[t.Curve] = t.Address
	if t.Pool != (common.Address{}) {
		ix.pools[t.Pool] = t.Address
	}
}

// Run syncs until ctx ends, then returns nil: every PollInterval, and at once on each Wake.
// Sync logs its errors (see ProgressInterval); each is retried after a pause that doubles with
// every failure in a row, from PollInterval up to maxRetryPause, jittered so that the replicas of
// a cluster and the provider's other clients do not retry in step. While syncs fail, a Wake does
// not cut the pause short: a new head says nothing about a node that fails.
func (ix *Indexer) Run(ctx context.Context) error {
	t := time.NewTimer(0)
	defer t.Stop()
	for {
		wake := ix.cfg.Wake
		if ix.Status().Failures > 0 {
			wake = nil
		}
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		case <-wake: // the Reset below drops the pending tick (Go 1.23 timers)
		}
		start := time.Now()
		_, _ = ix.Sync(ctx)
		wait := ix.cfg.PollInterval - time.Since(start)
		if f := ix.Status().Failures; f > 0 {
			wait = retryPause(ix.cfg.PollInterval, f)
		}
		t.Reset(max(wait, 0))
	}
}

// maxRetryPause bounds the pause between failed syncs.
const maxRetryPause = 15 * time.Second

// retryPause is the pause after the given number of failed syncs in a row: poll doubled per
// failure, at most maxRetryPause (or poll when that is longer), between half and all of it.
func retryPause(poll time.Duration, failures int) time.Duration {
	d := poll << min(failures-1, 10)
	if limit := max(maxRetryPause, poll); d > limit || d <= 0 {
		d = limit
	}
	return d/2 + rand.N(d/2+1)
}

// Sync indexes every block from the cursor to the head (less the confirmation depth), batch by
// batch, and returns the new cursor. When the chain no longer holds the block at the cursor, a
// reorganization replaced it: Sync first rolls the store back to the last block both chains share
// (see reorg), then indexes the new chain from there.
//
// Sync keeps Status and logs, at a rate set by ProgressInterval: the first success, progress,
// the first failure of a series and reminders while it lasts, and the recovery.
func (ix *Indexer) Sync(ctx context.Context) (Cursor, error) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	cur, err := ix.sync(ctx)
	if ctx.Err() == nil {
		ix.report(err)
	}
	return cur, err
}

func (ix *Indexer) sync(ctx context.Context) (Cursor, error) {
	cur, err := ix.cfg.Store.Cursor(ctx)
	if err != nil {
		return cur, fmt.Errorf("market: read cursor: %w", err)
	}
	if cur, err = ix.follow(ctx, cur); err != nil {
		return cur, err
	}
	head, err := ix.cfg.Chain.Head(ctx)
	if err != nil {
		return cur, fmt.Errorf("market: read head: %w", err)
	}
	ix.updateStatus(func(s *IndexerStatus) { s.Head = head.Number })
	if head.Number < ix.cfg.Confirmations {
		return cur, nil
	}
	target := head.Number - ix.cfg.Confirmations
	next := ix.cfg.StartBlock
	if cur != (Cursor{}) {
		next = cur.Block + 1
	}
	for next <= target {
		to := min(next+ix.cfg.BatchBlocks-1, target)
		c, err := ix.index(ctx, next, to)
		if err != nil {
			return cur, err
		}
		cur, next = c, to+1
	}
	return cur, nil
}

// follow returns cur when the chain still holds it, else the cursor after handling the
// reorganization (or, with ResetOnChainChange, the new chain) that replaced it. A chain whose
// head stands below cur is shorter only when its hashes say so (see behind); else follow waits
// for its node to reach cur again, with an error matching curvekit.ErrUnavailable.
func (ix *Indexer) follow(ctx context.Context, cur Cursor) (Cursor, error) {
	if cur == (Cursor{}) {
		return cur, nil
	}
	b, err := ix.cfg.Chain.Block(ctx, cur.Block)
	switch {
	case errors.Is(err, curvekit.ErrNotFound):
		if err := ix.behind(ctx, cur); err != nil {
			return cur, err
		}
	case err != nil:
		return cur, fmt.Errorf("market: read block %d: %w", cur.Block, err)
	case b.Hash == cur.Hash:
		return cur, nil
	}
	return ix.reorg(ctx, cur)
}

// behind tells a node that has not reached the block at cur (nil: the chain moved back below it,
// to be rolled back) from one that is behind on the chain the store follows (an error matching
// curvekit.ErrUnavailable: wait). A load-balanced provider's head drops back whenever a request
// lands on a backend behind the others, and a node that restarted may stand below its old head for
// a while; neither removed a block. Only hashes tell: the chain moved back when its block at the
// newest cursor the store recorded at or below its head differs from the recorded one. With no
// recorded cursor at or below the head, nothing says that the chain moved back, unless
// ResetOnChainChange lets a development chain started anew be taken for what it most likely is.
func (ix *Indexer) behind(ctx context.Context, cur Cursor) error {
	head, err := ix.cfg.Chain.Head(ctx)
	if err != nil {
		return fmt.Errorf("market: read head: %w", err)
	}
	if head.Number >= cur.Block {
		// Not found a moment ago, yet the head reaches it: answers from nodes at different
		// heights. Ask again later.
		return fmt.Errorf("market: %w: block %d was not found, though the chain node's head is %d; retrying",
			curvekit.ErrUnavailable, cur.Block, head.Number)
	}
	recent, err := ix.cfg.Store.RecentBlocks(ctx, reorgDepth)
	if err != nil {
		return fmt.Errorf("market: read recent blocks: %w", err)
	}
	for _, c := range recent {
		if c.Block > head.Number {
			continue
		}
		same, err := ix.canonical(ctx, c)
		switch {
		case err != nil:
			return err
		case !same:
			return nil
		}
		break
	}
	if ix.cfg.ResetOnChainChange && (len(recent) == 0 || recent[len(recent)-1].Block > head.Number) {
		return nil
	}
	return fmt.Errorf("market: %w: the chain node's head %d is below the indexed block %d on the same chain; waiting for it to catch up",
		curvekit.ErrUnavailable, head.Number, cur.Block)
}

// report records a Sync's outcome in the status and writes the log lines it calls for.
func (ix *Indexer) report(err error) {
	now := ix.cfg.Now()
	var failed int // failures in a row before this success
	ix.updateStatus(func(s *IndexerStatus) {
		if err != nil {
			if s.Failures == 0 {
				s.FailingSince = now
			}
			s.LastErr, s.LastErrAt = err, now
			s.Failures++
			s.Throttled = errors.Is(err, curvekit.ErrThrottled)
			return
		}
		s.LastSync, failed, s.Failures = now, s.Failures, 0
		s.FailingSince, s.Throttled = time.Time{}, false
	})
	st := ix.Status()
	p := &ix.progress
	log := ix.cfg.Logger
	if err != nil {
		if st.Failures == 1 || now.Sub(p.failedAt) >= ix.cfg.ProgressInterval {
			msg := "indexer sync failed"
			if st.Failures > 1 {
				msg = "indexer still failing"
			}
			log.Error(msg, "err", err, "failures", st.Failures, "head", st.Head, "indexed", st.Indexed)
			p.failedAt = now
		}
		return
	}
	if failed > 0 {
		log.Info("indexer recovered", "failures", failed, "head", st.Head, "indexed", st.Indexed, "lag", st.Lag)
	}
	switch {
	case !p.started:
		log.Info("indexer following the chain", "head", st.Head, "indexed", st.Indexed, "lag", st.Lag)
		p.started, p.at, p.blocks, p.trades = true, now, st.Blocks, st.Trades
	case now.Sub(p.at) >= ix.cfg.ProgressInterval:
		log.Info("indexer progress", "blocks", st.Blocks-p.blocks, "trades", st.Trades-p.trades,
			"head", st.Head, "indexed", st.Indexed, "lag", st.Lag, "over", now.Sub(p.at).Round(time.Second))
		p.at, p.blocks, p.trades = now, st.Blocks, st.Trades
	}
}

// canonical reports whether the chain still holds the block at c.
func (ix *Indexer) canonical(ctx context.Context, c Cursor) (bool, error) {
	b, err := ix.cfg.Chain.Block(ctx, c.Block)
	if errors.Is(err, curvekit.ErrNotFound) {
		return false, nil // the new chain is shorter than the old one was
	}
	if err != nil {
		return false, fmt.Errorf("market: read block %d: %w", c.Block, err)
	}
	return b.Hash == c.Hash, nil
}

// reorgDepth is how far back the indexer looks for the block both chains share.
const reorgDepth = 1024

// reorg rolls the store back to the newest recorded cursor that is still on the chain, restoring
// the tokens touched after it to their state at that block (read from the chain), and tells the
// streams which tokens to rebuild. Everything after it is indexed again by the caller.
func (ix *Indexer) reorg(ctx context.Context, stale Cursor) (Cursor, error) {
	recent, err := ix.cfg.Store.RecentBlocks(ctx, reorgDepth)
	if err != nil {
		return Cursor{}, fmt.Errorf("market: read recent blocks: %w", err)
	}
	var to Cursor
	found := false
	for _, c := range recent {
		ok, err := ix.canonical(ctx, c)
		if err != nil {
			return Cursor{}, err
		}
		if ok {
			to, found = c, true
			break
		}
	}
	if !found {
		if ix.cfg.ResetOnChainChange {
			return Cursor{}, ix.reset(ctx, "the chain holds none of the blocks the store recorded: it is a new chain; starting afresh",
				"chainId", ix.info.ChainID, "genesis", ix.info.GenesisHash, "storeBlock", stale.Block, "storeHash", stale.Hash)
		}
		return Cursor{}, fmt.Errorf("market: %w: the chain holds none of the %d blocks it recorded (a reorganization deeper than that, or a new chain with the same genesis); reset the store", ErrChainMismatch, len(recent))
	}
	touched, err := ix.cfg.Store.Touched(ctx, to.Block)
	if err != nil {
		return Cursor{}, fmt.Errorf("market: read touched tokens: %w", err)
	}
	r := &Rollback{To: to}
	for _, addr := range touched {
		t, ok := ix.tokens[addr]
		if !ok || t.LaunchBlock > to.Block {
			continue // launched in a removed block: the rollback deletes it
		}
		st, err := ix.cfg.Chain.StateAt(ctx, *t, to.Block)
		if err != nil {
			return Cursor{}, fmt.Errorf("market: read %s at block %d: %w", addr, to.Block, err)
		}
		if !st.State.Graduated {
			st.GraduatedAt = 0
		}
		r.Tokens = append(r.Tokens, st)
	}
	if r.Holdings, err = ix.holdingsAt(ctx, to); err != nil {
		return Cursor{}, err
	}
	at, err := ix.cfg.Chain.Block(ctx, to.Block)
	if err != nil {
		return Cursor{}, fmt.Errorf("market: read block %d: %w", to.Block, err)
	}
	r.Time = at.Time
	if err := ix.cfg.Store.Rollback(ctx, r); err != nil {
		return Cursor{}, fmt.Errorf("market: roll back to block %d: %w", to.Block, err)
	}
	ix.updateStatus(func(s *IndexerStatus) { s.Indexed = to.Block })
	ix.cfg.Logger.Warn("chain reorganized; rolled back", "oldHead", stale.Block, "oldHash", stale.Hash, "to", to.Block, "toHash", to.Hash,
		"depth", stale.Block-to.Block, "tradesRemoved", r.Removed.Trades, "launchesRemoved", r.Removed.Launches,
		"claimsRemoved", r.Removed.Claims, "tokens", len(touched))
	if err := ix.load(ctx); err != nil {
		return Cursor{}, err
	}
	if ix.cfg.OnSync != nil {
		ix.cfg.OnSync(Sync{Reorged: touched, Cursor: to})
	}
	return to, nil
}

// index builds and applies the batch for blocks [from, to].
func (ix *Indexer) index(ctx context.Context, from, to uint64) (Cursor, error) {
	end, err := ix.cfg.Chain.Block(ctx, to)
	if err != nil {
		return Cursor{}, fmt.Errorf("market: read block %d: %w", to, err)
	}
	events, fresh, err := ix.fetch(ctx, from, to)
	if err != nil {
		return Cursor{}, err
	}
	b, touched, err := ix.fold(events, fresh)
	if err != nil {
		return Cursor{}, err
	}
	b.Cursor = Cursor{Block: end.Number, Hash: end.Hash}
	b.Time = end.Time
	if b.Holdings, err = ix.holdings(ctx, events, fresh); err != nil {
		return Cursor{}, err
	}
	if err := ix.cfg.Store.Apply(ctx, b); err != nil {
		return Cursor{}, fmt.Errorf("market: apply blocks %d-%d: %w", from, to, err)
	}
	for _, t := range touched {
		ix.remember(t)
	}
	ix.updateStatus(func(s *IndexerStatus) {
		s.Indexed = b.Cursor.Block
		s.Blocks += to - from + 1
		s.Trades += uint64(len(b.Trades))
	})
	if ix.cfg.OnSync != nil && (len(b.Launches) > 0 || len(b.Trades) > 0 || len(b.Claims) > 0 || len(b.Holdings) > 0) {
		ix.cfg.OnSync(Sync{Batch: b, Cursor: b.Cursor})
	}
	return b.Cursor, nil
}

// fetch reads the events of [from, to] in four passes: the factory's launches (which add
// curves), the curves' events (which may add pools), the pools' events, then the tokens'
// Transfers. It returns them in
// chain order with the tokens launched in the range.
func (ix *Indexer) fetch(ctx context.Context, from, to uint64) ([]Event, map[common.Address]*Token, error) {
	launches, err := ix.cfg.Chain.Events(ctx, EventQuery{From: from, To: to, Kinds: []EventKind{EventLaunched}, Addresses: []common.Address{ix.info.Factory}})
	if err != nil {
		return nil, nil, fmt.Errorf("market: read launches: %w", err)
	}
	fresh := make(map[common.Address]*Token)
	curves := make([]common.Address, 0, len(ix.curves)+len(launches))
	for c := range ix.curves {
		curves = append(curves, c)
	}
	for _, ev := range launches {
		l := ev.Launched
		info, err := ix.cfg.Chain.Launch(ctx, l.Token)
		if err != nil {
			return nil, nil, fmt.Errorf("market: read launch of %s: %w", l.Token, err)
		}
		fresh[l.Token] = &Token{
			Address: l.Token, Curve: l.Curve, Creator: l.Creator, Quote: info.Quote,
			Name: l.Name, Symbol: l.Symbol, URI: l.URI, Decimals: info.Decimals,
			TotalSupply: info.TotalSupply, Params: info.Params, State: info.Params.Initial(),
			PoolFeeBps: info.PoolFeeBps, LaunchBlock: ev.Block, LaunchTx: ev.TxHash, LaunchLog: ev.LogIndex,
			CreatedAt: ev.Time,
		}
		curves = append(curves, l.Curve)
	}
	events := launches
	if len(curves) > 0 {
		cev, err := ix.cfg.Chain.Events(ctx, EventQuery{From: from, To: to, Kinds: []EventKind{EventTrade, EventGraduated, EventCreatorFeesClaimed}, Addresses: curves})
		if err != nil {
			return nil, nil, fmt.Errorf("market: read curve events: %w", err)
		}
		events = append(events, cev...)
	}
	pools := make([]common.Address, 0, len(ix.pools))
	for p := range ix.pools {
		pools = append(pools, p)
	}
	for _, ev := range events {
		if ev.Kind == EventGraduated {
			pools = append(pools, ev.Graduated.Pool)
		}
	}
	if len(pools) > 0 {
		pev, err := ix.cfg.Chain.Events(ctx, EventQuery{From: from, To: to, Kinds: []EventKind{EventPoolSwap, EventPoolSync}, Addresses: pools})
		if err != nil {
			return nil, nil, fmt.Errorf("market: read pool events: %w", err)
		}
		events = append(events, pev...)
	}
	tev, err := ix.fetchTransfers(ctx, from, to, fresh)
	if err != nil {
		return nil, nil, err
	}
	events = append(events, tev...)
	sort.SliceStable(events, func(i, j int) bool {
		if events[i].Block != events[j].Block {
			return events[i].Block < events[j].Block
		}
		return events[i].LogIndex < events[j].LogIndex
	})
	return events, fresh, nil
}

// fold applies events in chain order to copies of the cached token states and collects the
// batch. The cache itself changes only after the batch is stored.
func (ix *Indexer) fold(events []Event, fresh map[common.Address]*Token) (*Batch, []*Token, error) {
	b := &Batch{}
	work := make(map[common.Address]*Token)
	get := func(addr common.Address) *Token {
		if t, ok := work[addr]; ok {
			return t
		}
		var t Token
		if f, ok := fresh[addr]; ok {
			t = *f
		} else if c, ok := ix.tokens[addr]; ok {
			t = *c
		} else {
			return nil
		}
		work[addr] = &t
		return &t
	}
	curves := make(map[common.Address]common.Address, len(fresh))
	pools := make(map[common.Address]common.Address)
	tokenOfCurve := func(c common.Address) (common.Address, bool) {
		if a, ok := ix.curves[c]; ok {
			return a, true
		}
		a, ok := curves[c]
		return a, ok
	}
	tokenOfPool := func(p common.Address) (common.Address, bool) {
		if a, ok := ix.pools[p]; ok {
			return a, true
		}
		a, ok := pools[p]
		return a, ok
	}
	for _, ev := range events {
		switch ev.Kind {
		case EventLaunched:
			if ev.Address != ix.info.Factory {
				continue
			}
			t := get(ev.Launched.Token)
			if t == nil {
				continue
			}
			curves[t.Curve] = t.Address
			b.Launches = append(b.Launches, *t)
		case EventTrade:
			addr, ok := tokenOfCurve(ev.Address)
			if !ok {
				continue
			}
			t := get(addr)
			tr, err := curveTrade(t, &ev)
			if err != nil {
				return nil, nil, err
			}
			b.Trades = append(b.Trades, tr)
		case EventGraduated:
			addr, ok := tokenOfCurve(ev.Address)
			if !ok {
				continue
			}
			t := get(addr)
			g := ev.Graduated
			t.State.Graduated = true
			t.State.RealQuote.Clear()
			t.State.RealToken.Clear()
			t.Pool = g.Pool
			t.PoolReserveQuote = g.QuoteLiquidity
			t.PoolReserveToken = g.TokenLiquidity
			t.TotalSupply.Sub(&t.TotalSupply, &g.TokensBurned)
			t.GraduatedAt = ev.Time
			pools[g.Pool] = addr
		case EventCreatorFeesClaimed:
			addr, ok := tokenOfCurve(ev.Address)
			if !ok {
				continue
			}
			t := get(addr)
			b.Claims = append(b.Claims, FeeClaim{
				Token: addr, Curve: ev.Address, Creator: ev.Claimed.Creator, Quote: t.Quote.Address,
				Amount: ev.Claimed.Amount, Block: ev.Block, TxHash: ev.TxHash, LogIndex: ev.LogIndex, Time: ev.Time,
			})
		case EventPoolSync:
			addr, ok := tokenOfPool(ev.Address)
			if !ok {
				continue
			}
			t := get(addr)
			quote, token := ix.poolSides(t, &ev.Sync.Reserve0, &ev.Sync.Reserve1)
			t.PoolReserveQuote, t.PoolReserveToken = *quote, *token
		case EventPoolSwap:
			addr, ok := tokenOfPool(ev.Address)
			if !ok {
				continue
			}
			t := get(addr)
			tr, err := ix.poolTrade(t, &ev)
			if err != nil {
				return nil, nil, err
			}
			b.Trades = append(b.Trades, tr)
		}
	}
	touched := make([]*Token, 0, len(work))
	for _, t := range work {
		touched = append(touched, t)
	}
	sort.Slice(touched, func(i, j int) bool { return touched[i].Address.Cmp(touched[j].Address) < 0 })
	for _, t := range touched {
		b.Updates = append(b.Updates, *t)
	}
	return b, touched, nil
}

// curveTrade turns a curve Trade event into a Trade and moves t to the state the event reports.
func curveTrade(t *Token, ev *Event) (Trade, error) {
	e := ev.Trade
	tr := Trade{
		Token: t.Address, Block: ev.Block, BlockHash: ev.BlockHash, TxHash: ev.TxHash, LogIndex: ev.LogIndex,
		Time: ev.Time, Trader: e.Trader, Recipient: e.Recipient, Side: curvekit.Sell, Venue: curvekit.VenueCurve,
		QuoteAmount: e.QuoteAmount, TokenAmount: e.TokenAmount, Fee: e.Fee, CreatorFee: e.CreatorFee,
		Refund: e.Refund, ReserveQuote: e.VirtualQuote, ReserveToken: e.VirtualToken,
	}
	if e.IsBuy {
		tr.Side = curvekit.Buy
	}
	if err := tr.SetPrice(t.Decimals); err != nil {
		return Trade{}, err
	}
	t.State = curve.State{VirtualQuote: e.VirtualQuote, VirtualToken: e.VirtualToken, RealQuote: e.RealQuote, RealToken: e.RealToken, Graduated: t.State.Graduated}
	t.LastTradeAt = ev.Time
	return tr, nil
}

// poolTrade turns a pool Swap into a Trade. The pair emits Sync before Swap, so t's pool
// reserves are already those after the swap.
func (ix *Indexer) poolTrade(t *Token, ev *Event) (Trade, error) {
	s := ev.Swap
	quoteIn, tokenIn := ix.poolSides(t, &s.Amount0In, &s.Amount1In)
	quoteOut, tokenOut := ix.poolSides(t, &s.Amount0Out, &s.Amount1Out)
	tr := Trade{
		Token: t.Address, Block: ev.Block, BlockHash: ev.BlockHash, TxHash: ev.TxHash, LogIndex: ev.LogIndex,
		Time: ev.Time, Trader: s.Origin, Recipient: s.Recipient, Venue: curvekit.VenuePool,
		ReserveQuote: t.PoolReserveQuote, ReserveToken: t.PoolReserveToken,
	}
	var in *uint256.Int
	switch {
	case !quoteIn.IsZero() && !tokenOut.IsZero():
		tr.Side, tr.QuoteAmount, tr.TokenAmount, in = curvekit.Buy, *quoteIn, *tokenOut, quoteIn
	case !tokenIn.IsZero() && !quoteOut.IsZero():
		tr.Side, tr.QuoteAmount, tr.TokenAmount, in = curvekit.Sell, *quoteOut, *tokenIn, tokenIn
	default:
		return Trade{}, fmt.Errorf("market: pool swap %s/%d moves no asset pair", ev.TxHash, ev.LogIndex)
	}
	// The pool's fee valued in the pairing asset (informational): on a buy the part of the input
	// the pool keeps, on a sell the output's worth of the tokens it keeps.
	if tr.Side == curvekit.Buy {
		tr.Fee.Mul(in, uint256.NewInt(uint64(t.PoolFeeBps)))
		tr.Fee.Div(&tr.Fee, uint256.NewInt(curve.BPS))
	} else {
		tr.Fee.Mul(&tr.QuoteAmount, uint256.NewInt(uint64(t.PoolFeeBps)))
		tr.Fee.Div(&tr.Fee, uint256.NewInt(uint64(curve.BPS-t.PoolFeeBps)))
	}
	if err := tr.SetPrice(t.Decimals); err != nil {
		return Trade{}, err
	}
	t.LastTradeAt = ev.Time
	return tr, nil
}

// poolSides orders a pair's (token0, token1) values as (quote, token): a pair sorts its two
// assets by address.
func (ix *Indexer) poolSides(t *Token, v0, v1 *uint256.Int) (quote, token *uint256.Int) {
	if t.Address.Cmp(ix.poolQuote(t)) < 0 {
		return v1, v0
	}
	return v0, v1
}

// poolQuote is the asset a token's pool pairs it with: its pairing asset, or WETH for native ETH.
func (ix *Indexer) poolQuote(t *Token) common.Address {
	if t.Quote.Address == (common.Address{}) {
		return ix.info.WETH
	}
	return t.Quote.Address
}

// SetPrice sets the execution price from QuoteAmount and TokenAmount (see Trade.Price).
func (tr *Trade) SetPrice(decimals uint8) error {
	if tr.TokenAmount.IsZero() {
		return fmt.Errorf("market: trade %s/%d moves no tokens", tr.TxHash, tr.LogIndex)
	}
	var scale uint256.Int
	scale.Exp(uint256.NewInt(10), uint256.NewInt(uint64(decimals)+18))
	if _, over := tr.Price.MulOverflow(&tr.QuoteAmount, &scale); over {
		return fmt.Errorf("market: trade %s/%d price overflows", tr.TxHash, tr.LogIndex)
	}
	tr.Price.Div(&tr.Price, &tr.TokenAmount)
	return nil
}
