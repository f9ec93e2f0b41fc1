package bunstore_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/holiman/uint256"

	"github.com/curvekit/curvekit"
	"github.com/curvekit/curvekit/adapters/bunstore"
	"github.com/curvekit/curvekit/market"
)

// Migration 0023 moves a store written by the earlier schema (amounts as decimal text, side and
// venue as words, a block hash in every trade, balances zero-padded) to the compact one: every
// read returns what it returned before, and the store writes and rolls back on it.
func TestCompactMigrationSQLite(t *testing.T) {
	t.Parallel()
	dsn := filepath.Join(t.TempDir(), "old.db")
	raw, err := sql.Open("sqlite", dsn)
	if err != nil {
		t.Fatal(err)
	}
	testCompactMigration(t, raw, "sqlite", dsn)
}

func TestCompactMigrationPostgres(t *testing.T) {
	t.Parallel()
	dsn := postgresSchema(t)
	testCompactMigration(t, mustConnector(t, dsn), "postgres", dsn)
}

// oldSchema applies, in raw, the migrations up to version last as they are, the way Open applies
// them, and returns the statement runner on raw.
func oldSchema(t *testing.T, raw *sql.DB, dialect string, last int) func(q string, args ...any) {
	ctx := context.Background()
	exec := func(q string, args ...any) {
		t.Helper()
		if dialect == "postgres" {
			for i := 1; strings.Contains(q, "?"); i++ {
				q = strings.Replace(q, "?", fmt.Sprintf("$%d", i), 1)
			}
		}
		if _, err := raw.ExecContext(ctx, q, args...); err != nil {
			t.Fatalf("%.60s: %v", q, err)
		}
	}
	exec("CREATE TABLE bunstore_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL)")
	files, err := filepath.Glob(filepath.Join("migrations", dialect, "*.sql"))
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(files)
	for _, f := range files {
		num, name, _ := strings.Cut(strings.TrimSuffix(filepath.Base(f), ".sql"), "_")
		v, err := strconv.Atoi(num)
		if err != nil {
			t.Fatal(err)
		}
		if v > last {
			break
		}
		body, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		exec(string(body))
		exec("INSERT INTO bunstore_migrations (version, name) VALUES (?, ?)", v, name)
	}
	return exec
}

func testCompactMigration(t *testing.T, raw *sql.DB, dialect, dsn string) {
	ctx := context.Background()
	// Version 20 is the schema before the compact one; 0021 onwards run when the store opens.
	exec := oldSchema(t, raw, dialect, 20)

	addr := func(kind byte, n int) common.Address { return common.BytesToAddress([]byte{kind, 0, 0, byte(n)}) }
	hash := func(kind byte, n int) common.Hash { return common.BytesToHash([]byte{kind, 0, byte(n), 0xff}) }
	dec := func(s string) uint256.Int { return *uint256.MustFromDecimal(s) }
	maxU := dec("115792089237316195423570985008687907853269984665640564039457584007913129639935")
	creator := addr(3, 1)
	// The tokens' addresses share their last 8 bytes: the token key picks both, the address one.
	a, b := addr(1, 1), addr(1, 1)
	b[0] = 0xbb
	for i, tok := range []common.Address{a, b} {
		exec(`INSERT INTO tokens (address, curve, creator, quote_address, quote_symbol, quote_decimals, name, symbol,
			name_lower, symbol_lower, uri, decimals, total_supply, virtual_quote0, virtual_token0, token_supply,
			real_token0, graduation_quote, fee_bps, creator_share_bps, virtual_quote, virtual_token, real_quote,
			real_token, graduated, pool, pool_fee_bps, pool_reserve_quote, pool_reserve_token, launch_block,
			launch_tx, launch_log, created_at, last_trade_at, market_cap, progress)
			VALUES (?, ?, ?, ?, 'ETH', 18, 'T', 'T', 't', 't', '', 18, '1000', '30', '1073', '1000', '793', '85', 100, 5000,
			'30', '1073', '0', '793', ?, ?, 0, '0', '0', 9, ?, ?, 900, 1020, ?, 0)`,
			tok[:], addr(2, i).Bytes(), creator[:], common.Address{}.Bytes(), false, common.Address{}.Bytes(),
			hash(7, i).Bytes(), i, strings.Repeat("0", 76)+"30")
	}
	trade := func(tok common.Address, block uint64, log uint, at int64, side curvekit.Side, venue curvekit.Venue, seq int) market.Trade {
		return market.Trade{Token: tok, Block: block, BlockHash: hash(9, int(block)), TxHash: hash(8, seq), LogIndex: log, Time: at,
			Trader: addr(4, seq), Recipient: addr(4, seq), Side: side, Venue: venue}
	}
	t1 := trade(a, 10, 0, 1000, curvekit.Buy, curvekit.VenueCurve, 1)
	t1.QuoteAmount, t1.TokenAmount, t1.Fee, t1.CreatorFee = dec("1000000000000000000"), dec("35000000000000000000000000"), dec("10000000000000000"), dec("5000000000000000")
	t1.Price, t1.ReserveQuote, t1.ReserveToken = dec("28571428571428571428"), dec("31000000000000000000"), dec("1038000000000000000000000000")
	t2 := trade(a, 10, 3, 1000, curvekit.Sell, curvekit.VenuePool, 2)
	t2.Recipient = addr(5, 2)
	t2.QuoteAmount, t2.Price, t2.ReserveToken = maxU, dec("1"), maxU
	t3 := trade(b, 11, 1, 1010, curvekit.Buy, curvekit.VenueCurve, 3)
	t3.QuoteAmount, t3.CreatorFee, t3.Refund = dec("18446744073709551616"), dec("255"), dec("256")
	t4 := trade(a, 12, 2, 1020, curvekit.Sell, curvekit.VenueCurve, 4)
	t4.QuoteAmount, t4.CreatorFee, t4.Refund, t4.Fee = dec("12345678901234567890123"), dec("18446744073709551615"), dec("7"), dec("4294967296")
	t5 := trade(a, 12, 5, 1020, curvekit.Buy, curvekit.VenueCurve, 5)
	t5.QuoteAmount = dec("999999999999999999")
	all := []market.Trade{t1, t2, t3, t4, t5}
	for _, tr := range all {
		exec(`INSERT INTO trades (tx_hash, log_index, token, block_number, block_hash, block_time, trader, recipient, side,
			venue, quote_amount, token_amount, fee, creator_fee, refund, price, reserve_quote, reserve_token, quote_approx)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			tr.TxHash[:], tr.LogIndex, tr.Token[:], tr.Block, tr.BlockHash[:], tr.Time, tr.Trader[:], tr.Recipient[:],
			string(tr.Side), string(tr.Venue), tr.QuoteAmount.Dec(), tr.TokenAmount.Dec(), tr.Fee.Dec(), tr.CreatorFee.Dec(),
			tr.Refund.Dec(), tr.Price.Dec(), tr.ReserveQuote.Dec(), tr.ReserveToken.Dec(), tr.QuoteAmount.Float64())
	}
	claim := dec("1606938044258990275541962092341162602522202993782792835301376") // 2^200
	exec(`INSERT INTO fee_claims (tx_hash, log_index, token, curve, creator, quote, amount, block_number, block_time)
		VALUES (?, 4, ?, ?, ?, ?, ?, 12, 1020)`, hash(8, 6).Bytes(), a[:], addr(2, 0).Bytes(), creator[:], common.Address{}.Bytes(), claim.Dec())
	pad := func(v uint256.Int) string { d := v.Dec(); return strings.Repeat("0", 78-len(d)) + d }
	holdings := []market.Holding{
		{Token: a, Holder: addr(4, 1), Balance: dec("500000000000000000000"), Block: 10},
		{Token: a, Holder: addr(4, 2), Balance: dec("500000000000000000000"), Block: 10},
		{Token: a, Holder: addr(4, 3), Balance: uint256.Int{}, Block: 12},
		{Token: a, Holder: addr(2, 0), Balance: maxU, Block: 12}, // the curve
		{Token: a, Holder: addr(4, 4), Balance: dec("1"), Block: 12},
		{Token: b, Holder: addr(4, 1), Balance: dec("18446744073709551616"), Block: 11},
	}
	for _, h := range holdings {
		exec("INSERT INTO holders (token, holder, balance, changed_block) VALUES (?, ?, ?, ?)", h.Token[:], h.Holder[:], pad(h.Balance), h.Block)
	}
	exec("UPDATE tokens SET holders = 4 WHERE address = ?", a[:])
	exec("UPDATE tokens SET holders = 1 WHERE address = ?", b[:])
	exec("INSERT INTO index_cursor (id, block_number, block_hash) VALUES (1, 12, ?)", hash(9, 12).Bytes())
	if err := raw.Close(); err != nil {
		t.Fatal(err)
	}

	db := openDB(t, bunstore.Config{DSN: dsn})
	m := db.Market()
	opts := cmpopts.EquateEmpty()
	check := func(when string) {
		t.Helper()
		ofA := []market.Trade{t5, t4, t2, t1}
		for _, limit := range []int{1, 3, 10} {
			if diff := cmp.Diff(ofA, walkTrades(t, m, a, limit), opts); diff != "" {
				t.Errorf("%s: trades of a by %d (-want +got):\n%s", when, limit, diff)
			}
		}
		got, err := m.TradesBetween(ctx, market.RangeQuery{Token: a, From: 1001, To: 1021})
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(market.RangeResult{Before: &t2, Trades: []market.Trade{t4, t5}}, got, opts); diff != "" {
			t.Errorf("%s: trades of a in [1001, 1021) (-want +got):\n%s", when, diff)
		}
		fwd, err := m.TradesForward(ctx, market.ForwardQuery{Token: b, From: 0, To: 2000})
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff([]market.Trade{t3}, fwd, opts); diff != "" {
			t.Errorf("%s: trades of b forward (-want +got):\n%s", when, diff)
		}
		page, err := m.Holders(ctx, market.HolderQuery{Token: a, Limit: 2})
		if err != nil {
			t.Fatal(err)
		}
		rest, err := m.Holders(ctx, market.HolderQuery{Token: a, Limit: 10, Cursor: page.Next})
		if err != nil {
			t.Fatal(err)
		}
		wantHolders := []market.Holding{holdings[3], holdings[0], holdings[1], holdings[4]}
		if diff := cmp.Diff(wantHolders, append(page.Holders, rest.Holders...), opts); diff != "" {
			t.Errorf("%s: holders of a (-want +got):\n%s", when, diff)
		}
		sum, err := m.HolderSummary(ctx, a)
		if err != nil {
			t.Fatal(err)
		}
		var top uint256.Int
		top.Add(&holdings[0].Balance, &holdings[1].Balance)
		top.Add(&top, &holdings[4].Balance)
		if diff := cmp.Diff(market.HolderSummary{Holders: 4, Top10: top}, sum); diff != "" {
			t.Errorf("%s: holder summary of a (-want +got):\n%s", when, diff)
		}
		keys := make([]market.HolderKey, len(holdings))
		want := map[market.HolderKey]uint256.Int{}
		for i, h := range holdings {
			keys[i] = market.HolderKey{Token: h.Token, Holder: h.Holder}
			want[keys[i]] = h.Balance
		}
		bal, err := m.Balances(ctx, keys)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, bal); diff != "" {
			t.Errorf("%s: balances (-want +got):\n%s", when, diff)
		}
		fees, err := db.Launch().CreatorFees(ctx, creator)
		if err != nil {
			t.Fatal(err)
		}
		var earnedA uint256.Int
		earnedA.Add(&t1.CreatorFee, &t4.CreatorFee)
		if len(fees) != 2 || fees[0].Earned != earnedA || fees[0].Claimed != claim || fees[1].Earned != t3.CreatorFee || !fees[1].Claimed.IsZero() {
			t.Errorf("%s: creator fees %+v", when, fees)
		}
		touched, err := m.Touched(ctx, 11)
		if err != nil || len(touched) != 1 || touched[0] != a {
			t.Errorf("%s: touched after block 11: %v, %v", when, touched, err)
		}
	}
	check("after the migration")

	// A trade in a block the store holds, one in a new block, and a rollback of both.
	t6 := trade(b, 12, 7, 1020, curvekit.Buy, curvekit.VenueCurve, 6)
	t6.QuoteAmount = dec("3")
	t7 := trade(a, 13, 0, 1030, curvekit.Sell, curvekit.VenuePool, 7)
	if err := m.Apply(ctx, &market.Batch{Cursor: market.Cursor{Block: 13, Hash: hash(9, 13)}, Time: 1030,
		Trades: []market.Trade{t6, t7, t1}}); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]market.Trade{t7, t5, t4, t2, t1}, walkTrades(t, m, a, 2), opts); diff != "" {
		t.Errorf("after a batch: trades of a (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]market.Trade{t6, t3}, walkTrades(t, m, b, 2), opts); diff != "" {
		t.Errorf("after a batch: trades of b (-want +got):\n%s", diff)
	}
	if err := m.Rollback(ctx, &market.Rollback{To: market.Cursor{Block: 11, Hash: hash(9, 11)}, Time: 1010}); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]market.Trade{t2, t1}, walkTrades(t, m, a, 10), opts); diff != "" {
		t.Errorf("after a rollback: trades of a (-want +got):\n%s", diff)
	}
	if err := m.Apply(ctx, &market.Batch{Cursor: market.Cursor{Block: 12, Hash: hash(9, 12)}, Time: 1020,
		Trades: []market.Trade{t4, t5}, Claims: []market.FeeClaim{{Token: a, Curve: addr(2, 0), Creator: creator,
			Amount: claim, Block: 12, TxHash: hash(8, 6), LogIndex: 4, Time: 1020}}}); err != nil {
		t.Fatal(err)
	}
	check("after the rollback and the batch again")
}

// walkTrades reads every trade of tok, newest first, limit a page.
func walkTrades(t *testing.T, m *bunstore.Market, tok common.Address, limit int) []market.Trade {
	t.Helper()
	var out []market.Trade
	cursor := ""
	for {
		page, err := m.Trades(context.Background(), market.TradeQuery{Token: tok, Limit: limit, Cursor: cursor})
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, page.Trades...)
		if cursor = page.Next; cursor == "" {
			return out
		}
	}
}

// A trade's side and venue are stored as codes: the zero values round-trip, other words and log
// indexes beyond 32 bits are refused before anything is written.
func TestTradeCodes(t *testing.T) {
	t.Parallel()
	for name, open := range map[string]func(testing.TB) *bunstore.Market{"sqlite": newSQLite, "postgres": newPostgres} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			m := open(t)
			tok := market.Token{Address: common.Address{0xaa, 1}, Name: "T", Symbol: "T", Decimals: 18, LaunchBlock: 1}
			bare := market.Trade{Token: tok.Address, Block: 2, BlockHash: common.Hash{2}, TxHash: common.Hash{9}, LogIndex: 1, Time: 5,
				Trader: common.Address{7}, Recipient: common.Address{8}}
			if err := m.Apply(ctx, &market.Batch{Cursor: market.Cursor{Block: 2}, Launches: []market.Token{tok}, Trades: []market.Trade{bare}}); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff([]market.Trade{bare}, walkTrades(t, m, tok.Address, 10), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("a trade without side and venue (-want +got):\n%s", diff)
			}
			for _, bad := range []market.Trade{
				{Token: tok.Address, Block: 3, LogIndex: 0, Side: "hold", Venue: curvekit.VenueCurve},
				{Token: tok.Address, Block: 3, LogIndex: 0, Side: curvekit.Buy, Venue: "otc"},
				{Token: tok.Address, Block: 3, LogIndex: 1 << 31, Side: curvekit.Buy, Venue: curvekit.VenueCurve},
			} {
				err := m.Apply(ctx, &market.Batch{Cursor: market.Cursor{Block: 3}, Trades: []market.Trade{bad}})
				if !errors.Is(err, curvekit.ErrInvalid) {
					t.Errorf("Apply of side %q venue %q log %d: %v, want ErrInvalid", bad.Side, bad.Venue, bad.LogIndex, err)
				}
			}
		})
	}
}
