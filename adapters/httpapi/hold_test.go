package httpapi

import (
	"context"
	"errors"
	"io"
	"net/http"
	"path/filepath"
	"testing"
	"time"

	"github.com/curvekit/curvekit/adapters/bunstore"
	"github.com/curvekit/curvekit/auth"
	"github.com/curvekit/curvekit/auth/authtest"
)

// realAuth is auth.Service on bunstore (a SQLite file of the test's own), with a session of one
// signed-in account.
type realAuth struct {
	svc     *auth.Service
	db      *bunstore.DB
	session *auth.Principal
	cfg     auth.Config
}

func newRealAuth(t *testing.T) *realAuth {
	t.Helper()
	db, err := bunstore.Open(context.Background(), bunstore.Config{DSN: filepath.Join(t.TempDir(), "auth.db")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	provider := &authtest.Provider{}
	cfg := auth.Config{Accounts: db.Accounts(), Provider: provider, Wallets: &authtest.Wallets{}}
	svc, err := auth.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	in := authtest.SignIn(t, svc, provider, auth.Identity{Provider: "test", Subject: "holder", Handle: "holder"})
	return &realAuth{svc: svc, db: db, session: authtest.SessionPrincipal(t, svc, in.Token), cfg: cfg}
}

// replica is another auth.Service on the same store, as another server process has.
func (a *realAuth) replica(t *testing.T) *auth.Service {
	t.Helper()
	svc, err := auth.New(a.cfg)
	if err != nil {
		t.Fatal(err)
	}
	return svc
}

func (a *realAuth) key(t *testing.T, name string) auth.NewKey {
	t.Helper()
	nk, err := a.svc.CreateKey(context.Background(), a.session, auth.KeyRequest{Name: name})
	if err != nil {
		t.Fatal(err)
	}
	return nk
}

// A guarded mount (remote MCP's kind) answers under a context that ends when the key that opened
// the request is revoked, here by another replica: the handler returns, the answer ends, and the
// next request with the key is refused.
func TestGuardedMountEndsWithItsKey(t *testing.T) {
	t.Parallel()
	a := newRealAuth(t)
	causes := make(chan error, 2)
	held := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		_ = http.NewResponseController(w).Flush()
		<-r.Context().Done()
		causes <- context.Cause(r.Context())
	})
	e := newEnv(t, envOptions{auth: a.svc, mounts: []Mount{{Methods: []string{http.MethodGet}, Path: "/held", Access: Key, Class: auth.ClassDefault,
		Bearer: true, Handler: held, Doc: MountDoc{ID: "held", Summary: "held open", Produces: []string{"text/event-stream"}}}}})
	revoked, kept := a.key(t, "revoked"), a.key(t, "kept")
	open := func(key string) *http.Response {
		t.Helper()
		req, _ := http.NewRequest(http.MethodGet, e.srv.URL+"/held", nil)
		req.Header.Set("Authorization", "Bearer "+key)
		resp, err := e.srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("GET /held: %d", resp.StatusCode)
		}
		t.Cleanup(func() { resp.Body.Close() })
		return resp
	}
	onRevoked, onKept := open(revoked.Raw), open(kept.Raw)
	if err := a.replica(t).RevokeKey(context.Background(), a.session, revoked.Key.ID); err != nil {
		t.Fatal(err)
	}
	select {
	case cause := <-causes:
		if !errors.Is(cause, auth.ErrCredentialEnded) {
			t.Fatalf("the mounted handler's context ended with %v", cause)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the mounted handler still runs 10s after its key was revoked")
	}
	if _, err := io.ReadAll(onRevoked.Body); err != nil {
		t.Fatalf("the revoked key's answer: %v", err)
	}
	select {
	case cause := <-causes:
		t.Fatalf("the other key's request ended too (%v)", cause)
	default:
	}
	onKept.Body.Close()
	r := e.get(t, "/held", "Authorization", "Bearer "+revoked.Raw)
	if r.status != http.StatusUnauthorized {
		t.Fatalf("the revoked key again: %d %s", r.status, r.body)
	}
}
