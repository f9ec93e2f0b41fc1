package cli

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestTerminalShowsControlsAsText(t *testing.T) {
	for in, want := range map[string]string{
		"Moon Cat\n":                 "Moon Cat\n",
		"a\tb":                       "a\tb",
		"\x1b[2J\x1b]0;pwned\x07":    `\u001b[2J\u001b]0;pwned\u0007`,
		"evil\rok":                   `evil\u000dok`,
		"\u202egnp.exe":              `\u202egnp.exe`,
		"x\u2066y\u2069\u200e\u061c": `x\u2066y\u2069\u200e\u061c`,
		"del\x7f c1\u009b":           `del\u007f c1\u009b`,
		"bad \x9b[31m byte":          `bad \x9b[31m byte`,
		"日本語 and emoji 🐈 stay":       "日本語 and emoji 🐈 stay",
		// Invisible characters would let one token's name read as another's: shown, as on the page.
		"DE\u200bTH":                    `DE\u200bTH`,
		"\ufeffbom \u00adsoft \u2060wj": `\ufeffbom \u00adsoft \u2060wj`,
		"line\u2028para\u2029":          `line\u2028para\u2029`,
		"filler\u3164 cgj\u034f":        `filler\u3164 cgj\u034f`,
		"heart \u2764\ufe0f stays":      "heart \u2764\ufe0f stays",
	} {
		var b bytes.Buffer
		term := newTerminal(&b)
		if _, err := term.Write([]byte(in)); err != nil {
			t.Fatal(err)
		}
		if err := term.Flush(); err != nil {
			t.Fatal(err)
		}
		if b.String() != want {
			t.Errorf("%q printed as %q, want %q", in, b.String(), want)
		}
	}
}

// A sequence split across writes is judged whole; JSON stays JSON.
func TestTerminalSplitWritesAndJSON(t *testing.T) {
	var b bytes.Buffer
	term := newTerminal(&b)
	doc, _ := json.Marshal(map[string]string{"name": "\u202eX\x1b[2J\u009b"})
	for i := range doc {
		if _, err := term.Write(doc[i : i+1]); err != nil {
			t.Fatal(err)
		}
	}
	_ = term.Flush()
	var back map[string]string
	if err := json.Unmarshal(b.Bytes(), &back); err != nil {
		t.Fatalf("%s is not JSON: %v", b.Bytes(), err)
	}
	if strings.ContainsAny(b.String(), "\x1b\u202e\u009b") || !utf8.Valid(b.Bytes()) {
		t.Fatalf("unsafe characters passed: %q", b.String())
	}
}

func FuzzTerminal(f *testing.F) {
	f.Add([]byte("\x1b[2J\u202e\xe2\x80"))
	f.Fuzz(func(t *testing.T, in []byte) {
		var b bytes.Buffer
		term := newTerminal(&b)
		if n, err := term.Write(in); err != nil || n != len(in) {
			t.Fatalf("Write = %d, %v", n, err)
		}
		_ = term.Flush()
		out := b.String()
		if !utf8.ValidString(out) {
			t.Fatalf("%q printed invalid UTF-8 %q", in, out)
		}
		for _, r := range out {
			if unsafeRune(r) {
				t.Fatalf("%q printed %q, which holds %U", in, out, r)
			}
		}
	})
}
