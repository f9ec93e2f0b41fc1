package httpapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3gen"
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/uptrace/bunrouter"

	"github.com/curvekit/curvekit"
	"github.com/curvekit/curvekit/account"
	"github.com/curvekit/curvekit/agent"
	"github.com/curvekit/curvekit/auth"
	"github.com/curvekit/curvekit/candles"
	"github.com/curvekit/curvekit/market"
)

// The OpenAPI document (GET /openapi.json) is built once, at New, from the route table: every
// route's method, path, access (its security schemes), rate-limit class (x-rate-limit-class) and
// its op, the Go types of its request and response. Schemas come from those types by
// reflection (kin-openapi's openapi3gen, the same library the tests validate every request and
// response with), so a field renamed in a type is renamed in the document.

// op describes a route for the OpenAPI document. Every route of the table has one (a test
// checks it).
type op struct {
	id      string // operationId, unique; generators name their methods after it
	summary string
	query   []param
	// body is a value of the JSON request body's type; nil when the route reads no JSON body.
	body any
	// upload: the body is multipart/form-data with the file in field "file".
	upload bool
	// status is the success status; 0 means 200.
	status int
	// resp is a value of the JSON success body's type.
	resp any
	// also are other statuses answered with the success body's type, each with its description
	// (GET /readyz's 503 lists the checks that failed).
	also map[int]string
	// media is the success body's media type when it is not JSON (an image, SSE); stream events
	// then describes the events of a text/event-stream.
	media  string
	events []streamEvent
	// redirect: success is a 302 to Location.
	redirect bool
	// verdict: a request the validator refuses is answered {error} with status 200 (SPEC 4.4).
	verdict bool
	// alt is another success body the route may answer, by what was asked; the success schema
	// is then the union named union.
	alt   any
	union string
	// consumes and produces are the media types of a mounted handler's bodies (free-form).
	consumes, produces []string
	// outage: the route reaches the chain's node or the IPFS node, and answers 503 (with
	// Retry-After when the server can say) while that does not answer.
	outage bool
}

// param is a query parameter.
type param struct {
	name     string
	desc     string
	schema   *openapi3.Schema
	required bool
}

// streamEvent is one event name of a stream, with the type of its data.
type streamEvent struct {
	name string
	desc string
	data any
}

func strParam(name, desc string, enum ...string) param {
	s := openapi3.NewStringSchema()
	for _, e := range enum {
		s.Enum = append(s.Enum, e)
	}
	return param{name: name, desc: desc, schema: s}
}

func intParam(name, desc string, lo, hi int64) param {
	return param{name: name, desc: desc, schema: openapi3.NewInt64Schema().WithMin(float64(lo)).WithMax(float64(hi))}
}

// openAPI builds the document of the routes this server serves.
func (s *Server) openAPI(routes []route) ([]byte, error) {
	doc := &openapi3.T{
		OpenAPI: "3.1.0",
		Info: &openapi3.Info{
			Title:   "curvekit",
			Version: apiVersion,
			Description: "The public API of a curvekit server: token launchpad market data, exact quotes, " +
				"unsigned transactions, launch preparation, accounts, the custodial wallet and the agent. " +
				"Amounts are exact decimal strings in whole units of their asset; prices are display numbers.",
		},
		// Relative to where the document is served: this server.
		Servers: openapi3.Servers{{URL: "/", Description: "This server"}},
		Paths:   openapi3.NewPaths(),
		Components: &openapi3.Components{
			Schemas: openapi3.Schemas{},
			SecuritySchemes: openapi3.SecuritySchemes{
				"apiKey": {Value: openapi3.NewSecurityScheme().WithType("apiKey").WithIn("header").WithName("X-API-Key").
					WithDescription("An API key created at POST /api-keys.")},
				"bearer": {Value: openapi3.NewSecurityScheme().WithType("http").WithScheme("bearer").
					WithDescription("An API key sent as Authorization: Bearer (MCP clients).")},
				"session": {Value: openapi3.NewSecurityScheme().WithType("apiKey").WithIn("cookie").WithName(sessionCookie).
					WithDescription("The session cookie set by the sign-in (GET /auth/login).")},
			},
			Responses: openapi3.ResponseBodies{},
		},
	}
	g := newSchemaGen(doc.Components.Schemas)
	errRef, err := g.ref(errorBody{}, false)
	if err != nil {
		return nil, err
	}
	for _, status := range []int{400, 401, 403, 404, 408, 413, 429} {
		doc.Components.Responses[errorResponseName(status)] = &openapi3.ResponseRef{Value: openapi3.NewResponse().
			WithDescription(http.StatusText(status)).WithContent(openapi3.NewContentWithJSONSchemaRef(errRef))}
	}
	retry := &openapi3.HeaderRef{Value: &openapi3.Header{Parameter: openapi3.Parameter{
		Description: "Seconds to wait before trying again, when the server can say.",
		Schema:      openapi3.NewIntegerSchema().NewRef()}}}
	doc.Components.Responses[errorResponseName(http.StatusServiceUnavailable)] = &openapi3.ResponseRef{Value: &openapi3.Response{
		Description: &[]string{"A node the route needs (the chain's, or the IPFS node) does not answer: retry later"}[0],
		Headers:     openapi3.Headers{"Retry-After": retry},
		Content:     openapi3.NewContentWithJSONSchemaRef(errRef)}}
	doc.Components.Responses["Error"] = &openapi3.ResponseRef{Value: openapi3.NewResponse().
		WithDescription("An error: {statusCode, message}").WithContent(openapi3.NewContentWithJSONSchemaRef(errRef))}

	ids := map[string]string{}
	for i := range routes {
		rt := &routes[i]
		if rt.doc.id == "" {
			return nil, fmt.Errorf("openapi: route %s has no description", rt.full)
		}
		if prev, dup := ids[rt.doc.id]; dup {
			return nil, fmt.Errorf("openapi: operationId %s of %s is also %s's", rt.doc.id, rt.full, prev)
		}
		ids[rt.doc.id] = rt.full
		method, path, _ := strings.Cut(rt.full, " ")
		operation, err := g.operation(rt)
		if err != nil {
			return nil, fmt.Errorf("openapi: %s: %w", rt.full, err)
		}
		oaPath := openAPIPath(path)
		item := doc.Paths.Value(oaPath)
		if item == nil {
			item = &openapi3.PathItem{}
			doc.Paths.Set(oaPath, item)
		}
		item.SetOperation(method, operation)
	}
	return json.MarshalIndent(doc, "", "  ")
}

func errorResponseName(status int) string {
	return "Error" + strconv.Itoa(status)
}

// openAPIPath writes bunrouter's ":name" segments as "{name}".
func openAPIPath(p string) string {
	segs := strings.Split(p, "/")
	for i, s := range segs {
		if strings.HasPrefix(s, ":") {
			segs[i] = "{" + s[1:] + "}"
		}
	}
	return strings.Join(segs, "/")
}

// operation describes one route.
func (g *schemaGen) operation(rt *route) (*openapi3.Operation, error) {
	d := &rt.doc
	o := openapi3.NewOperation()
	o.OperationID = d.id
	o.Summary = d.summary
	_, path, _ := strings.Cut(rt.full, " ")
	o.Tags = []string{tagOf(path)}
	o.Extensions = map[string]any{"x-rate-limit-class": string(rt.class)}
	switch rt.access {
	case Public:
		o.Security = &openapi3.SecurityRequirements{}
	case Key:
		req := openapi3.SecurityRequirements{{"apiKey": {}}}
		if rt.bearer {
			req = append(req, openapi3.SecurityRequirement{"bearer": {}})
		}
		o.Security = &req
	case Session:
		o.Security = &openapi3.SecurityRequirements{{"session": {}}}
	case SessionOrKey:
		o.Security = &openapi3.SecurityRequirements{{"session": {}}, {"apiKey": {}}}
	}
	var hasInput bool
	for _, seg := range strings.Split(path, "/") {
		if name, ok := strings.CutPrefix(seg, ":"); ok {
			hasInput = true
			p := openapi3.NewPathParameter(name).WithSchema(pathParamSchema(name))
			p.Description = pathParamDescription(name)
			o.AddParameter(p)
		}
	}
	for _, q := range d.query {
		hasInput = true
		p := openapi3.NewQueryParameter(q.name).WithSchema(q.schema).WithRequired(q.required)
		p.Description = q.desc
		o.AddParameter(p)
	}
	switch {
	case len(d.consumes) > 0:
		hasInput = true
		content := openapi3.Content{}
		for _, m := range d.consumes {
			schema := &openapi3.Schema{}
			if m == "application/x-www-form-urlencoded" {
				schema = openapi3.NewObjectSchema()
			}
			content[m] = openapi3.NewMediaType().WithSchema(schema)
		}
		o.RequestBody = &openapi3.RequestBodyRef{Value: openapi3.NewRequestBody().WithRequired(true).WithContent(content)}
	case d.upload:
		hasInput = true
		form := openapi3.NewObjectSchema().WithProperty("file", &openapi3.Schema{Type: &openapi3.Types{"string"}, Format: "binary"})
		form.Required = []string{"file"}
		o.RequestBody = &openapi3.RequestBodyRef{Value: openapi3.NewRequestBody().WithRequired(true).
			WithContent(openapi3.Content{"multipart/form-data": openapi3.NewMediaType().WithSchema(form)})}
	case d.body != nil:
		hasInput = true
		ref, err := g.ref(d.body, true)
		if err != nil {
			return nil, err
		}
		o.RequestBody = &openapi3.RequestBodyRef{Value: openapi3.NewRequestBody().WithRequired(rt.method != http.MethodPost || !optionalBody(d.body)).
			WithJSONSchemaRef(ref)}
	}

	status := d.status
	if status == 0 {
		status = http.StatusOK
	}
	ok := openapi3.NewResponse().WithDescription(http.StatusText(status))
	if d.redirect {
		ref, err := g.ref(redirectJSON{}, false)
		if err != nil {
			return nil, err
		}
		found := openapi3.NewResponse().WithDescription("Redirect to the Location header").WithContent(openapi3.NewContentWithJSONSchemaRef(ref))
		if len(d.produces) > 0 {
			found.Content = freeForm(d.produces)
		}
		found.Headers = openapi3.Headers{"Location": {Value: &openapi3.Header{Parameter: openapi3.Parameter{
			Schema: openapi3.NewStringSchema().NewRef(), Description: "Where the browser goes next"}}}}
		o.AddResponse(http.StatusFound, found)
	}
	switch {
	case len(d.produces) > 0:
		ok.Content = freeForm(d.produces)
	case d.redirect:
		ok = nil
	case d.media == "text/event-stream":
		ok.Content = openapi3.Content{"text/event-stream": openapi3.NewMediaType().WithSchema(openapi3.NewStringSchema())}
		desc := []string{"A stream of server-sent events:"}
		for _, e := range d.events {
			desc = append(desc, fmt.Sprintf("- `%s`: %s", e.name, e.desc))
			if e.data != nil {
				ref, err := g.ref(e.data, false)
				if err != nil {
					return nil, err
				}
				desc[len(desc)-1] += " Data: " + schemaName(ref) + "."
			}
		}
		ok.Description = &[]string{strings.Join(desc, "\n")}[0]
		names := make([]any, len(d.events))
		for i, e := range d.events {
			names[i] = e.name
		}
		ok.Extensions = map[string]any{"x-sse-events": names}
	case d.media != "":
		ok.Content = openapi3.Content{d.media: openapi3.NewMediaType().WithSchema(&openapi3.Schema{Type: &openapi3.Types{"string"}, Format: "binary"})}
	default:
		ref, err := g.ref(d.resp, false)
		if err != nil {
			return nil, err
		}
		if d.verdict {
			ref, err = g.verdict(ref)
			if err != nil {
				return nil, err
			}
		}
		if d.alt != nil {
			alt, err := g.ref(d.alt, false)
			if err != nil {
				return nil, err
			}
			g.schemas[d.union] = &openapi3.SchemaRef{Value: &openapi3.Schema{OneOf: openapi3.SchemaRefs{ref, alt}}}
			ref = openapi3.NewSchemaRef("#/components/schemas/"+d.union, nil)
		}
		ok.Content = openapi3.NewContentWithJSONSchemaRef(ref)
	}
	if ok != nil {
		o.AddResponse(status, ok)
		for s, desc := range d.also {
			o.AddResponse(s, openapi3.NewResponse().WithDescription(desc).WithContent(ok.Content))
		}
	}

	refuse := func(status int) {
		o.Responses.Set(strconv.Itoa(status), &openapi3.ResponseRef{Ref: "#/components/responses/" + errorResponseName(status)})
	}
	mounted := len(d.produces) > 0
	if hasInput && !mounted {
		refuse(http.StatusBadRequest)
	}
	if rt.access != Public {
		refuse(http.StatusUnauthorized)
	}
	if rt.access != Public || rt.method != http.MethodGet || rt.precheck != nil {
		refuse(http.StatusForbidden)
	}
	if (rt.notFound != "" || strings.Contains(path, ":")) && !mounted {
		refuse(http.StatusNotFound)
	}
	if d.body != nil || d.upload || rt.method == http.MethodPost {
		refuse(http.StatusRequestTimeout)
		refuse(http.StatusRequestEntityTooLarge)
	}
	if rt.class != auth.ClassExempt {
		refuse(http.StatusTooManyRequests)
	}
	if d.outage {
		refuse(http.StatusServiceUnavailable)
	}
	o.Responses.Set("default", &openapi3.ResponseRef{Ref: "#/components/responses/Error"})
	if mounted {
		// The mounted protocol answers its own errors (OAuth's {error}, JSON-RPC's).
		o.Responses.Set("default", &openapi3.ResponseRef{Value: openapi3.NewResponse().
			WithDescription("An answer of the mounted protocol").WithContent(freeForm(d.produces))})
	}
	return o, nil
}

// freeForm is content of the media types with bodies the document does not describe.
func freeForm(media []string) openapi3.Content {
	c := openapi3.Content{}
	for _, m := range media {
		c[m] = openapi3.NewMediaType().WithSchema(&openapi3.Schema{})
	}
	return c
}

// optionalBody reports a request body that may be absent (POST /wallet/export-key).
func optionalBody(v any) bool {
	_, ok := v.(emptyBody)
	return ok
}

// emptyBody is a request body with no fields: absent, or {}.
type emptyBody struct{}

func tagOf(path string) string {
	seg := strings.Split(strings.TrimPrefix(path, "/"), "/")[0]
	switch seg {
	case "config", "healthz", "readyz", "openapi.json":
		return "server"
	case "api-keys":
		return "auth"
	case "dev-oauth", ".well-known":
		return "dev-oauth"
	}
	return seg
}

func pathParamSchema(name string) *openapi3.Schema {
	switch name {
	case "address", "wallet":
		return addressSchema()
	}
	return openapi3.NewStringSchema()
}

func pathParamDescription(name string) string {
	switch name {
	case "address":
		return "The token's contract address."
	case "wallet":
		return "A wallet address."
	case "id":
		return "The identifier the server gave."
	case "cid":
		return "A CIDv1 in base32 (bafy…, bafk…)."
	case "key":
		return "The memory's key."
	case "name":
		return "The tool's name (GET /agent/tools)."
	}
	return ""
}

func addressSchema() *openapi3.Schema {
	s := openapi3.NewStringSchema()
	s.Pattern = "^0[xX][0-9a-fA-F]{40}$"
	return s
}

// schemaGen makes named component schemas from Go types. Responses and requests read a type
// differently: in a response every field without omitempty is always present (required) and a
// pointer may be null; in a request, required fields are the ones tagged openapi:"required"
// and a pointer is just optional.
type schemaGen struct {
	schemas openapi3.Schemas
	names   map[string]reflect.Type
	err     error
}

func newSchemaGen(schemas openapi3.Schemas) *schemaGen {
	return &schemaGen{schemas: schemas, names: map[string]reflect.Type{}}
}

// ref returns a reference to the named schema of v's type (a component), generating it and the
// types it holds on first use.
func (g *schemaGen) ref(v any, request bool) (*openapi3.SchemaRef, error) {
	t := reflect.TypeOf(v)
	if s, ok := g.special(t); ok {
		return s, nil
	}
	if t.Kind() == reflect.Slice && t.Name() != "" {
		// A named list is a component too, so that generators name it.
		items, err := g.ref(reflect.Zero(t.Elem()).Interface(), request)
		if err != nil {
			return nil, err
		}
		name := g.nameOf(t)
		list := openapi3.NewArraySchema()
		list.Items = items
		g.schemas[name] = list.NewRef()
		return openapi3.NewSchemaRef("#/components/schemas/"+name, nil), g.err
	}
	gen := openapi3gen.NewGenerator(
		openapi3gen.CreateComponentSchemas(openapi3gen.ExportComponentSchemasOptions{ExportComponentSchemas: true, ExportTopLevelSchema: true}),
		openapi3gen.CreateTypeNameGenerator(g.nameOf),
		openapi3gen.SchemaCustomizer(func(_ string, t reflect.Type, _ reflect.StructTag, s *openapi3.Schema) error {
			return g.customize(t, s, request)
		}),
	)
	ref, err := gen.NewSchemaRefForValue(v, g.schemas)
	// What openapi3gen made of the JSON Schema struct while recursing through it before the
	// field was replaced (its cycles become a component) is not part of the document.
	delete(g.schemas, jsonSchemaName)
	if err == nil {
		err = g.err
	}
	if err != nil {
		return nil, err
	}
	return ref, nil
}

// nameOf is a Go type's component name: tokenJSON is Token, signBody SignRequest; a name taken
// by another type is an error.
func (g *schemaGen) nameOf(t reflect.Type) string {
	if t == reflect.TypeFor[jsonschema.Schema]() {
		return jsonSchemaName
	}
	name := t.Name()
	if n, ok := schemaNames[name]; ok {
		name = n
	} else if base, ok := strings.CutSuffix(name, "Body"); ok {
		name = base + "Request"
	} else {
		name = strings.TrimSuffix(name, "JSON")
	}
	if name == "" {
		return ""
	}
	r := []rune(name)
	r[0] = unicode.ToUpper(r[0])
	name = string(r)
	g.claim(name, t)
	return name
}

// claim records that name is t's schema; a name two types claim is an error.
func (g *schemaGen) claim(name string, t reflect.Type) {
	if prev, ok := g.names[name]; ok && prev != t {
		g.err = fmt.Errorf("openapi: schema %s names both %v and %v", name, prev, t)
	}
	g.names[name] = t
}

// jsonSchemaName names the JSON Schema struct while openapi3gen walks it; it is removed.
const jsonSchemaName = "jsonschema.Schema"

// schemaNames are component names a type's own name would not give well.
var schemaNames = map[string]string{
	"errorBody":         "Error",
	"validationBody":    "Refusal",
	"feesJSONBody":      "CreatorFees",
	"Transaction":       "AgentTransaction",
	"OrderProposal":     "AgentOrderProposal",
	"Request":           "ProposedOrder",
	"Document":          "MetadataDocument",
	"tierJSON":          "TierLimits",
	"slippageJSON":      "SlippageSettings",
	"udfConfigJSON":     "UdfConfig",
	"udfExchangeDoc":    "UdfExchange",
	"udfTypeDoc":        "UdfSymbolType",
	"udfErrorJSON":      "UdfError",
	"udfSymbolJSON":     "UdfSymbol",
	"udfSearchItemJSON": "UdfSearchItem",
	"udfSearchJSON":     "UdfSearch",
	"udfHistoryJSON":    "UdfHistory",
}

// special is the schema of a type whose JSON is not what reflection sees: a custom marshaller,
// an enumeration, a union or a free-form value. Enumerations and unions are named components,
// so that generators make one type of each.
func (g *schemaGen) special(t reflect.Type) (*openapi3.SchemaRef, bool) {
	var name string
	var s *openapi3.Schema
	if t == reflect.TypeFor[*account.Percent]() {
		// An optional percentage: the number, or null when unset.
		percent, _ := g.special(t.Elem())
		return &openapi3.SchemaRef{Value: &openapi3.Schema{AnyOf: openapi3.SchemaRefs{
			percent, {Value: &openapi3.Schema{Type: &openapi3.Types{"null"}}},
		}}}, true
	}
	switch t {
	case reflect.TypeFor[number]():
		return (&openapi3.Schema{Type: &openapi3.Types{"number", "null"}}).NewRef(), true
	case reflect.TypeFor[*jsonschema.Schema](), reflect.TypeFor[json.RawMessage](), reflect.TypeFor[any]():
		return (&openapi3.Schema{}).NewRef(), true
	case reflect.TypeFor[errorMessage]():
		name, s = "ErrorMessage", &openapi3.Schema{OneOf: openapi3.SchemaRefs{
			openapi3.NewStringSchema().NewRef(),
			openapi3.NewArraySchema().WithItems(openapi3.NewStringSchema()).NewRef(),
		}}
	case reflect.TypeFor[slippage]():
		name, s = "Slippage", &openapi3.Schema{OneOf: openapi3.SchemaRefs{
			openapi3.NewStringSchema().NewRef(), openapi3.NewFloat64Schema().NewRef(),
		}}
	case reflect.TypeFor[candles.Resolution]():
		name, s = "Resolution", openapi3.NewStringSchema().WithEnum("1m", "5m", "15m", "1h", "4h", "1d")
	case reflect.TypeFor[openAPIDocument]():
		name, s = "OpenAPIDocument", openapi3.NewObjectSchema()
	case reflect.TypeFor[emptyBody]():
		name, s = "EmptyRequest", openapi3.NewObjectSchema()
		s.AdditionalProperties = openapi3.AdditionalProperties{Has: openapi3.BoolPtr(false)}
	case reflect.TypeFor[settingsPatchBody]():
		name, s = "SettingsPatch", openapi3.NewObjectSchema()
		s.Description = "A JSON Merge Patch (RFC 7396) of Settings: any part of it; null removes a value. Unknown keys are refused."
	case reflect.TypeFor[account.Percent]():
		name, s = "Percent", &openapi3.Schema{Type: &openapi3.Types{"number"}, Min: openapi3.Float64Ptr(0), Max: openapi3.Float64Ptr(100),
			Description: "A percentage with at most two decimals"}
	case reflect.TypeFor[curvekit.Code]():
		name, s = "ErrorCode", openapi3.NewStringSchema()
		for _, c := range curvekit.Codes {
			s.Enum = append(s.Enum, string(c))
		}
	case reflect.TypeFor[[]agent.Item]():
		// A job's richData: each item a transaction or an order proposal, told apart by type.
		tx, err := g.ref(agent.Transaction{}, false)
		if err != nil {
			g.err = err
		}
		order, err := g.ref(agent.OrderProposal{}, false)
		if err != nil {
			g.err = err
		}
		g.schemas["AgentRichDataItem"] = (&openapi3.Schema{OneOf: openapi3.SchemaRefs{tx, order}}).NewRef()
		g.claim("AgentRichDataItem", reflect.TypeFor[agent.Item]())
		list := openapi3.NewArraySchema()
		list.Items = openapi3.NewSchemaRef("#/components/schemas/AgentRichDataItem", nil)
		return list.NewRef(), true
	case reflect.TypeFor[toolArguments]():
		name, s = "ToolArguments", openapi3.NewObjectSchema()
	case reflect.TypeFor[market.Phase]():
		name, s = "Phase", openapi3.NewStringSchema().WithEnum(string(market.PhaseCurve), string(market.PhaseGraduated))
	case reflect.TypeFor[agent.Status]():
		name, s = "JobStatus", openapi3.NewStringSchema().WithEnum(string(agent.StatusPending), string(agent.StatusProcessing),
			string(agent.StatusCompleted), string(agent.StatusFailed), string(agent.StatusCancelled))
	case reflect.TypeFor[curvekit.Tier]():
		name, s = "Tier", openapi3.NewStringSchema().WithEnum(string(curvekit.TierFree), string(curvekit.TierPro))
	case reflect.TypeFor[curvekit.Side]():
		name, s = "Side", openapi3.NewStringSchema().WithEnum(string(curvekit.Buy), string(curvekit.Sell))
	case reflect.TypeFor[curvekit.Venue]():
		name, s = "Venue", openapi3.NewStringSchema().WithEnum(string(curvekit.VenueCurve), string(curvekit.VenuePool))
	default:
		return nil, false
	}
	g.schemas[name] = s.NewRef()
	g.claim(name, t)
	return openapi3.NewSchemaRef("#/components/schemas/"+name, nil), true
}

// customize adjusts what openapi3gen made of t.
func (g *schemaGen) customize(t reflect.Type, s *openapi3.Schema, request bool) error {
	if t == reflect.TypeFor[jsonschema.Schema]() || t == reflect.TypeFor[agent.Item]() {
		// A JSON Schema is free-form here, and a richData item a union of its own (see special):
		// their structs are not described (the field is replaced).
		return &openapi3gen.ExcludeSchemaSentinel{}
	}
	if sp, ok := g.special(t); ok {
		*s = openapi3.Schema{AllOf: openapi3.SchemaRefs{sp}}
		if sp.Ref == "" {
			*s = *sp.Value
		}
		return nil
	}
	// OpenAPI 3.1 has no nullable: a null is a type.
	if s.Nullable {
		s.Nullable = false
		if s.Type != nil && !request {
			*s.Type = append(*s.Type, "null")
		}
	}
	// openapi3gen's bounds and formats of sized integers say nothing a client needs.
	if s.Type.Is("integer") {
		s.Min, s.Max, s.Format = nil, nil, ""
		if t.Kind() >= reflect.Uint && t.Kind() <= reflect.Uint64 {
			s.Min = openapi3.Float64Ptr(0)
		}
	}
	if t.Kind() != reflect.Struct || s.Properties == nil {
		return nil
	}
	s.AdditionalProperties = openapi3.AdditionalProperties{Has: openapi3.BoolPtr(false)}
	for _, f := range wireFields(t) {
		prop := s.Properties[f.name]
		if sp, ok := g.special(f.typ); ok {
			s.Properties[f.name], prop = sp, sp
		}
		if prop == nil {
			continue
		}
		if enum := f.enum; enum != "" && prop.Value != nil {
			for _, e := range strings.Split(enum, ",") {
				prop.Value.Enum = append(prop.Value.Enum, e)
			}
		}
		if request {
			if f.required {
				s.Required = append(s.Required, f.name)
			}
			continue
		}
		if !f.omitempty {
			s.Required = append(s.Required, f.name)
		} else if prop.Value != nil && prop.Value.Type != nil {
			// An omitted pointer is absent, never null.
			*prop.Value.Type = slices.DeleteFunc(*prop.Value.Type, func(t string) bool { return t == "null" })
		}
		// A pointer to a named schema may be null.
		if f.typ.Kind() == reflect.Pointer && !f.omitempty && strings.HasPrefix(prop.Ref, "#/components/") {
			s.Properties[f.name] = &openapi3.SchemaRef{Value: &openapi3.Schema{AnyOf: openapi3.SchemaRefs{
				prop, {Value: &openapi3.Schema{Type: &openapi3.Types{"null"}}},
			}}}
		}
	}
	slices.Sort(s.Required)
	return nil
}

type jsonField struct {
	name                string
	typ                 reflect.Type
	omitempty, required bool
	enum                string // the values of a string, from the tag enum:"a,b"
}

// wireFields are the fields encoding/json writes for struct t, embedded structs flattened.
func wireFields(t reflect.Type) []jsonField {
	var out []jsonField
	for i := range t.NumField() {
		f := t.Field(i)
		tag, hasTag := f.Tag.Lookup("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if f.Anonymous && !hasTag && f.Type.Kind() == reflect.Struct {
			out = append(out, wireFields(f.Type)...)
			continue
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		out = append(out, jsonField{name: name, typ: f.Type,
			omitempty: strings.Contains(opts, "omitempty") || strings.Contains(opts, "omitzero"),
			required:  f.Tag.Get("openapi") == "required", enum: f.Tag.Get("enum")})
	}
	return out
}

// verdict is the answer of a validator route (quote, build-tx): the result, or {error} with
// status 200 for a request it refuses. A named union, so generators make one type of it.
func (g *schemaGen) verdict(ok *openapi3.SchemaRef) (*openapi3.SchemaRef, error) {
	refusal, err := g.ref(validationBody{}, false)
	if err != nil {
		return nil, err
	}
	if strings.HasPrefix(schemaName(ok), "Udf") {
		// The datafeed refuses as UDF does; its history answer carries its own "error".
		if schemaName(ok) == "UdfHistory" {
			return ok, nil
		}
		if refusal, err = g.ref(udfErrorJSON{}, false); err != nil {
			return nil, err
		}
	}
	name := schemaName(ok) + "Verdict"
	g.schemas[name] = &openapi3.SchemaRef{Value: &openapi3.Schema{OneOf: openapi3.SchemaRefs{ok, refusal}}}
	return openapi3.NewSchemaRef("#/components/schemas/"+name, nil), nil
}

func schemaName(ref *openapi3.SchemaRef) string {
	return strings.TrimPrefix(ref.Ref, "#/components/schemas/")
}

// OpenAPI returns the OpenAPI 3.1 document of the API (GET /openapi.json).
func (s *Server) OpenAPI() []byte { return bytes.Clone(s.openapi) }

// serveOpenAPI answers the document built at New.
func (s *Server) serveOpenAPI(w http.ResponseWriter, _ bunrouter.Request) error {
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Cache-Control", "public, max-age=300")
	h["X-Content-Type-Options"] = nosniff
	w.WriteHeader(http.StatusOK)
	_, err := w.Write(s.openapi)
	return err
}
