package main

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// curvekit settings reads the account's settings in words (--json is the API's answer) and the
// log with --activity; a refusal names its code.
func TestSettingsCommand(t *testing.T) {
	s := startServer(t)
	session := s.signIn(t, "settings-cli")
	key, _ := s.apiKey(t, session, `{"name":"reader","readOnly":true}`)
	withKey := []string{"CURVEKIT_API_KEY=" + key}
	req, _ := http.NewRequest(http.MethodPatch, s.base+"/account/settings",
		strings.NewReader(`{"wallet":{"paused":true,"limits":{"ETH":{"perTransaction":"0.5","daily":"2"}},"recipients":{"0x1111111111111111111111111111111111111111":{}}},"agent":{"tools":["quote"]}}`))
	req.Header.Set("Content-Type", "application/json")
	resp, err := session.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("PATCH /account/settings: %d %s", resp.StatusCode, want)
	}

	r := run(t, "", withKey, "--server", s.base, "settings")
	for _, line := range []string{
		"wallet: PAUSED: nothing is signed until a session resumes it",
		"caps on ETH: 0.5 per transaction, 2 per 24 hours",
		"price impact: at most 15% per trade",
		"recipients: only these (each added waits 24 hours):",
		"  0x1111111111111111111111111111111111111111  cooling down until ",
		"agent: slippage the server's default, pairing none, tools quote",
	} {
		if r.code != 0 || !strings.Contains(r.stdout, line) {
			t.Fatalf("settings: exit %d, no line %q in\n%s%s", r.code, line, r.stdout, r.stderr)
		}
	}
	r = run(t, "", withKey, "--server", s.base, "settings", "--json")
	var got, api map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &got); err != nil || json.Unmarshal(want, &api) != nil {
		t.Fatalf("settings --json: %v\n%s", err, r.stdout)
	}
	if diff := cmp.Diff(api, got); diff != "" {
		t.Fatalf("settings --json against the API (-api +cli):\n%s", diff)
	}
	r = run(t, "", withKey, "--server", s.base, "settings", "--activity")
	if r.code != 0 || !strings.Contains(r.stdout, "settings  -     session  changed wallet.paused") {
		t.Fatalf("settings --activity: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	// A read-only key placing an order is refused by code.
	r = run(t, "", withKey, "--server", s.base, "orders", "place", "dca", s.app.Devnet.ETHToken.Token.Hex(), "--side", "buy", "--amount", "0.001", "--every", "1h", "--times", "2")
	if r.code != 5 || !strings.Contains(r.stderr, "forbidden (403, READ_ONLY_KEY)") {
		t.Fatalf("a read-only key places an order: exit %d\n%s", r.code, r.stderr)
	}
	if r := run(t, "", nil, "--server", s.base, "settings"); r.code != 4 {
		t.Fatalf("settings without a key: exit %d\n%s", r.code, r.stderr)
	}
}
