package bunstore

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Announcements waiting together go in as few payloads as fit PostgreSQL's bound, every id once
// and in order; one of "any job" makes the whole an announcement of any job.
func TestJoinIDs(t *testing.T) {
	var ids []string
	for i := range 1000 {
		ids = append(ids, "job_"+strings.Repeat("0", 20)+string(rune('a'+i%26)))
	}
	var got []string
	rest := ids
	payloads := 0
	for len(rest) > 0 {
		p, n := joinIDs(rest)
		if len(p) > announcementBytes {
			t.Fatalf("a payload of %d bytes", len(p))
		}
		got = append(got, strings.Split(p, ",")...)
		rest = rest[n:]
		payloads++
	}
	if diff := cmp.Diff(ids, got); diff != "" {
		t.Fatalf("ids announced (-want +got):\n%s", diff)
	}
	if want := 1000*26/announcementBytes + 1; payloads != want {
		t.Fatalf("%d payloads, want %d", payloads, want)
	}
	if p, n := joinIDs([]string{"a", "", "b"}); p != "" || n != 3 {
		t.Fatalf("with any job among them: %q, %d", p, n)
	}
	if p, n := joinIDs([]string{"a"}); p != "a" || n != 1 {
		t.Fatalf("one id: %q, %d", p, n)
	}
}
