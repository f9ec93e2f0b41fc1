package app_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/curvekit/curvekit/internal/app/apptest"
	"github.com/curvekit/curvekit/internal/openapitest"
)

// The wired server serves an OpenAPI 3.1 document that kin-openapi loads and validates, with an
// operation for every route of the table (the API's and the mounted ones), named schemas for
// every request and response, security per access, and the rate-limit class of each.
// CURVEKIT_OPENAPI_OUT, when set, receives the document (CI lints it and generates clients).
func TestOpenAPIDocumentDescribesEveryRoute(t *testing.T) {
	raw := servedDocument(t)
	if out := os.Getenv("CURVEKIT_OPENAPI_OUT"); out != "" {
		if err := os.WriteFile(out, raw, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	doc, err := openapitest.Load(raw)
	if err != nil {
		t.Fatal(err)
	}
	if doc.OpenAPI != "3.1.0" {
		t.Errorf("openapi %q, want 3.1.0", doc.OpenAPI)
	}
	var ops []string
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			ops = append(ops, method+" "+path)
			if op.OperationID == "" || op.Summary == "" {
				t.Errorf("%s %s: operationId %q, summary %q", method, path, op.OperationID, op.Summary)
			}
			if _, ok := op.Extensions["x-rate-limit-class"]; !ok {
				t.Errorf("%s %s: no x-rate-limit-class", method, path)
			}
			if op.Security == nil {
				t.Errorf("%s %s: no security requirement (public routes say [])", method, path)
			}
			if op.Responses.Default() == nil {
				t.Errorf("%s %s: no default (error) response", method, path)
			}
			// Every JSON body is a named schema, so that generators name its type.
			for status, r := range op.Responses.Map() {
				if r.Value == nil {
					continue
				}
				if mt := r.Value.Content["application/json"]; mt != nil && mt.Schema != nil && mt.Schema.Ref == "" &&
					!strings.HasPrefix(path, "/dev-oauth") && !strings.HasPrefix(path, "/mcp") {
					t.Errorf("%s %s %s: an anonymous response schema", method, path, status)
				}
			}
			if op.RequestBody != nil && op.RequestBody.Value != nil {
				if mt := op.RequestBody.Value.Content["application/json"]; mt != nil && mt.Schema != nil && mt.Schema.Ref == "" &&
					!strings.HasPrefix(path, "/dev-oauth") && !strings.HasPrefix(path, "/mcp") {
					t.Errorf("%s %s: an anonymous request schema", method, path)
				}
			}
		}
	}
	slices.Sort(ops)
	// The route table, as GET / would route it: every route is an operation.
	for _, want := range []string{
		"GET /openapi.json", "GET /config", "GET /healthz", "GET /readyz",
		"GET /tokens", "GET /tokens/{address}", "GET /tokens/{address}/quote", "POST /tokens/{address}/build-tx",
		"GET /tokens/{address}/trades", "GET /tokens/{address}/candles", "GET /tokens/{address}/stats",
		"GET /tokens/stream", "GET /tokens/{address}/stream", "GET /tokens/{address}/logo",
		"GET /auth/login", "GET /auth/callback", "GET /auth/me", "GET /auth/session", "GET /auth/logout", "GET /auth/user/{wallet}",
		"POST /api-keys", "GET /api-keys", "DELETE /api-keys/{id}",
		"POST /wallet/sign-and-submit", "POST /wallet/export-key",
		"POST /agent/job", "GET /agent/job/{id}", "POST /agent/job/{id}/cancel", "POST /agent/prompt",
		"GET /agent/memory", "DELETE /agent/memory/{key}", "GET /agent/tools", "POST /agent/tools/{name}",
		"POST /launch/metadata", "POST /launch/upload-image", "GET /launch/estimate-fee", "GET /launch/daily-limit/{wallet}",
		"GET /launch/fees/{wallet}", "GET /launch/earnings/{wallet}", "GET /ipfs/{cid}",
		"GET /mcp", "POST /mcp", "DELETE /mcp",
	} {
		if !slices.Contains(ops, want) {
			t.Errorf("the document has no %s; it has %v", want, ops)
		}
	}
	// The pieces generators and the web front-end rely on.
	var generic map[string]any
	if err := json.Unmarshal(raw, &generic); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"Token", "TokenList", "Quote", "QuoteVerdict", "Build", "BuildVerdict", "Trade", "Bar", "Series",
		"Tick", "Error", "ErrorMessage", "Refusal", "Phase", "Side", "Venue", "Resolution"} {
		if doc.Components.Schemas[name] == nil {
			t.Errorf("no component schema %s", name)
		}
	}
	for _, name := range []string{"apiKey", "session", "bearer"} {
		if doc.Components.SecuritySchemes[name] == nil {
			t.Errorf("no security scheme %s", name)
		}
	}
}

// docs/API.md's route table is the document's: the same routes, methods and rate-limit classes
// (the development identity provider's endpoints are described in prose).
func TestAPIDocRoutesMatchTheDocument(t *testing.T) {
	doc, err := openapitest.Load(servedDocument(t))
	if err != nil {
		t.Fatal(err)
	}
	served := map[string]string{}
	for path, item := range doc.Paths.Map() {
		if strings.HasPrefix(path, "/dev-oauth/") {
			continue
		}
		for method, op := range item.Operations() {
			served[method+" "+path] = op.Extensions["x-rate-limit-class"].(string)
		}
	}
	md, err := os.ReadFile("../../docs/API.md")
	if err != nil {
		t.Fatal(err)
	}
	_, table, _ := strings.Cut(string(md), "\n## Routes\n")
	table, _, _ = strings.Cut(table, "\n## ")
	documented := map[string]string{}
	for _, line := range strings.Split(table, "\n") {
		cells := strings.Split(line, "|")
		if len(cells) < 5 || !strings.HasPrefix(strings.TrimSpace(cells[2]), "`") {
			continue
		}
		path := openAPIPath(strings.Trim(strings.TrimSpace(cells[2]), "`"))
		class, _, _ := strings.Cut(strings.TrimSpace(cells[3]), ",")
		documented[strings.TrimSpace(cells[1])+" "+path] = strings.ReplaceAll(class, " ", "-")
	}
	for op, class := range served {
		if got, ok := documented[op]; !ok {
			t.Errorf("docs/API.md's route table has no %s", op)
		} else if got != class {
			t.Errorf("docs/API.md says %s is in class %s; the server puts it in %s", op, got, class)
		}
	}
	for op := range documented {
		if _, ok := served[op]; !ok {
			t.Errorf("docs/API.md lists %s, which the server does not serve", op)
		}
	}
}

// openAPIPath writes ":name" segments as "{name}".
func openAPIPath(p string) string {
	segs := strings.Split(p, "/")
	for i, s := range segs {
		if name, ok := strings.CutPrefix(s, ":"); ok {
			segs[i] = "{" + name + "}"
		}
	}
	return strings.Join(segs, "/")
}

// servedDocument is GET /openapi.json of the wired server.
func servedDocument(t *testing.T) []byte {
	t.Helper()
	srv := apptest.Start(t, nil)
	res, err := http.Get(srv.Base + "/openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusOK || res.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("GET /openapi.json: %d %s", res.StatusCode, res.Header.Get("Content-Type"))
	}
	return raw
}

// The web front-end's API types are generated from a copy of the document
// (adapters/web/ui/openapi.json, by openapi-typescript); the copy must be the served document, so
// the page's types follow the API.
func TestWebTypesFollowTheDocument(t *testing.T) {
	raw := servedDocument(t)
	copied, err := os.ReadFile(filepath.Join("..", "..", "adapters", "web", "ui", "openapi.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(raw, copied) {
		t.Fatal("adapters/web/ui/openapi.json is not the served document; refresh it and what is built from it:\n" +
			"  CURVEKIT_OPENAPI_OUT=$PWD/adapters/web/ui/openapi.json go test -run TestOpenAPIDocumentDescribesEveryRoute ./internal/app\n" +
			"  cd adapters/web/ui && npm ci && npm run types && npm run build")
	}
}
