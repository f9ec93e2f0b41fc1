package txbuild_test

import (
	"fmt"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/curvekit/curvekit"
	"github.com/curvekit/curvekit/curve"
	"github.com/curvekit/curvekit/txbuild"
)

// Build a 1 ETH buy on a fresh curve with the default 1% slippage tolerance.
func ExampleBuilder_Trade() {
	b, err := txbuild.New(txbuild.Config{ChainID: 1337, Now: func() time.Time { return time.Unix(1_700_000_000, 0) }})
	if err != nil {
		panic(err)
	}
	params, _ := curve.DefaultParams(18)
	m := txbuild.Market{
		Token:  common.HexToAddress("0x1000000000000000000000000000000000000001"),
		Curve:  common.HexToAddress("0x2000000000000000000000000000000000000002"),
		Params: params,
		State:  params.Initial(),
	}
	wallet := common.HexToAddress("0x3000000000000000000000000000000000000003")
	amount, _ := curvekit.ParseAmount("1", 18)
	q, plan, err := b.Trade(&m, txbuild.Trade{Side: curvekit.Buy, Amount: amount, SlippageBps: txbuild.DefaultSlippageBps, From: wallet})
	if err != nil {
		panic(err)
	}
	fmt.Println("venue:", q.Venue)
	fmt.Println("tokens out:", curvekit.FormatAmount(&q.Out, 18))
	fmt.Println("fee:", curvekit.FormatAmount(&q.Fee, 18), "ETH")
	fmt.Println("to:", plan.Tx.To.Hex())
	fmt.Println("value:", curvekit.FormatAmount(&plan.Tx.Value, 18), "ETH")
	fmt.Printf("selector: %x\n", plan.Tx.Data[:4])
	fmt.Println("approval needed:", plan.Approval != nil)
	// Output:
	// venue: curve
	// tokens out: 34281150.159744408945355041
	// fee: 0.009900990099009901 ETH
	// to: 0x2000000000000000000000000000000000000002
	// value: 1 ETH
	// selector: 40993b26
	// approval needed: false
}
