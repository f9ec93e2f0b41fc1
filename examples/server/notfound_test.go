package main

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// An unknown token is one answer everywhere, as docs/API.md gives it: 404 "token not found".
func TestUnknownTokenIsOneAnswer(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	const nobody = "0x1111111111111111111111111111111111111111"
	for _, r := range []struct{ method, path, body string }{
		{http.MethodGet, "/tokens/" + nobody, ""},
		{http.MethodGet, "/tokens/" + nobody + "/quote?type=buy&amount=1", ""},
		{http.MethodPost, "/tokens/" + nobody + "/build-tx", `{"type":"buy","amount":"1"}`},
		{http.MethodGet, "/tokens/" + nobody + "/trades", ""},
		{http.MethodGet, "/tokens/" + nobody + "/candles", ""},
		{http.MethodGet, "/tokens/" + nobody + "/stats", ""},
		{http.MethodGet, "/tokens/" + nobody + "/holders", ""},
		{http.MethodGet, "/tokens/" + nobody + "/logo", ""},
	} {
		req, _ := http.NewRequest(r.method, s.base+r.path, strings.NewReader(r.body))
		if r.body != "" {
			req.Header.Set("Content-Type", "application/json")
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusNotFound || string(body) != `{"statusCode":404,"message":"token not found"}`+"\n" {
			t.Errorf("%s %s: %d %s", r.method, r.path, resp.StatusCode, body)
		}
	}
}
