package httpapi

import (
	"context"
	"net/http"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/uptrace/bunrouter"

	"github.com/curvekit/curvekit/auth"
)

// oneAccount authenticates an account's session and three of its keys: read-write, read-only,
// and one pinned to an address range the test client is not in.
type oneAccount map[string]*auth.Principal

func (o oneAccount) Authenticate(_ context.Context, c auth.Credentials) (*auth.Principal, auth.Outcome, error) {
	cred := c.APIKey
	if cred == "" {
		cred = c.SessionToken
	}
	if cred == "" {
		return nil, auth.NoCredential, nil
	}
	if p, ok := o[cred]; ok {
		cp := *p
		return &cp, auth.Authenticated, nil
	}
	return nil, auth.Refused, nil
}

// A leaked restricted key cannot lock its owner out: requests refused before their handler
// (a key outside its allowedIps, a read-only key on the export route, a key on a session-only
// route) count in the refusal class of the key and the client IP, never in the account's
// signing or export budget.
func TestRefusalsSpendNoBudgetOfTheOwner(t *testing.T) {
	t.Parallel()
	ok := func(w http.ResponseWriter, _ bunrouter.Request) error {
		return writeJSON(w, http.StatusOK, map[string]bool{"ok": true})
	}
	wallet := common.HexToAddress("0x00000000000000000000000000000000000000aa")
	base := auth.Principal{AccountID: "acct-owner", Wallet: wallet, Kind: auth.KindKey}
	rw, ro, pinned := base, base, base
	rw.KeyID, ro.KeyID, pinned.KeyID = "key-rw", "key-ro", "key-pinned"
	ro.ReadOnly = true
	pinned.AllowedIPs = []netip.Prefix{netip.MustParsePrefix("203.0.113.0/24")}
	session := base
	session.Kind, session.SessionID, session.SignedInAt = auth.KindSession, "sess-1", time.Unix(now, 0)
	const (
		keyRW, keyRO, keyPinned = "svc_" + "a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1", "svc_" + "b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2", "svc_" + "c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3"
		sessionToken            = "svc_" + "d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4d4"
	)
	e := newEnv(t, envOptions{
		policy: auth.DefaultPolicy(auth.Every(1000, time.Hour)),
		auth:   oneAccount{keyRW: &rw, keyRO: &ro, keyPinned: &pinned, sessionToken: &session},
		extra: []group{{prefix: "/test", routes: []route{
			{method: http.MethodPost, path: "/sign", access: SessionOrKey, class: auth.ClassSigning, handle: ok},
			{method: http.MethodPost, path: "/export", access: Session, class: auth.ClassKeyExport, handle: ok},
		}}},
	})
	cookie := "svc_session=" + sessionToken
	forbiddenIP := `{"statusCode": 403, "message": "this API key may not be used from this address", "code": "IP_NOT_ALLOWED"}`

	// A read-only key asking to export: refused, and the export budget (3 an hour) is untouched.
	for range 5 {
		r := e.do(t, http.MethodPost, "/test/export", "{}", "X-API-Key", keyRO)
		if r.status != http.StatusForbidden {
			t.Fatalf("read-only key on export: %d %s", r.status, r.body)
		}
	}
	// The pinned key, from the wrong address: refused until the refusal bucket of the client IP
	// (30, five of them spent above) is empty, then throttled.
	for i := range 40 {
		r := e.do(t, http.MethodPost, "/test/sign", "{}", "X-API-Key", keyPinned)
		if i < 25 {
			r.want(t, http.StatusForbidden, forbiddenIP)
		} else {
			r.want(t, http.StatusTooManyRequests, throttled)
		}
	}
	// The owner's read-write key and session still have the whole signing budget (30 a minute)
	// and the whole export budget.
	for i := range 30 {
		header := []string{"X-API-Key", keyRW}
		if i%2 == 1 {
			header = []string{"Cookie", cookie, "Sec-Fetch-Site", "same-origin"}
		}
		e.do(t, http.MethodPost, "/test/sign", "{}", header...).want(t, http.StatusOK, `{"ok": true}`)
	}
	e.do(t, http.MethodPost, "/test/sign", "{}", "X-API-Key", keyRW).want(t, http.StatusTooManyRequests, throttled)
	for range 3 {
		e.do(t, http.MethodPost, "/test/export", "{}", "Cookie", cookie, "Sec-Fetch-Site", "same-origin").want(t, http.StatusOK, `{"ok": true}`)
	}

	for _, k := range e.limiter.seen() {
		if strings.HasPrefix(k, "signing:") || strings.HasPrefix(k, "key-export:") {
			continue
		}
		if !strings.HasPrefix(k, "refused:") {
			t.Errorf("unexpected limiter key %q", k)
		}
	}
}
