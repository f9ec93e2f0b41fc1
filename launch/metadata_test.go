package launch_test

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/curvekit/curvekit"
	"github.com/curvekit/curvekit/launch"
)

func ptr(s string) *string { return &s }

func TestMetadataRules(t *testing.T) {
	ok := launch.Metadata{Name: "Curve Cat", Symbol: "CCAT"}
	cases := []struct {
		name string
		edit func(m *launch.Metadata)
		want []string
	}{
		{"minimal", func(m *launch.Metadata) {}, nil},
		{"all fields", func(m *launch.Metadata) {
			m.Description = ptr("a cat on a curve")
			m.ImageURL = ptr("ipfs://bafkreibm6jg3ux5qumhcn2b3flc3tyu6dmlb4xa7u5bf44yegnrjhc4yeq")
			m.Twitter, m.Telegram, m.Website = ptr("https://x.com/cat"), ptr("https://t.me/cat"), ptr("http://cat.example")
			m.SubjectHandle = ptr("@curve_cat")
		}, nil},
		{"https image", func(m *launch.Metadata) { m.ImageURL = ptr("https://img.example/cat.png") }, nil},
		{"unicode name", func(m *launch.Metadata) { m.Name = "猫のカーブ" }, nil},
		{"name missing", func(m *launch.Metadata) { m.Name = "" }, []string{"name is required"}},
		{"name long", func(m *launch.Metadata) { m.Name = strings.Repeat("n", 33) }, []string{"name must be at most 32 characters"}},
		{"name spaces", func(m *launch.Metadata) { m.Name = " cat" }, []string{"name must not start or end with spaces"}},
		{"name control", func(m *launch.Metadata) { m.Name = "ca\x00t" }, []string{"name must not contain control or bidirectional formatting characters"}},
		{"name escape", func(m *launch.Metadata) { m.Name = "Moon\x1b[2J\x1b]0;x\x07" }, []string{"name must not contain control or bidirectional formatting characters"}},
		{"name bidi override", func(m *launch.Metadata) { m.Name = "cat\u202egnp" }, []string{"name must not contain control or bidirectional formatting characters"}},
		{"name C1", func(m *launch.Metadata) { m.Name = "cat\u009b31m" }, []string{"name must not contain control or bidirectional formatting characters"}},
		{"symbol escape", func(m *launch.Metadata) { m.Symbol = "CAT\x1b" }, []string{"symbol must be letters and digits only"}},
		{"description lines", func(m *launch.Metadata) { m.Description = ptr("line one\nline two\ttabbed") }, nil},
		{"description escape", func(m *launch.Metadata) { m.Description = ptr("hi\x1b]0;pwned\x07") }, []string{"description must not contain control or bidirectional formatting characters (new lines and tabs are fine)"}},
		{"description isolate", func(m *launch.Metadata) { m.Description = ptr("a\u2067b") }, []string{"description must not contain control or bidirectional formatting characters (new lines and tabs are fine)"}},
		{"description CR", func(m *launch.Metadata) { m.Description = ptr("a\rb") }, []string{"description must not contain control or bidirectional formatting characters (new lines and tabs are fine)"}},
		{"name not utf8", func(m *launch.Metadata) { m.Name = "\xff" }, []string{"name must be UTF-8 text"}},
		{"symbol missing", func(m *launch.Metadata) { m.Symbol = "" }, []string{"symbol is required"}},
		{"symbol long", func(m *launch.Metadata) { m.Symbol = "ABCDEFGHIJK" }, []string{"symbol must be at most 10 characters"}},
		{"symbol chars", func(m *launch.Metadata) { m.Symbol = "C-AT" }, []string{"symbol must be letters and digits only"}},
		{"description long", func(m *launch.Metadata) { m.Description = ptr(strings.Repeat("d", 1001)) }, []string{"description must be at most 1000 characters"}},
		{"image http", func(m *launch.Metadata) { m.ImageURL = ptr("http://img.example/cat.png") }, []string{"imageUrl must be an ipfs:// or https URL"}},
		{"image data", func(m *launch.Metadata) { m.ImageURL = ptr("data:image/png;base64,AAAA") }, []string{"imageUrl must be an http(s) URL with a host"}},
		{"image bad cid", func(m *launch.Metadata) { m.ImageURL = ptr("ipfs://nope") }, []string{"imageUrl must name a CID after ipfs://"}},
		{"twitter js", func(m *launch.Metadata) { m.Twitter = ptr("javascript:alert(1)") }, []string{"twitter must be an http(s) URL with a host"}},
		{"telegram relative", func(m *launch.Metadata) { m.Telegram = ptr("/t.me/cat") }, []string{"telegram must be an http(s) URL with a host"}},
		{"website creds", func(m *launch.Metadata) { m.Website = ptr("https://u:p@cat.example") }, []string{"website must be an http(s) URL with a host"}},
		{"website long", func(m *launch.Metadata) { m.Website = ptr("https://cat.example/" + strings.Repeat("a", 512)) }, []string{"website must be at most 512 characters"}},
		{"handle", func(m *launch.Metadata) { m.SubjectHandle = ptr("two words") }, []string{"subjectHandle must be a handle: letters, digits, _ and ., optionally after @"}},
		{"handle empty", func(m *launch.Metadata) { m.SubjectHandle = ptr("") }, []string{"subjectHandle is required"}},
		{"every field at once", func(m *launch.Metadata) {
			*m = launch.Metadata{Description: ptr(strings.Repeat("d", 1001)), ImageURL: ptr("ftp://x"),
				Twitter: ptr("x"), Telegram: ptr("y"), Website: ptr("z"), SubjectHandle: ptr("a b")}
		}, []string{"name is required", "symbol is required", "description must be at most 1000 characters",
			"imageUrl must be an ipfs:// or https URL", "twitter must be an http(s) URL with a host",
			"telegram must be an http(s) URL with a host", "website must be an http(s) URL with a host",
			"subjectHandle must be a handle: letters, digits, _ and ., optionally after @"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := ok
			c.edit(&m)
			err := m.Validate()
			if c.want == nil {
				if err != nil {
					t.Fatalf("Validate: %v", err)
				}
				return
			}
			var p curvekit.Problems
			if !errors.As(err, &p) || !errors.Is(err, curvekit.ErrInvalid) {
				t.Fatalf("Validate = %v, want Problems", err)
			}
			if d := cmp.Diff(c.want, []string(p)); d != "" {
				t.Fatalf("problems (-want +got):\n%s", d)
			}
		})
	}
}

func TestDocument(t *testing.T) {
	m := launch.Metadata{Name: "Curve Cat", Symbol: "CCAT", ImageURL: ptr("ipfs://bafkreibm6jg3ux5qumhcn2b3flc3tyu6dmlb4xa7u5bf44yegnrjhc4yeq"), Website: ptr("https://cat.example")}
	d, err := m.Document("https://curvekit.example")
	if err != nil {
		t.Fatal(err)
	}
	want := `{"name":"Curve Cat","symbol":"CCAT","description":"","image":"ipfs://bafkreibm6jg3ux5qumhcn2b3flc3tyu6dmlb4xa7u5bf44yegnrjhc4yeq","showName":true,"createdOn":"https://curvekit.example","website":"https://cat.example"}`
	if got := string(d.Encode()); got != want {
		t.Fatalf("document\n got %s\nwant %s", got, want)
	}
	if _, err := (launch.Metadata{}).Document("x"); !errors.Is(err, curvekit.ErrInvalid) {
		t.Fatalf("invalid metadata gave a document: %v", err)
	}
}

var (
	pngHead  = []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
	jpegHead = []byte{0xFF, 0xD8, 0xFF, 0xE0, 0, 0x10, 'J', 'F', 'I', 'F', 0, 1}
	gifHead  = []byte("GIF89a\x01\x00\x01\x00\x00\x00")
	webpHead = []byte("RIFF\x24\x00\x00\x00WEBPVP8 ")
)

func TestSniffImage(t *testing.T) {
	for _, c := range []struct {
		head []byte
		want string
	}{{pngHead, launch.PNG}, {jpegHead, launch.JPEG}, {gifHead, launch.GIF}, {[]byte("GIF87a"), launch.GIF}, {webpHead, launch.WebP}} {
		if got, err := launch.SniffImage(c.head); err != nil || got != c.want {
			t.Fatalf("SniffImage(%q) = %q, %v; want %s", c.head, got, err, c.want)
		}
	}
	for _, bad := range [][]byte{
		nil, []byte("<svg xmlns=\"http://www.w3.org/2000/svg\"/>"), []byte("<?xml version=\"1.0\"?><svg/>"),
		[]byte("<!DOCTYPE html><html><script>alert(1)</script>"), []byte("RIFF\x24\x00\x00\x00WAVEfmt "),
		[]byte("\x89PNG\r\n"), []byte("GIF88a"), []byte("%PDF-1.7"),
	} {
		if _, err := launch.SniffImage(bad); !errors.Is(err, launch.ErrImageType) || !errors.Is(err, curvekit.ErrInvalid) {
			t.Fatalf("SniffImage(%q) = %v, want ErrImageType", bad, err)
		}
	}
}

// countingReader counts what is read from it, to prove the image reader stops at the limit.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

func TestImageReaderLimit(t *testing.T) {
	body := func(n int) []byte { return append(append([]byte{}, pngHead...), make([]byte, n-len(pngHead))...) }
	exact := body(launch.MaxImage)
	ir, err := launch.NewImageReader(bytes.NewReader(exact))
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(ir)
	if err != nil || !bytes.Equal(got, exact) || ir.Type() != launch.PNG {
		t.Fatalf("exactly 5 MB: %v, %d bytes, type %s", err, len(got), ir.Type())
	}
	// 50 MB offered: the reader fails on byte 5 MB + 1 and asks for nothing beyond.
	src := &countingReader{r: io.MultiReader(bytes.NewReader(pngHead), io.LimitReader(zeros{}, 50<<20))}
	ir, err = launch.NewImageReader(src)
	if err != nil {
		t.Fatal(err)
	}
	_, err = io.Copy(io.Discard, ir)
	if !errors.Is(err, launch.ErrImageTooLarge) || !errors.Is(err, curvekit.ErrTooLarge) {
		t.Fatalf("50 MB: %v, want ErrImageTooLarge", err)
	}
	if src.n != launch.MaxImage+1 {
		t.Fatalf("read %d bytes from a 50 MB body, want %d", src.n, launch.MaxImage+1)
	}
	if _, err := launch.NewImageReader(strings.NewReader("<svg/>")); !errors.Is(err, launch.ErrImageType) {
		t.Fatalf("svg: %v", err)
	}
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) { clear(p); return len(p), nil }
