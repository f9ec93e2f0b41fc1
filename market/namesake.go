package market

import (
	"context"
	"strings"
	"sync"
	"unicode"

	"github.com/ethereum/go-ethereum/common"
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

// FoldName is the form in which token names and symbols are compared: what a reader takes for
// the same string is the same. Case is folded; control, format and other default-ignorable
// characters (bidi controls, zero-width spaces, variation selectors, fillers) are dropped;
// fullwidth ASCII reads as ASCII; every run of whitespace (any space separator, the Braille
// blank) is one space, and there is none at either end.
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
		case unicode.IsControl(r) || unicode.In(r, unicode.Cf, unicode.Other_Default_Ignorable_Code_Point, unicode.Variation_Selector):
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

// namesakeIndex counts the tokens of each folded name and symbol. It is built from the store at
// the first read that needs it and kept current by the syncs the service observes (a launch adds
// one token; a reorganization, which may have removed launches, has it built again at the next
// read), so a read never scans the tokens. A service that is told of no sync checks the store's
// cursor at each read instead and builds the index again when it moved.
type namesakeIndex struct {
	build sync.Mutex // one build at a time

	mu       sync.RWMutex
	counts   *nameCounts // nil before the first build
	ready    bool        // built, and no reorganization since
	builds   uint64      // completed builds
	followed bool        // Observe has been called: syncs keep the index current
	cursor   Cursor      // the store's cursor before the last build read it
	// building collects the launches observed while a build reads the store, which its pages
	// may have missed; stale records a reorganization during the build.
	building bool
	during   []Token
	stale    bool
}

// nameCounts is how many tokens have each folded name and symbol, and each counted token's.
type nameCounts struct {
	keys    map[common.Address]nameKeys
	names   map[string]int
	symbols map[string]int
}

type nameKeys struct{ name, symbol string }

func keysOf(t *Token) nameKeys { return nameKeys{FoldName(t.Name), FoldName(t.Symbol)} }

func newNameCounts() *nameCounts {
	return &nameCounts{keys: make(map[common.Address]nameKeys), names: make(map[string]int), symbols: make(map[string]int)}
}

// add counts t, once however often it is added.
func (c *nameCounts) add(t *Token) {
	if _, ok := c.keys[t.Address]; ok {
		return
	}
	k := keysOf(t)
	c.keys[t.Address] = k
	c.names[k.name]++
	c.symbols[k.symbol]++
}

// observe applies a sync.
func (x *namesakeIndex) observe(s Sync) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.followed = true
	if s.Rewound || len(s.Reorged) > 0 {
		x.ready = false
		x.stale = x.building
	}
	if s.Batch == nil {
		return
	}
	for i := range s.Batch.Launches {
		if x.counts != nil {
			x.counts.add(&s.Batch.Launches[i])
		}
		if x.building {
			x.during = append(x.during, s.Batch.Launches[i])
		}
	}
}

// fill sets the Namesakes of each view, building the index first when it is not current.
func (x *namesakeIndex) fill(ctx context.Context, st Store, views []View) error {
	if err := x.current(ctx, st); err != nil {
		return err
	}
	x.mu.RLock()
	defer x.mu.RUnlock()
	c := x.counts
	for i := range views {
		t := &views[i].Token
		k, counted := c.keys[t.Address]
		if !counted {
			k = keysOf(t) // launched since the index last heard; not counted yet
		}
		n := Namesakes{Name: c.names[k.name], Symbol: c.symbols[k.symbol]}
		if counted {
			n.Name--
			n.Symbol--
		}
		views[i].Namesakes = n
	}
	return nil
}

// current builds the index when it is not ready or, for a service told of no sync, when the
// store's cursor moved since it was built.
func (x *namesakeIndex) current(ctx context.Context, st Store) error {
	x.mu.RLock()
	ready, followed, at, builds := x.ready, x.followed, x.cursor, x.builds
	x.mu.RUnlock()
	if ready && !followed {
		cur, err := st.Cursor(ctx)
		if err != nil {
			return err
		}
		ready = cur == at
	}
	if ready {
		return nil
	}
	x.build.Lock()
	defer x.build.Unlock()
	x.mu.Lock()
	if x.builds != builds && x.ready {
		x.mu.Unlock()
		return nil // another reader built it meanwhile
	}
	x.building, x.during, x.stale = true, nil, false
	x.mu.Unlock()

	c, cur, err := readNames(ctx, st)

	x.mu.Lock()
	defer x.mu.Unlock()
	during := x.during
	x.building, x.during = false, nil
	if err != nil {
		return err
	}
	for i := range during {
		c.add(&during[i])
	}
	x.counts, x.cursor, x.ready = c, cur, !x.stale
	x.builds++
	return nil
}

// readNames counts the names and symbols of every stored token, and returns the store's cursor
// as it was before the first page.
func readNames(ctx context.Context, st Store) (*nameCounts, Cursor, error) {
	cur, err := st.Cursor(ctx)
	if err != nil {
		return nil, Cursor{}, err
	}
	c := newNameCounts()
	q := TokenQuery{Sort: SortNewest, Limit: MaxLimit}
	for {
		page, err := st.Tokens(ctx, q)
		if err != nil {
			return nil, Cursor{}, err
		}
		for i := range page.Tokens {
			c.add(&page.Tokens[i])
		}
		if page.Next == "" {
			return c, cur, nil
		}
		q.Cursor = page.Next
	}
}
