package web_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/curvekit/curvekit/internal/app/apptest"
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
func (s *site) chartMatchesCandles(token common.Address) {
	s.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		want := getJSON[struct {
			Bars []bar `json:"bars"`
		}](s.t, s.srv, "/tokens/"+token.Hex()+"/candles?res=1m").Bars
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
