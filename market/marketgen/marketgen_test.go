package marketgen

import (
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/google/go-cmp/cmp"
	"github.com/holiman/uint256"

	"github.com/curvekit/curvekit"
	"github.com/curvekit/curvekit/curve"
	"github.com/curvekit/curvekit/market"
)

const end = 1_800_000_000

// TestShape walks a whole small history and checks what every store relies on: blocks in order
// ending at End, each trade's token launched before or in its block, trades whose reserves follow
// the curve and pool maths, balances that add up to each token's supply, and the promised spread.
func TestShape(t *testing.T) {
	g, err := New(Shape{Tokens: 400, Trades: 20_000, End: end, Span: 2 * 86400, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	launched := map[common.Address]market.Token{}
	balances := map[market.HolderKey]uint256.Int{}
	perToken := map[common.Address]int{}
	var last market.Batch
	blocks := 0
	for b := g.Next(); b != nil; b = g.Next() {
		blocks++
		if last.Cursor.Block != 0 && b.Cursor.Block != last.Cursor.Block+1 {
			t.Fatalf("block %d follows %d", b.Cursor.Block, last.Cursor.Block)
		}
		if last.Time != 0 && b.Time != last.Time+2 {
			t.Fatalf("block time %d follows %d", b.Time, last.Time)
		}
		for _, tk := range b.Launches {
			launched[tk.Address] = tk
		}
		for _, tr := range b.Trades {
			tk, ok := launched[tr.Token]
			if !ok {
				t.Fatalf("trade of %s before its launch", tr.Token)
			}
			if tr.Block != b.Cursor.Block || tr.Time != b.Time || tr.TokenAmount.IsZero() || tr.Price.IsZero() {
				t.Fatalf("trade %+v in block %d", tr, b.Cursor.Block)
			}
			if tr.Venue == curvekit.VenueCurve && tr.ReserveToken.Gt(&tk.Params.VirtualToken0) && tr.Side == curvekit.Buy {
				t.Fatalf("a curve buy raised the virtual token reserve: %+v", tr)
			}
			perToken[tr.Token]++
		}
		for _, u := range b.Updates {
			launched[u.Address] = u
		}
		for _, h := range b.Holdings {
			if h.Block != b.Cursor.Block {
				t.Fatalf("holding %+v in block %d", h, b.Cursor.Block)
			}
			balances[market.HolderKey{Token: h.Token, Holder: h.Holder}] = h.Balance
		}
		last = *b
	}
	if last.Time != end || int64(blocks) != g.Blocks() || g.Launched() != 400 {
		t.Fatalf("last block at %d, %d blocks of %d, %d launched", last.Time, blocks, g.Blocks(), g.Launched())
	}
	if g.Trades() < 15_000 || g.Trades() > 21_000 {
		t.Fatalf("%d trades for a shape of 20,000", g.Trades())
	}
	if g.Graduated() == 0 || g.Transfers() == 0 {
		t.Fatalf("%d graduations and %d transfers: the shape has neither", g.Graduated(), g.Transfers())
	}
	// Every token's balances add up to its supply (graduation burns what the pool does not take).
	sums := map[common.Address]*uint256.Int{}
	for k, v := range balances {
		if sums[k.Token] == nil {
			sums[k.Token] = new(uint256.Int)
		}
		sums[k.Token].Add(sums[k.Token], &v)
	}
	for addr, tk := range launched {
		if !sums[addr].Eq(&tk.TotalSupply) {
			t.Fatalf("%s: balances sum to %s, supply %s", addr, sums[addr], &tk.TotalSupply)
		}
		if tk.State.Graduated {
			cb := balances[market.HolderKey{Token: addr, Holder: tk.Curve}]
			pb := balances[market.HolderKey{Token: addr, Holder: tk.Pool}]
			if !cb.IsZero() || !pb.Eq(&tk.PoolReserveToken) {
				t.Fatalf("%s graduated: curve holds %s, pool %s of reserve %s", addr, &cb, &pb, &tk.PoolReserveToken)
			}
		} else {
			want, err := tk.Params.CurveTokenBalance(&tk.State)
			if err != nil {
				t.Fatal(err)
			}
			cb := balances[market.HolderKey{Token: addr, Holder: tk.Curve}]
			if !cb.Eq(&want) {
				t.Fatalf("%s: curve holds %s, its state says %s", addr, &cb, &want)
			}
		}
	}
	// A Zipf spread: the busiest token trades far more than the median one.
	var most int
	for _, n := range perToken {
		most = max(most, n)
	}
	if most < g.Trades()/50 {
		t.Fatalf("the busiest token has %d of %d trades", most, g.Trades())
	}
}

// TestDeterministic: a shape and seed give the same history, and spans merge its blocks.
func TestDeterministic(t *testing.T) {
	shape := Shape{Tokens: 50, Trades: 2_000, End: end, Span: 86400, Seed: 3}
	a, _ := New(shape)
	b, _ := New(shape)
	var trades []market.Trade
	for x := a.Next(); x != nil; x = a.Next() {
		y := b.Next()
		if diff := cmp.Diff(x, y, cmp.Comparer(func(a, b uint256.Int) bool { return a.Eq(&b) }), cmp.AllowUnexported(curve.Params{})); diff != "" {
			t.Fatalf("block %d differs:\n%s", x.Cursor.Block, diff)
		}
		trades = append(trades, x.Trades...)
	}
	c, _ := New(shape)
	var spans []market.Trade
	var lastCursor market.Cursor
	for x := c.NextSpan(300); x != nil; x = c.NextSpan(300) {
		spans = append(spans, x.Trades...)
		lastCursor = x.Cursor
	}
	if len(spans) != len(trades) || lastCursor.Block != uint64(c.Blocks()) {
		t.Fatalf("spans hold %d trades to block %d; blocks %d to block %d", len(spans), lastCursor.Block, len(trades), c.Blocks())
	}
	// A live block after the span: the next block, its launch and its trades.
	live := c.Block(25, 1)
	if live.Cursor.Block != lastCursor.Block+1 || live.Time != end+2 || len(live.Launches) != 1 || len(live.Trades) < 20 {
		t.Fatalf("live block %d at %d: %d launches, %d trades", live.Cursor.Block, live.Time, len(live.Launches), len(live.Trades))
	}
}
