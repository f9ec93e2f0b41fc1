package web_test

import (
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/curvekit/curvekit"
	"github.com/curvekit/curvekit/internal/app/apptest"
	"github.com/curvekit/curvekit/market"
)

// getJSON reads one of the API's answers.
func getJSON[T any](t *testing.T, srv *apptest.Server, path string) T {
	t.Helper()
	resp, err := http.Get(srv.Base + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	var v T
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d %s", path, resp.StatusCode, body)
	}
	if err := json.Unmarshal(body, &v); err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	return v
}

type bar struct {
	Time   int64    `json:"time"`
	Open   *float64 `json:"open"`
	High   *float64 `json:"high"`
	Low    *float64 `json:"low"`
	Close  *float64 `json:"close"`
	Volume string   `json:"volume"`
	Trades int      `json:"trades"`
}

// chartBars are the bars the token page's chart holds.
func (s *site) chartBars() []bar {
	s.t.Helper()
	raw := eval[string](s, `JSON.stringify(document.getElementById('chart').chartBars())`)
	var bars []bar
	if err := json.Unmarshal([]byte(raw), &bars); err != nil {
		s.t.Fatal(err)
	}
	return bars
}

// chartMatchesCandles waits until the chart's bars equal /candles at 1m.
func (s *site) chartMatchesCandles(token common.Address) { s.chartMatchesCandlesAt(token, "1m") }

// chartMatchesCandlesAt waits until the chart's bars equal /candles at res.
func (s *site) chartMatchesCandlesAt(token common.Address, res string) {
	s.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		want := getJSON[struct {
			Bars []bar `json:"bars"`
		}](s.t, s.srv, "/tokens/"+token.Hex()+"/candles?res="+res).Bars
		got := s.chartBars()
		diff := compareBars(got, want)
		if diff == "" {
			return
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("the chart's bars differ from /candles: %s", diff)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func compareBars(got, want []bar) string {
	if len(got) != len(want) {
		return fmt.Sprintf("%d bars, /candles has %d", len(got), len(want))
	}
	for i := range got {
		g, _ := json.Marshal(got[i])
		w, _ := json.Marshal(want[i])
		if string(g) != string(w) {
			return fmt.Sprintf("bar %d: chart %s, /candles %s", i, g, w)
		}
	}
	return ""
}

// The market lists the devnet's tokens with live prices; a token's page takes a buy confirmed in
// the wallet (which the page first switches to the devnet, adding it), shows it on the tape once
// indexed, and its chart equals /candles. Then a sell, which needs the token's approval first.
func TestBuyAndSellConfirmedInTheWallet(t *testing.T) {
	s := newSite(t, 5)
	deth := s.srv.App.Devnet.ETHToken.Token

	s.open("", `[data-token="`+deth.Hex()+`"]`)
	s.noStrangeScript()
	// Prices move live on the market.
	before := eval[string](s, `document.querySelector('[data-token="`+deth.Hex()+`"] [data-testid=price]').textContent`)
	s.devnetBuy(7, deth, "0.05")
	s.until("the price moved", `document.querySelector('[data-token="`+deth.Hex()+`"] [data-testid=price]').textContent !== `+strconv.Quote(before))
	s.click(`[data-token="` + deth.Hex() + `"] a`)
	s.until("the token page is live", `document.querySelector('[data-testid=live]')?.textContent === 'Live'`)

	s.typeIn(`[data-testid=amount]`, "0.01")
	s.until("a quote", `document.querySelector('[data-testid=quote]')?.textContent.includes('You get about')`)
	s.click(`[data-testid=confirm-wallet]`)
	s.until("the buy indexed", `document.querySelector('[data-testid=trade-status]')?.textContent.startsWith('Indexed')`)
	sent := s.wallet.sentTxs()
	if len(sent) != 1 || *sent[0].To() != s.srv.App.Devnet.ETHToken.Curve {
		t.Fatalf("the wallet sent %d transactions, want the buy to the curve", len(sent))
	}
	hash := sent[0].Hash().Hex()
	s.until("the buy on the tape", fmt.Sprintf(`!!document.querySelector('[data-tx="%s"]')`, strings.ToLower(hash)))
	s.wallet.mu.Lock()
	rpcURL := s.wallet.added[s.srv.App.Devnet.ChainID.Int64()]
	s.wallet.mu.Unlock()
	if rpcURL != s.srv.App.DevnetRPCURL() {
		t.Errorf("the page added the chain with RPC %q, want %q", rpcURL, s.srv.App.DevnetRPCURL())
	}
	s.chartMatchesCandles(deth)
	// Every resolution's chart is /candles at that resolution.
	for i, res := range []string{"5m", "15m", "1h", "4h", "1d", "1m"} {
		s.click(fmt.Sprintf(`[aria-label=Resolution] button:nth-child(%d)`, []int{2, 3, 4, 5, 6, 1}[i]))
		s.until(res+" live", `document.querySelector('[data-testid=live]')?.textContent === 'Live' && document.querySelector('[aria-label=Resolution] [aria-pressed=true]')?.textContent === '`+res+`'`)
		s.chartMatchesCandlesAt(deth, res)
	}

	// Sell 1000 DETH: the approval first, then the sell.
	s.click(`[aria-label=Side] button:nth-child(2)`)
	s.clear(`[data-testid=amount]`)
	s.typeIn(`[data-testid=amount]`, "1000")
	s.until("a sell quote", `document.querySelector('[data-testid=quote]')?.textContent.includes('ETH')`)
	s.click(`[data-testid=confirm-wallet]`)
	s.until("the sell indexed", `document.querySelector('[data-testid=trade-status]')?.textContent.startsWith('Indexed')`)
	sent = s.wallet.sentTxs()
	if len(sent) != 3 {
		t.Fatalf("the wallet sent %d transactions, want buy, approval, sell", len(sent))
	}
	if *sent[1].To() != deth || !strings.HasPrefix(common.Bytes2Hex(sent[1].Data()), "095ea7b3") {
		t.Errorf("the second transaction is not DETH's approve: to %s data %x", sent[1].To(), sent[1].Data()[:4])
	}
	if *sent[2].To() != s.srv.App.Devnet.ETHToken.Curve {
		t.Errorf("the sell went to %s, want the curve", sent[2].To())
	}
	s.chartMatchesCandles(deth)
	s.noStrangeScript()
}

// devnetSend sends a transaction from devnet account i, as another trader on the chain would.
func (s *site) devnetSend(i int, to common.Address, value *big.Int, data []byte) {
	s.t.Helper()
	dn := s.srv.App.Devnet
	r, err := dn.Send(context.Background(), dn.Accounts[i].Key, &to, value, data)
	if err != nil || r.Status != types.ReceiptStatusSuccessful {
		s.t.Fatalf("devnet send from account %d to %s: %v", i, to, err)
	}
}

// devnetBuy buys token with amount ETH from devnet account i, outside the page.
func (s *site) devnetBuy(i int, token common.Address, amount string) {
	s.t.Helper()
	b, err := s.srv.App.Market.BuildTx(context.Background(), token, market.BuildRequest{Side: curvekit.Buy, Amount: amount, SlippageBps: 100, Wallet: s.srv.App.Devnet.Accounts[i].Address, Recipient: s.srv.App.Devnet.Accounts[i].Address})
	if err != nil {
		s.t.Fatal(err)
	}
	s.devnetSend(i, b.Plan.Tx.To, b.Plan.Tx.Value.ToBig(), b.Plan.Tx.Data)
}

// A token stream cut mid-chart resumes from its Last-Event-ID: trades made while it was down and
// after it came back end in the chart, whose bars equal /candles.
func TestChartSurvivesACutStream(t *testing.T) {
	s := newSite(t, 5)
	deth := s.srv.App.Devnet.ETHToken.Token
	s.open("#/token/"+deth.Hex(), `[data-testid=chart]`)
	s.until("the token page is live", `document.querySelector('[data-testid=live]')?.textContent === 'Live'`)
	s.devnetBuy(6, deth, "0.02")
	s.chartMatchesCandles(deth)
	for round := 0; round < 3; round++ {
		served := s.cuts.count()
		if n := s.cuts.cut(); n == 0 {
			t.Fatal("no token stream to cut")
		}
		s.devnetBuy(7, deth, "0.01") // while the page is disconnected
		deadline := time.Now().Add(20 * time.Second)
		for s.cuts.count() == served {
			if time.Now().After(deadline) {
				t.Fatal("the page did not reconnect its token stream")
			}
			time.Sleep(50 * time.Millisecond)
		}
		s.devnetBuy(6, deth, "0.015") // after it came back
		s.chartMatchesCandles(deth)
	}
	// Every trade is on the tape once.
	trades := getJSON[struct {
		Trades []struct {
			TxHash string `json:"txHash"`
		} `json:"trades"`
	}](t, s.srv, "/tokens/"+deth.Hex()+"/trades?limit=100").Trades
	for _, tr := range trades {
		if n := eval[int](s, fmt.Sprintf(`document.querySelectorAll('[data-tx="%s"]').length`, tr.TxHash)); n > 1 {
			t.Errorf("trade %s is %d times on the tape", tr.TxHash, n)
		}
	}
	s.noStrangeScript()
}

// writePNG writes a small real PNG to upload.
func writePNG(t *testing.T) string {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 64, 64))
	for x := range 64 {
		for y := range 64 {
			img.Set(x, y, color.RGBA{uint8(x * 4), uint8(y * 4), 200, 255})
		}
	}
	p := filepath.Join(t.TempDir(), "cat.png")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := png.Encode(f, img); err != nil {
		t.Fatal(err)
	}
	return p
}

// A launch from the page: the image checked and previewed, the daily limit and the fee shown,
// image and metadata pinned, the factory call confirmed in the wallet, and the new token's page
// opened with its logo once indexed.
func TestLaunchWithAnImage(t *testing.T) {
	s := newSite(t, 4)
	s.open("#/launch", `[data-testid=launch-name]`)
	s.until("the daily limit", `/0 of 3/.test(document.querySelector('[data-testid=daily-limit]')?.textContent)`)
	s.until("the fee estimate", `/ETH/.test(document.querySelector('[data-testid=fee-estimate]')?.textContent)`)
	// The image's type and size are checked before anything is uploaded.
	big := filepath.Join(t.TempDir(), "big.png")
	if err := os.WriteFile(big, append([]byte("\x89PNG\r\n\x1a\n"), make([]byte, 5<<20)...), 0o644); err != nil {
		t.Fatal(err)
	}
	text := filepath.Join(t.TempDir(), "cat.txt")
	if err := os.WriteFile(text, []byte("not an image"), 0o644); err != nil {
		t.Fatal(err)
	}
	s.do("pick a 5 MB + 8 B image", chromedp.SetUploadFiles(chromedp.CSS(`[data-testid=launch-image]`), []string{big}))
	s.until("too large", `/at most 5 MB is accepted/.test(document.querySelector('.drop .error')?.textContent)`)
	s.do("pick a text file", chromedp.SetUploadFiles(chromedp.CSS(`[data-testid=launch-image]`), []string{text}))
	s.until("not an image", `/must be PNG, JPEG, GIF or WebP/.test(document.querySelector('.drop .error')?.textContent)`)
	s.typeIn(`[data-testid=launch-name]`, "Page Cat")
	s.typeIn(`[data-testid=launch-symbol]`, "PCAT")
	s.typeIn(`textarea`, "A cat launched from the page")
	s.do("pick the image", chromedp.SetUploadFiles(chromedp.CSS(`[data-testid=launch-image]`), []string{writePNG(t)}))
	s.until("the preview", `document.querySelector('img.preview')?.complete && document.querySelector('img.preview').naturalWidth === 64`)
	s.click(`[data-testid=launch-submit]`)
	s.until("the new token's page", `location.hash.startsWith('#/token/')`)
	s.until("its name", `document.querySelector('[data-testid=token-name]')?.textContent === 'Page Cat'`)
	s.until("its logo", `document.querySelector('.token-head img.logo')?.naturalWidth === 64`)
	s.until("its description", `document.querySelector('[data-testid=description]')?.textContent === 'A cat launched from the page'`)
	sent := s.wallet.sentTxs()
	if len(sent) != 1 || *sent[0].To() != s.srv.App.Devnet.Addrs.Factory {
		t.Fatalf("the wallet sent %d transactions, want the launch to the factory", len(sent))
	}
	s.noStrangeScript()
}

// A creator claims a token's fees from the page: the claim confirmed in the wallet, and the
// claimable amount zero once indexed.
func TestClaimCreatorFees(t *testing.T) {
	s := newSite(t, 0) // the devnet's DETH creator
	deth := s.srv.App.Devnet.ETHToken.Token
	s.devnetBuy(6, deth, "0.5")
	s.open("#/creator", `[data-testid=claim]`)
	s.click(`[data-testid=claim]`)
	s.until("the claim indexed", `document.querySelector('[data-testid=claimable-ETH]')?.textContent === '0'`)
	sent := s.wallet.sentTxs()
	if len(sent) != 1 || *sent[0].To() != s.srv.App.Devnet.ETHToken.Curve {
		t.Fatalf("the wallet sent %d transactions, want the claim to DETH's curve", len(sent))
	}
	fees := getJSON[struct {
		Assets []struct {
			Claimable string `json:"claimable"`
		} `json:"assets"`
	}](t, s.srv, "/launch/fees/"+s.wallet.addr.Hex())
	if len(fees.Assets) == 0 || fees.Assets[0].Claimable != "0" {
		t.Errorf("after the claim, /launch/fees says %+v", fees.Assets)
	}
	s.noStrangeScript()
}

// keyWorks says whether the API takes the key.
func keyWorks(t *testing.T, srv *apptest.Server, key string) int {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, srv.Base+"/agent/tools", nil)
	req.Header.Set("X-API-Key", key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// signIn signs in through the development identity provider's form as handle.
func (s *site) signIn(handle string) {
	s.t.Helper()
	s.open("#/account", `[data-testid=sign-in]`)
	s.click(`[data-testid=sign-in]`)
	s.do("the provider's form", chromedp.WaitVisible(chromedp.CSS(`input[name=login_hint]`)))
	s.typeIn(`input[name=login_hint]`, handle)
	s.click(`button[type=submit]`)
	s.do("back on the account page", chromedp.WaitVisible(chromedp.CSS(`[data-testid=handle]`)))
}

// Signing in, an API key created (its raw value shown once, and working), then revoked (and
// refused at once); then the agent terminal composes a buy that the custodial wallet sends after
// its confirmation, indexed, and remembers and forgets a preference.
func TestAccountKeysAndAgent(t *testing.T) {
	s := newSite(t, 5)
	s.signIn("alice")
	if h := eval[string](s, `document.querySelector('[data-testid=handle]').textContent`); h != "alice" {
		t.Fatalf("signed in as %q", h)
	}
	s.typeIn(`[data-testid=key-name]`, "page bot")
	s.click(`[data-testid=create-key]`)
	s.until("the new key", `/^svc_[0-9a-f]{48}$/.test(document.querySelector('[data-testid=new-key]')?.textContent)`)
	key := eval[string](s, `document.querySelector('[data-testid=new-key]').textContent`)
	if code := keyWorks(t, s.srv, key); code != http.StatusOK {
		t.Fatalf("the new key gets %d", code)
	}
	s.click(`[data-testid=revoke]`)
	s.until("revoked", `!!document.querySelector('[data-testid=revoked]')`)
	if code := keyWorks(t, s.srv, key); code != http.StatusUnauthorized {
		t.Fatalf("the revoked key gets %d, want 401", code)
	}

	// A webhook: added with its secret shown once, tested, its delivery in the log, verified by
	// the receiver with the secret the page showed.
	var hookMu sync.Mutex
	var hookBodies [][]byte
	var hookHeaders []http.Header
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		hookMu.Lock()
		hookBodies, hookHeaders = append(hookBodies, body), append(hookHeaders, r.Header.Clone())
		hookMu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	}))
	defer receiver.Close()
	s.typeIn(`[data-testid=webhook-url]`, receiver.URL+"/hook")
	s.click(`[data-testid=create-webhook]`)
	s.until("the webhook's secret", `/^whsec_/.test(document.querySelector('[data-testid=webhook-secret]')?.textContent)`)
	secret := eval[string](s, `document.querySelector('[data-testid=webhook-secret]').textContent`)
	s.until("the webhook listed", `document.querySelector('[data-testid=webhooks] tbody')?.textContent.includes(`+strconv.Quote(receiver.URL)+`)`)
	s.click(`[data-testid=webhook-test]`)
	// Each poll reloads the log until the ping shows as delivered.
	s.until("the ping delivered", `document.querySelector('[data-testid=delivery-state]')?.textContent === 'succeeded' || (document.querySelector('[data-testid=deliveries-reload]')?.click(), false)`)
	hookMu.Lock()
	if len(hookBodies) != 1 {
		t.Fatalf("the receiver got %d deliveries", len(hookBodies))
	}
	wh, _ := standardwebhooks.NewWebhook(secret)
	if err := wh.Verify(hookBodies[0], hookHeaders[0]); err != nil || !strings.Contains(string(hookBodies[0]), `"type":"ping"`) {
		t.Errorf("the ping %s: %v", hookBodies[0], err)
	}
	hookMu.Unlock()

	// The key export: behind a warning, then shown (the sign-in is fresh), matching the wallet.
	s.click(`[data-testid=export]`)
	s.click(`[data-testid=export-confirm]`)
	s.until("the exported key", `/0x[0-9a-f]{64}/.test(document.querySelector('.notice.warn code')?.textContent)`)
	exported, err := crypto.HexToECDSA(strings.TrimPrefix(eval[string](s, `document.querySelector('.notice.warn code').textContent`), "0x"))
	if err != nil {
		t.Fatal(err)
	}

	// Fund the custodial wallet, then have the agent compose a buy.
	custodial := common.HexToAddress(eval[string](s, `document.querySelector('.kv dd code').textContent`))
	if crypto.PubkeyToAddress(exported.PublicKey) != custodial {
		t.Fatalf("the exported key is not the custodial wallet %s's", custodial)
	}
	s.devnetSend(8, custodial, new(big.Int).Mul(big.NewInt(1e18), big.NewInt(1)), nil)
	s.open("#/agent", `[data-testid=prompt]`)
	s.typeIn(`[data-testid=prompt]`, "buy 0.01 ETH of DETH\n")
	s.until("the composed buy", `!!document.querySelector('[data-testid=tx-card] [data-testid=tx-confirm]')`)
	s.click(`[data-testid=tx-confirm]`)
	s.until("the custodial confirmation", `document.querySelector('dialog')?.open === true`)
	dialogText := eval[string](s, `document.querySelector('dialog').innerText`)
	if !strings.Contains(dialogText, custodial.Hex()) || !strings.Contains(dialogText, s.srv.App.Devnet.ETHToken.Curve.Hex()) {
		t.Errorf("the confirmation does not show from and to:\n%s", dialogText)
	}
	s.until("the simulation's preview", `document.querySelectorAll('[data-testid=sim-change]').length > 0 && !document.querySelector('[data-testid=confirm-custodial]').disabled`)
	s.click(`[data-testid=confirm-custodial]`)
	s.until("sent", `document.querySelector('[data-testid=tx-state]')?.textContent.startsWith('Sent: 0x')`)
	hash := strings.TrimPrefix(eval[string](s, `document.querySelector('[data-testid=tx-state]').textContent`), "Sent: ")
	deadline := time.Now().Add(30 * time.Second)
	for {
		trades := getJSON[struct {
			Trades []struct {
				TxHash    string `json:"txHash"`
				Recipient string `json:"recipient"`
			} `json:"trades"`
		}](t, s.srv, "/tokens/"+s.srv.App.Devnet.ETHToken.Token.Hex()+"/trades?limit=20").Trades
		if i := slices.IndexFunc(trades, func(tr struct {
			TxHash    string `json:"txHash"`
			Recipient string `json:"recipient"`
		}) bool {
			return strings.EqualFold(tr.TxHash, hash)
		}); i >= 0 {
			if !strings.EqualFold(trades[i].Recipient, custodial.Hex()) {
				t.Errorf("the agent's buy paid out to %s, want the account's wallet %s", trades[i].Recipient, custodial.Hex())
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the agent's buy %s was not indexed", hash)
		}
		time.Sleep(200 * time.Millisecond)
	}

	// Memory: remembered, shown, forgotten.
	s.typeIn(`[data-testid=prompt]`, "remember my slippage is 0.5%\n")
	s.until("remembered", `document.querySelector('[data-testid=memory]')?.textContent.includes('slippage')`)
	s.click(`[data-testid=memory] button`)
	s.until("forgotten", `!document.querySelector('[data-testid=memory]')?.textContent.includes('slippage')`)
	s.noStrangeScript()
}

// The market and a token page work from the keyboard alone: Tab reaches a token, Enter opens it,
// and the trade panel's amount takes typed input that gets a quote.
func TestKeyboard(t *testing.T) {
	s := newSite(t, 5)
	deth := s.srv.App.Devnet.ETHToken.Token
	s.open("", `[data-token="`+deth.Hex()+`"]`)
	for i := 0; ; i++ {
		if i > 40 {
			t.Fatal("Tab never reached DETH's link")
		}
		s.do("Tab", chromedp.KeyEvent(kb.Tab))
		if eval[bool](s, `document.activeElement?.closest('[data-token="`+deth.Hex()+`"]') !== null && document.activeElement.tagName === 'A'`) {
			break
		}
	}
	s.do("Enter", chromedp.KeyEvent(kb.Enter))
	s.until("DETH's page", `location.hash === '#/token/`+deth.Hex()+`'`)
	s.until("the token page is live", `document.querySelector('[data-testid=live]')?.textContent === 'Live'`)
	for i := 0; ; i++ {
		if i > 60 {
			t.Fatal("Tab never reached the amount")
		}
		s.do("Tab", chromedp.KeyEvent(kb.Tab))
		if eval[bool](s, `document.activeElement?.dataset?.testid === 'amount'`) {
			break
		}
	}
	s.do("type", chromedp.KeyEvent("0.01"))
	s.until("a quote", `document.querySelector('[data-testid=quote]')?.textContent.includes('You get about')`)
	if !eval[bool](s, `getComputedStyle(document.activeElement).outlineStyle !== 'none'`) {
		t.Error("the focused input shows no focus outline")
	}
}
