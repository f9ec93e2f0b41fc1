package orders

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"math"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/holiman/uint256"

	"github.com/curvekit/curvekit"
	"github.com/curvekit/curvekit/market"
	"github.com/curvekit/curvekit/push"
)

// Trader sends the trade of a fire through the account's custodial wallet: everything
// sign-and-submit checks applies (the wallet's guard, simulation). The app implements it with the
// market's build-tx and wallet.Service.SignAndSubmit.
type Trader interface {
	// Trade builds the trade at the quote now, slippage applied, and signs and submits it with
	// p.Key as its idempotency key: called again with the same key it sends nothing and answers
	// the first transaction, even when the chain has moved since (an approval the trade used
	// up is not asked for again). An approval goes first only when the wallet's allowance on
	// chain is short of what a sell spends, under ApproveKey(p.Key, spender); Pending is set
	// then: call again once it is mined. Txs lists the transactions of the fire sent so far,
	// in the order sent, this call's or an earlier one's. A refusal is an error with the root
	// sentinel (and curvekit.Code) that says why.
	Trade(ctx context.Context, p TradeParams) (TradeResult, error)
	// Outcome says what became of a transaction the account's wallet sent: mined (under Hash,
	// the last of its hashes when fees were bumped), reverted or dropped; the zero Outcome
	// while it waits to be mined.
	Outcome(ctx context.Context, p OutcomeParams) (Outcome, error)
}

// OutcomeParams names a fire's transaction: the account's wallet sent it to trade Token.
type OutcomeParams struct {
	AccountID string
	Token     common.Address
	Hash      common.Hash
}

// ErrPlacerGone marks a Trader's refusal that comes from the API key that placed the order: the
// key was revoked since, or its restrictions as they are now (read-only, allowedRecipients)
// refuse the trade. Its fire fails with the refusal's code and the order is cancelled with that
// code as its reason, whatever its kind: nothing more of it fires under a key its owner took back.
var ErrPlacerGone = errors.New("the API key that placed the order may no longer trade for it")

// Outcome is what became of a sent transaction.
type Outcome struct {
	// State is "" while pending, else "mined", "reverted" or "dropped".
	State string
	Hash  common.Hash
	// Trade is the transaction's trade once the indexer has it (mined only): a fire whose
	// trade was indexed before it was recorded as sent (a leader that took over from one that
	// sent it) is filled from it.
	Trade *market.Trade
	// Graduated marks a reverted curve trade whose curve has graduated since: the venue moved
	// under it. A price order fired this way is not spent: it opens again and fires against
	// the pool (a fire of its own, with its own idempotency key).
	Graduated bool
}

// TradeParams is one fire's trade.
type TradeParams struct {
	AccountID string
	// KeyID is the API key that placed the order (empty for a session): its restrictions as
	// they are now apply, and a refusal by them is ErrPlacerGone.
	KeyID  string
	Wallet common.Address
	Token  common.Address
	Side   curvekit.Side
	// Amount is what the trade spends in base units; zero with PercentBps, the share of the
	// wallet's token balance a sell spends.
	Amount      uint256.Int
	PercentBps  uint32
	SlippageBps uint32
	// Key is the fire's id: the idempotency key of its transactions.
	Key string
}

// TradeResult is what Trade sent.
type TradeResult struct {
	// TxHash is the trade's; zero while Pending.
	TxHash  common.Hash
	Pending bool
	// Txs are the fire's transactions sent so far (see Trader.Trade).
	Txs []FireTx
}

// Notifier turns what the orders' store records into the events it causes: a fire triggered,
// sent, filled or failed (f set, o the order after it, with its fires; a fire refused by the key
// that placed it leaves its order cancelled), an order expired or cancelled by its account (f
// nil). The store calls
// OrderEvents inside the step that records the change and commits what it returns with it
// (TriggerParams.Events, SettleParams.Events): the outbox, so that no change is committed
// without its events. Committed is told after such a commit, on the replica that made it; it must
// not block. The push service's source implements it.
type Notifier interface {
	OrderEvents(o *Order, f *Fire) []push.Event
	Committed()
}

// EngineConfig configures an Engine.
type EngineConfig struct {
	Store  Store
	Trader Trader
	// Tokens gives a token's price now when the engine starts leading and when it takes in a
	// new order, so an order placed beyond its trigger fires then (and, without History, a
	// trigger the price passed while no engine was evaluating).
	Tokens Tokens
	// History, when set, rebuilds what the indexer committed after a position. The engine
	// then keeps how far it evaluated (Store.Position) with the fires of each sync, and a
	// leader that takes over first evaluates the trades committed beyond it, in chain order:
	// a leader that stopped between the indexer's commit and its evaluation loses no trade.
	History History
	// Tick is how often the clock fires due time orders, expires orders, picks up orders placed
	// or cancelled, and retries sends; default 1s.
	Tick time.Duration
	// Notifier, when set, builds the events of every fire, its outcome and every expiry, which
	// the store records with them.
	Notifier Notifier
	// Pauses, when set, says when a paused wallet resumes: a price order's fire the pause
	// refused is held until then (see Engine). Without it a held fire is tried again at each
	// tick.
	Pauses Pauses
	// Now is the clock; default time.Now.
	Now    func() time.Time
	Logger *slog.Logger
	// Fault, when set, is called at the engine's fault-injection points, FaultBeforeSend and
	// FaultAfterSend, without the engine's lock held. Only tests set it (the server's hidden
	// --fault flag), to kill or freeze the leader at exactly that point.
	Fault func(point string)
}

// History is the indexer's committed history: market.SyncSince over the market's store.
type History interface {
	// Cursor is the store's cursor: where the indexer's last commit left it.
	Cursor(ctx context.Context) (market.Cursor, error)
	// Since rebuilds what was committed after prev, trades in chain order; market.ErrRewound
	// when prev is no longer on the store's chain.
	Since(ctx context.Context, prev market.Cursor) (market.Sync, error)
}

// The engine's fault-injection points (see EngineConfig.Fault).
const (
	// FaultBeforeSend: a fire is recorded triggered under the leader's term and its trade is
	// not sent yet.
	FaultBeforeSend = "orders.beforeSend"
	// FaultAfterSend: a fire's trade is signed and submitted and not yet recorded as sent.
	FaultAfterSend = "orders.afterSend"
)

// Engine fires orders. Only the indexer's leader runs it: Sync takes each committed sync in
// chain order and Run the clock, both with the leader's term; every fire is recorded under that
// term (Store.Trigger refuses a term that ended) before its trade is sent with the fire's id as
// its idempotency key, so a fire happens once across replicas and crashes.
//
// A paused wallet holds its price orders rather than losing them: a price order's fire refused
// with WALLET_PAUSED stays triggered, unsent, and the engine asks at each tick (Pauses) whether
// the account resumed. Then the order's trigger is checked against the price now: still reached,
// the held fire is sent as it is, under its own id; no longer reached (or the order expired
// meanwhile), the fire fails with WALLET_PAUSED, nothing of it having been sent, and the order
// opens again to wait for its trigger (or expires). A DCA's or TWAP's slice that falls due while
// the wallet is paused is skipped, as a refused slice is, and the schedule goes on.
type Engine struct {
	cfg EngineConfig

	mu     sync.Mutex
	term   uint64 // the term the state below was loaded under; 0 when not leading
	index  *Index
	live   map[string]*Order        // live orders by id
	fires  map[string]*Fire         // fires triggered or sent, by id
	byHash map[common.Hash]string   // sent fires by transaction hash
	tokens map[common.Address]uint8 // decimals of the tokens with live orders
	owner  map[string]string        // account of every order seen, by order id
	seq    uint64
	// pos is the cursor of the last commit evaluated under term (with History).
	pos market.Cursor
	// wake asks Run to send at once what a sync triggered, rather than at the next tick.
	wake chan struct{}
	// held are the fires a paused wallet refused, by id, with their account: not sent until
	// the account resumes.
	held map[string]string

	// sendMu makes one sender at a time. A trade is sent without mu held, so a slow
	// sign-and-submit never holds up the next sync's evaluation; inFlight counts the trades
	// out meanwhile, and seen keeps the trades the syncs indexed in that time, by transaction,
	// so a fire whose transaction was indexed before it was recorded as sent is still filled.
	sendMu   sync.Mutex
	inFlight int
	seen     map[common.Hash]market.Trade
}

// maxSeen bounds the trades kept while a send is in flight.
const maxSeen = 10_000

// NewEngine returns an Engine for cfg.
func NewEngine(cfg EngineConfig) (*Engine, error) {
	if cfg.Store == nil || cfg.Trader == nil || cfg.Tokens == nil {
		return nil, errors.New("orders: the engine needs a Store, a Trader and Tokens")
	}
	if cfg.Tick <= 0 {
		cfg.Tick = time.Second
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	return &Engine{cfg: cfg, wake: make(chan struct{}, 1)}, nil
}

// Leader tells the engine whether this replica leads the indexer, and in which term.
type Leader func() (term uint64, leading bool)

// Run runs the clock until ctx ends: while leader says this replica leads, each tick fires due
// time orders, expires orders, takes in orders placed or cancelled since, and sends what waits.
func (e *Engine) Run(ctx context.Context, leader Leader) {
	t := time.NewTicker(e.cfg.Tick)
	defer t.Stop()
	for {
		if term, ok := leader(); ok {
			if err := e.Tick(ctx, term); err != nil && ctx.Err() == nil {
				e.cfg.Logger.Warn("orders: tick", "term", term, "err", err)
			}
		} else {
			e.drop()
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		case <-e.wake:
		}
	}
}

// drop forgets the loaded state: another replica leads now.
func (e *Engine) drop() {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.term = 0
}

// load makes the engine's state that of the store under term, if it is not already. Callers
// hold mu.
func (e *Engine) load(ctx context.Context, term uint64) error {
	if e.term == term {
		return nil
	}
	e.term = 0
	e.index, e.live, e.fires = NewIndex(), map[string]*Order{}, map[string]*Fire{}
	e.byHash, e.tokens, e.owner = map[common.Hash]string{}, map[common.Address]uint8{}, map[string]string{}
	e.held = map[string]string{}
	pending, err := e.cfg.Store.Fires(ctx, FireTriggered, FireSent)
	if err != nil {
		return err
	}
	for i := range pending {
		f := pending[i]
		e.fires[f.ID] = &f
		if f.State == FireSent {
			e.byHash[f.TxHash] = f.ID
		}
	}
	e.term = term
	if err := e.catchUp(ctx); err != nil {
		e.term = 0
		return err
	}
	// Every order is new to this term: one placed beyond its trigger fires now, and without
	// History so does a trigger the price passed while no engine evaluated.
	return e.refresh(ctx)
}

// catchUp evaluates the trades the indexer committed beyond the stored position, in chain order,
// and moves the position to the store's cursor with their fires. Each order joins the evaluation
// at the first trade of its time (a trade of a block made before the order was placed does not
// fire it). Without a position (the first leader) evaluation starts at the store's cursor. When
// a reorganization took the position's block, the trades from there are not rebuilt: the price
// now is checked, as without History. Callers hold mu and have set term.
func (e *Engine) catchUp(ctx context.Context) error {
	if e.cfg.History == nil {
		return nil
	}
	pos, ok, err := e.cfg.Store.Position(ctx)
	if err != nil {
		return err
	}
	cur, err := e.cfg.History.Cursor(ctx)
	if err != nil {
		return err
	}
	if ok && pos == cur {
		e.pos = pos
		return nil
	}
	var s market.Sync
	if ok {
		s, err = e.cfg.History.Since(ctx, pos)
		if errors.Is(err, market.ErrRewound) {
			e.cfg.Logger.Warn("orders: the evaluated position is gone with a reorganization; evaluating from the store's cursor", "position", pos.Block)
			s, err = market.Sync{Cursor: cur}, nil
		}
		if err != nil {
			return err
		}
	} else {
		s.Cursor = cur
	}
	all, err := e.cfg.Store.Live(ctx) // oldest first
	if err != nil {
		return err
	}
	next := 0
	added := map[common.Address]bool{}
	adopt := func(until int64) {
		for ; next < len(all) && all[next].CreatedAt.Unix() <= until; next++ {
			if e.adopt(&all[next]) {
				added[all[next].Token] = true
			}
		}
	}
	var hits []Hit
	var raised []string
	var at []market.Trade
	if s.Batch != nil {
		for i := range s.Batch.Trades {
			tr := &s.Batch.Trades[i]
			adopt(tr.Time)
			if id, ok := e.byHash[tr.TxHash]; ok {
				e.fill(ctx, id, tr) // a fire the last leader sent, mined and not evaluated
			}
			hits, raised, at = e.evaluate(tr, hits, raised, at)
		}
	}
	adopt(math.MaxInt64)
	// The price now: orders placed after their token's last trade, and beyond their trigger.
	hits, raised = e.priceNow(ctx, added, hits, raised)
	e.pos = s.Cursor
	return e.trigger(ctx, hits, raised, at, &e.pos)
}

// priceNow takes the price now of each token of tokens through the index, appending the hits.
// Callers hold mu.
func (e *Engine) priceNow(ctx context.Context, tokens map[common.Address]bool, hits []Hit, raised []string) ([]Hit, []string) {
	for tok := range tokens {
		t, err := e.cfg.Tokens.Token(ctx, tok)
		if err != nil {
			continue
		}
		price := TokenPrice(&t)
		hits, raised = e.index.Price(tok, &price, hits, raised)
	}
	return hits, raised
}

// adopt takes in a live order the engine did not know: indexed when it is an open price order.
// It reports whether it is one. Callers hold mu.
func (e *Engine) adopt(o *Order) bool {
	e.live[o.ID] = o
	e.tokens[o.Token] = o.Decimals
	e.owner[o.ID] = o.AccountID
	e.seq++
	e.index.Add(o, e.seq)
	return !o.Kind.Timed() && o.State == Open
}

// evaluate takes the price after trade tr through the index, appending the hits with their
// trade. Callers hold mu.
func (e *Engine) evaluate(tr *market.Trade, hits []Hit, raised []string, at []market.Trade) ([]Hit, []string, []market.Trade) {
	decimals, ok := e.tokens[tr.Token]
	if !ok {
		return hits, raised, at
	}
	price := SpotPrice(&tr.ReserveQuote, &tr.ReserveToken, decimals)
	n := len(hits)
	hits, raised = e.index.Price(tr.Token, &price, hits, raised)
	for range len(hits) - n {
		at = append(at, *tr)
	}
	return hits, raised, at
}

// refresh takes in the store's live orders: new ones are indexed and checked against their
// token's price now (an order placed beyond its trigger, a trigger passed while no engine
// evaluated, fire at once), those that ended meanwhile (cancelled) leave the index. Callers hold
// mu and have loaded the term.
func (e *Engine) refresh(ctx context.Context) error {
	all, err := e.cfg.Store.Live(ctx)
	if err != nil {
		return err
	}
	seen := make(map[string]bool, len(all))
	added := map[common.Address]bool{}
	for i := range all {
		o := &all[i]
		seen[o.ID] = true
		if _, ok := e.live[o.ID]; ok {
			continue // the engine's own view of it is ahead of the store's read
		}
		if e.adopt(o) {
			added[o.Token] = true
		}
	}
	for id := range e.live {
		if !seen[id] {
			e.index.Remove(id) // cancelled
			delete(e.live, id)
		}
	}
	hits, raised := e.priceNow(ctx, added, nil, nil)
	return e.trigger(ctx, hits, raised, nil, nil)
}

// Sync evaluates one committed sync of the leader of term: each trade's price after it, in chain
// order, against the price orders of its token (a price that crosses a trigger and comes back
// within the sync fires: the trigger was reached), and each trade of a sent fire's transaction
// as its fill. It returns once the fires are recorded; their trades are sent by Run, off the
// sync's path: a send under way never delays the evaluation of the next sync.
func (e *Engine) Sync(ctx context.Context, term uint64, s market.Sync) error {
	if s.Batch == nil {
		return e.rewind(ctx, term, s.Cursor)
	}
	if len(s.Batch.Trades) == 0 {
		return nil
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if err := e.load(ctx, term); err != nil {
		return err
	}
	var hits []Hit
	var raised []string
	var at []market.Trade // the trade behind each hit
	for i := range s.Batch.Trades {
		tr := &s.Batch.Trades[i]
		if e.cfg.History != nil && tr.Block <= e.pos.Block {
			continue // evaluated by the catch-up that loaded this term
		}
		if id, ok := e.byHash[tr.TxHash]; ok {
			e.fill(ctx, id, tr)
		} else if e.inFlight > 0 && len(e.seen) < maxSeen {
			e.seen[tr.TxHash] = *tr
		}
		hits, raised, at = e.evaluate(tr, hits, raised, at)
	}
	var pos *market.Cursor
	if e.cfg.History != nil && s.Cursor.Block > e.pos.Block {
		e.pos = s.Cursor
		pos = &e.pos
	}
	if err := e.trigger(ctx, hits, raised, at, pos); err != nil {
		return err
	}
	if len(hits) > 0 {
		select {
		case e.wake <- struct{}{}:
		default:
		}
	}
	return nil
}

// rewind moves the evaluated position back to the cursor a rollback left, when it stood beyond:
// the blocks after it are indexed again from the new chain and their trades evaluated (fires of
// the old chain's trades stay).
func (e *Engine) rewind(ctx context.Context, term uint64, to market.Cursor) error {
	if e.cfg.History == nil {
		return nil
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if err := e.load(ctx, term); err != nil {
		return err
	}
	if to.Block >= e.pos.Block {
		return nil
	}
	e.pos = to
	return e.trigger(ctx, nil, nil, nil, &e.pos)
}

// trigger records the fires of hits (at the trades at, when given), the highs raised and the
// evaluated position pos (when set), under the engine's term. Callers hold mu.
func (e *Engine) trigger(ctx context.Context, hits []Hit, raised []string, at []market.Trade, pos *market.Cursor) error {
	if len(hits) == 0 && len(raised) == 0 && pos == nil {
		return nil
	}
	now := e.cfg.Now().UTC()
	p := TriggerParams{Term: e.term, At: now, Position: pos}
	for i, h := range hits {
		o := e.live[h.OrderID]
		if o == nil || o.State != Open {
			continue
		}
		f := Fire{ID: FireID(o.ID, o.Fired), OrderID: o.ID, N: o.Fired, Price: h.Price, CreatedAt: now, UpdatedAt: now}
		if i < len(at) {
			f.Block, f.LogIndex = at[i].Block, at[i].LogIndex
		}
		p.Fires = append(p.Fires, f)
	}
	if len(raised) > 0 {
		p.Highs = make(map[string]uint256.Int, len(raised))
		for _, id := range raised {
			if h, ok := e.index.High(id); ok {
				p.Highs[id] = h
			}
		}
	}
	return e.record(ctx, p)
}

// record stores p and applies what was stored to the engine's view. Callers hold mu.
func (e *Engine) record(ctx context.Context, p TriggerParams) error {
	var built bool
	if len(p.Expire) > 0 || len(p.Fires) > 0 {
		p.Events = e.events(&built)
	}
	stored, err := e.cfg.Store.Trigger(ctx, p)
	if err != nil {
		// The index already let go of the hits: the next sync or tick loads the store again
		// (under a term that ended, another replica does).
		e.term = 0
		return err
	}
	for id, h := range p.Highs {
		if o := e.live[id]; o != nil {
			o.High = h
		}
	}
	e.committed(built)
	for _, id := range p.Expire {
		e.index.Remove(id)
		delete(e.live, id)
	}
	for i := range stored {
		f := stored[i]
		e.fires[f.ID] = &f
		if o := e.live[f.OrderID]; o != nil {
			o.State, o.Fired = Triggered, o.Fired+1
			if next, ok := p.NextAt[o.ID]; ok {
				o.NextAt = next
			}
		}
	}
	return nil
}

// Tick fires the time orders due at the clock's now, expires open orders past their expiry,
// takes in orders placed or cancelled since the last tick, and sends the fires that wait. The
// sends run without the engine's lock, so Sync goes on evaluating meanwhile.
func (e *Engine) Tick(ctx context.Context, term uint64) error {
	e.sendMu.Lock()
	defer e.sendMu.Unlock()
	jobs, err := e.prepare(ctx, term)
	if err != nil {
		return err
	}
	return e.send(ctx, jobs)
}

// prepare does a tick's work under the lock and returns the fires to send.
func (e *Engine) prepare(ctx context.Context, term uint64) ([]sendJob, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if err := e.load(ctx, term); err != nil {
		return nil, err
	}
	if err := e.refresh(ctx); err != nil {
		return nil, err
	}
	if err := e.resume(ctx); err != nil {
		return nil, err
	}
	now := e.cfg.Now().UTC()
	p := TriggerParams{Term: e.term, At: now, NextAt: map[string]time.Time{}}
	for _, o := range e.live {
		if o.State != Open {
			continue
		}
		if !o.ExpiresAt.IsZero() && !o.ExpiresAt.After(now) {
			p.Expire = append(p.Expire, o.ID)
			continue
		}
		if o.Kind.Timed() && o.Fired < o.Count() && !o.NextAt.After(now) {
			p.Fires = append(p.Fires, Fire{ID: FireID(o.ID, o.Fired), OrderID: o.ID, N: o.Fired, CreatedAt: now, UpdatedAt: now})
			p.NextAt[o.ID] = o.DueAt(o.Fired + 1)
		}
	}
	slices.SortFunc(p.Fires, func(a, b Fire) int { return a.CreatedAt.Compare(b.CreatedAt) })
	if len(p.Fires) > 0 || len(p.Expire) > 0 {
		if err := e.record(ctx, p); err != nil {
			return nil, err
		}
	}
	if err := e.follow(ctx); err != nil {
		return nil, err
	}
	return e.pending(ctx)
}

// follow asks what became of every sent fire's transaction: one mined under a new hash (its fees
// were bumped) is matched by that hash from now on; one reverted or dropped fails the fire.
// Callers hold mu.
func (e *Engine) follow(ctx context.Context) error {
	for hash, id := range e.byHash {
		f := e.fires[id]
		if f == nil || f.TxHash != hash {
			continue // a second hash of the same fire
		}
		var token common.Address
		if o := e.live[f.OrderID]; o != nil {
			token = o.Token
		}
		out, err := e.cfg.Trader.Outcome(ctx, OutcomeParams{AccountID: e.owner[f.OrderID], Token: token, Hash: hash})
		if err != nil {
			e.cfg.Logger.Warn("orders: the outcome of a fire's transaction", "fire", id, "err", err)
			continue
		}
		switch out.State {
		case "mined":
			if out.Hash != hash {
				e.byHash[out.Hash] = id
			}
			if out.Trade != nil {
				// Indexed before this engine knew the fire was sent: no sync brings it again.
				if e.fill(ctx, id, out.Trade); e.fires[id] == nil {
					delete(e.byHash, hash)
				}
			}
		case "reverted", "dropped":
			o := e.live[f.OrderID] // nil once cancelled
			next := Failed
			if o != nil && o.Kind.Timed() && o.Fired < o.Count() {
				next = Open
			}
			again := o != nil && !o.Kind.Timed() && out.Graduated
			msg := "the fire's transaction was " + out.State
			if again {
				next = Open
				msg += " on the curve, which graduated under it; the order fires again against the pool"
			}
			code := "TX_" + strings.ToUpper(out.State)
			if err := e.settle(ctx, f, SettleParams{State: FireFailed, Code: code, Error: msg, OrderState: next, Reason: code}); err != nil {
				return err
			}
			delete(e.byHash, hash)
			if o != nil {
				e.moveOrder(o, next)
			}
			if again {
				if err := e.rearm(ctx, o); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// resume releases the held fires of the accounts whose wallet is no longer paused: a fire whose
// order's trigger the price now still reaches stays triggered, to be sent by this tick; any other
// fails with WALLET_PAUSED (it was refused, so nothing of it is on chain) and its order opens
// again, indexed and checked against the price now, or expires with this tick when its time has
// passed. Callers hold mu.
func (e *Engine) resume(ctx context.Context) error {
	if len(e.held) == 0 {
		return nil
	}
	now := e.cfg.Now().UTC()
	paused := map[string]bool{}
	for _, id := range slices.Sorted(maps.Keys(e.held)) {
		account := e.held[id]
		f, o := e.fires[id], (*Order)(nil)
		if f != nil {
			o = e.live[f.OrderID]
		}
		if f == nil || o == nil || f.State != FireTriggered {
			delete(e.held, id) // its order ended (cancelled): pending drops the fire
			continue
		}
		still, asked := paused[account]
		if !asked && e.cfg.Pauses != nil {
			var err error
			if still, err = e.cfg.Pauses.Paused(ctx, account); err != nil {
				e.cfg.Logger.Warn("orders: whether a paused wallet resumed", "fire", id, "err", err)
				still = true
			}
			paused[account] = still
		}
		if still {
			continue
		}
		reached, err := e.reached(ctx, o)
		if err != nil {
			e.cfg.Logger.Warn("orders: the price of a held fire's token", "fire", id, "err", err)
			continue
		}
		delete(e.held, id)
		expired := !o.ExpiresAt.IsZero() && !o.ExpiresAt.After(now)
		if reached && !expired {
			continue // pending sends it
		}
		msg := "held while the wallet was paused; when it resumed the price no longer reached the trigger, and the order waits for it again"
		if expired {
			msg = "held while the wallet was paused, until past the order's expiry"
		}
		code := string(curvekit.CodeWalletPaused)
		if err := e.settle(ctx, f, SettleParams{State: FireFailed, Code: code, Error: msg, OrderState: Open}); err != nil {
			return err
		}
		e.moveOrder(o, Open)
		if !expired {
			if err := e.rearm(ctx, o); err != nil {
				return err
			}
		}
	}
	return nil
}

// reached reports whether the price now of o's token reaches o's trigger (a trailing stop's from
// its stored high). Callers hold mu.
func (e *Engine) reached(ctx context.Context, o *Order) (bool, error) {
	t, err := e.cfg.Tokens.Token(ctx, o.Token)
	if err != nil {
		return false, err
	}
	price := TokenPrice(&t)
	one := *o
	one.State = Open
	x := NewIndex()
	x.Add(&one, 0)
	hits, _ := x.Price(o.Token, &price, nil, nil)
	return len(hits) > 0, nil
}

// rearm indexes a price order that opened again and checks it against its token's price now.
// Callers hold mu.
func (e *Engine) rearm(ctx context.Context, o *Order) error {
	e.seq++
	e.index.Add(o, e.seq)
	hits, raised := e.priceNow(ctx, map[common.Address]bool{o.Token: true}, nil, nil)
	return e.trigger(ctx, hits, raised, nil, nil)
}

// sendJob is one fire to send: a copy of its order as it stood, under the term that loaded it.
type sendJob struct {
	term  uint64
	order Order
	fire  Fire
}

// pending returns the triggered fires to send, in id order; a fire whose order ended
// (cancelled) before it went out is dropped here. Callers hold mu.
func (e *Engine) pending(ctx context.Context) ([]sendJob, error) {
	ids := make([]string, 0, len(e.fires))
	for id, f := range e.fires {
		if f.State == FireTriggered {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	jobs := make([]sendJob, 0, len(ids))
	for _, id := range ids {
		f := e.fires[id]
		o := e.live[f.OrderID]
		if o == nil {
			// The order ended (cancelled) before its fire went out: the fire is dropped.
			if err := e.settle(ctx, f, SettleParams{State: FireFailed, Code: "cancelled", Error: "the order was cancelled before this fire was sent"}); err != nil {
				return nil, err
			}
			delete(e.held, id)
			continue
		}
		if _, ok := e.held[id]; ok {
			continue // its wallet is paused
		}
		jobs = append(jobs, sendJob{term: e.term, order: *o, fire: *f})
	}
	return jobs, nil
}

// send sends the jobs' trades one at a time, each without mu held, and records each outcome
// under mu. Callers hold sendMu.
func (e *Engine) send(ctx context.Context, jobs []sendJob) error {
	for i := range jobs {
		e.mu.Lock()
		e.inFlight++
		if e.seen == nil {
			e.seen = map[common.Hash]market.Trade{}
		}
		e.mu.Unlock()
		e.fault(FaultBeforeSend)
		res, err := e.trade(ctx, &jobs[i].order, &jobs[i].fire)
		if err == nil && !res.Pending {
			e.fault(FaultAfterSend)
		}
		e.mu.Lock()
		serr := e.sent(ctx, &jobs[i], res, err)
		if e.inFlight--; e.inFlight == 0 {
			e.seen = nil
		}
		e.mu.Unlock()
		if serr != nil {
			return serr
		}
	}
	return nil
}

func (e *Engine) fault(point string) {
	if e.cfg.Fault != nil {
		e.cfg.Fault(point)
	}
}

// sent records what became of a job's trade. Callers hold mu.
func (e *Engine) sent(ctx context.Context, j *sendJob, res TradeResult, err error) error {
	f := e.fires[j.fire.ID]
	if e.term != j.term || f == nil || f.State != FireTriggered {
		// The engine let go of the term meanwhile (or took it again and loaded the store
		// afresh): whoever leads now sends the fire again under the same key, which the wallet
		// answers with this transaction.
		return nil
	}
	o := e.live[f.OrderID]
	switch {
	case err == nil && res.Pending:
		// An approval went first; the trade goes on a later tick. The fire lists it now.
		for _, tx := range res.Txs {
			if err := e.recordTx(ctx, f, tx); err != nil {
				return err
			}
		}
		return nil
	case err == nil:
		txs := res.Txs
		if !slices.ContainsFunc(txs, func(t FireTx) bool { return t.Hash == res.TxHash }) {
			txs = append(slices.Clip(txs), FireTx{Kind: TxTrade, Hash: res.TxHash})
		}
		if err := e.settle(ctx, f, SettleParams{State: FireSent, TxHash: res.TxHash, Txs: txs, OrderState: Sent}); err != nil {
			return err
		}
		e.byHash[res.TxHash] = f.ID
		if o != nil {
			o.State = Sent
		}
		if tr, ok := e.seen[res.TxHash]; ok {
			// The sync indexed the trade before the send was recorded.
			e.fill(ctx, f.ID, &tr)
		}
		return nil
	case errors.Is(err, curvekit.ErrUnavailable), errors.Is(err, curvekit.ErrConflict), ctx.Err() != nil:
		// The chain or an earlier attempt with this key is still busy: try again next tick.
		e.cfg.Logger.Warn("orders: fire not sent yet; retrying", "fire", f.ID, "err", err)
		return nil
	case curvekit.CodeOf(err) == curvekit.CodeWalletPaused && o != nil && !o.Kind.Timed() && !errors.Is(err, ErrPlacerGone):
		// The account paused its wallet: the order waits for it to resume (see Engine).
		e.held[f.ID] = o.AccountID
		e.cfg.Logger.Info("orders: fire held while the wallet is paused", "fire", f.ID)
		return nil
	}
	code := string(curvekit.CodeOf(err))
	if code == "" {
		code = "REFUSED"
	}
	next := Failed
	if o != nil && o.Kind.Timed() && o.Fired < o.Count() {
		next = Open // a time order goes on with its next slice
	}
	if errors.Is(err, ErrPlacerGone) {
		next = Cancelled // the key that placed the order can sign no more: nothing more of it fires
	}
	msg := err.Error()
	if err := e.settle(ctx, f, SettleParams{State: FireFailed, Code: code, Error: msg, OrderState: next, Reason: code}); err != nil {
		return err
	}
	if o != nil {
		e.moveOrder(o, next)
	}
	return nil
}

// recordTx adds tx to the transactions of the triggered fire f under the engine's term.
// Callers hold mu.
func (e *Engine) recordTx(ctx context.Context, f *Fire, tx FireTx) error {
	if slices.ContainsFunc(f.Txs, func(t FireTx) bool { return t.Hash == tx.Hash }) {
		return nil
	}
	err := e.cfg.Store.RecordFireTx(ctx, FireTxParams{Term: e.term, FireID: f.ID, Tx: tx, At: e.cfg.Now().UTC()})
	switch {
	case errors.Is(err, market.ErrFenced):
		e.term = 0
		return fmt.Errorf("orders: record a transaction of fire %s: %w", f.ID, err)
	case errors.Is(err, curvekit.ErrConflict):
		return nil // the fire ended meanwhile
	case err != nil:
		return fmt.Errorf("orders: record a transaction of fire %s: %w", f.ID, err)
	}
	f.Txs = append(f.Txs, tx)
	return nil
}

// trade sends the fire's trade. A panic below it fails this fire rather than the leader's
// process, which would stop every other order (and indexing) with it.
func (e *Engine) trade(ctx context.Context, o *Order, f *Fire) (res TradeResult, err error) {
	defer func() {
		if r := recover(); r != nil {
			e.cfg.Logger.Error("orders: the trade of a fire panicked", "fire", f.ID, "panic", r)
			err = fmt.Errorf("the trade could not be composed (an internal error)")
		}
	}()
	return e.cfg.Trader.Trade(ctx, TradeParams{
		AccountID: o.AccountID, KeyID: o.KeyID, Wallet: o.Wallet, Token: o.Token, Side: o.Side, Amount: o.SliceAmount(f.N), PercentBps: o.Percent,
		SlippageBps: o.SlippageBps, Key: f.ID,
	})
}

// fill settles a sent fire whose trade the sync indexed. Callers hold mu.
func (e *Engine) fill(ctx context.Context, id string, tr *market.Trade) {
	f := e.fires[id]
	o := e.live[f.OrderID]
	p := SettleParams{State: FireFilled}
	// What the wallet paid and got: on the curve the indexed amount is net of the fee, which
	// the buyer pays on top and the seller leaves behind; the pool's amounts are what moved.
	quote := tr.QuoteAmount
	if tr.Venue == curvekit.VenueCurve {
		if tr.Side == curvekit.Buy {
			quote.Add(&quote, &tr.Fee)
		} else if quote.Cmp(&tr.Fee) >= 0 {
			quote.Sub(&quote, &tr.Fee)
		}
	}
	if tr.Side == curvekit.Buy {
		p.AmountIn, p.AmountOut = quote, tr.TokenAmount
	} else {
		p.AmountIn, p.AmountOut = tr.TokenAmount, quote
	}
	next := Filled
	if o != nil && o.Kind.Timed() && o.Fired < o.Count() {
		next = Open
	}
	p.OrderState = next
	if err := e.settle(ctx, f, p); err != nil {
		e.cfg.Logger.Warn("orders: record a fill", "fire", id, "err", err)
		return
	}
	delete(e.byHash, tr.TxHash)
	if o != nil {
		e.moveOrder(o, next)
	}
}

// moveOrder applies an order's move to the engine's view. Callers hold mu.
func (e *Engine) moveOrder(o *Order, to State) {
	o.State = to
	if to.Final() {
		e.index.Remove(o.ID)
		delete(e.live, o.ID)
	}
}

// settle records a fire's move under the engine's term. Callers hold mu.
func (e *Engine) settle(ctx context.Context, f *Fire, p SettleParams) error {
	p.Term, p.FireID, p.At = e.term, f.ID, e.cfg.Now().UTC()
	var built bool
	if e.live[f.OrderID] != nil { // a fire dropped with its cancelled order tells nobody
		p.Events = e.events(&built)
	}
	err := e.cfg.Store.SettleFire(ctx, p)
	if err != nil {
		if errors.Is(err, market.ErrFenced) {
			e.term = 0
		}
		if !errors.Is(err, curvekit.ErrConflict) || errors.Is(err, market.ErrFenced) {
			return fmt.Errorf("orders: settle fire %s: %w", f.ID, err)
		}
	}
	f.State = p.State
	if p.TxHash != (common.Hash{}) {
		f.TxHash = p.TxHash
	}
	for _, tx := range p.Txs {
		if !slices.ContainsFunc(f.Txs, func(t FireTx) bool { return t.Hash == tx.Hash }) {
			f.Txs = append(f.Txs, tx)
		}
	}
	e.committed(built && err == nil)
	if f.State == FireFilled || f.State == FireFailed {
		delete(e.fires, f.ID)
	}
	return nil
}

// events is the builder a store step calls for the events of what it records (nil without a
// Notifier); it sets *built when it built any, so that the commit is told.
func (e *Engine) events(built *bool) Events {
	if e.cfg.Notifier == nil {
		return nil
	}
	return func(o *Order, f *Fire) []push.Event {
		evs := e.cfg.Notifier.OrderEvents(o, f)
		if len(evs) > 0 {
			*built = true
		}
		return evs
	}
}

// committed tells the Notifier that a step committed events.
func (e *Engine) committed(built bool) {
	if built && e.cfg.Notifier != nil {
		e.cfg.Notifier.Committed()
	}
}
