package launch

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/curvekit/curvekit"
)

// MaxImage is the largest image accepted (SPEC 8): 5 MB.
const MaxImage = 5 << 20

// Image types accepted, by what the bytes say rather than a file name or a client's header. SVG
// and HTML are refused: served from this origin they could run script.
const (
	PNG  = "image/png"
	JPEG = "image/jpeg"
	GIF  = "image/gif"
	WebP = "image/webp"
)

// SniffLen is how many leading bytes SniffImage needs.
const SniffLen = 12

// SniffImage returns the image type of content starting with head, or ErrInvalid.
func SniffImage(head []byte) (string, error) {
	switch {
	case bytes.HasPrefix(head, []byte("\x89PNG\r\n\x1a\n")):
		return PNG, nil
	case bytes.HasPrefix(head, []byte{0xFF, 0xD8, 0xFF}):
		return JPEG, nil
	case bytes.HasPrefix(head, []byte("GIF87a")), bytes.HasPrefix(head, []byte("GIF89a")):
		return GIF, nil
	case len(head) >= 12 && bytes.Equal(head[:4], []byte("RIFF")) && bytes.Equal(head[8:12], []byte("WEBP")):
		return WebP, nil
	}
	return "", ErrImageType
}

// ErrImageType refuses content that is not a PNG, JPEG, GIF or WebP image.
var ErrImageType = fmt.Errorf("%w: image must be PNG, JPEG, GIF or WebP", curvekit.ErrInvalid)

// ErrImageTooLarge refuses an image above MaxImage.
var ErrImageTooLarge = fmt.Errorf("%w: image is larger than 5 MB", curvekit.ErrTooLarge)

// ImageReader checks an image as it streams: it sniffs the type from the first bytes and fails
// with ErrImageTooLarge on the byte after MaxImage, having read no further.
type ImageReader struct {
	r    io.Reader
	head []byte
	typ  string
	n    int64
}

// NewImageReader reads the first bytes of r to sniff the type; it fails with ErrImageType (or
// the reader's error) before any content is passed on.
func NewImageReader(r io.Reader) (*ImageReader, error) {
	head := make([]byte, SniffLen)
	n, err := io.ReadFull(r, head)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return nil, err
	}
	typ, err := SniffImage(head[:n])
	if err != nil {
		return nil, err
	}
	return &ImageReader{r: r, head: head[:n], typ: typ}, nil
}

// Type is the sniffed content type.
func (i *ImageReader) Type() string { return i.typ }

func (i *ImageReader) Read(p []byte) (int, error) {
	if len(i.head) > 0 {
		n := copy(p, i.head)
		i.head = i.head[n:]
		i.n += int64(n)
		return n, nil
	}
	// Ask for at most one byte past the limit, so a larger body is never read further.
	if room := MaxImage + 1 - i.n; int64(len(p)) > room {
		p = p[:room]
	}
	n, err := i.r.Read(p)
	i.n += int64(n)
	if i.n > MaxImage {
		return 0, ErrImageTooLarge
	}
	return n, err
}
