package auth_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/curvekit/curvekit/adapters/bunstore"
	"github.com/curvekit/curvekit/auth"
	"github.com/curvekit/curvekit/auth/authtest"
)

// BenchmarkAuthenticate measures one request's credential lookup on a SQLite file: the cost a
// guarded route pays over a public one, since nothing positive is cached.
func BenchmarkAuthenticate(b *testing.B) {
	ctx := context.Background()
	db, err := bunstore.Open(ctx, bunstore.Config{DSN: filepath.Join(b.TempDir(), "bench.db")})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	p := &authtest.Provider{}
	svc, err := auth.New(auth.Config{Accounts: db.Accounts(), Provider: p, Wallets: &authtest.Wallets{}})
	if err != nil {
		b.Fatal(err)
	}
	in := authtest.SignIn(b, svc, p, alice)
	nk, err := svc.CreateKey(ctx, authtest.SessionPrincipal(b, svc, in.Token), auth.KeyRequest{AllowedIPs: []string{"10.0.0.0/8"}})
	if err != nil {
		b.Fatal(err)
	}
	for name, creds := range map[string]auth.Credentials{
		"key":     {APIKey: nk.Raw},
		"session": {SessionToken: in.Token},
		"refused": {APIKey: auth.KeyPrefix + "000000000000000000000000000000000000000000000000"},
	} {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					if _, _, err := svc.Authenticate(ctx, creds); err != nil {
						b.Fatal(err)
					}
				}
			})
		})
	}
}
