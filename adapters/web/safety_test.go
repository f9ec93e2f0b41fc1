package web_test

import (
	"context"
	"math/big"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/ethereum/go-ethereum/common"

	"github.com/curvekit/curvekit/orders"
)

// axeClean fails the test for each serious or critical axe-core violation on the page as it is.
func (s *site) axeClean(where string) {
	s.t.Helper()
	src, err := os.ReadFile(uiTool(s.t, "axe-core/axe.min.js"))
	if err != nil {
		s.t.Fatal(err)
	}
	for _, v := range s.axe(string(src)) {
		s.t.Errorf("%s: %s %s: %s on %v", where, v.Impact, v.ID, v.Help, v.Nodes)
	}
}

// custodialWallet is the signed-in person's custodial wallet, as the Account view shows it.
func (s *site) custodialWallet() common.Address {
	s.t.Helper()
	return common.HexToAddress(eval[string](s, `document.querySelector('.kv dd code').textContent`))
}

// The pause switch on the Account view, one click: the page says the wallet is paused, the
// activity log lists the change, and a following custodial send is refused in its simulation
// with WALLET_PAUSED explained in words, nothing signed. Resumed, the same send's simulation shows
// the wallet's balance changes (ETH out, tokens in) and its gas before the person confirms, and
// the confirmed send is mined as simulated.
func TestPauseRefusesASendAndTheSimulationPreviewsIt(t *testing.T) {
	s := newSite(t, 5)
	dn := s.srv.App.Devnet
	deth := dn.ETHToken.Token
	s.signIn("erin")
	custodial := s.custodialWallet()
	s.devnetSend(8, custodial, new(big.Int).Mul(big.NewInt(1e18), big.NewInt(1)), nil)

	s.until("the wallet safety settings", `document.querySelector('[data-testid=pause-state]')?.textContent.startsWith('Active.')`)
	if got := eval[string](s, `document.querySelector('[data-testid=safety-caps]').textContent`); !strings.Contains(got, "any amount may leave") {
		t.Errorf("the caps read %q", got)
	}
	if got := eval[string](s, `document.querySelector('[data-testid=safety-impact]').textContent`); !strings.Contains(got, "more than 15%") {
		t.Errorf("the impact cap reads %q", got)
	}
	s.click(`[data-testid=pause]`)
	s.until("paused", `document.querySelector('[data-testid=pause-note]')?.textContent.startsWith('Paused at') && document.querySelector('[data-testid=pause-state]').textContent.startsWith('Paused.') && document.querySelector('[data-testid=pause]').textContent === 'Resume the wallet'`)
	s.until("the change in the activity log", `!!document.querySelector('[data-testid=activity] [data-kind=settings]')`)

	// A custodial buy: its simulation is refused, in words, and it cannot be confirmed.
	s.open("#/token/"+deth.Hex(), `[data-testid=amount]`)
	s.typeIn(`[data-testid=amount]`, "0.01")
	s.until("a quote", `document.querySelector('[data-testid=quote]')?.textContent.includes('You get about')`)
	s.click(`[data-testid=use-custodial]`)
	s.until("the confirmation", `document.querySelector('dialog')?.open === true`)
	s.until("the refusal", `document.querySelector('[data-testid=sim-refusal]')?.dataset.code === 'WALLET_PAUSED'`)
	refusal := eval[string](s, `document.querySelector('[data-testid=sim-refusal]').innerText`)
	if !strings.Contains(refusal, "Your custodial wallet is paused: it signs nothing until you resume it") || !strings.Contains(refusal, "WALLET_PAUSED") {
		t.Errorf("the refusal reads %q", refusal)
	}
	if !eval[bool](s, `document.querySelector('[data-testid=confirm-custodial]').disabled`) {
		t.Error("a refused send can still be confirmed")
	}
	s.axeClean("the refused send's dialog")
	if n, err := dn.Client.NonceAt(context.Background(), custodial, nil); err != nil || n != 0 {
		t.Fatalf("the paused wallet's nonce is %d (%v): something was signed", n, err)
	}
	s.click(`dialog .row button:first-child`)
	s.until("cancelled", `document.querySelector('dialog')?.open === false && document.querySelector('.trade [role=alert]')?.textContent.includes('cancelled')`)

	// Resumed (the sign-in is fresh), the same send previews its balance changes.
	s.open("#/account", `[data-testid=pause]`)
	s.until("still paused", `document.querySelector('[data-testid=pause-state]')?.textContent.startsWith('Paused.')`)
	s.click(`[data-testid=pause]`)
	s.until("resumed", `document.querySelector('[data-testid=pause-note]')?.textContent.startsWith('Resumed at')`)
	s.open("#/token/"+deth.Hex(), `[data-testid=amount]`)
	s.typeIn(`[data-testid=amount]`, "0.01")
	s.until("a quote", `document.querySelector('[data-testid=quote]')?.textContent.includes('You get about')`)
	s.click(`[data-testid=use-custodial]`)
	// The token's name and decimals arrive after the changes themselves ("…" until then).
	s.until("the simulation's balance changes", `document.querySelectorAll('[data-testid=sim-change]').length === 2 && !!document.querySelector('[data-testid=sim-gas]') && !document.querySelector('[data-testid=confirm-custodial]').disabled && document.querySelector('[data-testid=simulation]').innerText.includes('DETH')`)
	changes := eval[map[string]string](s, `Object.fromEntries([...document.querySelectorAll('[data-testid=sim-change]')].map(e => [e.dataset.asset.toLowerCase(), e.dataset.delta]))`)
	if changes["eth"] != "-10000000000000000" {
		t.Errorf("the simulation shows ETH %q, want -0.01 ETH in wei", changes["eth"])
	}
	tokensIn, ok := new(big.Int).SetString(changes[strings.ToLower(deth.Hex())], 10)
	if !ok || tokensIn.Sign() <= 0 {
		t.Errorf("the simulation shows DETH %q, want tokens in", changes[strings.ToLower(deth.Hex())])
	}
	preview := eval[string](s, `document.querySelector('[data-testid=simulation]').innerText`)
	if !strings.Contains(preview, "Out: 0.01 ETH") || !strings.Contains(preview, "In: ") || !strings.Contains(preview, "DETH") || !strings.Contains(preview, "Gas: about") {
		t.Errorf("the preview reads %q", preview)
	}
	s.axeClean("the simulation's preview")
	s.screenshot("confirm-simulation")
	s.click(`[data-testid=confirm-custodial]`)
	s.until("the buy indexed", `document.querySelector('[data-testid=trade-status]')?.textContent.startsWith('Indexed')`)
	bal, err := dn.Balance(context.Background(), deth, custodial)
	if err != nil {
		t.Fatal(err)
	}
	if bal.Cmp(tokensIn) != 0 {
		t.Errorf("the wallet holds %s DETH, the simulation said %s", bal, tokensIn)
	}

	// A custodial sell: the approval's simulation moves no balance; once it is mined, the sell's
	// simulation shows DETH out and ETH in, and the sell is mined as simulated.
	s.click(`[aria-label=Side] button:nth-child(2)`)
	s.clear(`[data-testid=amount]`)
	s.typeIn(`[data-testid=amount]`, "100000")
	s.until("a sell quote", `document.querySelector('[data-testid=quote]')?.textContent.includes('You get about')`)
	s.click(`[data-testid=use-custodial]`)
	s.until("the approval's simulation", `document.querySelector('dialog')?.open && /^Approve/.test(document.querySelector('dialog p')?.textContent) && !!document.querySelector('[data-testid=sim-gas]') && !document.querySelector('[data-testid=confirm-custodial]').disabled`)
	if n := eval[int](s, `document.querySelectorAll('[data-testid=sim-change]').length`); n != 0 {
		t.Errorf("the approval's simulation shows %d balance changes", n)
	}
	s.click(`[data-testid=confirm-custodial]`)
	s.until("the sell's simulation", `document.querySelector('dialog')?.open && /^Sell/.test(document.querySelector('dialog p')?.textContent) && document.querySelectorAll('[data-testid=sim-change]').length === 2 && !document.querySelector('[data-testid=confirm-custodial]').disabled`)
	changes = eval[map[string]string](s, `Object.fromEntries([...document.querySelectorAll('[data-testid=sim-change]')].map(e => [e.dataset.asset.toLowerCase(), e.dataset.delta]))`)
	if changes[strings.ToLower(deth.Hex())] != "-100000000000000000000000" || strings.HasPrefix(changes["eth"], "-") || changes["eth"] == "" {
		t.Errorf("the sell's simulation shows %v, want 100,000 DETH out and ETH in", changes)
	}
	ethBefore, err := dn.Balance(context.Background(), common.Address{}, custodial)
	if err != nil {
		t.Fatal(err)
	}
	s.click(`[data-testid=confirm-custodial]`)
	s.until("the sell indexed", `document.querySelector('[data-testid=trade-status]')?.textContent.startsWith('Indexed')`)
	if bal, err = dn.Balance(context.Background(), deth, custodial); err != nil || new(big.Int).Sub(tokensIn, bal).String() != "100000000000000000000000" {
		t.Errorf("after the sell the wallet holds %s DETH (%v), want 100,000 fewer than %s", bal, err, tokensIn)
	}
	ethAfter, err := dn.Balance(context.Background(), common.Address{}, custodial)
	if err != nil {
		t.Fatal(err)
	}
	if ethAfter.Cmp(ethBefore) <= 0 {
		t.Errorf("the sell brought no ETH: %s then %s", ethBefore, ethAfter)
	}
	s.noStrangeScript()
}

// The order panel beside the trade panel: an order the server refuses shows each reason at the
// field it names; a valid one is placed, appears in the account's orders and is cancelled there.
func TestOrderPanelPlacesAndTheAccountCancels(t *testing.T) {
	s := newSite(t, 5)
	deth := s.srv.App.Devnet.ETHToken.Token
	s.signIn("frank")
	s.open("#/token/"+deth.Hex(), `[data-testid=order-kind]`)
	s.typeIn(`[data-testid=order-amount]`, "-1")
	s.typeIn(`[data-testid=order-price]`, "1e-9")
	s.clear(`[data-testid=order-slippage]`)
	s.typeIn(`[data-testid=order-slippage]`, "80")
	s.click(`[data-testid=place-order]`)
	s.until("the fields' errors", `!!document.querySelector('[data-testid=order-invalid]')`)
	for _, f := range []string{"amount", "price", "slippage"} {
		got := eval[string](s, `document.querySelector('[data-testid=order-`+f+`-error]')?.textContent ?? ''`)
		if got == "" || !eval[bool](s, `document.querySelector('[data-testid=order-`+f+`]').getAttribute('aria-invalid') === 'true'`) {
			t.Errorf("no error shown at %s (%q)", f, got)
		}
	}
	if got := eval[string](s, `document.querySelector('[data-testid=order-slippage-error]').textContent`); !strings.Contains(got, "0 to 50") {
		t.Errorf("the slippage error reads %q", got)
	}

	s.axeClean("the order panel with its errors")
	s.screenshot("order-errors")

	// Fixed, the order is placed: a limit buy far below the price, so it waits.
	for _, f := range []string{"amount", "price", "slippage"} {
		s.clear(`[data-testid=order-` + f + `]`)
	}
	s.typeIn(`[data-testid=order-amount]`, "0.001")
	s.typeIn(`[data-testid=order-price]`, "0.000000000000001")
	s.typeIn(`[data-testid=order-slippage]`, "1")
	s.click(`[data-testid=place-order]`)
	s.until("placed", `document.querySelector('[data-testid=order-status]')?.textContent.startsWith('Placed: order ord_')`)
	if eval[bool](s, `!!document.querySelector('[data-testid=order-amount-error]')`) {
		t.Error("the fixed field still shows its error")
	}
	id := eval[string](s, `document.querySelector('[data-testid=order-status] code').textContent`)
	s.until("the order under the panel", `document.querySelector('[data-testid=token-orders] [data-order="`+id+`"]')?.dataset.state === 'open'`)

	s.open("#/account", `[data-testid=orders]`)
	row := `[data-testid=orders] [data-order="` + id + `"]`
	s.until("the order listed", `document.querySelector('`+row+`')?.dataset.state === 'open'`)
	if got := eval[string](s, `document.querySelector('`+row+`').innerText`); !strings.Contains(got, "buy 0.001 at 0.000000000000001 or better") {
		t.Errorf("the order reads %q", got)
	}
	s.axeClean("the account's orders")
	s.click(row + ` [data-testid=order-cancel]`)
	s.until("cancelled", `document.querySelector('`+row+`')?.dataset.state === 'cancelled' && document.querySelector('[data-testid=orders-note]').textContent.includes('cancelled')`)
	s.click(`[data-testid=orders-reload]`)
	s.until("cancelled on the server", `document.querySelector('`+row+`')?.dataset.state === 'cancelled' && !document.querySelector('`+row+` [data-testid=order-cancel]')`)

	// A limit buy above the price fires at once: the account's orders show its fire, filled,
	// with its transaction, the amounts and the price that triggered it.
	custodial := common.HexToAddress(eval[string](s, `document.querySelector('.kv dd code').textContent`))
	s.devnetSend(8, custodial, new(big.Int).Mul(big.NewInt(1e18), big.NewInt(1)), nil)
	s.open("#/token/"+deth.Hex(), `[data-testid=order-kind]`)
	s.typeIn(`[data-testid=order-amount]`, "0.002")
	s.typeIn(`[data-testid=order-price]`, "1")
	s.click(`[data-testid=place-order]`)
	s.until("placed", `document.querySelector('[data-testid=order-status]')?.textContent.startsWith('Placed: order ord_')`)
	fired := eval[string](s, `document.querySelector('[data-testid=order-status] code').textContent`)
	s.open("#/account", `[data-testid=orders]`)
	row = `[data-testid=orders] [data-order="` + fired + `"]`
	s.until("the order filled", `document.querySelector('`+row+`')?.dataset.state === 'filled' || (document.querySelector('[data-testid=orders-reload]')?.click(), false)`)
	fire := `[data-testid=fires] tbody tr:first-child`
	cells := eval[[]string](s, `[...document.querySelectorAll('`+row+` `+fire+` td')].map(td => td.innerText)`)
	if len(cells) != 6 || cells[0] != "1" || cells[1] != "filled" || !strings.HasPrefix(cells[3], "trade 0x") || cells[4] != "0.002 ETH" || !strings.HasSuffix(cells[5], " DETH") {
		t.Errorf("the fire reads %q: want the first, filled, its transaction, 0.002 ETH spent and the DETH got", cells)
	}
	trigger := eval[string](s, `document.querySelector('`+row+` `+fire+` [data-price]')?.dataset.price ?? ''`)
	got := eval[string](s, `document.querySelector('`+row+` `+fire+` td:last-child').dataset.amount`)
	if !strings.HasPrefix(trigger, "0.") || got == "" {
		t.Errorf("the fire shows trigger price %q and got %q, want both exact", trigger, got)
	}
	s.axeClean("the account's orders with a fire")
	s.screenshot("account-orders")

	// A take-profit sell below the price fires at once too: the wallet has granted the curve
	// nothing, so its fire lists the approval, then the trade, each by its kind and hash.
	s.open("#/token/"+deth.Hex(), `[data-testid=order-kind]`)
	eval[bool](s, `(() => { const e = document.querySelector('[data-testid=order-kind]'); e.value = 'take-profit'; e.dispatchEvent(new Event('change', { bubbles: true })); return true })()`)
	s.until("the take-profit's fields", `!document.querySelector('[data-testid=order-side-buy]') && !!document.querySelector('[data-testid=order-price]')`)
	s.typeIn(`[data-testid=order-amount]`, "1000")
	s.typeIn(`[data-testid=order-price]`, "0.000000000000001")
	s.click(`[data-testid=place-order]`)
	s.until("placed", `document.querySelector('[data-testid=order-status]')?.textContent.startsWith('Placed: order ord_')`)
	sold := eval[string](s, `document.querySelector('[data-testid=order-status] code').textContent`)
	s.open("#/account", `[data-testid=orders]`)
	row = `[data-testid=orders] [data-order="` + sold + `"]`
	s.until("the sell filled", `document.querySelector('`+row+`')?.dataset.state === 'filled' || (document.querySelector('[data-testid=orders-reload]')?.click(), false)`)
	shown := eval[[]string](s, `[...document.querySelectorAll('`+row+` [data-testid=fire-txs] [data-kind]')].map(e => e.dataset.kind + ' ' + e.dataset.hash)`)
	page, err := s.srv.App.DB.Orders().Orders(context.Background(), orders.Query{Wallet: custodial, Kind: orders.TakeProfit, Limit: 10})
	if err != nil || len(page.Orders) != 1 || len(page.Orders[0].Fires) != 1 {
		t.Fatalf("the sell as stored: %+v, %v", page.Orders, err)
	}
	var want []string
	for _, tx := range page.Orders[0].Fires[0].Txs {
		want = append(want, string(tx.Kind)+" "+tx.Hash.Hex())
	}
	if len(want) != 2 || !slices.Equal(shown, want) {
		t.Errorf("the sell's fire shows %q; want the approval, then the trade: %q", shown, want)
	}
	s.noStrangeScript()
}

// The settings read in words: caps per pairing asset, the impact cap, a recipient cooling down,
// a running relaxation with its end; and the activity log pages back through every change.
func TestWalletSafetyInWords(t *testing.T) {
	s := newSite(t, 5)
	s.signIn("grace")
	patch := func(body string) {
		t.Helper()
		status := eval[int](s, `fetch('/account/settings', { method: 'PATCH', headers: { 'Content-Type': 'application/json' }, body: `+"`"+body+"`"+` }).then(r => r.status)`)
		if status != 200 {
			t.Fatalf("PATCH %s: %d", body, status)
		}
	}
	// 21 changes of the impact cap, then the rest: 24 changes, more than a page of 20.
	for i := 0; i < 21; i++ {
		patch(`{"wallet":{"maxPriceImpact":` + []string{"10", "12.5"}[i%2] + `}}`)
	}
	patch(`{"wallet":{"limits":{"ETH":{"perTransaction":"0.5","daily":"2"}}}}`)
	patch(`{"wallet":{"recipients":{"0x1111111111111111111111111111111111111111":{}}}}`)
	patch(`{"wallet":{"relax":{"minutes":10,"limits":{"ETH":{"daily":"3"}},"maxPriceImpact":20}}}`)
	s.do("reload", chromedp.Reload())
	s.until("the settings", `document.querySelector('[data-testid=safety-relax]')?.textContent.startsWith('Relaxed')`)
	words := eval[map[string]string](s, `Object.fromEntries(['caps', 'impact', 'recipients', 'relax'].map(k => [k, document.querySelector('[data-testid=safety-' + k + ']').innerText]))`)
	for k, want := range map[string]string{
		"caps":       "ETH: at most 0.5 ETH per transaction, at most 2 ETH in any 24 hours may leave the wallet.",
		"impact":     "more than 10%",
		"recipients": "0x1111111111111111111111111111111111111111 cooling down until",
		"relax":      "Relaxed for 10 minutes, until",
	} {
		if !strings.Contains(words[k], want) {
			t.Errorf("%s reads %q, want %q in it", k, words[k], want)
		}
	}
	if !strings.Contains(words["relax"], "ETH: at most 0.5 ETH per transaction, at most 3 ETH in any 24 hours") || !strings.Contains(words["relax"], "Price impact up to 20%") {
		t.Errorf("the relaxation reads %q", words["relax"])
	}
	s.until("a page of activity", `document.querySelectorAll('[data-testid=activity] li').length === 20 && !!document.querySelector('[data-testid=activity-more]')`)
	s.click(`[data-testid=activity-more]`)
	s.until("every change", `document.querySelectorAll('[data-testid=activity] li[data-kind=settings]').length === 24`)
	if ids := eval[int](s, `new Set([...document.querySelectorAll('[data-testid=activity] li')].map(li => li.dataset.activity)).size`); ids != 24 {
		t.Errorf("the activity pages hold %d distinct entries, want 24", ids)
	}
	s.axeClean("wallet safety with caps, a recipient and a relaxation")
	s.noStrangeScript()
}
