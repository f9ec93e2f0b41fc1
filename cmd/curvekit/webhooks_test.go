package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"
)

// curvekit webhooks add, list, test, deliveries, rotate and delete: the secret printed once
// verifies what the receiver gets; a read-only key lists and is refused the rest.
func TestWebhooksCommands(t *testing.T) {
	s := startServer(t, "--webhook-allow-loopback")
	session := s.signIn(t, "hooks-cli")
	key, _ := s.apiKey(t, session, `{"name":"hooks"}`)
	readOnly, _ := s.apiKey(t, session, `{"name":"ro","readOnly":true}`)
	withKey := []string{"CURVEKIT_API_KEY=" + key}
	var secret atomic.Value
	var verified atomic.Int32
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if wh, err := standardwebhooks.NewWebhook(secret.Load().(string)); err == nil && wh.Verify(body, r.Header) == nil {
			verified.Add(1)
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	defer receiver.Close()

	r := run(t, "", withKey, "--server", s.base, "webhooks", "add", receiver.URL, "--types", "wallet.transaction,job.completed", "--json")
	var hook struct{ ID, Secret string }
	if err := json.Unmarshal([]byte(r.stdout), &hook); r.code != 0 || err != nil || !strings.HasPrefix(hook.Secret, "whsec_") {
		t.Fatalf("add: exit %d %v\n%s%s", r.code, err, r.stdout, r.stderr)
	}
	secret.Store(hook.Secret)
	if r := run(t, "", withKey, "--server", s.base, "webhooks", "list"); r.code != 0 || !strings.Contains(r.stdout, hook.ID) || strings.Contains(r.stdout, hook.Secret) {
		t.Errorf("list: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if r := run(t, "", withKey, "--server", s.base, "webhooks", "test", hook.ID); r.code != 0 || !strings.Contains(r.stdout, "ping evt_ping_") {
		t.Fatalf("test: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	// The ping arrives and verifies with the printed secret; the log shows it.
	for i := 0; ; i++ {
		r = run(t, "", withKey, "--server", s.base, "webhooks", "deliveries", hook.ID)
		if strings.Contains(r.stdout, "succeeded") || i == 50 {
			break
		}
	}
	if r.code != 0 || !strings.Contains(r.stdout, "ping") || !strings.Contains(r.stdout, "204 in") || verified.Load() != 1 {
		t.Errorf("deliveries: exit %d, %d verified\n%s%s", r.code, verified.Load(), r.stdout, r.stderr)
	}
	if r := run(t, "", withKey, "--server", s.base, "webhooks", "add", "ftp://example.com", "--types", "nonsense"); r.code != 1 ||
		!strings.Contains(r.stderr, "https") || !strings.Contains(r.stderr, "unknown event type") {
		t.Errorf("bad add: exit %d\n%s", r.code, r.stderr)
	}
	ro := []string{"CURVEKIT_API_KEY=" + readOnly}
	if r := run(t, "", ro, "--server", s.base, "webhooks", "list"); r.code != 0 || !strings.Contains(r.stdout, hook.ID) {
		t.Errorf("read-only list: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if r := run(t, "", ro, "--server", s.base, "webhooks", "delete", hook.ID); r.code != 5 {
		t.Errorf("read-only delete: exit %d\n%s", r.code, r.stderr)
	}
	if r := run(t, "", withKey, "--server", s.base, "webhooks", "rotate", hook.ID); r.code != 0 || !strings.Contains(r.stdout, "new signing secret") {
		t.Errorf("rotate: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if r := run(t, "", withKey, "--server", s.base, "webhooks", "delete", hook.ID); r.code != 0 || !strings.Contains(r.stdout, "deleted "+hook.ID) {
		t.Errorf("delete: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if r := run(t, "", withKey, "--server", s.base, "webhooks", "test", hook.ID); r.code != 7 {
		t.Errorf("test a deleted webhook: exit %d\n%s", r.code, r.stderr)
	}
}
