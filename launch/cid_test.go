package launch_test

import (
	"bufio"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/curvekit/curvekit"
	"github.com/curvekit/curvekit/launch"
)

// kuboVector is one line of testdata/kubo-cids.txt: the CID Kubo gave for deterministic content.
type kuboVector struct {
	Size int64
	CID  string
}

func kuboVectors(t testing.TB) []kuboVector {
	t.Helper()
	f, err := os.Open("../testdata/kubo-cids.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []kuboVector
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fields := strings.Fields(line)
		n, err := strconv.ParseInt(fields[0], 10, 64)
		if err != nil || len(fields) != 2 {
			t.Fatalf("bad vector line %q", line)
		}
		out = append(out, kuboVector{Size: n, CID: fields[1]})
	}
	if len(out) < 10 {
		t.Fatalf("only %d vectors", len(out))
	}
	return out
}

// vectorContent streams the content of the vectors: sha256("curvekit:0") ‖ sha256("curvekit:1") ‖ …
// cut to n bytes.
type vectorContent struct {
	i   int
	buf []byte
}

func (v *vectorContent) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		if len(v.buf) == 0 {
			s := sha256.Sum256([]byte(fmt.Sprintf("curvekit:%d", v.i)))
			v.i++
			v.buf = s[:]
		}
		k := copy(p[n:], v.buf)
		v.buf = v.buf[k:]
		n += k
	}
	return n, nil
}

func content(n int64) io.Reader { return io.LimitReader(&vectorContent{}, n) }

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
