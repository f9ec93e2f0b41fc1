package launch_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"testing"
	"unicode/utf8"

	"github.com/curvekit/curvekit"
	"github.com/curvekit/curvekit/launch"
)

// A CID that ParseCID accepts is one this package could have made: it names the same CID after a
// round through its own output, and nothing else (no path, no case variant) gets through.
func FuzzParseCID(f *testing.F) {
	for _, s := range []string{"bafkreibm6jg3ux5qumhcn2b3flc3tyu6dmlb4xa7u5bf44yegnrjhc4yeq", "bafybeiactstxicughgqfn57i3kj7mhw3jjlyewmmdy5mjf5cdyt4b4gttq", "Qm", "b", "../x", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := launch.ParseCID(s)
		if err != nil {
			if !errors.Is(err, curvekit.ErrInvalid) {
				t.Fatalf("ParseCID(%q) = %v, not ErrInvalid", s, err)
			}
			return
		}
		if got != s || len(s) != 59 || bytes.ContainsAny([]byte(s), "/\\.ABCDEFGHIJKLMNOPQRSTUVWXYZ") {
			t.Fatalf("ParseCID accepted %q", s)
		}
	})
}

// Validation never panics; valid metadata gives a document that is JSON with the same name and
// symbol, and invalid metadata names at least one problem.
func FuzzMetadata(f *testing.F) {
	f.Add("Curve Cat", "CCAT", "desc", "ipfs://bafkreibm6jg3ux5qumhcn2b3flc3tyu6dmlb4xa7u5bf44yegnrjhc4yeq", "https://x.com/c")
	f.Add("", "c-at", "\xff", "http://x", "javascript:alert(1)")
	f.Fuzz(func(t *testing.T, name, symbol, desc, image, link string) {
		m := launch.Metadata{Name: name, Symbol: symbol, Description: &desc, ImageURL: &image, Website: &link}
		d, err := m.Document("curvekit")
		if err != nil {
			var p curvekit.Problems
			if !errors.As(err, &p) || len(p) == 0 {
				t.Fatalf("invalid metadata without problems: %v", err)
			}
			return
		}
		if !utf8.ValidString(name) || name == "" || symbol == "" {
			t.Fatalf("accepted name %q symbol %q", name, symbol)
		}
		var back map[string]any
		if err := json.Unmarshal(d.Encode(), &back); err != nil || back["name"] != name || back["symbol"] != symbol || back["image"] != image {
			t.Fatalf("document %s: %v", d.Encode(), err)
		}
	})
}

// The image reader passes exactly the bytes it was given, at any size up to the limit.
func FuzzImageReader(f *testing.F) {
	f.Add([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDRdata"))
	f.Add([]byte("GIF89a"))
	f.Add([]byte("<svg/>"))
	f.Fuzz(func(t *testing.T, body []byte) {
		ir, err := launch.NewImageReader(bytes.NewReader(body))
		if err != nil {
			if _, serr := launch.SniffImage(body); serr == nil {
				t.Fatalf("reader refused an image the sniffer takes: %v", err)
			}
			return
		}
		got, err := io.ReadAll(ir)
		if err != nil || !bytes.Equal(got, body) {
			t.Fatalf("read back %d bytes (%v), gave %d", len(got), err, len(body))
		}
	})
}
