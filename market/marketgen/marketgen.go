// Package marketgen generates the history of a launchpad of realistic shape, block by block, as
// the batches the indexer would write: launches with the creator's buy in the launch block and
// snipers in the next ones, trades spread over tokens by a Zipf law and over each token's life
// (most tokens quiet after their first day, a few trading to the end), exact curve and pool
// maths from package curve, graduations, and transfers between holders. Everything it emits is
// what market.Store.Apply accepts, so a store is filled through its own port.
//
// The generator is deterministic for a Shape (its Seed included) and lazy: it holds the state of
// the tokens still trading, never the whole history, so a store of millions of tokens and tens of
// millions of trades is filled with bounded memory.
package marketgen

import (
	"container/heap"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"

	"github.com/ethereum/go-ethereum/common"
	"github.com/holiman/uint256"

	"github.com/curvekit/curvekit"
	"github.com/curvekit/curvekit/curve"
	"github.com/curvekit/curvekit/market"
)

// Shape describes the history to generate.
type Shape struct {
	Tokens int // launches over the span
	Trades int // trades over the span, launch buys included (approximately: see Gen.Trades)
	// End is the block time of the last block, Unix seconds; Span (seconds, 10 days when 0) ends
	// there, and BlockTime (seconds, 2 when 0) separates blocks.
	End       int64
	Span      int64
	BlockTime int64
	// Zipf is the exponent of the trades' spread over tokens (1.0 when 0): the token of rank r
	// gets trades in proportion to 1/r^Zipf.
	Zipf float64
	// Quiet is the share of tokens that stop trading within their first day (0.69 when 0).
	Quiet float64
	// Transfers is the number of transfers between holders per trade (0.03 when 0).
	Transfers float64
	Seed      uint64
	// FirstBlock is the number of the first block (1 when 0).
	FirstBlock uint64
}

func (s *Shape) defaults() {
	if s.Span == 0 {
		s.Span = 10 * 86400
	}
	if s.BlockTime == 0 {
		s.BlockTime = 2
	}
	if s.Zipf == 0 {
		s.Zipf = 1.0
	}
	if s.Quiet == 0 {
		s.Quiet = 0.69
	}
	if s.Transfers == 0 {
		s.Transfers = 0.03
	}
	if s.FirstBlock == 0 {
		s.FirstBlock = 1
	}
}

// Address kinds keep the generated addresses of different roles apart (the first byte).
const (
	kindToken byte = 0xa0 + iota
	kindCurve
	kindPool
	kindTrader
	kindTx
	kindBlock
)

// maxSnipers is how many buys follow a launch in its next two blocks, after the creator's own
// buy in the launch block.
const maxSnipers = 3

// Gen generates one Shape's history. Next returns its blocks in order.
type Gen struct {
	shape  Shape
	rng    *rand.Rand
	params curve.Params
	quote  market.Asset

	blocks     int64 // blocks in the span
	block      int64 // index of the next block to emit
	launched   int   // tokens launched so far
	extra      int   // tokens Block launched after the span
	ended      bool  // Block was called: the span ends where it was
	traders    int   // size of the trader pool
	txSeq      uint64
	weights    []float64 // per popularity rank, normalised to sum 1
	rankOf     []int32   // token index -> popularity rank (a permutation)
	pending    tradeHeap // next trade of each token still trading
	live       map[int]*token
	recent     []*token // the last launched tokens, for Block
	trades     int
	transfers  int
	graduated  int
	tradeScale float64 // expected trades per unit weight
}

// token is a launched token that still trades.
type token struct {
	idx      int
	t        market.Token
	times    []int32 // remaining trade blocks, ascending (block indexes)
	holders  map[common.Address]*uint256.Int
	holderLs []common.Address // insertion order, for deterministic picks
}

// New returns a generator of s. It fails on a shape it cannot generate.
func New(s Shape) (*Gen, error) {
	s.defaults()
	if s.Tokens <= 0 || s.Trades < s.Tokens {
		return nil, fmt.Errorf("marketgen: need Tokens > 0 and Trades >= Tokens (got %d, %d)", s.Tokens, s.Trades)
	}
	if s.End == 0 {
		return nil, fmt.Errorf("marketgen: End is required")
	}
	p, err := curve.DefaultParams(18)
	if err != nil {
		return nil, err
	}
	g := &Gen{
		shape: s, rng: rand.New(rand.NewPCG(s.Seed, 0x6d61726b657467)), params: p,
		quote:  market.Asset{Symbol: "ETH", Decimals: 18},
		blocks: s.Span / s.BlockTime, live: map[int]*token{},
	}
	g.traders = max(1000, s.Tokens/2)
	g.weights = make([]float64, s.Tokens)
	var sum float64
	for r := range g.weights {
		g.weights[r] = 1 / math.Pow(float64(r+1), s.Zipf)
		sum += g.weights[r]
	}
	for r := range g.weights {
		g.weights[r] /= sum
	}
	g.rankOf = make([]int32, s.Tokens)
	for i := range g.rankOf {
		g.rankOf[i] = int32(i)
	}
	g.rng.Shuffle(len(g.rankOf), func(i, j int) { g.rankOf[i], g.rankOf[j] = g.rankOf[j], g.rankOf[i] })
	g.tradeScale = float64(s.Trades)
	return g, nil
}

// EndAt returns the End under which a Gen of shape s gives block number block the block time
// t: a history generated again to resume a store an earlier Gen of the same shape filled.
func EndAt(s Shape, block uint64, t int64) int64 {
	s.defaults()
	return t + (s.Span/s.BlockTime-1-int64(block-s.FirstBlock))*s.BlockTime
}

// Blocks is the number of blocks the span holds.
func (g *Gen) Blocks() int64 { return g.blocks }

// Trades, Transfers, Launched and Graduated count what the blocks returned so far hold.
func (g *Gen) Trades() int    { return g.trades }
func (g *Gen) Transfers() int { return g.transfers }
func (g *Gen) Launched() int  { return g.launched }
func (g *Gen) Graduated() int { return g.graduated }

// Done reports whether every block of the span was returned.
func (g *Gen) Done() bool { return g.ended || g.block >= g.blocks }

// BlockTime returns the block time of block index i.
func (g *Gen) blockTime(i int64) int64 {
	return g.shape.End - (g.blocks-1-i)*g.shape.BlockTime
}

// Next returns the batch of the next block, or nil after the last one.
func (g *Gen) Next() *market.Batch {
	if g.Done() {
		return nil
	}
	i := g.block
	g.block++
	num := g.shape.FirstBlock + uint64(i)
	now := g.blockTime(i)
	b := &market.Batch{Cursor: market.Cursor{Block: num, Hash: hashOf(kindBlock, num)}, Time: now}
	bb := blockBuilder{g: g, b: b, num: num, now: now, touched: map[int]*token{}, moved: map[market.HolderKey]*uint256.Int{}}

	// Launches due in this block: token n launches at block floor(n*blocks/Tokens).
	for g.launched < g.shape.Tokens && int64(g.launched)*g.blocks/int64(g.shape.Tokens) <= i {
		bb.launch(g.launched, i)
		g.launched++
	}
	// Trades due in this block.
	for g.pending.Len() > 0 && int64(g.pending[0].block) <= i {
		e := heap.Pop(&g.pending).(tradeDue)
		tk := g.live[e.token]
		bb.trade(tk)
		tk.times = tk.times[1:]
		if len(tk.times) > 0 {
			heap.Push(&g.pending, tradeDue{block: tk.times[0], token: tk.idx})
		} else {
			delete(g.live, tk.idx)
		}
	}
	bb.finish()
	return b
}

// recentTokens is how many of the last launched tokens Block trades.
const recentTokens = 256

// Block returns one more block after the blocks returned so far (its time BlockTime after the
// last one), of the shape a live chain brings: launches new tokens, and trades trades over the
// recently launched tokens and the popular ones, with transfers as the Shape says. It serves to
// time the write of one block against stores of different sizes. Called before the span's end,
// it ends the span there: Next and the batches return nil after it.
func (g *Gen) Block(trades, launches int) *market.Batch {
	g.ended = true
	i := g.block
	g.block++
	num := g.shape.FirstBlock + uint64(i)
	now := g.blockTime(i)
	b := &market.Batch{Cursor: market.Cursor{Block: num, Hash: hashOf(kindBlock, num)}, Time: now}
	bb := blockBuilder{g: g, b: b, num: num, now: now, touched: map[int]*token{}, moved: map[market.HolderKey]*uint256.Int{}}
	for range launches {
		bb.launch(g.shape.Tokens+g.extra, i)
		g.extra++
	}
	for range trades {
		// Half on fresh tokens, half on the busiest of the recent ones (a Zipf pick).
		r := len(g.recent)
		k := r - 1 - g.rng.IntN(r)
		if g.rng.IntN(2) == 0 {
			k = r - 1 - int(math.Pow(float64(r), g.rng.Float64())) + 1
		}
		bb.trade(g.recent[k])
	}
	bb.finish()
	return b
}

// NextSpan returns the batch of the next blocks up to about maxTrades trades (at least one
// block), merged as the indexer writes a span of blocks when it catches up; nil at the end.
func (g *Gen) NextSpan(maxTrades int) *market.Batch {
	return g.span(maxTrades, math.MaxInt)
}

// NextBlocks returns the batch of the next blocks, at most maxBlocks of them, merged as the
// indexer writes them when it catches up (market.IndexerConfig.BatchBlocks); nil at the end.
func (g *Gen) NextBlocks(maxBlocks int) *market.Batch {
	return g.span(math.MaxInt, maxBlocks)
}

func (g *Gen) span(maxTrades, maxBlocks int) *market.Batch {
	out := g.Next()
	if out == nil {
		return nil
	}
	for n := 1; !g.Done() && len(out.Trades) < maxTrades && n < maxBlocks; n++ {
		b := g.Next()
		out.Cursor, out.Time = b.Cursor, b.Time
		out.Launches = append(out.Launches, b.Launches...)
		out.Trades = append(out.Trades, b.Trades...)
		out.Claims = append(out.Claims, b.Claims...)
		out.Updates = append(out.Updates, b.Updates...)
		out.Holdings = append(out.Holdings, b.Holdings...)
	}
	// The later token state and the later balance of each holder pair.
	out.Updates = keepLast(out.Updates, func(t market.Token) market.HolderKey { return market.HolderKey{Token: t.Address} })
	out.Holdings = keepLast(out.Holdings, func(h market.Holding) market.HolderKey {
		return market.HolderKey{Token: h.Token, Holder: h.Holder}
	})
	return out
}

// keepLast keeps only the last element of each key, in the order of their first occurrences.
func keepLast[T any](s []T, key func(T) market.HolderKey) []T {
	at := make(map[market.HolderKey]int, len(s))
	out := s[:0:0]
	for _, v := range s {
		k := key(v)
		if i, ok := at[k]; ok {
			out[i] = v
			continue
		}
		at[k] = len(out)
		out = append(out, v)
	}
	return out
}

// blockBuilder collects one block's events.
type blockBuilder struct {
	g        *Gen
	b        *market.Batch
	num      uint64
	now      int64
	logIndex uint
	touched  map[int]*token
	moved    map[market.HolderKey]*uint256.Int
}

func (bb *blockBuilder) nextTx() common.Hash {
	bb.g.txSeq++
	return hashOf(kindTx, bb.g.txSeq)
}

// launch launches token n in block index i and plans its trades.
func (bb *blockBuilder) launch(n int, i int64) {
	g := bb.g
	addr := addressOf(kindToken, uint64(n))
	creator := g.trader()
	t := market.Token{
		Address: addr, Curve: addressOf(kindCurve, uint64(n)), Creator: creator, Quote: g.quote,
		Name: g.name(n), Symbol: g.symbol(n), URI: fmt.Sprintf("ipfs://gen-%d", n), Decimals: 18,
		TotalSupply: g.params.TokenSupply, Params: g.params, State: g.params.Initial(),
		LaunchBlock: bb.num, LaunchTx: bb.nextTx(), LaunchLog: bb.logIndex, CreatedAt: bb.now,
	}
	bb.logIndex++
	bb.b.Launches = append(bb.b.Launches, t)
	tk := &token{idx: n, t: t, holders: map[common.Address]*uint256.Int{}}
	if len(g.recent) == recentTokens {
		g.recent = g.recent[1:]
	}
	g.recent = append(g.recent, tk)
	tk.credit(t.Curve, &g.params.TokenSupply)
	bb.move(tk, t.Curve)

	// The creator buys in the launch block.
	bb.touched[n] = tk
	bb.buy(tk, creator, g.amount(0.05, 1.0))

	// The rest of its trades: its share of the total by popularity, over its life.
	want := 0 // a token Block launches after the span has no plan
	if n < len(g.rankOf) {
		want = int(math.Round(g.weights[g.rankOf[n]] * g.tradeScale))
	}
	snipers := min(maxSnipers, max(0, want-1))
	rest := max(0, want-1-snipers)
	times := make([]int32, 0, snipers+rest)
	for range snipers {
		times = append(times, int32(i+1+int64(g.rng.IntN(2))))
	}
	quiet := g.rng.Float64() < g.shape.Quiet
	const day = 86400
	dayBlocks := float64(day / g.shape.BlockTime)
	for range rest {
		var age float64
		if quiet || g.rng.Float64() < 0.5 {
			// The first day: most of it in the first hours.
			age = math.Min(g.rng.ExpFloat64()*dayBlocks/12, dayBlocks)
		} else {
			age = dayBlocks + g.rng.Float64()*float64(g.blocks)
		}
		at := i + 1 + int64(age)
		if at >= g.blocks {
			at = i + 1 + g.rng.Int64N(max(1, g.blocks-i-1))
		}
		if at < g.blocks {
			times = append(times, int32(at))
		}
	}
	slices.Sort(times)
	for len(times) > 0 && int64(times[len(times)-1]) >= g.blocks {
		times = times[:len(times)-1]
	}
	if len(times) > 0 {
		tk.times = times
		g.live[n] = tk
		heap.Push(&g.pending, tradeDue{block: times[0], token: n})
	}
}

// trade makes one trade (and now and then a transfer) on tk.
func (bb *blockBuilder) trade(tk *token) {
	g := bb.g
	bb.touched[tk.idx] = tk
	sniping := bb.num <= tk.t.LaunchBlock+2
	if seller, bal := tk.pickHolder(g.rng); bal != nil && !sniping && g.rng.Float64() < 0.4 {
		var amt uint256.Int
		amt.Mul(bal, uint256.NewInt(uint64(10+g.rng.IntN(91))))
		amt.Div(&amt, uint256.NewInt(100))
		if !amt.IsZero() && bb.sell(tk, seller, &amt) {
			bb.maybeTransfer(tk)
			return
		}
	}
	bb.buy(tk, g.trader(), g.amount(0.005, 2.0))
	bb.maybeTransfer(tk)
}

func (bb *blockBuilder) maybeTransfer(tk *token) {
	g := bb.g
	if g.rng.Float64() >= g.shape.Transfers {
		return
	}
	from, bal := tk.pickHolder(g.rng)
	if bal == nil {
		return
	}
	var amt uint256.Int
	amt.Rsh(bal, 1)
	if amt.IsZero() {
		return
	}
	to := g.trader()
	tk.debit(from, &amt)
	tk.credit(to, &amt)
	bb.move(tk, from)
	bb.move(tk, to)
	g.transfers++
}

// buy buys for in on tk's venue; it reports whether a trade happened.
func (bb *blockBuilder) buy(tk *token, trader common.Address, in *uint256.Int) bool {
	t := &tk.t
	tr := market.Trade{Trader: trader, Recipient: trader, Side: curvekit.Buy}
	if !t.State.Graduated {
		q, err := curve.QuoteBuy(&t.Params, &t.State, in)
		if err != nil {
			return false
		}
		tr.Venue = curvekit.VenueCurve
		tr.QuoteAmount, tr.TokenAmount, tr.Fee, tr.CreatorFee, tr.Refund = q.Net, q.TokensOut, q.Fee, q.CreatorFee, q.Refund
		tr.ReserveQuote, tr.ReserveToken = q.Traded.VirtualQuote, q.Traded.VirtualToken
		tk.debit(t.Curve, &q.TokensOut)
		tk.credit(trader, &q.TokensOut)
		bb.move(tk, t.Curve)
		bb.move(tk, trader)
		t.State = q.Traded
		if !bb.emit(tk, &tr) {
			return false
		}
		if q.Graduates {
			bb.graduate(tk, &q)
		}
		return true
	}
	pool := curve.Pool{ReserveQuote: t.PoolReserveQuote, ReserveToken: t.PoolReserveToken, FeeBps: t.PoolFeeBps}
	w, err := pool.QuoteBuy(in)
	if err != nil {
		return false
	}
	tr.Venue = curvekit.VenuePool
	tr.QuoteAmount, tr.TokenAmount = w.In, w.Out
	tr.Fee.Mul(in, uint256.NewInt(uint64(t.PoolFeeBps)))
	tr.Fee.Div(&tr.Fee, uint256.NewInt(curve.BPS))
	t.PoolReserveQuote, t.PoolReserveToken = w.After.ReserveQuote, w.After.ReserveToken
	tr.ReserveQuote, tr.ReserveToken = t.PoolReserveQuote, t.PoolReserveToken
	tk.debit(t.Pool, &w.Out)
	tk.credit(trader, &w.Out)
	bb.move(tk, t.Pool)
	bb.move(tk, trader)
	return bb.emit(tk, &tr)
}

// sell sells amt of seller's tokens on tk's venue; it reports whether a trade happened.
func (bb *blockBuilder) sell(tk *token, seller common.Address, amt *uint256.Int) bool {
	t := &tk.t
	tr := market.Trade{Trader: seller, Recipient: seller, Side: curvekit.Sell, TokenAmount: *amt}
	if !t.State.Graduated {
		q, err := curve.QuoteSell(&t.Params, &t.State, amt)
		if err != nil {
			return false
		}
		tr.Venue = curvekit.VenueCurve
		tr.QuoteAmount, tr.Fee, tr.CreatorFee = q.Gross, q.Fee, q.CreatorFee
		tr.ReserveQuote, tr.ReserveToken = q.After.VirtualQuote, q.After.VirtualToken
		t.State = q.After
		tk.debit(seller, amt)
		tk.credit(t.Curve, amt)
		bb.move(tk, seller)
		bb.move(tk, t.Curve)
		return bb.emit(tk, &tr)
	}
	pool := curve.Pool{ReserveQuote: t.PoolReserveQuote, ReserveToken: t.PoolReserveToken, FeeBps: t.PoolFeeBps}
	w, err := pool.QuoteSell(amt)
	if err != nil {
		return false
	}
	tr.Venue = curvekit.VenuePool
	tr.QuoteAmount = w.Out
	tr.Fee.Mul(&w.Out, uint256.NewInt(uint64(t.PoolFeeBps)))
	tr.Fee.Div(&tr.Fee, uint256.NewInt(uint64(curve.BPS-t.PoolFeeBps)))
	t.PoolReserveQuote, t.PoolReserveToken = w.After.ReserveQuote, w.After.ReserveToken
	tr.ReserveQuote, tr.ReserveToken = t.PoolReserveQuote, t.PoolReserveToken
	tk.debit(seller, amt)
	tk.credit(t.Pool, amt)
	bb.move(tk, seller)
	bb.move(tk, t.Pool)
	return bb.emit(tk, &tr)
}

// emit completes tr and adds it to the block.
func (bb *blockBuilder) emit(tk *token, tr *market.Trade) bool {
	if err := tr.SetPrice(tk.t.Decimals); err != nil {
		return false
	}
	tr.Token, tr.Block, tr.BlockHash, tr.Time = tk.t.Address, bb.num, bb.b.Cursor.Hash, bb.now
	tr.TxHash, tr.LogIndex = bb.nextTx(), bb.logIndex
	bb.logIndex++
	tk.t.LastTradeAt = bb.now
	bb.b.Trades = append(bb.b.Trades, *tr)
	bb.g.trades++
	return true
}

// graduate moves tk's curve into its pool after the crossing buy q.
func (bb *blockBuilder) graduate(tk *token, q *curve.Buy) {
	t := &tk.t
	bal := tk.balance(t.Curve)
	gr, err := t.Params.Graduate(&q.Traded, bal)
	if err != nil {
		gr = q.Graduation
	}
	pool := gr.Pool(curve.DefaultPoolFeeBps)
	t.State = q.After
	t.Pool = addressOf(kindPool, uint64(tk.idx))
	t.PoolFeeBps = pool.FeeBps
	t.PoolReserveQuote, t.PoolReserveToken = pool.ReserveQuote, pool.ReserveToken
	t.GraduatedAt = bb.now
	t.TotalSupply.Sub(&t.TotalSupply, &gr.Burned)
	tk.debit(t.Curve, bal.Clone())
	tk.credit(t.Pool, &gr.PoolToken)
	bb.move(tk, t.Curve)
	bb.move(tk, t.Pool)
	bb.g.graduated++
}

// move records that a holder's balance of tk changed in this block.
func (bb *blockBuilder) move(tk *token, holder common.Address) {
	bb.moved[market.HolderKey{Token: tk.t.Address, Holder: holder}] = tk.balance(holder)
}

// finish writes the block's token states and balances in a deterministic order.
func (bb *blockBuilder) finish() {
	ids := make([]int, 0, len(bb.touched))
	for id := range bb.touched {
		ids = append(ids, id)
	}
	sort.Ints(ids)
	for _, id := range ids {
		bb.b.Updates = append(bb.b.Updates, bb.touched[id].t)
	}
	for k, bal := range bb.moved {
		bb.b.Holdings = append(bb.b.Holdings, market.Holding{Token: k.Token, Holder: k.Holder, Balance: *bal, Block: bb.num})
	}
	sort.Slice(bb.b.Holdings, func(i, j int) bool {
		a, b := bb.b.Holdings[i], bb.b.Holdings[j]
		if c := a.Token.Cmp(b.Token); c != 0 {
			return c < 0
		}
		return a.Holder.Cmp(b.Holder) < 0
	})
}

func (tk *token) balance(h common.Address) *uint256.Int {
	if b, ok := tk.holders[h]; ok {
		return b
	}
	b := new(uint256.Int)
	tk.holders[h] = b
	tk.holderLs = append(tk.holderLs, h)
	return b
}

func (tk *token) credit(h common.Address, amt *uint256.Int) {
	b := tk.balance(h)
	b.Add(b, amt)
}

func (tk *token) debit(h common.Address, amt *uint256.Int) {
	b := tk.balance(h)
	if b.Lt(amt) {
		panic(fmt.Sprintf("marketgen: %s holds %s of %s, debited %s", h, b, tk.t.Address, amt))
	}
	b.Sub(b, amt)
}

// pickHolder returns a random trader holding tk (not its curve or pool), or a nil balance.
func (tk *token) pickHolder(rng *rand.Rand) (common.Address, *uint256.Int) {
	n := len(tk.holderLs)
	for range 4 {
		if n == 0 {
			break
		}
		h := tk.holderLs[rng.IntN(n)]
		if h == tk.t.Curve || h == tk.t.Pool {
			continue
		}
		if b := tk.holders[h]; !b.IsZero() {
			return h, b
		}
	}
	return common.Address{}, nil
}

// trader picks a trader from the pool, the busiest most often (a Zipf law over the pool).
func (g *Gen) trader() common.Address {
	u := g.rng.Float64()
	n := uint64(math.Pow(float64(g.traders), u)) // log-uniform: rank r with weight ~1/r
	return addressOf(kindTrader, n)
}

// amount returns a log-uniform amount of the pairing asset between lo and hi whole units.
func (g *Gen) amount(lo, hi float64) *uint256.Int {
	v := lo * math.Pow(hi/lo, g.rng.Float64())
	wei := uint64(v * 1e9)
	z := uint256.NewInt(wei)
	return z.Mul(z, uint256.NewInt(1e9))
}

var words = []string{
	"Pepe", "Doge", "Moon", "Frog", "Cat", "Based", "Giga", "Chad", "Wojak", "Shiba", "Bonk", "Turbo",
	"Degen", "Rocket", "Lambo", "Ape", "Banana", "Pixel", "Laser", "Neko", "Bear", "Bull", "Whale",
	"Sun", "Zen", "Meme", "Gold", "Ruby", "Duck", "Kong", "Ninja", "Pump", "Hodl", "Wen", "Gm",
}

func (g *Gen) name(n int) string {
	return fmt.Sprintf("%s %s %d", words[n%len(words)], words[(n/len(words))%len(words)], n)
}

func (g *Gen) symbol(n int) string {
	// Symbols repeat, as on every launchpad: many tokens share the popular ones.
	w := words[(n*7)%len(words)]
	if n%3 == 0 {
		return fmt.Sprintf("%.4s%d", w, n%1000)
	}
	return w
}

func addressOf(kind byte, n uint64) common.Address {
	var a common.Address
	a[0] = kind
	binary.BigEndian.PutUint64(a[12:], n)
	return a
}

func hashOf(kind byte, n uint64) common.Hash {
	var h common.Hash
	h[0] = kind
	binary.BigEndian.PutUint64(h[24:], n)
	return h
}

// tradeDue is a token's next trade block.
type tradeDue struct {
	block int32
	token int
}

type tradeHeap []tradeDue

func (h tradeHeap) Len() int { return len(h) }
func (h tradeHeap) Less(i, j int) bool {
	if h[i].block != h[j].block {
		return h[i].block < h[j].block
	}
	return h[i].token < h[j].token
}
func (h tradeHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *tradeHeap) Push(x any)   { *h = append(*h, x.(tradeDue)) }
func (h *tradeHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
