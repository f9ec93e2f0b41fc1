package httpapi

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/uptrace/bunrouter"

	"github.com/curvekit/curvekit"
	"github.com/curvekit/curvekit/auth"
)

// Authenticator resolves a request's credentials to a principal (auth.Service implements it). It
// never refuses a request itself: Refused says a credential was presented and failed.
type Authenticator interface {
	Authenticate(ctx context.Context, creds auth.Credentials) (*auth.Principal, auth.Outcome, error)
}

// Holder ends what a credential opened when the credential ends (auth.Service implements it):
// the context it gives ends once the principal's session or key no longer authenticates (a
// logout, a revocation on any replica, the session's expiry). Event streams, the streamed agent
// turn and guarded mounts run under it.
type Holder interface {
	Hold(ctx context.Context, p *auth.Principal) (held context.Context, release context.CancelFunc)
}

// hold binds ctx to the credential of the principal it carries, if any (Config.Holder); release
// lets go of it when the answer ends.
func (s *Server) hold(ctx context.Context) (held context.Context, release context.CancelFunc) {
	p, _ := ctx.Value(principalKey{}).(*auth.Principal)
	if p == nil || s.cfg.Holder == nil {
		return ctx, func() {}
	}
	return s.cfg.Holder.Hold(ctx, p)
}

// Cookie names. svc_session is SPEC 3.3's; svc_signin binds a sign-in under way to the browser
// that began it, so that nobody can make a victim complete the attacker's sign-in.
const (
	sessionCookie = "svc_session"
	signInCookie  = "svc_signin"
)

type principalKey struct{}

// principalOf returns the request's principal, nil for an anonymous request.
func principalOf(req bunrouter.Request) *auth.Principal {
	p, _ := req.Context().Value(principalKey{}).(*auth.Principal)
	return p
}

// credentials reads the session cookie and the API key of r, and names the header the key came
// in. A route that takes bearer tokens (remote MCP, whose clients send the key there) also reads
// Authorization: Bearer when X-API-Key is absent.
func credentials(r *http.Request, bearer bool) (auth.Credentials, string) {
	c, header := auth.Credentials{APIKey: firstValue(r.Header, "X-Api-Key")}, "X-API-Key"
	if c.APIKey == "" && bearer {
		if v, ok := strings.CutPrefix(firstValue(r.Header, "Authorization"), "Bearer "); ok {
			c.APIKey, header = strings.TrimSpace(v), "Authorization"
		}
	}
	if ck, err := r.Cookie(sessionCookie); err == nil {
		c.SessionToken = ck.Value
	}
	if c.APIKey == "" {
		header = "the " + sessionCookie + " cookie"
	}
	return c, header
}

// firstValue is h.Get(key) for a key already in canonical form (net/http canonicalizes what it
// reads), without canonicalizing it again on every request.
func firstValue(h http.Header, key string) string {
	if v := h[key]; len(v) > 0 {
		return v[0]
	}
	return ""
}

// authenticate resolves the principal of r. A store failure leaves the request anonymous: a
// guarded route then answers 401, a public one still works.
func (s *Server) authenticate(r *http.Request, rt *route) (*auth.Principal, auth.Outcome) {
	creds, _ := credentials(r, rt.bearer)
	if s.cfg.Auth == nil || (creds.APIKey == "" && creds.SessionToken == "") {
		if creds.APIKey != "" || creds.SessionToken != "" {
			return nil, auth.Refused
		}
		return nil, auth.NoCredential
	}
	p, outcome, err := s.cfg.Auth.Authenticate(r.Context(), creds)
	if err != nil {
		s.log.ErrorContext(r.Context(), "httpapi: authenticate", slog.Any("error", err))
		return nil, auth.Refused
	}
	return p, outcome
}

// limitSubject is who a call of class counts against: the key for a key (each key its own
// budget), the account for the classes SPEC 8 counts per account and for sessions, else ""
// (the client IP). Ids are hashed: a limiter key never carries an identifier in clear.
func limitSubject(p *auth.Principal, class auth.Class) string {
	switch {
	case p == nil, class == auth.ClassSignIn:
		// Sign-ins are counted per client IP whoever asks (SPEC 8).
		return ""
	case p.Kind == auth.KindKey && !class.Arms() && class != auth.ClassKeyExport:
		return "key:" + shortHash(p.KeyID)
	}
	return "acct:" + shortHash(p.AccountID)
}

// security logs a security event (a refused credential or request, a failed sign-in, a key
// created or revoked, a private key exported) so that an operator can see an attack. It carries
// ids, the client address and the route, never a credential: ids of keys and accounts are not
// secrets, raw keys, tokens, cookies and codes never reach it.
func (s *Server) security(r *http.Request, level slog.Level, event string, p *auth.Principal, attrs ...slog.Attr) {
	attrs = append(attrs, slog.String("event", event), slog.String("ip", clientIP(r, s.cfg.TrustedProxies).String()),
		slog.String("route", r.Method+" "+strconv.Quote(r.URL.Path)))
	if p != nil {
		attrs = append(attrs, slog.String("account", p.AccountID), slog.String("credential", string(p.Kind)))
		if p.KeyID != "" {
			attrs = append(attrs, slog.String("key_id", p.KeyID))
		}
	}
	s.log.LogAttrs(r.Context(), level, "security: "+event, attrs...)
}

func shortHash(id string) string {
	sum := sha256.Sum256([]byte(id))
	return hex.EncodeToString(sum[:16])
}

// authorize applies the route's access rule and the key's restrictions: 401 without a principal
// on a guarded route, 403 for a credential of the wrong kind, a key used from outside its
// allowedIps (on any route, public ones included), and a read-only key on a signing route,
// before any handler runs.
func (s *Server) authorize(r *http.Request, rt *route, p *auth.Principal) error {
	if p != nil && p.Kind == auth.KindKey && !p.AllowsIP(clientIP(r, s.cfg.TrustedProxies)) {
		return curvekit.WithCode(curvekit.CodeIPNotAllowed, fmt.Errorf("%w: this API key may not be used from this address", curvekit.ErrForbidden))
	}
	switch rt.access {
	case Public:
		return nil
	case Key:
		if p == nil && rt.bearer {
			return fmt.Errorf("%w: this route needs an API key in X-API-Key or Authorization: Bearer", curvekit.ErrUnauthorized)
		}
		if p == nil {
			return fmt.Errorf("%w: this route needs an API key in X-API-Key", curvekit.ErrUnauthorized)
		}
		if p.Kind != auth.KindKey {
			return fmt.Errorf("%w: this route takes an API key (X-API-Key), not a session", curvekit.ErrForbidden)
		}
	case Session:
		if p == nil {
			return fmt.Errorf("%w: sign in first: this route needs a session", curvekit.ErrUnauthorized)
		}
		if p.Kind != auth.KindSession {
			return fmt.Errorf("%w: this route needs a signed-in session; an API key cannot use it", curvekit.ErrForbidden)
		}
	case SessionOrKey:
		if p == nil {
			return fmt.Errorf("%w: this route needs a session or an API key in X-API-Key", curvekit.ErrUnauthorized)
		}
	}
	if rt.class.Arms() && p.ReadOnly {
		return curvekit.WithCode(curvekit.CodeReadOnlyKey, fmt.Errorf("%w: this API key is read-only and cannot sign", curvekit.ErrForbidden))
	}
	return nil
}

// authRoutes are the session and API-key endpoints (SPEC 4.1, 4.2), routed when the server has
// Accounts.
func (s *Server) authRoutes() []group {
	if s.cfg.Accounts == nil {
		return nil
	}
	return []group{
		{prefix: "/auth", routes: []route{
			{method: http.MethodGet, path: "/login", access: Public, class: auth.ClassSignIn, handle: s.login},
			// The callback is not a second sign-in: counting it in the sign-in class would halve
			// SPEC 8's ten sign-ins. Its single-use, 256-bit state needs no tighter limit.
			{method: http.MethodGet, path: "/callback", access: Public, class: auth.ClassDefault, handle: s.callback},
			{method: http.MethodGet, path: "/me", access: Session, class: auth.ClassDefault, handle: s.me},
			{method: http.MethodGet, path: "/session", access: Public, class: auth.ClassDefault, handle: s.session},
			{method: http.MethodGet, path: "/logout", access: Session, class: auth.ClassDefault, handle: s.logout},
			{method: http.MethodGet, path: "/user/:wallet", access: Public, class: auth.ClassExempt, handle: s.profile, notFound: "user not found"},
		}},
		{prefix: "/api-keys", routes: []route{
			{method: http.MethodPost, path: "", access: Session, class: auth.ClassDefault, handle: s.createKey},
			{method: http.MethodGet, path: "", access: Session, class: auth.ClassDefault, handle: s.listKeys},
			{method: http.MethodDelete, path: "/:id", access: Session, class: auth.ClassDefault, handle: s.revokeKey, notFound: "API key not found"},
		}},
	}
}

// otherHost says, when r came to another host than the public URL's, which URL to sign in at.
func (s *Server) otherHost(r *http.Request) error {
	u, err := url.Parse(s.cfg.PublicURL)
	if s.cfg.PublicURL == "" || err != nil || strings.EqualFold(u.Host, r.Host) {
		return nil
	}
	return invalid("this server's public URL is %s, and a sign-in begun at %s could not finish there (the browser keeps the sign-in cookie per host): sign in at %s/auth/login",
		u.Scheme+"://"+u.Host, r.Host, strings.TrimRight(s.cfg.PublicURL, "/"))
}

// GET /auth/login?returnTo=&login_hint=
func (s *Server) login(w http.ResponseWriter, req bunrouter.Request) error {
	if err := s.otherHost(req.Request); err != nil {
		return err
	}
	q := newQuery(req.URL)
	params := auth.BeginParams{ReturnTo: q.str("returnTo", "/"), LoginHint: q.str("login_hint", "")}
	if err := q.err(); err != nil {
		return err
	}
	start, err := s.cfg.Accounts.Begin(req.Context(), params)
	if err != nil {
		return err
	}
	http.SetCookie(w, s.cookie(req.Request, signInCookie, start.Binding, "/auth", time.Until(start.ExpiresAt)))
	w.Header().Set("Cache-Control", "no-store")
	return redirect(w, start.URL)
}

// GET /auth/callback?state=&code= (the provider's redirect)
func (s *Server) callback(w http.ResponseWriter, req bunrouter.Request) error {
	q := newQuery(req.URL)
	params := auth.CompleteParams{State: q.str("state", ""), Code: q.str("code", "")}
	if e := q.str("error", ""); e != "" {
		q.fail("the identity provider refused the sign-in (%s): sign in again", url.QueryEscape(e))
	}
	if err := q.err(); err != nil {
		return err
	}
	if ck, err := req.Cookie(signInCookie); err == nil {
		params.Binding = ck.Value
	}
	if ck, err := req.Cookie(sessionCookie); err == nil {
		params.PreviousSession = ck.Value
	}
	// The sign-in cookie has done its work, whatever the outcome.
	http.SetCookie(w, s.cookie(req.Request, signInCookie, "", "/auth", -1))
	in, err := s.cfg.Accounts.Complete(req.Context(), params)
	if err != nil && params.Binding == "" {
		if hostErr := s.otherHost(req.Request); hostErr != nil {
			err = hostErr
		}
	}
	if err != nil {
		s.security(req.Request, slog.LevelWarn, "sign-in failed", nil, slog.String("reason", clientMessage(err)))
		return err
	}
	s.security(req.Request, slog.LevelInfo, "signed in", nil, slog.String("wallet", in.User.Wallet.Hex()), slog.Bool("first", in.FirstSignIn))
	http.SetCookie(w, s.cookie(req.Request, sessionCookie, in.Token, "/", auth.SessionLifetime))
	w.Header().Set("Cache-Control", "no-store")
	return redirect(w, in.ReturnTo)
}

// cookie is an HttpOnly, SameSite=Lax cookie (Strict would drop the session on the redirect back
// from the provider), Secure when the request came over https. A negative maxAge deletes it.
func (s *Server) cookie(r *http.Request, name, value, path string, maxAge time.Duration) *http.Cookie {
	c := &http.Cookie{
		Name: name, Value: value, Path: path, HttpOnly: true, SameSite: http.SameSiteLaxMode,
		Secure: s.cfg.SecureCookies || r.TLS != nil,
	}
	if maxAge < 0 {
		c.MaxAge, c.Value = -1, ""
	} else {
		c.MaxAge = int(maxAge / time.Second)
	}
	return c
}

type userJSON struct {
	Wallet string `json:"wallet"`
	Handle string `json:"handle"`
	Pfp    string `json:"pfp"`
	Tier   string `json:"tier"`
}

type sessionJSON struct {
	User *userJSON `json:"user"`
	// SignedInAt is when the session's sign-in happened (export-key wants a recent one).
	SignedInAt *int64 `json:"signedInAt,omitempty"`
}

func sessionOf(p *auth.Principal) sessionJSON {
	if p == nil || p.Kind != auth.KindSession {
		return sessionJSON{}
	}
	at := p.SignedInAt.Unix()
	return sessionJSON{
		User:       &userJSON{Wallet: p.Wallet.Hex(), Handle: p.Handle, Pfp: p.Picture, Tier: string(p.Tier)},
		SignedInAt: &at,
	}
}

// GET /auth/me: the signed-in user; 401 otherwise (the route's access).
func (s *Server) me(w http.ResponseWriter, req bunrouter.Request) error {
	w.Header().Set("Cache-Control", "no-store")
	return writeJSON(w, http.StatusOK, sessionOf(principalOf(req)))
}

// GET /auth/session: as /auth/me, with user null for visitors.
func (s *Server) session(w http.ResponseWriter, req bunrouter.Request) error {
	w.Header().Set("Cache-Control", "no-store")
	return writeJSON(w, http.StatusOK, sessionOf(principalOf(req)))
}

// GET /auth/logout: ends the session server-side and clears the cookie.
//
// It is a GET (SPEC 4.1), so the pipeline's cross-origin check, which spares safe methods, does
// not cover it, and SameSite=Lax sends the cookie along a link from another site: a page
// elsewhere could log people out. A browser marks such a navigation Sec-Fetch-Site: cross-site
// (or same-site, from a sibling subdomain); only our own pages and typed URLs may log out.
func (s *Server) logout(w http.ResponseWriter, req bunrouter.Request) error {
	if site := req.Header.Get("Sec-Fetch-Site"); site != "" && site != "same-origin" && site != "none" {
		return fmt.Errorf("%w: cross-origin request refused", curvekit.ErrForbidden)
	}
	if err := s.cfg.Accounts.Logout(req.Context(), principalOf(req)); err != nil {
		return err
	}
	http.SetCookie(w, s.cookie(req.Request, sessionCookie, "", "/", -1))
	w.Header().Set("Cache-Control", "no-store")
	return writeJSON(w, http.StatusOK, loggedOutJSON{LoggedOut: true})
}

type loggedOutJSON struct {
	LoggedOut bool `json:"loggedOut"`
}

type profileJSON struct {
	Wallet   string `json:"wallet"`
	Handle   string `json:"handle"`
	Pfp      string `json:"pfp"`
	JoinedAt int64  `json:"joinedAt"`
}

// GET /auth/user/:wallet: a public profile.
func (s *Server) profile(w http.ResponseWriter, req bunrouter.Request) error {
	wallet, err := pathAddress(req, "wallet", "wallet")
	if err != nil {
		return err
	}
	p, err := s.cfg.Accounts.Profile(req.Context(), wallet)
	if errors.Is(err, curvekit.ErrNotFound) {
		return fmt.Errorf("%w: user not found", curvekit.ErrNotFound)
	}
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, profileJSON{Wallet: p.Wallet.Hex(), Handle: p.Handle, Pfp: p.Picture, JoinedAt: p.JoinedAt.Unix()})
}

// keyBody is the body of POST /api-keys (SPEC 2.3); every field is optional.
type keyBody struct {
	Name              string   `json:"name"`
	ReadOnly          bool     `json:"readOnly"`
	AllowedIPs        []string `json:"allowedIps"`
	AllowedRecipients []string `json:"allowedRecipients"`
}

type keyJSON struct {
	ID                string   `json:"id"`
	Name              string   `json:"name"`
	Hint              string   `json:"hint"`
	ReadOnly          bool     `json:"readOnly"`
	AllowedIPs        []string `json:"allowedIps"`
	AllowedRecipients []string `json:"allowedRecipients"`
	CreatedAt         int64    `json:"createdAt"`
	LastUsedAt        *int64   `json:"lastUsedAt"`
	RevokedAt         *int64   `json:"revokedAt"`
}

type keyListJSON struct {
	Keys []keyJSON `json:"keys"`
}

type keyRevokedJSON struct {
	ID      string `json:"id"`
	Revoked bool   `json:"revoked"`
}

type newKeyJSON struct {
	keyJSON
	// Key is the raw key, in this response only.
	Key string `json:"key"`
}

func keyOf(k *auth.Key) keyJSON {
	out := keyJSON{
		ID: k.ID, Name: k.Name, Hint: k.Hint, ReadOnly: k.ReadOnly, CreatedAt: k.CreatedAt.Unix(),
		AllowedIPs: make([]string, len(k.AllowedIPs)), AllowedRecipients: make([]string, len(k.AllowedRecipients)),
		LastUsedAt: unixOrNull(k.LastUsedAt), RevokedAt: unixOrNull(k.RevokedAt),
	}
	for i, p := range k.AllowedIPs {
		out.AllowedIPs[i] = auth.FormatAllowedIP(p)
	}
	for i, a := range k.AllowedRecipients {
		out.AllowedRecipients[i] = a.Hex()
	}
	return out
}

func unixOrNull(t time.Time) *int64 {
	if t.IsZero() {
		return nil
	}
	u := t.Unix()
	return &u
}

// POST /api-keys
func (s *Server) createKey(w http.ResponseWriter, req bunrouter.Request) error {
	var body keyBody
	if err := decodeJSON(w, req.Request, &body); err != nil {
		return err
	}
	nk, err := s.cfg.Accounts.CreateKey(req.Context(), principalOf(req), auth.KeyRequest{
		Name: body.Name, ReadOnly: body.ReadOnly, AllowedIPs: body.AllowedIPs, AllowedRecipients: body.AllowedRecipients,
	})
	if err != nil {
		return err
	}
	s.security(req.Request, slog.LevelInfo, "API key created", principalOf(req), slog.String("new_key_id", nk.Key.ID),
		slog.Bool("read_only", nk.Key.ReadOnly), slog.Int("allowed_ips", len(nk.Key.AllowedIPs)), slog.Int("allowed_recipients", len(nk.Key.AllowedRecipients)))
	// The raw key is in this response only: no cache may keep it.
	w.Header().Set("Cache-Control", "no-store")
	return writeJSON(w, http.StatusCreated, newKeyJSON{keyJSON: keyOf(&nk.Key), Key: nk.Raw})
}

// GET /api-keys
func (s *Server) listKeys(w http.ResponseWriter, req bunrouter.Request) error {
	keys, err := s.cfg.Accounts.Keys(req.Context(), principalOf(req))
	if err != nil {
		return err
	}
	out := keyListJSON{Keys: make([]keyJSON, len(keys))}
	for i := range keys {
		out.Keys[i] = keyOf(&keys[i])
	}
	w.Header().Set("Cache-Control", "no-store")
	return writeJSON(w, http.StatusOK, out)
}

// DELETE /api-keys/:id
func (s *Server) revokeKey(w http.ResponseWriter, req bunrouter.Request) error {
	id := req.Param("id")
	if err := s.cfg.Accounts.RevokeKey(req.Context(), principalOf(req), id); err != nil {
		return err
	}
	s.security(req.Request, slog.LevelInfo, "API key revoked", principalOf(req), slog.String("revoked_key_id", id))
	return writeJSON(w, http.StatusOK, keyRevokedJSON{ID: id, Revoked: true})
}

// redirect answers 302 to location with a JSON body, as every answer of the API is JSON.
func redirect(w http.ResponseWriter, location string) error {
	return redirectStatus(w, http.StatusFound, location)
}

func redirectStatus(w http.ResponseWriter, status int, location string) error {
	w.Header().Set("Location", location)
	return writeJSON(w, status, redirectJSON{Location: location})
}

// redirectJSON is the body of a redirect.
type redirectJSON struct {
	Location string `json:"location"`
}
