package cli

import (
	"fmt"
	"io"
	"unicode"
	"unicode/utf8"
)

// terminal is the writer every command prints through (all but mcp, whose stdout is a JSON-RPC
// channel read by a program). Token names, symbols, descriptions and agent answers are chosen by
// strangers: a control character could clear the screen, retitle the window, hide text or
// inject a fake prompt, and a bidi override could reorder what is shown. Each such character
// is written as the visible escape \uXXXX instead (a byte that is not UTF-8 as \xNN), so it is
// shown as text, never run; inside a JSON string that escape is still valid JSON.
type terminal struct {
	w       io.Writer
	pending []byte // an incomplete UTF-8 sequence at the end of the last write
	buf     []byte
}

func newTerminal(w io.Writer) *terminal { return &terminal{w: w} }

// unsafeRune reports whether r would act on a terminal or on the text around it rather than be
// shown: C0 and C1 controls but newline and tab, the line and paragraph separators, format
// characters (bidi overrides and isolates, zero-width space and joiners, the byte-order mark,
// the soft hyphen) and the other default-ignorable ones (Hangul fillers, the combining grapheme
// joiner), save the variation selectors, which only choose how an emoji is drawn. The web page
// escapes the same characters, the same way.
func unsafeRune(r rune) bool {
	switch {
	case r == '\n' || r == '\t':
		return false
	case (r >= 0xfe00 && r <= 0xfe0f) || (r >= 0xe0100 && r <= 0xe01ef):
		return false
	}
	return unicode.In(r, unicode.Cc, unicode.Cf, unicode.Zl, unicode.Zp, unicode.Other_Default_Ignorable_Code_Point)
}

func (t *terminal) Write(p []byte) (int, error) {
	n := len(p)
	if len(t.pending) > 0 {
		p = append(t.pending, p...)
		t.pending = nil
	}
	t.buf = t.buf[:0]
	for len(p) > 0 {
		if !utf8.FullRune(p) {
			t.pending = append([]byte(nil), p...)
			break
		}
		r, size := utf8.DecodeRune(p)
		switch {
		case r == utf8.RuneError && size == 1:
			t.buf = fmt.Appendf(t.buf, `\x%02x`, p[0])
		case unsafeRune(r):
			t.buf = fmt.Appendf(t.buf, `\u%04x`, r)
		default:
			t.buf = append(t.buf, p[:size]...)
		}
		p = p[size:]
	}
	if _, err := t.w.Write(t.buf); err != nil {
		return 0, err
	}
	return n, nil
}

// Flush writes what is left of an incomplete sequence, escaped byte by byte.
func (t *terminal) Flush() error {
	if len(t.pending) == 0 {
		return nil
	}
	t.buf = t.buf[:0]
	for _, b := range t.pending {
		t.buf = fmt.Appendf(t.buf, `\x%02x`, b)
	}
	t.pending = nil
	_, err := t.w.Write(t.buf)
	return err
}
