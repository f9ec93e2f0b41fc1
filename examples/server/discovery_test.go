package main

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/holiman/uint256"

	"github.com/curvekit/curvekit/txbuild"
)

type tokenItems struct {
	Tokens []struct {
		Address     string   `json:"address"`
		Symbol      string   `json:"symbol"`
		GraduatedAt *int64   `json:"graduatedAt"`
		TrendScore  *float64 `json:"trendScore"`
		Change24h   *float64 `json:"change24h"`
	} `json:"tokens"`
	NextCursor *string `json:"nextCursor"`
}

func (l tokenItems) symbols() string {
	var out []string
	for _, t := range l.Tokens {
		out = append(out, t.Symbol)
	}
	return strings.Join(out, ",")
}

// The discovery reads over HTTP: the orders and filters on the devnet's three tokens, a new king
// of the hill announced on the global stream and served by GET /tokens/king, and what a hostile
// client sends refused with SPEC's error shape.
func TestDiscoveryOverHTTP(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	for path, want := range map[string]string{
		// DETH and DUSD are 5.82% of the way to graduation.
		"/tokens?phase=curve&progressMin=5.82&sort=marketCap&quote=ETH": "DETH",
		"/tokens?phase=curve&progressMin=5.83":                          "",
		"/tokens?progressMin=5.82&progressMax=5.82&sort=newest":         "DUSD,DETH",
		"/tokens?graduatedSince=1":                                      "GRAD",
		"/tokens?sort=trending&quote=ETH":                               "GRAD,DETH",
	} {
		var l tokenItems
		s.get(path, &l)
		if got := l.symbols(); got != want {
			t.Errorf("GET %s: %s, want %s", path, got, want)
		}
	}
	var grad tokenItems
	s.get("/tokens?graduatedSince=1", &grad)
	if g := grad.Tokens[0]; g.GraduatedAt == nil || g.TrendScore == nil || *g.TrendScore <= 0 || g.Change24h == nil {
		t.Fatalf("GRAD listed without its graduation time or ranks: %+v", g)
	}
	var since tokenItems
	s.get("/tokens?graduatedSince="+jsonInt(*grad.Tokens[0].GraduatedAt+1), &since)
	if len(since.Tokens) != 0 {
		t.Fatalf("graduated after GRAD did: %s", since.symbols())
	}

	// A launch with a larger first buy than DETH's takes the crown of ETH.
	var king struct {
		Since int64 `json:"since"`
		Token struct {
			Symbol string `json:"symbol"`
		} `json:"token"`
	}
	s.get("/tokens/king", &king)
	if king.Token.Symbol != "DETH" {
		t.Fatalf("the king before the launch: %+v", king)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, s.base+"/tokens/stream", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	events := make(chan sseEvent, 16)
	go func() {
		_ = readEvents(resp.Body, func(ev sseEvent) bool { events <- ev; return true })
		close(events)
	}()
	<-events // refresh on connect: the stream is subscribed
	acc := s.app.dev.Accounts[5]
	plan, err := s.app.Builder.Launch(txbuild.Launch{From: acc.Address, Name: "Crown", Symbol: "CRWN", URI: "ipfs://crown", InitialBuy: *uint256.NewInt(2e18)})
	if err != nil {
		t.Fatal(err)
	}
	to := plan.Tx.To
	if _, err := s.app.dev.Send(ctx, acc.Key, &to, plan.Tx.Value.ToBig(), plan.Tx.Data); err != nil {
		t.Fatal(err)
	}
	var crowned sseEvent
	for ev := range events {
		if ev.name == "king" {
			crowned = ev
			break
		}
	}
	if err := json.Unmarshal([]byte(crowned.data), &king); err != nil || king.Token.Symbol != "CRWN" || crowned.hasID {
		t.Fatalf("king event %+v: %v", crowned, err)
	}
	var now struct {
		Since int64 `json:"since"`
		Token struct {
			Symbol string `json:"symbol"`
		} `json:"token"`
	}
	s.get("/tokens/king", &now)
	if now.Token.Symbol != "CRWN" || now.Since != king.Since {
		t.Fatalf("GET /tokens/king after the launch: %+v, the event said %+v", now, king)
	}

	var trending tokenItems
	s.get("/tokens?sort=trending&limit=1", &trending)
	for _, tc := range []struct {
		path, body string
		status     int
	}{
		{"/tokens?sort=hot", `{"statusCode":400,"message":"sort must be one of newest, volume24h, marketCap, progress, trending, gainers1h, gainers24h, losers24h","code":"VALIDATION_FAILED"}`, 400},
		{"/tokens?sort=gainers1h&cursor=" + url.QueryEscape(*trending.NextCursor), `{"statusCode":400,"message":"cursor does not belong to this query","code":"VALIDATION_FAILED"}`, 400},
		{"/tokens?sort=trending&cursor=dDpOYU46MToxOjB4MDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMA", `{"statusCode":400,"message":"malformed cursor","code":"VALIDATION_FAILED"}`, 400},
		{"/tokens?sort=losers24h&cursor=bDI0OjE6MToxOjB4MDA", `{"statusCode":400,"message":"malformed cursor","code":"VALIDATION_FAILED"}`, 400},
		{"/tokens?progressMin=100.01", `{"statusCode":400,"message":"progressMin must be a percentage from 0 to 100 with at most two decimals","code":"VALIDATION_FAILED"}`, 400},
		{"/tokens?progressMin=-1", `{"statusCode":400,"message":"progressMin must be a percentage from 0 to 100 with at most two decimals","code":"VALIDATION_FAILED"}`, 400},
		{"/tokens?progressMax=8.125", `{"statusCode":400,"message":"progressMax must be a percentage from 0 to 100 with at most two decimals","code":"VALIDATION_FAILED"}`, 400},
		{"/tokens?progressMin=90&progressMax=80", `{"statusCode":400,"message":"progressMin must not be above progressMax","code":"VALIDATION_FAILED"}`, 400},
		{"/tokens?graduatedSince=0", `{"statusCode":400,"message":"graduatedSince must be an integer from 1 to 1000000000000","code":"VALIDATION_FAILED"}`, 400},
		{"/tokens?graduatedSince=1e9", `{"statusCode":400,"message":"graduatedSince must be an integer from 1 to 1000000000000","code":"VALIDATION_FAILED"}`, 400},
		{"/tokens/king?quote=0x12", `{"statusCode":400,"message":"quote must be ETH or a pairing asset's address","code":"VALIDATION_FAILED"}`, 400},
		{"/tokens/king?quote=0x1111111111111111111111111111111111111111", `{"statusCode":404,"message":"no token of this pairing asset trades on its curve"}`, 404},
		{"/tokens/king?quote=ETH&quote=ETH", `{"statusCode":400,"message":"quote given more than once","code":"VALIDATION_FAILED"}`, 400},
	} {
		a := s.anon(t, http.MethodGet, tc.path, "")
		if a.status != tc.status || string(a.body) != tc.body+"\n" {
			t.Errorf("GET %s: %d %s, want %d %s", tc.path, a.status, a.body, tc.status, tc.body)
		}
	}
}

func jsonInt(n int64) string { b, _ := json.Marshal(n); return string(b) }
