package market

import (
	"context"
	"slices"
	"strings"
	"sync"
	"unicode"
)

// Anyone can launch a token with the name and symbol of another, and invisible characters make
// two strings that differ in bytes read the same ("DETH" and "DETH\u200b"). A view therefore says
// how many other tokens a reader could take it for: its Namesakes.

// Namesakes counts the other indexed tokens whose name, and whose symbol, reads the same as a
// token's (compared in their FoldName forms). Zero means the name or symbol is the token's alone.
type Namesakes struct {
	Name   int
	Symbol int
}

// NameCounts are how many stored tokens have each folded name and each folded symbol
// (Store.CountNames).
type NameCounts struct {
	Names, Symbols map[string]int
}

// FoldName is the form in which token names and symbols are compared: what a reader takes for
// the same string is the same. Case is folded; control, format and other default-ignorable
// characters (bidi controls, zero-width spaces, variation selectors, fillers) are dropped, as is
// the replacement character (U+FFFD, which stands for bytes that are not text, as a store may
// keep them); fullwidth ASCII reads as ASCII; every run of whitespace (any space separator, the
// Braille blank) is one space, and there is none at either end.
func FoldName(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	space := false
	for _, r := range s {
		switch {
		case r >= 0xff01 && r <= 0xff5e: // fullwidth ASCII
			r -= 0xfee0
		case unicode.IsSpace(r) || r == 0x2800:
			space = b.Len() > 0
			continue
		case r == unicode.ReplacementChar || unicode.IsControl(r) ||
			unicode.In(r, unicode.Cf, unicode.Other_Default_Ignorable_Code_Point, unicode.Variation_Selector):
			continue
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		b.WriteRune(unicode.ToLower(unicode.ToUpper(r)))
	}
	return b.String()
}

// maxNameCounts bounds the folds namesakeIndex keeps; past it, it starts afresh.
const maxNameCounts = 200_000

// namesakeIndex keeps the counts of the folded names and symbols that reads asked for, each
// counted by the store (Store.CountNames, an index lookup) at the first read that needs it, so
// that nothing walks every token. A launch the service observes drops the counts of its name and
// symbol, and a reorganization all of them, to be counted again when asked. A service that is
// told of no sync checks the store's cursor at each read instead and drops every count when it
// moved.
type namesakeIndex struct {
	mu             sync.Mutex
	names, symbols map[string]int
	// gen moves with every change observed, so that a count read meanwhile is used for its read
	// but not kept.
	gen      uint64
	followed bool   // Observe has been called: syncs keep the counts current
	cursor   Cursor // for a service not told of syncs: the cursor the counts are as of
}

// observe applies a sync.
func (x *namesakeIndex) observe(s Sync) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.followed = true
	if s.Rewound || len(s.Reorged) > 0 {
		x.names, x.symbols = nil, nil
		x.gen++
	}
	if s.Batch == nil || len(s.Batch.Launches) == 0 {
		return
	}
	x.gen++
	for i := range s.Batch.Launches {
		t := &s.Batch.Launches[i]
		delete(x.names, FoldName(t.Name))
		delete(x.symbols, FoldName(t.Symbol))
	}
}

// fill sets the Namesakes of each view: the stored tokens of its folded name (symbol) but itself.
func (x *namesakeIndex) fill(ctx context.Context, st Store, views []View) error {
	if len(views) == 0 {
		return nil
	}
	x.mu.Lock()
	followed := x.followed
	x.mu.Unlock()
	if !followed {
		cur, err := st.Cursor(ctx)
		if err != nil {
			return err
		}
		x.mu.Lock()
		if cur != x.cursor {
			x.names, x.symbols, x.cursor = nil, nil, cur
			x.gen++
		}
		x.mu.Unlock()
	}
	type keys struct{ name, symbol string }
	folds := make([]keys, len(views))
	var names, symbols []string
	x.mu.Lock()
	gen := x.gen
	for i := range views {
		k := keys{FoldName(views[i].Name), FoldName(views[i].Symbol)}
		folds[i] = k
		if _, ok := x.names[k.name]; !ok && !slices.Contains(names, k.name) {
			names = append(names, k.name)
		}
		if _, ok := x.symbols[k.symbol]; !ok && !slices.Contains(symbols, k.symbol) {
			symbols = append(symbols, k.symbol)
		}
	}
	x.mu.Unlock()
	var fresh NameCounts
	if len(names)+len(symbols) > 0 {
		var err error
		if fresh, err = st.CountNames(ctx, names, symbols); err != nil {
			return err
		}
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	count := func(known map[string]int, counted map[string]int, fold string) int {
		if n, ok := counted[fold]; ok {
			return n
		}
		return known[fold]
	}
	for i := range views {
		k := folds[i]
		// Each view's token is stored, so it counts itself (unless a reorganization took it
		// away since it was read).
		views[i].Namesakes = Namesakes{
			Name:   max(0, count(x.names, fresh.Names, k.name)-1),
			Symbol: max(0, count(x.symbols, fresh.Symbols, k.symbol)-1),
		}
	}
	if x.gen != gen {
		return nil // a launch or reorganization came between: the fresh counts may be behind it
	}
	if len(x.names)+len(names) > maxNameCounts || len(x.symbols)+len(symbols) > maxNameCounts {
		x.names, x.symbols = nil, nil
	}
	if x.names == nil {
		x.names, x.symbols = make(map[string]int), make(map[string]int)
	}
	for _, f := range names {
		x.names[f] = fresh.Names[f]
	}
	for _, f := range symbols {
		x.symbols[f] = fresh.Symbols[f]
	}
	return nil
}
