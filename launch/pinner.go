package launch

import (
	"bytes"
	"context"
	"io"
)

// Pinner stores uploads on IPFS, or in a store whose CIDs equal what IPFS gives the same bytes
// (Kubo's default profile, CIDv1), and reads them back for GET /ipfs/:cid and the logo route.
type Pinner interface {
	// Pin stores c.Body and returns its CID. When reading the body fails (ErrImageTooLarge from
	// an ImageReader) Pin returns that error wrapped and keeps nothing.
	Pin(ctx context.Context, c Content) (string, error)
	// Get opens the content under cid; curvekit.ErrNotFound when there is none. The caller
	// closes Object.Body.
	Get(ctx context.Context, cid string) (Object, error)
}

// Content is something to pin.
type Content struct {
	Body io.Reader
	// Type is the media type; a pinner that keeps none gives back what the bytes say, which for
	// the types this package pins (images, JSON) is the same.
	Type string
}

// Object is pinned content being read.
type Object struct {
	Body io.ReadCloser
	Type string
	// Size in bytes, or -1 when the pinner does not know it before reading.
	Size int64
}

// JSON is the media type of metadata documents.
const JSON = "application/json"

// TypeOf names the media type of content starting with head, for pinners that keep no type:
// an image type sniffed from its bytes, JSON for a document, else application/octet-stream.
func TypeOf(head []byte) string {
	if t, err := SniffImage(head); err == nil {
		return t
	}
	if t := bytes.TrimLeft(head, " \t\r\n"); len(t) > 0 && t[0] == '{' {
		return JSON
	}
	return "application/octet-stream"
}
