package httpapi

import (
	"net/http"
	"strings"
	"testing"

	"github.com/curvekit/curvekit/market"
)

// GET /tokens?quote= with an address no token pairs with is 404 (SPEC 7), not an empty list.
func TestTokensUnknownQuoteIs404(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	e.get(t, "/tokens?quote=0x00000000000000000000000000000000000000aa").want(t, http.StatusNotFound,
		`{"statusCode": 404, "message": "quote asset not found"}`)
	e.get(t, "/tokens?quote="+tusdAddr.Hex()+"&q=nothing-matches").want(t, http.StatusOK, `{"tokens": [], "nextCursor": null}`)
}

// The zero address is how ETH is kept, not a name of it: quote=0x000…000 is an address no token
// pairs with (404), on the list and on the king; ETH is spelt ETH, in any case.
func TestQuoteZeroAddressIs404(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	zero := "0x0000000000000000000000000000000000000000"
	e.get(t, "/tokens?quote="+zero).want(t, http.StatusNotFound,
		`{"statusCode": 404, "message": "quote asset not found (native ether is quote=ETH)"}`)
	e.get(t, "/tokens/king?quote="+zero).want(t, http.StatusNotFound,
		`{"statusCode": 404, "message": "quote asset not found (native ether is quote=ETH)"}`)
	for _, eth := range []string{"ETH", "eth", "Eth"} {
		e.get(t, "/tokens?quote="+eth+"&phase=curve").want(t, http.StatusOK, `{"tokens": [`+listed(ethTokenJSON)+`], "nextCursor": null}`)
	}
	// A malformed parameter beside it is still the 400 that lists it.
	if r := e.get(t, "/tokens?quote="+zero+"&limit=0"); r.status != http.StatusBadRequest {
		t.Errorf("a bad limit beside quote=0x0: %d %s", r.status, r.body)
	}
}

// GET /candles with a to far in the future ends at the present bucket instead of inventing bars.
func TestCandlesFarFutureStopsAtThePresent(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	base := "/tokens/" + ethToken.Hex() + "/candles?res=1h&limit=3"
	want := e.get(t, base)
	if want.status != http.StatusOK {
		t.Fatalf("status %d: %s", want.status, want.body)
	}
	for _, to := range []string{"1800000001", "1802592000", "999999999999"} {
		e.get(t, base+"&to="+to).want(t, http.StatusOK, string(want.body))
	}
	e.get(t, "/tokens/"+ethToken.Hex()+"/candles?res=1h&from=1800003600&to=1800007200").want(t, http.StatusBadRequest,
		`{"statusCode": 400, "message": "from is after the present","code":"VALIDATION_FAILED"}`)
}

// A token's namesakes travel as sameName and sameSymbol, in its own answer as in the list.
func TestTokenJSONNamesakes(t *testing.T) {
	t.Parallel()
	v := &market.View{Namesakes: market.Namesakes{Name: 2, Symbol: 1}}
	v.Name, v.Symbol = "Demo Ether Token \u202e", "DETH"
	if tj := tokenOf(v); tj.SameName != 2 || tj.SameSymbol != 1 {
		t.Errorf("the list says sameName %d, sameSymbol %d", tj.SameName, tj.SameSymbol)
	}
	if got := string(tokenAnswer{v}.appendJSON(nil)); !strings.Contains(got, `"symbol":"DETH","sameName":2,"sameSymbol":1,`) {
		t.Errorf("the token's answer is %s", got)
	}
}
