package curve

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/holiman/uint256"
)

// n parses a decimal amount for test tables.
func n(s string) uint256.Int { return *uint256.MustFromDecimal(s) }

func ptr(x uint256.Int) *uint256.Int { return &x }

// smallParams are hand-sized parameters: k0 = 1e9, vQ reaches 2,000 at graduation, so vT cannot
// fall below 500,000 and exactly realToken0 = 500,000 tokens can be sold.
func smallParams() Params {
	return Params{
		VirtualQuote0:   n("1000"),
		VirtualToken0:   n("1000000"),
		TokenSupply:     n("800000"),
		RealToken0:      n("500000"),
		GraduationQuote: n("1000"),
		FeeBps:          100,
		CreatorShareBps: 5000,
	}
}

func st(vQ, vT, rQ, rT string) State {
	return State{VirtualQuote: n(vQ), VirtualToken: n(vT), RealQuote: n(rQ), RealToken: n(rT)}
}

func mustDefault(t testing.TB) Params {
	t.Helper()
	p, err := DefaultParams(18)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestDefaultParams(t *testing.T) {
	t.Parallel()
	p := mustDefault(t)
	want := Params{
		VirtualQuote0:   n("30000000000000000000"),
		VirtualToken0:   n("1073000000000000000000000000"),
		TokenSupply:     n("1000000000000000000000000000"),
		RealToken0:      n("793100000000000000000000000"),
		GraduationQuote: n("85000000000000000000"),
		FeeBps:          100,
		CreatorShareBps: 5000,
	}
	if d := cmp.Diff(want, p); d != "" {
		t.Fatalf("DefaultParams(18) (-want +got):\n%s", d)
	}
	usdc, err := DefaultParams(6)
	if err != nil {
		t.Fatal(err)
	}
	if usdc.VirtualQuote0 != n("30000000") || usdc.GraduationQuote != n("85000000") {
		t.Fatalf("DefaultParams(6) quote amounts %s %s", &usdc.VirtualQuote0, &usdc.GraduationQuote)
	}
	if _, err := DefaultParams(0); err != nil {
		t.Fatalf("DefaultParams(0): %v", err)
	}
	if _, err := DefaultParams(48); err != nil {
		t.Fatalf("DefaultParams(48): %v", err)
	}
	for _, d := range []uint8{49, 77, 78, 255} {
		if _, err := DefaultParams(d); !errors.Is(err, ErrInvalidParams) {
			t.Errorf("DefaultParams(%d) error %v, want ErrInvalidParams", d, err)
		}
	}
}

func TestValidate(t *testing.T) {
	t.Parallel()
	max := n("115792089237316195423570985008687907853269984665640564039457584007913129639935")
	tests := []struct {
		name     string
		mod      func(*Params)
		overflow bool
		ok       bool
	}{
		{"small", func(*Params) {}, false, true},
		{"zero virtualQuote0", func(p *Params) { p.VirtualQuote0 = n("0") }, false, false},
		{"zero virtualToken0", func(p *Params) { p.VirtualToken0 = n("0") }, false, false},
		{"zero tokenSupply", func(p *Params) { p.TokenSupply = n("0") }, false, false},
		{"zero realToken0", func(p *Params) { p.RealToken0 = n("0") }, false, false},
		{"zero graduationQuote", func(p *Params) { p.GraduationQuote = n("0") }, false, false},
		{"zero fee", func(p *Params) { p.FeeBps = 0 }, false, false},
		{"zero creator share is fine", func(p *Params) { p.CreatorShareBps = 0 }, false, true},
		{"fee at max", func(p *Params) { p.FeeBps = 1000 }, false, true},
		{"fee above max", func(p *Params) { p.FeeBps = 1001 }, false, false},
		{"creator share at max", func(p *Params) { p.CreatorShareBps = 10000 }, false, true},
		{"creator share above max", func(p *Params) { p.CreatorShareBps = 10001 }, false, false},
		{"realToken0 == tokenSupply", func(p *Params) { p.TokenSupply = n("500000") }, false, true},
		{"realToken0 > tokenSupply", func(p *Params) { p.TokenSupply = n("499999") }, false, false},
		{"realToken0 == virtualToken0", func(p *Params) { p.RealToken0 = n("1000000"); p.TokenSupply = n("1000000") }, false, false},
		// vT0 - ceil(1e9/2000) = 500,000: one token less for sale breaks "can always deliver".
		{"cannot deliver", func(p *Params) { p.RealToken0 = n("499999") }, false, false},
		// ceil(1e9/2001) = 499,751 (499,750.12...): 500,249 must be for sale.
		{"deliver boundary ok", func(p *Params) { p.GraduationQuote = n("1001"); p.RealToken0 = n("500249") }, false, true},
		{"deliver boundary short", func(p *Params) { p.GraduationQuote = n("1001"); p.RealToken0 = n("500248") }, false, false},
		{"k overflows", func(p *Params) { p.VirtualQuote0 = max; p.VirtualToken0 = n("2"); p.RealToken0 = n("1") }, true, false},
		{"vQ0+G overflows", func(p *Params) {
			p.VirtualQuote0 = n("57896044618658097711785492504343953926634992332820282019728792003956564819967") // 2^255-1
			p.VirtualToken0 = n("2")
			p.RealToken0 = n("1")
			p.GraduationQuote = n("57896044618658097711785492504343953926634992332820282019728792003956564819969") // 2^255+1
		}, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := smallParams()
			tt.mod(&p)
			err := p.Validate()
			if tt.ok != (err == nil) {
				t.Fatalf("Validate() = %v, want ok=%v", err, tt.ok)
			}
			if err != nil && !errors.Is(err, ErrInvalidParams) {
				t.Fatalf("Validate() = %v, want ErrInvalidParams", err)
			}
			if tt.overflow != errors.Is(err, ErrOverflow) {
				t.Fatalf("Validate() = %v, want overflow=%v", err, tt.overflow)
			}
			if refValidate(&p) != tt.ok {
				t.Fatalf("reference Validate disagrees")
			}
		})
	}
}

func TestQuoteBuyTable(t *testing.T) {
	t.Parallel()
	small := smallParams()
	def := mustDefault(t)
	tests := []struct {
		name string
		p    Params
		s    State
		in   string
		want Buy
		err  error
	}{
		{
			// net = 101*10000/10100 = 100, fee 1 (creator 1*5000/10000 = 0, protocol 1),
			// tokens = 100*1e6/1100 = 90,909; impact (1e8 - 90,909,000)*1e4/90,909,000 = 1000.
			name: "small buy", p: small, s: small.Initial(), in: "101",
			want: Buy{
				In: n("101"), Net: n("100"), Fee: n("1"), CreatorFee: n("0"), ProtocolFee: n("1"),
				TokensOut: n("90909"), ImpactBps: 1000,
				Traded: st("1100", "909091", "100", "409091"),
				After:  st("1100", "909091", "100", "409091"),
			},
		},
		{
			// Crossing buy: net0 = 1980 >= 1000 so net = 1000, fee = ceil(1000*100/1e4) = 10,
			// refund = 2000-1000-10 = 990, tokens = 1000*1e6/2000 = 500,000 = all for sale.
			// Graduation: balance = 0 + 300,000, poolToken = min(1000*500,000/2000, 300,000).
			name: "crossing buy graduates", p: small, s: small.Initial(), in: "2000",
			want: Buy{
				In: n("2000"), Net: n("1000"), Fee: n("10"), CreatorFee: n("5"), ProtocolFee: n("5"),
				Refund: n("990"), TokensOut: n("500000"), ImpactBps: 10000, Graduates: true,
				Traded:     st("2000", "500000", "1000", "0"),
				After:      State{VirtualQuote: n("2000"), VirtualToken: n("500000"), Graduated: true},
				Graduation: Graduation{PoolQuote: n("1000"), PoolToken: n("250000"), Burned: n("50000")},
			},
		},
		{
			// net0 = 1010*10000/10100 = 1000 hits the threshold exactly: the capped branch
			// recomputes fee = ceil(10) = 10 and refund 0.
			name: "exact hit", p: small, s: small.Initial(), in: "1010",
			want: Buy{
				In: n("1010"), Net: n("1000"), Fee: n("10"), CreatorFee: n("5"), ProtocolFee: n("5"),
				TokensOut: n("500000"), ImpactBps: 10000, Graduates: true,
				Traded:     st("2000", "500000", "1000", "0"),
				After:      State{VirtualQuote: n("2000"), VirtualToken: n("500000"), Graduated: true},
				Graduation: Graduation{PoolQuote: n("1000"), PoolToken: n("250000"), Burned: n("50000")},
			},
		},
		{
			// net0 = 10,110,000/10,100 = 1000 (floor of 1000.99): fee recomputed as 10 leaves
			// a refund of 1 even though the uncapped net was not above the threshold.
			name: "exact hit with refund", p: small, s: small.Initial(), in: "1011",
			want: Buy{
				In: n("1011"), Net: n("1000"), Fee: n("10"), CreatorFee: n("5"), ProtocolFee: n("5"),
				Refund: n("1"), TokensOut: n("500000"), ImpactBps: 10000, Graduates: true,
				Traded:     st("2000", "500000", "1000", "0"),
				After:      State{VirtualQuote: n("2000"), VirtualToken: n("500000"), Graduated: true},
				Graduation: Graduation{PoolQuote: n("1000"), PoolToken: n("250000"), Burned: n("50000")},
			},
		},
		{
			// One below: net0 = 1009*10000/10100 = 999, no cap.
			name: "just below graduation", p: small, s: small.Initial(), in: "1009",
			want: Buy{
				In: n("1009"), Net: n("999"), Fee: n("10"), CreatorFee: n("5"), ProtocolFee: n("5"),
				// 999e6/1999 = 499,749.87...; impact (999e6 - 499,749,000)*1e4/499,749,000 = 9990
				TokensOut: n("499749"), ImpactBps: 9990,
				Traded: st("1999", "500251", "999", "251"),
				After:  st("1999", "500251", "999", "251"),
			},
		},
		{
			name: "default 1 ether", p: def, s: def.Initial(), in: "1000000000000000000",
			want: Buy{
				In: n("1000000000000000000"), Net: n("990099009900990099"), Fee: n("9900990099009901"),
				CreatorFee: n("4950495049504950"), ProtocolFee: n("4950495049504951"),
				TokensOut: n("34281150159744408945355041"), ImpactBps: 330,
				Traded: st("30990099009900990099", "1038718849840255591054644959", "990099009900990099", "758818849840255591054644959"),
				After:  st("30990099009900990099", "1038718849840255591054644959", "990099009900990099", "758818849840255591054644959"),
			},
		},
		{name: "zero", p: small, s: small.Initial(), in: "0", err: ErrZeroAmount},
		{name: "one wei: net rounds to 0", p: small, s: small.Initial(), in: "1", err: ErrTooSmall},
		{name: "graduated", p: small, s: State{Graduated: true}, in: "100", err: ErrGraduated},
		{name: "in*BPS overflows", p: small, s: small.Initial(), in: "115792089237316195423570985008687907853269984665640564039457584007913129639935", err: ErrOverflow},
		// An inconsistent state with fewer real tokens than the curve would sell.
		{name: "more than rT", p: small, s: st("1000", "1000000", "0", "10"), in: "101", err: ErrInsufficientReserve},
		{name: "rQ above threshold", p: small, s: st("1000", "1000000", "1001", "500000"), in: "101", err: ErrOverflow},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := QuoteBuy(&tt.p, &tt.s, ptr(n(tt.in)))
			if !errors.Is(err, tt.err) || (tt.err == nil) != (err == nil) {
				t.Fatalf("QuoteBuy error %v, want %v", err, tt.err)
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Fatalf("QuoteBuy (-want +got):\n%s", d)
			}
			checkBuyRef(t, &tt.p, &tt.s, ptr(n(tt.in)))
		})
	}
}

func TestQuoteSellTable(t *testing.T) {
	t.Parallel()
	small := smallParams()
	def := mustDefault(t)
	afterSmall := st("1100", "909091", "100", "409091")
	afterDef := st("30990099009900990099", "1038718849840255591054644959", "990099009900990099", "758818849840255591054644959")
	tests := []struct {
		name string
		p    Params
		s    State
		in   string
		want Sell
		err  error
	}{
		{
			// gross = 90,909*1100/1,000,000 = 99, fee = ceil(0.99) = 1, out 98;
			// impact (99,999,900 - 90,000,009)*1e4/99,999,900 = 999.
			name: "sell back", p: small, s: afterSmall, in: "90909",
			want: Sell{
				TokensIn: n("90909"), Gross: n("99"), Fee: n("1"), CreatorFee: n("0"), ProtocolFee: n("1"),
				Out: n("98"), ImpactBps: 999, After: st("1001", "1000000", "1", "500000"),
			},
		},
		{
			name: "default sell half", p: def, s: afterDef, in: "17140575079872204472677520",
			want: Sell{
				TokensIn: n("17140575079872204472677520"), Gross: n("503086022888003086"),
				Fee: n("5030860228880031"), CreatorFee: n("2515430114440015"), ProtocolFee: n("2515430114440016"),
				Out: n("498055162659123055"), ImpactBps: 162,
				After: st("30487012987012987013", "1055859424920127795527322479", "487012987012987013", "775959424920127795527322479"),
			},
		},
		{name: "zero", p: small, s: afterSmall, in: "0", err: ErrZeroAmount},
		{name: "graduated", p: small, s: State{Graduated: true}, in: "1", err: ErrGraduated},
		// gross = 1*1100/909,092 = 0
		{name: "gross rounds to 0", p: small, s: afterSmall, in: "1", err: ErrTooSmall},
		// gross = 1000*1100/910,091 = 1, fee = ceil(0.01) = 1, out 0
		{name: "fee eats everything", p: small, s: afterSmall, in: "1000", err: ErrTooSmall},
		// gross = 300,000*1100/1,209,091 = 272 > rQ = 100
		{name: "more than rQ", p: small, s: afterSmall, in: "300000", err: ErrInsufficientReserve},
		{name: "amount*vQ overflows", p: small, s: afterSmall, in: "115792089237316195423570985008687907853269984665640564039457584007913129639935", err: ErrOverflow},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := QuoteSell(&tt.p, &tt.s, ptr(n(tt.in)))
			if !errors.Is(err, tt.err) || (tt.err == nil) != (err == nil) {
				t.Fatalf("QuoteSell error %v, want %v", err, tt.err)
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Fatalf("QuoteSell (-want +got):\n%s", d)
			}
			checkSellRef(t, &tt.p, &tt.s, ptr(n(tt.in)))
		})
	}
}

func TestGraduate(t *testing.T) {
	t.Parallel()
	p := smallParams()
	traded := st("2000", "500000", "1000", "0")
	tests := []struct {
		name    string
		s       State
		balance string
		want    Graduation
		err     error
	}{
		{"own balance", traded, "300000", Graduation{PoolQuote: n("1000"), PoolToken: n("250000"), Burned: n("50000")}, nil},
		{"donated tokens are burned", traded, "310000", Graduation{PoolQuote: n("1000"), PoolToken: n("250000"), Burned: n("60000")}, nil},
		{"balance below the price", traded, "200000", Graduation{PoolQuote: n("1000"), PoolToken: n("200000"), Burned: n("0")}, nil},
		// floor(sqrt(1000*1002)) = 1000: the pair cannot mint more than MINIMUM_LIQUIDITY.
		{"too little liquidity", traded, "1002", Graduation{}, ErrTooSmall},
		{"just enough liquidity", traded, "1003", Graduation{PoolQuote: n("1000"), PoolToken: n("1003"), Burned: n("0")}, nil},
		{"not at threshold", st("1999", "500251", "999", "251"), "300251", Graduation{}, ErrInvalidState},
		{"already graduated", State{VirtualQuote: n("2000"), VirtualToken: n("500000"), RealQuote: n("1000"), Graduated: true}, "300000", Graduation{}, ErrInvalidState},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := p.Graduate(&tt.s, ptr(n(tt.balance)))
			if !errors.Is(err, tt.err) || (tt.err == nil) != (err == nil) {
				t.Fatalf("Graduate error %v, want %v", err, tt.err)
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Fatalf("Graduate (-want +got):\n%s", d)
			}
		})
	}
	// uint112 reserves: a graduation whose pool would hold 2^112 tokens reverts.
	huge := Params{GraduationQuote: n("1")}
	s := State{VirtualQuote: n("1"), VirtualToken: n("5192296858534827628530496329220096"), RealQuote: n("1")}
	if _, err := huge.Graduate(&s, ptr(n("5192296858534827628530496329220096"))); !errors.Is(err, ErrOverflow) {
		t.Fatalf("pool above uint112: %v", err)
	}
	if _, err := huge.Graduate(&s, ptr(n("5192296858534827628530496329220095"))); err != nil {
		t.Fatalf("pool at uint112 max: %v", err)
	}
}

func TestPoolTable(t *testing.T) {
	t.Parallel()
	// 1000*9970*20000/(10000*10000 + 1000*9970) = 199,400,000,000/109,970,000 = 1813.2
	out, err := AmountOut(ptr(n("1000")), ptr(n("10000")), ptr(n("20000")), 30)
	if err != nil || out != n("1813") {
		t.Fatalf("AmountOut = %s, %v; want 1813", &out, err)
	}
	// 10000*1813*10000/((20000-1813)*9970) + 1 = 181,300,000,000/181,324,390 + 1 = 999 + 1
	in, err := AmountIn(ptr(n("1813")), ptr(n("10000")), ptr(n("20000")), 30)
	if err != nil || in != n("1000") {
		t.Fatalf("AmountIn = %s, %v; want 1000", &in, err)
	}
	// Exact division: 9970*1*10000/((10001-1)*9970) = 1 exactly, so AmountIn = 2 where 1 suffices.
	in, err = AmountIn(ptr(n("1")), ptr(n("9970")), ptr(n("10001")), 30)
	if err != nil || in != n("2") {
		t.Fatalf("AmountIn exact = %s, %v; want 2", &in, err)
	}
	if o, _ := AmountOut(ptr(n("1")), ptr(n("9970")), ptr(n("10001")), 30); o != n("1") {
		t.Fatalf("AmountOut(1) = %s, want 1 (AmountIn overshoots on exact division)", &o)
	}

	pool := Pool{ReserveQuote: n("10000"), ReserveToken: n("20000"), FeeBps: 30}
	buy, err := pool.QuoteBuy(ptr(n("1000")))
	if err != nil {
		t.Fatal(err)
	}
	// impact (1000*9970*20000 - 1813*10000*10000)*1e4 / (1813*10000*10000)
	//      = (199,400,000,000 - 181,300,000,000)*1e4/181,300,000,000 = 998.3
	want := Swap{In: n("1000"), Out: n("1813"), ImpactBps: 998,
		After: Pool{ReserveQuote: n("11000"), ReserveToken: n("18187"), FeeBps: 30}}
	if d := cmp.Diff(want, buy); d != "" {
		t.Fatalf("Pool.QuoteBuy (-want +got):\n%s", d)
	}
	// Sell 2000 tokens: 2000*9970*10000/(20000*10000 + 2000*9970) = 199,400,000,000/219,940,000 = 906.6
	// impact (199,400,000,000 - 906*20000*10000)*1e4/199,400,000,000 = 912.7
	sell, err := pool.QuoteSell(ptr(n("2000")))
	if err != nil {
		t.Fatal(err)
	}
	want = Swap{In: n("2000"), Out: n("906"), ImpactBps: 912,
		After: Pool{ReserveQuote: n("9094"), ReserveToken: n("22000"), FeeBps: 30}}
	if d := cmp.Diff(want, sell); d != "" {
		t.Fatalf("Pool.QuoteSell (-want +got):\n%s", d)
	}

	errTests := []struct {
		name          string
		in, rIn, rOut string
		fee           uint16
		err           error
	}{
		{"zero in", "0", "1", "1", 30, ErrZeroAmount},
		{"empty in reserve", "1", "0", "1", 30, ErrInsufficientReserve},
		{"empty out reserve", "1", "1", "0", 30, ErrInsufficientReserve},
		{"too small", "1", "1000000", "1000", 30, ErrTooSmall},
		{"fee too high", "1", "1", "1", 1001, ErrInvalidParams},
		{"overflow", "115792089237316195423570985008687907853269984665640564039457584007913129639935", "1", "1", 30, ErrOverflow},
	}
	for _, tt := range errTests {
		if _, err := AmountOut(ptr(n(tt.in)), ptr(n(tt.rIn)), ptr(n(tt.rOut)), tt.fee); !errors.Is(err, tt.err) {
			t.Errorf("AmountOut %s: %v, want %v", tt.name, err, tt.err)
		}
	}
	for _, out := range []string{"20000", "20001"} {
		if _, err := AmountIn(ptr(n(out)), ptr(n("10000")), ptr(n("20000")), 30); !errors.Is(err, ErrInsufficientReserve) {
			t.Errorf("AmountIn(%s): %v, want ErrInsufficientReserve", out, err)
		}
	}
	// uint112 balances
	full := Pool{ReserveQuote: n("5192296858534827628530496329220000"), ReserveToken: n("5000000000000000000000000000000000"), FeeBps: 30}
	if _, err := full.QuoteBuy(ptr(n("95"))); err != nil {
		t.Fatalf("buy to uint112 max: %v", err)
	}
	if _, err := full.QuoteBuy(ptr(n("96"))); !errors.Is(err, ErrOverflow) {
		t.Fatalf("buy above uint112 max: %v", err)
	}
}

func TestDerived(t *testing.T) {
	t.Parallel()
	p := mustDefault(t)
	s := p.Initial()
	spot, err := s.SpotPrice()
	// 30e18 * 1e18 / 1.073e27 = 27,958,993,476.2 wei per token
	if err != nil || spot != n("27958993476") {
		t.Fatalf("SpotPrice = %s, %v", &spot, err)
	}
	mc, err := s.MarketCap(&p.TokenSupply)
	// 30e18 * 1e27 / 1.073e27, without rounding the spot price first
	if err != nil || mc != n("27958993476234855545") {
		t.Fatalf("MarketCap = %s, %v", &mc, err)
	}
	// A 6-decimal pairing asset keeps its digits: 3,000 TUSD virtual reserve.
	usd := State{VirtualQuote: n("3000000000"), VirtualToken: p.VirtualToken0}
	if mc, err := usd.MarketCap(&p.TokenSupply); err != nil || mc != n("2795899347") {
		t.Fatalf("MarketCap with 6 decimals = %s, %v", &mc, err)
	}
	s.RealQuote = n("42500000000000000000")
	if bps, err := p.ProgressBps(&s); err != nil || bps != 5000 {
		t.Fatalf("ProgressBps = %d, %v", bps, err)
	}
	s.RealQuote = n("84999999999999999999")
	if bps, _ := p.ProgressBps(&s); bps != 9999 {
		t.Fatalf("ProgressBps just below = %d", bps)
	}
	if bps, _ := p.ProgressBps(&State{Graduated: true}); bps != BPS {
		t.Fatalf("ProgressBps graduated = %d", bps)
	}
	if _, err := (&State{VirtualQuote: n("1")}).SpotPrice(); !errors.Is(err, ErrInsufficientReserve) {
		t.Fatalf("SpotPrice with vT = 0: %v", err)
	}
	pool := Pool{ReserveQuote: n("85000000000000000000"), ReserveToken: n("206900000000000000000000000")}
	if spot, _ := pool.SpotPrice(); spot != n("410826486225") {
		t.Fatalf("pool SpotPrice = %s", &spot)
	}
}
