package httpapi

import (
	"net/http"
	"slices"
	"strings"

	"github.com/uptrace/bunrouter"

	"github.com/curvekit/curvekit/auth"
)

// route is one endpoint: its method, path (bunrouter syntax, relative to its group), rate-limit
// class and handler.
type route struct {
	method string
	path   string
	class  auth.Class
	handle bunrouter.HandlerFunc
}

// group is a set of routes under one path prefix that share middleware (an auth check, say).
type group struct {
	prefix string
	use    []bunrouter.MiddlewareFunc
	routes []route
}

// groups declares every endpoint of the API, in one place. A feature adds its own group (or
// routes to an existing one); registration, rate limiting, 404 and 405 follow from this table.
func (s *Server) groups() []group {
	return []group{
		{routes: []route{
			{http.MethodGet, "/config", auth.ClassDefault, s.getConfig},
		}},
		{prefix: "/tokens", routes: append([]route{
			{http.MethodGet, "", auth.ClassDefault, s.listTokens},
			{http.MethodGet, "/:address", auth.ClassDefault, s.getToken},
			{http.MethodGet, "/:address/quote", auth.ClassDefault, s.getQuote},
			{http.MethodPost, "/:address/build-tx", auth.ClassDefault, s.buildTx},
			{http.MethodGet, "/:address/trades", auth.ClassDefault, s.listTrades},
			{http.MethodGet, "/:address/candles", auth.ClassDefault, s.getCandles},
			{http.MethodGet, "/:address/stats", auth.ClassDefault, s.getStats},
		}, s.streamRoutes()...)},
	}
}

// streamRoutes are the SSE endpoints (SPEC section 6), routed when the server has Streams. They
// are limited in the default class on connect; a stream's events are not counted.
func (s *Server) streamRoutes() []route {
	if s.cfg.Streams == nil {
		return nil
	}
	return []route{
		{http.MethodGet, "/stream", auth.ClassDefault, s.globalStream},
		{http.MethodGet, "/:address/stream", auth.ClassDefault, s.tokenStream},
	}
}

// endpoint is a registered route with its full path, kept to answer 405 with an Allow header.
type endpoint struct {
	method string
	path   []string // segments; ":name" matches any one segment, "*name" the rest
}

// register builds the router from the groups. Every handler runs inside errorsMiddleware; rate
// limiting wraps each route with its own class, so one group can mix classes.
func (s *Server) register(groups []group) *bunrouter.Router {
	r := bunrouter.New(
		bunrouter.Use(s.errorsMiddleware),
		bunrouter.WithNotFoundHandler(s.noRoute),
		bunrouter.WithMethodNotAllowedHandler(s.noRoute),
	)
	for _, g := range groups {
		bg := r.NewGroup(g.prefix, bunrouter.Use(g.use...))
		for _, rt := range g.routes {
			bg.Handle(rt.method, rt.path, s.limit(rt.class, rt.handle))
			s.endpoints = append(s.endpoints, endpoint{method: rt.method, path: splitPath(g.prefix + rt.path)})
		}
	}
	return r
}

// noRoute answers a request no route handles: 405 with Allow when the path exists under other
// methods, 404 otherwise. bunrouter reports some wrong-method requests as not found (a path
// below a parameter segment), so both cases are decided here from the route table.
func (s *Server) noRoute(w http.ResponseWriter, req bunrouter.Request) error {
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
