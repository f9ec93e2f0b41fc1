package curvekit_test

import (
	"os/exec"
	"strings"
	"testing"
)

// impure are the packages allowed to reach infrastructure: adapters, the binaries and their
// wiring, and the contracts' generated bindings and build tools. Every other package of the module
// is pure (deny by default): a new package is checked from the commit that adds it, and becomes an
// exception only by being listed here.
var impure = []string{
	"github.com/curvekit/curvekit/adapters/",
	"github.com/curvekit/curvekit/examples/",
	"github.com/curvekit/curvekit/cmd/",
	"github.com/curvekit/curvekit/internal/app",
	"github.com/curvekit/curvekit/internal/testworld",
	"github.com/curvekit/curvekit/internal/openapitest",
	"github.com/curvekit/curvekit/internal/pgtest",
	"github.com/curvekit/curvekit/internal/gethtest",
	"github.com/curvekit/curvekit/contracts/bindings",
	"github.com/curvekit/curvekit/contracts/internal/",
}

// purePackages lists every package of the module that is not in impure. Test-only packages
// (conformance suites such as market/markettest) are pure as well: they test through ports.
func purePackages(t *testing.T) []string {
	t.Helper()
	out, err := exec.Command("go", "list", "./...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list ./...: %v\n%s", err, out)
	}
	var pure []string
	for _, pkg := range strings.Fields(string(out)) {
		listed := false
		for _, p := range impure {
			if pkg == strings.TrimSuffix(p, "/") || (strings.HasSuffix(p, "/") && strings.HasPrefix(pkg, p)) || strings.HasPrefix(pkg, p+"/") {
				listed = true
			}
		}
		if !listed {
			pure = append(pure, pkg)
		}
	}
	if len(pure) < 8 {
		t.Fatalf("only %d pure packages found: %v", len(pure), pure)
	}
	return pure
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
	"net/http",
	"golang.org/x/oauth2",
	"github.com/coreos/go-oidc",
	"github.com/prometheus/",
	"github.com/sashabaranov/",
	"github.com/modelcontextprotocol/",
	"github.com/alecthomas/kong",
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
	for _, pkg := range purePackages(t) {
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
