package main

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
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
