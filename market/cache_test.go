package market

import (
	"context"
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/holiman/uint256"

	"github.com/curvekit/curvekit"
	"github.com/curvekit/curvekit/txbuild"
)

// countingStore serves one token and counts the reads.
type countingStore struct {
	Store
	tok   Token
	reads int
}

func (s *countingStore) Token(context.Context, common.Address) (Token, error) {
	s.reads++
	return s.tok, nil
}

func TestTokenCache(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	addr := common.HexToAddress("0x01")
	st := &countingStore{tok: Token{Address: addr, Symbol: "OLD"}}
	b, err := txbuild.New(txbuild.Config{ChainID: 1})
	if err != nil {
		t.Fatal(err)
	}
	svc, err := NewService(ServiceConfig{Store: st, Builder: b, CacheTokens: 10})
	if err != nil {
		t.Fatal(err)
	}
	read := func() string {
		t.Helper()
		tok, err := svc.token(ctx, addr)
		if err != nil {
			t.Fatal(err)
		}
		return tok.Symbol
	}
	if got := read(); got != "OLD" || st.reads != 1 {
		t.Fatalf("first read %q after %d store reads", got, st.reads)
	}
	if got := read(); got != "OLD" || st.reads != 1 {
		t.Fatalf("second read %q after %d store reads, want a cache hit", got, st.reads)
	}

	// A sync's update replaces the entry without a store read.
	upd := Token{Address: addr, Symbol: "NEW", LastTradeAt: 7}
	upd.State.VirtualQuote = *uint256.NewInt(5)
	svc.Observe(Sync{Batch: &Batch{Updates: []Token{upd}}})
	if got := read(); got != "NEW" || st.reads != 1 {
		t.Fatalf("after a sync %q with %d store reads", got, st.reads)
	}

	// A reorganization drops the entry: the next read goes to the store.
	st.tok.Symbol = "REORGED"
	svc.Observe(Sync{Reorged: []common.Address{addr}})
	if got := read(); got != "REORGED" || st.reads != 2 {
		t.Fatalf("after a reorg %q with %d store reads", got, st.reads)
	}

	// A store read that raced with a sync is not cached: it may predate what the sync wrote.
	other := common.HexToAddress("0x02")
	_, _, gen := svc.cache.get(other)
	svc.Observe(Sync{Batch: &Batch{}})
	svc.cache.fill(&View{Token: Token{Address: other}}, gen)
	if _, ok, _ := svc.cache.get(other); ok {
		t.Fatal("a read from before a sync was cached")
	}
}

// dayStore answers Day from figures set by the test, as a store keeps them, and counts reads.
type dayStore struct {
	Store
	day   Day
	reads int
}

func (s *dayStore) Token(_ context.Context, addr common.Address) (Token, error) {
	return Token{Address: addr}, nil
}

func (s *dayStore) Day(context.Context, common.Address) (Day, error) {
	s.reads++
	return s.day, nil
}

// A token's day is served from memory until the next sync, and for MemoTTL at most: a batch
// moves the store's clock, and with it the day of tokens it does not name (their trades leave
// the window), so no sync tells which entries it changed.
func TestDayMemo(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	addr := common.HexToAddress("0x01")
	st := &dayStore{day: Day{At: 1_000, Volume: *uint256.NewInt(3), Buys: 2}}
	b, err := txbuild.New(txbuild.Config{ChainID: 1})
	if err != nil {
		t.Fatal(err)
	}
	svc, err := NewService(ServiceConfig{Store: st, Builder: b, CacheTokens: 10})
	if err != nil {
		t.Fatal(err)
	}
	check := func(what string, reads int) {
		t.Helper()
		v, _, err := svc.tokenDay(ctx, addr)
		if err != nil {
			t.Fatal(err)
		}
		want := Activity{Volume: st.day.Volume, Buys: st.day.Buys, Sells: st.day.Sells}
		if v.Day != want || st.reads != reads {
			t.Fatalf("%s: %+v after %d store reads, want %+v after %d", what, v.Day, st.reads, want, reads)
		}
	}
	check("first read", 1)
	check("again", 1)
	// A batch of another token moved the clock: this token's trade left the window.
	st.day = Day{At: 2_000, Volume: *uint256.NewInt(1), Buys: 1}
	svc.Observe(Sync{Batch: &Batch{Time: 2_000}})
	check("after a sync", 2)
	check("again", 2)
	// A batch that wrote nothing moves the clock without a sync.
	st.day = Day{At: 3_000}
	svc.memo.mu.Lock()
	e := svc.memo.day[addr]
	e.at = e.at.Add(-MemoTTL)
	svc.memo.day[addr] = e
	svc.memo.mu.Unlock()
	check("after MemoTTL", 3)

	// Without CacheTokens every read goes to the store.
	plain, err := NewService(ServiceConfig{Store: st, Builder: b})
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if _, _, err := plain.tokenDay(ctx, addr); err != nil {
			t.Fatal(err)
		}
	}
	if st.reads != 5 {
		t.Fatalf("a service without CacheTokens read the store %d times for 2 reads", st.reads-3)
	}
}

// sniperStore answers Buyers over a fixed list of trades, as a store would, and counts reads.
type sniperStore struct {
	Store
	trades []Trade
	reads  int
}

func (s *sniperStore) Buyers(_ context.Context, q ForwardQuery) ([]common.Address, error) {
	s.reads++
	var out []common.Address
	for _, tr := range s.trades {
		if tr.Token == q.Token && tr.Time >= q.From && tr.Time < q.To && (q.After == nil || tr.Time > q.After.Time) &&
			tr.Side == curvekit.Buy && !slices.Contains(out, tr.Recipient) {
			out = append(out, tr.Recipient)
		}
	}
	return out, nil
}

// A token's snipers are read once: a sync drops them only when it brings a trade of the token
// inside the sniper window, or reorganizes the token; each answer equals the store's.
func TestSniperCache(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	tok := Token{Address: common.HexToAddress("0x01"), CreatedAt: 1_000_000}
	buy := func(at int64, who byte) Trade {
		return Trade{Token: tok.Address, Time: at, Side: curvekit.Buy, Recipient: common.Address{who}}
	}
	st := &sniperStore{trades: []Trade{buy(tok.CreatedAt, 1), buy(tok.CreatedAt+30, 2), buy(tok.CreatedAt+300, 3)}}
	b, err := txbuild.New(txbuild.Config{ChainID: 1})
	if err != nil {
		t.Fatal(err)
	}
	svc, err := NewService(ServiceConfig{Store: st, Builder: b, CacheTokens: 10, SniperWindow: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	check := func(what string, want []byte, reads int) {
		t.Helper()
		got, err := svc.snipers(ctx, &tok)
		if err != nil {
			t.Fatal(err)
		}
		wantSet := map[common.Address]bool{}
		for _, w := range want {
			wantSet[common.Address{w}] = true
		}
		if !maps.Equal(got, wantSet) || st.reads != reads {
			t.Fatalf("%s: %v after %d store reads, want %v after %d", what, got, st.reads, wantSet, reads)
		}
	}
	check("first read", []byte{1, 2}, 1)
	check("again", []byte{1, 2}, 1)
	late := buy(tok.CreatedAt+500, 4)
	st.trades = append(st.trades, late)
	svc.Observe(Sync{Batch: &Batch{Trades: []Trade{late}}})
	check("a sync brought a trade after the window", []byte{1, 2}, 1)
	inside := buy(tok.CreatedAt+60, 5) // the window's last second
	st.trades = append(st.trades, inside)
	svc.Observe(Sync{Batch: &Batch{Trades: []Trade{inside}}})
	check("a sync brought a trade inside the window", []byte{1, 2, 5}, 2)
	st.trades = st.trades[1:]
	svc.Observe(Sync{Reorged: []common.Address{tok.Address}})
	check("a reorganization of the token", []byte{2, 5}, 3)
	check("again", []byte{2, 5}, 3)
}

// A view the service made carries its addresses' EIP-55 forms; a view made elsewhere computes
// them; either way they are what common.Address.Hex says.
func TestViewHexForms(t *testing.T) {
	tok := Token{Address: common.HexToAddress("0x52908400098527886e0f7030069857d2e4169ee7"),
		Curve: common.HexToAddress("0x8617e340b3d01fa5f11f306f4090fd50e238070d"), Creator: common.HexToAddress("0xde709f2102306220921060314715629080e2fb77"),
		Quote: Asset{Address: common.HexToAddress("0x27b1fdb04752bbc536007a920d24acb045561c26")}, Pool: common.HexToAddress("0xfb6916095ca1df60bb79ce92ce3ea74c37c5d359")}
	made := viewOf(tok)
	hand := View{Token: tok}
	for _, v := range []*View{&made, &hand} {
		got := []string{v.AddressHex(), v.CurveHex(), v.CreatorHex(), v.QuoteHex(), v.PoolHex()}
		want := []string{tok.Address.Hex(), tok.Curve.Hex(), tok.Creator.Hex(), tok.Quote.Address.Hex(), tok.Pool.Hex()}
		if !slices.Equal(got, want) {
			t.Errorf("hex forms %v, want %v", got, want)
		}
	}
	if made.hexes == "" {
		t.Error("the service's view computes its hex forms on every read")
	}
}
