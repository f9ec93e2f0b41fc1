package apiclient

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/curvekit/curvekit"
)

func TestToolsAndCallTool(t *testing.T) {
	var bodies []string
	c := newClient(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.Method + " " + r.URL.Path {
		case "GET /agent/tools":
			w.Write([]byte(`{"tools":[{"name":"quote","description":"Price a trade.","composes":false,"inputSchema":{"type":"object","required":["token"]}}]}`))
		case "POST /agent/tools/quote":
			b, _ := io.ReadAll(r.Body)
			bodies = append(bodies, string(b))
			if string(b) == `{"token":1}` {
				w.WriteHeader(http.StatusBadRequest)
				w.Write([]byte(`{"statusCode":400,"message":["token must be a string","side is required"]}`))
				return
			}
			w.Write([]byte(`{"tool":"quote","summary":"about 1 FROG","data":{"amountOut":"1"},"transactions":[]}`))
		default:
			w.WriteHeader(http.StatusNotFound)
			w.Write([]byte(`{"statusCode":404,"message":"no tool \"nope\""}`))
		}
	}, Config{APIKey: "svc_abc"})
	ctx := context.Background()
	tools, err := c.Tools(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := []Tool{{Name: "quote", Description: "Price a trade.", InputSchema: json.RawMessage(`{"type":"object","required":["token"]}`)}}
	if diff := cmp.Diff(want, tools); diff != "" {
		t.Errorf("tools (-want +got):\n%s", diff)
	}
	res, err := c.CallTool(ctx, "quote", map[string]string{"token": "FROG"})
	if err != nil || res.Summary != "about 1 FROG" || string(res.Data) != `{"amountOut":"1"}` || res.Transactions == nil {
		t.Fatalf("%+v %v", res, err)
	}
	for _, none := range []any{nil, json.RawMessage(nil), json.RawMessage(" null ")} {
		if _, err := c.CallTool(ctx, "quote", none); err != nil {
			t.Fatal(err)
		}
	}
	_, err = c.CallTool(ctx, "quote", json.RawMessage(`{"token":1}`))
	var apiErr *Error
	if !errors.As(err, &apiErr) || !errors.Is(err, curvekit.ErrInvalid) || len(apiErr.Messages) != 2 {
		t.Fatalf("err = %v", err)
	}
	if diff := cmp.Diff([]string{`{"token":"FROG"}`, `{}`, `{}`, `{}`, `{"token":1}`}, bodies); diff != "" {
		t.Errorf("bodies (-want +got):\n%s", diff)
	}
	if _, err := c.CallTool(ctx, "nope", nil); !errors.Is(err, curvekit.ErrNotFound) {
		t.Errorf("unknown tool: %v", err)
	}
	anon, _ := New(Config{BaseURL: c.BaseURL()})
	if _, err := anon.Tools(ctx); !errors.Is(err, ErrNoKey) {
		t.Errorf("without a key: %v", err)
	}
}
