package main

import (
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sync"
	"syscall"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"
)

// TestWebhookKilledMidDelivery: the server, a real process, is killed with SIGKILL while its
// receiver holds two deliveries open (an agent job's job.completed, and a ping). Restarted on the
// same database, it makes both attempts again once the dead process's claims lapse, each with the
// webhook-id of the first attempt and a signature the Standard Webhooks library verifies; the
// delivery log shows both succeeded. Nothing is lost.
func TestWebhookKilledMidDelivery(t *testing.T) {
	t.Parallel()
	bin := mustServerBinary(t)
	dir := t.TempDir()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // the process binds it, both times
	var logs syncBuffer
	start := func() *exec.Cmd {
		t.Helper()
		cmd := exec.Command(bin, "--addr", addr, "--db", filepath.Join(dir, "server.db"), "--simulate", "0", "--poll", "20ms",
			"--rate-limit", "100000000", "--webhook-allow-loopback")
		cmd.Stdout, cmd.Stderr = &logs, &logs
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(60 * time.Second)
		for {
			resp, err := http.Get("http://" + addr + "/readyz")
			if err == nil {
				resp.Body.Close()
				if resp.StatusCode == http.StatusOK {
					return cmd
				}
			}
			if time.Now().After(deadline) {
				_ = cmd.Process.Kill()
				t.Fatalf("the server process is not ready after 60s:\n%s", logs.String())
			}
			time.Sleep(50 * time.Millisecond)
		}
	}

	// The receiver holds every request open until released (or until its client goes away).
	type got struct {
		id   string
		body []byte
		hdr  http.Header
	}
	received := make(chan got, 100)
	release := make(chan struct{})
	var releaseOnce sync.Once
	rcv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		received <- got{r.Header.Get("webhook-id"), body, r.Header.Clone()}
		select {
		case <-release:
			w.WriteHeader(http.StatusNoContent)
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(rcv.Close)
	t.Cleanup(func() { releaseOnce.Do(func() { close(release) }) })

	first := start()
	s := &testServer{t: t, base: "http://" + addr}
	b, _ := s.signIn(t, "killed")
	a := b.do(http.MethodPost, "/webhooks", `{"url":"`+rcv.URL+`/hook","types":["job.completed"]}`)
	wantStatus(t, "POST /webhooks", a, http.StatusCreated)
	var hook webhookView
	a.decode(t, &hook)
	wh, err := standardwebhooks.NewWebhook(hook.Secret)
	if err != nil {
		t.Fatal(err)
	}
	k := b.newKey(`{}`)
	a = s.anon(t, http.MethodPost, "/agent/job", `{"prompt":"price of DETH"}`, "X-API-Key", k.Key)
	wantStatus(t, "POST /agent/job", a, http.StatusAccepted)
	wantStatus(t, "test", b.do(http.MethodPost, "/webhooks/"+hook.ID+"/test", ""), http.StatusAccepted)

	next := func(within time.Duration) got {
		t.Helper()
		select {
		case g := <-received:
			if err := wh.Verify(g.body, g.hdr); err != nil {
				t.Fatalf("delivery %s does not verify: %v", g.id, err)
			}
			return g
		case <-time.After(within):
			t.Fatalf("no delivery in %s; server logs:\n%s", within, logs.String())
			return got{}
		}
	}
	held := map[string]string{} // webhook-id → type
	for len(held) < 2 {
		g := next(30 * time.Second)
		var env struct{ Type string }
		_ = json.Unmarshal(g.body, &env)
		held[g.id] = env.Type
	}

	// Killed mid-delivery: both requests are still open.
	if err := first.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = first.Wait()
	releaseOnce.Do(func() { close(release) })
	second := start()
	t.Cleanup(func() {
		_ = second.Process.Signal(os.Interrupt)
		done := make(chan error, 1)
		go func() { done <- second.Wait() }()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("the restarted server ended with %v:\n%s", err, logs.String())
			}
		case <-time.After(15 * time.Second):
			_ = second.Process.Kill()
			t.Errorf("the restarted server did not stop on SIGINT")
		}
	})

	// The claims of the killed process lapse (30 s) and the restarted one makes the attempts
	// again, with the same ids.
	again := map[string]bool{}
	for len(again) < len(held) {
		g := next(60 * time.Second)
		if _, ok := held[g.id]; !ok {
			t.Fatalf("a delivery %s that was not held: %s", g.id, g.body)
		}
		again[g.id] = true
	}
	types := make([]string, 0, len(held))
	for _, typ := range held {
		types = append(types, typ)
	}
	slices.Sort(types)
	if !slices.Equal(types, []string{"job.completed", "ping"}) {
		t.Errorf("held deliveries %v", held)
	}

	// The log shows each delivered once, its attempt recorded by the restarted server.
	var log struct {
		Deliveries []struct {
			EventID, State string
			Attempts       []struct{ Status *int }
		}
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		b.do(http.MethodGet, "/webhooks/"+hook.ID+"/deliveries", "").decode(t, &log)
		done := 0
		for _, d := range log.Deliveries {
			if d.State == "succeeded" {
				done++
			}
		}
		if done == 2 && len(log.Deliveries) == 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("delivery log %+v (types %v)", log, types)
		}
		time.Sleep(50 * time.Millisecond)
	}
	for _, d := range log.Deliveries {
		if _, ok := held[d.EventID]; !ok || len(d.Attempts) != 1 || d.Attempts[0].Status == nil || *d.Attempts[0].Status != http.StatusNoContent {
			t.Errorf("delivery %+v", d)
		}
	}
}
