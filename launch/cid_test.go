package launch_test

import (
	"errors"
	"io"
	"strconv"
	"testing"

	"github.com/curvekit/curvekit"
	"github.com/curvekit/curvekit/launch"
	"github.com/curvekit/curvekit/launch/launchtest"
)

func kuboVectors(t testing.TB) []launchtest.Vector {
	return launchtest.Vectors(t, "../testdata/kubo-cids.txt")
}

func content(n int64) io.Reader { return launchtest.VectorContent(n) }

func TestCIDMatchesKubo(t *testing.T) {
	for _, v := range kuboVectors(t) {
		t.Run(strconv.FormatInt(v.Size, 10), func(t *testing.T) {
			got, n, err := launch.CID(content(v.Size))
			if err != nil || n != v.Size {
				t.Fatalf("CID: %v, read %d", err, n)
			}
			if got != v.CID {
				t.Fatalf("CID of %d bytes = %s, Kubo gave %s", v.Size, got, v.CID)
			}
		})
	}
}

// Writes of any shape give the same CID: the builder does not depend on how content arrives.
func TestCIDBuilderWriteSizes(t *testing.T) {
	const size = 600_001
	all, _ := io.ReadAll(content(size))
	want, _, _ := launch.CID(content(size))
	for _, step := range []int{1, 7, 4096, launch.ChunkSize - 1, launch.ChunkSize, launch.ChunkSize + 3} {
		var b launch.CIDBuilder
		for off := 0; off < len(all); off += step {
			b.Write(all[off:min(off+step, len(all))])
		}
		if got := b.Sum(); got != want {
			t.Fatalf("step %d: %s, want %s", step, got, want)
		}
	}
}

func TestParseCID(t *testing.T) {
	for _, v := range kuboVectors(t) {
		if _, err := launch.ParseCID(v.CID); err != nil {
			t.Fatalf("ParseCID(%s): %v", v.CID, err)
		}
	}
	for _, bad := range []string{"", "b", "Qmabc", "bafkreihdwdcefgh4dqkjv67uzcmw7ojee6xedzdetojuzjevtenxquvyk",
		"BAFKREIHDWDCEFGH4DQKJV67UZCMW7OJEE6XEDZDETOJUZJEVTENXQUVYKU", "../../etc/passwd",
		"bafkreihdwdcefgh4dqkjv67uzcmw7ojee6xedzdetojuzjevtenxquvyk/"} {
		if _, err := launch.ParseCID(bad); !errors.Is(err, curvekit.ErrInvalid) {
			t.Fatalf("ParseCID(%q) = %v, want ErrInvalid", bad, err)
		}
	}
}

func BenchmarkCID5MB(b *testing.B) {
	data, _ := io.ReadAll(content(5 << 20))
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		var c launch.CIDBuilder
		c.Write(data)
		c.Sum()
	}
}
