package app_test

import (
	"context"
	"math/big"
	"slices"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/holiman/uint256"

	"github.com/curvekit/curvekit"
	"github.com/curvekit/curvekit/internal/app/apptest"
	"github.com/curvekit/curvekit/orders"
)

// BenchmarkOrderFireLatency measures, on the devnet, how long a limit buy takes from the trade
// that crosses its trigger being indexed to the fire's transaction being sent through the
// custodial wallet (build, the wallet's guard, simulation, signing, broadcast): from the fire's
// record, made as the indexer commits the trade, to the wallet's send. Each iteration places one
// order just under the price and sells through it; p50 and p99 are reported.
//
//	go test -run XXX -bench OrderFireLatency -benchtime 100x ./internal/app
func BenchmarkOrderFireLatency(b *testing.B) {
	srv := apptest.Start(b, nil)
	a := srv.App
	ctx := context.Background()
	dn := a.Devnet
	deth := dn.ETHToken.Token
	const account = "acc-bench"
	wallet, err := a.Wallets.Create(ctx, account)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := dn.Send(ctx, dn.Accounts[1].Key, &wallet, new(big.Int).Mul(big.NewInt(50), big.NewInt(1e18)), nil); err != nil {
		b.Fatal(err)
	}
	stop := dn.MineEvery(20 * time.Millisecond)
	defer stop()
	trader := dn.Accounts[2]
	devTrade(b, a, trader, deth, curvekit.Buy, "5")
	term := a.Replica.Status().Term
	var lat []time.Duration
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		tok, _ := a.Store.Token(ctx, deth)
		p := orders.TokenPrice(&tok)
		p.Mul(&p, uint256.NewInt(998))
		p.Div(&p, uint256.NewInt(1000))
		if tok.State.Graduated {
			b.Fatal("DETH graduated: the benchmark prices on the curve")
		}
		o, err := a.Orders.Place(ctx, orders.PlaceParams{AccountID: account, Wallet: wallet, Request: orders.Request{
			Kind: "limit", Token: deth.Hex(), Side: "buy", Amount: "0.001", Price: orders.FormatPrice(&p, 18), Slippage: new(float64(5)),
		}})
		if err != nil {
			b.Fatal(err)
		}
		if err := a.OrderEngine.Tick(ctx, term); err != nil {
			b.Fatal(err)
		}
		// Selling half a percent of the curve's virtual token reserve moves the price down about
		// one percent, through the trigger.
		var part uint256.Int
		part.Div(&tok.State.VirtualToken, uint256.NewInt(200))
		if held, _ := a.Chain.Balance(ctx, deth, trader.Address); held.Cmp(&part) < 0 {
			devTrade(b, a, trader, deth, curvekit.Buy, "1")
		}
		b.StartTimer()
		devTrade(b, a, trader, deth, curvekit.Sell, curvekit.FormatAmount(&part, 18))
		waitFor(b, "the fire sent", func() bool {
			got, err := a.Orders.Order(ctx, account, o.ID)
			if err != nil {
				b.Fatal(err)
			}
			if got.State.Final() && got.State != orders.Filled {
				b.Fatalf("the order is %s", got.State)
			}
			if len(got.Fires) == 0 || got.Fires[0].TxHash == (common.Hash{}) {
				return false
			}
			// From the fire's record, made as the indexer commits the trade, to the moment
			// the wallet handed its transaction to the node.
			page, err := a.Wallets.Transactions(ctx, account, "", 5)
			if err != nil {
				b.Fatal(err)
			}
			for _, tx := range page.Transactions {
				if tx.Hash == got.Fires[0].TxHash {
					lat = append(lat, tx.SentAt.Sub(got.Fires[0].CreatedAt))
					return true
				}
			}
			return false
		})
	}
	b.StopTimer()
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(lat[(len(lat)*99)/100].Microseconds())/1000, "p99-ms")
}
