package gethtest

import (
	"os"
	"strings"
	"testing"
)

// The geth of the tests is the go-ethereum of go.mod.
func TestVersionIsGoMods(t *testing.T) {
	got, err := Version()
	if err != nil {
		t.Fatal(err)
	}
	mod, err := os.ReadFile("../../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(mod), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == module {
			if f[1] != got {
				t.Fatalf("Version() = %s; go.mod requires %s", got, f[1])
			}
			return
		}
	}
	t.Fatalf("go.mod does not require %s", module)
}

// The geth of the tests builds (CI runs this first, with time for a cold build, so that no
// package of the suite spends its ten minutes on it).
func TestBinary(t *testing.T) {
	Require(t)
	if bin := Binary(t); bin == "" {
		t.Fatal("no geth")
	}
}
