// Package launchtest holds the conformance suites of the launch ports (Pinner, Store) and the
// Kubo CID vectors they are checked against. Implementations run them from their own tests.
package launchtest

import (
	"bufio"
	"crypto/sha256"
	"io"
	"os"
	"strconv"
	"strings"
	"testing"
)

// Vector is one line of testdata/kubo-cids.txt: the CID Kubo 0.43.0 gave for VectorContent(Size).
type Vector struct {
	Size int64
	CID  string
}

// Vectors reads the vectors file at path (testdata/kubo-cids.txt from the module root).
func Vectors(t testing.TB, path string) []Vector {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []Vector
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fields := strings.Fields(line)
		if len(fields) != 2 {
			t.Fatalf("bad vector line %q", line)
		}
		n, err := strconv.ParseInt(fields[0], 10, 64)
		if err != nil {
			t.Fatalf("bad vector line %q", line)
		}
		out = append(out, Vector{Size: n, CID: fields[1]})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(out) < 10 {
		t.Fatalf("only %d vectors in %s", len(out), path)
	}
	return out
}

// VectorContent is the content of the vector of size n: sha256("curvekit:0") ‖
// sha256("curvekit:1") ‖ … (each the digest of the ASCII string) cut to n bytes, streamed.
func VectorContent(n int64) io.Reader { return io.LimitReader(&digests{}, n) }

type digests struct {
	i   int
	buf []byte
}

func (d *digests) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		if len(d.buf) == 0 {
			s := sha256.Sum256([]byte("curvekit:" + strconv.Itoa(d.i)))
			d.i++
			d.buf = s[:]
		}
		k := copy(p[n:], d.buf)
		d.buf = d.buf[k:]
		n += k
	}
	return n, nil
}
