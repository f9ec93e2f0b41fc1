package bunstore

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/curvekit/curvekit/market"
	"github.com/curvekit/curvekit/market/markettest"
)

// TestSQLiteCommonSearch runs the conformance suite on SQLite with every search that matches a
// token taken for a common one: the walk of the list's order that checks each token's names
// answers as the list of matches does.
func TestSQLiteCommonSearch(t *testing.T) {
	t.Parallel()
	markettest.Run(t, func(t *testing.T) market.Store {
		d, err := Open(context.Background(), Config{DSN: filepath.Join(t.TempDir(), "m.db")})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { d.Close() })
		s := d.Market()
		s.commonMatches = 1
		return s
	})
}
