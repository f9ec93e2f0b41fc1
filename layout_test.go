package curvekit_test

import (
	"os/exec"
	"strings"
	"testing"
)

// purePackages may hold only logic: no adapter, database, router or network client. Every package
// that is not an adapter or an example belongs here; a new one is added in the commit that makes it.
var purePackages = []string{
	".",
	"./curve",
	"./candles",
	"./txbuild",
	"./contracts",
	"./auth",
	"./market",
	"./stream",
}

// forbidden lists import path prefixes that pure packages must not reach, directly or not.
// database/sql itself is not among them: holiman/uint256 implements its Scanner and Valuer, so
// the interfaces come along; the drivers and ORMs that talk to a database are.
var forbidden = []string{
	"github.com/curvekit/curvekit/adapters",
	"github.com/curvekit/curvekit/examples",
	"github.com/uptrace/",
	"modernc.org/sqlite",
	"github.com/jackc/",
	"github.com/lib/pq",
	"github.com/redis/",
	"github.com/go-redis/",
	"github.com/ethereum/go-ethereum/ethclient",
	"github.com/ethereum/go-ethereum/rpc",
	"github.com/ethereum/go-ethereum/node",
	"github.com/ethereum/go-ethereum/eth",
}

// forbiddenDeps returns the forbidden packages among pkg's transitive imports.
func forbiddenDeps(t *testing.T, pkg string) []string {
	t.Helper()
	out, err := exec.Command("go", "list", "-deps", pkg).CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps %s: %v\n%s", pkg, err, out)
	}
	var bad []string
	for _, dep := range strings.Fields(string(out)) {
		for _, f := range forbidden {
			if dep == f || strings.HasPrefix(dep, f+"/") || (strings.HasSuffix(f, "/") && strings.HasPrefix(dep, f)) {
				bad = append(bad, dep)
			}
		}
	}
	return bad
}

func TestPurePackagesImportNoInfrastructure(t *testing.T) {
	for _, pkg := range purePackages {
		if bad := forbiddenDeps(t, pkg); len(bad) > 0 {
			t.Errorf("%s imports infrastructure it must reach through a port: %v", pkg, bad)
		}
	}
}

// The check itself must be able to fail: an adapter does import infrastructure.
func TestLayoutCheckDetectsAdapters(t *testing.T) {
	if bad := forbiddenDeps(t, "./adapters/ratelimit"); len(bad) == 0 {
		t.Fatal("adapters/ratelimit reaches no forbidden package; the layout check is blind")
	}
}
