package launchtest

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/holiman/uint256"

	"github.com/curvekit/curvekit"
	"github.com/curvekit/curvekit/curve"
	"github.com/curvekit/curvekit/launch"
	"github.com/curvekit/curvekit/market"
)

// Stores is a launch.Store and the market.Store whose tables it reads: the suite writes through
// the indexer's port and reads through launch's.
type Stores struct {
	Launch launch.Store
	Market market.Store
}

// day0 is the suite's first UTC day, a midnight.
const day0 int64 = 1_800_000_000 - 1_800_000_000%86400

func addr(kind byte, n int) common.Address {
	var a common.Address
	a[0] = kind
	binary.BigEndian.PutUint64(a[12:], uint64(n))
	return a
}

func hash(kind byte, n int) common.Hash {
	var h common.Hash
	h[0] = kind
	binary.BigEndian.PutUint64(h[24:], uint64(n))
	return h
}

var (
	eth = market.Asset{Symbol: "ETH", Decimals: 18}
	usd = market.Asset{Address: addr(9, 1), Symbol: "TUSD", Decimals: 6}
)

// fixture is what the suite wrote and what it expects back, summed independently.
type fixture struct {
	tokens  []market.Token
	earned  map[common.Address]*uint256.Int
	claimed map[common.Address]*uint256.Int
	// days sums per (creator, day, quote).
	days map[dayKey]*launch.DayFees
}

type dayKey struct {
	creator common.Address
	day     int64
	quote   common.Address
}

func token(t *testing.T, n int, creator common.Address, quote market.Asset, at int64) market.Token {
	p, err := curve.DefaultParams(quote.Decimals)
	if err != nil {
		t.Fatal(err)
	}
	return market.Token{
		Address: addr(1, n), Curve: addr(2, n), Creator: creator, Quote: quote,
		Name: fmt.Sprintf("Token %d", n), Symbol: fmt.Sprintf("TK%d", n), URI: fmt.Sprintf("ipfs://token-%d", n),
		Decimals: 18, TotalSupply: p.TokenSupply, Params: p, State: p.Initial(),
		LaunchBlock: uint64(100 + n), LaunchTx: hash(3, n), LaunchLog: 1, CreatedAt: at,
	}
}

// seed writes tokens of three creators (ETH- and TUSD-paired), random trades over ten days with
// creator fees up to 2^200 (no integer type of SQL holds their sums), pool trades without
// creator fees, and claims.
func seed(t *testing.T, s market.Store, rng *rand.Rand) *fixture {
	ctx := context.Background()
	f := &fixture{earned: map[common.Address]*uint256.Int{}, claimed: map[common.Address]*uint256.Int{}, days: map[dayKey]*launch.DayFees{}}
	creators := []common.Address{addr(4, 1), addr(4, 2), addr(4, 3)}
	for n := range 6 {
		q := eth
		if n%2 == 1 {
			q = usd
		}
		f.tokens = append(f.tokens, token(t, n, creators[n%3], q, day0+int64(n)*3600))
	}
	if err := s.Apply(ctx, &market.Batch{Cursor: market.Cursor{Block: 110, Hash: hash(5, 110)}, Launches: f.tokens}); err != nil {
		t.Fatalf("Apply launches: %v", err)
	}
	for _, tok := range f.tokens {
		f.earned[tok.Address] = new(uint256.Int)
		f.claimed[tok.Address] = new(uint256.Int)
	}
	add := func(m map[dayKey]*launch.DayFees, tok market.Token, at int64, v *uint256.Int, claim bool) {
		k := dayKey{tok.Creator, at - at%86400, tok.Quote.Address}
		d := m[k]
		if d == nil {
			d = &launch.DayFees{Day: k.day, Quote: tok.Quote}
			m[k] = d
		}
		if claim {
			d.Claimed.Add(&d.Claimed, v)
		} else {
			d.Earned.Add(&d.Earned, v)
		}
	}
	seq, block := 0, uint64(110)
	for range 12 {
		block++
		b := &market.Batch{Cursor: market.Cursor{Block: block, Hash: hash(5, int(block))}}
		at := day0 + int64(block-110)*20_000 // about 4 batches a day
		for range rng.IntN(8) {
			tok := f.tokens[rng.IntN(len(f.tokens))]
			seq++
			var fee uint256.Int
			fee.Lsh(uint256.NewInt(rng.Uint64()), uint(rng.IntN(137)))
			venue := curvekit.VenueCurve
			if rng.IntN(5) == 0 {
				venue, fee = curvekit.VenuePool, uint256.Int{}
			}
			tr := market.Trade{Token: tok.Address, Block: block, BlockHash: b.Cursor.Hash, TxHash: hash(6, seq), LogIndex: uint(seq),
				Time: at + int64(seq%7), Trader: addr(7, seq), Recipient: addr(7, seq), Side: curvekit.Buy, Venue: venue,
				QuoteAmount: *uint256.NewInt(1000), TokenAmount: *uint256.NewInt(1000), Fee: fee, CreatorFee: fee, Price: *uint256.NewInt(1)}
			b.Trades = append(b.Trades, tr)
			f.earned[tok.Address].Add(f.earned[tok.Address], &fee)
			if !fee.IsZero() {
				add(f.days, tok, tr.Time, &fee, false)
			}
		}
		// Sometimes a creator claims all a token has accrued so far.
		if rng.IntN(3) == 0 {
			tok := f.tokens[rng.IntN(len(f.tokens))]
			var amt uint256.Int
			amt.Sub(f.earned[tok.Address], f.claimed[tok.Address])
			for _, tr := range b.Trades {
				if tr.Token == tok.Address {
					amt.Sub(&amt, &tr.CreatorFee) // claimed before this batch's trades
				}
			}
			seq++
			b.Claims = append(b.Claims, market.FeeClaim{Token: tok.Address, Curve: tok.Curve, Creator: tok.Creator, Quote: tok.Quote.Address,
				Amount: amt, Block: block, TxHash: hash(6, seq), LogIndex: uint(seq), Time: at})
			f.claimed[tok.Address].Add(f.claimed[tok.Address], &amt)
			add(f.days, tok, at, &amt, true)
		}
		if err := s.Apply(ctx, b); err != nil {
			t.Fatalf("Apply block %d: %v", block, err)
		}
	}
	return f
}

var cmpOpts = []cmp.Option{cmpopts.EquateEmpty(), cmp.Comparer(func(a, b uint256.Int) bool { return a.Eq(&b) })}

// RunStore runs the conformance suite of launch.Store. newStores returns empty stores on one
// database.
func RunStore(t *testing.T, newStores func(t *testing.T) Stores) {
	ctx := context.Background()

	t.Run("Token", func(t *testing.T) {
		s := newStores(t)
		f := seed(t, s.Market, rand.New(rand.NewPCG(1, 1)))
		for _, tok := range f.tokens {
			got, err := s.Launch.Token(ctx, tok.Address)
			if err != nil {
				t.Fatal(err)
			}
			want := launch.Token{Address: tok.Address, Curve: tok.Curve, Creator: tok.Creator, Quote: tok.Quote,
				Name: tok.Name, Symbol: tok.Symbol, URI: tok.URI, CreatedAt: tok.CreatedAt}
			if d := cmp.Diff(want, got, cmpOpts...); d != "" {
				t.Fatalf("Token (-want +got):\n%s", d)
			}
		}
		if _, err := s.Launch.Token(ctx, addr(1, 999)); !errors.Is(err, curvekit.ErrNotFound) {
			t.Fatalf("unknown token: %v, want ErrNotFound", err)
		}
	})

	t.Run("LaunchTxs", func(t *testing.T) {
		s := newStores(t)
		f := seed(t, s.Market, rand.New(rand.NewPCG(2, 2)))
		for _, c := range []common.Address{addr(4, 1), addr(4, 2), addr(4, 3), addr(4, 9)} {
			for _, since := range []int64{0, day0, day0 + 3600, day0 + 3601, day0 + 5*3600, day0 + 86400} {
				var want []common.Hash // seeded in launch order
				for _, tok := range f.tokens {
					if tok.Creator == c && tok.CreatedAt >= since {
						want = append(want, tok.LaunchTx)
					}
				}
				got, err := s.Launch.LaunchTxs(ctx, c, since)
				if err != nil || !cmp.Equal(want, got) {
					t.Fatalf("LaunchTxs(%s, %d) = %v, %v; want %v", c.Hex(), since, got, err, want)
				}
			}
		}
	})

	t.Run("CreatorFeesExact", func(t *testing.T) {
		for seedN := range uint64(4) {
			s := newStores(t)
			f := seed(t, s.Market, rand.New(rand.NewPCG(3, seedN)))
			for _, c := range []common.Address{addr(4, 1), addr(4, 2), addr(4, 3), addr(4, 9)} {
				var want []launch.TokenFees
				for _, tok := range f.tokens {
					if tok.Creator != c {
						continue
					}
					want = append(want, launch.TokenFees{
						Token: launch.Token{Address: tok.Address, Curve: tok.Curve, Creator: tok.Creator, Quote: tok.Quote,
							Name: tok.Name, Symbol: tok.Symbol, URI: tok.URI, CreatedAt: tok.CreatedAt},
						Earned: *f.earned[tok.Address], Claimed: *f.claimed[tok.Address],
					})
				}
				got, err := s.Launch.CreatorFees(ctx, c)
				if err != nil {
					t.Fatal(err)
				}
				if d := cmp.Diff(want, got, cmpOpts...); d != "" {
					t.Fatalf("CreatorFees(%s) (-want +got):\n%s", c.Hex(), d)
				}
			}
		}
	})

	t.Run("Earnings", func(t *testing.T) {
		s := newStores(t)
		f := seed(t, s.Market, rand.New(rand.NewPCG(4, 4)))
		for _, c := range []common.Address{addr(4, 1), addr(4, 2), addr(4, 3), addr(4, 9)} {
			for _, w := range [][2]int64{{0, day0 + 30*86400}, {day0 + 86400, day0 + 2*86400}, {day0 + 40_000, day0 + 100_000}, {day0, day0}} {
				var want []launch.DayFees
				// Expected: rebuilt from the fixture's trades and claims through the window.
				got, err := s.Launch.Earnings(ctx, launch.EarningsQuery{Creator: c, From: w[0], To: w[1]})
				if err != nil {
					t.Fatal(err)
				}
				if w[0]%86400 == 0 && w[1]%86400 == 0 {
					for day := w[0]; day < w[1]; day += 86400 {
						for _, q := range []market.Asset{eth, usd} {
							if d := f.days[dayKey{c, day, q.Address}]; d != nil {
								want = append(want, *d)
							}
						}
					}
					if diff := cmp.Diff(want, got, cmpOpts...); diff != "" {
						t.Fatalf("Earnings(%s, %v) (-want +got):\n%s", c.Hex(), w, diff)
					}
				}
				for i := 1; i < len(got); i++ {
					if got[i-1].Day > got[i].Day || (got[i-1].Day == got[i].Day && got[i-1].Quote.Address.Cmp(got[i].Quote.Address) >= 0) {
						t.Fatalf("Earnings out of order: %+v", got)
					}
				}
			}
		}
		// A window cut inside a day counts only what happened inside it.
		tok := f.tokens[0]
		got, err := s.Launch.Earnings(ctx, launch.EarningsQuery{Creator: tok.Creator, From: day0 + 20_000, To: day0 + 20_001})
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range got {
			if d.Day != day0 {
				t.Fatalf("window inside day0 returned day %d", d.Day)
			}
		}
	})
}
