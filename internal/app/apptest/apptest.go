// Package apptest starts the reference server for tests of the module's binaries and surfaces: the
// whole wiring of internal/app on an in-process devnet and a SQLite file of the test's own, served
// on a loopback socket, with a signer that counts what reaches it and, in a test (not in a
// benchmark), every exchange checked against the server's OpenAPI document (internal/openapitest).
package apptest

import (
	"context"
	"crypto/ecdsa"
	"log/slog"
	"net"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/ethereum/go-ethereum/core/types"

	"github.com/curvekit/curvekit/internal/app"
	"github.com/curvekit/curvekit/internal/openapitest"
	"github.com/curvekit/curvekit/wallet"
)

// CountingSigner signs as the wallet's default signer does and counts its calls: the proof that a
// path never reaches the custodial signer (SPEC 5 rules 4 and 9).
type CountingSigner struct{ calls atomic.Int64 }

// SignTx implements wallet.Signer.
func (c *CountingSigner) SignTx(ctx context.Context, tx *types.Transaction, key *ecdsa.PrivateKey) (*types.Transaction, error) {
	c.calls.Add(1)
	return wallet.ECDSASigner{}.SignTx(ctx, tx, key)
}

// Calls is how many transactions the signer signed.
func (c *CountingSigner) Calls() int64 { return c.calls.Load() }

// Server is a running reference server.
type Server struct {
	App *app.App
	// Base is the server's URL, "http://127.0.0.1:port".
	Base   string
	Signer *CountingSigner
	// OpenAPI checks every request and answer against the server's OpenAPI document; its
	// failures fail the test.
	OpenAPI *openapitest.Checker
}

// Start serves the reference server until the test ends. It listens first, so the server's own
// URL (sign-in redirects, the development identity provider) names the real port; flags come
// after the defaults (a test database, no simulated trades, a fast poll, and unless flags set
// them no practical rate limit and a devnet that seals each transaction at once), and the
// devnet's demo launches are indexed before it returns.
func Start(t testing.TB, flags []string, opts ...app.Option) *Server {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	args := append([]string{"--db", filepath.Join(t.TempDir(), "server.db"), "--addr", ln.Addr().String(),
		"--simulate", "0", "--poll", "20ms"}, flags...)
	for _, d := range [][2]string{{"--rate-limit", "100000000"}, {"--devnet-blocks", "instant"}} {
		if !slices.ContainsFunc(flags, func(f string) bool { return f == d[0] || strings.HasPrefix(f, d[0]+"=") }) {
			args = append(args, d[0], d[1])
		}
	}
	cfg, err := app.ParseConfig(args)
	if err != nil {
		t.Fatal(err)
	}
	signer := &CountingSigner{}
	ctx, cancel := context.WithCancel(context.Background())
	// Every exchange of a test is checked against the server's own OpenAPI document; a
	// benchmark measures the server alone.
	var checker *openapitest.Checker
	all := []app.Option{app.WithSigner(signer)}
	_, bench := t.(*testing.B)
	if !bench {
		all = append(all, app.WithMiddleware(func(h http.Handler) http.Handler { return checker.Wrap(h) }))
	}
	a, err := app.New(ctx, cfg, slog.New(slog.DiscardHandler), append(all, opts...)...)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	if !bench {
		checker = openapitest.New(t, a.API.OpenAPI())
	}
	if err := a.Replica.Sync(ctx); err != nil {
		cancel()
		a.Close()
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- a.Serve(ctx, ln) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
		a.Close()
	})
	return &Server{App: a, Base: "http://" + ln.Addr().String(), Signer: signer, OpenAPI: checker}
}
