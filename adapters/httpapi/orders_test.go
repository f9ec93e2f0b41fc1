package httpapi

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/google/go-cmp/cmp"

	"github.com/curvekit/curvekit"
	"github.com/curvekit/curvekit/adapters/bunstore"
	"github.com/curvekit/curvekit/auth"
	"github.com/curvekit/curvekit/market"
	"github.com/curvekit/curvekit/orders"
	"github.com/curvekit/curvekit/txbuild"
)

// newOrdersEnv is the API with orders on bunstore (SQLite) over the fixture tokens; a wallet
// may have two price orders and one time order.
func newOrdersEnv(t *testing.T) *testEnv {
	t.Helper()
	eth, tusd, grad, _ := fixtureTokens(t)
	store := newFakeStore()
	store.add(eth)
	store.add(tusd)
	store.add(grad)
	db, err := bunstore.Open(context.Background(), bunstore.Config{DSN: filepath.Join(t.TempDir(), "orders.db")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	clock := func() time.Time { return time.Unix(now, 0) }
	svc, err := orders.NewService(orders.Config{Store: db.Orders(), Tokens: store, MaxPrice: 2, MaxTimed: 1, Now: clock})
	if err != nil {
		t.Fatal(err)
	}
	b, err := txbuild.New(txbuild.Config{ChainID: 1337, Factory: factoryAddr, Router: routerAddr, WETH: wethAddr, Now: clock})
	if err != nil {
		t.Fatal(err)
	}
	mkt, err := market.NewService(market.ServiceConfig{Store: store, Builder: b, Now: clock})
	if err != nil {
		t.Fatal(err)
	}
	trader := common.HexToAddress("0x00000000000000000000000000000000000000a1")
	who := principals{
		traderKey:     {AccountID: "acc-trader", Wallet: trader, Kind: auth.KindKey, KeyID: "k1"},
		readOnlyKey:   {AccountID: "acc-trader", Wallet: trader, Kind: auth.KindKey, KeyID: "k2", ReadOnly: true},
		traderSession: {AccountID: "acc-trader", Wallet: trader, Kind: auth.KindSession, SessionID: "s1"},
		nobodyKey:     {AccountID: "acc-nobody", Wallet: common.HexToAddress("0xd0"), Kind: auth.KindKey, KeyID: "k3"},
	}
	limiter := newCountLimiter()
	s, err := newServer(Config{
		Market: mkt, Orders: svc, Auth: who, Limiter: limiter, Policy: auth.DefaultPolicy(auth.Every(100_000, time.Minute)),
		Terms: fixedTerms{}, Settings: Settings{QuoteAssets: []market.Asset{{Symbol: "ETH", Decimals: 18}}}, Logger: slog.New(slog.DiscardHandler),
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(s.Handler())
	t.Cleanup(srv.Close)
	return &testEnv{srv: srv, server: s, limiter: limiter}
}

func TestOrdersPlaceReadCancel(t *testing.T) {
	t.Parallel()
	e := newOrdersEnv(t)
	key := []string{"X-API-Key", traderKey}
	tok := ethToken.Hex()
	at := fmt.Sprint(now)

	r := e.do(t, http.MethodPost, "/orders", `{"kind": "limit", "token": "`+tok+`", "side": "buy", "amount": "0.01", "price": "0.000000004", "slippage": 1}`, key...)
	var limit orderJSON
	r.decode(t, &limit)
	if r.status != http.StatusCreated || !strings.HasPrefix(limit.ID, "ord_") {
		t.Fatalf("POST /orders = %d %s", r.status, r.body)
	}
	e.get(t, "/orders/"+limit.ID, key...).want(t, http.StatusOK, `{"id": "`+limit.ID+`", "kind": "limit", "state": "open", "token": "`+tok+`",
		"side": "buy", "amount": "0.01", "percent": null, "price": "0.000000004", "trail": null, "high": null, "slippage": 1,
		"every": null, "times": null, "over": null, "slices": null, "fired": 0, "count": 1, "nextAt": null, "expiresAt": null,
		"reason": null, "keyId": "k1", "createdAt": `+at+`, "updatedAt": `+at+`, "fires": []}`)

	r = e.do(t, http.MethodPost, "/orders", `{"kind": "trailing-stop", "token": "`+tok+`", "percent": 50, "trail": 12.5, "expiresAt": "2027-06-01T00:00:00Z"}`, "Cookie", "svc_session="+traderSession)
	var trail orderJSON
	r.decode(t, &trail)
	if r.status != http.StatusCreated || trail.Side != "sell" || *trail.Trail != 12.5 || *trail.Percent != 50 || trail.Amount != nil ||
		trail.High == nil || *trail.High == "0" || *trail.ExpiresAt != 1811808000 {
		t.Fatalf("trailing stop = %d %s", r.status, r.body)
	}
	r = e.do(t, http.MethodPost, "/orders", `{"kind": "twap", "token": "`+tok+`", "side": "buy", "total": "0.01", "over": "10m", "slices": 5}`, key...)
	var twap orderJSON
	r.decode(t, &twap)
	if r.status != http.StatusCreated || *twap.Amount != "0.01" || *twap.Over != "10m0s" || *twap.Slices != 5 || twap.Count != 5 || *twap.NextAt != now {
		t.Fatalf("twap = %d %s", r.status, r.body)
	}

	// Limits per wallet: two price orders and one time order here.
	e.do(t, http.MethodPost, "/orders", `{"kind": "stop-loss", "token": "`+tok+`", "amount": "5", "price": "0.000000001"}`, key...).
		want(t, http.StatusTooManyRequests, `{"statusCode": 429, "message": "a wallet may have 2 open price orders; cancel one first"}`)
	e.do(t, http.MethodPost, "/orders", `{"kind": "dca", "token": "`+tok+`", "side": "buy", "amount": "0.001", "every": "1m", "times": 3}`, key...).
		want(t, http.StatusTooManyRequests, `{"statusCode": 429, "message": "a wallet may have 1 open time orders; cancel one first"}`)

	// The list, newest first, filtered, a page at a time.
	var list orderListJSON
	e.get(t, "/orders?limit=2", key...).decode(t, &list)
	if len(list.Orders) != 2 || list.NextCursor == nil {
		t.Fatalf("first page: %+v", list)
	}
	var rest orderListJSON
	e.get(t, "/orders?limit=2&cursor="+*list.NextCursor, key...).decode(t, &rest)
	if len(rest.Orders) != 1 || rest.NextCursor != nil {
		t.Fatalf("second page: %+v", rest)
	}
	ids := map[string]bool{list.Orders[0].ID: true, list.Orders[1].ID: true, rest.Orders[0].ID: true}
	if !ids[limit.ID] || !ids[trail.ID] || !ids[twap.ID] {
		t.Errorf("pages hold %v", ids)
	}
	e.get(t, "/orders?kind=twap", key...).decode(t, &list)
	if len(list.Orders) != 1 || list.Orders[0].ID != twap.ID {
		t.Errorf("kind=twap: %+v", list.Orders)
	}
	e.get(t, "/orders?token="+tusdToken.Hex(), key...).decode(t, &list)
	if len(list.Orders) != 0 {
		t.Errorf("another token: %+v", list.Orders)
	}

	// Cancel: once, then 409; the price order's place is free again.
	r = e.do(t, http.MethodDelete, "/orders/"+limit.ID, "", key...)
	var cancelled orderJSON
	r.decode(t, &cancelled)
	if r.status != http.StatusOK || cancelled.State != "cancelled" {
		t.Fatalf("DELETE = %d %s", r.status, r.body)
	}
	e.do(t, http.MethodDelete, "/orders/"+limit.ID, "", key...).
		want(t, http.StatusConflict, `{"statusCode": 409, "message": "an order that is cancelled cannot become cancelled"}`)
	e.get(t, "/orders?state=cancelled", key...).decode(t, &list)
	if len(list.Orders) != 1 || list.Orders[0].ID != limit.ID {
		t.Errorf("state=cancelled: %+v", list.Orders)
	}
	if r := e.do(t, http.MethodPost, "/orders", `{"kind": "take-profit", "token": "`+tok+`", "amount": "5", "price": "0.00001"}`, key...); r.status != http.StatusCreated {
		t.Errorf("a price order after a cancel = %d %s", r.status, r.body)
	}
}

// A read-only key reads; placing and cancelling are refused before any handler runs. Another
// account's order does not exist for the caller.
func TestOrdersAccess(t *testing.T) {
	t.Parallel()
	e := newOrdersEnv(t)
	body := `{"kind": "dca", "token": "` + ethToken.Hex() + `", "side": "buy", "amount": "0.001", "every": "1m", "times": 3}`
	r := e.do(t, http.MethodPost, "/orders", body, "X-API-Key", traderKey)
	var o orderJSON
	r.decode(t, &o)

	if r := e.do(t, http.MethodPost, "/orders", body, "X-API-Key", readOnlyKey); r.status != http.StatusForbidden {
		t.Errorf("read-only POST = %d %s", r.status, r.body)
	}
	if r := e.do(t, http.MethodDelete, "/orders/"+o.ID, "", "X-API-Key", readOnlyKey); r.status != http.StatusForbidden {
		t.Errorf("read-only DELETE = %d %s", r.status, r.body)
	}
	if r := e.get(t, "/orders/"+o.ID, "X-API-Key", readOnlyKey); r.status != http.StatusOK {
		t.Errorf("read-only GET = %d %s", r.status, r.body)
	}
	for _, path := range []string{"/orders", "/orders/" + o.ID} {
		if r := e.get(t, path); r.status != http.StatusUnauthorized {
			t.Errorf("GET %s without a credential = %d", path, r.status)
		}
	}
	if r := e.do(t, http.MethodPost, "/orders", body); r.status != http.StatusUnauthorized {
		t.Errorf("POST without a credential = %d", r.status)
	}
	e.get(t, "/orders/"+o.ID, "X-API-Key", nobodyKey).want(t, http.StatusNotFound, `{"statusCode": 404, "message": "order not found"}`)
	e.do(t, http.MethodDelete, "/orders/"+o.ID, "", "X-API-Key", nobodyKey).want(t, http.StatusNotFound, `{"statusCode": 404, "message": "order not found"}`)
	var list orderListJSON
	e.get(t, "/orders", "X-API-Key", nobodyKey).decode(t, &list)
	if list.Orders == nil || len(list.Orders) != 0 {
		t.Errorf("another account lists %+v", list.Orders)
	}
	if got, _ := e.get(t, "/orders/"+o.ID, "X-API-Key", traderKey), 0; got.status != http.StatusOK {
		t.Errorf("the order after the refusals: %d", got.status)
	}
}

// Placing and cancelling orders count in the orders class (100 per 10 seconds per account), not
// in the signing budget of 30: a bot places and cancels 50 in a row, the key and the session of
// one account share the budget, and the 101st is 429.
func TestOrdersOwnRateClass(t *testing.T) {
	t.Parallel()
	e := newOrdersEnv(t)
	body := `{"kind": "dca", "token": "` + ethToken.Hex() + `", "side": "buy", "amount": "0.001", "every": "1m", "times": 3}`
	creds := [][]string{{"X-API-Key", traderKey}, {"Cookie", "svc_session=" + traderSession}}
	for i := range 50 {
		var o orderJSON
		r := e.do(t, http.MethodPost, "/orders", body, creds[i%2]...)
		if r.status != http.StatusCreated {
			t.Fatalf("order %d: POST = %d %s", i, r.status, r.body)
		}
		r.decode(t, &o)
		if r := e.do(t, http.MethodDelete, "/orders/"+o.ID, "", creds[(i+1)%2]...); r.status != http.StatusOK {
			t.Fatalf("order %d: DELETE = %d %s", i, r.status, r.body)
		}
	}
	e.do(t, http.MethodPost, "/orders", body, creds[0]...).want(t, http.StatusTooManyRequests,
		`{"statusCode": 429, "message": "too many requests; slow down and retry later", "code": "RATE_LIMITED"}`)
	counted := map[string]int{}
	for _, k := range e.limiter.seen() {
		class, _, _ := strings.Cut(k, ":")
		counted[class]++
	}
	if counted["orders"] != 101 || counted["signing"] != 0 {
		t.Errorf("the limiter counted %v", counted)
	}
}

// A fire's block is the block of the trade that fired it, and null when no trade did: a fire at
// the price now (an order placed beyond its trigger) and a time order's fire.
func TestFireBlockIsNullWithoutATrade(t *testing.T) {
	t.Parallel()
	o := orders.Order{ID: "ord_1", Kind: orders.Limit, Side: curvekit.Buy, Token: ethToken, Decimals: 18, QuoteDecimals: 18,
		State: orders.Sent, Fires: []orders.Fire{
			{ID: "ord_1_f0", N: 0, State: orders.FireFailed, Block: 120, LogIndex: 2, Code: "TX_REVERTED", Error: "reverted"},
			{ID: "ord_1_f1", N: 1, State: orders.FireTriggered},
			{ID: "ord_1_f2", N: 2, State: orders.FireTriggered},
		}}
	o.Amount.SetUint64(1e16)
	o.Price.SetUint64(4e18)
	o.Fires[0].Price.SetUint64(3e18)
	o.Fires[1].Price.SetUint64(2e18) // at the price now
	var got struct {
		Fires []map[string]any `json:"fires"`
	}
	raw, err := json.Marshal(orderOf(&o))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatal(err)
	}
	var blocks []any
	for _, f := range got.Fires {
		b, ok := f["block"]
		if !ok {
			t.Fatalf("a fire without its block field: %s", raw)
		}
		blocks = append(blocks, b)
	}
	if diff := cmp.Diff([]any{float64(120), nil, nil}, blocks); diff != "" {
		t.Errorf("blocks (-want +got):\n%s", diff)
	}
}

// What a hostile client sends: every failing field listed in one 400, strict JSON, unknown
// tokens and ids, and query filters out of range.
func TestOrdersHostile(t *testing.T) {
	t.Parallel()
	e := newOrdersEnv(t)
	key := []string{"X-API-Key", traderKey}
	post := func(body string) response { return e.do(t, http.MethodPost, "/orders", body, key...) }

	post(`{"kind": "limit", "token": "0x12", "side": "hold", "amount": "-1", "price": "1e-9", "slippage": 80, "expiresAt": "soon"}`).
		want(t, http.StatusBadRequest, `{"statusCode": 400, "message": [
			"token: a 0x-prefixed address is required",
			"side: buy or sell is required for a limit order",
			"amount: an exact decimal amount of tokens with at most 18 decimals",
			"price: an exact decimal price with at most 36 decimals",
			"slippage: a percent from 0 to 50, with at most two decimals",
			"expiresAt: an RFC 3339 time such as 2026-12-01T00:00:00Z"], "code": "VALIDATION_FAILED"}`)
	post(`{"kind": "dca", "token": "`+ethToken.Hex()+`", "side": "buy", "amount": "0.001", "every": "1s", "times": 0}`).
		want(t, http.StatusBadRequest, `{"statusCode": 400, "message": ["every: a duration from 1m to 2160h, such as 1m or 1h30m", "times: a whole number from 1 to 1000"], "code": "VALIDATION_FAILED"}`)
	// The pairing asset's decimals bound a buy's amount: TUSD has 6.
	post(`{"kind": "limit", "token": "`+tusdToken.Hex()+`", "side": "buy", "amount": "0.0000001", "price": "1"}`).
		want(t, http.StatusBadRequest, `{"statusCode": 400, "message": ["amount: an exact decimal amount of the pairing asset with at most 6 decimals"], "code": "VALIDATION_FAILED"}`)
	post(`{"kind": "limit", "token": "0x00000000000000000000000000000000000000ee", "side": "buy", "amount": "1", "price": "1"}`).
		want(t, http.StatusNotFound, `{"statusCode": 404, "message": "token not found"}`)
	for name, body := range map[string]string{
		"unknown field":   `{"kind": "limit", "token": "` + ethToken.Hex() + `", "side": "buy", "amount": "1", "price": "1", "to": "0xdead"}`,
		"duplicate field": `{"kind": "limit", "kind": "dca"}`,
		"case variant":    `{"Kind": "limit"}`,
		"percent string":  `{"kind": "stop-loss", "token": "` + ethToken.Hex() + `", "percent": "50", "price": "1"}`,
		"times float":     `{"kind": "dca", "times": 2.5}`,
		"array":           `[]`,
		"null":            `null`,
		"empty":           `{}`,
		"huge amount":     `{"kind": "limit", "token": "` + ethToken.Hex() + `", "side": "buy", "amount": "` + strings.Repeat("9", 90) + `", "price": "1"}`,
		"NaN-like":        `{"kind": "trailing-stop", "token": "` + ethToken.Hex() + `", "amount": "1", "trail": 1e400}`,
	} {
		if r := post(body); r.status != http.StatusBadRequest {
			t.Errorf("%s: %d %s", name, r.status, r.body)
		}
	}
	for _, path := range []string{"/orders/nope", "/orders/ord_" + strings.Repeat("z", 32), "/orders/ord_" + strings.Repeat("0", 32), "/orders/%00"} {
		if r := e.get(t, path, key...); r.status != http.StatusNotFound {
			t.Errorf("GET %s = %d %s", path, r.status, r.body)
		}
	}
	for _, q := range []string{"state=done", "kind=market", "token=0x12", "limit=0", "limit=101", "cursor=nonsense"} {
		if r := e.get(t, "/orders?"+q, key...); r.status != http.StatusBadRequest {
			t.Errorf("GET /orders?%s = %d %s", q, r.status, r.body)
		}
	}
	// Nothing of the above was stored.
	var list orderListJSON
	if err := json.Unmarshal(e.get(t, "/orders", key...).body, &list); err != nil || len(list.Orders) != 0 {
		t.Errorf("after the refusals: %+v %v", list.Orders, err)
	}
}
