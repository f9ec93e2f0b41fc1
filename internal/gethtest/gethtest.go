// Package gethtest runs go-ethereum's own geth for tests: built from the Go module proxy at the
// go-ethereum version of this module's go.mod, cached between runs, and started in --dev mode on
// a data directory of the test's own, with a prefunded account that funds plain test keys.
//
// The tests that use it run when CURVEKIT_TEST_GETH=1 (CI sets it) and skip otherwise, and under
// the race detector: the first build takes minutes, and geth mines in real time.
package gethtest

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// Env names the variable that turns the tests against geth on.
const Env = "CURVEKIT_TEST_GETH"

// module is go-ethereum's module path; geth is its command.
const module = "github.com/ethereum/go-ethereum"

// Require skips t unless CURVEKIT_TEST_GETH=1, and under the race detector.
func Require(t testing.TB) {
	t.Helper()
	if os.Getenv(Env) != "1" {
		t.Skip(Env + "=1 runs the tests against go-ethereum's geth")
	}
	if raceDetector {
		t.Skip("the tests against geth do not run under the race detector: geth mines in real time")
	}
}

// Version returns the version of go-ethereum this module requires (go.mod's, as the go tool
// reads it from the working directory, with a replace applied), so that the geth of the tests is
// the go-ethereum of the server.
func Version() (string, error) {
	out, err := exec.Command("go", "list", "-m", "-f", "{{with .Replace}}{{.Version}}{{else}}{{.Version}}{{end}}", module).Output()
	if err != nil {
		return "", fmt.Errorf("gethtest: go list -m %s: %w", module, err)
	}
	v := strings.TrimSpace(string(out))
	if v == "" {
		return "", errors.New("gethtest: go.mod requires no version of " + module)
	}
	return v, nil
}
