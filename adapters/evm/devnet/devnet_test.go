package devnet

import (
	"context"
	"math/big"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/curvekit/curvekit/contracts/bindings"
)

var (
	bps    = big.NewInt(10_000)
	dead   = common.HexToAddress("0x000000000000000000000000000000000000dEaD")
	maxU   = new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 256), big.NewInt(1))
	curveB = bindings.NewBondingCurve()
	tokenB = bindings.NewCurveToken()
	lfB    = bindings.NewLaunchFactory()
	pairB  = bindings.NewPair()
	routeB = bindings.NewRouter()
)

func start(t *testing.T) *Devnet {
	t.Helper()
	d, err := Start(Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = d.Close() })
	return d
}

// call runs a view and unpacks it, failing the test on error.
func call[T any](t *testing.T, d *Devnet, to common.Address, data []byte, unpack func([]byte) (T, error)) T {
	t.Helper()
	out, err := d.Call(context.Background(), common.Address{}, to, data)
	if err != nil {
		t.Fatalf("call %s: %v", to, err)
	}
	v, err := unpack(out)
	if err != nil {
		t.Fatalf("unpack: %v", err)
	}
	return v
}

func send(t *testing.T, d *Devnet, from Account, to common.Address, value *big.Int, data []byte) *types.Receipt {
	t.Helper()
	rcpt, err := d.Send(context.Background(), from.Key, &to, value, data)
	if err != nil {
		t.Fatalf("send to %s: %v", to, err)
	}
	return rcpt
}

func deadline(t *testing.T, d *Devnet) *big.Int {
	t.Helper()
	dl, err := d.Deadline(context.Background(), time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	return dl
}

func balance(t *testing.T, d *Devnet, asset, who common.Address) *big.Int {
	t.Helper()
	b, err := d.Balance(context.Background(), asset, who)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func gasCost(r *types.Receipt) *big.Int {
	return new(big.Int).Mul(new(big.Int).SetUint64(r.GasUsed), r.EffectiveGasPrice)
}

func eq(t *testing.T, what string, got, want *big.Int) {
	t.Helper()
	if got.Cmp(want) != 0 {
		t.Errorf("%s = %s, want %s", what, got, want)
	}
}

func tradeEvent(t *testing.T, r *types.Receipt, curve common.Address) *bindings.BondingCurveTrade {
	t.Helper()
	for _, l := range r.Logs {
		if l.Address == curve {
			if ev, err := curveB.UnpackTradeEvent(l); err == nil {
				return ev
			}
		}
	}
	t.Fatal("no Trade event")
	return nil
}

// ---------------------------------------------------------------- docs/CURVE.md, independently

type model struct {
	p      bindings.CurveParams
	vQ, vT *big.Int
}

func add(a, b *big.Int) *big.Int { return new(big.Int).Add(a, b) }
func sub(a, b *big.Int) *big.Int { return new(big.Int).Sub(a, b) }
func mul(a, b *big.Int) *big.Int { return new(big.Int).Mul(a, b) }
func div(a, b *big.Int) *big.Int { return new(big.Int).Quo(a, b) }
func ceilDiv(a, b *big.Int) *big.Int {
	if a.Sign() == 0 {
		return new(big.Int)
	}
	return add(div(sub(a, big.NewInt(1)), b), big.NewInt(1))
}
func u16(x uint16) *big.Int { return big.NewInt(int64(x)) }

func modelOf(t *testing.T, d *Devnet, curve common.Address) *model {
	p := call(t, d, curve, curveB.PackCurveParams(), curveB.UnpackCurveParams)
	r := call(t, d, curve, curveB.PackReserves(), curveB.UnpackReserves)
	return &model{p: p, vQ: r.VirtualQuote, vT: r.VirtualToken}
}

func (m *model) rQ() *big.Int { return sub(m.vQ, m.p.VirtualQuote0) }
func (m *model) rT() *big.Int { return sub(m.vT, sub(m.p.VirtualToken0, m.p.RealToken0)) }

// buy returns net, tokensOut, fee, creatorFee, refund (no state change).
func (m *model) buy(in *big.Int) (net, out, fee, cfee, refund *big.Int) {
	f := u16(m.p.FeeBps)
	net = div(mul(in, bps), add(bps, f))
	fee = sub(in, net)
	refund = new(big.Int)
	if add(m.rQ(), net).Cmp(m.p.GraduationQuote) >= 0 {
		net = sub(m.p.GraduationQuote, m.rQ())
		fee = ceilDiv(mul(net, f), bps)
		refund = sub(sub(in, net), fee)
	}
	out = div(mul(net, m.vT), add(m.vQ, net))
	cfee = div(mul(fee, u16(m.p.CreatorShareBps)), bps)
	return
}

// sell returns gross, out, fee, creatorFee (no state change).
func (m *model) sell(amount *big.Int) (gross, out, fee, cfee *big.Int) {
	gross = div(mul(amount, m.vQ), add(m.vT, amount))
	fee = ceilDiv(mul(gross, u16(m.p.FeeBps)), bps)
	out = sub(gross, fee)
	cfee = div(mul(fee, u16(m.p.CreatorShareBps)), bps)
	return
}

// ---------------------------------------------------------------- tests

func TestStart(t *testing.T) {
	t.Parallel()
	d := start(t)
	ctx := context.Background()

	if len(d.Accounts) != 10 {
		t.Fatalf("accounts = %d", len(d.Accounts))
	}
	again, err := DeriveAccount(1)
	if err != nil || again.Address != d.Accounts[0].Address {
		t.Fatalf("keys are not deterministic: %v %v", again.Address, err)
	}
	if id, err := d.Client.ChainID(ctx); err != nil || id.Cmp(d.ChainID) != 0 {
		t.Fatalf("chain id %v %v", id, err)
	}
	for name, a := range map[string]common.Address{
		"factory": d.Addrs.Factory, "pool factory": d.Addrs.PoolFactory, "router": d.Addrs.Router,
		"weth": d.Addrs.WETH, "usd": d.Addrs.USD,
	} {
		code, err := d.Client.CodeAt(ctx, a, nil)
		if err != nil || len(code) == 0 {
			t.Errorf("%s at %s has no code (%v)", name, a, err)
		}
	}

	f := d.Addrs.Factory
	eq(t, "tokenCount", call(t, d, f, lfB.PackTokenCount(), lfB.UnpackTokenCount), big.NewInt(3))
	for i, l := range []Launch{d.ETHToken, d.USDToken, d.GraduatedToken} {
		if got := call(t, d, f, lfB.PackTokenAt(big.NewInt(int64(i))), lfB.UnpackTokenAt); got != l.Token {
			t.Errorf("tokenAt(%d) = %s, want %s", i, got, l.Token)
		}
		if got := call(t, d, f, lfB.PackCurveOf(l.Token), lfB.UnpackCurveOf); got != l.Curve {
			t.Errorf("curveOf(%s) = %s, want %s", l.Token, got, l.Curve)
		}
		if got := call(t, d, l.Curve, curveB.PackCreator(), curveB.UnpackCreator); got != d.Accounts[i].Address {
			t.Errorf("creator of launch %d = %s", i, got)
		}
	}
	for asset, want := range map[common.Address]bindings.CurveParams{{}: DefaultETHParams(), d.Addrs.USD: DefaultUSDParams()} {
		got := call(t, d, f, lfB.PackQuoteAssetParams(asset), lfB.UnpackQuoteAssetParams)
		if !got.Enabled || got.Params.VirtualQuote0.Cmp(want.VirtualQuote0) != 0 || got.Params.GraduationQuote.Cmp(want.GraduationQuote) != 0 {
			t.Errorf("quoteAssetParams(%s) = %+v", asset, got)
		}
	}
	if got := call(t, d, d.USDToken.Curve, curveB.PackQuoteAsset(), curveB.UnpackQuoteAsset); got != d.Addrs.USD {
		t.Errorf("DUSD quote asset = %s", got)
	}
	if got := call(t, d, d.ETHToken.Token, tokenB.PackSymbol(), tokenB.UnpackSymbol); got != "DETH" {
		t.Errorf("DETH symbol = %q", got)
	}
	if got := call(t, d, d.ETHToken.Token, tokenB.PackUri(), tokenB.UnpackUri); got == "" {
		t.Error("DETH uri is empty")
	}
	eq(t, "TUSD of Accounts[9]", balance(t, d, d.Addrs.USD, d.Accounts[9].Address), usdPerAccount)
	for _, l := range []Launch{d.ETHToken, d.USDToken} {
		if r := call(t, d, l.Curve, curveB.PackReserves(), curveB.UnpackReserves); r.Graduated || r.RealQuote.Sign() == 0 {
			t.Errorf("curve %s: %+v, want live with the initial buy in", l.Curve, r)
		}
	}
	if r := call(t, d, d.GraduatedToken.Curve, curveB.PackReserves(), curveB.UnpackReserves); !r.Graduated {
		t.Error("GRAD is not graduated")
	}
}

func TestBuySellMatchPreview(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		launch func(*Devnet) Launch
		quote  func(*Devnet) common.Address
		buyIn  *big.Int
	}{
		{"ETH", func(d *Devnet) Launch { return d.ETHToken }, func(*Devnet) common.Address { return common.Address{} }, new(big.Int).Div(oneETH, big.NewInt(3))},
		{"TUSD", func(d *Devnet) Launch { return d.USDToken }, func(d *Devnet) common.Address { return d.Addrs.USD }, big.NewInt(333_333_333)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			d := start(t)
			l, quote, trader := tc.launch(d), tc.quote(d), d.Accounts[5]
			isETH := quote == (common.Address{})

			// Buy.
			m := modelOf(t, d, l.Curve)
			net, wantOut, wantFee, wantCFee, _ := m.buy(tc.buyIn)
			pb := call(t, d, l.Curve, curveB.PackPreviewBuy(tc.buyIn), curveB.UnpackPreviewBuy)
			eq(t, "previewBuy tokensOut vs docs", pb.TokensOut, wantOut)
			eq(t, "previewBuy fee vs docs", pb.Fee, wantFee)
			eq(t, "previewBuy creatorFee vs docs", pb.CreatorFee, wantCFee)
			eq(t, "previewBuy refund", pb.Refund, new(big.Int))
			cfBefore := call(t, d, l.Curve, curveB.PackCreatorFeesAccrued(), curveB.UnpackCreatorFeesAccrued)
			pfBefore := call(t, d, l.Curve, curveB.PackProtocolFeesAccrued(), curveB.UnpackProtocolFeesAccrued)
			qBefore := balance(t, d, quote, trader.Address)

			var value *big.Int
			if isETH {
				value = tc.buyIn
			} else {
				send(t, d, trader, quote, nil, tokenB.PackApprove(l.Curve, tc.buyIn))
				qBefore = balance(t, d, quote, trader.Address)
			}
			r := send(t, d, trader, l.Curve, value, curveB.PackBuy(tc.buyIn, pb.TokensOut, deadline(t, d)))
			t.Logf("%s curve buy: %d gas", tc.name, r.GasUsed)
			ev := tradeEvent(t, r, l.Curve)
			if !ev.IsBuy || ev.Trader != trader.Address || ev.Recipient != trader.Address {
				t.Errorf("Trade event %+v", ev)
			}
			eq(t, "Trade.quoteAmount", ev.QuoteAmount, net)
			eq(t, "Trade.tokenAmount", ev.TokenAmount, pb.TokensOut)
			eq(t, "Trade.fee", ev.Fee, pb.Fee)
			eq(t, "Trade.creatorFee", ev.CreatorFee, pb.CreatorFee)
			eq(t, "Trade.virtualQuote", ev.VirtualQuote, add(m.vQ, net))
			eq(t, "Trade.virtualToken", ev.VirtualToken, sub(m.vT, wantOut))
			eq(t, "Trade.realQuote", ev.RealQuote, add(m.rQ(), net))
			eq(t, "Trade.realToken", ev.RealToken, sub(m.rT(), wantOut))
			got := balance(t, d, l.Token, trader.Address)
			eq(t, "token balance after buy", got, pb.TokensOut)
			spent := sub(qBefore, balance(t, d, quote, trader.Address))
			if isETH {
				spent.Sub(spent, gasCost(r))
			}
			eq(t, "quote spent", spent, tc.buyIn)
			res := call(t, d, l.Curve, curveB.PackReserves(), curveB.UnpackReserves)
			eq(t, "reserves vQ", res.VirtualQuote, ev.VirtualQuote)
			eq(t, "reserves rT", res.RealToken, ev.RealToken)
			eq(t, "creatorFeesAccrued", call(t, d, l.Curve, curveB.PackCreatorFeesAccrued(), curveB.UnpackCreatorFeesAccrued), add(cfBefore, wantCFee))
			eq(t, "protocolFeesAccrued", call(t, d, l.Curve, curveB.PackProtocolFeesAccrued(), curveB.UnpackProtocolFeesAccrued), add(pfBefore, sub(wantFee, wantCFee)))

			// Sell 40% of it.
			amount := div(mul(got, big.NewInt(2)), big.NewInt(5))
			m = modelOf(t, d, l.Curve)
			gross, wantQ, sFee, sCFee := m.sell(amount)
			ps := call(t, d, l.Curve, curveB.PackPreviewSell(amount), curveB.UnpackPreviewSell)
			eq(t, "previewSell quoteOut vs docs", ps.QuoteOut, wantQ)
			eq(t, "previewSell fee vs docs", ps.Fee, sFee)
			eq(t, "previewSell creatorFee vs docs", ps.CreatorFee, sCFee)
			send(t, d, trader, l.Token, nil, tokenB.PackApprove(l.Curve, amount))
			qBefore = balance(t, d, quote, trader.Address)
			r = send(t, d, trader, l.Curve, nil, curveB.PackSell(amount, ps.QuoteOut, deadline(t, d)))
			t.Logf("%s curve sell: %d gas", tc.name, r.GasUsed)
			ev = tradeEvent(t, r, l.Curve)
			if ev.IsBuy || ev.Refund.Sign() != 0 {
				t.Errorf("sell Trade event %+v", ev)
			}
			eq(t, "sell Trade.quoteAmount", ev.QuoteAmount, gross)
			eq(t, "sell Trade.tokenAmount", ev.TokenAmount, amount)
			eq(t, "sell Trade.fee", ev.Fee, sFee)
			eq(t, "sell Trade.virtualQuote", ev.VirtualQuote, sub(m.vQ, gross))
			eq(t, "sell Trade.realToken", ev.RealToken, add(m.rT(), amount))
			received := sub(balance(t, d, quote, trader.Address), qBefore)
			if isETH {
				received.Add(received, gasCost(r))
			}
			eq(t, "quote received", received, ps.QuoteOut)
			eq(t, "token balance after sell", balance(t, d, l.Token, trader.Address), sub(got, amount))

			// k never decreases.
			if mul(ev.VirtualQuote, ev.VirtualToken).Cmp(mul(m.p.VirtualQuote0, m.p.VirtualToken0)) < 0 {
				t.Error("vQ*vT fell below its initial value")
			}
		})
	}
}

func TestGraduatedPool(t *testing.T) {
	t.Parallel()
	d := start(t)
	ctx := context.Background()
	l := d.GraduatedToken
	p := DefaultETHParams()

	res := call(t, d, l.Curve, curveB.PackReserves(), curveB.UnpackReserves)
	if !res.Graduated || res.RealQuote.Sign() != 0 || res.RealToken.Sign() != 0 {
		t.Fatalf("reserves after graduation %+v", res)
	}
	eq(t, "vQ at graduation", res.VirtualQuote, add(p.VirtualQuote0, p.GraduationQuote))
	poolToken := div(mul(p.GraduationQuote, res.VirtualToken), res.VirtualQuote)
	sold := sub(p.VirtualToken0, res.VirtualToken)

	pool := call(t, d, l.Curve, curveB.PackPool(), curveB.UnpackPool)
	if got := call(t, d, d.Addrs.PoolFactory, bindings.NewPoolFactory().PackGetPair(l.Token, d.Addrs.WETH), bindings.NewPoolFactory().UnpackGetPair); got != pool {
		t.Fatalf("getPair = %s, curve.pool = %s", got, pool)
	}
	rs := call(t, d, pool, pairB.PackGetReserves(), pairB.UnpackGetReserves)
	token0 := call(t, d, pool, pairB.PackToken0(), pairB.UnpackToken0)
	rToken, rQuote := rs.Reserve0, rs.Reserve1
	if token0 != l.Token {
		rToken, rQuote = rQuote, rToken
	}
	eq(t, "pool token reserve = rQ*vT/vQ", rToken, poolToken)
	eq(t, "pool quote reserve = graduationQuote", rQuote, p.GraduationQuote)
	eq(t, "WETH held by the pool", balance(t, d, d.Addrs.WETH, pool), p.GraduationQuote)
	eq(t, "curve token balance", balance(t, d, l.Token, l.Curve), new(big.Int))
	supply := call(t, d, l.Token, tokenB.PackTotalSupply(), tokenB.UnpackTotalSupply)
	eq(t, "token totalSupply = sold + poolToken", supply, add(sold, poolToken))
	lp := call(t, d, pool, pairB.PackTotalSupply(), pairB.UnpackTotalSupply)
	if lp.Sign() == 0 {
		t.Fatal("no LP supply")
	}
	eq(t, "LP at 0xdEaD = all LP", balance(t, d, pool, dead), lp)

	// The Graduated event agrees.
	logs, err := d.Client.FilterLogs(ctx, filterQuery(l.Curve))
	if err != nil {
		t.Fatal(err)
	}
	var grads int
	for _, lg := range logs {
		if ev, err := curveB.UnpackGraduatedEvent(&lg); err == nil {
			grads++
			if ev.Pool != pool {
				t.Errorf("Graduated.pool = %s", ev.Pool)
			}
			eq(t, "Graduated.quoteLiquidity", ev.QuoteLiquidity, p.GraduationQuote)
			eq(t, "Graduated.tokenLiquidity", ev.TokenLiquidity, poolToken)
			eq(t, "Graduated.tokensBurned", ev.TokensBurned, sub(p.TokenSupply, supply))
		}
	}
	if grads != 1 {
		t.Errorf("%d Graduated events", grads)
	}

	// The curve is closed.
	buyer := d.Accounts[6]
	_, err = d.Send(ctx, buyer.Key, &l.Curve, oneETH, curveB.PackBuy(oneETH, big.NewInt(0), deadline(t, d)))
	if !IsRevert(err, "CurveGraduated") {
		t.Errorf("buy after graduation: %v, want CurveGraduated", err)
	}
	if _, err := d.Call(ctx, buyer.Address, l.Curve, curveB.PackPreviewSell(oneETH)); !IsRevert(err, "CurveGraduated") {
		t.Errorf("previewSell after graduation: %v", err)
	}
}

func filterQuery(addr common.Address) ethereum.FilterQuery {
	return ethereum.FilterQuery{Addresses: []common.Address{addr}, FromBlock: big.NewInt(0)}
}

// TestGraduatingBuy crosses DETH's graduation in one buy and checks the cap and the refund.
func TestGraduatingBuy(t *testing.T) {
	t.Parallel()
	d := start(t)
	l, buyer := d.ETHToken, d.Accounts[7]
	in := new(big.Int).Mul(big.NewInt(20), oneETH)
	m := modelOf(t, d, l.Curve)
	net, out, fee, _, refund := m.buy(in)
	pb := call(t, d, l.Curve, curveB.PackPreviewBuy(in), curveB.UnpackPreviewBuy)
	eq(t, "previewBuy tokensOut", pb.TokensOut, out)
	eq(t, "previewBuy fee", pb.Fee, fee)
	eq(t, "previewBuy refund", pb.Refund, refund)
	eq(t, "capped net", net, sub(m.p.GraduationQuote, m.rQ()))
	before := balance(t, d, common.Address{}, buyer.Address)
	r := send(t, d, buyer, l.Curve, in, curveB.PackBuy(in, out, deadline(t, d)))
	t.Logf("graduating curve buy (pair creation, WETH wrap, LP mint, burn): %d gas", r.GasUsed)
	spent := sub(sub(before, balance(t, d, common.Address{}, buyer.Address)), gasCost(r))
	eq(t, "ETH spent = in - refund", spent, sub(in, refund))
	eq(t, "tokens received", balance(t, d, l.Token, buyer.Address), out)
	ev := tradeEvent(t, r, l.Curve)
	eq(t, "Trade.refund", ev.Refund, refund)
	eq(t, "Trade.realQuote (before zeroing)", ev.RealQuote, DefaultETHParams().GraduationQuote)
	if res := call(t, d, l.Curve, curveB.PackReserves(), curveB.UnpackReserves); !res.Graduated {
		t.Error("not graduated")
	}
}

func TestRouterSwapAfterGraduation(t *testing.T) {
	t.Parallel()
	d := start(t)
	l, trader := d.GraduatedToken, d.Accounts[8]
	pool := call(t, d, l.Curve, curveB.PackPool(), curveB.UnpackPool)
	path := []common.Address{d.Addrs.WETH, l.Token}

	reservesOf := func() (rWETH, rToken *big.Int) {
		rs := call(t, d, pool, pairB.PackGetReserves(), pairB.UnpackGetReserves)
		if call(t, d, pool, pairB.PackToken0(), pairB.UnpackToken0) == d.Addrs.WETH {
			return rs.Reserve0, rs.Reserve1
		}
		return rs.Reserve1, rs.Reserve0
	}
	amountOut := func(in, rIn, rOut *big.Int) *big.Int { // docs/CURVE.md, Pool, p = 30
		inFee := mul(in, big.NewInt(10_000-30))
		return div(mul(inFee, rOut), add(mul(rIn, bps), inFee))
	}

	in := new(big.Int).Div(oneETH, big.NewInt(4))
	rW, rT := reservesOf()
	want := amountOut(in, rW, rT)
	amounts := call(t, d, d.Addrs.Router, routeB.PackGetAmountsOut(in, path), routeB.UnpackGetAmountsOut)
	eq(t, "getAmountsOut", amounts[1], want)
	r := send(t, d, trader, d.Addrs.Router, in, routeB.PackSwapExactETHForTokens(want, path, trader.Address, deadline(t, d)))
	t.Logf("router ETH->token swap: %d gas", r.GasUsed)
	eq(t, "tokens from router", balance(t, d, l.Token, trader.Address), want)
	rW2, rT2 := reservesOf()
	eq(t, "pool WETH reserve", rW2, add(rW, in))
	eq(t, "pool token reserve", rT2, sub(rT, want))

	// Exact-out quote: docs/CURVE.md amountIn formula.
	outWant := big.NewInt(1_000_000)
	ins := call(t, d, d.Addrs.Router, routeB.PackGetAmountsIn(outWant, path), routeB.UnpackGetAmountsIn)
	eq(t, "getAmountsIn", ins[0], add(div(mul(mul(rW2, outWant), bps), mul(sub(rT2, outWant), big.NewInt(10_000-30))), big.NewInt(1)))

	// And back to ETH.
	back := div(want, big.NewInt(2))
	send(t, d, trader, l.Token, nil, tokenB.PackApprove(d.Addrs.Router, back))
	wantETH := amountOut(back, rT2, rW2)
	before := balance(t, d, common.Address{}, trader.Address)
	r = send(t, d, trader, d.Addrs.Router, nil, routeB.PackSwapExactTokensForETH(back, wantETH, []common.Address{l.Token, d.Addrs.WETH}, trader.Address, deadline(t, d)))
	eq(t, "ETH from router", add(sub(balance(t, d, common.Address{}, trader.Address), before), gasCost(r)), wantETH)

	// An expired deadline reverts.
	past := big.NewInt(1)
	_, err := d.Send(context.Background(), trader.Key, &d.Addrs.Router, in, routeB.PackSwapExactETHForTokens(big.NewInt(0), path, trader.Address, past))
	if !IsRevert(err, "Expired") {
		t.Errorf("expired router swap: %v", err)
	}
}

func TestClaimFees(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		launch func(*Devnet) Launch
		quote  func(*Devnet) common.Address
		isETH  bool
	}{
		{"ETH", func(d *Devnet) Launch { return d.ETHToken }, func(*Devnet) common.Address { return common.Address{} }, true},
		{"TUSD", func(d *Devnet) Launch { return d.USDToken }, func(d *Devnet) common.Address { return d.Addrs.USD }, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			d := start(t)
			ctx := context.Background()
			l, quote := tc.launch(d), tc.quote(d)
			creator := d.Accounts[0]
			if !tc.isETH {
				creator = d.Accounts[1]
			}
			accrued := call(t, d, l.Curve, curveB.PackCreatorFeesAccrued(), curveB.UnpackCreatorFeesAccrued)
			if accrued.Sign() == 0 {
				t.Fatal("no creator fees accrued by the initial buy")
			}

			other := d.Accounts[4]
			if _, err := d.Send(ctx, other.Key, &l.Curve, nil, curveB.PackClaimCreatorFees()); !IsRevert(err, "NotCreator") {
				t.Fatalf("claim by non-creator: %v, want NotCreator", err)
			}
			before := balance(t, d, quote, creator.Address)
			r := send(t, d, creator, l.Curve, nil, curveB.PackClaimCreatorFees())
			got := sub(balance(t, d, quote, creator.Address), before)
			if tc.isETH {
				got.Add(got, gasCost(r))
			}
			eq(t, "creator fees paid", got, accrued)
			eq(t, "creatorFeesAccrued after claim", call(t, d, l.Curve, curveB.PackCreatorFeesAccrued(), curveB.UnpackCreatorFeesAccrued), new(big.Int))

			// Protocol fees go to the fee recipient (the deployer), whoever calls.
			proto := call(t, d, l.Curve, curveB.PackProtocolFeesAccrued(), curveB.UnpackProtocolFeesAccrued)
			before = balance(t, d, quote, d.Deployer.Address)
			send(t, d, other, l.Curve, nil, curveB.PackClaimProtocolFees())
			eq(t, "protocol fees paid", sub(balance(t, d, quote, d.Deployer.Address), before), proto)
		})
	}
}

func TestSellMoreThanBalanceReverts(t *testing.T) {
	t.Parallel()
	d := start(t)
	l, holder := d.ETHToken, d.Accounts[0] // the creator holds its initial buy
	bal := balance(t, d, l.Token, holder.Address)
	if bal.Sign() == 0 {
		t.Fatal("creator holds no tokens")
	}
	send(t, d, holder, l.Token, nil, tokenB.PackApprove(l.Curve, maxU))
	_, err := d.Send(context.Background(), holder.Key, &l.Curve, nil, curveB.PackSell(add(bal, big.NewInt(1)), big.NewInt(0), deadline(t, d)))
	if !IsRevert(err, "ERC20InsufficientBalance") {
		t.Fatalf("sell of balance+1: %v, want ERC20InsufficientBalance", err)
	}
	// The whole balance sells.
	send(t, d, holder, l.Curve, nil, curveB.PackSell(bal, big.NewInt(1), deadline(t, d)))
	eq(t, "balance after selling all", balance(t, d, l.Token, holder.Address), new(big.Int))
}

func TestDeadlineInPastReverts(t *testing.T) {
	t.Parallel()
	d := start(t)
	ctx := context.Background()
	l, trader := d.ETHToken, d.Accounts[0]
	h, err := d.Client.HeaderByNumber(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	past := new(big.Int).SetUint64(h.Time - 1)
	_, err = d.Send(ctx, trader.Key, &l.Curve, oneETH, curveB.PackBuy(oneETH, big.NewInt(0), past))
	if !IsRevert(err, "DeadlineExpired") {
		t.Errorf("buy with past deadline: %v, want DeadlineExpired", err)
	}
	send(t, d, trader, l.Token, nil, tokenB.PackApprove(l.Curve, maxU))
	_, err = d.Send(ctx, trader.Key, &l.Curve, nil, curveB.PackSell(big.NewInt(1_000_000), big.NewInt(0), past))
	if !IsRevert(err, "DeadlineExpired") {
		t.Errorf("sell with past deadline: %v, want DeadlineExpired", err)
	}
}

func TestSlippageAndValueChecks(t *testing.T) {
	t.Parallel()
	d := start(t)
	ctx := context.Background()
	l, trader := d.ETHToken, d.Accounts[5]
	pb := call(t, d, l.Curve, curveB.PackPreviewBuy(oneETH), curveB.UnpackPreviewBuy)
	_, err := d.Send(ctx, trader.Key, &l.Curve, oneETH, curveB.PackBuy(oneETH, add(pb.TokensOut, big.NewInt(1)), deadline(t, d)))
	if !IsRevert(err, "InsufficientOutput") {
		t.Errorf("buy above min: %v", err)
	}
	_, err = d.Send(ctx, trader.Key, &l.Curve, big.NewInt(1), curveB.PackBuy(oneETH, big.NewInt(0), deadline(t, d)))
	if !IsRevert(err, "WrongValue") {
		t.Errorf("buy with wrong msg.value: %v", err)
	}
	_, err = d.Send(ctx, trader.Key, &l.Curve, oneETH, curveB.PackInitialBuy(trader.Address, oneETH, big.NewInt(0)))
	if !IsRevert(err, "NotFactory") {
		t.Errorf("initialBuy from an account: %v", err)
	}
	if _, err := d.Call(ctx, trader.Address, l.Curve, curveB.PackPreviewBuy(big.NewInt(0))); !IsRevert(err, "ZeroAmount") {
		t.Errorf("previewBuy(0): %v", err)
	}
	if _, err := d.Call(ctx, trader.Address, l.Curve, curveB.PackPreviewSell(big.NewInt(1))); !IsRevert(err, "AmountTooSmall") {
		t.Errorf("previewSell(1 wei): %v", err)
	}
}

func TestFactoryRejectsInvalidParams(t *testing.T) {
	t.Parallel()
	d := start(t)
	ctx := context.Background()
	bad := DefaultETHParams()
	bad.RealToken0 = sub(bad.RealToken0, tokens(100_000)) // the curve could sell more than it holds
	_, err := d.Send(ctx, d.Deployer.Key, &d.Addrs.Factory, nil, lfB.PackSetQuoteAsset(common.Address{}, bad))
	if !IsRevert(err, "InvalidCurveParams") {
		t.Errorf("setQuoteAsset with too small realToken0: %v", err)
	}
	_, err = d.Send(ctx, d.Accounts[0].Key, &d.Addrs.Factory, nil, lfB.PackSetQuoteAsset(common.Address{}, DefaultETHParams()))
	if !IsRevert(err, "OwnableUnauthorizedAccount") {
		t.Errorf("setQuoteAsset by non-owner: %v", err)
	}
}

func TestLaunchFeeAndGraduatingLaunch(t *testing.T) {
	t.Parallel()
	fee := new(big.Int).Div(oneETH, big.NewInt(100))
	d, err := Start(Config{LaunchFee: fee, Accounts: 5})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = d.Close() })
	ctx := context.Background()
	eq(t, "launchFee", call(t, d, d.Addrs.Factory, lfB.PackLaunchFee(), lfB.UnpackLaunchFee), fee)

	creator := d.Accounts[4]
	in := new(big.Int).Mul(big.NewInt(12), oneETH)
	data := lfB.PackLaunch("Instant", "INST", "ipfs://x", common.Address{}, in, big.NewInt(1))
	if _, err := d.Send(ctx, creator.Key, &d.Addrs.Factory, in, data); !IsRevert(err, "WrongValue") {
		t.Fatalf("launch without the fee: %v, want WrongValue", err)
	}
	recipientBefore := balance(t, d, common.Address{}, d.Deployer.Address)
	creatorBefore := balance(t, d, common.Address{}, creator.Address)
	r := send(t, d, creator, d.Addrs.Factory, add(fee, in), data)
	t.Logf("launch with a graduating initial buy: %d gas", r.GasUsed)
	eq(t, "launch fee forwarded", sub(balance(t, d, common.Address{}, d.Deployer.Address), recipientBefore), fee)

	var l Launch
	for _, lg := range r.Logs {
		if ev, err := lfB.UnpackLaunchedEvent(lg); err == nil && lg.Address == d.Addrs.Factory {
			l = Launch{Token: ev.Token, Curve: ev.Curve}
			if ev.Creator != creator.Address || ev.Name != "Instant" || ev.Symbol != "INST" || ev.Uri != "ipfs://x" {
				t.Errorf("Launched %+v", ev)
			}
		}
	}
	if l.Curve == (common.Address{}) {
		t.Fatal("no Launched event")
	}
	res := call(t, d, l.Curve, curveB.PackReserves(), curveB.UnpackReserves)
	if !res.Graduated {
		t.Fatal("a launch buy past graduationQuote did not graduate")
	}
	// The creator paid fee + net + curve fee; the rest came back.
	m := &model{p: DefaultETHParams(), vQ: DefaultETHParams().VirtualQuote0, vT: DefaultETHParams().VirtualToken0}
	net, out, _, _, refund := m.buy(in)
	ev := tradeEvent(t, r, l.Curve)
	eq(t, "Trade.refund", ev.Refund, refund)
	eq(t, "Trade.quoteAmount", ev.QuoteAmount, net)
	eq(t, "creator tokens", balance(t, d, l.Token, creator.Address), out)
	spent := sub(sub(creatorBefore, balance(t, d, common.Address{}, creator.Address)), gasCost(r))
	eq(t, "creator spent", spent, sub(add(fee, in), refund))
}

func TestGraduationReusesPrecreatedPair(t *testing.T) {
	t.Parallel()
	d := start(t)
	ctx := context.Background()
	l, griefer := d.ETHToken, d.Accounts[6]
	pf := bindings.NewPoolFactory()
	send(t, d, griefer, d.Addrs.PoolFactory, nil, pf.PackCreatePair(l.Token, d.Addrs.WETH))
	pair := call(t, d, d.Addrs.PoolFactory, pf.PackGetPair(d.Addrs.WETH, l.Token), pf.UnpackGetPair)
	// An unsynced donation is skimmed away at graduation.
	send(t, d, griefer, d.Addrs.WETH, oneETH, bindings.NewWETH9().PackDeposit())
	send(t, d, griefer, d.Addrs.WETH, nil, tokenB.PackTransfer(pair, oneETH))

	in := new(big.Int).Mul(big.NewInt(20), oneETH)
	if _, err := d.Send(ctx, d.Accounts[7].Key, &l.Curve, in, curveB.PackBuy(in, big.NewInt(1), deadline(t, d))); err != nil {
		t.Fatalf("graduating buy with a pre-created pair: %v", err)
	}
	if got := call(t, d, l.Curve, curveB.PackPool(), curveB.UnpackPool); got != pair {
		t.Fatalf("pool = %s, want the pre-created %s", got, pair)
	}
	res := call(t, d, l.Curve, curveB.PackReserves(), curveB.UnpackReserves)
	p := DefaultETHParams()
	rs := call(t, d, pair, pairB.PackGetReserves(), pairB.UnpackGetReserves)
	rToken, rQuote := rs.Reserve0, rs.Reserve1
	if call(t, d, pair, pairB.PackToken0(), pairB.UnpackToken0) != l.Token {
		rToken, rQuote = rQuote, rToken
	}
	eq(t, "pool quote", rQuote, p.GraduationQuote)
	eq(t, "pool token", rToken, div(mul(p.GraduationQuote, res.VirtualToken), res.VirtualQuote))
	eq(t, "skimmed WETH at 0xdEaD", balance(t, d, d.Addrs.WETH, dead), oneETH)
}

func TestPairRejectsFlashSwaps(t *testing.T) {
	t.Parallel()
	d := start(t)
	pool := call(t, d, d.GraduatedToken.Curve, curveB.PackPool(), curveB.UnpackPool)
	trader := d.Accounts[5]
	_, err := d.Send(context.Background(), trader.Key, &pool, nil, pairB.PackSwap(big.NewInt(1), big.NewInt(0), trader.Address, []byte{1}))
	if !IsRevert(err, "FlashSwapsDisabled") {
		t.Fatalf("swap with data: %v, want FlashSwapsDisabled", err)
	}
	_, err = d.Send(context.Background(), trader.Key, &pool, nil, pairB.PackSwap(big.NewInt(1), big.NewInt(0), trader.Address, nil))
	if !IsRevert(err, "InsufficientInputAmount") {
		t.Fatalf("swap without input: %v, want InsufficientInputAmount", err)
	}
}
