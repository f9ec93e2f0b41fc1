package gethtest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// tools is the scratch module's only file: go.mod gains cmd/geth's dependencies through it (this
// module's go.sum lacks them, so geth cannot be built from here).
const tools = `//go:build tools

package tools

import _ "github.com/ethereum/go-ethereum/cmd/geth"
`

// Binary returns the path of geth at Version, built on the first call on this machine (minutes)
// and cached under the user's cache directory afterwards. It fails t when geth cannot be built.
func Binary(t testing.TB) string {
	t.Helper()
	version, err := Version()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	start := time.Now()
	bin, built, err := Build(ctx, version)
	if err != nil {
		t.Fatal(err)
	}
	if built {
		t.Logf("built geth %s from the module proxy in %v: %s", version, time.Since(start).Round(time.Second), bin)
	}
	return bin
}

// CacheDir is where geth of version is kept: <user cache>/curvekit-geth/<version>.
func CacheDir(version string) (string, error) {
	base, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("gethtest: %w", err)
	}
	return filepath.Join(base, "curvekit-geth", version), nil
}

// Build returns the path of geth at version, building it first unless the cache holds it, and
// whether it built it. A lock file keeps two processes from building it at once; the binary
// appears in the cache whole (renamed into place) or not at all.
func Build(ctx context.Context, version string) (bin string, built bool, err error) {
	dir, err := CacheDir(version)
	if err != nil {
		return "", false, err
	}
	bin = filepath.Join(dir, "geth")
	if _, err := os.Stat(bin); err == nil {
		return bin, false, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", false, fmt.Errorf("gethtest: %w", err)
	}
	unlock, err := lock(filepath.Join(dir, "build.lock"))
	if err != nil {
		return "", false, fmt.Errorf("gethtest: lock the build: %w", err)
	}
	defer unlock()
	if _, err := os.Stat(bin); err == nil {
		return bin, false, nil // another process built it while this one waited
	}
	scratch, err := os.MkdirTemp(dir, "build-")
	if err != nil {
		return "", false, fmt.Errorf("gethtest: %w", err)
	}
	defer os.RemoveAll(scratch)
	if err := os.WriteFile(filepath.Join(scratch, "tools.go"), []byte(tools), 0o644); err != nil {
		return "", false, fmt.Errorf("gethtest: %w", err)
	}
	tmp := filepath.Join(scratch, "geth")
	for _, args := range [][]string{
		{"mod", "init", "gethbuild"},
		{"get", module + "@" + version},
		{"mod", "tidy"},
		{"build", "-o", tmp, module + "/cmd/geth"},
	} {
		cmd := exec.CommandContext(ctx, "go", args...)
		cmd.Dir = scratch
		cmd.Env = append(buildEnv(), "GOFLAGS=-mod=mod", "GOWORK=off")
		if out, err := cmd.CombinedOutput(); err != nil {
			return "", false, fmt.Errorf("gethtest: go %s: %w\n%s", strings.Join(args, " "), err, out)
		}
	}
	if err := os.Rename(tmp, bin); err != nil {
		return "", false, fmt.Errorf("gethtest: %w", err)
	}
	return bin, true, nil
}

// buildEnv is the environment without the settings of the module under test (GOFLAGS such as
// -mod=vendor or -race would not fit the scratch module).
func buildEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GOFLAGS=") && !strings.HasPrefix(kv, "GOWORK=") {
			env = append(env, kv)
		}
	}
	return env
}
