package webhook_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/curvekit/curvekit"
	"github.com/curvekit/curvekit/adapters/webhook"
	"github.com/curvekit/curvekit/push"
)

func TestAllowed(t *testing.T) {
	t.Parallel()
	strict, _ := webhook.New(webhook.Config{})
	loose, _ := webhook.New(webhook.Config{AllowLoopback: true})
	for _, tt := range []struct {
		addr          string
		strict, loose bool
	}{
		{"93.184.216.34", true, true},
		{"2606:4700::6810:84e5", true, true},
		{"127.0.0.1", false, true},
		{"127.5.6.7", false, true},
		{"::1", false, true},
		{"::ffff:127.0.0.1", false, true},
		{"10.1.2.3", false, false},
		{"172.16.0.1", false, false},
		{"192.168.1.1", false, false},
		{"::ffff:192.168.1.1", false, false},
		{"169.254.169.254", false, false}, // cloud metadata
		{"fd00:ec2::254", false, false},   // AWS metadata over IPv6
		{"fe80::1", false, false},
		{"100.64.0.1", false, false},
		{"100.100.100.200", false, false}, // Alibaba metadata, in CGNAT
		{"0.0.0.0", false, false},
		{"::", false, false},
		{"224.0.0.1", false, false},
		{"ff02::1", false, false},
		{"255.255.255.255", false, false},
		{"64:ff9b::a00:1", false, false}, // NAT64 of 10.0.0.1
		{"2002:a00:1::", false, false},   // 6to4 of 10.0.0.1
		{"198.18.0.1", false, false},
	} {
		a := netip.MustParseAddr(tt.addr)
		if got := strict.Allowed(a); got != tt.strict {
			t.Errorf("Allowed(%s) = %v, want %v", tt.addr, got, tt.strict)
		}
		if got := loose.Allowed(a); got != tt.loose {
			t.Errorf("with AllowLoopback, Allowed(%s) = %v, want %v", tt.addr, got, tt.loose)
		}
	}
}

// resolver answers each lookup with the next of its answers (the last one repeats): a name that
// resolves to a public address when checked and to another later.
type resolver struct {
	answers []string
	n       atomic.Int32
}

func (r *resolver) LookupNetIP(context.Context, string, string) ([]netip.Addr, error) {
	i := int(r.n.Add(1)) - 1
	i = min(i, len(r.answers)-1)
	return []netip.Addr{netip.MustParseAddr(r.answers[i])}, nil
}

// receiver counts the requests it gets.
func receiver(t *testing.T, tls bool, h http.HandlerFunc) (*httptest.Server, *atomic.Int32) {
	var n atomic.Int32
	f := func(w http.ResponseWriter, r *http.Request) { n.Add(1); h(w, r) }
	var srv *httptest.Server
	if tls {
		srv = httptest.NewTLSServer(http.HandlerFunc(f))
	} else {
		srv = httptest.NewServer(http.HandlerFunc(f))
	}
	t.Cleanup(srv.Close)
	return srv, &n
}

func msg() *push.Message {
	return &push.Message{ID: "evt_1", Timestamp: time.Now().Unix(), Signature: "v1,x", Body: []byte(`{}`)}
}

func TestCheck(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	strict, _ := webhook.New(webhook.Config{Resolver: &resolver{answers: []string{"10.0.0.7"}}})
	for _, u := range []string{"http://example.com/hook", "ftp://example.com", "https://10.0.0.1/x", "https://169.254.169.254/latest", "https://internal.example/x", "https://[::1]:8080/"} {
		if err := strict.Check(ctx, u); !errors.Is(err, curvekit.ErrInvalid) {
			t.Errorf("Check(%s) = %v, want ErrInvalid", u, err)
		}
	}
	public, _ := webhook.New(webhook.Config{Resolver: &resolver{answers: []string{"93.184.216.34"}}})
	if err := public.Check(ctx, "https://hooks.example.com/in"); err != nil {
		t.Errorf("Check of a public https URL: %v", err)
	}
	loose, _ := webhook.New(webhook.Config{AllowLoopback: true, Resolver: &resolver{answers: []string{"10.0.0.7"}}})
	if err := loose.Check(ctx, "http://127.0.0.1:9/x"); err != nil {
		t.Errorf("with AllowLoopback, Check of a loopback http URL: %v", err)
	}
	if err := loose.Check(ctx, "http://private.example/x"); !errors.Is(err, curvekit.ErrInvalid) {
		t.Errorf("with AllowLoopback, a private destination: %v, want ErrInvalid", err)
	}
}

// A name that resolves to a public address when the subscription is made and to a private one
// at delivery (DNS rebinding) is refused when the connection is made: the receiver hears nothing.
func TestRebindingRefusedAtDial(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	srv, hits := receiver(t, true, func(w http.ResponseWriter, r *http.Request) {})
	port := srv.URL[strings.LastIndex(srv.URL, ":")+1:]
	url := "https://hooks.example.com:" + port + "/in"

	c, _ := webhook.New(webhook.Config{Resolver: &resolver{answers: []string{"93.184.216.34", "127.0.0.1"}}})
	if err := c.Check(ctx, url); err != nil {
		t.Fatalf("Check while the name is public: %v", err)
	}
	if _, err := c.Post(ctx, url, msg()); !errors.Is(err, webhook.ErrRefused) {
		t.Errorf("Post after the name moved to loopback: %v, want ErrRefused", err)
	}
	// Loopback allowed for development, but not the rest of the list.
	loose, _ := webhook.New(webhook.Config{AllowLoopback: true, Resolver: &resolver{answers: []string{"93.184.216.34", "10.0.0.1"}}})
	_ = loose.Check(ctx, url)
	if _, err := loose.Post(ctx, "http://hooks.example.com:"+port+"/in", msg()); !errors.Is(err, webhook.ErrRefused) {
		t.Errorf("with AllowLoopback, a name moved to 10.0.0.1: %v, want ErrRefused", err)
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("the receiver got %d requests", n)
	}
}

func TestNoRedirectCappedAnswerTimeout(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	target, targetHits := receiver(t, false, func(w http.ResponseWriter, r *http.Request) {})
	redirect, _ := receiver(t, false, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, target.URL, http.StatusTemporaryRedirect)
	})
	big, _ := receiver(t, false, func(w http.ResponseWriter, r *http.Request) { w.Write([]byte(strings.Repeat("x", 200<<10))) })
	release := make(chan struct{})
	slow, _ := receiver(t, false, func(w http.ResponseWriter, r *http.Request) {
		io.ReadAll(r.Body) // the server notices the client leaving only once the body is read
		select {
		case <-r.Context().Done():
		case <-release:
		}
	})
	defer close(release)
	var headers http.Header
	echo, _ := receiver(t, false, func(w http.ResponseWriter, r *http.Request) {
		headers = r.Header.Clone()
		w.WriteHeader(http.StatusNoContent)
	})

	c, _ := webhook.New(webhook.Config{AllowLoopback: true, Timeout: 300 * time.Millisecond})
	resp, err := c.Post(ctx, redirect.URL, msg())
	if err != nil || resp.Status != http.StatusTemporaryRedirect || targetHits.Load() != 0 {
		t.Errorf("redirect: %d, %v, target hit %d times; want the 307 itself", resp.Status, err, targetHits.Load())
	}
	resp, err = c.Post(ctx, big.URL, msg())
	if err != nil || resp.Status != 200 || len(resp.Body) != 64<<10 {
		t.Errorf("a 200 KiB answer: %d, %d bytes read, %v; want 64 KiB", resp.Status, len(resp.Body), err)
	}
	start := time.Now()
	if _, err := c.Post(ctx, slow.URL, msg()); err == nil || time.Since(start) > 5*time.Second {
		t.Errorf("a receiver that never answers: %v after %s", err, time.Since(start))
	}
	m := msg()
	if resp, err := c.Post(ctx, echo.URL, m); err != nil || resp.Status != 204 {
		t.Fatalf("post: %d, %v", resp.Status, err)
	}
	if headers.Get("webhook-id") != m.ID || headers.Get("webhook-signature") != m.Signature || headers.Get("Content-Type") != "application/json" {
		t.Errorf("headers %v", headers)
	}
}

// Every range of the special-purpose registries is refused, its first and last address, as
// written and (IPv4) as an IPv4-mapped IPv6 address, in the check a subscription's URL passes
// when created and when the connection is made: the receiver hears nothing.
func TestEverySpecialRangeRefused(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	strict, _ := webhook.New(webhook.Config{})
	loose, _ := webhook.New(webhook.Config{AllowLoopback: true})
	loopback := func(a netip.Addr) bool { return a.Unmap().IsLoopback() }
	for _, r := range webhook.Special {
		first := r.Prefix.Masked().Addr()
		b := first.AsSlice() // the last address: every host bit set
		for i := r.Prefix.Bits(); i < first.BitLen(); i++ {
			b[i/8] |= 0x80 >> (i % 8)
		}
		last, _ := netip.AddrFromSlice(b)
		forms := []netip.Addr{first, last}
		if first.Is4() {
			forms = append(forms, netip.AddrFrom16(first.As16()), netip.AddrFrom16(last.As16()))
		}
		for _, a := range forms {
			if strict.Allowed(a) {
				t.Errorf("%s (%s, %s) is allowed", a, r.Prefix, r.Name)
			}
			if loose.Allowed(a) != loopback(a) {
				t.Errorf("with AllowLoopback, %s (%s) allowed: %v", a, r.Name, loose.Allowed(a))
			}
			host := a.String()
			if a.Is6() {
				host = "[" + host + "]"
			}
			if err := strict.Check(ctx, "https://"+host+"/hook"); !errors.Is(err, curvekit.ErrInvalid) {
				t.Errorf("Check of https://%s/hook: %v, want ErrInvalid", host, err)
			}
		}
	}
	// The forms that reached loopback and private addresses before, and reserved IPv6 space.
	srv, hits := receiver(t, true, func(w http.ResponseWriter, r *http.Request) {})
	port := srv.URL[strings.LastIndex(srv.URL, ":")+1:]
	for _, host := range []string{"::127.0.0.1", "::ffff:0:7f00:1", "fec0::1", "::a00:1", "64:ff9b::7f00:1", "2001:0:4136:e378:8000:63bf:80ff:fffe", "4000::1", "[::ffff:127.0.0.1]"} {
		host = strings.Trim(host, "[]")
		url := "https://[" + host + "]:" + port + "/in"
		if err := strict.Check(ctx, url); !errors.Is(err, curvekit.ErrInvalid) {
			t.Errorf("Check(%s) = %v, want ErrInvalid", url, err)
		}
		if _, err := strict.Post(ctx, url, msg()); !errors.Is(err, webhook.ErrRefused) {
			t.Errorf("Post(%s) = %v, want ErrRefused", url, err)
		}
	}
	// A name that resolves to one of them is refused when the connection is made.
	for _, a := range []string{"::127.0.0.1", "::ffff:0:7f00:1", "fec0::1"} {
		c, _ := webhook.New(webhook.Config{Resolver: &resolver{answers: []string{"93.184.216.34", a}}})
		url := "https://hooks.example.com:" + port + "/in"
		if err := c.Check(ctx, url); err != nil {
			t.Fatalf("Check while the name is public: %v", err)
		}
		if _, err := c.Post(ctx, url, msg()); !errors.Is(err, webhook.ErrRefused) {
			t.Errorf("Post after the name moved to %s: %v, want ErrRefused", a, err)
		}
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("the receiver got %d requests", n)
	}
	// Public addresses stay allowed.
	for _, a := range []string{"93.184.216.34", "8.8.8.8", "2606:4700::6810:84e5", "2a00:1450:4001:80b::200e", "::ffff:93.184.216.34"} {
		if !strict.Allowed(netip.MustParseAddr(a)) {
			t.Errorf("public %s refused", a)
		}
	}
}
