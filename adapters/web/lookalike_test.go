package web_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
)

// visible is a stranger's string as the page shows it: each control, bidi or other invisible
// format character as its escape \u202e (newline and tab kept), as the command line prints it.
func visible(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '\n' || r == '\t':
			b.WriteRune(r)
		case r < 0x20 || (r >= 0x7f && r <= 0x9f) || r == 0x061c || r == 0xfeff || r == 0x00ad ||
			(r >= 0x200b && r <= 0x200f) || (r >= 0x202a && r <= 0x202e) || (r >= 0x2060 && r <= 0x206f):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// launched launches a token straight through the factory from devnet account 9 and returns its
// address once GET /tokens lists it.
func (s *site) launched(name, symbol, uri string) common.Address {
	s.t.Helper()
	s.launchOnChain(9, name, symbol, uri)
	deadline := time.Now().Add(30 * time.Second)
	for {
		for _, tok := range getJSON[struct {
			Tokens []struct {
				Address common.Address `json:"address"`
				Name    string         `json:"name"`
				Symbol  string         `json:"symbol"`
			} `json:"tokens"`
		}](s.t, s.srv, "/tokens?limit=50").Tokens {
			if tok.Name == name && tok.Symbol == symbol {
				return tok.Address
			}
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("%q (%s) was not indexed", name, symbol)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// A token launched as "Demo Ether Token" plus a right-to-left override, with the symbol DETH,
// does not pass for the devnet's DETH: the page shows the override as its escape, and marks both
// tokens, and only them, as look-alikes, in the market and on the token's page.
func TestLookalikeTokensAreMarked(t *testing.T) {
	s := newSite(t, 5)
	real := s.srv.App.Devnet.ETHToken.Token
	const name = "Demo Ether Token \u202e"
	fake := s.launched(name, "DETH", "")

	s.open("", `[data-testid=token-list]`)
	s.until("every token listed", `document.querySelectorAll('[data-token]').length === 4`)
	card := func(a common.Address) string {
		return fmt.Sprintf(`document.querySelector('[data-token="%s"]')`, a.Hex())
	}
	if got := eval[string](s, card(fake)+`.querySelector('.token-name').textContent`); got != visible(name) {
		t.Errorf("the market shows the name %q, want %q", got, visible(name))
	}
	if eval[bool](s, card(fake)+`.textContent.includes('\u202e')`) {
		t.Error("the market shows the raw right-to-left override")
	}
	if w := eval[float64](s, card(fake)+`.querySelector('.token-name .hidden-char')?.getBoundingClientRect().width ?? 0`); w < 10 {
		t.Errorf("the override's escape is %.0f px wide, want it shown", w)
	}
	for _, a := range []common.Address{real, fake} {
		mark := card(a) + `.querySelector('[data-testid=namesake]')`
		if !eval[bool](s, `!!`+mark) {
			t.Errorf("%s has no look-alike mark", a.Hex())
			continue
		}
		for _, attr := range []string{"title", "aria-label"} {
			if got := eval[string](s, mark+`.getAttribute('`+attr+`')`); !strings.Contains(got, "1 other token has this symbol and 1 other token has this name") {
				t.Errorf("%s: the mark's %s is %q", a.Hex(), attr, got)
			}
		}
		if w := eval[float64](s, mark+`.getBoundingClientRect().width`); w < 8 {
			t.Errorf("%s: the mark is %.0f px wide, want it visible", a.Hex(), w)
		}
	}
	if n := eval[int](s, `document.querySelectorAll('[data-testid=namesake]').length`); n != 2 {
		t.Errorf("%d look-alike marks, want the two tokens'", n)
	}

	for _, a := range []common.Address{real, fake} {
		s.open("#/token/"+a.Hex(), `[data-testid=token-name]`)
		s.until("the look-alike notice", `!!document.querySelector('[data-testid=namesake]')`)
		if got := eval[string](s, `document.querySelector('[data-testid=namesake]').textContent`); !strings.Contains(got, "1 other token has this symbol") {
			t.Errorf("%s: the token page warns %q", a.Hex(), got)
		}
	}
	if got := eval[string](s, `document.querySelector('[data-testid=token-name]').textContent`); got != visible(name) {
		t.Errorf("the token page shows the name %q, want %q", got, visible(name))
	}
	s.noStrangeScript()
}

// A token launched without an image (an empty URI, as anyone may launch straight through the
// factory) costs no request for a logo the server cannot have, and no console error: the page
// shows its initials at once.
func TestNoLogoAskedWithoutAnImage(t *testing.T) {
	s := newSite(t, 5)
	plain := s.launched("Plain Token", "PLAIN", "")

	s.open("", `[data-testid=token-list]`)
	s.until("every token listed", `document.querySelectorAll('[data-token]').length === 4`)
	sel := fmt.Sprintf(`[data-token="%s"] .logo-fallback`, plain.Hex())
	s.until("the initials", fmt.Sprintf(`document.querySelector(%q)?.textContent === 'PL'`, sel))
	// Give the images the page did ask for time to load or fail.
	s.until("the images settled", `[...document.images].every(i => i.complete)`)
	time.Sleep(500 * time.Millisecond)
	if n := s.asked.count("/tokens/" + plain.Hex() + "/logo"); n != 0 {
		t.Errorf("the page asked %d times for the logo of a token without one", n)
	}
	if errs := s.consoleErrors(); len(errs) != 0 {
		t.Errorf("the market logged errors: %q", errs)
	}
}
