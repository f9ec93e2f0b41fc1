package httpapi

import (
	"net/http"
	"slices"
	"strings"

	"github.com/uptrace/bunrouter"

	"github.com/curvekit/curvekit/auth"
)

// Access is who may call a route: SPEC section 4's Auth column.
type Access int

const (
	// Public routes need no credential.
	Public Access = iota
	// Key routes need an API key (X-API-Key).
	Key
	// Session routes need a signed-in session (the svc_session cookie).
	Session
	// SessionOrKey routes take either.
	SessionOrKey
)

func (a Access) String() string {
	return [...]string{"public", "key", "session", "session or key"}[a]
}

// route is one endpoint: its method, path (bunrouter syntax, relative to its group), access,
// rate-limit class and handler. notFound is the message of a 404 when the handler reports
// curvekit.ErrNotFound without one of its own ("token not found").
type route struct {
	method   string
	path     string
	access   Access
	class    auth.Class
	handle   bunrouter.HandlerFunc
	notFound string
	// precheck, when set, refuses a request the principal may not make for a reason the route
	// alone cannot tell (the signing policy reads the body): its error is a refusal, counted
	// like authorize's, before the route's class budget is spent.
	precheck func(r *http.Request, p *auth.Principal) error
	// reclass, when set, may count a request in another class than the route's, by what it
	// asks (a sign-and-submit that only simulates spends no signing budget).
	reclass func(r *http.Request, class auth.Class) auth.Class
	// bearer routes also take the API key from Authorization: Bearer.
	bearer bool
	// lasting routes answer for long (a streamed turn, a mounted protocol): the handler runs
	// under a context that ends when the request's credential ends (Config.Holder).
	lasting bool
	full    string        // method and full path, set at registration: the route's name in logs and metrics
	doc     op            // the route in the OpenAPI document (operations), set at registration
	metrics *routeMetrics // its collectors, set at registration when the server has metrics
}

// group is a set of routes under one path prefix.
type group struct {
	prefix string
	routes []route
}

// groups declares every endpoint of the API, in one place. A feature adds its own group (or
// routes to an existing one); registration, the pipeline, 404 and 405 follow from this table.
func (s *Server) groups() []group {
	const token = "token not found"
	groups := []group{
		{routes: []route{
			{method: http.MethodGet, path: "/openapi.json", access: Public, class: auth.ClassDefault, handle: s.serveOpenAPI},
			{method: http.MethodGet, path: "/config", access: Public, class: auth.ClassDefault, handle: s.getConfig},
			{method: http.MethodGet, path: "/healthz", access: Public, class: auth.ClassExempt, handle: s.healthz},
			{method: http.MethodGet, path: "/readyz", access: Public, class: auth.ClassExempt, handle: s.readyz},
		}},
		{prefix: "/tokens", routes: append([]route{
			{method: http.MethodGet, path: "", access: Public, class: auth.ClassDefault, handle: s.listTokens, notFound: "quote asset not found"},
			{method: http.MethodGet, path: "/king", access: Public, class: auth.ClassDefault, handle: s.getKing, notFound: "no token of this pairing asset trades on its curve"},
			{method: http.MethodGet, path: "/:address", access: Public, class: auth.ClassDefault, handle: s.getToken, notFound: token},
			{method: http.MethodGet, path: "/:address/quote", access: Public, class: auth.ClassDefault, handle: s.getQuote, notFound: token},
			{method: http.MethodPost, path: "/:address/build-tx", access: Public, class: auth.ClassDefault, handle: s.buildTx, notFound: token},
			{method: http.MethodGet, path: "/:address/trades", access: Public, class: auth.ClassDefault, handle: s.listTrades, notFound: token},
			{method: http.MethodGet, path: "/:address/candles", access: Public, class: auth.ClassDefault, handle: s.getCandles, notFound: token},
			{method: http.MethodGet, path: "/:address/stats", access: Public, class: auth.ClassDefault, handle: s.getStats, notFound: token},
			{method: http.MethodGet, path: "/:address/holders", access: Public, class: auth.ClassDefault, handle: s.listHolders, notFound: token},
			{method: http.MethodGet, path: "/:address/trades.csv", access: Public, class: auth.ClassExport, handle: s.exportTrades(formatCSV), notFound: token},
			{method: http.MethodGet, path: "/:address/trades.ndjson", access: Public, class: auth.ClassExport, handle: s.exportTrades(formatNDJSON), notFound: token},
			{method: http.MethodGet, path: "/:address/candles.csv", access: Public, class: auth.ClassExport, handle: s.exportCandles(formatCSV), notFound: token},
			{method: http.MethodGet, path: "/:address/candles.ndjson", access: Public, class: auth.ClassExport, handle: s.exportCandles(formatNDJSON), notFound: token},
		}, s.streamRoutes()...)},
	}
	// Each feature's routes, when the server has its service.
	for _, feature := range [][]group{s.udfRoutes(), s.authRoutes(), s.walletRoutes(), s.accountRoutes(), s.orderRoutes(), s.agentRoutes(), s.agentToolRoutes(), s.launchRoutes(), s.pushRoutes(), s.mountRoutes()} {
		groups = append(groups, feature...)
	}
	return groups
}

// Mount is a handler of another package served as routes of the table (remote MCP, the
// development identity provider): it runs in the same pipeline as every route, with its
// access check, rate-limit class, body deadline and error answers. A guarded mount's request
// runs under a context that ends when the credential that authenticated it ends, so that
// nothing it holds open (remote MCP's requests) outlives a logout or a revocation.
type Mount struct {
	// Methods the handler answers at Path.
	Methods []string
	// Path is the full path, in bunrouter's syntax.
	Path   string
	Access Access
	Class  auth.Class
	// Bearer also takes the API key from Authorization: Bearer (MCP clients send it there).
	Bearer  bool
	Handler http.Handler
	// Doc describes the handler in the OpenAPI document. Required.
	Doc MountDoc
}

// MountDoc describes a mounted handler in the OpenAPI document: the media types of what it reads
// and answers. Their bodies are the mounted protocol's (MCP, OpenID Connect), which its own
// specification describes.
type MountDoc struct {
	// ID is the operationId's stem: the method, in lower case, is appended ("mcp" gives mcpPost).
	ID      string
	Summary string
	// Consumes are the media types of a request body (POST); Produces those of an answer.
	Consumes, Produces []string
	// Redirects: the handler may also answer 302.
	Redirects bool
}

// mountRoutes are Config.Mounts as routes of the table.
func (s *Server) mountRoutes() []group {
	var routes []route
	for _, m := range s.cfg.Mounts {
		h := m.Handler
		for _, method := range m.Methods {
			routes = append(routes, route{method: method, path: m.Path, access: m.Access, class: m.Class, bearer: m.Bearer, doc: m.Doc.op(method),
				lasting: m.Access != Public,
				handle: func(w http.ResponseWriter, req bunrouter.Request) error {
					w.Header()["X-Content-Type-Options"] = nosniff // as every answer of the API
					h.ServeHTTP(w, req.Request)
					return nil
				}})
		}
	}
	if len(routes) == 0 {
		return nil
	}
	return []group{{routes: routes}}
}

// streamRoutes are the SSE endpoints (SPEC section 6), routed when the server has Streams. They
// are limited in the default class on connect; a stream's events are not counted.
func (s *Server) streamRoutes() []route {
	if s.cfg.Streams == nil {
		return nil
	}
	return []route{
		{method: http.MethodGet, path: "/stream", access: Public, class: auth.ClassDefault, handle: s.globalStream},
		{method: http.MethodGet, path: "/:address/stream", access: Public, class: auth.ClassDefault, handle: s.tokenStream, notFound: "token not found"},
	}
}

// endpoint is a registered route with its full path, kept to answer 405 with an Allow header.
type endpoint struct {
	method string
	path   []string // segments; ":name" matches any one segment, "*name" the rest
}

// register builds the router from the groups; every route runs in the pipeline (pipeline.go).
// The routes of the API's own groups (the first own of them) are kept for its OpenAPI document.
func (s *Server) register(groups []group, own int) *bunrouter.Router {
	r := bunrouter.New(
		bunrouter.WithNotFoundHandler(s.noRoute),
		bunrouter.WithMethodNotAllowedHandler(s.noRoute),
	)
	for i, g := range groups {
		bg := r.NewGroup(g.prefix)
		for _, rt := range g.routes {
			rt.full = rt.method + " " + g.prefix + rt.path
			if g.prefix != "" && rt.path == "" {
				rt.full = rt.method + " " + g.prefix
			}
			if d, ok := operations[rt.full]; ok {
				rt.doc = d
			}
			if s.metrics != nil {
				rt.metrics = s.metrics.route(rt.full)
			}
			if i < own {
				s.routes = append(s.routes, rt)
			}
			bg.Handle(rt.method, rt.path, s.pipeline(&rt))
			s.endpoints = append(s.endpoints, endpoint{method: rt.method, path: splitPath(g.prefix + rt.path)})
			if rt.method != http.MethodGet {
				continue
			}
			// HTTP: a server that serves GET serves HEAD, the same answer without its body
			// (net/http drops what a handler writes to a HEAD). It runs the same pipeline and
			// class; the OpenAPI document lists the GET only.
			head := rt
			head.method, head.full = http.MethodHead, http.MethodHead+strings.TrimPrefix(rt.full, http.MethodGet)
			if s.metrics != nil {
				head.metrics = s.metrics.route(head.full)
			}
			bg.Handle(head.method, head.path, s.pipeline(&head))
			s.endpoints = append(s.endpoints, endpoint{method: head.method, path: splitPath(g.prefix + head.path)})
		}
	}
	return r
}

// noRoute answers a request no route handles: 405 with Allow when the path exists under other
// methods, 404 otherwise. bunrouter reports some wrong-method requests as not found (a path
// below a parameter segment), so both cases are decided here from the route table.
func (s *Server) noRoute(w http.ResponseWriter, req bunrouter.Request) error {
	if !s.allowCall(w, req.Request, auth.ClassDefault, "") {
		return nil
	}
	if allow := s.allowed(req.URL.EscapedPath()); len(allow) > 0 {
		w.Header().Set("Allow", strings.Join(allow, ", "))
		writeError(w, http.StatusMethodNotAllowed, "method "+req.Method+" not allowed; allowed: "+strings.Join(allow, ", "))
		return nil
	}
	writeError(w, http.StatusNotFound, "route "+req.Method+" "+req.URL.Path+" not found")
	return nil
}

// allowed returns the methods of the routes that match path, sorted.
func (s *Server) allowed(path string) []string {
	segs := splitPath(path)
	var methods []string
	for _, e := range s.endpoints {
		if matchPath(e.path, segs) && !slices.Contains(methods, e.method) {
			methods = append(methods, e.method)
		}
	}
	slices.Sort(methods)
	return methods
}

func splitPath(p string) []string {
	return strings.Split(strings.TrimPrefix(p, "/"), "/")
}

func matchPath(pattern, segs []string) bool {
	for i, p := range pattern {
		if strings.HasPrefix(p, "*") {
			return true
		}
		if i >= len(segs) {
			return false
		}
		if strings.HasPrefix(p, ":") {
			if segs[i] == "" {
				return false
			}
			continue
		}
		if p != segs[i] {
			return false
		}
	}
	return len(pattern) == len(segs)
}
