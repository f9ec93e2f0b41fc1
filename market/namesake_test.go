package market_test

import (
	"context"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/curvekit/curvekit/adapters/bunstore"
	"github.com/curvekit/curvekit/curve"
	"github.com/curvekit/curvekit/market"
	"github.com/curvekit/curvekit/txbuild"
)

func TestFoldName(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"Demo Ether Token":                   "demo ether token",
		"Demo Ether Token \u202e":            "demo ether token",
		"\u202eDemo\u00a0Ether\tToken\u2066": "demo ether token",
		"DETH":                               "deth",
		"d\u200bE\u200cT\u200dH\u200e\u200f": "deth",
		"\ufeffDETH\u2060\u00ad":             "deth",
		"ＤＥＴＨ":                               "deth",
		"DETH\ufe0f\u034f\u3164":             "deth",
		"DE\x1bTH\u0085\u009b":               "deth",
		"DE\x00TH\xff\xfe":                   "deth",
		"DETH\ufffd":                         "deth",
		"  Moon \u2003\u3000 Cat\u2800 ":     "moon cat",
		"Kelvin \u212a":                      "kelvin k",
		"":                                   "",
		"\u202e\u200b":                       "",
	} {
		if got := market.FoldName(in); got != want {
			t.Errorf("FoldName(%q) = %q, want %q", in, got, want)
		}
	}
}

// tokensCounter counts the store's token listings and name counts.
type tokensCounter struct {
	market.Store
	lists, counts atomic.Int64
}

func (s *tokensCounter) Tokens(ctx context.Context, q market.TokenQuery) (market.TokenPage, error) {
	s.lists.Add(1)
	return s.Store.Tokens(ctx, q)
}

func (s *tokensCounter) CountNames(ctx context.Context, names, symbols []string) (market.NameCounts, error) {
	s.counts.Add(1)
	return s.Store.CountNames(ctx, names, symbols)
}

// namesakeWorld is an empty store on SQLite, a service over it, and a launcher of tokens: each
// launch is one block, applied to the store and handed to the service when it follows the syncs.
type namesakeWorld struct {
	t      *testing.T
	store  *tokensCounter
	svc    *market.Service
	follow bool
	block  uint64
}

func newNamesakeWorld(t *testing.T, follow bool) *namesakeWorld {
	t.Helper()
	ctx := context.Background()
	db, err := bunstore.Open(ctx, bunstore.Config{DSN: filepath.Join(t.TempDir(), "names.db")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if err := db.Market().Bind(ctx, market.ChainInfo{ChainID: 1337}); err != nil {
		t.Fatal(err)
	}
	b, err := txbuild.New(txbuild.Config{ChainID: 1337})
	if err != nil {
		t.Fatal(err)
	}
	w := &namesakeWorld{t: t, store: &tokensCounter{Store: db.Market()}, follow: follow, block: 10}
	w.svc, err = market.NewService(market.ServiceConfig{Store: w.store, Builder: b, Now: func() time.Time { return time.Unix(1_800_000_000, 0) }})
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func (w *namesakeWorld) launch(name, symbol string) common.Address {
	w.t.Helper()
	p, err := curve.DefaultParams(18)
	if err != nil {
		w.t.Fatal(err)
	}
	w.block++
	n := byte(w.block)
	tok := market.Token{
		Address: common.Address{0xaa, n}, Curve: common.Address{0xcc, n}, Creator: common.Address{0xc4},
		Quote: market.Asset{Symbol: "ETH", Decimals: 18}, Name: name, Symbol: symbol, Decimals: 18,
		TotalSupply: p.TokenSupply, Params: p, State: p.Initial(),
		LaunchBlock: w.block, LaunchTx: common.Hash{n}, CreatedAt: int64(1_799_000_000 + w.block),
	}
	b := &market.Batch{Cursor: market.Cursor{Block: w.block, Hash: common.Hash{n}}, Launches: []market.Token{tok}}
	if err := w.store.Apply(context.Background(), b); err != nil {
		w.t.Fatal(err)
	}
	if w.follow {
		w.svc.Observe(market.Sync{Batch: b, Cursor: b.Cursor})
	}
	return tok.Address
}

// namesakes reads every token's namesakes from the list and from the token itself, which agree.
func (w *namesakeWorld) namesakes() map[common.Address]market.Namesakes {
	w.t.Helper()
	ctx := context.Background()
	page, err := w.svc.Tokens(ctx, market.TokenQuery{Limit: market.MaxLimit})
	if err != nil {
		w.t.Fatal(err)
	}
	got := make(map[common.Address]market.Namesakes)
	for _, v := range page.Tokens {
		got[v.Address] = v.Namesakes
		one, err := w.svc.Token(ctx, v.Address)
		if err != nil {
			w.t.Fatal(err)
		}
		if one.Namesakes != v.Namesakes {
			w.t.Errorf("%s: the token says %+v, the list %+v", v.Address, one.Namesakes, v.Namesakes)
		}
	}
	return got
}

func (w *namesakeWorld) want(want map[common.Address]market.Namesakes) {
	w.t.Helper()
	got := w.namesakes()
	for a, n := range want {
		if got[a] != n {
			w.t.Errorf("%s (%d tokens): namesakes %+v, want %+v", a, len(got), got[a], n)
		}
	}
}

// A token whose name or symbol reads like another's, case, bidi controls, zero-width and
// fullwidth characters aside, counts the other as its namesake; a token alone has none. The
// counts follow every launch, whether the service observes the syncs or only reads the store.
func TestNamesakes(t *testing.T) {
	t.Parallel()
	for _, follow := range []bool{true, false} {
		w := newNamesakeWorld(t, follow)
		real := w.launch("Demo Ether Token", "DETH")
		frog := w.launch("Frog", "FROG")
		w.want(map[common.Address]market.Namesakes{real: {}, frog: {}})

		fake := w.launch("Demo Ether Token \u202e", "deth")
		w.want(map[common.Address]market.Namesakes{real: {Name: 1, Symbol: 1}, fake: {Name: 1, Symbol: 1}, frog: {}})

		wide := w.launch("Toad", "ＤＥ\u200bＴＨ")
		w.want(map[common.Address]market.Namesakes{real: {Name: 1, Symbol: 2}, fake: {Name: 1, Symbol: 2}, wide: {Symbol: 2}, frog: {}})

		// The counts come from the store's index of names, not from listing its tokens: one
		// listing per list, none per token. Once counted, a service that follows the syncs
		// answers from memory until a launch of that name or symbol.
		lists, counts := w.store.lists.Load(), w.store.counts.Load()
		w.namesakes()
		if n := w.store.lists.Load() - lists; n != 1 {
			t.Errorf("a list and its tokens' reads listed the store %d times, want 1", n)
		}
		if n := w.store.counts.Load() - counts; follow && n != 0 {
			t.Errorf("a list and its tokens' reads counted names in the store %d times, want 0", n)
		}
		if follow {
			other := w.launch("Toad", "TOAD")
			w.want(map[common.Address]market.Namesakes{wide: {Name: 1, Symbol: 2}, other: {Name: 1}, real: {Name: 1, Symbol: 2}})
		}
	}
}

// A reorganization that removes a launch removes its namesake from the counts.
func TestNamesakesAfterReorg(t *testing.T) {
	t.Parallel()
	w := newNamesakeWorld(t, true)
	real := w.launch("Demo Ether Token", "DETH")
	fork := market.Cursor{Block: w.block, Hash: common.Hash{byte(w.block)}}
	fake := w.launch("DEMO ETHER TOKEN", "DETH\u2066")
	w.want(map[common.Address]market.Namesakes{real: {Name: 1, Symbol: 1}})

	ctx := context.Background()
	if err := w.store.Rollback(ctx, &market.Rollback{To: fork}); err != nil {
		t.Fatal(err)
	}
	w.svc.Observe(market.Sync{Reorged: []common.Address{fake}, Cursor: fork})
	got := w.namesakes()
	if len(got) != 1 || got[real] != (market.Namesakes{}) {
		t.Fatalf("after the reorganization: %+v, want the real token alone without namesakes", got)
	}
}
