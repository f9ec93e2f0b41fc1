package httpapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/uptrace/bunrouter"

	"github.com/curvekit/curvekit"
	"github.com/curvekit/curvekit/agent"
	"github.com/curvekit/curvekit/auth"
)

// agentToolRoutes offer the agent's tools one by one, as the planner calls them: the same tool
// set serves the LLM, the offline planner and MCP (which calls these routes). A tool runs for the
// caller's wallet, from the session or the key, never one named in the body. No tool signs or
// sends, so a read-only key may call every one.
func (s *Server) agentToolRoutes() []group {
	if s.cfg.Agent == nil {
		return nil
	}
	return []group{{prefix: "/agent", routes: []route{
		{method: http.MethodGet, path: "/tools", access: SessionOrKey, class: auth.ClassDefault, handle: s.listAgentTools},
		{method: http.MethodPost, path: "/tools/:name", access: SessionOrKey, class: auth.ClassDefault, handle: s.callAgentTool, notFound: "tool not found"},
	}}}
}

type agentToolJSON struct {
	Name        string             `json:"name"`
	Description string             `json:"description"`
	Composes    bool               `json:"composes"`
	InputSchema *jsonschema.Schema `json:"inputSchema"`
}

type agentToolsJSON struct {
	Tools []agentToolJSON `json:"tools"`
}

// GET /agent/tools: every tool with its JSON input schema, in the planner's order.
func (s *Server) listAgentTools(w http.ResponseWriter, _ bunrouter.Request) error {
	tools := s.cfg.Agent.Tools()
	out := make([]agentToolJSON, len(tools))
	for i, t := range tools {
		out[i] = agentToolJSON{Name: t.Name, Description: t.Description, Composes: t.Composes, InputSchema: t.InputSchema}
	}
	return writeJSON(w, http.StatusOK, agentToolsJSON{Tools: out})
}

// agentToolResultJSON is a tool's answer: transactions and orders are [] when the tool composed
// none.
type agentToolResultJSON struct {
	Tool         string                `json:"tool"`
	Summary      string                `json:"summary"`
	Data         any                   `json:"data,omitempty"`
	Transactions []agent.Transaction   `json:"transactions"`
	Orders       []agent.OrderProposal `json:"orders"`
}

// POST /agent/tools/:name: the body is the tool's arguments (an empty body is {}); every problem
// of the arguments against the tool's schema is reported at once.
func (s *Server) callAgentTool(w http.ResponseWriter, req bunrouter.Request) error {
	name := req.Param("name")
	tools := s.cfg.Agent.Tools()
	i := slices.IndexFunc(tools, func(t agent.Tool) bool { return t.Name == name })
	if i < 0 {
		return fmt.Errorf("%w: no tool %q", curvekit.ErrNotFound, name)
	}
	data, err := readBody(w, req.Request, defaultMaxBody)
	if err != nil {
		return err
	}
	if len(bytes.TrimSpace(data)) == 0 {
		data = []byte("{}")
	}
	if err := checkToolArgs(tools[i].InputSchema, data); err != nil {
		return err
	}
	res, err := s.cfg.Agent.RunTool(req.Context(), agent.RunToolParams{Wallet: principalOf(req).Wallet, Name: name, Args: data, ReadOnly: principalOf(req).ReadOnly})
	if err != nil {
		return err
	}
	out := agentToolResultJSON{Tool: name, Summary: res.Summary, Data: res.Data, Transactions: res.Transactions, Orders: res.Orders}
	if out.Transactions == nil {
		out.Transactions = []agent.Transaction{}
	}
	if out.Orders == nil {
		out.Orders = []agent.OrderProposal{}
	}
	return writeJSON(w, http.StatusOK, out)
}

// checkToolArgs checks a body against a tool's input schema (a flat object of strings and
// integers) as strictly as every other body: one JSON object, no repeated key, no key the schema
// does not name (case included), no null, every required key. Problems are all reported (several
// as curvekit.Problems, an array on the wire); the tool checks its values' meaning itself when it runs.
func checkToolArgs(schema *jsonschema.Schema, data []byte) error {
	obj, err := singleObject(data, "body must be a JSON object of the tool's arguments")
	if err != nil {
		return err
	}
	var problems curvekit.Problems
	seen := map[string]bool{}
	dec := json.NewDecoder(bytes.NewReader(obj))
	dec.UseNumber()
	if _, err := dec.Token(); err != nil { // {
		return invalid("body is not a valid JSON object: %s", jsonProblem(err))
	}
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			return invalid("body is not a valid JSON object: %s", jsonProblem(err))
		}
		key := kt.(string)
		var v any
		if err := dec.Decode(&v); err != nil {
			return invalid("body is not a valid JSON object: %s", jsonProblem(err))
		}
		if seen[key] {
			problems = append(problems, key+" is given more than once")
			continue
		}
		seen[key] = true
		prop, ok := schema.Properties[key]
		if !ok {
			problems = append(problems, "unknown field "+key)
			continue
		}
		if p := typeProblem(key, prop.Type, v); p != "" {
			problems = append(problems, p)
		}
	}
	for _, key := range schema.Required {
		if !seen[key] {
			problems = append(problems, key+" is required")
		}
	}
	switch len(problems) {
	case 0:
		return nil
	case 1:
		return invalid("%s", problems[0])
	}
	return problems
}

// typeProblem says how v fails the JSON type want; "" when it does not.
func typeProblem(key, want string, v any) string {
	ok := true
	switch want {
	case "string":
		_, ok = v.(string)
	case "integer":
		n, isNum := v.(json.Number)
		_, err := strconv.ParseInt(string(n), 10, 64)
		ok = isNum && err == nil
	case "number":
		_, ok = v.(json.Number)
	case "boolean":
		_, ok = v.(bool)
	case "object":
		_, ok = v.(map[string]any)
	case "array":
		_, ok = v.([]any)
	}
	if ok && v != nil {
		return ""
	}
	article := "a"
	if want == "integer" || want == "object" || want == "array" {
		article = "an"
	}
	return fmt.Sprintf("%s must be %s %s", key, article, want)
}
