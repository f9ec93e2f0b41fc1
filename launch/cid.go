package launch

import (
	"crypto/sha256"
	"encoding/base32"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strings"
)

// Kubo's default import profile, which the CIDs here reproduce byte for byte: content is cut into
// raw leaves of ChunkSize bytes and joined by a balanced DAG of dag-pb nodes with at most MaxLinks
// children each. Kubo's newer unixfs-v1-2025 profile gives other CIDs above one chunk.
const (
	ChunkSize = 256 << 10
	MaxLinks  = 174
)

const (
	codecRaw   = 0x55
	codecDagPB = 0x70
	sha2_256   = 0x12
)

var b32 = base32.StdEncoding.WithPadding(base32.NoPadding)

// CID computes the CIDv1 that `ipfs add --cid-version=1` gives for the content of r, reading it
// once in chunks; it returns the CID and the number of bytes read.
func CID(r io.Reader) (string, int64, error) {
	var b CIDBuilder
	n, err := io.Copy(&b, r)
	if err != nil {
		return "", n, fmt.Errorf("launch: cid: %w", err)
	}
	return b.Sum(), n, nil
}

// ParseCID checks that s is a CIDv1 in base32 as this package makes (raw or dag-pb, sha2-256) and
// returns it; anything else is ErrInvalid. Stores use it before a CID becomes a file name.
func ParseCID(s string) (string, error) {
	if len(s) < 2 || s[0] != 'b' {
		return "", errBadCID
	}
	raw, err := b32.DecodeString(strings.ToUpper(s[1:]))
	if err != nil || len(raw) != 36 || raw[0] != 1 || (raw[1] != codecRaw && raw[1] != codecDagPB) ||
		raw[2] != sha2_256 || raw[3] != 32 || b32.EncodeToString(raw) != strings.ToUpper(s[1:]) {
		return "", errBadCID
	}
	return s, nil
}

var errBadCID = fmt.Errorf("%w: not a CID", errInvalid)

// CIDBuilder computes a Kubo CID as content is written to it, holding at most one chunk and the
// pending links of each DAG level: 5 MB or 5 GB cost the same memory. The zero value is ready.
type CIDBuilder struct {
	buf    []byte
	leaves int
	// levels[i] holds the links of height-i nodes (leaves at 0) not yet joined into a parent.
	levels [][]link
	done   bool
}

type link struct {
	cid      []byte // binary CIDv1
	tsize    uint64 // cumulative size of the block and its descendants
	filesize uint64 // bytes of content below
}

// Write adds content; it never fails before Sum.
func (b *CIDBuilder) Write(p []byte) (int, error) {
	if b.done {
		return 0, errors.New("launch: write after Sum")
	}
	n := len(p)
	for len(p) > 0 {
		if b.buf == nil {
			b.buf = make([]byte, 0, ChunkSize)
		}
		if len(b.buf) == ChunkSize {
			b.flushLeaf()
		}
		k := min(ChunkSize-len(b.buf), len(p))
		b.buf = append(b.buf, p[:k]...)
		p = p[k:]
	}
	return n, nil
}

// flushLeaf turns the buffered chunk into a raw leaf. A full buffer is kept until more content
// arrives, so that content of exactly one chunk stays a single raw block.
func (b *CIDBuilder) flushLeaf() {
	sum := sha256.Sum256(b.buf)
	b.add(0, link{cid: cidBytes(codecRaw, sum[:]), tsize: uint64(len(b.buf)), filesize: uint64(len(b.buf))})
	b.leaves++
	b.buf = b.buf[:0]
}

// add appends l to level h, first joining a full level into its parent: the balanced layout fills
// the left subtrees completely before starting the next.
func (b *CIDBuilder) add(h int, l link) {
	for len(b.levels) <= h {
		b.levels = append(b.levels, nil)
	}
	if len(b.levels[h]) == MaxLinks {
		b.add(h+1, node(b.levels[h]))
		b.levels[h] = b.levels[h][:0]
	}
	b.levels[h] = append(b.levels[h], l)
}

// Sum returns the CID of everything written (base32, prefix b). The builder is spent afterwards.
func (b *CIDBuilder) Sum() string {
	b.done = true
	if b.leaves == 0 {
		// Empty content or a single chunk: the raw block itself is the root.
		sum := sha256.Sum256(b.buf)
		return encodeCID(cidBytes(codecRaw, sum[:]))
	}
	if len(b.buf) > 0 {
		b.flushLeaf()
	}
	for h := 0; ; h++ {
		if h == len(b.levels)-1 {
			return encodeCID(node(b.levels[h]).cid)
		}
		if len(b.levels[h]) > 0 {
			b.add(h+1, node(b.levels[h]))
			b.levels[h] = b.levels[h][:0]
		}
	}
}

// node encodes a dag-pb UnixFS File node over links, as go-merkledag does: the links first (hash,
// an empty name, Tsize), then Data with type File, the file size and each child's size.
func node(links []link) link {
	var data []byte
	data = appendTag(data, 1, 0)
	data = binary.AppendUvarint(data, 2) // UnixFS type File
	var filesize, tsize uint64
	for _, l := range links {
		filesize += l.filesize
		tsize += l.tsize
	}
	data = appendTag(data, 3, 0)
	data = binary.AppendUvarint(data, filesize)
	for _, l := range links {
		data = appendTag(data, 4, 0)
		data = binary.AppendUvarint(data, l.filesize)
	}
	var pb []byte
	for _, l := range links {
		var m []byte
		m = appendTag(m, 1, 2)
		m = binary.AppendUvarint(m, uint64(len(l.cid)))
		m = append(m, l.cid...)
		m = appendTag(m, 2, 2)
		m = binary.AppendUvarint(m, 0)
		m = appendTag(m, 3, 0)
		m = binary.AppendUvarint(m, l.tsize)
		pb = appendTag(pb, 2, 2)
		pb = binary.AppendUvarint(pb, uint64(len(m)))
		pb = append(pb, m...)
	}
	pb = appendTag(pb, 1, 2)
	pb = binary.AppendUvarint(pb, uint64(len(data)))
	pb = append(pb, data...)
	sum := sha256.Sum256(pb)
	return link{cid: cidBytes(codecDagPB, sum[:]), tsize: tsize + uint64(len(pb)), filesize: filesize}
}

func appendTag(b []byte, field, wire int) []byte {
	return binary.AppendUvarint(b, uint64(field<<3|wire))
}

func cidBytes(codec byte, digest []byte) []byte {
	return append([]byte{1, codec, sha2_256, 32}, digest...)
}

func encodeCID(c []byte) string { return "b" + strings.ToLower(b32.EncodeToString(c)) }
