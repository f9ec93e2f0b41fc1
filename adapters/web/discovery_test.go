package web_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/ethereum/go-ethereum/common"

	"github.com/curvekit/curvekit"
	"github.com/curvekit/curvekit/contracts/bindings"
)

// listed is a token as GET /tokens lists it.
type listed struct {
	Address common.Address `json:"address"`
	Name    string         `json:"name"`
}

// apiList is the addresses GET /tokens answers for query, in its order.
func (s *site) apiList(query string) []string {
	s.t.Helper()
	var out []string
	for _, tok := range getJSON[struct {
		Tokens []listed `json:"tokens"`
	}](s.t, s.srv, "/tokens?limit=24&"+query).Tokens {
		out = append(out, tok.Address.Hex())
	}
	return out
}

// pageList is the addresses the market's list shows once it has loaded, in its order.
func (s *site) pageList() []string {
	s.t.Helper()
	s.until("the list loaded", `document.querySelector('[data-testid=token-list]')?.getAttribute('aria-busy') === 'false'`)
	return eval[[]string](s, `[...document.querySelectorAll('[data-testid=token-list] [data-token]')].map(e => e.dataset.token)`)
}

// listShows waits until the market's list shows exactly the tokens GET /tokens answers for query.
func (s *site) listShows(what, query string) []string {
	s.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		want, got := s.apiList(query), s.pageList()
		if len(want) > 0 && slices.Equal(got, want) {
			return got
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("%s: the page lists %v, GET /tokens?%s answers %v", what, got, query, want)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// launchIndexed launches a token from devnet account i and waits for the indexer to list it.
func (s *site) launchIndexed(i int, name, symbol string) common.Address {
	s.t.Helper()
	s.launchOnChain(i, name, symbol, "")
	deadline := time.Now().Add(30 * time.Second)
	for {
		for _, tok := range getJSON[struct {
			Tokens []listed `json:"tokens"`
		}](s.t, s.srv, "/tokens?q="+url.QueryEscape(name)).Tokens {
			if tok.Name == name {
				return tok.Address
			}
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("%s was not indexed", name)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// history goes back or forward in the tab's history, as the browser's buttons do.
func (s *site) history(way string) {
	s.t.Helper()
	eval[bool](s, `(history.`+way+`(), true)`)
}

// selectedTab is the id of the tablist's selected tab and whether it has the focus.
func (s *site) selectedTab(list string) (string, bool) {
	s.t.Helper()
	v := eval[[]string](s, fmt.Sprintf(`(() => { const t = document.querySelector('[role=tablist][aria-label=%q] [aria-selected=true]'); return [t?.dataset.tab ?? '', String(document.activeElement === t)] })()`, list))
	return v[0], v[1] == "true"
}

// The market's tabs list what GET /tokens lists for each (about to graduate: on the curve and 80%
// of the way or more; graduated: every graduated token, a fresh graduation included; trending:
// the trending order); they are a tablist worked by the arrow keys, and the selected one is in
// the URL, kept by a reload and by back and forward. The king of the hill changes live when a buy
// takes the crown.
func TestMarketTabs(t *testing.T) {
	s := newSite(t, 5)
	deth, grad := s.srv.App.Devnet.ETHToken.Token, s.srv.App.Devnet.GraduatedToken.Token
	near := s.launchIndexed(8, "Nearly There", "NEAR")
	fresh := s.launchIndexed(9, "Fresh Graduate", "FRSH")
	short := s.launchIndexed(4, "Not Yet", "NYET")
	s.devnetBuy(7, near, "7.4")  // about 86% of the way
	s.devnetBuy(7, short, "6.2") // about 72%
	s.devnetBuy(6, fresh, "9.5") // past the graduation threshold
	deadline := time.Now().Add(30 * time.Second)
	for !slices.Contains(s.apiList("graduatedSince=1"), fresh.Hex()) || !slices.Contains(s.apiList("phase=curve&progressMin=80"), near.Hex()) {
		if time.Now().After(deadline) {
			t.Fatal("the buys were not indexed")
		}
		time.Sleep(100 * time.Millisecond)
	}

	s.open("#/market/graduating", `[role=tablist]`)
	if got := s.listShows("about to graduate", "sort=progress&phase=curve&progressMin=80&progressMax=100"); !slices.Equal(got, []string{near.Hex()}) {
		t.Errorf("about to graduate lists %v, want only %s (not %s at 72%%)", got, near.Hex(), short.Hex())
	}
	if tab, _ := s.selectedTab("Token lists"); tab != "graduating" {
		t.Errorf("#/market/graduating selects %q", tab)
	}

	// The arrow keys move the selection and the focus, and the URL follows.
	s.click(`[role=tab][data-tab=graduating]`)
	s.do("ArrowRight", chromedp.KeyEvent(kb.ArrowRight))
	s.until("graduated selected", `location.hash === '#/market/graduated' && document.querySelector('[data-tab=graduated]')?.getAttribute('aria-selected') === 'true'`)
	if tab, focused := s.selectedTab("Token lists"); tab != "graduated" || !focused {
		t.Errorf("after ArrowRight the selected tab is %q (focused %v)", tab, focused)
	}
	got := s.listShows("graduated", "sort=newest&graduatedSince=1")
	if !slices.Contains(got, fresh.Hex()) || !slices.Contains(got, grad.Hex()) || slices.Contains(got, deth.Hex()) {
		t.Errorf("graduated lists %v, want GRAD and the fresh graduate, not DETH", got)
	}
	s.do("Home", chromedp.KeyEvent(kb.Home))
	s.until("all tokens selected", `location.hash === '#/'`)
	s.do("End", chromedp.KeyEvent(kb.End))
	s.until("king selected", `location.hash === '#/market/king'`)
	s.do("ArrowLeft", chromedp.KeyEvent(kb.ArrowLeft))
	s.do("ArrowLeft", chromedp.KeyEvent(kb.ArrowLeft))
	s.do("ArrowLeft", chromedp.KeyEvent(kb.ArrowLeft))
	s.until("trending selected", `location.hash === '#/market/trending' && document.querySelector('[data-tab=trending]')?.getAttribute('aria-selected') === 'true'`)
	if tab, focused := s.selectedTab("Token lists"); tab != "trending" || !focused {
		t.Errorf("after the arrows the selected tab is %q (focused %v)", tab, focused)
	}
	s.listShows("trending", "sort=trending")
	if n := eval[int](s, `document.querySelectorAll('[role=tablist][aria-label="Token lists"] [tabindex="0"]').length`); n != 1 {
		t.Errorf("%d tabs are tab stops, want the selected one alone", n)
	}

	// Back and forward walk the tabs; a reload keeps the selected one. (Walked over clicks: the
	// history entries of key presses a few milliseconds apart are the browser's to keep or merge.)
	s.click(`[role=tab][data-tab=graduated]`)
	s.until("graduated clicked", `document.querySelector('[data-tab=graduated]')?.getAttribute('aria-selected') === 'true'`)
	s.click(`[role=tab][data-tab=graduating]`)
	s.until("about to graduate clicked", `document.querySelector('[data-tab=graduating]')?.getAttribute('aria-selected') === 'true'`)
	s.history("back")
	s.until("back to graduated", `location.hash === '#/market/graduated' && document.querySelector('[data-tab=graduated]')?.getAttribute('aria-selected') === 'true'`)
	s.listShows("graduated, back", "sort=newest&graduatedSince=1")
	s.history("forward")
	s.until("forward to about to graduate", `document.querySelector('[data-tab=graduating]')?.getAttribute('aria-selected') === 'true'`)
	s.click(`[role=tab][data-tab=king]`)
	s.until("king selected", `location.hash === '#/market/king'`)
	s.do("reload", chromedp.Reload())
	s.until("king after the reload", `document.querySelector('[data-tab=king]')?.getAttribute('aria-selected') === 'true'`)

	// The king of the hill of ETH is the curve-phase token with the highest market cap: NEAR. A
	// buy that lifts DETH above it passes the crown, and the page shows it without asking again.
	king := `document.querySelector('[data-asset=ETH] [data-testid=king]')?.dataset.token`
	s.until("NEAR is king", king+` === '`+near.Hex()+`'`)
	since := eval[string](s, `document.querySelector('[data-asset=ETH] [data-testid=king-since]').dataset.since`)
	api := getJSON[struct {
		Since int64 `json:"since"`
	}](t, s.srv, "/tokens/king")
	if since != strconv.FormatInt(api.Since, 10) {
		t.Errorf("the page says king since %s, GET /tokens/king %d", since, api.Since)
	}
	asked := s.asked.count("/tokens/king")
	s.devnetBuy(6, deth, "7.8")
	s.until("DETH takes the crown", king+` === '`+deth.Hex()+`'`)
	if n := s.asked.count("/tokens/king"); n != asked {
		t.Errorf("the page asked GET /tokens/king %d more times; the crown should come from the stream", n-asked)
	}
	newSince := eval[string](s, `document.querySelector('[data-asset=ETH] [data-testid=king-since]').dataset.since`)
	if now := getJSON[struct {
		Since int64 `json:"since"`
		Token struct {
			Address common.Address `json:"address"`
		} `json:"token"`
	}](t, s.srv, "/tokens/king"); now.Token.Address != deth || newSince != strconv.FormatInt(now.Since, 10) {
		t.Errorf("the page shows DETH king since %s; GET /tokens/king says %s since %d", newSince, now.Token.Address, now.Since)
	}
	// DUSD is the other pairing asset's king.
	if got := eval[string](s, `document.querySelector('[data-asset="`+s.srv.App.Devnet.Addrs.USD.Hex()+`"] [data-testid=king]')?.dataset.token ?? ''`); got != s.srv.App.Devnet.USDToken.Token.Hex() {
		t.Errorf("the TUSD king shown is %q, want DUSD", got)
	}
	// DETH is now about to graduate too: the tab lists it after the refresh.
	s.click(`[role=tab][data-tab=graduating]`)
	if got := s.listShows("about to graduate after DETH's buy", "sort=progress&phase=curve&progressMin=80&progressMax=100"); !slices.Contains(got, deth.Hex()) {
		t.Errorf("about to graduate lists %v, want DETH in it", got)
	}
	s.noStrangeScript()
}

// devnetToken sends a call to token from devnet account i.
func (s *site) devnetToken(i int, token common.Address, data []byte) {
	s.t.Helper()
	s.devnetSend(i, token, nil, data)
}

// chainBalance is addr's balance of token on chain.
func (s *site) chainBalance(token, addr common.Address) *big.Int {
	s.t.Helper()
	b, err := s.srv.App.Devnet.Balance(context.Background(), token, addr)
	if err != nil {
		s.t.Fatal(err)
	}
	return b
}

// shownPercent reads a percentage the page shows ("12.5%") as a fraction.
func shownPercent(t *testing.T, s string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(strings.TrimSuffix(s, "%"), 64)
	if err != nil {
		t.Fatalf("%q is not a percentage", s)
	}
	return v / 100
}

// The token page's holders tab lists every holder, page after page, with the chain's balances
// exactly, shares that are those balances over the supply and add up to it, the curve, creator
// and burn labels, and the concentration (holder count, the top ten's share without the curve,
// the creator's share) as the chain's balances give them. The tab is in the URL.
func TestHoldersTab(t *testing.T) {
	s := newSite(t, 5)
	dn := s.srv.App.Devnet
	deth := dn.ETHToken.Token
	tok := bindings.NewCurveToken()
	s.devnetBuy(6, deth, "0.4")
	s.devnetBuy(7, deth, "0.2")
	// More holders than a page: 22 small transfers to fresh addresses, one to the burn address and
	// a burn, which takes tokens out of the supply.
	unit := new(big.Int).Exp(big.NewInt(10), big.NewInt(18), nil)
	for i := range 22 {
		s.devnetToken(6, deth, tok.PackTransfer(common.BigToAddress(big.NewInt(int64(0x1000+i))), new(big.Int).Mul(big.NewInt(int64(1000+i)), unit)))
	}
	burnAddr := common.HexToAddress("0x000000000000000000000000000000000000dEaD")
	s.devnetToken(7, deth, tok.PackTransfer(burnAddr, new(big.Int).Mul(big.NewInt(5000), unit)))
	s.devnetToken(7, deth, tok.PackBurn(new(big.Int).Mul(big.NewInt(777), unit)))
	// The indexer has every transfer once the holder count is the chain's.
	deadline := time.Now().Add(30 * time.Second)
	for getJSON[struct {
		Holders int `json:"holders"`
	}](t, s.srv, "/tokens/"+deth.Hex()).Holders < 22+5 {
		if time.Now().After(deadline) {
			t.Fatal("the transfers were not indexed")
		}
		time.Sleep(100 * time.Millisecond)
	}

	s.open("#/token/"+deth.Hex()+"/holders", `[data-testid=holders] tbody tr`)
	if tab, _ := s.selectedTab("Trades and holders"); tab != "holders" {
		t.Fatalf("#/token/…/holders selects %q", tab)
	}
	for i := 0; eval[bool](s, `!!document.querySelector('[data-testid=holders-more]')`); i++ {
		if i > 5 {
			t.Fatal("the holders never end")
		}
		n := eval[int](s, `document.querySelectorAll('[data-testid=holders] tbody tr').length`)
		s.click(`[data-testid=holders-more]`)
		s.until("the next page", fmt.Sprintf(`document.querySelectorAll('[data-testid=holders] tbody tr').length > %d`, n))
	}
	type row struct {
		Address common.Address `json:"address"`
		Balance string         `json:"balance"`
		Share   string         `json:"share"`
		Label   string         `json:"label"`
	}
	var rows []row
	raw := eval[string](s, `JSON.stringify([...document.querySelectorAll('[data-testid=holders] tbody tr')].map(r => ({
		address: r.dataset.holder, balance: r.dataset.balance, label: r.dataset.label, share: r.querySelector('[data-testid=holder-share]').textContent })))`)
	if err := json.Unmarshal([]byte(raw), &rows); err != nil {
		t.Fatal(err)
	}
	supplyRaw, err := dn.Call(context.Background(), dn.Accounts[0].Address, deth, tok.PackTotalSupply())
	if err != nil {
		t.Fatal(err)
	}
	supply, err := tok.UnpackTotalSupply(supplyRaw)
	if err != nil {
		t.Fatal(err)
	}
	fsupply, _ := new(big.Float).SetInt(supply).Float64()
	sum := new(big.Int)
	labels := map[common.Address]string{}
	var outside []*big.Int // balances of the holders other than the curve and the pool
	var prev *big.Int
	for i, r := range rows {
		onChain := s.chainBalance(deth, r.Address)
		shown, err := curvekit.ParseAmount(r.Balance, 18)
		if err != nil || shown.ToBig().Cmp(onChain) != 0 {
			t.Errorf("holder %s: the page shows %s, the chain holds %s wei", r.Address, r.Balance, onChain)
		}
		if prev != nil && onChain.Cmp(prev) > 0 {
			t.Errorf("holder %d (%s) holds more than the one before it", i, r.Address)
		}
		prev = onChain
		sum.Add(sum, onChain)
		f, _ := new(big.Float).SetInt(onChain).Float64()
		if got, want := shownPercent(t, strings.Replace(r.Share, "<0.01", "0", 1)), f/fsupply; math.Abs(got-want) > 0.00005+1e-12 && !(strings.HasPrefix(r.Share, "<") && want < 0.0001) {
			t.Errorf("holder %s: share %s, the chain's balance makes it %.6f%%", r.Address, r.Share, want*100)
		}
		labels[r.Address] = r.Label
		if r.Label != "curve" && r.Label != "pool" {
			outside = append(outside, onChain)
		}
	}
	if sum.Cmp(supply) != 0 {
		t.Errorf("the holders' balances add up to %s wei, the supply is %s", sum, supply)
	}
	count := eval[string](s, `document.querySelector('[data-testid=holder-count]').textContent`)
	if count != strconv.Itoa(len(rows)) {
		t.Errorf("the page counts %s holders and lists %d", count, len(rows))
	}
	for addr, want := range map[common.Address]string{dn.ETHToken.Curve: "curve", dn.Accounts[0].Address: "creator", burnAddr: "burn", common.BigToAddress(big.NewInt(0x1000)): ""} {
		if got, ok := labels[addr]; !ok || got != want {
			t.Errorf("holder %s labelled %q (listed %v), want %q", addr, got, ok, want)
		}
	}
	if badges := eval[[]string](s, `[...document.querySelectorAll('[data-testid=holder-label]')].map(e => e.textContent)`); !slices.Contains(badges, "Curve") || !slices.Contains(badges, "Creator") || !slices.Contains(badges, "Burn") {
		t.Errorf("the label badges shown are %q", badges)
	}
	top := new(big.Int)
	for _, b := range outside[:min(10, len(outside))] {
		top.Add(top, b)
	}
	ftop, _ := new(big.Float).SetInt(top).Float64()
	creator, _ := new(big.Float).SetInt(s.chainBalance(deth, dn.Accounts[0].Address)).Float64()
	for id, want := range map[string]float64{"top10-share": ftop / fsupply, "creator-share": creator / fsupply} {
		if got := shownPercent(t, eval[string](s, `document.querySelector('[data-testid=`+id+`]').textContent`)); math.Abs(got-want) > 0.00005+1e-12 {
			t.Errorf("%s shown %.4f%%, the chain's balances make it %.6f%%", id, got*100, want*100)
		}
	}

	// The tabs: the arrow back to the trades, the URL without /holders, and back again.
	s.click(`[role=tab][data-tab=holders]`)
	s.do("ArrowLeft", chromedp.KeyEvent(kb.ArrowLeft))
	s.until("the trades", `location.hash === '#/token/`+deth.Hex()+`' && document.querySelectorAll('[data-testid=tape] tbody tr').length > 0`)
	s.history("back")
	s.until("the holders again", `document.querySelector('[data-tab=holders]')?.getAttribute('aria-selected') === 'true' && !!document.querySelector('[data-testid=holders] tbody tr')`)
	s.noStrangeScript()
}
