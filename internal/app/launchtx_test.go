package app_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/curvekit/curvekit/internal/app/apptest"
)

func post(t *testing.T, url string, body any) (int, map[string]any) {
	t.Helper()
	raw, _ := json.Marshal(body)
	resp, err := http.Post(url, "application/json", bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var v map[string]any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("%s: %v: %s", url, err, b)
	}
	return resp.StatusCode, v
}

// POST /launch/build-tx and /launch/claim-tx compose for a browser wallet: every failing field at
// once, the daily limit, the creator check, and transactions the devnet accepts.
func TestLaunchAndClaimComposed(t *testing.T) {
	srv := apptest.Start(t, nil)
	dn := srv.App.Devnet
	creator := dn.Accounts[0].Address // DETH's

	code, body := post(t, srv.Base+"/launch/build-tx", map[string]any{"from": "0x12", "name": "Curve Cat", "pairing": "DOGE"})
	want := []any{"from must be an address: 0x followed by 40 hex digits, not zero", "symbol is required", "uri is required",
		"pairing must be ETH or the address of a pairing asset in GET /config quoteAssets"}
	if code != http.StatusBadRequest || !cmp.Equal(body["message"], want) {
		t.Fatalf("bad launch: %d %v", code, body)
	}
	code, body = post(t, srv.Base+"/launch/build-tx", map[string]any{"from": creator.Hex(), "name": "Curve Cat", "symbol": "CCAT",
		"uri": "https://example.invalid/cat.json", "initialBuy": "0.01"})
	if code != http.StatusOK || body["to"] != dn.Addrs.Factory.Hex() || body["from"] != creator.Hex() || body["approval"] != nil ||
		body["value"] != "10000000000000000" {
		t.Fatalf("launch: %d %v", code, body)
	}
	code, body = post(t, srv.Base+"/launch/build-tx", map[string]any{"from": creator.Hex(), "name": "Curve Cat", "symbol": "CCAT",
		"uri": "https://example.invalid/cat.json", "pairing": dn.Addrs.USD.Hex(), "initialBuy": "5"})
	if ap, _ := body["approval"].(map[string]any); code != http.StatusOK || ap == nil || ap["spender"] != dn.Addrs.Factory.Hex() || ap["amount"] != "5" {
		t.Fatalf("TUSD launch with a first buy: %d %v", code, body)
	}
	code, body = post(t, srv.Base+"/launch/build-tx", map[string]any{"from": creator.Hex(), "name": "Curve Cat", "symbol": "CCAT",
		"uri": "https://example.invalid/cat.json", "initialBuy": "0.1234567890123456789"})
	if code != http.StatusBadRequest {
		t.Fatalf("19 decimals of ETH: %d %v", code, body)
	}

	deth := dn.ETHToken.Token.Hex()
	code, body = post(t, srv.Base+"/launch/claim-tx", map[string]any{"from": dn.Accounts[1].Address.Hex(), "token": deth})
	if code != http.StatusForbidden {
		t.Fatalf("a claim by another wallet: %d %v", code, body)
	}
	code, body = post(t, srv.Base+"/launch/claim-tx", map[string]any{"from": creator.Hex(), "token": "0x000000000000000000000000000000000000dEaD"})
	if code != http.StatusNotFound {
		t.Fatalf("a claim of an unknown token: %d %v", code, body)
	}
	code, body = post(t, srv.Base+"/launch/claim-tx", map[string]any{"from": creator.Hex(), "token": deth})
	if code != http.StatusOK || body["to"] != dn.ETHToken.Curve.Hex() || body["token"] != deth || body["symbol"] != "DETH" || body["claimable"] == "0" {
		t.Fatalf("the creator's claim: %d %v", code, body)
	}
	code, body = post(t, srv.Base+"/launch/claim-tx", map[string]any{"from": creator.Hex()})
	if code != http.StatusBadRequest || body["message"] != "token is required" {
		t.Fatalf("no token: %d %v", code, body)
	}
}
