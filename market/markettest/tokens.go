package markettest

import (
	"github.com/curvekit/curvekit"

	"bytes"
	"context"
	"sort"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/google/go-cmp/cmp"
	"github.com/holiman/uint256"

	"github.com/curvekit/curvekit/market"
)

// searchNames gives some fixture tokens names that probe LIKE escaping, case and Unicode.
var searchNames = map[int][2]string{
	3:  {"100% Pure", "PCT"},
	6:  {"snake_case", "SNK"},
	7:  {"Wow!", "WOW"},
	8:  {`back\slash`, "BSL"},
	9:  {"Pure Gold", "GLD"},
	10: {"Plain", "PURE"},
	11: {"snakeXcase", "SNC"}, // "e_c" must not match it: '_' is a character, not a wildcard
	12: {"100 Pure", "HND"},   // "0%" must not match it: '%' is a character, not a wildcard
	13: {"WowX", "WWX"},
	14: {"back/slash", "FSL"},
	15: {"Ärger", "ÄRG"},
}

// market23 is the fixture of the order, filter and search tests: 23 tokens with market caps,
// progress, phases and 24h volumes that order them differently, with ties in each.
type market23 struct {
	tokens []market.Token
	volume map[common.Address]uint256.Int // exact, over [now-86400, now]
	block  uint64                         // the cursor of the batch that built it
}

func buildMarket(t *testing.T, s market.Store) market23 {
	t.Helper()
	const n = 23
	m := market23{volume: make(map[common.Address]uint256.Int)}
	launches := make([]market.Token, n)
	for i := range launches {
		launches[i] = newToken(t, i)
		if nm, ok := searchNames[i]; ok {
			launches[i].Name, launches[i].Symbol = nm[0], nm[1]
		}
		if i%4 == 1 {
			launches[i].Quote = tusd
		}
	}
	apply(t, s, &market.Batch{Cursor: market.Cursor{Block: 1011}, Launches: launches})

	var (
		updates []market.Token
		trades  []market.Trade
		seq     tradeSeq
		block   uint64 = 2000
	)
	add := func(tok *market.Token, at int64, side curvekit.Side, quote uint256.Int) {
		block++
		trades = append(trades, seq.trade(tok.Address, block, 0, at, side, quote))
		if at >= now-86400 && at <= now {
			v := m.volume[tok.Address]
			v.Add(&v, &quote)
			m.volume[tok.Address] = v
		}
	}
	for i := range launches {
		tok := launches[i]
		switch {
		case i%5 == 4:
			// Pools priced out of launch order, one below the richest curves' market caps.
			poolToken := uint64(150_000_000)
			if i == 4 {
				poolToken = 400_000_000
			}
			tok = graduated(tok, 80+uint64(i*7%23), poolToken, now-100)
			updates = append(updates, tok)
		case i > 2:
			// Distinct real quote reserves 1..83 units, in no particular order.
			tok = traded(tok, uint64(i*7%83)+1, now-int64(i))
			updates = append(updates, tok)
		}
		// Volumes: a permutation of 1..23 whole units plus a little, so no two are equal.
		if i%3 != 0 {
			var v uint256.Int
			v.Add(ptr(units(uint64(i*11%23+1))), uint256.NewInt(12345))
			add(&tok, now-int64(i)*3600, curvekit.Buy, v)
			if extra := uint64(i % 4); extra > 0 {
				add(&tok, now-60, curvekit.Sell, *new(uint256.Int).Mul(uint256.NewInt(extra), uint256.NewInt(1e17)))
			}
		}
		// Trades just outside the window, large enough to change the order if counted.
		if i%2 == 0 {
			add(&tok, now-86401, curvekit.Buy, units(1000))
		}
		m.tokens = append(m.tokens, tok)
	}
	// Trades exactly at both ends of the window count.
	add(&m.tokens[0], now-86400, curvekit.Buy, units(7))
	add(&m.tokens[0], now, curvekit.Sell, units(8))
	apply(t, s, &market.Batch{Cursor: market.Cursor{Block: block}, Trades: trades, Updates: updates, Time: now})
	m.block = block
	return m
}

// expect returns the fixture tokens that q selects, in q's order.
func (m *market23) expect(q market.TokenQuery) []common.Address {
	var sel []market.Token
	needle := strings.ToLower(q.Search)
	for _, tok := range m.tokens {
		if q.Phase != "" && tok.Phase() != q.Phase {
			continue
		}
		if q.Quote != nil && tok.Quote.Address != *q.Quote {
			continue
		}
		if needle != "" && !strings.Contains(strings.ToLower(tok.Name), needle) &&
			!strings.Contains(strings.ToLower(tok.Symbol), needle) {
			continue
		}
		sel = append(sel, tok)
	}
	key := func(tok *market.Token) uint256.Int {
		switch q.Sort {
		case market.SortMarketCap:
			return tok.MarketCap()
		case market.SortProgress:
			return *uint256.NewInt(uint64(tok.Progress()))
		case market.SortVolume24h:
			return m.volume[tok.Address]
		}
		return uint256.Int{}
	}
	sort.SliceStable(sel, func(i, j int) bool {
		a, b := &sel[i], &sel[j]
		ka, kb := key(a), key(b)
		if !ka.Eq(&kb) {
			return ka.Gt(&kb)
		}
		if a.LaunchBlock != b.LaunchBlock {
			return a.LaunchBlock > b.LaunchBlock
		}
		if a.LaunchLog != b.LaunchLog {
			return a.LaunchLog > b.LaunchLog
		}
		return bytes.Compare(a.Address[:], b.Address[:]) > 0
	})
	return addresses(sel)
}

var (
	allSorts  = []market.TokenSort{"", market.SortNewest, market.SortVolume24h, market.SortMarketCap, market.SortProgress}
	allPhases = []market.Phase{"", market.PhaseCurve, market.PhaseGraduated}
	// tusd pairs a quarter of the fixture tokens; the rest are paired with native ETH.
	tusd      = market.Asset{Address: address(kindQuote, 1), Symbol: "TUSD", Decimals: 6}
	allQuotes = []*common.Address{nil, {}, &tusd.Address}
)

func testTokenOrders(t *testing.T, s market.Store) {
	m := buildMarket(t, s)
	// The fixture must really order the tokens differently in each sort.
	seen := make(map[string]market.TokenSort)
	for _, srt := range allSorts[1:] {
		key := common.Address{}.Hex()
		for _, a := range m.expect(market.TokenQuery{Sort: srt}) {
			key += a.Hex()
		}
		if other, dup := seen[key]; dup {
			t.Fatalf("fixture: sorts %s and %s give the same order", srt, other)
		}
		seen[key] = srt
	}
	for _, srt := range allSorts {
		for _, phase := range allPhases {
			for _, quote := range allQuotes {
				for _, limit := range []int{0, 1, 4, 7} {
					q := market.TokenQuery{Sort: srt, Phase: phase, Quote: quote, Limit: limit, Now: now}
					got := addresses(walkTokens(t, s, q))
					want := m.expect(q)
					if diff := cmp.Diff(got, want, cmpOpts...); diff != "" {
						t.Errorf("Tokens sort %q phase %q quote %v limit %d (-got +want):\n%s", srt, phase, quote, limit, diff)
					}
					if quote != nil && len(want) == 0 {
						t.Fatalf("fixture: no token paired with %s in phase %q", quote, phase)
					}
				}
			}
		}
	}
	// Pages carry whole tokens, as Token returns them.
	got := walkTokens(t, s, market.TokenQuery{Sort: market.SortNewest, Limit: 5, Now: now})
	byAddr := make(map[common.Address]market.Token)
	for _, tok := range m.tokens {
		byAddr[tok.Address] = tok
	}
	for _, tok := range got {
		if want := byAddr[tok.Address]; !cmp.Equal(tok, want, cmpOpts...) {
			t.Errorf("token %s in a page (-got +want):\n%s", tok.Address, cmp.Diff(tok, want, cmpOpts...))
		}
	}
	// A month later nothing traded in the day: the volume order is the newest order.
	apply(t, s, &market.Batch{Cursor: market.Cursor{Block: m.block + 1}, Time: now + 30*86400})
	later := market.TokenQuery{Sort: market.SortVolume24h, Limit: 4}
	if diff := cmp.Diff(addresses(walkTokens(t, s, later)), m.expect(market.TokenQuery{})); diff != "" {
		t.Errorf("volume24h a month later is the newest order (-got +want):\n%s", diff)
	}
}

func testTokenSearch(t *testing.T, s market.Store) {
	m := buildMarket(t, s)
	searches := []struct {
		q    string
		want int // how many fixture tokens match; guards the fixture
	}{
		{"%", 1}, {"_", 1}, {"0%", 1}, {"e_c", 1}, {"!", 1}, {`\`, 1}, {"/", 1},
		{"pure", 4}, {"PURE", 4}, {"pUrE gOlD", 1}, {"ärg", 1}, {"ÄR", 1},
		{"token 1", 5}, {"tk2", 4}, {"snake", 2}, {"wow", 2}, {"zzz", 0}, {"'", 0}, {`"`, 0},
	}
	for _, sc := range searches {
		if n := len(m.expect(market.TokenQuery{Search: sc.q})); n != sc.want {
			t.Fatalf("fixture: search %q matches %d tokens, want %d", sc.q, n, sc.want)
		}
		for _, srt := range allSorts {
			for _, phase := range allPhases {
				q := market.TokenQuery{Sort: srt, Phase: phase, Search: sc.q, Limit: 2, Now: now}
				got := addresses(walkTokens(t, s, q))
				if diff := cmp.Diff(got, m.expect(q), cmpOpts...); diff != "" {
					t.Errorf("Tokens search %q sort %q phase %q (-got +want):\n%s", sc.q, srt, phase, diff)
				}
			}
		}
	}
}

func testTokenLimits(t *testing.T, s market.Store) {
	ctx := context.Background()
	const n = 2*market.MaxLimit + 7
	launches := make([]market.Token, n)
	for i := range launches {
		launches[i] = newToken(t, i)
	}
	var seq tradeSeq
	trades := make([]market.Trade, n)
	for i := range trades {
		trades[i] = seq.trade(launches[0].Address, 5000+uint64(i/3), uint(i%3), now, curvekit.Buy, units(1))
	}
	apply(t, s, &market.Batch{Launches: launches, Trades: trades})
	for _, c := range []struct{ limit, want int }{
		{0, market.DefaultLimit}, {-5, market.DefaultLimit}, {1, 1},
		{market.MaxLimit, market.MaxLimit}, {market.MaxLimit + 1, market.MaxLimit}, {1 << 30, market.MaxLimit},
	} {
		for _, srt := range allSorts {
			page, err := s.Tokens(ctx, market.TokenQuery{Sort: srt, Limit: c.limit, Now: now})
			if err != nil {
				t.Fatal(err)
			}
			if len(page.Tokens) != c.want || page.Next == "" {
				t.Errorf("Tokens sort %q limit %d: %d tokens, next %q; want %d and a next page", srt, c.limit, len(page.Tokens), page.Next, c.want)
			}
		}
		page, err := s.Trades(ctx, market.TradeQuery{Token: launches[0].Address, Limit: c.limit})
		if err != nil {
			t.Fatal(err)
		}
		if len(page.Trades) != c.want || page.Next == "" {
			t.Errorf("Trades limit %d: %d trades, next %q; want %d and a next page", c.limit, len(page.Trades), page.Next, c.want)
		}
	}
	for _, srt := range allSorts {
		if got := walkTokens(t, s, market.TokenQuery{Sort: srt, Now: now}); len(got) != n {
			t.Errorf("walk sort %q with the default limit found %d tokens, want %d", srt, len(got), n)
		}
	}
	// A last page that is exactly full may or may not offer a next page, but that page is empty.
	if got := walkTokens(t, s, market.TokenQuery{Limit: n, Now: now}); len(got) != n {
		t.Errorf("walk with limit %d found %d tokens, want %d", n, len(got), n)
	}
	if got := walkTrades(t, s, market.TradeQuery{Token: launches[0].Address, Limit: 3}); len(got) != n {
		t.Errorf("trade walk found %d trades, want %d", len(got), n)
	}
}

func testInvalidQueries(t *testing.T, s market.Store) {
	ctx := context.Background()
	a, b := newToken(t, 1), newToken(t, 2)
	var seq tradeSeq
	apply(t, s, &market.Batch{Launches: []market.Token{a, b}, Trades: []market.Trade{
		seq.trade(a.Address, 1001, 0, now, curvekit.Buy, units(1)),
		seq.trade(a.Address, 1001, 1, now, curvekit.Buy, units(1)),
	}})
	cursors := make(map[market.TokenSort]string)
	for _, srt := range allSorts[1:] {
		page, err := s.Tokens(ctx, market.TokenQuery{Sort: srt, Limit: 1, Now: now})
		if err != nil || page.Next == "" {
			t.Fatalf("Tokens(%s, limit 1) = next %q, %v; want a next page", srt, page.Next, err)
		}
		cursors[srt] = page.Next
	}
	tpage, err := s.Trades(ctx, market.TradeQuery{Token: a.Address, Limit: 1})
	if err != nil || tpage.Next == "" {
		t.Fatalf("Trades(limit 1) = next %q, %v; want a next page", tpage.Next, err)
	}

	bad := []market.TokenQuery{
		{Sort: "oldest"},
		{Sort: "NEWEST"},
		{Phase: "pool"},
		{Cursor: "!!!"},
		{Cursor: "Zm9vOmJhcg"},
		{Cursor: tpage.Next},
	}
	for _, srt := range allSorts[1:] {
		for _, other := range allSorts[1:] {
			if other != srt {
				bad = append(bad, market.TokenQuery{Sort: srt, Cursor: cursors[other]})
			}
		}
	}
	for _, q := range bad {
		q.Now = now
		_, err := s.Tokens(ctx, q)
		wantErr(t, "Tokens with a bad query", err, errInvalid)
	}
	for _, c := range []string{"!!!", "Zm9vOmJhcg", cursors[market.SortNewest], cursors[market.SortVolume24h]} {
		_, err := s.Trades(ctx, market.TradeQuery{Token: a.Address, Cursor: c})
		wantErr(t, "Trades with a bad cursor", err, errInvalid)
	}
	_, err = s.TradesBetween(ctx, market.RangeQuery{Token: a.Address, From: now, To: now - 1})
	wantErr(t, "TradesBetween ending before it starts", err, errInvalid)
}

// testFullCurve lists a token whose curve is full (progress 10,000) but which has not graduated
// where its progress puts it: among the graduates, which stand at 10,000 too, in the progress
// order, and first among the curve's tokens; and the curve's tokens by market cap as in any other
// order, whatever the graduates' market caps.
func testFullCurve(t *testing.T, s market.Store) {
	toks := make([]market.Token, 6)
	for i := range toks {
		toks[i] = newToken(t, 40+i)
	}
	toks[1].Quote = tusd
	apply(t, s, &market.Batch{Cursor: market.Cursor{Block: 1011}, Launches: toks})
	// 0 and 3 graduated (the largest market caps), 1 and 4 full, 2 and 5 part way.
	toks[0] = graduated(toks[0], 90, 100_000_000, now-100)
	toks[3] = graduated(toks[3], 95, 90_000_000, now-100)
	toks[1] = traded(toks[1], 85, now-10)
	toks[4] = traded(toks[4], 86, now-10)
	toks[2] = traded(toks[2], 40, now-10)
	toks[5] = traded(toks[5], 20, now-10)
	if toks[1].Progress() != 10_000 || toks[4].Progress() != 10_000 || toks[2].Progress() >= 10_000 {
		t.Fatalf("fixture: progress %d, %d, %d", toks[1].Progress(), toks[4].Progress(), toks[2].Progress())
	}
	apply(t, s, &market.Batch{Cursor: market.Cursor{Block: 2000}, Updates: toks, Time: now})
	a := func(i ...int) []common.Address {
		out := make([]common.Address, len(i))
		for j, k := range i {
			out[j] = toks[k].Address
		}
		return out
	}
	for _, c := range []struct {
		q    market.TokenQuery
		want []common.Address
	}{
		// At 10,000 the newest launch first (launches 4, 3, 0, 1 in that order), then by progress.
		{market.TokenQuery{Sort: market.SortProgress}, a(4, 3, 0, 1, 2, 5)},
		{market.TokenQuery{Sort: market.SortProgress, Phase: market.PhaseCurve}, a(4, 1, 2, 5)},
		{market.TokenQuery{Sort: market.SortProgress, Phase: market.PhaseCurve, ProgressMin: 5_000}, a(4, 1)},
		{market.TokenQuery{Sort: market.SortProgress, Phase: market.PhaseGraduated}, a(3, 0)},
		{market.TokenQuery{Sort: market.SortMarketCap, Phase: market.PhaseCurve}, a(4, 1, 2, 5)},
		{market.TokenQuery{Sort: market.SortMarketCap, Phase: market.PhaseCurve, Quote: &tusd.Address}, a(1)},
	} {
		for _, limit := range []int{0, 1, 3} {
			q := c.q
			q.Limit, q.Now = limit, now
			if diff := cmp.Diff(addresses(walkTokens(t, s, q)), c.want); diff != "" {
				t.Errorf("Tokens %+v (-got +want):\n%s", q, diff)
			}
		}
	}
}
