package main

import (
	"context"
	"encoding/json"
	"io"
	"math/big"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/holiman/uint256"

	"github.com/curvekit/curvekit/auth"
	"github.com/curvekit/curvekit/orders"
)

// curvekit orders place, list and cancel: --json is the API's answer; bad params list every
// failing field; a read-only key lists and is refused the rest.
func TestOrdersCommands(t *testing.T) {
	s := startServer(t)
	session := s.signIn(t, "orders-cli")
	key, _ := s.apiKey(t, session, `{"name":"orders"}`)
	readOnly, _ := s.apiKey(t, session, `{"name":"ro","readOnly":true}`)
	deth := s.app.Devnet.ETHToken.Token.Hex()
	withKey := []string{"CURVEKIT_API_KEY=" + key}

	r := run(t, "", withKey, "--server", s.base, "orders", "place", "dca", deth, "--side", "buy", "--amount", "0.001", "--every", "1h", "--times", "5", "--json")
	if r.code != 0 {
		t.Fatalf("place: exit %d: %s", r.code, r.stderr)
	}
	var placed struct {
		ID, Kind, State string
		Count           int
	}
	if err := json.Unmarshal([]byte(r.stdout), &placed); err != nil || placed.Kind != "dca" || placed.Count != 5 {
		t.Fatalf("place --json: %v\n%s", err, r.stdout)
	}
	r = run(t, "", withKey, "--server", s.base, "orders", "place", "stop-loss", deth, "--percent", "50", "--price", "0.000000001")
	if r.code != 0 || !strings.Contains(r.stdout, "stop-loss sell 50% of the balance at 0.000000001 of "+deth) {
		t.Fatalf("place stop-loss: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}

	// list --json is GET /orders.
	r = run(t, "", withKey, "--server", s.base, "orders", "list", "--kind", "dca", "--json")
	var got, want map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &got); err != nil || r.code != 0 {
		t.Fatalf("list --json: exit %d %v\n%s%s", r.code, err, r.stdout, r.stderr)
	}
	req, _ := http.NewRequest(http.MethodGet, s.base+"/orders?kind=dca", nil)
	req.Header.Set("X-API-Key", key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	json.Unmarshal(raw, &want)
	// The DCA's first fire may be recorded between the two reads: compare what does not move.
	for _, m := range []map[string]any{got, want} {
		for _, o := range m["orders"].([]any) {
			o := o.(map[string]any)
			delete(o, "fires")
			delete(o, "fired")
			delete(o, "state")
			delete(o, "updatedAt")
			delete(o, "nextAt")
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("orders list --json differs from GET /orders (-api +cli):\n%s", diff)
	}
	r = run(t, "", withKey, "--server", s.base, "orders", "list")
	if r.code != 0 || !strings.Contains(r.stdout, placed.ID) || !strings.Contains(r.stdout, "dca buy 0.001 every 1h0m0s, 5 times") {
		t.Errorf("list: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}

	// Every failing field at once, exit 1.
	r = run(t, "", withKey, "--server", s.base, "orders", "place", "limit", "0x12", "--side", "hold", "--amount=-1")
	if r.code != 1 || !strings.Contains(r.stderr, "token: a 0x-prefixed address is required") || !strings.Contains(r.stderr, "side: buy or sell") ||
		!strings.Contains(r.stderr, "price: the trigger price") {
		t.Errorf("bad params: exit %d\n%s", r.code, r.stderr)
	}
	// A read-only key lists but cannot place or cancel (exit 5).
	ro := []string{"CURVEKIT_API_KEY=" + readOnly}
	if r := run(t, "", ro, "--server", s.base, "orders", "list"); r.code != 0 || !strings.Contains(r.stdout, placed.ID) {
		t.Errorf("read-only list: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if r := run(t, "", ro, "--server", s.base, "orders", "cancel", placed.ID); r.code != 5 {
		t.Errorf("read-only cancel: exit %d\n%s", r.code, r.stderr)
	}
	if r := run(t, "", nil, "--server", s.base, "orders", "list"); r.code != 4 {
		t.Errorf("no key: exit %d\n%s", r.code, r.stderr)
	}

	r = run(t, "", withKey, "--server", s.base, "orders", "cancel", placed.ID)
	if r.code != 0 || !strings.Contains(r.stdout, "cancelled "+placed.ID) {
		t.Fatalf("cancel: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if r := run(t, "", withKey, "--server", s.base, "orders", "cancel", placed.ID); r.code != 1 || !strings.Contains(r.stderr, "cannot become cancelled") {
		t.Errorf("cancel again: exit %d\n%s", r.code, r.stderr)
	}
	if r := run(t, "", withKey, "--server", s.base, "orders", "cancel", "ord_nope"); r.code != 7 {
		t.Errorf("cancel an unknown order: exit %d\n%s", r.code, r.stderr)
	}
}

// curvekit orders list shows every transaction of a fire with its kind: a sell's approval of the
// curve, then its trade, by the hashes the order's fire lists.
func TestOrdersListShowsEachTransactionOfAFire(t *testing.T) {
	s := startServer(t)
	a := s.app
	ctx := context.Background()
	dn := a.Devnet
	deth := dn.ETHToken.Token
	u, _, err := a.DB.Accounts().UpsertUser(ctx, &auth.UpsertUserParams{ID: "acc-clifiretxs", Provider: "dev", Subject: "clifiretxs", At: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	w, err := a.Wallets.Create(ctx, u.ID)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.DB.Accounts().SetWallet(ctx, u.ID, w); err != nil {
		t.Fatal(err)
	}
	if _, err := dn.Send(ctx, dn.Accounts[1].Key, &w, big.NewInt(1e18), nil); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(dn.MineEvery(20 * time.Millisecond))
	key, err := a.Accounts.CreateKey(ctx, &auth.Principal{Kind: auth.KindSession, AccountID: u.ID, Wallet: w}, auth.KeyRequest{Name: "cli"})
	if err != nil {
		t.Fatal(err)
	}
	withKey := []string{"CURVEKIT_API_KEY=" + key.Raw}
	tok, err := a.Store.Token(ctx, deth)
	if err != nil {
		t.Fatal(err)
	}
	price := orders.TokenPrice(&tok)
	var above, below uint256.Int
	above.Mul(&price, uint256.NewInt(2))
	below.Div(&price, uint256.NewInt(2))
	// fire places an order beyond its trigger with the command and returns it once filled.
	fire := func(args ...string) orders.Order {
		t.Helper()
		r := run(t, "", withKey, append([]string{"--server", s.base, "orders", "place"}, append(args, "--json")...)...)
		var placed struct{ ID string }
		if err := json.Unmarshal([]byte(r.stdout), &placed); r.code != 0 || err != nil {
			t.Fatalf("place %v: exit %d %v\n%s%s", args, r.code, err, r.stdout, r.stderr)
		}
		if err := a.OrderEngine.Tick(ctx, a.Replica.Status().Term); err != nil {
			t.Fatal(err)
		}
		var o orders.Order
		deadline := time.Now().Add(20 * time.Second)
		for o.State != orders.Filled {
			if o, err = a.Orders.Order(ctx, u.ID, placed.ID); err != nil || o.State == orders.Failed || time.Now().After(deadline) {
				t.Fatalf("order %s: %s %+v %v", placed.ID, o.State, o.Fires, err)
			}
			time.Sleep(10 * time.Millisecond)
		}
		return o
	}
	fire("limit", deth.Hex(), "--side", "buy", "--amount", "0.01", "--price", orders.FormatPrice(&above, 18), "--slippage", "5")
	sell := fire("take-profit", deth.Hex(), "--amount", "1000", "--price", orders.FormatPrice(&below, 18), "--slippage", "10")
	txs := sell.Fires[0].Txs
	if len(txs) != 2 {
		t.Fatalf("the sell's fire lists %+v; want its approval and its trade", txs)
	}
	r := run(t, "", withKey, "--server", s.base, "orders", "list")
	want := "fire 0 filled at " + orders.FormatPrice(&sell.Fires[0].Price, 18) + " approve " + txs[0].Hash.Hex() + " trade " + txs[1].Hash.Hex() + " in 1000 out "
	if r.code != 0 || !strings.Contains(r.stdout, want) {
		t.Errorf("list: exit %d; want a line with %q\n%s%s", r.code, want, r.stdout, r.stderr)
	}
}
