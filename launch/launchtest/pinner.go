package launchtest

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strconv"
	"sync"
	"testing"

	"github.com/curvekit/curvekit"
	"github.com/curvekit/curvekit/launch"
)

// RunPinner runs the conformance suite of launch.Pinner: every Kubo vector pins to Kubo's CID and
// reads back byte for byte, types come back, an oversized image keeps nothing. vectors is the
// path of testdata/kubo-cids.txt; newPinner returns an empty pinner.
func RunPinner(t *testing.T, vectors string, newPinner func(t *testing.T) launch.Pinner) {
	ctx := context.Background()

	t.Run("KuboVectors", func(t *testing.T) {
		p := newPinner(t)
		for _, v := range Vectors(t, vectors) {
			cid, err := p.Pin(ctx, launch.Content{Body: VectorContent(v.Size), Type: "application/octet-stream"})
			if err != nil {
				t.Fatalf("Pin %d bytes: %v", v.Size, err)
			}
			if cid != v.CID {
				t.Fatalf("Pin %d bytes = %s, Kubo gave %s", v.Size, cid, v.CID)
			}
			obj, err := p.Get(ctx, cid)
			if err != nil {
				t.Fatalf("Get %s: %v", cid, err)
			}
			// Reading back through the CID proves the same bytes without holding them.
			back, n, err := launch.CID(obj.Body)
			obj.Body.Close()
			if err != nil || n != v.Size || back != v.CID {
				t.Fatalf("Get %s: %d bytes with CID %s (%v), want %d bytes", cid, n, back, err, v.Size)
			}
			if obj.Size != -1 && obj.Size != v.Size {
				t.Fatalf("Get %s: Size %d, want %d", cid, obj.Size, v.Size)
			}
		}
	})

	t.Run("Types", func(t *testing.T) {
		p := newPinner(t)
		png := append([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), bytes.Repeat([]byte{7}, 300)...)
		doc := []byte(`{"name":"Curve Cat","symbol":"CCAT"}`)
		for _, c := range []struct {
			body []byte
			typ  string
		}{{png, launch.PNG}, {doc, launch.JSON}} {
			cid, err := p.Pin(ctx, launch.Content{Body: bytes.NewReader(c.body), Type: c.typ})
			if err != nil {
				t.Fatal(err)
			}
			want, _, _ := launch.CID(bytes.NewReader(c.body))
			if cid != want {
				t.Fatalf("Pin = %s, want %s", cid, want)
			}
			obj, err := p.Get(ctx, cid)
			if err != nil {
				t.Fatal(err)
			}
			got, _ := io.ReadAll(obj.Body)
			obj.Body.Close()
			if !bytes.Equal(got, c.body) || obj.Type != c.typ {
				t.Fatalf("Get %s: %q as %s, want %q as %s", cid, got, obj.Type, c.body, c.typ)
			}
		}
	})

	t.Run("Missing", func(t *testing.T) {
		p := newPinner(t)
		absent, _, _ := launch.CID(bytes.NewReader([]byte("never pinned")))
		if _, err := p.Get(ctx, absent); !errors.Is(err, curvekit.ErrNotFound) {
			t.Fatalf("Get of an absent CID = %v, want ErrNotFound", err)
		}
		for _, bad := range []string{"", "not-a-cid", "../../etc/passwd", "QmYwAPJzv5CZsnA625s3Xf2nemtYgPpHdWEz79ojWnPbdG"} {
			if _, err := p.Get(ctx, bad); !errors.Is(err, curvekit.ErrInvalid) && !errors.Is(err, curvekit.ErrNotFound) {
				t.Fatalf("Get(%q) = %v, want ErrInvalid or ErrNotFound", bad, err)
			}
		}
	})

	t.Run("TooLargeKeepsNothing", func(t *testing.T) {
		p := newPinner(t)
		head := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
		body := io.MultiReader(bytes.NewReader(head), io.LimitReader(VectorContent(6<<20), 6<<20))
		ir, err := launch.NewImageReader(body)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := p.Pin(ctx, launch.Content{Body: ir, Type: ir.Type()}); !errors.Is(err, curvekit.ErrTooLarge) {
			t.Fatalf("Pin of 6 MB through an ImageReader = %v, want ErrTooLarge", err)
		}
		// The first 5 MB were read; they must not have been kept as content.
		prefix := io.MultiReader(bytes.NewReader(head), io.LimitReader(VectorContent(6<<20), launch.MaxImage-int64(len(head))))
		cid, _, _ := launch.CID(prefix)
		if _, err := p.Get(ctx, cid); !errors.Is(err, curvekit.ErrNotFound) {
			t.Fatalf("Get of the refused image's first 5 MB = %v, want ErrNotFound", err)
		}
	})

	t.Run("SameContentConcurrently", func(t *testing.T) {
		p := newPinner(t)
		const size = 3*launch.ChunkSize + 5
		var wg sync.WaitGroup
		cids := make([]string, 8)
		errs := make([]error, 8)
		for i := range cids {
			wg.Go(func() {
				cids[i], errs[i] = p.Pin(ctx, launch.Content{Body: VectorContent(size), Type: "application/octet-stream"})
			})
		}
		wg.Wait()
		want, _, _ := launch.CID(VectorContent(size))
		for i := range cids {
			if errs[i] != nil || cids[i] != want {
				t.Fatalf("pin %d: %s, %v; want %s", i, cids[i], errs[i], want)
			}
		}
		obj, err := p.Get(ctx, want)
		if err != nil {
			t.Fatal(err)
		}
		defer obj.Body.Close()
		if got, n, _ := launch.CID(obj.Body); got != want || n != size {
			t.Fatalf("read back %d bytes with CID %s", n, got)
		}
	})

	t.Run("Cancelled", func(t *testing.T) {
		p := newPinner(t)
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		if _, err := p.Pin(cctx, launch.Content{Body: VectorContent(1000), Type: "application/octet-stream"}); err == nil {
			t.Fatal("Pin with a cancelled context succeeded")
		}
	})

	t.Run("ManySmall", func(t *testing.T) {
		p := newPinner(t)
		for i := range 20 {
			body := []byte("document " + strconv.Itoa(i))
			cid, err := p.Pin(ctx, launch.Content{Body: bytes.NewReader(body), Type: "text/plain"})
			if err != nil {
				t.Fatal(err)
			}
			obj, err := p.Get(ctx, cid)
			if err != nil {
				t.Fatal(err)
			}
			got, _ := io.ReadAll(obj.Body)
			obj.Body.Close()
			if !bytes.Equal(got, body) {
				t.Fatalf("read back %q, want %q", got, body)
			}
		}
	})
}
