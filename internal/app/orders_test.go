package app_test

import (
	"context"
	"encoding/json"
	"errors"
	"math/big"
	"net/http"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/holiman/uint256"

	"github.com/curvekit/curvekit"
	"github.com/curvekit/curvekit/adapters/apiclient"
	"github.com/curvekit/curvekit/adapters/evm/devnet"
	"github.com/curvekit/curvekit/agent"
	"github.com/curvekit/curvekit/auth"
	"github.com/curvekit/curvekit/curve"
	"github.com/curvekit/curvekit/internal/app"
	"github.com/curvekit/curvekit/internal/app/apptest"
	"github.com/curvekit/curvekit/market"
	"github.com/curvekit/curvekit/orders"
	"github.com/curvekit/curvekit/push"
	"github.com/curvekit/curvekit/wallet"
)

// devTrade trades token from a devnet account as a person would (approval first when needed)
// and returns once the indexer has the trade.
func devTrade(t testing.TB, a *app.App, acc devnet.Account, token common.Address, side curvekit.Side, amount string) {
	t.Helper()
	ctx := context.Background()
	built, err := a.Market.BuildTx(ctx, token, market.BuildRequest{Side: side, Amount: amount, SlippageBps: 5_000, Wallet: acc.Address, Recipient: acc.Address})
	if err != nil {
		t.Fatalf("build %s %s: %v", side, amount, err)
	}
	if ap := built.Plan.Approval; ap != nil {
		to := ap.To
		if _, err := a.Devnet.Send(ctx, acc.Key, &to, ap.Value.ToBig(), ap.Data); err != nil {
			t.Fatal(err)
		}
	}
	to := built.Plan.Tx.To
	r, err := a.Devnet.Send(ctx, acc.Key, &to, built.Plan.Tx.Value.ToBig(), built.Plan.Tx.Data)
	if err != nil {
		t.Fatal(err)
	}
	last := r.TxHash
	waitFor(t, "the trade indexed", func() bool {
		page, _, err := a.Market.Trades(ctx, market.TradeQuery{Token: token, Limit: 5})
		if err != nil {
			return false
		}
		for _, tr := range page.Trades {
			if tr.TxHash == last {
				return true
			}
		}
		return false
	})
}

// fundedWallet creates account's custodial wallet and sends it wei from a devnet account.
func fundedWallet(t testing.TB, a *app.App, account string, wei *big.Int) common.Address {
	t.Helper()
	ctx := context.Background()
	wallet, err := a.Wallets.Create(ctx, account)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Devnet.Send(ctx, a.Devnet.Accounts[1].Key, &wallet, wei, nil); err != nil {
		t.Fatal(err)
	}
	return wallet
}

func waitFor(t testing.TB, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// End to end on the devnet: real trades move DETH's price through a limit buy, which the leader
// fires through the custodial wallet once and which fills on chain; a trailing stop follows the
// high a buy makes and sells the whole balance (approval first) when a sell drops the price
// through its trail. The fire latency (trade indexed → fire's transaction sent) is logged.
func TestOrdersFireOnTheDevnet(t *testing.T) {
	srv := apptest.Start(t, nil)
	a := srv.App
	ctx := context.Background()
	dn := a.Devnet
	deth := dn.ETHToken.Token
	const account = "acc-orders"
	wallet := fundedWallet(t, a, account, new(big.Int).Mul(big.NewInt(5), big.NewInt(1e18)))
	// The devnet mines what the wallet sends when the test says so.
	stop := dn.MineEvery(20 * time.Millisecond)
	defer stop()
	trader := dn.Accounts[2]
	devTrade(t, a, trader, deth, curvekit.Buy, "1")

	price := func() uint256.Int {
		tok, err := a.Store.Token(ctx, deth)
		if err != nil {
			t.Fatal(err)
		}
		return orders.TokenPrice(&tok)
	}
	p0 := price()
	var trigger uint256.Int
	trigger.Mul(&p0, uint256.NewInt(97))
	trigger.Div(&trigger, uint256.NewInt(100))
	limit, err := a.Orders.Place(ctx, orders.PlaceParams{AccountID: account, Wallet: wallet, Request: orders.Request{
		Kind: "limit", Token: deth.Hex(), Side: "buy", Amount: "0.01", Price: orders.FormatPrice(&trigger, 18), Slippage: new(float64(5)),
	}})
	if err != nil {
		t.Fatal(err)
	}
	// The engine takes the order in at its next tick; the test does not wait for it.
	st := a.Replica.Status()
	if err := a.OrderEngine.Tick(ctx, st.Term); err != nil {
		t.Fatal(err)
	}
	get := func(id string) orders.Order {
		o, err := a.Orders.Order(ctx, account, id)
		if err != nil {
			t.Fatal(err)
		}
		return o
	}
	// A small sell moves the price less than 3%: nothing fires.
	devTrade(t, a, trader, deth, curvekit.Sell, "1000")
	if o := get(limit.ID); o.State != orders.Open {
		t.Fatalf("above its trigger the limit buy is %s", o.State)
	}
	held, err := a.Chain.Balance(ctx, deth, trader.Address)
	if err != nil {
		t.Fatal(err)
	}
	var half uint256.Int
	half.Div(&held, uint256.NewInt(2))
	indexed := time.Now()
	devTrade(t, a, trader, deth, curvekit.Sell, curvekit.FormatAmount(&half, 18))
	var latencies []time.Duration
	waitFor(t, "the limit buy sent", func() bool { return get(limit.ID).State != orders.Open && get(limit.ID).State != orders.Triggered })
	latencies = append(latencies, time.Since(indexed))
	waitFor(t, "the limit buy filled", func() bool { return get(limit.ID).State == orders.Filled })
	o := get(limit.ID)
	f := o.Fires[0]
	if len(o.Fires) != 1 || f.Price.Cmp(&trigger) > 0 || f.Block == 0 || f.AmountIn.Dec() != "10000000000000000" || f.AmountOut.IsZero() {
		t.Fatalf("the limit buy's fire: %+v", o.Fires)
	}
	bal, err := a.Chain.Balance(ctx, deth, wallet)
	if err != nil || bal != f.AmountOut {
		t.Fatalf("the wallet holds %s DETH, the fill says %s (%v)", bal.Dec(), f.AmountOut.Dec(), err)
	}

	// The trailing stop follows the high a buy makes, then sells everything on a 3% drop.
	stopOrder, err := a.Orders.Place(ctx, orders.PlaceParams{AccountID: account, Wallet: wallet, Request: orders.Request{
		Kind: "trailing-stop", Token: deth.Hex(), Percent: new(float64(100)), Trail: new(float64(3)), Slippage: new(float64(10)),
	}})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.OrderEngine.Tick(ctx, st.Term); err != nil {
		t.Fatal(err)
	}
	devTrade(t, a, trader, deth, curvekit.Buy, "2")
	high := price()
	waitFor(t, "the trailing stop's high", func() bool { h := get(stopOrder.ID).High; return h == high })
	if o := get(stopOrder.ID); o.State != orders.Open {
		t.Fatalf("after a rise the trailing stop is %s", o.State)
	}
	held, _ = a.Chain.Balance(ctx, deth, trader.Address)
	half.Div(&held, uint256.NewInt(2))
	indexed = time.Now()
	devTrade(t, a, trader, deth, curvekit.Sell, curvekit.FormatAmount(&half, 18))
	waitFor(t, "the trailing stop sent", func() bool { s := get(stopOrder.ID).State; return s == orders.Sent || s == orders.Filled })
	latencies = append(latencies, time.Since(indexed))
	waitFor(t, "the trailing stop filled", func() bool { return get(stopOrder.ID).State == orders.Filled })
	o = get(stopOrder.ID)
	if len(o.Fires) != 1 || o.Fires[0].AmountIn != bal || o.Fires[0].AmountOut.IsZero() {
		t.Fatalf("the trailing stop's fire: %+v (sold the %s held)", o.Fires, bal.Dec())
	}
	if left, _ := a.Chain.Balance(ctx, deth, wallet); !left.IsZero() {
		t.Errorf("the wallet still holds %s DETH", left.Dec())
	}
	// Exactly one transaction per fire, and the sell's approval.
	if page, err := a.Wallets.Transactions(ctx, account, "", 50); err != nil || len(page.Transactions) != 3 {
		t.Errorf("the wallet sent %d transactions (%v), want the buy, the approval and the sell", len(page.Transactions), err)
	}
	// Each fire's outcome reached the account's events (webhooks, the account stream), committed
	// with the outcome itself: they are there as soon as the order reads filled, each the order
	// as its step left it.
	evs, err := a.DB.Push().Events(ctx, account, 0, 100)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]string{}
	for _, e := range evs {
		var data struct{ State string }
		if err := json.Unmarshal(e.Data, &data); err != nil {
			t.Fatal(err)
		}
		seen[e.ID] = data.State
	}
	for _, id := range []string{limit.ID, stopOrder.ID} {
		if s, f := seen["evt_order_"+id+"_f0_sent"], seen["evt_order_"+id+"_f0_filled"]; s != "sent" || f != "filled" {
			t.Errorf("order %s's events show it %q when sent, %q when filled (events %v)", id, s, f, seen)
		}
	}
	sort.Slice(latencies, func(i, j int) bool { return latencies[i] < latencies[j] })
	t.Logf("fire latency, trade indexed → fire sent: %v", latencies)
}

// The agent composes orders and cancellations for the wallet's owner to confirm and lists what
// is open; none of its tools places or cancels anything.
func TestAgentOrderTools(t *testing.T) {
	srv := apptest.Start(t, nil)
	a := srv.App
	ctx := context.Background()
	deth := a.Devnet.ETHToken.Token
	const account = "acc-agent-orders"
	wallet, err := a.Wallets.Create(ctx, account)
	if err != nil {
		t.Fatal(err)
	}
	run := func(name, args string) agent.ToolResult {
		t.Helper()
		r, err := a.Agent.RunTool(ctx, agent.RunToolParams{Wallet: wallet, Name: name, Args: []byte(args)})
		if err != nil {
			t.Fatalf("%s %s: %v", name, args, err)
		}
		return r
	}
	tok, err := a.Store.Token(ctx, deth)
	if err != nil {
		t.Fatal(err)
	}
	want := orders.TokenPrice(&tok)
	want.Mul(&want, uint256.NewInt(8_000))
	want.Div(&want, uint256.NewInt(10_000))

	r := run("propose_order", `{"kind": "stop-loss", "token": "DETH", "percent": 50, "below": 20}`)
	data := r.Data.(map[string]any)
	req := data["order"].(orders.Request)
	if req.Token != deth.Hex() || req.Price != orders.FormatPrice(&want, 18) || *req.Percent != 50 || data["confirm"] != "POST /orders" {
		t.Fatalf("propose_order composed %+v (%s)", req, r.Summary)
	}
	if page, _ := a.Orders.Orders(ctx, orders.Query{AccountID: account}); len(page.Orders) != 0 {
		t.Fatalf("composing placed %d orders", len(page.Orders))
	}
	if _, err := a.Agent.RunTool(ctx, agent.RunToolParams{Wallet: wallet, Name: "propose_order", Args: []byte(`{"kind": "dca", "token": "DETH", "side": "buy", "amount": "0.01", "asset": "TUSD", "every": "1h", "times": 2}`)}); !errors.Is(err, curvekit.ErrInvalid) {
		t.Errorf("a DCA in the wrong asset: %v", err)
	}
	if _, err := a.Agent.RunTool(ctx, agent.RunToolParams{Wallet: wallet, Name: "propose_order", Args: []byte(`{"kind": "dca", "token": "DETH", "side": "buy", "amount": "0.01", "every": "1s", "times": 0}`)}); !errors.Is(err, curvekit.ErrInvalid) {
		t.Errorf("a DCA with bad params: %v", err)
	}

	// What the person confirms is what the API places.
	placed, err := a.Orders.Place(ctx, orders.PlaceParams{AccountID: account, Wallet: wallet, Request: req})
	if err != nil {
		t.Fatal(err)
	}
	if r := run("list_orders", `{}`); !strings.Contains(r.Summary, placed.ID) {
		t.Errorf("list_orders: %s", r.Summary)
	}
	r = run("cancel_order", `{"token": "DETH"}`)
	if ids := r.Data.(map[string]any)["cancel"].([]string); len(ids) != 1 || ids[0] != placed.ID {
		t.Errorf("cancel_order composed %v", r.Data)
	}
	if o, _ := a.Orders.Order(ctx, account, placed.ID); o.State != orders.Open {
		t.Errorf("composing a cancel cancelled: %s", o.State)
	}
}

// A DCA on the devnet fires its three buys one interval apart, on the engine's clock, each
// through the wallet once and filled on chain; the order ends filled.
func TestOrdersDCAOnTheDevnet(t *testing.T) {
	var offset atomic.Int64
	clock := func() time.Time { return time.Now().Add(time.Duration(offset.Load())) }
	srv := apptest.Start(t, nil, app.WithOrdersClock(clock))
	a := srv.App
	ctx := context.Background()
	dn := a.Devnet
	const account = "acc-dca"
	wallet := fundedWallet(t, a, account, big.NewInt(1e18))
	stop := dn.MineEvery(20 * time.Millisecond)
	defer stop()
	o, err := a.Orders.Place(ctx, orders.PlaceParams{AccountID: account, Wallet: wallet, Request: orders.Request{
		Kind: "dca", Token: dn.ETHToken.Token.Hex(), Side: "buy", Amount: "0.001", Every: "1m", Times: 3,
	}})
	if err != nil {
		t.Fatal(err)
	}
	term := a.Replica.Status().Term
	get := func() orders.Order {
		got, err := a.Orders.Order(ctx, account, o.ID)
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	for n := range 3 {
		if err := a.OrderEngine.Tick(ctx, term); err != nil {
			t.Fatal(err)
		}
		waitFor(t, "the DCA's fire filled", func() bool {
			got := get()
			return len(got.Fires) == n+1 && got.Fires[n].State == orders.FireFilled
		})
		// Within the interval nothing more fires.
		if err := a.OrderEngine.Tick(ctx, term); err != nil {
			t.Fatal(err)
		}
		if got := get(); len(got.Fires) != n+1 {
			t.Fatalf("fire %d: %d fires within one interval", n, len(got.Fires))
		}
		offset.Add(int64(time.Minute))
	}
	got := get()
	if got.State != orders.Filled || got.Fired != 3 {
		t.Fatalf("after three intervals: %s, fired %d", got.State, got.Fired)
	}
	for _, f := range got.Fires {
		if f.AmountIn.Dec() != "1000000000000000" || f.AmountOut.IsZero() {
			t.Errorf("fire %d: in %s out %s", f.N, f.AmountIn.Dec(), f.AmountOut.Dec())
		}
	}
	if page, err := a.Wallets.Transactions(ctx, account, "", 50); err != nil || len(page.Transactions) != 3 {
		t.Errorf("the wallet sent %d transactions (%v), want 3", len(page.Transactions), err)
	}
}

// The kinds the other devnet tests leave out, end to end, and the books balanced against the
// chain: a TWAP buys its total in three slices on the clock; a limit sell of an amount fires when
// a buy lifts the price through it, a stop-loss of an amount when a sell drops it through its
// trigger. Each fires once and each fill is an indexed trade of the fire's transaction. The
// wallet's DETH is what the buys' fills got less what the sells' fills gave, to the base unit,
// and its ETH moved by what the fills say plus the gas the receipts charge, to the wei.
func TestOrdersEveryKindAgreesWithTheChain(t *testing.T) {
	var offset atomic.Int64
	clock := func() time.Time { return time.Now().Add(time.Duration(offset.Load())) }
	srv := apptest.Start(t, nil, app.WithOrdersClock(clock))
	a := srv.App
	ctx := context.Background()
	dn := a.Devnet
	deth := dn.ETHToken.Token
	const account = "acc-kinds"
	wallet := fundedWallet(t, a, account, big.NewInt(1e18))
	eth0, err := a.Chain.Balance(ctx, common.Address{}, wallet)
	if err != nil {
		t.Fatal(err)
	}
	stop := dn.MineEvery(20 * time.Millisecond)
	defer stop()
	term := a.Replica.Status().Term
	tick := func() {
		t.Helper()
		if err := a.OrderEngine.Tick(ctx, term); err != nil {
			t.Fatal(err)
		}
	}
	get := func(id string) orders.Order {
		o, err := a.Orders.Order(ctx, account, id)
		if err != nil {
			t.Fatal(err)
		}
		return o
	}
	place := func(r orders.Request) orders.Order {
		t.Helper()
		r.Token = deth.Hex()
		o, err := a.Orders.Place(ctx, orders.PlaceParams{AccountID: account, Wallet: wallet, Request: r})
		if err != nil {
			t.Fatal(err)
		}
		tick()
		return o
	}
	price := func() uint256.Int {
		tok, err := a.Store.Token(ctx, deth)
		if err != nil {
			t.Fatal(err)
		}
		return orders.TokenPrice(&tok)
	}
	scaled := func(p uint256.Int, pct uint64) string {
		p.Mul(&p, uint256.NewInt(pct))
		p.Div(&p, uint256.NewInt(100))
		return orders.FormatPrice(&p, 18)
	}

	twap := place(orders.Request{Kind: "twap", Side: "buy", Total: "0.003", Over: "3m", Slices: 3})
	for n := range 3 {
		waitFor(t, "the TWAP's slice filled", func() bool {
			o := get(twap.ID)
			return len(o.Fires) == n+1 && o.Fires[n].State == orders.FireFilled
		})
		offset.Add(int64(time.Minute))
		tick()
	}
	if o := get(twap.ID); o.State != orders.Filled {
		t.Fatalf("the TWAP after three slices: %s", o.State)
	}
	held, err := a.Chain.Balance(ctx, deth, wallet)
	if err != nil {
		t.Fatal(err)
	}
	var third uint256.Int
	third.Div(&held, uint256.NewInt(3))
	trader := dn.Accounts[2]
	devTrade(t, a, trader, deth, curvekit.Buy, "2") // what its sell takes back below the stop
	p0 := price()
	limit := place(orders.Request{Kind: "limit", Side: "sell", Amount: curvekit.FormatAmount(&third, 18), Price: scaled(p0, 103), Slippage: new(float64(10))})
	stopLoss := place(orders.Request{Kind: "stop-loss", Amount: curvekit.FormatAmount(&third, 18), Price: scaled(p0, 97), Slippage: new(float64(10))})

	devTrade(t, a, trader, deth, curvekit.Buy, "1")
	waitFor(t, "the limit sell filled", func() bool { return get(limit.ID).State == orders.Filled })
	if o := get(stopLoss.ID); o.State != orders.Open {
		t.Fatalf("the stop-loss after the rise: %s", o.State)
	}
	sold, err := a.Chain.Balance(ctx, deth, trader.Address)
	if err != nil {
		t.Fatal(err)
	}
	devTrade(t, a, trader, deth, curvekit.Sell, curvekit.FormatAmount(&sold, 18))
	waitFor(t, "the stop-loss filled", func() bool { return get(stopLoss.ID).State == orders.Filled })

	// Every fill is its transaction's indexed trade; the books balance against the chain.
	page, _, err := a.Market.Trades(ctx, market.TradeQuery{Token: deth, Limit: 50})
	if err != nil {
		t.Fatal(err)
	}
	byTx := map[common.Hash]market.Trade{}
	for _, tr := range page.Trades {
		byTx[tr.TxHash] = tr
	}
	var ethOut, ethIn, dethIn, dethOut uint256.Int
	for _, id := range []string{twap.ID, limit.ID, stopLoss.ID} {
		o := get(id)
		want := map[string]int{twap.ID: 3, limit.ID: 1, stopLoss.ID: 1}[id]
		if len(o.Fires) != want {
			t.Errorf("%s %s fired %d times, want %d", o.Kind, id, len(o.Fires), want)
		}
		for _, f := range o.Fires {
			tr, ok := byTx[f.TxHash]
			if f.State != orders.FireFilled || !ok || tr.Side != o.Side {
				t.Errorf("%s fire %d: %s, transaction %s indexed %v", o.Kind, f.N, f.State, f.TxHash, ok)
			}
			if o.Side == curvekit.Buy {
				ethOut.Add(&ethOut, &f.AmountIn)
				dethIn.Add(&dethIn, &f.AmountOut)
			} else {
				dethOut.Add(&dethOut, &f.AmountIn)
				ethIn.Add(&ethIn, &f.AmountOut)
			}
		}
		if o.Kind == orders.Limit && o.Fires[0].AmountIn != third || o.Kind == orders.StopLoss && o.Fires[0].AmountIn != third {
			t.Errorf("the %s sold %s, want %s", o.Kind, o.Fires[0].AmountIn.Dec(), third.Dec())
		}
	}
	dethNow, _ := a.Chain.Balance(ctx, deth, wallet)
	if want := new(uint256.Int).Sub(&dethIn, &dethOut); dethNow != *want {
		t.Errorf("the wallet holds %s DETH; the fills say %s", dethNow.Dec(), want.Dec())
	}
	txs, err := a.Wallets.Transactions(ctx, account, "", 50)
	if err != nil {
		t.Fatal(err)
	}
	if len(txs.Transactions) != 7 {
		t.Errorf("the wallet sent %d transactions, want 7 (three slices; each sell's approval of its amount, and the sell)", len(txs.Transactions))
	}
	var gas uint256.Int
	for _, tx := range txs.Transactions {
		var r *types.Receipt
		waitFor(t, "a receipt", func() bool { r, err = dn.Client.TransactionReceipt(ctx, tx.Hash); return err == nil })
		fee := new(big.Int).Mul(new(big.Int).SetUint64(r.GasUsed), r.EffectiveGasPrice)
		gas.Add(&gas, uint256.MustFromBig(fee))
	}
	ethNow, _ := a.Chain.Balance(ctx, common.Address{}, wallet)
	want := new(uint256.Int).Add(&eth0, &ethIn)
	want.Sub(want, &ethOut)
	want.Sub(want, &gas)
	if ethNow != *want {
		t.Errorf("the wallet holds %s wei; start %s, fills in %s out %s, gas %s say %s", ethNow.Dec(), eth0.Dec(), ethIn.Dec(), ethOut.Dec(), gas.Dec(), want.Dec())
	}
}

// An order placed while the token trades on its curve fires on the pool once the token has
// graduated: the take-profit's trigger lies above the highest price the curve can reach, the
// pool's buys after the graduation reach it, and its sell goes through the router.
func TestOrdersAcrossGraduation(t *testing.T) {
	srv := apptest.Start(t, nil)
	a := srv.App
	ctx := context.Background()
	dn := a.Devnet
	deth := dn.ETHToken.Token
	const account = "acc-grad"
	wallet := fundedWallet(t, a, account, big.NewInt(1e18))
	stop := dn.MineEvery(20 * time.Millisecond)
	defer stop()
	term := a.Replica.Status().Term
	// The wallet holds DETH from a limit buy placed above the price (it fires at once).
	tok, _ := a.Store.Token(ctx, deth)
	p := orders.TokenPrice(&tok)
	p.Mul(&p, uint256.NewInt(2))
	buy, err := a.Orders.Place(ctx, orders.PlaceParams{AccountID: account, Wallet: wallet, Request: orders.Request{
		Kind: "limit", Token: deth.Hex(), Side: "buy", Amount: "0.01", Price: orders.FormatPrice(&p, 18)}})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.OrderEngine.Tick(ctx, term); err != nil {
		t.Fatal(err)
	}
	get := func(id string) orders.Order {
		o, err := a.Orders.Order(ctx, account, id)
		if err != nil {
			t.Fatal(err)
		}
		return o
	}
	waitFor(t, "the limit buy filled", func() bool { return get(buy.ID).State == orders.Filled })
	if v := get(buy.ID).Fires[0]; v.Block != 0 {
		t.Errorf("a marketable order fired at block %d, want at placement (0)", v.Block)
	}
	// A take-profit above the highest price the curve can reach (the price after its graduating
	// buy), so that only the pool reaches it.
	tok, _ = a.Store.Token(ctx, deth)
	all, _ := uint256.FromDecimal("1000000000000000000000000")
	last, err := curve.QuoteBuy(&tok.Params, &tok.State, all)
	if err != nil || !last.After.Graduated {
		t.Fatalf("the curve's graduating buy: %+v, %v", last.After, err)
	}
	p = orders.SpotPrice(&last.After.VirtualQuote, &last.After.VirtualToken, tok.Decimals)
	p.Add(&p, new(uint256.Int).Div(&p, uint256.NewInt(50)))
	tp, err := a.Orders.Place(ctx, orders.PlaceParams{AccountID: account, Wallet: wallet, Request: orders.Request{
		Kind: "take-profit", Token: deth.Hex(), Percent: new(float64(100)), Price: orders.FormatPrice(&p, 18), Slippage: new(float64(20))}})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.OrderEngine.Tick(ctx, term); err != nil {
		t.Fatal(err)
	}
	for i := 0; ; i++ {
		tok, _ = a.Store.Token(ctx, deth)
		if tok.State.Graduated {
			break
		}
		if i == 50 {
			t.Fatal("DETH did not graduate")
		}
		devTrade(t, a, dn.Accounts[3], deth, curvekit.Buy, "1")
	}
	// Buys on the pool lift the price to the take-profit.
	for i := 0; ; i++ {
		tok, _ = a.Store.Token(ctx, deth)
		if now := orders.TokenPrice(&tok); now.Cmp(&p) >= 0 {
			break
		}
		if i == 20 {
			t.Fatal("the pool's price did not reach the take-profit")
		}
		devTrade(t, a, dn.Accounts[3], deth, curvekit.Buy, "1")
	}
	deadline := time.Now().Add(20 * time.Second)
	for get(tp.ID).State != orders.Filled {
		if time.Now().After(deadline) {
			tok, _ = a.Store.Token(ctx, deth)
			now := orders.TokenPrice(&tok)
			t.Fatalf("the take-profit is %+v; price %s, trigger %s", get(tp.ID), orders.FormatPrice(&now, 18), orders.FormatPrice(&p, 18))
		}
		time.Sleep(10 * time.Millisecond)
	}
	o := get(tp.ID)
	page, _, err := a.Market.Trades(ctx, market.TradeQuery{Token: deth, Limit: 20})
	if err != nil {
		t.Fatal(err)
	}
	var venue curvekit.Venue
	for _, tr := range page.Trades {
		if tr.TxHash == o.Fires[0].TxHash {
			venue = tr.Venue
		}
	}
	if venue != curvekit.VenuePool || o.Fires[0].AmountOut.IsZero() {
		t.Errorf("the take-profit sold on %q: %+v", venue, o.Fires[0])
	}
	if left, _ := a.Chain.Balance(ctx, deth, wallet); !left.IsZero() {
		t.Errorf("the wallet still holds %s DETH", left.Dec())
	}
}

// An order remembers the API key that placed it, and each fire applies that key as it is then:
// orders of a key revoked since are cancelled at their next fire with KEY_REVOKED (a DCA too,
// with slices left), those of a key whose allowedRecipients refuse the trade with
// RECIPIENT_NOT_ALLOWED; nothing of theirs reaches the chain. An order a session placed fires.
func TestOrdersOfARevokedOrRestrictedKey(t *testing.T) {
	srv := apptest.Start(t, nil)
	a := srv.App
	ctx := context.Background()
	dn := a.Devnet
	deth := dn.ETHToken.Token
	u, _, err := a.DB.Accounts().UpsertUser(ctx, &auth.UpsertUserParams{ID: "acc-keyorders", Provider: "dev", Subject: "keyorders", At: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	wallet, err := a.Wallets.Create(ctx, u.ID)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.DB.Accounts().SetWallet(ctx, u.ID, wallet); err != nil {
		t.Fatal(err)
	}
	if _, err := dn.Send(ctx, dn.Accounts[1].Key, &wallet, big.NewInt(1e18), nil); err != nil {
		t.Fatal(err)
	}
	stop := dn.MineEvery(20 * time.Millisecond)
	defer stop()
	session := &auth.Principal{Kind: auth.KindSession, AccountID: u.ID, Wallet: wallet}
	bot, err := a.Accounts.CreateKey(ctx, session, auth.KeyRequest{Name: "bot"})
	if err != nil {
		t.Fatal(err)
	}
	fenced, err := a.Accounts.CreateKey(ctx, session, auth.KeyRequest{Name: "payouts only", AllowedRecipients: []string{dn.Accounts[3].Address.Hex()}})
	if err != nil {
		t.Fatal(err)
	}
	tok, err := a.Store.Token(ctx, deth)
	if err != nil {
		t.Fatal(err)
	}
	// A limit buy above the price fires at the engine's next tick.
	var above uint256.Int
	now := orders.TokenPrice(&tok)
	above.Mul(&now, uint256.NewInt(2))
	limit := `{"kind":"limit","token":"` + deth.Hex() + `","side":"buy","amount":"0.001","price":"` + orders.FormatPrice(&above, 18) + `","slippage":5}`
	place := func(key, body string) string {
		t.Helper()
		req, _ := http.NewRequest(http.MethodPost, srv.Base+"/orders", strings.NewReader(body))
		req.Header.Set("X-API-Key", key)
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var out struct{ ID string }
		if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || resp.StatusCode != http.StatusCreated {
			t.Fatalf("POST /orders: %d %v", resp.StatusCode, err)
		}
		return out.ID
	}
	revokedLimit := place(bot.Raw, limit)
	revokedDCA := place(bot.Raw, `{"kind":"dca","token":"`+deth.Hex()+`","side":"buy","amount":"0.001","every":"1h","times":3}`)
	fencedLimit := place(fenced.Raw, limit)
	bySession, err := a.Orders.Place(ctx, orders.PlaceParams{AccountID: u.ID, Wallet: wallet, Request: orders.Request{
		Kind: "limit", Token: deth.Hex(), Side: "buy", Amount: "0.001", Price: orders.FormatPrice(&above, 18), Slippage: new(float64(5)),
	}})
	if err != nil {
		t.Fatal(err)
	}
	get := func(id string) orders.Order {
		o, err := a.Orders.Order(ctx, u.ID, id)
		if err != nil {
			t.Fatal(err)
		}
		return o
	}
	if o := get(revokedLimit); o.KeyID != bot.Key.ID || get(fencedLimit).KeyID != fenced.Key.ID || bySession.KeyID != "" {
		t.Fatalf("the placing keys: %q %q %q", o.KeyID, get(fencedLimit).KeyID, bySession.KeyID)
	}
	if err := a.Accounts.RevokeKey(ctx, session, bot.Key.ID); err != nil {
		t.Fatal(err)
	}
	if err := a.OrderEngine.Tick(ctx, a.Replica.Status().Term); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the session's order filled", func() bool { return get(bySession.ID).State == orders.Filled })
	for id, code := range map[string]string{revokedLimit: "KEY_REVOKED", revokedDCA: "KEY_REVOKED", fencedLimit: "RECIPIENT_NOT_ALLOWED"} {
		o := get(id)
		if o.State != orders.Cancelled || o.Reason != code || len(o.Fires) != 1 || o.Fires[0].State != orders.FireFailed || o.Fires[0].Code != code {
			t.Errorf("%s (%s): %s %q %+v", id, o.Kind, o.State, o.Reason, o.Fires)
		}
		// Its fire's events and the cancellation, each recorded once with the step that made
		// it; the cancellation's data is the order as it reads now, with the refusal's code.
		evs, err := a.DB.Push().Events(ctx, u.ID, 0, 1000)
		if err != nil {
			t.Fatal(err)
		}
		seen := map[string]int{}
		for _, ev := range evs {
			seen[ev.ID]++
			if ev.ID == "evt_order_"+id+"_cancelled" {
				if ev.Type != push.OrderCancelled || !strings.Contains(string(ev.Data), `"state":"cancelled"`) || !strings.Contains(string(ev.Data), `"reason":"`+code+`"`) {
					t.Errorf("%s's cancellation event %s %s, want the cancelled order with reason %s", id, ev.Type, ev.Data, code)
				}
			}
		}
		f := o.Fires[0].ID
		for _, want := range []string{"evt_order_" + f + "_triggered", "evt_order_" + f + "_failed", "evt_order_" + id + "_cancelled"} {
			if seen[want] != 1 {
				t.Errorf("%s recorded %d times, want once (events %v)", want, seen[want], seen)
			}
		}
	}
	if page, err := a.Wallets.Transactions(ctx, u.ID, "", 50); err != nil || len(page.Transactions) != 1 {
		t.Errorf("the wallet sent %d transactions (%v), want the session's order's buy alone", len(page.Transactions), err)
	}
}

// A sell fire lists every transaction it sends, each with its kind: the curve's approval, sent
// only because the wallet's allowance on chain fell short, then the sell; over HTTP, each is the
// wallet's transaction of that hash. A sell whose allowance the wallet granted already sends its
// trade alone: the fire pays for no approval.
func TestOrdersSellFireListsItsTransactions(t *testing.T) {
	srv := apptest.Start(t, nil)
	a := srv.App
	ctx := context.Background()
	dn := a.Devnet
	deth := dn.ETHToken.Token
	u, _, err := a.DB.Accounts().UpsertUser(ctx, &auth.UpsertUserParams{ID: "acc-firetxs", Provider: "dev", Subject: "firetxs", At: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	w := fundedWallet(t, a, u.ID, big.NewInt(1e18))
	if _, err := a.DB.Accounts().SetWallet(ctx, u.ID, w); err != nil {
		t.Fatal(err)
	}
	stop := dn.MineEvery(20 * time.Millisecond)
	defer stop()
	session := &auth.Principal{Kind: auth.KindSession, AccountID: u.ID, Wallet: w}
	bot, err := a.Accounts.CreateKey(ctx, session, auth.KeyRequest{Name: "bot"})
	if err != nil {
		t.Fatal(err)
	}
	cl, err := apiclient.New(apiclient.Config{BaseURL: srv.Base, APIKey: bot.Raw})
	if err != nil {
		t.Fatal(err)
	}
	tok, err := a.Store.Token(ctx, deth)
	if err != nil {
		t.Fatal(err)
	}
	now := orders.TokenPrice(&tok)
	var above, below uint256.Int
	above.Mul(&now, uint256.NewInt(2))
	below.Div(&now, uint256.NewInt(2))
	// fire places an order beyond its trigger (it fires at the engine's next tick) and returns
	// it filled, as GET /orders/:id reads.
	fire := func(r orders.Request) apiclient.Order {
		t.Helper()
		o, err := cl.PlaceOrder(ctx, r)
		if err != nil {
			t.Fatal(err)
		}
		if err := a.OrderEngine.Tick(ctx, a.Replica.Status().Term); err != nil {
			t.Fatal(err)
		}
		waitFor(t, "order "+o.ID+" filled", func() bool {
			o, err = cl.Order(ctx, o.ID)
			return err == nil && (o.State == "filled" || o.State == "failed")
		})
		if o.State != "filled" || len(o.Fires) != 1 {
			t.Fatalf("order %s: %s, fires %+v", o.ID, o.State, o.Fires)
		}
		return o
	}
	sent := func() map[string]wallet.Transaction {
		page, err := a.Wallets.Transactions(ctx, u.ID, "", wallet.MaxTransactions)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]wallet.Transaction{}
		for _, tx := range page.Transactions {
			out[tx.Hash.Hex()] = tx
		}
		return out
	}
	kinds := func(f apiclient.Fire) string {
		var k []string
		for _, tx := range f.Transactions {
			k = append(k, tx.Kind)
		}
		return strings.Join(k, ",")
	}

	// A buy spends ETH: its trade alone.
	buy := fire(orders.Request{Kind: "limit", Token: deth.Hex(), Side: "buy", Amount: "0.01", Price: orders.FormatPrice(&above, 18), Slippage: new(float64(5))})
	if f := buy.Fires[0]; kinds(f) != "trade" || f.TxHash == nil || f.Transactions[0].Hash != *f.TxHash {
		t.Errorf("the buy's fire lists %+v (trade %v)", f.Transactions, f.TxHash)
	}
	held, err := a.Chain.Balance(ctx, deth, w)
	if err != nil {
		t.Fatal(err)
	}
	var quarter uint256.Int
	quarter.Div(&held, uint256.NewInt(4))
	amount := curvekit.FormatAmount(&quarter, 18)

	// The first sell: the wallet has granted the curve nothing, so the fire approves exactly
	// what it sells, then sells.
	before := len(sent())
	sell := fire(orders.Request{Kind: "take-profit", Token: deth.Hex(), Amount: amount, Price: orders.FormatPrice(&below, 18), Slippage: new(float64(10))})
	f := sell.Fires[0]
	if kinds(f) != "approve,trade" || f.TxHash == nil || f.Transactions[1].Hash != *f.TxHash {
		t.Fatalf("the sell's fire lists %+v (trade %v); want its approval, then its trade", f.Transactions, f.TxHash)
	}
	txs := sent()
	if len(txs) != before+2 {
		t.Errorf("the sell sent %d transactions, want 2", len(txs)-before)
	}
	approve, trade := txs[f.Transactions[0].Hash], txs[f.Transactions[1].Hash]
	if approve.To != deth || len(approve.Data) < 4 || common.Bytes2Hex(approve.Data[:4]) != "095ea7b3" || trade.To != dn.ETHToken.Curve {
		t.Errorf("the approval went to %s (%x…), the trade to %s; want DETH's approve, then the curve", approve.To, approve.Data[:min(4, len(approve.Data))], trade.To)
	}

	// The wallet grants the curve more than it will sell; the next sell's fire sends its
	// trade alone.
	grant, err := a.Builder.Approve(w, deth, dn.ETHToken.Curve, &held)
	if err != nil {
		t.Fatal(err)
	}
	granted, err := a.Wallets.SignAndSubmit(ctx, wallet.SignParams{AccountID: u.ID, Tx: wallet.Tx{To: grant.To, Data: grant.Data, ChainID: grant.ChainID}})
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the grant mined", func() bool { return sent()[granted.Hash.Hex()].State == wallet.TxMined })
	before = len(sent())
	again := fire(orders.Request{Kind: "take-profit", Token: deth.Hex(), Amount: amount, Price: orders.FormatPrice(&below, 18), Slippage: new(float64(10))})
	if f := again.Fires[0]; kinds(f) != "trade" || f.TxHash == nil || f.Transactions[0].Hash != *f.TxHash {
		t.Errorf("a sell the allowance covers lists %+v (trade %v); want its trade alone", f.Transactions, f.TxHash)
	}
	if n := len(sent()) - before; n != 1 {
		t.Errorf("a sell the allowance covers sent %d transactions, want 1", n)
	}
}
