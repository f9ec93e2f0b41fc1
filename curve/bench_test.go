package curve

import (
	"testing"

	"github.com/holiman/uint256"
)

// A mid-curve state on the default parameters (about a third of the way to graduation).
func benchState(b *testing.B) (Params, State) {
	b.Helper()
	p := mustDefault(b)
	s := p.Initial()
	buy, err := QuoteBuy(&p, &s, uint256.MustFromDecimal("30000000000000000000"))
	if err != nil {
		b.Fatal(err)
	}
	return p, buy.After
}

var (
	sinkBuy  Buy
	sinkSell Sell
	sinkSwap Swap
	sinkInt  uint256.Int
)

func BenchmarkQuoteBuy(b *testing.B) {
	p, s := benchState(b)
	in := uint256.MustFromDecimal("1500000000000000000") // 1.5 ether
	b.ReportAllocs()
	for b.Loop() {
		r, err := QuoteBuy(&p, &s, in)
		if err != nil {
			b.Fatal(err)
		}
		sinkBuy = r
	}
}

func BenchmarkQuoteBuyGraduating(b *testing.B) {
	p, s := benchState(b)
	in := uint256.MustFromDecimal("100000000000000000000") // crosses
	b.ReportAllocs()
	for b.Loop() {
		r, err := QuoteBuy(&p, &s, in)
		if err != nil || !r.Graduates {
			b.Fatal(err)
		}
		sinkBuy = r
	}
}

func BenchmarkQuoteSell(b *testing.B) {
	p, s := benchState(b)
	amount := uint256.MustFromDecimal("12345678000000000000000000") // 12.3M tokens
	b.ReportAllocs()
	for b.Loop() {
		r, err := QuoteSell(&p, &s, amount)
		if err != nil {
			b.Fatal(err)
		}
		sinkSell = r
	}
}

func BenchmarkQuoteBuyExactOut(b *testing.B) {
	p, s := benchState(b)
	tokens := uint256.MustFromDecimal("12345678000000000000000000")
	b.ReportAllocs()
	for b.Loop() {
		r, err := QuoteBuyExactOut(&p, &s, tokens)
		if err != nil {
			b.Fatal(err)
		}
		sinkBuy = r
	}
}

func BenchmarkQuoteSellExactOut(b *testing.B) {
	p, s := benchState(b)
	quote := uint256.MustFromDecimal("1000000000000000000")
	b.ReportAllocs()
	for b.Loop() {
		r, err := QuoteSellExactOut(&p, &s, quote)
		if err != nil {
			b.Fatal(err)
		}
		sinkSell = r
	}
}

func BenchmarkPoolAmountOut(b *testing.B) {
	in := uint256.MustFromDecimal("1000000000000000000")
	rIn := uint256.MustFromDecimal("85000000000000000000")
	rOut := uint256.MustFromDecimal("206900000000000000000000000")
	b.ReportAllocs()
	for b.Loop() {
		out, err := AmountOut(in, rIn, rOut, DefaultPoolFeeBps)
		if err != nil {
			b.Fatal(err)
		}
		sinkInt = out
	}
}

func BenchmarkPoolQuoteBuy(b *testing.B) {
	pool := Pool{
		ReserveQuote: *uint256.MustFromDecimal("85000000000000000000"),
		ReserveToken: *uint256.MustFromDecimal("206900000000000000000000000"),
		FeeBps:       DefaultPoolFeeBps,
	}
	in := uint256.MustFromDecimal("1000000000000000000")
	b.ReportAllocs()
	for b.Loop() {
		r, err := pool.QuoteBuy(in)
		if err != nil {
			b.Fatal(err)
		}
		sinkSwap = r
	}
}

func BenchmarkPoolQuoteSell(b *testing.B) {
	pool := Pool{
		ReserveQuote: *uint256.MustFromDecimal("85000000000000000000"),
		ReserveToken: *uint256.MustFromDecimal("206900000000000000000000000"),
		FeeBps:       DefaultPoolFeeBps,
	}
	in := uint256.MustFromDecimal("12345678000000000000000000")
	b.ReportAllocs()
	for b.Loop() {
		r, err := pool.QuoteSell(in)
		if err != nil {
			b.Fatal(err)
		}
		sinkSwap = r
	}
}
