package markettest

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/curvekit/curvekit/market"
)

// testCountNames launches tokens whose names and symbols fold alike (market.FoldName) and checks
// the store's counts against the launches: a batch applied twice counts its launches once, a
// rollback takes its launches away, and their launch again counts them again.
func testCountNames(t *testing.T, s market.Store) {
	ctx := context.Background()
	named := func(n int, name, symbol string) market.Token {
		tok := newToken(t, n)
		tok.Name, tok.Symbol, tok.LaunchBlock = name, symbol, 1000+uint64(n/4)
		return tok
	}
	first := &market.Batch{Cursor: market.Cursor{Block: 1000, Hash: hash(kindBlock, 1000)}, Launches: []market.Token{
		named(0, "Demo Ether Token", "DETH"),
		named(1, "demo ether token \u202e", "de\u200bth"),
		named(2, "Frog", "ＤＥＴＨ"),
		named(3, "Frog\x00", "FROG"),
	}}
	apply(t, s, first)
	second := &market.Batch{Cursor: market.Cursor{Block: 1001, Hash: hash(kindBlock, 1001)}, Launches: []market.Token{
		named(4, "DEMO  ETHER\tTOKEN", "TOAD"),
	}}
	apply(t, s, second)
	apply(t, s, second) // again: its launch counts once

	names := []string{"demo ether token", "frog", "toad", "nobody"}
	symbols := []string{"deth", "frog", "toad", "nobody"}
	check := func(when string, want market.NameCounts) {
		t.Helper()
		got, err := s.CountNames(ctx, names, symbols)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range []map[string]int{got.Names, got.Symbols} {
			for k, n := range m {
				if n == 0 {
					delete(m, k)
				}
			}
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s: CountNames (-want +got):\n%s", when, diff)
		}
	}
	check("after the launches", market.NameCounts{
		Names:   map[string]int{"demo ether token": 3, "frog": 2},
		Symbols: map[string]int{"deth": 3, "frog": 1, "toad": 1},
	})
	if got, err := s.CountNames(ctx, nil, nil); err != nil || len(got.Names)+len(got.Symbols) != 0 {
		t.Errorf("CountNames of nothing: %+v, %v", got, err)
	}
	if err := s.Rollback(ctx, &market.Rollback{To: first.Cursor}); err != nil {
		t.Fatal(err)
	}
	check("after a rollback of the last launch", market.NameCounts{
		Names:   map[string]int{"demo ether token": 2, "frog": 2},
		Symbols: map[string]int{"deth": 3, "frog": 1},
	})
	apply(t, s, second)
	check("after the launch again", market.NameCounts{
		Names:   map[string]int{"demo ether token": 3, "frog": 2},
		Symbols: map[string]int{"deth": 3, "frog": 1, "toad": 1},
	})
}
