package mcp_test

import (
	"context"
	"net/http"
	"net/http/cookiejar"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestRemoteMCPSessionEndsWithItsKey: an MCP client's session over streamable HTTP works until
// its key is revoked; from then on every message of the session is refused (401), and a new
// session cannot start with the key.
func TestRemoteMCPSessionEndsWithItsKey(t *testing.T) {
	s := startServer(t)
	jar, _ := cookiejar.New(nil)
	person := &http.Client{Jar: jar, Timeout: 10 * time.Second}
	resp, err := person.Get(s.base + "/auth/login?login_hint=mcp-revoked")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	var k struct{ ID, Key string }
	if st := s.call(t, person, http.MethodPost, "/api-keys", `{"name":"mcp"}`, &k); st != http.StatusCreated {
		t.Fatalf("POST /api-keys: %d", st)
	}
	endpoint := s.base + "/mcp"
	connect := func() (*sdk.ClientSession, error) {
		return sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil).
			Connect(context.Background(), &sdk.StreamableClientTransport{Endpoint: endpoint, HTTPClient: &http.Client{Transport: bearer{key: k.Key}}}, nil)
	}
	cs, err := connect()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	var st map[string]any
	callTool(t, cs, "get_settings", map[string]any{}, &st)

	if code := s.call(t, person, http.MethodDelete, "/api-keys/"+k.ID, "", nil); code != http.StatusOK {
		t.Fatalf("DELETE /api-keys/%s: %d", k.ID, code)
	}
	if _, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "get_settings", Arguments: map[string]any{}}); err == nil || !strings.Contains(err.Error(), "Unauthorized") {
		t.Fatalf("a call of the revoked key's session: %v", err)
	}
	if _, err := cs.ListTools(context.Background(), nil); err == nil {
		t.Fatal("the revoked key's session listed the tools")
	}
	if _, err := connect(); err == nil || !strings.Contains(err.Error(), "Unauthorized") {
		t.Fatalf("a new session with the revoked key: %v", err)
	}
}
