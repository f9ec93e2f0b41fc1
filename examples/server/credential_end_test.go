package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/curvekit/curvekit/internal/pgtest"
)

// openEvents sends a request whose answer is an event stream and hands its events, in order, to
// the returned channel, which is closed when the stream ends. The test's end cuts the stream.
func openEvents(t *testing.T, c *http.Client, base, method, path, body string, hdr ...string) <-chan sseEvent {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, base+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	cc := *c
	cc.Timeout = 0
	resp, err := cc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/event-stream" {
		raw, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		t.Fatalf("%s %s: %d %s", method, path, resp.StatusCode, raw)
	}
	ch := make(chan sseEvent, 100)
	go func() {
		defer close(ch)
		defer resp.Body.Close()
		_ = readEvents(resp.Body, func(ev sseEvent) bool { ch <- ev; return true })
	}()
	return ch
}

// streamEnds waits for the stream to end, dropping what it still sends.
func streamEnds(t *testing.T, what string, ch <-chan sseEvent) {
	t.Helper()
	timeout := time.After(10 * time.Second)
	for {
		select {
		case _, ok := <-ch:
			if !ok {
				return
			}
		case <-timeout:
			t.Fatalf("%s is still open 10s after its credential ended", what)
		}
	}
}

// streamOpen checks that the stream has not ended.
func streamOpen(t *testing.T, what string, ch <-chan sseEvent) {
	t.Helper()
	for {
		select {
		case _, ok := <-ch:
			if !ok {
				t.Fatalf("%s ended while its credential lasts", what)
			}
		default:
			return
		}
	}
}

// hangingLLM is an OpenAI-compatible provider that starts every answer with a first word, then
// keeps the stream open until the caller leaves; left hears each departure.
func hangingLLM(t *testing.T) (base string, left <-chan struct{}) {
	ch := make(chan struct{}, 10)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		fmt.Fprintf(w, "data: %s\n\n", `{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1760000000,"model":"fake-1","choices":[{"index":0,"delta":{"role":"assistant","content":"Thinking"},"logprobs":null,"finish_reason":null}]}`)
		w.(http.Flusher).Flush()
		<-r.Context().Done()
		ch <- struct{}{}
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/v1", ch
}

// TestStreamsEndWithTheirCredential: what a credential opened ends with it. A revoked key's
// account stream closes, and its reconnect is 401; a session's account stream and streamed agent
// turn close when it logs out (the turn's model call is abandoned); a session that expires loses
// its stream too; another key's stream goes on.
func TestStreamsEndWithTheirCredential(t *testing.T) {
	t.Parallel()
	llm, left := hangingLLM(t)
	s := startServer(t, "--llm-base-url", llm, "--llm-model", "fake-1")
	b, m := s.signIn(t, "holder")
	revoked, kept := b.newKey(`{"name":"revoked"}`), b.newKey(`{"name":"kept"}`)
	anon := &http.Client{Transport: &http.Transport{}}
	byKey := openEvents(t, anon, s.base, http.MethodGet, "/account/stream", "", "X-API-Key", revoked.Key)
	byKept := openEvents(t, anon, s.base, http.MethodGet, "/account/stream", "", "X-API-Key", kept.Key)
	bySession := openEvents(t, b.c, s.base, http.MethodGet, "/account/stream", "")
	soon := s.plantSession(t, m.User.Wallet, time.Now(), time.Now().Add(2*time.Second))
	byExpiring := openEvents(t, anon, s.base, http.MethodGet, "/account/stream", "", "Cookie", "svc_session="+soon)
	for what, ch := range map[string]<-chan sseEvent{"key": byKey, "kept key": byKept, "session": bySession, "expiring session": byExpiring} {
		if ev := next(t, ch); ev.name != "ready" {
			t.Fatalf("the %s's stream opened with %+v", what, ev)
		}
	}
	turn := openEvents(t, b.c, s.base, http.MethodPost, "/agent/prompt", `{"prompt":"think about DETH"}`)
	if ev := next(t, turn); ev.name != "text_delta" {
		t.Fatalf("the turn opened with %+v", ev)
	}

	wantStatus(t, "revoke", b.do(http.MethodDelete, "/api-keys/"+revoked.ID, ""), http.StatusOK)
	streamEnds(t, "the revoked key's account stream", byKey)
	wantStatus(t, "the revoked key's reconnect", s.anon(t, http.MethodGet, "/account/stream", "", "X-API-Key", revoked.Key), http.StatusUnauthorized)

	streamEnds(t, "the expired session's account stream", byExpiring)
	wantStatus(t, "the expired session's reconnect", s.anon(t, http.MethodGet, "/account/stream", "", "Cookie", "svc_session="+soon), http.StatusUnauthorized)
	streamOpen(t, "the session's account stream", bySession)
	streamOpen(t, "the streamed turn", turn)

	b.do(http.MethodGet, "/auth/logout", "")
	streamEnds(t, "the logged-out session's account stream", bySession)
	streamEnds(t, "the logged-out session's streamed turn", turn)
	select {
	case <-left:
	case <-time.After(10 * time.Second):
		t.Fatal("the turn's model call goes on after its session ended")
	}
	streamOpen(t, "the other key's account stream", byKept)
}

// TestStreamsEndWithTheirCredentialAcrossReplicas: two server processes on one PostgreSQL. A key
// revoked on A and a session logged out on A end their account streams on B, which learns it
// from the database.
func TestStreamsEndWithTheirCredentialAcrossReplicas(t *testing.T) {
	t.Parallel()
	dsn := pgtest.Schema(t, "credend")
	host := startServer(t, "--devnet-rpc-addr", "127.0.0.1:0")
	dev := host.app.dev
	flags := []string{"--db", dsn, "--db-conns", "4", "--rpc-url", host.app.DevnetRPCURL(),
		"--factory", dev.Addrs.Factory.Hex(), "--router", dev.Addrs.Router.Hex(), "--master-key-file", filepath.Join(t.TempDir(), "master.key")}
	a := startProcess(t, flags...)
	b := startProcess(t, flags...)
	onA, _ := a.signIn(t, "replicas")
	onB := *onA
	onB.s = b
	k := onA.newKey(`{"name":"streams on B"}`)
	anon := &http.Client{Transport: &http.Transport{}}
	byKey := openEvents(t, anon, b.base, http.MethodGet, "/account/stream", "", "X-API-Key", k.Key)
	bySession := openEvents(t, onB.c, b.base, http.MethodGet, "/account/stream", "")
	for what, ch := range map[string]<-chan sseEvent{"key": byKey, "session": bySession} {
		if ev := next(t, ch); ev.name != "ready" {
			t.Fatalf("the %s's stream on B opened with %+v", what, ev)
		}
	}
	wantStatus(t, "revoke on A", onA.do(http.MethodDelete, "/api-keys/"+k.ID, ""), http.StatusOK)
	streamEnds(t, "the key's account stream on B", byKey)
	wantStatus(t, "the key's reconnect on B", b.anon(t, http.MethodGet, "/account/stream", "", "X-API-Key", k.Key), http.StatusUnauthorized)
	streamOpen(t, "the session's account stream on B", bySession)
	onA.do(http.MethodGet, "/auth/logout", "")
	streamEnds(t, "the session's account stream on B", bySession)
	wantStatus(t, "the session's reconnect on B", onB.do(http.MethodGet, "/account/stream", ""), http.StatusUnauthorized)
}
