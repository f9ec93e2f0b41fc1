package stream

import (
	"errors"
	"testing"

	"github.com/ethereum/go-ethereum/common"

	"github.com/curvekit/curvekit/market"
)

func TestIDRoundTrip(t *testing.T) {
	t.Parallel()
	tr := market.Trade{Block: 18_234_567, LogIndex: 12, Time: 1_799_996_523, BlockHash: common.HexToHash("0x9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08")}
	id := IDOf(&tr, 1_799_996_600)
	const want = "18234567-12-1799996600-9f86d081"
	if got := id.String(); got != want {
		t.Fatalf("String = %q, want %q", got, want)
	}
	back, err := ParseID(want)
	if err != nil || back != id {
		t.Fatalf("ParseID = %+v, %v; want %+v", back, err, id)
	}
	if !id.Matches(&tr) {
		t.Fatal("id does not match its trade")
	}
	other := tr
	other.BlockHash[0]++
	if id.Matches(&other) {
		t.Fatal("id matches a trade in another block at the same height")
	}
	if (ID{}).String() != "" {
		t.Fatal("zero id has text")
	}
}

func TestParseIDRejects(t *testing.T) {
	t.Parallel()
	for _, s := range []string{
		"", "abc", "1-2-3", "1-2-3-4", "1-2-3-9f86d08", "1-2-3-9f86d0811", "1-2-3-9F86D081",
		"-1-2-3-9f86d081", "1--2-3-9f86d081", "01-2-3-9f86d081", "+1-2-3-9f86d081", "1-2-3-9f86d08g",
		"1-2-3-9f86d081-5", "1-2-x-9f86d081", "99999999999999999999-2-3-9f86d081", "0-0-0-00000000",
		" 1-2-3-9f86d081", "1-2-3-9f86d081\n",
	} {
		if _, err := ParseID(s); !errors.Is(err, ErrBadID) {
			t.Errorf("ParseID(%q) error = %v", s, err)
		}
	}
}

func FuzzParseID(f *testing.F) {
	f.Add("18234567-12-1799996600-9f86d081")
	f.Add("0-0-1-00000000")
	f.Fuzz(func(t *testing.T, s string) {
		id, err := ParseID(s)
		if err != nil {
			return
		}
		if id.String() != s {
			t.Fatalf("ParseID(%q) = %+v, which writes %q", s, id, id.String())
		}
	})
}

func TestPosOrder(t *testing.T) {
	t.Parallel()
	ps := []Pos{{1, 0}, {1, 5}, {2, 0}, {10, 1}}
	for i := range ps {
		for j := range ps {
			if got := ps[i].Less(ps[j]); got != (i < j) {
				t.Errorf("%v.Less(%v) = %v", ps[i], ps[j], got)
			}
		}
	}
}
