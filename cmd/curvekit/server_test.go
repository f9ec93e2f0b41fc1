package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/cookiejar"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/curvekit/curvekit/internal/app"
	"github.com/curvekit/curvekit/internal/app/apptest"
)

// binary is the curvekit command built once for every test of this package: the tests run it as
// a person would, as a subprocess.
var binary string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "curvekit-cli")
	if err != nil {
		panic(err)
	}
	binary = filepath.Join(dir, "curvekit")
	build := exec.Command("go", "build", "-o", binary, ".")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		panic("build curvekit: " + err.Error())
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// testServer is the reference server wired by internal/app on a devnet, on a loopback socket.
type testServer struct {
	app    *app.App
	base   string
	signer *apptest.CountingSigner
}

func startServer(t testing.TB, flags ...string) *testServer {
	t.Helper()
	srv := apptest.Start(t, flags)
	return &testServer{app: srv.App, base: srv.Base, signer: srv.Signer}
}

// getJSON decodes a public GET of the API, the reference the command's output is compared with.
func (s *testServer) getJSON(t testing.TB, path string, out any) {
	t.Helper()
	resp, err := http.Get(s.base + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		t.Fatal(err)
	}
}

// signIn signs in through the server's development identity provider, as a browser would,
// and returns an HTTP client holding the session cookie. It skips the test on a server
// without sign-in.
func (s *testServer) signIn(t testing.TB, handle string) *http.Client {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar, Timeout: 10 * time.Second}
	resp, err := c.Get(s.base + "/auth/login?login_hint=" + handle)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.Request.URL.Path == "/auth/login" && resp.StatusCode == http.StatusNotFound {
		t.Skip("this server has no sign-in: API keys cannot be made")
	}
	if resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusNotFound {
		t.Fatalf("sign-in ended at %s with %d: %s", resp.Request.URL, resp.StatusCode, body)
	}
	return c
}

// apiKey creates an API key for a session (POST /api-keys) and returns the raw key and its id.
func (s *testServer) apiKey(t testing.TB, session *http.Client, body string) (key, id string) {
	t.Helper()
	resp, err := session.Post(s.base+"/api-keys", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out struct {
		ID  string `json:"id"`
		Key string `json:"key"`
	}
	raw, _ := io.ReadAll(resp.Body)
	if resp.StatusCode/100 != 2 || json.Unmarshal(raw, &out) != nil || !strings.HasPrefix(out.Key, "svc_") {
		t.Fatalf("POST /api-keys: %d %s", resp.StatusCode, raw)
	}
	return out.Key, out.ID
}

// revoke revokes a key with the session that made it.
func (s *testServer) revoke(t testing.TB, session *http.Client, id string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodDelete, s.base+"/api-keys/"+id, nil)
	resp, err := session.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		t.Fatalf("DELETE /api-keys/%s: %d", id, resp.StatusCode)
	}
}

// result is one run of the binary.
type result struct {
	stdout, stderr string
	code           int
}

// run runs the binary with args, the environment cleared of CURVEKIT_* settings but for env,
// and stdin.
func run(t testing.TB, stdin string, env []string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, args...)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "CURVEKIT_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, env...)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	r := result{stdout: out.String(), stderr: errOut.String()}
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		r.code = exit.ExitCode()
	case err != nil:
		t.Fatalf("run %v: %v", args, err)
	}
	return r
}
