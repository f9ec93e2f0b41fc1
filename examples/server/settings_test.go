package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
)

// settingsView is GET /account/settings as a client reads it.
type settingsView struct {
	Wallet struct {
		Paused bool `json:"paused"`
		Limits map[string]struct {
			PerTransaction *string `json:"perTransaction"`
			Daily          *string `json:"daily"`
		} `json:"limits"`
		MaxPriceImpact         float64 `json:"maxPriceImpact"`
		RecipientCooldownHours int     `json:"recipientCooldownHours"`
		Relax                  *struct {
			Minutes int   `json:"minutes"`
			Until   int64 `json:"until"`
		} `json:"relax"`
	} `json:"wallet"`
	Version int64 `json:"version"`
}

// activityList is GET /account/activity as a client reads it.
type activityList struct {
	Activity []struct {
		Kind    string   `json:"kind"`
		Code    *string  `json:"code"`
		Actor   string   `json:"actor"`
		Changes []string `json:"changes"`
	} `json:"activity"`
	NextCursor *string `json:"nextCursor"`
}

type codedErr struct {
	StatusCode int             `json:"statusCode"`
	Message    json.RawMessage `json:"message"`
	Code       string          `json:"code"`
}

func wantCode(t testing.TB, what string, a answer, status int, code string) codedErr {
	t.Helper()
	var e codedErr
	if err := json.Unmarshal(a.body, &e); err != nil || a.status != status || e.StatusCode != status || e.Code != code {
		t.Fatalf("%s: %d %s, want %d with code %q", what, a.status, a.body, status, code)
	}
	return e
}

// The settings over HTTP: a key reads them and cannot change them; a patch with several faults
// lists them all (VALIDATION_FAILED); any session tightens, an old one cannot loosen (nor relax),
// a fresh one can; the activity lists each change, a page at a time.
func TestAccountSettings(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	b, m := s.signIn(t, "settings-owner")
	key := b.newKey(`{"name":"bot"}`)
	readOnly := b.newKey(`{"name":"reader","readOnly":true}`)

	var st settingsView
	r := b.do(http.MethodGet, "/account/settings", "")
	wantStatus(t, "GET settings", r, http.StatusOK)
	r.decode(t, &st)
	if st.Version != 0 || st.Wallet.Paused || st.Wallet.MaxPriceImpact != 15 || st.Wallet.RecipientCooldownHours != 24 || len(st.Wallet.Limits) != 0 {
		t.Fatalf("defaults: %s", r.body)
	}
	// A key reads; no key writes, read-only or not.
	wantStatus(t, "a key reads", s.anon(t, http.MethodGet, "/account/settings", "", "X-API-Key", key.Key), http.StatusOK)
	for _, k := range []string{key.Key, readOnly.Key} {
		r := s.anon(t, http.MethodPatch, "/account/settings", `{"wallet":{"paused":false,"limits":null}}`, "X-API-Key", k)
		wantStatus(t, "a key patches", r, http.StatusForbidden)
	}
	wantStatus(t, "no credential", s.anon(t, http.MethodGet, "/account/settings", ""), http.StatusUnauthorized)

	r = b.do(http.MethodPatch, "/account/settings", `{"wallet":{"limits":{"ETH":{"perTransaction":"-0.5","daily":"1.0000000000000000001"},"BTC":{"daily":"1"}},"recipientCooldownHours":200},"extra":1}`)
	e := wantCode(t, "a bad patch", r, http.StatusBadRequest, "VALIDATION_FAILED")
	var list []string
	if err := json.Unmarshal(e.Message, &list); err != nil || len(list) != 5 {
		t.Fatalf("a bad patch lists %s, want 5 problems", e.Message)
	}

	// An old session (signed in an hour ago) may tighten but not loosen.
	old := s.plantSession(t, m.User.Wallet, time.Now().Add(-time.Hour), time.Now().Add(time.Hour))
	oldCookie := "svc_session=" + old
	r = s.anon(t, http.MethodPatch, "/account/settings", `{"wallet":{"limits":{"ETH":{"perTransaction":"0.5","daily":"2"}},"maxPriceImpact":10}}`, "Cookie", oldCookie)
	wantStatus(t, "tightening from an old session", r, http.StatusOK)
	r.decode(t, &st)
	if st.Version != 1 || *st.Wallet.Limits["ETH"].Daily != "2" || st.Wallet.MaxPriceImpact != 10 {
		t.Fatalf("after tightening: %s", r.body)
	}
	for _, loosen := range []string{
		`{"wallet":{"relax":{"minutes":60,"limits":{"ETH":{"daily":"10"}}}}}`,
		`{"wallet":{"limits":{"ETH":null}}}`,
		`{"wallet":{"maxPriceImpact":50}}`,
	} {
		r := s.anon(t, http.MethodPatch, "/account/settings", loosen, "Cookie", oldCookie)
		wantStatus(t, "loosening from an old session: "+loosen, r, http.StatusForbidden)
		if !strings.Contains(string(r.body), "sign in again") {
			t.Fatalf("the refusal does not say to sign in again: %s", r.body)
		}
	}
	r = b.do(http.MethodPatch, "/account/settings", `{"wallet":{"relax":{"minutes":10,"limits":{"ETH":{"daily":"3"}}}}}`)
	wantStatus(t, "relaxing from a fresh session", r, http.StatusOK)
	r.decode(t, &st)
	if st.Version != 2 || st.Wallet.Relax == nil || st.Wallet.Relax.Minutes != 10 || st.Wallet.Relax.Until < time.Now().Add(9*time.Minute).Unix() {
		t.Fatalf("after relaxing: %s", r.body)
	}

	var act activityList
	r = s.anon(t, http.MethodGet, "/account/activity?limit=1", "", "X-API-Key", readOnly.Key)
	wantStatus(t, "activity", r, http.StatusOK)
	r.decode(t, &act)
	if len(act.Activity) != 1 || act.Activity[0].Kind != "settings" || fmt.Sprint(act.Activity[0].Changes) != "[wallet.relax]" || act.NextCursor == nil {
		t.Fatalf("activity page 1: %s", r.body)
	}
	r = b.do(http.MethodGet, "/account/activity?limit=5&cursor="+*act.NextCursor, "")
	r.decode(t, &act)
	if len(act.Activity) != 1 || fmt.Sprint(act.Activity[0].Changes) != "[wallet.limits.ETH wallet.maxPriceImpact]" || act.NextCursor != nil {
		t.Fatalf("activity page 2: %s", r.body)
	}
	wantCode(t, "a foreign cursor", b.do(http.MethodGet, "/account/activity?cursor=bm9wZQ", ""), http.StatusBadRequest, "VALIDATION_FAILED")
	// The read-only key's signing refusal carries its code.
	r = s.anon(t, http.MethodPost, "/wallet/sign-and-submit", `{"to":"0x1111111111111111111111111111111111111111","value":"1","chainId":1337}`, "X-API-Key", readOnly.Key)
	wantCode(t, "a read-only key signs", r, http.StatusForbidden, "READ_ONLY_KEY")
	// That refusal, made before the wallet, is in the log too.
	var log activityList
	b.do(http.MethodGet, "/account/activity?limit=1", "").decode(t, &log)
	if len(log.Activity) != 1 || log.Activity[0].Kind != "refusal" || *log.Activity[0].Code != "READ_ONLY_KEY" || log.Activity[0].Actor != "key "+readOnly.ID {
		t.Fatalf("the read-only key's refusal in the log: %+v", log.Activity)
	}
}
