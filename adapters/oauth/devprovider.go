package oauth

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"html/template"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"

	"github.com/curvekit/curvekit"
)

// DevConfig configures the development identity provider.
type DevConfig struct {
	// Issuer is the provider's public URL, all endpoints live under it
	// ("http://127.0.0.1:8080/dev-oauth"); required.
	Issuer string
	// ClientID and ClientSecret are the one registered client's credentials; defaults
	// "curvekit-dev" and "curvekit-dev-secret" (this provider protects nothing).
	ClientID, ClientSecret string
	// RedirectURL is the one registered redirect URI; required, matched exactly.
	RedirectURL string
	// CodeTTL is how long an authorization code lives; default 1 minute.
	CodeTTL time.Duration
	// TokenTTL is how long ID and access tokens live; default 5 minutes.
	TokenTTL time.Duration
	// Logger receives the start-up warning; default slog.Default().
	Logger *slog.Logger
	// Now is the clock; default time.Now.
	Now func() time.Time
}

func (c *DevConfig) defaults() {
	c.Issuer = strings.TrimSuffix(c.Issuer, "/")
	if c.ClientID == "" {
		c.ClientID = "curvekit-dev"
	}
	if c.ClientSecret == "" {
		c.ClientSecret = "curvekit-dev-secret"
	}
	if c.CodeTTL <= 0 {
		c.CodeTTL = time.Minute
	}
	if c.TokenTTL <= 0 {
		c.TokenTTL = 5 * time.Minute
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	if c.Now == nil {
		c.Now = time.Now
	}
}

func (c *DevConfig) validate() error {
	iss, err := url.Parse(c.Issuer)
	if err != nil || (iss.Scheme != "http" && iss.Scheme != "https") || iss.Host == "" || iss.RawQuery != "" || iss.Fragment != "" {
		return fmt.Errorf("oauth: the development provider needs an http(s) issuer URL: %w", curvekit.ErrInvalid)
	}
	if ru, err := url.Parse(c.RedirectURL); err != nil || ru.Host == "" || ru.Fragment != "" {
		return fmt.Errorf("oauth: the development provider needs an absolute redirect URL: %w", curvekit.ErrInvalid)
	}
	return nil
}

// DevProvider is an OAuth 2.0 / OpenID Connect authorization server for development: it
// signs in whatever handle it is given (login_hint, or the one field of its form). It speaks
// the real protocol (discovery, JWKS, authorization code with PKCE S256, ES256 ID tokens,
// userinfo) so that sign-in runs through the same OIDC adapter as in production.
type DevProvider struct {
	cfg    DevConfig
	prefix string // the issuer's path, trimmed from requests that still carry it
	// clientOrigin is the redirect URL's origin: where the form's post goes on to.
	clientOrigin string
	key          *ecdsa.PrivateKey
	kid          string

	mu     sync.Mutex
	codes  map[string]devCode
	tokens map[string]devToken
}

type devCode struct {
	handle, challenge, nonce string
	expires                  time.Time
}

type devToken struct {
	handle  string
	expires time.Time
}

// maxOutstanding bounds the codes and the tokens held in memory; a flood of sign-ins is
// refused rather than grow the process without limit.
const maxOutstanding = 10000

// handlePattern is what the development provider accepts as a handle.
var handlePattern = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,32}$`)

// NewDevProvider makes the provider with a fresh signing key (tokens from an earlier run do not
// verify) and logs a warning: anyone who reaches it can sign in as anyone.
func NewDevProvider(cfg DevConfig) (*DevProvider, error) {
	cfg.defaults()
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("oauth: signing key: %w", err)
	}
	iss, _ := url.Parse(cfg.Issuer)
	ru, _ := url.Parse(cfg.RedirectURL) // both validated
	cfg.Logger.Warn("development identity provider enabled: anyone who reaches it signs in as any handle; configure a real provider for production", "issuer", cfg.Issuer)
	return &DevProvider{
		cfg: cfg, prefix: strings.TrimSuffix(iss.Path, "/"), clientOrigin: ru.Scheme + "://" + ru.Host, key: key, kid: randomHex(8),
		codes: map[string]devCode{}, tokens: map[string]devToken{},
	}, nil
}

// ClientID and ClientSecret are the credentials the OIDC adapter needs to reach this provider.
func (p *DevProvider) ClientID() string     { return p.cfg.ClientID }
func (p *DevProvider) ClientSecret() string { return p.cfg.ClientSecret }

// Issuer is the issuer URL, for OIDCConfig.Issuer.
func (p *DevProvider) Issuer() string { return p.cfg.Issuer }

// Metadata is the provider's discovery document as OIDCConfig.Metadata takes it, so that a
// server hosting this provider can build its OIDC client before it listens.
func (p *DevProvider) Metadata() *oidc.ProviderConfig {
	return &oidc.ProviderConfig{
		IssuerURL: p.cfg.Issuer, AuthURL: p.cfg.Issuer + "/authorize", TokenURL: p.cfg.Issuer + "/token",
		UserInfoURL: p.cfg.Issuer + "/userinfo", JWKSURL: p.cfg.Issuer + "/jwks", Algorithms: []string{"ES256"},
	}
}

// CheckDevAddr refuses to serve the development provider on a listen address reachable from
// other machines unless allowPublic says the operator means it.
func CheckDevAddr(addr string, allowPublic bool) error {
	if allowPublic {
		return nil
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("oauth: listen address %q: %w", addr, curvekit.ErrInvalid)
	}
	if host == "localhost" {
		return nil
	}
	if ip, err := netip.ParseAddr(host); err == nil && ip.Unmap().IsLoopback() {
		return nil
	}
	return fmt.Errorf("oauth: the development identity provider signs in anyone and %q is not a loopback address; listen on 127.0.0.1 or allow a public address explicitly: %w", addr, curvekit.ErrInvalid)
}

// ServeHTTP serves the endpoints under the issuer; it answers whether or not the mount point
// stripped the issuer's path.
func (p *DevProvider) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	path := r.URL.Path
	if p.prefix != "" && strings.HasPrefix(path, p.prefix+"/") {
		path = strings.TrimPrefix(path, p.prefix)
	}
	switch {
	case path == "/.well-known/openid-configuration" && r.Method == http.MethodGet:
		p.discovery(w)
	case path == "/jwks" && r.Method == http.MethodGet:
		p.jwks(w)
	case path == "/authorize" && (r.Method == http.MethodGet || r.Method == http.MethodPost):
		p.authorize(w, r)
	case path == "/token" && r.Method == http.MethodPost:
		p.token(w, r)
	case path == "/userinfo" && (r.Method == http.MethodGet || r.Method == http.MethodPost):
		p.userinfo(w, r)
	default:
		http.NotFound(w, r)
	}
}

func (p *DevProvider) discovery(w http.ResponseWriter) {
	writeJSON(w, http.StatusOK, map[string]any{
		"issuer":                                p.cfg.Issuer,
		"authorization_endpoint":                p.cfg.Issuer + "/authorize",
		"token_endpoint":                        p.cfg.Issuer + "/token",
		"userinfo_endpoint":                     p.cfg.Issuer + "/userinfo",
		"jwks_uri":                              p.cfg.Issuer + "/jwks",
		"response_types_supported":              []string{"code"},
		"grant_types_supported":                 []string{"authorization_code"},
		"subject_types_supported":               []string{"public"},
		"id_token_signing_alg_values_supported": []string{"ES256"},
		"code_challenge_methods_supported":      []string{"S256"},
		"token_endpoint_auth_methods_supported": []string{"client_secret_basic", "client_secret_post"},
		"scopes_supported":                      []string{"openid", "profile"},
		"claims_supported":                      []string{"sub", "preferred_username", "name", "iss", "aud", "exp", "iat", "nonce"},
	})
}

func (p *DevProvider) jwks(w http.ResponseWriter) {
	pub, _ := p.key.PublicKey.Bytes() // 0x04 || X || Y
	b64 := base64.RawURLEncoding.EncodeToString
	writeJSON(w, http.StatusOK, map[string]any{"keys": []map[string]string{{
		"kty": "EC", "crv": "P-256", "use": "sig", "alg": "ES256", "kid": p.kid,
		"x": b64(pub[1:33]), "y": b64(pub[33:65]),
	}}})
}

var formPage = template.Must(template.New("form").Parse(`<!doctype html>
<html><head><meta charset="utf-8"><title>Development sign-in</title></head>
<body><h1>Development sign-in</h1>
<p>This provider signs in any handle. It is for development only.</p>
{{if .Error}}<p role="alert">{{.Error}}</p>{{end}}
{{if .Confirm}}<p role="alert">This sign-in was not started from this server's own page. Sign in only if you meant to.</p>{{end}}
<form method="post" action="{{.Action}}">
{{range $k, $v := .Hidden}}<input type="hidden" name="{{$k}}" value="{{$v}}">
{{end}}<label>Handle <input name="login_hint" value="{{.Handle}}" required pattern="[A-Za-z0-9_.\-]{1,32}" autofocus></label>
<button type="submit">{{if .Confirm}}Sign in as this handle{{else}}Sign in{{end}}</button>
</form></body></html>
`))

// authorize validates the client and redirect URI before anything else: an error about
// either is shown here and never redirected, so the provider cannot be used as an open
// redirector.
func (p *DevProvider) authorize(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		devError(w, http.StatusBadRequest, "malformed request")
		return
	}
	q := r.Form
	if q.Get("client_id") != p.cfg.ClientID {
		devError(w, http.StatusBadRequest, "unknown client_id")
		return
	}
	if q.Get("redirect_uri") != p.cfg.RedirectURL {
		devError(w, http.StatusBadRequest, "redirect_uri is not the registered one")
		return
	}
	if q.Get("response_type") != "code" {
		p.redirectError(w, r, "unsupported_response_type", q.Get("state"))
		return
	}
	if q.Get("code_challenge_method") != "S256" || len(q.Get("code_challenge")) != 43 {
		p.redirectError(w, r, "invalid_request", q.Get("state"))
		return
	}
	handle := q.Get("login_hint")
	confirm := handle != "" && !p.startedHere(r)
	if handle == "" || !handlePattern.MatchString(handle) || confirm {
		hidden := map[string]string{}
		for _, k := range []string{"client_id", "redirect_uri", "response_type", "scope", "state", "nonce", "code_challenge", "code_challenge_method"} {
			if v := q.Get(k); v != "" {
				hidden[k] = v
			}
		}
		status, msg, shown := http.StatusOK, "", ""
		switch {
		case handle != "" && !handlePattern.MatchString(handle):
			status, msg = http.StatusBadRequest, "A handle is 1 to 32 letters, digits, dots, dashes or underscores."
		case confirm:
			shown = handle
		}
		p.pageHeaders(w)
		w.WriteHeader(status)
		_ = formPage.Execute(w, map[string]any{"Action": p.cfg.Issuer + "/authorize", "Hidden": hidden, "Error": msg, "Confirm": confirm, "Handle": shown})
		return
	}
	code := randomHex(32)
	now := p.cfg.Now()
	p.mu.Lock()
	for k, c := range p.codes {
		if now.After(c.expires) {
			delete(p.codes, k)
		}
	}
	full := len(p.codes) >= maxOutstanding
	if !full {
		p.codes[code] = devCode{handle: handle, challenge: q.Get("code_challenge"), nonce: q.Get("nonce"), expires: now.Add(p.cfg.CodeTTL)}
	}
	p.mu.Unlock()
	if full {
		devError(w, http.StatusServiceUnavailable, "too many sign-ins in progress; try again in a minute")
		return
	}
	p.redirect(w, r, url.Values{"code": {code}}, q.Get("state"))
}

// startedHere reports whether a sign-in that names its handle may go through without a click:
// the browser says the request comes from this origin (Sec-Fetch-Site same-origin, which a
// redirect chain through another site loses) or from no page at all (typed, a bookmark, curl).
// A navigation from another site would otherwise sign its visitor in as a handle that site
// chose (login CSRF); the provider asks first. A prompt parameter asks as well (OIDC's
// prompt=login, consent or select_account). Browsers without Fetch Metadata send a Referer,
// which must then name the provider's or the client's origin.
func (p *DevProvider) startedHere(r *http.Request) bool {
	if prompt := r.Form.Get("prompt"); prompt != "" && prompt != "none" {
		return false
	}
	switch r.Header.Get("Sec-Fetch-Site") {
	case "same-origin", "none":
		return true
	case "":
	default:
		return false
	}
	ref := r.Header.Get("Referer")
	if ref == "" {
		return true
	}
	u, err := url.Parse(ref)
	return err == nil && (sameOrigin(u, p.cfg.Issuer) || sameOrigin(u, p.cfg.RedirectURL))
}

// sameOrigin reports whether u has the origin of the URL other.
func sameOrigin(u *url.URL, other string) bool {
	o, err := url.Parse(other)
	return err == nil && strings.EqualFold(u.Scheme, o.Scheme) && strings.EqualFold(u.Host, o.Host)
}

// pageHeaders are those of the provider's HTML: no script, no frame around it (a page elsewhere
// cannot overlay its button), and its form may post only here and go on to the client.
func (p *DevProvider) pageHeaders(w http.ResponseWriter) {
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Content-Security-Policy", "default-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self' "+p.clientOrigin)
}

func (p *DevProvider) redirectError(w http.ResponseWriter, r *http.Request, code, state string) {
	p.redirect(w, r, url.Values{"error": {code}}, state)
}

func (p *DevProvider) redirect(w http.ResponseWriter, r *http.Request, v url.Values, state string) {
	u, _ := url.Parse(p.cfg.RedirectURL) // validated at New
	q := u.Query()
	for k, vs := range v {
		q[k] = vs
	}
	if state != "" {
		q.Set("state", state)
	}
	u.RawQuery = q.Encode()
	w.Header().Set("Cache-Control", "no-store")
	http.Redirect(w, r, u.String(), http.StatusFound)
}

// token redeems a code. The code is consumed by the first attempt whatever its outcome, so a
// guessed verifier gets one try.
func (p *DevProvider) token(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		oauthError(w, http.StatusBadRequest, "invalid_request")
		return
	}
	id, secret, basic := r.BasicAuth()
	if basic {
		// RFC 6749 2.3.1: Basic credentials are form-encoded first.
		id, _ = url.QueryUnescape(id)
		secret, _ = url.QueryUnescape(secret)
	} else {
		id, secret = r.PostForm.Get("client_id"), r.PostForm.Get("client_secret")
	}
	if subtle.ConstantTimeCompare([]byte(id), []byte(p.cfg.ClientID)) != 1 ||
		subtle.ConstantTimeCompare([]byte(secret), []byte(p.cfg.ClientSecret)) != 1 {
		w.Header().Set("WWW-Authenticate", `Basic realm="dev-oauth"`)
		oauthError(w, http.StatusUnauthorized, "invalid_client")
		return
	}
	if r.PostForm.Get("grant_type") != "authorization_code" {
		oauthError(w, http.StatusBadRequest, "unsupported_grant_type")
		return
	}
	if ru := r.PostForm.Get("redirect_uri"); ru != "" && ru != p.cfg.RedirectURL {
		oauthError(w, http.StatusBadRequest, "invalid_grant")
		return
	}
	now := p.cfg.Now()
	p.mu.Lock()
	c, ok := p.codes[r.PostForm.Get("code")]
	delete(p.codes, r.PostForm.Get("code"))
	p.mu.Unlock()
	if !ok || now.After(c.expires) {
		oauthError(w, http.StatusBadRequest, "invalid_grant")
		return
	}
	verifier := r.PostForm.Get("code_verifier")
	sum := sha256.Sum256([]byte(verifier))
	if len(verifier) < 43 || len(verifier) > 128 ||
		subtle.ConstantTimeCompare([]byte(base64.RawURLEncoding.EncodeToString(sum[:])), []byte(c.challenge)) != 1 {
		oauthError(w, http.StatusBadRequest, "invalid_grant")
		return
	}
	claims := map[string]any{
		"iss": p.cfg.Issuer, "sub": c.handle, "aud": p.cfg.ClientID,
		"iat": now.Unix(), "exp": now.Add(p.cfg.TokenTTL).Unix(),
		"preferred_username": c.handle, "name": c.handle,
	}
	if c.nonce != "" {
		claims["nonce"] = c.nonce
	}
	idToken, err := p.sign(claims)
	if err != nil {
		oauthError(w, http.StatusInternalServerError, "server_error")
		return
	}
	access := randomHex(32)
	p.mu.Lock()
	for k, t := range p.tokens {
		if now.After(t.expires) {
			delete(p.tokens, k)
		}
	}
	if len(p.tokens) >= maxOutstanding {
		p.mu.Unlock()
		oauthError(w, http.StatusServiceUnavailable, "temporarily_unavailable")
		return
	}
	p.tokens[access] = devToken{handle: c.handle, expires: now.Add(p.cfg.TokenTTL)}
	p.mu.Unlock()
	w.Header().Set("Pragma", "no-cache")
	writeJSON(w, http.StatusOK, map[string]any{
		"access_token": access, "token_type": "Bearer",
		"expires_in": int(p.cfg.TokenTTL / time.Second), "id_token": idToken,
	})
}

func (p *DevProvider) userinfo(w http.ResponseWriter, r *http.Request) {
	tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	p.mu.Lock()
	t, found := p.tokens[tok]
	p.mu.Unlock()
	if !ok || !found || p.cfg.Now().After(t.expires) {
		w.Header().Set("WWW-Authenticate", `Bearer error="invalid_token"`)
		oauthError(w, http.StatusUnauthorized, "invalid_token")
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"sub": t.handle, "preferred_username": t.handle, "name": t.handle})
}

// sign makes a compact ES256 JWS: the signature is r || s, 32 bytes each (RFC 7518 3.4).
func (p *DevProvider) sign(claims map[string]any) (string, error) {
	header, err := json.Marshal(map[string]string{"alg": "ES256", "typ": "JWT", "kid": p.kid})
	if err != nil {
		return "", err
	}
	payload, err := json.Marshal(claims)
	if err != nil {
		return "", err
	}
	b64 := base64.RawURLEncoding.EncodeToString
	input := b64(header) + "." + b64(payload)
	sum := sha256.Sum256([]byte(input))
	r, s, err := ecdsa.Sign(rand.Reader, p.key, sum[:])
	if err != nil {
		return "", err
	}
	sig := make([]byte, 64)
	r.FillBytes(sig[:32])
	s.FillBytes(sig[32:])
	return input + "." + b64(sig), nil
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b) // crypto/rand.Read never fails (Go 1.24+)
	return hex.EncodeToString(b)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func oauthError(w http.ResponseWriter, status int, code string) {
	writeJSON(w, status, map[string]string{"error": code})
}

func devError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	_, _ = w.Write([]byte(msg + "\n"))
}
