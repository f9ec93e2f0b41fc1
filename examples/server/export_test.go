package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// exportLines GETs an export and returns its lines, after checking its headers.
func (s *testServer) exportLines(t *testing.T, path, contentType, filename string) []string {
	t.Helper()
	a := s.anon(t, http.MethodGet, path, "")
	if a.status != http.StatusOK {
		t.Fatalf("GET %s: %d %s", path, a.status, a.body)
	}
	if got := a.header.Get("Content-Type"); got != contentType {
		t.Errorf("GET %s: Content-Type %q", path, got)
	}
	if got := a.header.Get("Content-Disposition"); got != `attachment; filename="`+filename+`"` {
		t.Errorf("GET %s: Content-Disposition %q, want %s", path, got, filename)
	}
	var lines []string
	sc := bufio.NewScanner(strings.NewReader(string(a.body)))
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	return lines
}

// The exports over HTTP: every trade of a token oldest first, as NDJSON equal to GET /trades
// and as CSV, resumed from any line's cursor; its bars at a resolution equal to GET /candles over
// the same window, resumed from a bar's time; and what a hostile client sends refused.
func TestExportsOverHTTP(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	tok := s.app.dev.ETHToken.Token
	acc := s.app.dev.Accounts[4]
	for i := 0; i < 6; i++ {
		side, amount := "buy", fmt.Sprintf("0.0%d", i+1)
		if i%3 == 2 {
			side, amount = "sell", "1000"
		}
		if err := s.send(acc, tok, side, amount); err != nil {
			t.Fatal(err)
		}
		waitIndexed(t, s)
	}
	base := "/tokens/" + tok.Hex()
	name := strings.ToLower(tok.Hex())
	var page struct {
		Trades []map[string]any `json:"trades"`
	}
	s.get(base+"/trades?limit=100", &page)
	if len(page.Trades) < 7 {
		t.Fatalf("%d trades", len(page.Trades))
	}
	lines := s.exportLines(t, base+"/trades.ndjson", "application/x-ndjson", "trades-"+name+".ndjson")
	var cursors []string
	for i, l := range lines {
		var got map[string]any
		if err := json.Unmarshal([]byte(l), &got); err != nil {
			t.Fatalf("line %d: %v", i, err)
		}
		cursors = append(cursors, got["cursor"].(string))
		delete(got, "cursor")
		if diff := cmp.Diff(page.Trades[len(page.Trades)-1-i], got); diff != "" {
			t.Fatalf("line %d differs from GET /trades (-trades +export):\n%s", i, diff)
		}
	}
	if len(lines) != len(page.Trades) {
		t.Fatalf("%d lines for %d trades", len(lines), len(page.Trades))
	}
	csv := s.exportLines(t, base+"/trades.csv", "text/csv; charset=utf-8", "trades-"+name+".csv")
	if csv[0] != "cursor,txHash,logIndex,block,time,side,venue,trader,recipient,quoteAmount,tokenAmount,fee,creatorFee,refund,price" || len(csv) != len(lines)+1 {
		t.Fatalf("CSV: %q", csv)
	}
	for i, l := range csv[1:] {
		f := strings.Split(l, ",")
		tr := page.Trades[len(page.Trades)-1-i]
		if f[0] != cursors[i] || f[1] != tr["txHash"] || f[10] != tr["tokenAmount"] || f[5] != tr["side"] {
			t.Fatalf("CSV line %d: %s; the trade is %v", i, l, tr)
		}
	}
	// Resumed after the third line: the rest, once each.
	rest := s.exportLines(t, base+"/trades.ndjson?cursor="+url.QueryEscape(cursors[2]), "application/x-ndjson", "trades-"+name+".ndjson")
	if diff := cmp.Diff(lines[3:], rest); diff != "" {
		t.Fatalf("resumed export (-want +got):\n%s", diff)
	}

	// Bars at one minute over the window of the trades equal GET /candles over it.
	var series struct {
		From int64            `json:"from"`
		To   int64            `json:"to"`
		Bars []map[string]any `json:"bars"`
	}
	first, last := int64(page.Trades[len(page.Trades)-1]["time"].(float64)), int64(page.Trades[0]["time"].(float64))
	s.get(fmt.Sprintf("%s/candles?res=1m&from=%d&to=%d", base, first-120, last+120), &series)
	bars := s.exportLines(t, fmt.Sprintf("%s/candles.ndjson?res=1m&from=%d&to=%d", base, series.From, series.To+60), "application/x-ndjson", "candles-1m-"+name+".ndjson")
	var got []map[string]any
	for _, l := range bars {
		var b map[string]any
		if err := json.Unmarshal([]byte(l), &b); err != nil {
			t.Fatal(err)
		}
		got = append(got, b)
	}
	if diff := cmp.Diff(series.Bars, got); diff != "" || len(got) == 0 {
		t.Fatalf("exported bars differ from GET /candles (-candles +export):\n%s", diff)
	}
	mid := int64(got[0]["time"].(float64))
	tail := s.exportLines(t, fmt.Sprintf("%s/candles.ndjson?res=1m&from=%d&to=%d&cursor=%d", base, series.From, series.To+60, mid), "application/x-ndjson", "candles-1m-"+name+".ndjson")
	if diff := cmp.Diff(bars[1:], tail, cmpopts.EquateEmpty()); diff != "" {
		t.Fatalf("resumed bars (-want +got):\n%s", diff)
	}
	csvBars := s.exportLines(t, fmt.Sprintf("%s/candles.csv?res=1m&from=%d&to=%d", base, series.From, series.To+60), "text/csv; charset=utf-8", "candles-1m-"+name+".csv")
	if csvBars[0] != "time,open,high,low,close,volume,trades" || len(csvBars) != len(bars)+1 {
		t.Fatalf("bars CSV: %q", csvBars)
	}
	// A range without bars is the header alone.
	if empty := s.exportLines(t, base+"/candles.csv?res=1d&from=1&to=86400", "text/csv; charset=utf-8", "candles-1d-"+name+".csv"); len(empty) != 1 {
		t.Fatalf("an empty range: %q", empty)
	}

	for _, tc := range []struct {
		path, body string
		status     int
	}{
		{base + "/trades.csv?cursor=abc", `{"statusCode":400,"message":"cursor must be the cursor of a line of a previous export","code":"VALIDATION_FAILED"}`, 400},
		{base + "/trades.ndjson?cursor=1:2:-3", `{"statusCode":400,"message":"cursor must be the cursor of a line of a previous export","code":"VALIDATION_FAILED"}`, 400},
		{base + "/candles.csv?cursor=1:2:3", `{"statusCode":400,"message":"cursor must be a bar time of a previous export","code":"VALIDATION_FAILED"}`, 400},
		{base + "/candles.ndjson?res=2m", `{"statusCode":400,"message":"res must be one of 1m, 5m, 15m, 1h, 4h, 1d","code":"VALIDATION_FAILED"}`, 400},
		{base + "/trades.csv?from=9&to=8", `{"statusCode":400,"message":"from must not be after to","code":"VALIDATION_FAILED"}`, 400},
		{base + "/trades.csv?from=-1", `{"statusCode":400,"message":"from must be an integer from 1 to 1000000000000","code":"VALIDATION_FAILED"}`, 400},
		{"/tokens/0x1111111111111111111111111111111111111111/trades.ndjson", `{"statusCode":404,"message":"token not found"}`, 404},
		{"/tokens/0x1111111111111111111111111111111111111111/candles.csv", `{"statusCode":404,"message":"token not found"}`, 404},
		{"/tokens/nope/trades.csv", `{"statusCode":400,"message":"malformed token address: want 0x followed by 40 hex digits","code":"VALIDATION_FAILED"}`, 400},
	} {
		a := s.anon(t, http.MethodGet, tc.path, "")
		if a.status != tc.status || string(a.body) != tc.body+"\n" {
			t.Errorf("GET %s: %d %s, want %d %s", tc.path, a.status, a.body, tc.status, tc.body)
		}
	}
}
