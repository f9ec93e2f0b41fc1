package stream

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/curvekit/curvekit/market"
)

// Pos is a trade's place in the chain: its block, then its log index. Trades are folded, published
// and replayed in this order.
type Pos struct {
	Block uint64
	Log   uint
}

// PosOf returns tr's position.
func PosOf(tr *market.Trade) Pos { return Pos{Block: tr.Block, Log: tr.LogIndex} }

// Less reports whether p comes before q in the chain.
func (p Pos) Less(q Pos) bool {
	if p.Block != q.Block {
		return p.Block < q.Block
	}
	return p.Log < q.Log
}

// ID is an event id: what a client holds once it has applied the event, and so what a
// Last-Event-ID resumes from. Its text is "<block>-<logIndex>-<time>-<tag>":
//
//   - block and logIndex are the chain position of the newest trade the client's state includes;
//   - time (Unix seconds) is how far the client's bars reach: it holds every bar up to the bucket
//     of time, which is the trade's own time on a live event and the end of the replay on the last
//     replayed one;
//   - tag is the first four bytes of that trade's block hash in hex, so that a trade a chain
//     reorganization replaced (same block number and log index, another block) is not mistaken for
//     the one the client saw.
//
// Event ids increase with the chain along a connection; two events of one trade (its trade and its
// bar) carry the same id.
type ID struct {
	Pos
	Time int64
	Tag  uint32
}

// IDOf returns the id of a client state that includes tr and every bar up to the bucket of until.
func IDOf(tr *market.Trade, until int64) ID {
	return ID{Pos: PosOf(tr), Time: until, Tag: binary.BigEndian.Uint32(tr.BlockHash[:4])}
}

// Matches reports whether tr is the trade the id names (same position and block).
func (id ID) Matches(tr *market.Trade) bool {
	return PosOf(tr) == id.Pos && binary.BigEndian.Uint32(tr.BlockHash[:4]) == id.Tag
}

// IsZero reports whether id names no trade.
func (id ID) IsZero() bool { return id == ID{} }

// String returns the wire form; the zero ID is "".
func (id ID) String() string {
	if id.IsZero() {
		return ""
	}
	b := make([]byte, 0, 48)
	b = strconv.AppendUint(b, id.Block, 10)
	b = append(b, '-')
	b = strconv.AppendUint(b, uint64(id.Log), 10)
	b = append(b, '-')
	b = strconv.AppendInt(b, id.Time, 10)
	b = append(b, '-')
	b = fmt.Appendf(b, "%08x", id.Tag)
	return string(b)
}

// ErrBadID reports a Last-Event-ID that is not of the form ID.String writes.
var ErrBadID = errors.New("stream: malformed event id")

// ParseID parses the wire form strictly: four dash-separated fields, decimal digits for the first
// three and eight lowercase hex digits for the tag.
func ParseID(s string) (ID, error) {
	f := strings.Split(s, "-")
	if len(f) != 4 || len(f[3]) != 8 {
		return ID{}, fmt.Errorf("%w %q", ErrBadID, s)
	}
	var id ID
	var err error
	nums := [3]uint64{}
	for i := range 3 {
		if !digits(f[i]) {
			return ID{}, fmt.Errorf("%w %q", ErrBadID, s)
		}
		if nums[i], err = strconv.ParseUint(f[i], 10, 63); err != nil {
			return ID{}, fmt.Errorf("%w %q", ErrBadID, s)
		}
	}
	for _, c := range []byte(f[3]) {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return ID{}, fmt.Errorf("%w %q", ErrBadID, s)
		}
	}
	tag, err := strconv.ParseUint(f[3], 16, 32)
	if err != nil {
		return ID{}, fmt.Errorf("%w %q", ErrBadID, s)
	}
	id.Block, id.Log, id.Time, id.Tag = nums[0], uint(nums[1]), int64(nums[2]), uint32(tag)
	if id.IsZero() {
		return ID{}, fmt.Errorf("%w %q", ErrBadID, s)
	}
	return id, nil
}

// digits reports whether s is a non-empty run of ASCII digits without a superfluous leading zero.
func digits(s string) bool {
	if s == "" || len(s) > 1 && s[0] == '0' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
