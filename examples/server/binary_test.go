package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// builtIn is the directory of the binary serverBinary built, removed when the tests end.
var builtIn string

// serverBinary builds the reference server's binary from this package once, for every test that
// runs it as a process (linking it takes seconds each time).
var serverBinary = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "curvekit-server-")
	if err != nil {
		return "", err
	}
	builtIn = dir
	bin := filepath.Join(dir, "server")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		return "", fmt.Errorf("build the server: %v\n%s", err, out)
	}
	return bin, nil
})

// mustServerBinary is serverBinary for a test. Under the race detector the test skips: the
// server it would run is a process of its own, built without the detector, so the detector would
// watch only the test's clients, and the plain suite runs the same test.
func mustServerBinary(t testing.TB) string {
	t.Helper()
	if raceDetector {
		t.Skip("the tests of server processes do not run under the race detector: the processes are built without it")
	}
	bin, err := serverBinary()
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

func TestMain(m *testing.M) {
	code := m.Run()
	if builtIn != "" {
		os.RemoveAll(builtIn)
	}
	os.Exit(code)
}
