package httpapi

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"net/http"
	"net/netip"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/google/go-cmp/cmp"
	"github.com/uptrace/bunrouter"

	"github.com/curvekit/curvekit/adapters/ratelimit"
	"github.com/curvekit/curvekit/auth"
)

const throttled = `{"statusCode": 429, "message": "too many requests; slow down and retry later", "code": "RATE_LIMITED"}`

// classTight is a class of the test routes with its own small limit.
const classTight auth.Class = "test-tight"

// testRoutes mounts one route per kind of class: exempt, its own class (fail open) and a
// fail-closed class.
func testRoutes() []group {
	ok := func(w http.ResponseWriter, _ bunrouter.Request) error {
		return writeJSON(w, http.StatusOK, map[string]bool{"ok": true})
	}
	return []group{{prefix: "/test", routes: []route{
		{method: http.MethodGet, path: "/exempt", class: auth.ClassExempt, handle: ok},
		{method: http.MethodGet, path: "/tight", class: classTight, handle: ok},
		{method: http.MethodGet, path: "/signing", class: auth.ClassSigning, handle: ok},
	}}}
}

func policy(defaultN int) auth.Policy {
	p := auth.DefaultPolicy(auth.Every(defaultN, time.Hour))
	p[classTight] = auth.Rule{Limit: auth.Every(2, time.Hour)}
	return p
}

// 200 concurrent requests against a default limit of N admit exactly N, with the real limiters:
// in memory always, on Redis when CURVEKIT_TEST_REDIS names one.
func TestRateLimitConcurrent(t *testing.T) {
	t.Parallel()
	mem, err := ratelimit.NewMemory(ratelimit.MemoryConfig{})
	if err != nil {
		t.Fatal(err)
	}
	limiters := map[string]auth.Limiter{"memory": mem}
	if addr := os.Getenv("CURVEKIT_TEST_REDIS"); addr != "" {
		var prefix [8]byte
		_, _ = rand.Read(prefix[:])
		r, err := ratelimit.NewRedis(ratelimit.RedisConfig{Addr: addr, Prefix: "httpapi-test-" + hex.EncodeToString(prefix[:]) + ":"})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { r.Close() })
		limiters["redis"] = r
	}
	for name, lim := range limiters {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			concurrentAgainstLimit(t, lim)
		})
	}
}

func concurrentAgainstLimit(t *testing.T, lim auth.Limiter) {
	// 30 per hour: a whole-second emission interval, which GCRA's float arithmetic (redis_rate's
	// and the in-memory copy of it) counts exactly.
	const n, callers = 30, 200
	e := newEnv(t, envOptions{policy: policy(n), limiter: lim})
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: callers}}
	defer client.CloseIdleConnections()

	var (
		wg      sync.WaitGroup
		start   = make(chan struct{})
		mu      sync.Mutex
		byCode  = map[int]int{}
		bodies  = map[string]int{}
		retries int
	)
	for i := range callers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			path := []string{"/config", "/tokens", "/tokens/" + ethToken.Hex() + "/stats"}[i%3]
			res, err := client.Get(e.srv.URL + path)
			if err != nil {
				t.Error(err)
				return
			}
			defer res.Body.Close()
			b, _ := io.ReadAll(res.Body)
			mu.Lock()
			defer mu.Unlock()
			byCode[res.StatusCode]++
			if res.StatusCode == http.StatusTooManyRequests {
				bodies[strings.TrimSpace(string(b))]++
			}
			if res.Header.Get("Retry-After") != "" {
				retries++
			}
		}()
	}
	close(start)
	wg.Wait()
	if diff := cmp.Diff(map[int]int{http.StatusOK: n, http.StatusTooManyRequests: callers - n}, byCode); diff != "" {
		t.Errorf("status counts (-want +got):\n%s", diff)
	}
	want := `{"statusCode":429,"message":"too many requests; slow down and retry later","code":"RATE_LIMITED"}`
	if diff := cmp.Diff(map[string]int{want: callers - n}, bodies); diff != "" {
		t.Errorf("429 bodies (-want +got):\n%s", diff)
	}
	if retries != 0 {
		t.Errorf("%d responses carry Retry-After; the spec defines none", retries)
	}
}

func TestRateLimitClasses(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{policy: policy(3), extra: testRoutes()})

	// An exempt route is never throttled and never asks the limiter.
	for range 20 {
		e.get(t, "/test/exempt").want(t, http.StatusOK, `{"ok": true}`)
	}
	for _, k := range e.limiter.seen() {
		t.Errorf("the limiter was asked about %q for an exempt route", k)
	}

	// Each class has its own bucket: spending the tight class leaves the default one alone.
	e.get(t, "/test/tight").want(t, http.StatusOK, `{"ok": true}`)
	e.get(t, "/test/tight").want(t, http.StatusOK, `{"ok": true}`)
	e.get(t, "/test/tight").want(t, http.StatusTooManyRequests, throttled)
	for range 3 {
		e.get(t, "/config").decode(t, new(configJSON))
	}
	e.get(t, "/config").want(t, http.StatusTooManyRequests, throttled)
	// ... and the default bucket is shared by the routes of the class.
	e.get(t, "/tokens").want(t, http.StatusTooManyRequests, throttled)
	// The exempt route still answers.
	e.get(t, "/test/exempt").want(t, http.StatusOK, `{"ok": true}`)

	want := []string{"test-tight:ip:127.0.0.1", "test-tight:ip:127.0.0.1", "test-tight:ip:127.0.0.1",
		"default:ip:127.0.0.1", "default:ip:127.0.0.1", "default:ip:127.0.0.1", "default:ip:127.0.0.1", "default:ip:127.0.0.1"}
	if diff := cmp.Diff(want, e.limiter.seen()); diff != "" {
		t.Errorf("limiter keys (-want +got):\n%s", diff)
	}
}

// Unknown routes, wrong methods and unroutable paths count against the client like any request:
// probing paths is not free.
func TestRateLimitCountsMisses(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{policy: policy(3)})
	e.get(t, "/nope").want(t, http.StatusNotFound, `{"statusCode": 404, "message": "route GET /nope not found"}`)
	e.do(t, http.MethodPost, "/config", "").want(t, http.StatusMethodNotAllowed, `{"statusCode": 405, "message": "method POST not allowed; allowed: GET, HEAD"}`)
	e.get(t, "/config%00").want(t, http.StatusNotFound, `{"statusCode": 404, "message": "route not found"}`)
	e.get(t, "/config").want(t, http.StatusTooManyRequests, throttled)
	want := []string{"default:ip:127.0.0.1", "default:ip:127.0.0.1", "default:ip:127.0.0.1", "default:ip:127.0.0.1"}
	if diff := cmp.Diff(want, e.limiter.seen()); diff != "" {
		t.Errorf("limiter keys (-want +got):\n%s", diff)
	}
}

// knownKeys authenticates the keys it maps to a key id, each of its own account.
type knownKeys map[string]string

func (k knownKeys) Authenticate(_ context.Context, c auth.Credentials) (*auth.Principal, auth.Outcome, error) {
	switch id, ok := k[c.APIKey]; {
	case c.APIKey == "":
		return nil, auth.NoCredential, nil
	case !ok:
		return nil, auth.Refused, nil
	default:
		return &auth.Principal{AccountID: "acc-" + id, KeyID: id, Kind: auth.KindKey, Wallet: common.BytesToAddress([]byte(id))}, auth.Authenticated, nil
	}
}

func TestRateLimitAPIKey(t *testing.T) {
	t.Parallel()
	keyA := "svc_" + strings.Repeat("a1", 24)
	keyB := "svc_" + strings.Repeat("b2", 24)
	forged := "svc_" + strings.Repeat("c3", 24)
	e := newEnv(t, envOptions{policy: policy(2), auth: knownKeys{keyA: "key-a", keyB: "key-b"}})
	for range 2 {
		e.get(t, "/config", "X-API-Key", keyA).decode(t, new(configJSON))
	}
	e.get(t, "/config", "X-API-Key", keyA).want(t, http.StatusTooManyRequests, throttled)
	// Another key, and the caller's IP, have buckets of their own.
	e.get(t, "/config", "X-API-Key", keyB).decode(t, new(configJSON))
	e.get(t, "/config").decode(t, new(configJSON))
	// A value that is not an API key at all, or a well-formed key nobody issued, is counted by
	// IP, and in the bad-credential class too: junk or forged keys in the header buy nothing.
	e.get(t, "/config", "X-API-Key", "let-me-in").decode(t, new(configJSON))
	e.get(t, "/config", "X-API-Key", forged).want(t, http.StatusTooManyRequests, throttled)

	sum := func(id string) string {
		h := sha256.Sum256([]byte(id))
		return "default:key:" + hex.EncodeToString(h[:16])
	}
	a, b, ip, bad := sum("key-a"), sum("key-b"), "default:ip:127.0.0.1", "bad-credential:ip:127.0.0.1"
	if diff := cmp.Diff([]string{a, a, a, b, ip, bad, ip, bad, ip}, e.limiter.seen()); diff != "" {
		t.Errorf("limiter keys (-want +got):\n%s", diff)
	}
}

// A proxy's X-Forwarded-For is believed only when the proxy is trusted.
func TestRateLimitForwardedFor(t *testing.T) {
	t.Parallel()
	loopback := []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}
	for _, tc := range []struct {
		name    string
		proxies []netip.Prefix
		xff     []string
		want    string
	}{
		{"untrusted peer: the header is ignored", nil, []string{"203.0.113.7"}, "default:ip:127.0.0.1"},
		{"trusted proxy", loopback, []string{"203.0.113.7"}, "default:ip:203.0.113.7"},
		{"spoofed entries left of the proxy's are skipped", loopback, []string{"6.6.6.6, 203.0.113.7"}, "default:ip:203.0.113.7"},
		{"trusted hops are skipped", loopback, []string{"203.0.113.7, 127.0.0.9"}, "default:ip:203.0.113.7"},
		{"several headers read as one list", loopback, []string{"6.6.6.6", "203.0.113.7"}, "default:ip:203.0.113.7"},
		{"no header", loopback, nil, "default:ip:127.0.0.1"},
		{"IPv6 client counted by its /64", loopback, []string{"2001:db8:1:2:3:4:5:6"}, "default:ip:2001:db8:1:2::/64"},
		{"mapped client unmapped", loopback, []string{"::ffff:203.0.113.7"}, "default:ip:203.0.113.7"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, envOptions{proxies: tc.proxies})
			h := []string{}
			for _, v := range tc.xff {
				h = append(h, "X-Forwarded-For", v)
			}
			e.get(t, "/config", h...).decode(t, new(configJSON))
			if diff := cmp.Diff([]string{tc.want}, e.limiter.seen()); diff != "" {
				t.Errorf("limiter keys (-want +got):\n%s", diff)
			}
		})
	}
}

// A dual-stack listener reports an IPv4 peer as ::ffff:a.b.c.d; it must still match IPv4
// prefixes and count as the IPv4 address. The wrapper plays the listener's part in front of the
// API, over a real socket.
func TestRateLimitMappedRemoteAddr(t *testing.T) {
	t.Parallel()
	mapped := func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			r.RemoteAddr = "[::ffff:10.1.2.3]:40000"
			h.ServeHTTP(w, r)
		})
	}
	for _, tc := range []struct {
		name    string
		proxies []netip.Prefix
		want    string
	}{
		{"mapped peer counted as IPv4", nil, "default:ip:10.1.2.3"},
		{"mapped peer matches an IPv4 proxy prefix", []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}, "default:ip:198.51.100.4"},
		{"an IPv4-mapped prefix is normalized", []netip.Prefix{netip.MustParsePrefix("::ffff:10.1.0.0/112")}, "default:ip:198.51.100.4"},
		{"other prefixes do not match", []netip.Prefix{netip.MustParsePrefix("10.9.0.0/16")}, "default:ip:10.1.2.3"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, envOptions{proxies: tc.proxies, wrap: mapped})
			e.get(t, "/config", "X-Forwarded-For", "198.51.100.4").decode(t, new(configJSON))
			if diff := cmp.Diff([]string{tc.want}, e.limiter.seen()); diff != "" {
				t.Errorf("limiter keys (-want +got):\n%s", diff)
			}
		})
	}
}

// When the limiter cannot decide, each class fails the way its rule says.
func TestRateLimitLimiterDown(t *testing.T) {
	t.Parallel()
	lim := newCountLimiter()
	lim.fails = errors.New("redis: connection refused")
	e := newEnv(t, envOptions{policy: policy(1), extra: testRoutes(), limiter: lim})
	// The default class fails open...
	for range 3 {
		e.get(t, "/config").decode(t, new(configJSON))
	}
	e.get(t, "/test/tight").want(t, http.StatusOK, `{"ok": true}`)
	// ... the signing class fails closed.
	e.get(t, "/test/signing").want(t, http.StatusServiceUnavailable,
		`{"statusCode": 503, "message": "service temporarily unavailable; retry later"}`)
	if logs := e.logs.String(); !strings.Contains(logs, "failing open") || !strings.Contains(logs, "failing closed") {
		t.Errorf("limiter failures are not logged: %s", logs)
	}
}

// A connection keeps its client's key between requests only where the key depends on the
// connection alone: behind a trusted proxy each request's X-Forwarded-For names its client, and
// a handler in front that rewrites RemoteAddr moves the key with it.
func TestRateLimitKeyKeptPerConnection(t *testing.T) {
	t.Parallel()
	var (
		mu    sync.Mutex
		memos = map[*peerMemo]bool{}
	)
	rewrite := func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if m, ok := r.Context().Value(peerMemoKey{}).(*peerMemo); ok {
				mu.Lock()
				memos[m] = true
				mu.Unlock()
			}
			if a := r.Header.Get("X-Test-Remote"); a != "" {
				r.RemoteAddr = a
			}
			h.ServeHTTP(w, r)
		})
	}
	proxy := []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}
	e := newEnv(t, envOptions{proxies: proxy, wrap: rewrite})
	for _, h := range [][]string{
		nil, nil, // the loopback peer, twice: the second request reuses the key
		{"X-Test-Remote", "192.0.2.1:1000"},
		{"X-Test-Remote", "192.0.2.2:1000"},
		{"X-Test-Remote", "10.0.0.1:1000", "X-Forwarded-For", "198.51.100.1"},
		{"X-Test-Remote", "10.0.0.1:1000", "X-Forwarded-For", "198.51.100.2"},
		nil,
	} {
		e.get(t, "/config", h...).decode(t, new(configJSON))
	}
	want := []string{"default:ip:127.0.0.1", "default:ip:127.0.0.1", "default:ip:192.0.2.1", "default:ip:192.0.2.2",
		"default:ip:198.51.100.1", "default:ip:198.51.100.2", "default:ip:127.0.0.1"}
	if diff := cmp.Diff(want, e.limiter.seen()); diff != "" {
		t.Errorf("limiter keys (-want +got):\n%s", diff)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(memos) != 1 {
		t.Fatalf("%d connection memos for requests on one connection, want 1", len(memos))
	}
	for m := range memos {
		if k := m.last.Load(); k == nil || k.key != "default:ip:127.0.0.1" {
			t.Errorf("the connection keeps %+v", k)
		}
	}
}
