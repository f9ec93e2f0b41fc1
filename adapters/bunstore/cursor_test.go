package bunstore

import (
	"encoding/base64"
	"errors"
	"testing"

	"github.com/curvekit/curvekit"
)

// A cursor round-trips; one whose fields hold a byte a query's text cannot carry (NUL, other
// control bytes, non-ASCII) is refused as malformed before it reaches a query.
func TestCursorFieldsArePrintable(t *testing.T) {
	f, err := decodeCursor(encodeCursor("o1", "1795395614", "ord_ab12"), "o1", 2)
	if err != nil || len(f) != 2 || f[0] != "1795395614" || f[1] != "ord_ab12" {
		t.Fatalf("round trip: %q, %v", f, err)
	}
	for _, raw := range []string{"o1:1795395614:ord\x00", "o1:1:\n", "o1:1:caf\xc3\xa9"} {
		if _, err := decodeCursor(base64.RawURLEncoding.EncodeToString([]byte(raw)), "o1", 2); !errors.Is(err, curvekit.ErrInvalid) {
			t.Errorf("cursor of %q: %v, want ErrInvalid", raw, err)
		}
	}
}
