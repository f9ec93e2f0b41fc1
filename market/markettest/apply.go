package markettest

import (
	"github.com/curvekit/curvekit"

	"context"
	"errors"
	"sync"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/google/go-cmp/cmp"
	"github.com/holiman/uint256"

	"github.com/curvekit/curvekit/curve"
	"github.com/curvekit/curvekit/market"
)

func testBindAndReset(t *testing.T, s market.Store) {
	ctx := context.Background()
	chain := market.ChainInfo{ChainID: 1337, GenesisHash: hash(kindBlock, 0), Factory: address(kindCurve, 9999)}
	cur, err := s.Cursor(ctx)
	if err != nil || cur != (market.Cursor{}) {
		t.Fatalf("Cursor of an empty store = %+v, %v; want the zero cursor", cur, err)
	}
	if err := s.Bind(ctx, chain); err != nil {
		t.Fatalf("first Bind: %v", err)
	}
	if err := s.Bind(ctx, chain); err != nil {
		t.Fatalf("Bind to the same chain again: %v", err)
	}
	// WETH follows from the factory: a store compares only chain id, genesis and factory.
	sameWithWETH := chain
	sameWithWETH.WETH = address(kindQuote, 1)
	if err := s.Bind(ctx, sameWithWETH); err != nil {
		t.Fatalf("Bind with WETH set: %v", err)
	}
	others := map[string]market.ChainInfo{
		"chain id": {ChainID: 1, GenesisHash: chain.GenesisHash, Factory: chain.Factory},
		"genesis":  {ChainID: chain.ChainID, GenesisHash: hash(kindBlock, 1), Factory: chain.Factory},
		"factory":  {ChainID: chain.ChainID, GenesisHash: chain.GenesisHash, Factory: address(kindCurve, 1)},
		"max id":   {ChainID: ^uint64(0), GenesisHash: chain.GenesisHash, Factory: chain.Factory},
	}
	for name, other := range others {
		wantErr(t, "Bind to another "+name, s.Bind(ctx, other), market.ErrChainMismatch)
	}

	tok := newToken(t, 1)
	var seq tradeSeq
	apply(t, s, &market.Batch{
		Cursor:   market.Cursor{Block: 1001, Hash: hash(kindBlock, 1001)},
		Launches: []market.Token{tok},
		Trades:   []market.Trade{seq.trade(tok.Address, 1001, 4, now, curvekit.Buy, units(1))},
		Claims: []market.FeeClaim{{Token: tok.Address, Curve: tok.Curve, Creator: tok.Creator, Amount: units(1),
			Block: 1001, TxHash: hash(kindTx, 500), LogIndex: 7, Time: now}},
	})
	if err := s.Reset(ctx); err != nil {
		t.Fatalf("Reset: %v", err)
	}
	_, err = s.Token(ctx, tok.Address)
	wantErr(t, "Token after Reset", err, errNotFound)
	if cur, err := s.Cursor(ctx); err != nil || cur != (market.Cursor{}) {
		t.Fatalf("Cursor after Reset = %+v, %v; want the zero cursor", cur, err)
	}
	if page, err := s.Tokens(ctx, market.TokenQuery{Now: now}); err != nil || len(page.Tokens) != 0 {
		t.Fatalf("Tokens after Reset = %d tokens, %v; want none", len(page.Tokens), err)
	}
	name, symbol := market.FoldName(tok.Name), market.FoldName(tok.Symbol)
	if counts, err := s.CountNames(ctx, []string{name}, []string{symbol}); err != nil || counts.Names[name] != 0 || counts.Symbols[symbol] != 0 {
		t.Fatalf("CountNames after Reset = %+v, %v; want none", counts, err)
	}
	// Reset forgets the binding: another chain binds, and then the first one is refused.
	if err := s.Bind(ctx, others["chain id"]); err != nil {
		t.Fatalf("Bind after Reset: %v", err)
	}
	wantErr(t, "Bind to the old chain after rebinding", s.Bind(ctx, chain), market.ErrChainMismatch)
	// The same launch, trade and claim can be written again after a Reset.
	apply(t, s, &market.Batch{Cursor: market.Cursor{Block: 1001}, Launches: []market.Token{tok},
		Trades: []market.Trade{(&tradeSeq{}).trade(tok.Address, 1001, 4, now, curvekit.Buy, units(1))}})
	if got := mustToken(t, s, tok.Address); !cmp.Equal(got, tok, cmpOpts...) {
		t.Fatalf("token after Reset and Apply (-got +want):\n%s", cmp.Diff(got, tok, cmpOpts...))
	}
}

func testApplyRoundTrip(t *testing.T, s market.Store) {
	ctx := context.Background()
	a, b := newToken(t, 1), newToken(t, 2)
	b.Quote = market.Asset{Address: address(kindQuote, 1), Symbol: "USDC", Decimals: 6}
	b.Name, b.Symbol, b.URI = "Ünïcode ✓", "ÜNI", ""
	var seq tradeSeq
	trades := []market.Trade{
		seq.trade(a.Address, 1001, 0, now-100, curvekit.Buy, units(2)),
		seq.trade(a.Address, 1001, 1, now-100, curvekit.Sell, units(1)),
		seq.trade(b.Address, 1002, 5, now-50, curvekit.Buy, units(3)),
	}
	trades[2].Venue = curvekit.VenuePool
	cursor := market.Cursor{Block: 1002, Hash: hash(kindBlock, 1002)}
	apply(t, s, &market.Batch{
		Cursor:   cursor,
		Launches: []market.Token{a, b},
		Trades:   trades,
		Claims: []market.FeeClaim{{Token: a.Address, Curve: a.Curve, Creator: a.Creator, Quote: a.Quote.Address,
			Amount: units(1), Block: 1002, TxHash: hash(kindTx, 900), LogIndex: 1, Time: now - 50}},
	})
	for _, want := range []market.Token{a, b} {
		if got := mustToken(t, s, want.Address); !cmp.Equal(got, want, cmpOpts...) {
			t.Errorf("Token(%s) (-got +want):\n%s", want.Address, cmp.Diff(got, want, cmpOpts...))
		}
	}
	if got, err := s.Cursor(ctx); err != nil || got != cursor {
		t.Errorf("Cursor = %+v, %v; want %+v", got, err, cursor)
	}
	page, err := s.Trades(ctx, market.TradeQuery{Token: a.Address})
	if err != nil {
		t.Fatal(err)
	}
	want := []market.Trade{trades[1], trades[0]}
	if diff := cmp.Diff(page.Trades, want, cmpOpts...); diff != "" || page.Next != "" {
		t.Errorf("Trades(a) next %q (-got +want):\n%s", page.Next, diff)
	}

	// A later batch moves the state forward through Updates and the cursor with it.
	a2 := traded(a, 40, now-10)
	b2 := graduated(b, 90, 200_000_000, now-5)
	b2.TotalSupply.Sub(&b2.TotalSupply, ptr(units(1000)))
	cursor = market.Cursor{Block: 1010, Hash: hash(kindBlock, 1010)}
	apply(t, s, &market.Batch{Cursor: cursor, Updates: []market.Token{a2, b2}})
	for _, want := range []market.Token{a2, b2} {
		if got := mustToken(t, s, want.Address); !cmp.Equal(got, want, cmpOpts...) {
			t.Errorf("Token(%s) after update (-got +want):\n%s", want.Address, cmp.Diff(got, want, cmpOpts...))
		}
	}
	if got, err := s.Cursor(ctx); err != nil || got != cursor {
		t.Errorf("Cursor = %+v, %v; want %+v", got, err, cursor)
	}
	// A launch and its update in one batch: the update wins.
	c := newToken(t, 3)
	c2 := traded(c, 10, now)
	apply(t, s, &market.Batch{Cursor: cursor, Launches: []market.Token{c}, Updates: []market.Token{c2}})
	if got := mustToken(t, s, c.Address); !cmp.Equal(got, c2, cmpOpts...) {
		t.Errorf("token launched and updated in one batch (-got +want):\n%s", cmp.Diff(got, c2, cmpOpts...))
	}
}

func ptr[T any](v T) *T { return &v }

func testUpdateKeepsLaunchFields(t *testing.T, s market.Store) {
	tok := newToken(t, 1)
	apply(t, s, &market.Batch{Launches: []market.Token{tok}})
	up := traded(tok, 5, now)
	// An update carries the mutable fields only; the launch fields it also carries are ignored.
	changed := up
	changed.Name, changed.Symbol, changed.URI = "Renamed", "REN", "ipfs://other"
	changed.Creator, changed.Curve = address(kindCreator, 99), address(kindCurve, 99)
	changed.Params.FeeBps = 999
	changed.LaunchBlock, changed.LaunchLog, changed.CreatedAt = 1, 1, 1
	apply(t, s, &market.Batch{Updates: []market.Token{changed}})
	if got := mustToken(t, s, tok.Address); !cmp.Equal(got, up, cmpOpts...) {
		t.Fatalf("token after update (-got +want):\n%s", cmp.Diff(got, up, cmpOpts...))
	}
}

// snapshot is everything the port can read back.
type snapshot struct {
	Cursor market.Cursor
	Tokens []market.Token
	Trades map[common.Address][]market.Trade
	// Days are the stored tokens' days (Store.Day) without their clock, which Clock holds.
	Days  map[common.Address]market.Day
	Clock int64
}

func takeSnapshot(t *testing.T, s market.Store, tokens []common.Address) snapshot {
	t.Helper()
	ctx := context.Background()
	cur, err := s.Cursor(ctx)
	if err != nil {
		t.Fatal(err)
	}
	snap := snapshot{Cursor: cur, Trades: make(map[common.Address][]market.Trade), Days: make(map[common.Address]market.Day)}
	snap.Tokens = walkTokens(t, s, market.TokenQuery{Limit: 3, Now: now})
	for _, a := range tokens {
		if _, err := s.Token(ctx, a); err != nil {
			continue
		}
		snap.Trades[a] = walkTrades(t, s, market.TradeQuery{Token: a, Limit: 2})
		d, err := s.Day(ctx, a)
		if err != nil {
			t.Fatalf("Day(%s): %v", a, err)
		}
		snap.Clock, d.At = d.At, 0
		snap.Days[a] = d
	}
	return snap
}

func testApplyIdempotent(t *testing.T, s market.Store) {
	a, b := newToken(t, 1), newToken(t, 2)
	var seq tradeSeq
	batch := &market.Batch{
		Cursor:   market.Cursor{Block: 1005, Hash: hash(kindBlock, 1005)},
		Launches: []market.Token{a, b},
		Trades: []market.Trade{
			seq.trade(a.Address, 1003, 0, now-3, curvekit.Buy, units(5)),
			seq.trade(a.Address, 1004, 2, now-2, curvekit.Sell, units(1)),
			seq.trade(b.Address, 1005, 1, now-1, curvekit.Buy, units(7)),
		},
		Claims: []market.FeeClaim{{Token: b.Address, Curve: b.Curve, Creator: b.Creator, Amount: units(1),
			Block: 1005, TxHash: hash(kindTx, 77), LogIndex: 3, Time: now - 1}},
		Updates: []market.Token{traded(a, 4, now-2), traded(b, 7, now-1)},
	}
	all := []common.Address{a.Address, b.Address}
	apply(t, s, batch)
	once := takeSnapshot(t, s, all)
	apply(t, s, batch)
	twice := takeSnapshot(t, s, all)
	if diff := cmp.Diff(twice, once, cmpOpts...); diff != "" {
		t.Fatalf("state after applying the batch twice (-twice +once):\n%s", diff)
	}
	if n := len(once.Trades[a.Address]) + len(once.Trades[b.Address]); n != 3 {
		t.Fatalf("stored %d trades, want 3", n)
	}
	// A launch or trade that is already stored is not overwritten by a different copy of it.
	again := *batch
	again.Launches = []market.Token{a, b}
	again.Launches[0].Name = "Other"
	again.Trades = append([]market.Trade(nil), batch.Trades...)
	again.Trades[0].QuoteAmount = units(1_000_000)
	again.Updates = nil
	apply(t, s, &again)
	if diff := cmp.Diff(takeSnapshot(t, s, all), once, cmpOpts...); diff != "" {
		t.Fatalf("state after re-sending stored rows with other values (-got +want):\n%s", diff)
	}
	// Duplicates inside one batch are written once.
	c := newToken(t, 3)
	tr := seq.trade(c.Address, 1006, 0, now, curvekit.Buy, units(1))
	apply(t, s, &market.Batch{Launches: []market.Token{c, c}, Trades: []market.Trade{tr, tr}})
	if got := walkTrades(t, s, market.TradeQuery{Token: c.Address}); len(got) != 1 {
		t.Fatalf("a trade sent twice in one batch is stored %d times", len(got))
	}
}

func testApplyAtomic(t *testing.T, s market.Store) {
	ctx := context.Background()
	a := newToken(t, 1)
	var seq tradeSeq
	first := &market.Batch{
		Cursor:   market.Cursor{Block: 1001, Hash: hash(kindBlock, 1001)},
		Launches: []market.Token{a},
		Trades:   []market.Trade{seq.trade(a.Address, 1001, 1, now-10, curvekit.Buy, units(1))},
	}
	apply(t, s, first)
	all := []common.Address{a.Address, address(kindToken, 2), address(kindToken, 404)}
	before := takeSnapshot(t, s, all)

	// Each batch starts with valid writes - a new launch, a trade, a claim, an update - and then
	// names a token that is neither stored nor launched in it.
	b := newToken(t, 2)
	unknown := address(kindToken, 404)
	valid := func() market.Batch {
		return market.Batch{
			Cursor:   market.Cursor{Block: 1002, Hash: hash(kindBlock, 1002)},
			Launches: []market.Token{b},
			Trades: []market.Trade{
				seq.trade(a.Address, 1002, 0, now-5, curvekit.Buy, units(2)),
				seq.trade(b.Address, 1002, 1, now-5, curvekit.Buy, units(3)),
			},
			Claims: []market.FeeClaim{{Token: a.Address, Curve: a.Curve, Creator: a.Creator, Amount: units(1),
				Block: 1002, TxHash: hash(kindTx, 901), LogIndex: 2, Time: now - 5}},
			Updates: []market.Token{traded(a, 3, now-5), traded(b, 3, now-5)},
		}
	}
	bad := map[string]func(*market.Batch){
		"trade": func(bt *market.Batch) {
			bt.Trades = append(bt.Trades, seq.trade(unknown, 1002, 9, now-5, curvekit.Buy, units(1)))
		},
		"claim": func(bt *market.Batch) {
			bt.Claims = append(bt.Claims, market.FeeClaim{Token: unknown, Amount: units(1), Block: 1002,
				TxHash: hash(kindTx, 902), LogIndex: 3, Time: now - 5})
		},
		"update": func(bt *market.Batch) {
			u := newToken(t, 404)
			bt.Updates = append(bt.Updates, u)
		},
	}
	for name, breakIt := range bad {
		bt := valid()
		breakIt(&bt)
		wantErr(t, "Apply of a batch with a "+name+" of an unknown token", s.Apply(ctx, &bt), errInvalid)
		if diff := cmp.Diff(takeSnapshot(t, s, all), before, cmpOpts...); diff != "" {
			t.Fatalf("a failed batch (%s) left writes behind (-got +want):\n%s", name, diff)
		}
	}
	// The same batch without the bad row applies.
	bt := valid()
	apply(t, s, &bt)
	if got := mustToken(t, s, b.Address); !cmp.Equal(got, bt.Updates[1], cmpOpts...) {
		t.Fatalf("token b (-got +want):\n%s", cmp.Diff(got, bt.Updates[1], cmpOpts...))
	}
}

func testApplyCancelled(t *testing.T, s market.Store) {
	a := newToken(t, 1)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var seq tradeSeq
	err := s.Apply(ctx, &market.Batch{
		Cursor:   market.Cursor{Block: 1001, Hash: hash(kindBlock, 1001)},
		Launches: []market.Token{a},
		Trades:   []market.Trade{seq.trade(a.Address, 1001, 1, now, curvekit.Buy, units(1))},
	})
	if err == nil {
		t.Fatal("Apply with a cancelled context succeeded")
	}
	_, err = s.Token(context.Background(), a.Address)
	wantErr(t, "Token after a cancelled Apply", err, errNotFound)
	if cur, err := s.Cursor(context.Background()); err != nil || cur != (market.Cursor{}) {
		t.Fatalf("Cursor after a cancelled Apply = %+v, %v; want the zero cursor", cur, err)
	}
}

func testNotFound(t *testing.T, s market.Store) {
	ctx := context.Background()
	a := newToken(t, 1)
	apply(t, s, &market.Batch{Launches: []market.Token{a}})
	unknown := address(kindToken, 404)
	_, err := s.Token(ctx, unknown)
	wantErr(t, "Token(unknown)", err, errNotFound)
	_, err = s.Trades(ctx, market.TradeQuery{Token: unknown})
	wantErr(t, "Trades(unknown)", err, errNotFound)
	_, err = s.TradesBetween(ctx, market.RangeQuery{Token: unknown, From: 0, To: now})
	wantErr(t, "TradesBetween(unknown)", err, errNotFound)
	_, err = s.Day(ctx, unknown)
	wantErr(t, "Day(unknown)", err, errNotFound)
	if d, err := s.Day(ctx, a.Address); err != nil || !d.Volume.IsZero() || d.Buys != 0 || d.Sells != 0 || d.Price24h != nil {
		t.Fatalf("Day(no trades) = %+v, %v", d, err)
	}
	// A known token without trades is no error.
	page, err := s.Trades(ctx, market.TradeQuery{Token: a.Address})
	if err != nil || len(page.Trades) != 0 || page.Next != "" {
		t.Fatalf("Trades(no trades) = %+v, %v", page, err)
	}
	rng, err := s.TradesBetween(ctx, market.RangeQuery{Token: a.Address, From: 0, To: now})
	if err != nil || len(rng.Trades) != 0 || rng.Before != nil {
		t.Fatalf("TradesBetween(no trades) = %+v, %v", rng, err)
	}
}

func testExtremes(t *testing.T, s market.Store) {
	ctx := context.Background()
	max := maxUint256()
	// Every amount at 2^256-1: the spot price saturates, and so does the market cap.
	big := newToken(t, 1)
	big.TotalSupply = max
	big.Params.VirtualQuote0, big.Params.VirtualToken0 = max, max
	big.Params.TokenSupply, big.Params.RealToken0, big.Params.GraduationQuote = max, max, max
	big.Params.FeeBps, big.Params.CreatorShareBps = 65535, 65535
	big.State.VirtualQuote, big.State.VirtualToken = max, *uint256.NewInt(1)
	big.State.RealQuote, big.State.RealToken = max, max
	big.PoolReserveQuote, big.PoolReserveToken, big.PoolFeeBps = max, max, 65535
	big.Quote.Decimals = 255
	// Every amount at 0.
	zero := newToken(t, 2)
	zero.TotalSupply = uint256.Int{}
	zero.Params = curve.Params{}
	zero.State = curve.State{}
	zero.Quote.Decimals, zero.Decimals = 0, 0
	mid := newToken(t, 3)

	var seq tradeSeq
	hi := seq.trade(big.Address, 1002, 0, now, curvekit.Buy, max)
	hi.TokenAmount, hi.Fee, hi.CreatorFee, hi.Refund, hi.Price = max, max, max, max, max
	hi.ReserveQuote, hi.ReserveToken = max, max
	lo := seq.trade(big.Address, 1002, 1, now, curvekit.Sell, uint256.Int{})
	lo.TokenAmount, lo.Fee, lo.CreatorFee, lo.Refund, lo.Price = uint256.Int{}, uint256.Int{}, uint256.Int{}, uint256.Int{}, uint256.Int{}
	lo.ReserveQuote, lo.ReserveToken = uint256.Int{}, uint256.Int{}
	apply(t, s, &market.Batch{Launches: []market.Token{big, zero, mid}, Trades: []market.Trade{hi, lo}})

	for _, want := range []market.Token{big, zero} {
		if got := mustToken(t, s, want.Address); !cmp.Equal(got, want, cmpOpts...) {
			t.Errorf("token with extreme amounts (-got +want):\n%s", cmp.Diff(got, want, cmpOpts...))
		}
	}
	got := walkTrades(t, s, market.TradeQuery{Token: big.Address})
	if diff := cmp.Diff(got, []market.Trade{lo, hi}, cmpOpts...); diff != "" {
		t.Errorf("trades with 0 and 2^256-1 amounts (-got +want):\n%s", diff)
	}
	day, err := s.Day(ctx, big.Address)
	if want := (market.Day{At: now, Volume: max, Buys: 1, Sells: 1}); err != nil || !cmp.Equal(day, want) {
		t.Errorf("Day = %+v, %v; want %+v", day, err, want)
	}
	if mc := big.MarketCap(); mc != max {
		t.Fatalf("fixture: market cap %s, want 2^256-1", mc.Dec())
	}
	byCap := addresses(walkTokens(t, s, market.TokenQuery{Sort: market.SortMarketCap, Now: now}))
	if diff := cmp.Diff(byCap, []common.Address{big.Address, mid.Address, zero.Address}); diff != "" {
		t.Errorf("market-cap order with a saturated cap (-got +want):\n%s", diff)
	}
}

func testConcurrentApply(t *testing.T, s market.Store) {
	ctx := context.Background()
	const writers, batches, perBatch = 4, 5, 20
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tok := newToken(t, w)
			seq := tradeSeq{n: w * 1_000_000}
			for i := range batches {
				b := &market.Batch{Cursor: market.Cursor{Block: uint64(i)}}
				if i == 0 {
					b.Launches = []market.Token{tok}
				}
				for j := range perBatch {
					b.Trades = append(b.Trades, seq.trade(tok.Address, uint64(10_000*w+i), uint(j), now, curvekit.Buy, units(1)))
				}
				b.Updates = []market.Token{traded(tok, uint64(i+1), now)}
				if err := s.Apply(ctx, b); err != nil {
					t.Errorf("writer %d batch %d: %v", w, i, err)
					return
				}
			}
		}()
	}
	// Readers run alongside.
	wg.Add(1)
	go func() {
		defer wg.Done()
		for range 20 {
			if _, err := s.Tokens(ctx, market.TokenQuery{Sort: market.SortVolume24h, Now: now}); err != nil {
				t.Errorf("Tokens during writes: %v", err)
				return
			}
			if _, err := s.Day(ctx, address(kindToken, 0)); err != nil && !errors.Is(err, curvekit.ErrNotFound) {
				t.Errorf("Day during writes: %v", err)
				return
			}
		}
	}()
	wg.Wait()
	if t.Failed() {
		return
	}
	addrs := make([]common.Address, writers)
	for w := range addrs {
		addrs[w] = address(kindToken, w)
	}
	for _, a := range addrs {
		// The writers' cursors interleave, so a batch may come after a later cursor, as a batch
		// applied again does: the trades, not the day's figures, count what was written.
		trades := walkTrades(t, s, market.TradeQuery{Token: a})
		buys := 0
		for _, tr := range trades {
			if tr.Side == curvekit.Buy {
				buys++
			}
		}
		if len(trades) != batches*perBatch || buys != len(trades) {
			t.Errorf("token %s has %d trades, %d buys; want %d buys", a, len(trades), buys, batches*perBatch)
		}
		if got := mustToken(t, s, a).State.RealQuote; got != units(batches) {
			t.Errorf("token %s real quote %s, want the last update's", a, got.Dec())
		}
	}
}

// testHostileText: token text comes from the chain, so it may hold NUL and invalid UTF-8.
func testHostileText(t *testing.T, s market.Store) {
	ctx := context.Background()
	tok := newToken(t, 1)
	tok.Name, tok.Symbol, tok.URI = "a\x00b\xff\xfec", "\xff", "ipfs://\x00"
	tok.Quote.Symbol = "E\x00TH"
	plain := newToken(t, 2)
	apply(t, s, &market.Batch{Launches: []market.Token{tok, plain}})
	want := tok
	want.Name, want.Symbol, want.URI = "a\uFFFDb\uFFFDc", "\uFFFD", "ipfs://\uFFFD"
	want.Quote.Symbol = "E\uFFFDTH"
	if got := mustToken(t, s, tok.Address); !cmp.Equal(got, want, cmpOpts...) {
		t.Fatalf("token with NUL and invalid UTF-8 (-got +want):\n%s", cmp.Diff(got, want, cmpOpts...))
	}
	for _, search := range []string{"b\xff", "\x00", "\uFFFD", "A\uFFFDB"} {
		page, err := s.Tokens(ctx, market.TokenQuery{Search: search, Now: now})
		if err != nil {
			t.Fatalf("Tokens(search %q): %v", search, err)
		}
		if diff := cmp.Diff(addresses(page.Tokens), []common.Address{tok.Address}); diff != "" {
			t.Errorf("Tokens(search %q) (-got +want):\n%s", search, diff)
		}
	}
}
