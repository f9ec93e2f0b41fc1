package main

import (
	"encoding/json"
	"net/http"
	"net/url"
	"testing"
)

type holderList struct {
	Holders []struct {
		Address string  `json:"address"`
		Balance string  `json:"balance"`
		Share   float64 `json:"share"`
		Label   *string `json:"label"`
	} `json:"holders"`
	NextCursor *string `json:"nextCursor"`
}

// GET /tokens/:address/holders over HTTP: every page of a walk, largest first, labelled; the
// token view and the stats count the same holders; and what a hostile client sends is refused
// with SPEC's error shape.
func TestHoldersOverHTTP(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	deth := s.app.dev.ETHToken
	base := "/tokens/" + deth.Token.Hex()

	var all holderList
	s.get(base+"/holders", &all)
	labels := map[string]string{}
	for _, h := range all.Holders {
		if h.Label != nil {
			labels[h.Address] = *h.Label
		}
	}
	if labels[deth.Curve.Hex()] != "curve" || labels[s.app.dev.Accounts[0].Address.Hex()] != "creator" {
		t.Fatalf("DETH's holders: %+v", all)
	}
	// Pages of one: the same holders in the same order, once each.
	var walked []string
	cursor := ""
	for i := 0; ; i++ {
		var page holderList
		s.get(base+"/holders?limit=1&cursor="+url.QueryEscape(cursor), &page)
		for _, h := range page.Holders {
			walked = append(walked, h.Address)
		}
		if page.NextCursor == nil || i > 20 {
			break
		}
		cursor = *page.NextCursor
	}
	if len(walked) != len(all.Holders) || len(walked) < 2 {
		t.Fatalf("walked %v, listed %d", walked, len(all.Holders))
	}
	for i := range walked {
		if walked[i] != all.Holders[i].Address {
			t.Fatalf("page walk %v differs from the list at %d", walked, i)
		}
	}
	var view struct {
		Holders    *int     `json:"holders"`
		Top10Share *float64 `json:"top10Share"`
	}
	s.get(base, &view)
	var stats struct {
		Holders int `json:"holders"`
	}
	s.get(base+"/stats", &stats)
	if view.Holders == nil || *view.Holders != len(all.Holders) || stats.Holders != len(all.Holders) || view.Top10Share == nil {
		t.Fatalf("the token counts %v holders, the stats %d; %d listed", view.Holders, stats.Holders, len(all.Holders))
	}
	// The token list does not carry the concentration (it costs a read per token).
	var list struct {
		Tokens []map[string]json.RawMessage `json:"tokens"`
	}
	s.get("/tokens", &list)
	for _, tok := range list.Tokens {
		if _, ok := tok["holders"]; ok {
			t.Fatalf("a listed token carries holders: %s", tok["address"])
		}
	}

	var tokens struct {
		NextCursor *string `json:"nextCursor"`
	}
	s.get("/tokens?limit=1", &tokens)
	for _, tc := range []struct {
		path   string
		status int
		body   string
	}{
		{base + "/holders?cursor=" + url.QueryEscape(*tokens.NextCursor), http.StatusBadRequest, `{"statusCode":400,"message":"cursor does not belong to this query","code":"VALIDATION_FAILED"}`},
		{base + "/holders?cursor=%00%ff", http.StatusBadRequest, `{"statusCode":400,"message":"malformed cursor","code":"VALIDATION_FAILED"}`},
		{base + "/holders?cursor=aDo5OTk5OTk5OTk5OTk5OTk5OTk5OTk5OTk5OTk5OTk5OTk5OTk5OTk5OTk5OTk5OTk5OTk5OTk5OTk5OTk5OTk5OTk5OTk5OTowOTA", http.StatusBadRequest, `{"statusCode":400,"message":"malformed cursor","code":"VALIDATION_FAILED"}`},
		{base + "/holders?limit=0", http.StatusBadRequest, `{"statusCode":400,"message":"limit must be an integer from 1 to 100","code":"VALIDATION_FAILED"}`},
		{base + "/holders?limit=101", http.StatusBadRequest, `{"statusCode":400,"message":"limit must be an integer from 1 to 100","code":"VALIDATION_FAILED"}`},
		{"/tokens/0x12/holders", http.StatusBadRequest, `{"statusCode":400,"message":"malformed token address: want 0x followed by 40 hex digits","code":"VALIDATION_FAILED"}`},
		{"/tokens/0x1111111111111111111111111111111111111111/holders", http.StatusNotFound, `{"statusCode":404,"message":"token not found"}`},
	} {
		a := s.anon(t, http.MethodGet, tc.path, "")
		if a.status != tc.status || string(a.body) != tc.body+"\n" {
			t.Errorf("GET %s: %d %s, want %d %s", tc.path, a.status, a.body, tc.status, tc.body)
		}
	}
}
