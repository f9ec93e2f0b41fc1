package main

import (
	"crypto/rand"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
)

// eachLimiter runs f on the in-memory limiter and, when CURVEKIT_TEST_REDIS names a Redis, on
// the Redis limiter. f gets the server flags and the headers a client sends: through the
// trusted proxy from an address of its own, so that runs sharing one Redis never share a bucket.
func eachLimiter(t *testing.T, f func(t *testing.T, flags []string, hdr []string)) {
	hdr := []string{"X-Forwarded-For", randomIP()}
	t.Run("memory", func(t *testing.T) {
		t.Parallel()
		f(t, []string{"--trusted-proxies", "127.0.0.1"}, hdr)
	})
	t.Run("redis", func(t *testing.T) {
		addr := os.Getenv("CURVEKIT_TEST_REDIS")
		if addr == "" {
			t.Skip("CURVEKIT_TEST_REDIS is not set")
		}
		t.Parallel()
		f(t, []string{"--trusted-proxies", "127.0.0.1", "--redis", addr}, hdr)
	})
}

// randomIP is an address in 10.0.0.0/8 that no other run uses.
func randomIP() string {
	var b [3]byte
	rand.Read(b[:])
	return fmt.Sprintf("10.%d.%d.%d", b[0], b[1], b[2])
}

// The 11th sign-in from one client within 15 minutes is 429; ten complete (the provider's
// callback does not count as another).
func TestLimitSignIn(t *testing.T) {
	t.Parallel()
	eachLimiter(t, func(t *testing.T, flags, hdr []string) {
		s := startServer(t, flags...)
		for i := range 10 {
			s.signIn(t, fmt.Sprintf("limit%d", i), hdr...)
		}
		b := s.browser(t)
		a := b.do(http.MethodGet, "/auth/login?login_hint=eleventh", "", hdr...)
		wantStatus(t, "the 11th sign-in", a, http.StatusTooManyRequests)
		if a.header.Get("Retry-After") != "" {
			t.Errorf("429 with Retry-After %q: SPEC 7 defines none", a.header.Get("Retry-After"))
		}
		// Another client is not held back by this one.
		other := append([]string(nil), hdr...)
		other[1] = randomIP()
		s.signIn(t, "another", other...)
	})
}

// The 31st signature of an account within a minute is 429: every call counts, also those the
// handler then refuses (here for the wrong chain), so a refused call gives nothing back.
func TestLimitSigning(t *testing.T) {
	t.Parallel()
	eachLimiter(t, func(t *testing.T, flags, hdr []string) {
		s := startServer(t, flags...)
		b, _ := s.signIn(t, "signer", hdr...)
		wrongChain := `{"to":"0x000000000000000000000000000000000000dEaD","value":"1","chainId":1}`
		budget := signingBudget{first: time.Now()}
		budget.exhaust(t, http.StatusBadRequest, func() answer {
			return b.do(http.MethodPost, "/wallet/sign-and-submit", wrongChain)
		})
		if budget.spent < 30 {
			t.Fatalf("refused after %d signatures, want 30", budget.spent)
		}
		// Per account: a key of the same account shares the budget.
		k := b.newKey(`{}`)
		budget.exhaust(t, http.StatusBadRequest, func() answer {
			return s.anon(t, http.MethodPost, "/wallet/sign-and-submit", wrongChain, append([]string{"X-API-Key", k.Key}, hdr...)...)
		})
	})
}

// The 4th key export of an account within an hour is 429.
func TestLimitExport(t *testing.T) {
	t.Parallel()
	eachLimiter(t, func(t *testing.T, flags, hdr []string) {
		s := startServer(t, flags...)
		b, _ := s.signIn(t, "exporter", hdr...)
		// No body, an empty object (what many clients send for an empty POST) and one with
		// only whitespace around it are all an empty request.
		for i, body := range []string{"", "{}", " { }\n"} {
			wantStatus(t, fmt.Sprintf("export %d (%q)", i+1, body), b.do(http.MethodPost, "/wallet/export-key", body, "Content-Type", "application/json"), http.StatusOK)
		}
		wantStatus(t, "the 4th export", b.do(http.MethodPost, "/wallet/export-key", ""), http.StatusTooManyRequests)
	})
}

// 1,000 public profile reads from one client are never throttled, on a server whose default
// class allows 20 a minute (reached by GET /config from the same client).
func TestLimitProfilesExempt(t *testing.T) {
	t.Parallel()
	eachLimiter(t, func(t *testing.T, flags, hdr []string) {
		s := startServer(t, append(flags, "--rate-limit", "20")...)
		_, m := s.signIn(t, "famous", hdr...)
		var refused atomic.Int64
		var wg sync.WaitGroup
		for range 4 {
			wg.Go(func() {
				c := &http.Client{}
				for range 250 {
					a := do(t, c, s.base, nil, http.MethodGet, "/auth/user/"+m.User.Wallet, "", hdr...)
					if a.status != http.StatusOK {
						refused.Add(1)
					}
				}
			})
		}
		wg.Wait()
		if n := refused.Load(); n != 0 {
			t.Fatalf("%d of 1000 profile reads refused", n)
		}
		throttled := false
		for range 25 {
			if s.anon(t, http.MethodGet, "/config", "", hdr...).status == http.StatusTooManyRequests {
				throttled = true
				break
			}
		}
		if !throttled {
			t.Fatal("the default class of 20 a minute never throttled GET /config: the profile test proves nothing")
		}
	})
}

// With Redis unreachable the guarded classes fail closed (sign-in is 503) while the default
// class and the exempt profiles still answer.
func TestLimiterDownFailsClosed(t *testing.T) {
	t.Parallel()
	// The server checks Redis at start; it goes away afterwards, as a real one does.
	addr := os.Getenv("CURVEKIT_TEST_REDIS")
	if addr == "" {
		t.Skip("CURVEKIT_TEST_REDIS is not set")
	}
	proxy := newCutProxy(t, addr)
	s := startServer(t, "--redis", proxy.addr())
	proxy.cut()
	wantStatus(t, "sign-in with Redis down", s.anon(t, http.MethodGet, "/auth/login?login_hint=x", ""), http.StatusServiceUnavailable)
	wantStatus(t, "GET /config with Redis down", s.anon(t, http.MethodGet, "/config", ""), http.StatusOK)
	wantStatus(t, "a profile with Redis down", s.anon(t, http.MethodGet, "/auth/user/0x000000000000000000000000000000000000dEaD", ""), http.StatusNotFound)
}

// cutProxy forwards TCP connections to a real server until cut, then refuses and drops them all.
type cutProxy struct {
	ln    net.Listener
	mu    sync.Mutex
	conns []net.Conn
}

func newCutProxy(t *testing.T, target string) *cutProxy {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &cutProxy{ln: ln}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			up, err := net.Dial("tcp", target)
			if err != nil {
				c.Close()
				continue
			}
			p.mu.Lock()
			p.conns = append(p.conns, c, up)
			p.mu.Unlock()
			go func() { io.Copy(up, c); up.Close() }()
			go func() { io.Copy(c, up); c.Close() }()
		}
	}()
	t.Cleanup(p.cut)
	return p
}

func (p *cutProxy) addr() string { return p.ln.Addr().String() }

func (p *cutProxy) cut() {
	p.ln.Close()
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.conns {
		c.Close()
	}
	p.conns = nil
}

// Cross-site requests that carry the session cookie cannot change state: Sec-Fetch-Site
// cross-site or a foreign Origin is 403 on every state-changing session route, and nothing
// changes; same-origin requests work. An API key is not ambient, so a key's request is not
// judged by its origin.
func TestCrossSitePostsRefused(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	b, m := s.signIn(t, "victim")
	s.fund(t, m.User.Wallet, 1)
	k := b.newKey(`{"name":"kept"}`)
	tx := fmt.Sprintf(`{"to":%q,"value":"1","chainId":1337}`, s.app.dev.Accounts[4].Address.Hex())
	for _, foreign := range [][]string{
		{"Sec-Fetch-Site", "cross-site"},
		{"Sec-Fetch-Site", "same-site"},
		{"Origin", "http://evil.example"},
		{"Origin", "null"},
	} {
		for _, r := range []struct{ method, path, body string }{
			{http.MethodPost, "/api-keys", `{"name":"evil"}`},
			{http.MethodDelete, "/api-keys/" + k.ID, ""},
			{http.MethodPost, "/wallet/sign-and-submit", tx},
			{http.MethodPost, "/agent/prompt", `{"prompt":"price of DETH"}`},
			{http.MethodDelete, "/agent/memory/risk", ""},
		} {
			wantStatus(t, fmt.Sprintf("%s %s with %s: %s", r.method, r.path, foreign[0], foreign[1]), b.do(r.method, r.path, r.body, foreign...), http.StatusForbidden)
		}
	}
	// Export has a budget of 3 an hour, which refused attempts do not spend (the origin check
	// comes first): foreign attempts, then the account's own three.
	wantStatus(t, "export cross-site", b.do(http.MethodPost, "/wallet/export-key", "", "Sec-Fetch-Site", "cross-site"), http.StatusForbidden)
	wantStatus(t, "export from a foreign Origin", b.do(http.MethodPost, "/wallet/export-key", "", "Origin", "http://evil.example"), http.StatusForbidden)
	for i := range 3 {
		wantStatus(t, fmt.Sprintf("export same-origin %d", i+1), b.do(http.MethodPost, "/wallet/export-key", "", "Sec-Fetch-Site", "same-origin"), http.StatusOK)
	}
	var list struct{ Keys []keyJSON }
	b.do(http.MethodGet, "/api-keys", "").decode(t, &list)
	if len(list.Keys) != 1 || list.Keys[0].RevokedAt != nil {
		t.Fatalf("keys after cross-site attempts: %+v", list.Keys)
	}
	if n, err := s.app.dev.Client.PendingNonceAt(t.Context(), common.HexToAddress(m.User.Wallet)); err != nil || n != 0 {
		t.Fatalf("the wallet sent %d transactions (%v)", n, err)
	}
	wantStatus(t, "same-origin", b.do(http.MethodPost, "/api-keys", `{"name":"mine"}`, "Sec-Fetch-Site", "same-origin"), http.StatusCreated)
	wantStatus(t, "own Origin", b.do(http.MethodPost, "/api-keys", `{"name":"mine too"}`, "Origin", s.base), http.StatusCreated)
	wantStatus(t, "a key from a foreign origin", s.anon(t, http.MethodPost, "/agent/job", `{"prompt":"price of DETH"}`, "X-API-Key", k.Key, "Origin", "http://evil.example", "Sec-Fetch-Site", "cross-site"), http.StatusAccepted)
}

// GET /auth/logout changes state though it is a GET: a cross-site navigation (which carries the
// SameSite=Lax cookie) does not log the person out; their own page and a typed URL do.
func TestCrossSiteLogoutRefused(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	b, _ := s.signIn(t, "stays")
	for _, site := range []string{"cross-site", "same-site"} {
		wantStatus(t, "logout from "+site, b.do(http.MethodGet, "/auth/logout", "", "Sec-Fetch-Site", site), http.StatusForbidden)
		wantStatus(t, "the session after a "+site+" logout", b.do(http.MethodGet, "/auth/me", ""), http.StatusOK)
	}
	wantStatus(t, "logout from our own page", b.do(http.MethodGet, "/auth/logout", "", "Sec-Fetch-Site", "same-origin"), http.StatusOK)
	wantStatus(t, "the session after logout", b.do(http.MethodGet, "/auth/me", ""), http.StatusUnauthorized)
	c, _ := s.signIn(t, "typed")
	wantStatus(t, "a typed logout", c.do(http.MethodGet, "/auth/logout", "", "Sec-Fetch-Site", "none"), http.StatusOK)
}
