package httpapi

import (
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"net/http"
	"net/url"
	"reflect"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/curvekit/curvekit/candles"
	"github.com/curvekit/curvekit/internal/openapitest"
)

// udfEnv is a test server whose every exchange is checked against its own OpenAPI document.
func udfEnv(t *testing.T) (*testEnv, *openapi3.T) {
	t.Helper()
	var checker *openapitest.Checker
	e := newEnv(t, envOptions{wrap: func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { checker.Wrap(h).ServeHTTP(w, r) })
	}})
	checker = openapitest.New(t, e.server.OpenAPI())
	doc, err := openapitest.Load(e.server.OpenAPI())
	if err != nil {
		t.Fatal(err)
	}
	return e, doc
}

// udfRefused reports whether an answer of the feed is a refusal: {"s":"error","errmsg"} with 200.
func udfRefused(t *testing.T, r response) (string, bool) {
	t.Helper()
	if r.status != http.StatusOK {
		t.Fatalf("status %d: %s", r.status, r.body)
	}
	var v struct {
		S      string `json:"s"`
		ErrMsg string `json:"errmsg"`
	}
	if r.body[0] != '{' || json.Unmarshal(r.body, &v) != nil || v.S != "error" {
		return "", false
	}
	return v.ErrMsg, true
}

// handlerParams reads, from udf.go, the query parameters each handler asks for (the names the
// query binder is given), by the handler's name.
func handlerParams(t *testing.T) map[string][]string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "udf.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	for _, d := range f.Decls {
		fn, ok := d.(*ast.FuncDecl)
		if !ok || fn.Recv == nil || fn.Body == nil {
			continue
		}
		names := []string{}
		ast.Inspect(fn.Body, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || len(call.Args) == 0 {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			if x, ok := sel.X.(*ast.Ident); !ok || x.Name != "q" || sel.Sel.Name == "fail" {
				return true
			}
			if lit, ok := call.Args[0].(*ast.BasicLit); ok && lit.Kind == token.STRING {
				name, _ := strconv.Unquote(lit.Value)
				if !slices.Contains(names, name) {
					names = append(names, name)
				}
			}
			return true
		})
		out[fn.Name.Name] = names
	}
	return out
}

// The OpenAPI document describes every UDF route as its handler reads it: the same query
// parameters (no more, no fewer), required exactly when the handler refuses a request without
// one, every value of an enum accepted and one outside refused, every integer's bounds accepted
// and the values past them refused, each refusal naming the parameter; and every answer is one
// the document describes (the checker validates them all).
func TestUDFOpenAPIMatchesTheHandlers(t *testing.T) {
	t.Parallel()
	e, doc := udfEnv(t)
	reads := handlerParams(t)
	// A request each route answers, and the parameters it needs for that.
	valid := map[string]url.Values{
		"/udf/config":  {},
		"/udf/time":    {},
		"/udf/symbols": {"symbol": {"FROG"}},
		"/udf/search":  {},
		"/udf/history": {"symbol": {"FROG"}, "resolution": {"60"}, "to": {strconv.FormatInt(now, 10)}},
	}
	routes := e.server.udfRoutes()[0].routes
	if len(routes) != len(valid) {
		t.Fatalf("%d UDF routes, the test knows %d", len(routes), len(valid))
	}
	for _, r := range routes {
		path := "/udf" + r.path
		// The handler's name: "….(*Server).udfSearch-fm".
		fn := runtime.FuncForPC(reflect.ValueOf(r.handle).Pointer()).Name()
		fn = strings.TrimSuffix(fn[strings.LastIndex(fn, ".")+1:], "-fm")
		item := doc.Paths.Find(path)
		if item == nil || item.Get == nil {
			t.Errorf("%s: not in the document", path)
			continue
		}
		documented := map[string]*openapi3.Parameter{}
		var names []string
		for _, p := range item.Get.Parameters {
			if p.Value.In == openapi3.ParameterInQuery {
				documented[p.Value.Name] = p.Value
				names = append(names, p.Value.Name)
			}
		}
		got := slices.Clone(reads[fn])
		sort.Strings(got)
		sort.Strings(names)
		if !slices.Equal(got, names) {
			t.Errorf("%s: %s reads %v, the document lists %v", path, fn, got, names)
		}
		ask := func(v url.Values) response {
			t.Helper()
			return e.get(t, path+"?"+v.Encode())
		}
		if msg, refused := udfRefused(t, ask(valid[path])); refused {
			t.Fatalf("%s?%s refused: %s", path, valid[path].Encode(), msg)
		}
		with := func(name, value string) url.Values {
			v := url.Values{}
			for k, vs := range valid[path] {
				v[k] = vs
			}
			v.Set(name, value)
			return v
		}
		for name, p := range documented {
			without := with(name, "")
			without.Del(name)
			msg, refused := udfRefused(t, ask(without))
			if refused != p.Required || refused && !strings.Contains(msg, name) {
				t.Errorf("%s without %s: refused %v (%q), the document says required %v", path, name, refused, msg, p.Required)
			}
			s := p.Schema.Value
			var good, bad []string
			switch {
			case len(s.Enum) > 0:
				for _, v := range s.Enum {
					good = append(good, v.(string))
				}
				bad = append(bad, "nonesuch")
			case s.Type.Is(openapi3.TypeInteger):
				lo, hi := int64(*s.Min), int64(*s.Max)
				good = append(good, strconv.FormatInt(lo, 10), strconv.FormatInt(hi, 10))
				bad = append(bad, strconv.FormatInt(lo-1, 10), strconv.FormatInt(hi+1, 10), "1.5")
			}
			for _, v := range good {
				if msg, refused := udfRefused(t, ask(with(name, v))); refused {
					t.Errorf("%s with %s=%s (documented): refused, %s", path, name, v, msg)
				}
			}
			for _, v := range bad {
				if msg, refused := udfRefused(t, ask(with(name, v))); !refused || !strings.Contains(msg, name) {
					t.Errorf("%s with %s=%s (outside the document): refused %v, %q", path, name, v, refused, msg)
				}
			}
		}
	}
}

// One list of resolutions: the configuration's supported_resolutions are every resolution of the
// candles, which the exports take (and no other), each symbol's are the same, its intraday
// multipliers those below a day, and /udf/history takes each.
func TestUDFResolutionsAreTheExports(t *testing.T) {
	t.Parallel()
	e, doc := udfEnv(t)
	var cfg struct {
		SupportedResolutions []string `json:"supported_resolutions"`
	}
	e.get(t, "/udf/config").decode(t, &cfg)
	var sym struct {
		SupportedResolutions []string `json:"supported_resolutions"`
		IntradayMultipliers  []string `json:"intraday_multipliers"`
	}
	e.get(t, "/udf/symbols?symbol=FROG").decode(t, &sym)
	if !slices.Equal(sym.SupportedResolutions, cfg.SupportedResolutions) {
		t.Errorf("the symbol's resolutions %v, the configuration's %v", sym.SupportedResolutions, cfg.SupportedResolutions)
	}

	// The export's resolutions, as its documented res parameter lists them; each one exports.
	var exported []candles.Resolution
	for _, p := range doc.Paths.Find("/tokens/{address}/candles.csv").Get.Parameters {
		if p.Value.Name != "res" {
			continue
		}
		for _, v := range p.Value.Schema.Value.Enum {
			r, err := candles.ParseResolution(v.(string))
			if err != nil {
				t.Fatalf("the export documents res=%v: %v", v, err)
			}
			exported = append(exported, r)
		}
	}
	if !slices.Equal(exported, candles.Resolutions()) {
		t.Errorf("the export documents %v, the candles have %v", exported, candles.Resolutions())
	}
	for _, r := range exported {
		if res := e.get(t, "/tokens/"+ethToken.Hex()+"/candles.csv?res="+r.String()); res.status != http.StatusOK {
			t.Errorf("candles.csv?res=%s: %d %s", r, res.status, res.body)
		}
	}
	if res := e.get(t, "/tokens/"+ethToken.Hex()+"/candles.csv?res=1w"); res.status != http.StatusBadRequest {
		t.Errorf("candles.csv?res=1w: %d, want 400", res.status)
	}

	// UDF's names for them, one for one, in the same order; each a resolution of /udf/history
	// whose bars are the export's at that resolution.
	if len(cfg.SupportedResolutions) != len(exported) {
		t.Fatalf("UDF supports %v, the export %v", cfg.SupportedResolutions, exported)
	}
	var intraday []string
	for i, name := range cfg.SupportedResolutions {
		minutes, days := udfMinutes(t, name)
		if minutes*60 != exported[i].Seconds() {
			t.Errorf("UDF's %s is %d minutes, the export's %s %d seconds", name, minutes, exported[i], exported[i].Seconds())
		}
		if days == 0 {
			intraday = append(intraday, name)
		}
		var h struct {
			S string  `json:"s"`
			T []int64 `json:"t"`
		}
		from := now - 50*exported[i].Seconds()
		e.get(t, fmt.Sprintf("/udf/history?symbol=FROG&resolution=%s&from=%d&to=%d", name, from, now)).decode(t, &h)
		csv := e.get(t, fmt.Sprintf("/tokens/%s/candles.csv?res=%s&from=%d&to=%d", ethToken.Hex(), exported[i], from, now))
		lines := strings.Split(strings.TrimSpace(string(csv.body)), "\n")[1:]
		var times []int64
		for _, l := range lines {
			ts, _ := strconv.ParseInt(l[:strings.IndexByte(l, ',')], 10, 64)
			times = append(times, ts)
		}
		// The export's range starts at the bucket of from; /udf/history's too.
		if h.S != "ok" || len(times) == 0 || !slices.Equal(h.T, times) {
			t.Errorf("resolution %s: UDF's %d bars (%s) from %v, the export's %d from %v", name, len(h.T), h.S, h.T[:min(1, len(h.T))], len(times), times[:min(1, len(times))])
		}
	}
	if !slices.Equal(sym.IntradayMultipliers, intraday) {
		t.Errorf("intraday multipliers %v, want %v", sym.IntradayMultipliers, intraday)
	}
}

// udfMinutes reads a UDF resolution: minutes ("15"), or days ("1D"); days is 0 for minutes.
func udfMinutes(t *testing.T, name string) (minutes, days int64) {
	t.Helper()
	if d, ok := strings.CutSuffix(name, "D"); ok {
		n, err := strconv.ParseInt(d, 10, 64)
		if err != nil {
			t.Fatalf("resolution %q", name)
		}
		return n * 1440, n
	}
	n, err := strconv.ParseInt(name, 10, 64)
	if err != nil {
		t.Fatalf("resolution %q", name)
	}
	return n, 0
}

// The search's lists are the configuration's symbol types, each named; an unknown type or
// exchange is refused (examples/server holds each list to GET /tokens' on a real store).
func TestUDFSearchLists(t *testing.T) {
	t.Parallel()
	e, _ := udfEnv(t)
	var cfg struct {
		SymbolsTypes []struct{ Name, Value string } `json:"symbols_types"`
	}
	e.get(t, "/udf/config").decode(t, &cfg)
	var values []string
	for _, st := range cfg.SymbolsTypes {
		values = append(values, st.Value)
		if st.Name == "" {
			t.Errorf("symbol type %q has no name", st.Value)
		}
		if msg, refused := udfRefused(t, e.get(t, "/udf/search?type="+st.Value)); refused {
			t.Errorf("type %q refused: %s", st.Value, msg)
		}
	}
	if want := []string{"", "graduating", "graduated", "gainers1h", "gainers24h", "losers24h"}; !slices.Equal(values, want) {
		t.Errorf("symbol types %v, want %v", values, want)
	}
	for _, q := range []string{"type=stock", "exchange=NYSE", "type=Graduated", "exchange=CURVEKIT"} {
		if _, refused := udfRefused(t, e.get(t, "/udf/search?"+q)); !refused {
			t.Errorf("%s: not refused", q)
		}
	}
}
