package curve_test

import (
	"fmt"

	"github.com/curvekit/curvekit/curve"
	"github.com/holiman/uint256"
)

// Buying with 1 ETH on a fresh curve with the default parameters.
func ExampleQuoteBuy() {
	p, err := curve.DefaultParams(18)
	if err != nil {
		panic(err)
	}
	s := p.Initial()
	buy, err := curve.QuoteBuy(&p, &s, uint256.MustFromDecimal("1000000000000000000"))
	if err != nil {
		panic(err)
	}
	fmt.Println("net:      ", buy.Net.Dec())
	fmt.Println("fee:      ", buy.Fee.Dec(), "creator", buy.CreatorFee.Dec())
	fmt.Println("tokens:   ", buy.TokensOut.Dec())
	fmt.Println("impact:   ", buy.ImpactBps, "bps")
	progress, _ := p.ProgressBps(&buy.After)
	fmt.Println("progress: ", progress, "bps")
	// Output:
	// net:       990099009900990099
	// fee:       9900990099009901 creator 4950495049504950
	// tokens:    34281150159744408945355041
	// impact:    330 bps
	// progress:  116 bps
}

// Selling tokens back, and the smallest sell that pays at least 0.5 ETH.
func ExampleQuoteSell() {
	p, _ := curve.DefaultParams(18)
	s := p.Initial()
	buy, _ := curve.QuoteBuy(&p, &s, uint256.MustFromDecimal("1000000000000000000"))
	s = buy.After

	sell, err := curve.QuoteSell(&p, &s, uint256.MustFromDecimal("17140575079872204472677520"))
	if err != nil {
		panic(err)
	}
	fmt.Println("gross:", sell.Gross.Dec(), "fee:", sell.Fee.Dec(), "out:", sell.Out.Dec())

	exact, err := curve.QuoteSellExactOut(&p, &s, uint256.MustFromDecimal("500000000000000000"))
	if err != nil {
		panic(err)
	}
	fmt.Println("sell", exact.TokensIn.Dec(), "tokens for", exact.Out.Dec())
	// Output:
	// gross: 503086022888003086 fee: 5030860228880031 out: 498055162659123055
	// sell 17208615549154552654200662 tokens for 500000000000000000
}

// The buy that crosses the graduation threshold is capped and refunded, and the curve's
// liquidity opens a pool at the curve's last price.
func ExampleParams_Graduate() {
	p, _ := curve.DefaultParams(18)
	s := p.Initial()
	buy, err := curve.QuoteBuy(&p, &s, uint256.MustFromDecimal("100000000000000000000")) // 100 ETH
	if err != nil {
		panic(err)
	}
	fmt.Println("graduates:", buy.Graduates)
	fmt.Println("net:", buy.Net.Dec(), "fee:", buy.Fee.Dec(), "refund:", buy.Refund.Dec())
	// Graduate recomputes the pool from the curve's actual token balance, which QuoteBuy
	// assumes is its own (nobody sent it tokens).
	bal, _ := p.CurveTokenBalance(&buy.Traded)
	g, err := p.Graduate(&buy.Traded, &bal)
	if err != nil {
		panic(err)
	}
	fmt.Println("pool:", g.PoolQuote.Dec(), "quote,", g.PoolToken.Dec(), "tokens; burned", g.Burned.Dec())
	fmt.Println("same as the quote:", g == buy.Graduation)
	fmt.Println("after:", buy.After.RealQuote.Dec(), buy.After.RealToken.Dec(), buy.After.Graduated)
	// Output:
	// graduates: true
	// net: 85000000000000000000 fee: 850000000000000000 refund: 14150000000000000000
	// pool: 85000000000000000000 quote, 206892249527410207939508507 tokens; burned 20793950850661625708885
	// same as the quote: true
	// after: 0 0 true
}

// Trading on the pool after graduation.
func ExamplePool_QuoteBuy() {
	pool := curve.Pool{
		ReserveQuote: *uint256.MustFromDecimal("85000000000000000000"),
		ReserveToken: *uint256.MustFromDecimal("206900000000000000000000000"),
		FeeBps:       curve.DefaultPoolFeeBps,
	}
	swap, err := pool.QuoteBuy(uint256.MustFromDecimal("1000000000000000000"))
	if err != nil {
		panic(err)
	}
	fmt.Println("tokens:", swap.Out.Dec(), "impact:", swap.ImpactBps, "bps")
	spot, _ := swap.After.SpotPrice()
	fmt.Println("spot after:", spot.Dec(), "wei per token")

	in, _ := curve.AmountIn(uint256.MustFromDecimal("1000000000000000000000000"), &pool.ReserveQuote, &pool.ReserveToken, pool.FeeBps)
	fmt.Println("1M tokens cost:", in.Dec())
	// Output:
	// tokens: 2398680186518134353523960 impact: 117 bps
	// spot after: 420535183237 wei per token
	// 1M tokens cost: 414063949984971915
}
