package bunstore

import (
	"encoding/base64"
	"fmt"
	"strings"

	"github.com/curvekit/curvekit"
)

// A page cursor is base64url (unpadded) of "<tag>:<field>:<field>..."; the tag names the order
// that produced it, so a cursor is refused by a query in another order. See the package doc.

func encodeCursor(tag string, fields ...string) string {
	return base64.RawURLEncoding.EncodeToString([]byte(tag + ":" + strings.Join(fields, ":")))
}

// decodeCursor returns the n fields of a cursor with the given tag.
func decodeCursor(cursor, tag string, n int) ([]string, error) {
	raw, err := base64.RawURLEncoding.DecodeString(cursor)
	if err != nil {
		return nil, fmt.Errorf("%w: malformed cursor", curvekit.ErrInvalid)
	}
	// The fields go into a query's text (bun writes arguments in), where a NUL byte breaks the
	// statement: the cursors this package makes hold printable ASCII alone.
	for _, c := range raw {
		if c < 0x20 || c > 0x7e {
			return nil, fmt.Errorf("%w: malformed cursor", curvekit.ErrInvalid)
		}
	}
	parts := strings.Split(string(raw), ":")
	if len(parts) != n+1 || parts[0] != tag {
		return nil, fmt.Errorf("%w: cursor does not belong to this query", curvekit.ErrInvalid)
	}
	return parts[1:], nil
}
