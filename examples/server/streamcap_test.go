package main

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestAccountStreamsPerAccountCapped: an account holds at most 16 account streams on a server;
// the next is refused with 429 (the error shape, code RATE_LIMITED) before any event, and gets in
// once one of the 16 has closed. Another account is not affected.
func TestAccountStreamsPerAccountCapped(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	b, _ := s.signIn(t, "many-tabs")
	other, _ := s.signIn(t, "one-tab")
	k := b.newKey(`{"name":"tabs"}`)
	anon := &http.Client{Transport: &http.Transport{}}
	cancels := make([]context.CancelFunc, 0, 16)
	for i := range 16 {
		ctx, cancel := context.WithCancel(context.Background())
		t.Cleanup(cancel)
		cancels = append(cancels, cancel)
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, s.base+"/account/stream", nil)
		if i%2 == 0 {
			req.Header.Set("X-API-Key", k.Key)
		} else {
			req.AddCookie(sessionCookieFor(t, b))
		}
		resp, err := anon.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("stream %d: %d", i+1, resp.StatusCode)
		}
	}
	over := s.anon(t, http.MethodGet, "/account/stream", "", "X-API-Key", k.Key)
	wantCode(t, "the 17th stream", over, http.StatusTooManyRequests, "RATE_LIMITED")
	if want := `{"statusCode":429,"message":"this account has 16 streams open on this server, the most it may; close one first","code":"RATE_LIMITED"}`; strings.TrimSpace(string(over.body)) != want {
		t.Errorf("the 17th stream's refusal:\n%s\nwant\n%s", over.body, want)
	}
	if ev := next(t, other.accountStream(t, "")); ev.name != "ready" {
		t.Fatalf("another account's stream opened with %+v", ev)
	}
	cancels[0]()
	eventually(t, 10*time.Second, "a stream gets in once one closed", func() error {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, s.base+"/account/stream", nil)
		req.Header.Set("X-API-Key", k.Key)
		resp, err := anon.Do(req)
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		return holds(resp.StatusCode == http.StatusOK)
	})
}

// sessionCookieFor is the browser's session cookie.
func sessionCookieFor(t *testing.T, b *browser) *http.Cookie {
	t.Helper()
	u, _ := http.NewRequest(http.MethodGet, b.s.base, nil)
	for _, c := range b.c.Jar.Cookies(u.URL) {
		if c.Name == "svc_session" {
			return c
		}
	}
	t.Fatal("the browser holds no session cookie")
	return nil
}
