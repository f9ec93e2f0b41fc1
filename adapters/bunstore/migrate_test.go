package bunstore

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Both dialects carry the same migrations: the same versions under the same names, so a schema
// change cannot land on one database and be forgotten on the other.
func TestDialectsHaveTheSameMigrations(t *testing.T) {
	names := func(dir string) []string {
		t.Helper()
		all, err := loadMigrations(dir)
		if err != nil {
			t.Fatal(err)
		}
		out := make([]string, len(all))
		for i, m := range all {
			out[i] = fmt.Sprintf("%04d_%s", m.version, m.name)
		}
		return out
	}
	if diff := cmp.Diff(names("migrations/sqlite"), names("migrations/postgres")); diff != "" {
		t.Errorf("sqlite and postgres migrations differ (-sqlite +postgres):\n%s", diff)
	}
}
