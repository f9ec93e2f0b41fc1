package bunstore_test

import (
	"context"
	"database/sql"
	"encoding/binary"
	"path/filepath"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/holiman/uint256"

	"github.com/curvekit/curvekit"
	"github.com/curvekit/curvekit/adapters/bunstore"
	"github.com/curvekit/curvekit/curve"
	"github.com/curvekit/curvekit/market"
)

// A store whose trades were written before migration 0022 gets their bars when it opens: the
// migration runs on a store of the previous schema (the bars tables dropped, the migration
// forgotten), and the bars then equal those recomputed from the trades, across the pages the
// fill reads a token's trades in.
func TestBarsFilledForAnOlderStore(t *testing.T) {
	t.Parallel()
	testFilledBoth(t, 7, []string{"DROP TABLE candle_bars", "DROP TABLE candle_bars_pending", "DELETE FROM bunstore_migrations WHERE version = 22"},
		[]int64{market.SpanMinute, market.SpanFiveMinutes, market.SpanHour, market.SpanDay})
}

// A store of the schema before migration 0027, with minute bars, gets its hour and day bars when
// it opens: the migration runs on a store whose levels tables are dropped and the migration
// forgotten, and the hours and days then equal those recomputed from the trades, across the
// pages the fill reads a token's minutes in (trades 97 s apart over six days, more minutes than
// a page).
func TestLevelsFilledForAnOlderStore(t *testing.T) {
	t.Parallel()
	testFilledBoth(t, 97, []string{"DROP TABLE candle_levels", "DROP TABLE candle_levels_pending", "DELETE FROM bunstore_migrations WHERE version = 27"},
		[]int64{market.SpanHour, market.SpanDay, market.SpanMinute, market.SpanFiveMinutes})
}

// A store of the schema before migration 0035, with minute, hour and day bars, gets its
// five-minute bars when it opens.
func TestFiveMinuteLevelsFilledForAnOlderStore(t *testing.T) {
	t.Parallel()
	testFilledBoth(t, 41, []string{"DELETE FROM candle_levels WHERE span = 300", "DELETE FROM bunstore_migrations WHERE version = 35"},
		[]int64{market.SpanFiveMinutes, market.SpanHour, market.SpanDay})
}

// testFilledBoth runs testFilled on SQLite and on PostgreSQL.
func testFilledBoth(t *testing.T, step int64, drop []string, spans []int64) {
	t.Run("sqlite", func(t *testing.T) {
		t.Parallel()
		path := filepath.Join(t.TempDir(), "market.db")
		testFilled(t, bunstore.Config{DSN: path}, func(t *testing.T) *sql.DB {
			db, err := sql.Open("sqlite", "file:"+path+"?mode=rw")
			if err != nil {
				t.Fatal(err)
			}
			return db
		}, step, drop, spans)
	})
	t.Run("postgres", func(t *testing.T) {
		t.Parallel()
		dsn := postgresSchema(t)
		testFilled(t, bunstore.Config{DSN: dsn}, func(t *testing.T) *sql.DB { return mustConnector(t, dsn) }, step, drop, spans)
	})
}

// testFilled writes trades step seconds apart to a new store, runs the statements drop on it
// (taking it back to an older schema), opens it again and compares its bars of each span with
// those recomputed from the trades.
func testFilled(t *testing.T, cfg bunstore.Config, raw func(t *testing.T) *sql.DB, step int64, drop []string, spans []int64) {
	ctx := context.Background()
	db, err := bunstore.Open(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	s := db.Market()
	p, err := curve.DefaultParams(18)
	if err != nil {
		t.Fatal(err)
	}
	tokens := make([]market.Token, 2)
	for i := range tokens {
		var a common.Address
		a[0], a[19] = 0xaa, byte(i)
		tokens[i] = market.Token{Address: a, Quote: market.Asset{Symbol: "ETH", Decimals: uint8(18 - 12*i)},
			Name: "T", Symbol: "T", Decimals: 18, TotalSupply: p.TokenSupply, Params: p, State: p.Initial(),
			LaunchBlock: 1, CreatedAt: 1_700_000_000}
	}
	const n = 5300 // more than a page of the fill
	var trades []market.Trade
	for i := range n {
		var h common.Hash
		binary.BigEndian.PutUint64(h[24:], uint64(i))
		tok := tokens[0].Address
		if i%50 == 0 {
			tok = tokens[1].Address
		}
		trades = append(trades, market.Trade{Token: tok, Block: uint64(2 + i/3), LogIndex: uint(i % 3), TxHash: h,
			Time: 1_700_000_000 + int64(i)*step, Side: curvekit.Buy, Venue: curvekit.VenueCurve,
			QuoteAmount: *uint256.NewInt(uint64(i) * 1e15), Price: *new(uint256.Int).Mul(uint256.NewInt(uint64(i*i%9973)), uint256.NewInt(1e18))})
	}
	if err := s.Apply(ctx, &market.Batch{Cursor: market.Cursor{Block: 1}, Launches: tokens}); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < n; i += 1000 {
		b := &market.Batch{Trades: trades[i:min(n, i+1000)]}
		b.Cursor = market.Cursor{Block: b.Trades[len(b.Trades)-1].Block}
		if err := s.Apply(ctx, b); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()

	conn := raw(t)
	for _, stmt := range drop {
		if _, err := conn.ExecContext(ctx, stmt); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	conn.Close()

	db, err = bunstore.Open(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	s = db.Market()
	for _, tok := range tokens {
		r, err := s.TradesBetween(ctx, market.RangeQuery{Token: tok.Address, From: 0, To: 1 << 40})
		if err != nil {
			t.Fatal(err)
		}
		for _, span := range spans {
			q := market.MinuteQuery{Token: tok.Address, From: 0, To: 1 << 40, Span: span}
			want, err := market.BarsOf(&tok, r.Trades, q)
			if err != nil {
				t.Fatal(err)
			}
			got, err := s.Bars(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			if len(got.Minutes) == 0 {
				t.Fatalf("token %s: no bars of span %d", tok.Address, span)
			}
			if diff := cmp.Diff(want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("token %s: bars of span %d after the fill (-recomputed +stored):\n%s", tok.Address, span, diff)
			}
		}
	}
}
