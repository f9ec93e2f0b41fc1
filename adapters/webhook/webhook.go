// Package webhook posts push deliveries (push.Client) over HTTP without letting a subscriber's
// URL reach inside the network: every connection's address is checked as it is made (after DNS
// resolution, in the dialer, so a name that resolves to a public address when the subscription
// is made and to a private one later is refused), redirects are not followed, a delivery gives
// up after Timeout and at most MaxResponse bytes of the answer are read.
//
// Refused: loopback, private (RFC 1918, fc00::/7), link-local (cloud metadata 169.254.169.254
// among them), CGNAT 100.64.0.0/10, multicast, unspecified, and the other special-purpose
// ranges listed in refused. Config.AllowLoopback (local development, tests) allows http:// URLs
// and loopback addresses, and nothing else of that list.
package webhook

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"syscall"
	"time"

	"github.com/curvekit/curvekit"
	"github.com/curvekit/curvekit/push"
)

// Resolver looks up a host's addresses; *net.Resolver satisfies it.
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// Config configures a Client. New fills the defaults.
type Config struct {
	// Timeout bounds one delivery, connection to last byte read; default 10s.
	Timeout time.Duration
	// MaxResponse is how much of an answer is read; default 64 KiB.
	MaxResponse int64
	// AllowLoopback allows http:// URLs and loopback destinations (local development, tests).
	AllowLoopback bool
	// Resolver resolves hosts; default net.DefaultResolver.
	Resolver Resolver
	// UserAgent is sent with every delivery; default "curvekit-webhooks".
	UserAgent string
}

// Client is the push.Client on net/http.
type Client struct {
	cfg  Config
	http *http.Client
}

var _ push.Client = (*Client)(nil)

// ErrRefused reports a destination address the client does not connect to.
var ErrRefused = errors.New("webhook: destination address is not public")

// New returns a Client.
func New(cfg Config) (*Client, error) {
	if cfg.Timeout == 0 {
		cfg.Timeout = 10 * time.Second
	}
	if cfg.MaxResponse == 0 {
		cfg.MaxResponse = 64 << 10
	}
	if cfg.Resolver == nil {
		cfg.Resolver = net.DefaultResolver
	}
	if cfg.UserAgent == "" {
		cfg.UserAgent = "curvekit-webhooks"
	}
	if cfg.Timeout < 0 || cfg.MaxResponse < 0 {
		return nil, errors.New("webhook: negative timeout or answer size")
	}
	c := &Client{cfg: cfg}
	tr := &http.Transport{
		Proxy:                 nil, // a proxy would make the connection, and the address check, its own
		DialContext:           c.dial,
		ForceAttemptHTTP2:     true,
		MaxIdleConnsPerHost:   4,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   cfg.Timeout,
		ResponseHeaderTimeout: cfg.Timeout,
	}
	c.http = &http.Client{
		Transport:     tr,
		Timeout:       cfg.Timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	return c, nil
}

// Post sends m to rawURL and reads the start of the answer.
func (c *Client) Post(ctx context.Context, rawURL string, m *push.Message) (push.Response, error) {
	if err := c.scheme(rawURL); err != nil {
		return push.Response{}, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, rawURL, bytes.NewReader(m.Body))
	if err != nil {
		return push.Response{}, fmt.Errorf("webhook: request: %w", err)
	}
	h := req.Header
	h.Set("Content-Type", "application/json")
	h.Set("User-Agent", c.cfg.UserAgent)
	h.Set("webhook-id", m.ID)
	h.Set("webhook-timestamp", strconv.FormatInt(m.Timestamp, 10))
	h.Set("webhook-signature", m.Signature)
	resp, err := c.http.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // the URL is the subscriber's own; the log line names the webhook
		}
		return push.Response{}, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, c.cfg.MaxResponse))
	if err != nil {
		// The status came; a body cut short does not change it.
		body = append(body, "…"...)
	}
	return push.Response{Status: resp.StatusCode, Body: body}, nil
}

// scheme refuses a URL the client never posts to.
func (c *Client) scheme(rawURL string) error {
	u, err := url.Parse(rawURL)
	if err != nil {
		return fmt.Errorf("%w: malformed URL", curvekit.ErrInvalid)
	}
	switch {
	case u.Scheme == "https":
	case u.Scheme == "http" && c.cfg.AllowLoopback:
	default:
		return fmt.Errorf("%w: the URL must use https", curvekit.ErrInvalid)
	}
	return nil
}

// Check refuses a URL whose scheme is not https (or http with AllowLoopback) or whose host
// resolves, now, to an address the client would not connect to.
func (c *Client) Check(ctx context.Context, rawURL string) error {
	if err := c.scheme(rawURL); err != nil {
		return err
	}
	u, _ := url.Parse(rawURL)
	addrs, err := c.resolve(ctx, u.Hostname())
	if err != nil {
		return fmt.Errorf("%w: the URL's host does not resolve", curvekit.ErrInvalid)
	}
	for _, a := range addrs {
		if !c.Allowed(a) {
			return fmt.Errorf("%w: the URL's host resolves to %s, which is not a public address", curvekit.ErrInvalid, a)
		}
	}
	return nil
}

// resolve returns host's addresses (host itself when it is an address).
func (c *Client) resolve(ctx context.Context, host string) ([]netip.Addr, error) {
	if a, err := netip.ParseAddr(host); err == nil {
		return []netip.Addr{a}, nil
	}
	addrs, err := c.cfg.Resolver.LookupNetIP(ctx, "ip", host)
	if err == nil && len(addrs) == 0 {
		err = errors.New("no address")
	}
	return addrs, err
}

// dial resolves the host and connects to the first of its addresses that is allowed; the
// dialer's Control checks the address of the socket itself once more.
func (c *Client) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	addrs, err := c.resolve(ctx, host)
	if err != nil {
		return nil, fmt.Errorf("webhook: resolve %s: %w", host, err)
	}
	d := net.Dialer{Timeout: c.cfg.Timeout, Control: c.control}
	errs := []error{}
	for _, a := range addrs {
		if !c.Allowed(a) {
			errs = append(errs, fmt.Errorf("%w: %s", ErrRefused, a))
			continue
		}
		conn, err := d.DialContext(ctx, network, net.JoinHostPort(a.String(), port))
		if err == nil {
			return conn, nil
		}
		errs = append(errs, err)
	}
	return nil, errors.Join(errs...)
}

// control refuses a socket about to connect to an address that is not allowed.
func (c *Client) control(_, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("%w: %s", ErrRefused, address)
	}
	if !c.Allowed(ap.Addr()) {
		return fmt.Errorf("%w: %s", ErrRefused, ap.Addr())
	}
	return nil
}

// SpecialRange is a range the client never connects to, named as its registry names it.
type SpecialRange struct {
	Prefix netip.Prefix
	Name   string
}

// Special lists every range of IANA's IPv4 and IPv6 Special-Purpose Address Registries (as of
// 2026), whether or not the registry marks it globally reachable, with multicast and the IPv6
// forms that embed or stand for another address. Beyond them, an IPv6 address outside 2000::/3,
// the only range IANA allocates as global unicast, is refused too (IPv4-compatible ::/96,
// IPv4-translated ::ffff:0:0:0/96, the deprecated site-local fec0::/10, and every reserved block).
// An IPv4-mapped address (::ffff:0:0/96) is checked as the IPv4 address it maps.
var Special = []SpecialRange{
	{netip.MustParsePrefix("0.0.0.0/8"), "this network"},
	{netip.MustParsePrefix("10.0.0.0/8"), "private-use"},
	{netip.MustParsePrefix("100.64.0.0/10"), "shared address space (CGNAT; Alibaba's metadata 100.100.100.200)"},
	{netip.MustParsePrefix("127.0.0.0/8"), "loopback"},
	{netip.MustParsePrefix("169.254.0.0/16"), "link local (cloud metadata 169.254.169.254)"},
	{netip.MustParsePrefix("172.16.0.0/12"), "private-use"},
	{netip.MustParsePrefix("192.0.0.0/24"), "IETF protocol assignments (DS-Lite, PCP and TURN anycast, NAT64 discovery)"},
	{netip.MustParsePrefix("192.0.2.0/24"), "documentation (TEST-NET-1)"},
	{netip.MustParsePrefix("192.31.196.0/24"), "AS112-v4"},
	{netip.MustParsePrefix("192.52.193.0/24"), "AMT"},
	{netip.MustParsePrefix("192.88.99.0/24"), "deprecated 6to4 relay anycast"},
	{netip.MustParsePrefix("192.168.0.0/16"), "private-use"},
	{netip.MustParsePrefix("192.175.48.0/24"), "direct delegation AS112 service"},
	{netip.MustParsePrefix("198.18.0.0/15"), "benchmarking"},
	{netip.MustParsePrefix("198.51.100.0/24"), "documentation (TEST-NET-2)"},
	{netip.MustParsePrefix("203.0.113.0/24"), "documentation (TEST-NET-3)"},
	{netip.MustParsePrefix("224.0.0.0/4"), "multicast"},
	{netip.MustParsePrefix("240.0.0.0/4"), "reserved (and the limited broadcast 255.255.255.255)"},
	{netip.MustParsePrefix("::/96"), "unspecified, loopback and IPv4-compatible (deprecated)"},
	{netip.MustParsePrefix("::ffff:0:0:0/96"), "IPv4-translated"},
	{netip.MustParsePrefix("64:ff9b::/96"), "IPv4-IPv6 translation (NAT64: would reach any IPv4 address)"},
	{netip.MustParsePrefix("64:ff9b:1::/48"), "local-use IPv4/IPv6 translation"},
	{netip.MustParsePrefix("100::/64"), "discard-only"},
	{netip.MustParsePrefix("100:0:0:1::/64"), "dummy IPv6 prefix"},
	{netip.MustParsePrefix("2001::/23"), "IETF protocol assignments (Teredo, PCP, TURN, benchmarking, AMT, AS112, ORCHID, drone remote ID)"},
	{netip.MustParsePrefix("2001:db8::/32"), "documentation"},
	{netip.MustParsePrefix("2002::/16"), "6to4 (embeds an IPv4 address)"},
	{netip.MustParsePrefix("2620:4f:8000::/48"), "direct delegation AS112 service"},
	{netip.MustParsePrefix("3fff::/20"), "documentation"},
	{netip.MustParsePrefix("5f00::/16"), "segment routing (SRv6) SIDs"},
	{netip.MustParsePrefix("fc00::/7"), "unique-local"},
	{netip.MustParsePrefix("fe80::/10"), "link-local unicast"},
	{netip.MustParsePrefix("fec0::/10"), "site-local (deprecated)"},
	{netip.MustParsePrefix("ff00::/8"), "multicast"},
}

// globalUnicast6 is the only IPv6 range IANA allocates as global unicast.
var globalUnicast6 = netip.MustParsePrefix("2000::/3")

// Allowed reports whether the client connects to a: a public unicast address, or loopback with
// AllowLoopback. It refuses every range of Special, and any IPv6 address outside 2000::/3.
func (c *Client) Allowed(a netip.Addr) bool {
	if !a.IsValid() || a.Zone() != "" {
		return false
	}
	a = a.Unmap()
	if a.IsLoopback() {
		return c.cfg.AllowLoopback
	}
	if a.Is6() && !globalUnicast6.Contains(a) {
		return false
	}
	for _, r := range Special {
		if r.Prefix.Contains(a) {
			return false
		}
	}
	return true
}
