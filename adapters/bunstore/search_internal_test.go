package bunstore

import (
	"context"
	"io/fs"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/ethereum/go-ethereum/common"
	"github.com/google/go-cmp/cmp"

	"github.com/curvekit/curvekit/curve"
	"github.com/curvekit/curvekit/market"
	"github.com/curvekit/curvekit/market/marketgen"
	"github.com/curvekit/curvekit/market/markettest"
)

// TestSQLiteCommonSearch runs the conformance suite on SQLite with every search that matches a
// token taken for a common one: the walk of the list's order that checks each token's names
// answers as the list of matches does.
func TestSQLiteCommonSearch(t *testing.T) {
	t.Parallel()
	markettest.Run(t, func(t *testing.T) market.Store {
		d, err := Open(context.Background(), Config{DSN: filepath.Join(t.TempDir(), "m.db")})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { d.Close() })
		s := d.Market()
		s.commonMatches = 1
		return s
	})
}

// hostileNames are token names and symbols that hold what FTS5, LIKE and SQL read as syntax,
// and text whose lowercase is longer than itself or outside ASCII.
var hostileNames = [][2]string{
	{`Say "Hello" World`, `"Q"`},
	{`It's a 'quote'`, `'''`},
	{`100% Pure_Gold!`, `P%_!`},
	{`NEAR(moon rocket, 2)`, `NEAR`},
	{`moon AND rocket OR NOT lambo`, `AND`},
	{`star* ^caret col:umn +plus -minus (paren)`, `*`},
	{`emoji 🚀🚀🚀 rocket`, `🚀`},
	{`Ünïcödé Çafé ĞÜŞ`, `ÜNİ`},
	{"İstanbul \u212Aelvin", "\u212A°"},
	{`日本語のトークン`, `日本`},
	{"tab\tand\nnewline\x01ctrl", "\x7f\x1b"},
	{"nul\x00byte\xffbad", "\xfe"},
	{`back\slash!!bang!%pct!_us`, `!!`},
	{`{braces} [brackets] <angle>`, `[]`},
	{`  spaces   inside  `, `   `},
	{`aaaa aaaa aaaa`, `aaa`},
	{`pepe moon 12345`, `PEPE`},
	{`"*" NEAR "AND"`, `""`},
}

// hostileSearches are search texts with the same, and some that match nothing.
var hostileSearches = []string{
	`"`, `""`, `"""`, `"hello"`, `say "hello`, `"q"`, `'`, `it's`, `'''`, `*`, `star*`, `"*"`, `NEAR`,
	`near(`, `NEAR(moon`, `AND`, `and rocket`, ` or not `, `OR`, `NOT`, `%`, `100%`, `_`, `pure_`, `!`,
	`!!`, `!%`, `!_`, `!!b`, `%_!`, `🚀`, `🚀🚀`, `🚀🚀🚀`, `ünï`, `ÜNÏ`, `çafé`, `ğüş`, `istanbul`,
	"i\u0307stanbul", "\u212Aelvin", `kelvin`, `k°`, `トークン`, `日本`, `日本語`, "\t", "tab\tand",
	"\nnew", "\x01", "\x01ctrl", "\x00byte", "l\x00b", "byte\xff", "\uFFFD", "\uFFFDba", `\`, `back\`,
	`\sla`, `[brackets]`, `{`, `<angle>`, ` `, `   `, `  s`, `aaaa`, `aaaaa`, `a a`, `^caret`,
	`col:umn`, `-minus`, `+plus`, `(paren)`, `)`, `zzqqxxv`, `pepe`, `12345`, `pepe moon`, `moon`,
	`rocket`, `r*`, `"*" near "and"`, `* n`, `{}`, `x"y`, "\u00a0", `ab"`,
}

// searchFixture is an SQLite store with the hostile names launched in block 1, marketgen's
// tokens after them, and a token of its own in block 50,001 (after marketgen's blocks).
type searchFixture struct {
	d       *DB
	s       *Market
	texts   []string // every name and symbol, as launched
	lastTok common.Address
}

func newSearchFixture(t *testing.T, path string) *searchFixture {
	t.Helper()
	ctx := context.Background()
	d, err := Open(ctx, Config{DSN: path})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	f := &searchFixture{d: d, s: d.Market()}
	p, err := curve.DefaultParams(18)
	if err != nil {
		t.Fatal(err)
	}
	token := func(n int, name, symbol string, block uint64) market.Token {
		var a common.Address
		a[0], a[18], a[19] = 0x5e, byte(n>>8), byte(n)
		f.texts = append(f.texts, name, symbol)
		return market.Token{Address: a, Curve: a, Quote: market.Asset{Symbol: "ETH", Decimals: 18},
			Name: name, Symbol: symbol, Decimals: 18, TotalSupply: p.TokenSupply, Params: p, State: p.Initial(),
			LaunchBlock: block, LaunchLog: uint(n), CreatedAt: 1_700_000_000}
	}
	var launches []market.Token
	for i, ns := range hostileNames {
		launches = append(launches, token(i, ns[0], ns[1], 1))
	}
	if err := f.s.Apply(ctx, &market.Batch{Cursor: market.Cursor{Block: 1}, Launches: launches, Time: 1_700_000_000}); err != nil {
		t.Fatal(err)
	}
	g, err := marketgen.New(marketgen.Shape{Tokens: 300, Trades: 600, End: time.Now().Unix(), Span: 86400, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	for b := g.NextBlocks(50_000); b != nil; b = g.NextBlocks(50_000) {
		if b.Cursor.Block >= 50_000 {
			t.Fatalf("fixture: marketgen reaches block %d", b.Cursor.Block)
		}
		for _, tok := range b.Launches {
			f.texts = append(f.texts, tok.Name, tok.Symbol)
		}
		if err := f.s.Apply(ctx, b); err != nil {
			t.Fatal(err)
		}
	}
	last := token(9999, "Rollback Rocket 🚀", `RB"K`, 50_001)
	f.lastTok = last.Address
	if err := f.s.Apply(ctx, &market.Batch{Cursor: market.Cursor{Block: 50_001}, Launches: []market.Token{last}, Time: time.Now().Unix()}); err != nil {
		t.Fatal(err)
	}
	return f
}

// searches are the hostile texts, the hostile names and symbols whole, every substring of 3 or 4
// characters of the stored names and symbols, and random texts of the characters FTS5, LIKE and
// SQL read as syntax.
func (f *searchFixture) searches() []string {
	seen := map[string]bool{}
	var out []string
	add := func(s string) {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	for _, s := range hostileSearches {
		add(s)
	}
	for _, ns := range hostileNames {
		add(ns[0])
		add(ns[1])
	}
	for _, text := range f.texts {
		r := []rune(searchText(text))
		for i := range r {
			for n := 3; n <= 4 && i+n <= len(r); n++ {
				add(string(r[i : i+n]))
			}
		}
	}
	rng := rand.New(rand.NewPCG(3, 33))
	alphabet := []rune(`"'*%_!^:()-+ apeoAN🚀ü日` + "\t\x00")
	for range 400 {
		r := make([]rune, 1+rng.IntN(6))
		for i := range r {
			r[i] = alphabet[rng.IntN(len(alphabet))]
		}
		add(string(r))
	}
	return out
}

// likeMatches are the tokens whose names a search's LIKE pattern matches: what a search means.
func likeMatches(t *testing.T, d *DB, search string) []common.Address {
	t.Helper()
	var out []common.Address
	if err := d.bun.NewRaw("SELECT s.address FROM token_search AS s WHERE "+searchTerm+" ORDER BY s.address",
		searchPattern(search), searchPattern(search)).Scan(context.Background(), &out); err != nil {
		t.Fatalf("LIKE %q: %v", search, err)
	}
	return out
}

// indexMatches are the tokens the trigram index alone finds for a search, with no LIKE after it.
func indexMatches(t *testing.T, d *DB, search string) []common.Address {
	t.Helper()
	var out []common.Address
	if err := d.bun.NewRaw("SELECT s.address FROM token_search_fts JOIN token_search AS s ON s.id = token_search_fts.rowid"+
		" WHERE token_search_fts MATCH ? ORDER BY s.address", ftsPhrase(searchText(search))).Scan(context.Background(), &out); err != nil {
		t.Fatalf("MATCH %q: %v", search, err)
	}
	return out
}

// listed are the tokens a search lists, every page of them.
func listed(t *testing.T, s *Market, search string) []common.Address {
	t.Helper()
	var out []common.Address
	q := market.TokenQuery{Search: search, Limit: market.MaxLimit}
	for {
		page, err := s.Tokens(context.Background(), q)
		if err != nil {
			t.Fatalf("Tokens(search %q): %v", search, err)
		}
		for _, tok := range page.Tokens {
			out = append(out, tok.Address)
		}
		if q.Cursor = page.Next; q.Cursor == "" {
			break
		}
	}
	slices.SortFunc(out, func(a, b common.Address) int { return a.Cmp(b) })
	return out
}

// checkIndex fails t unless the trigram index holds exactly token_search's rows (FTS5's
// integrity check against the content table).
func checkIndex(t *testing.T, d *DB) {
	t.Helper()
	if _, err := d.bun.ExecContext(context.Background(), "INSERT INTO token_search_fts (token_search_fts, rank) VALUES ('integrity-check', 1)"); err != nil {
		t.Fatalf("the trigram index differs from token_search: %v", err)
	}
}

// checkSearches fails t unless each search lists the tokens its LIKE pattern matches, and the
// trigram index alone finds the same tokens for each text of 3 characters or more.
func (f *searchFixture) checkSearches(t *testing.T) {
	t.Helper()
	checkIndex(t, f.d)
	var found, indexed int
	for _, search := range f.searches() {
		want := likeMatches(t, f.d, search)
		if len(want) > 0 {
			found++
		}
		if diff := cmp.Diff(listed(t, f.s, search), want); diff != "" {
			t.Errorf("search %q lists other tokens than LIKE matches (-listed +LIKE):\n%s", search, diff)
		}
		if utf8.RuneCountInString(searchText(search)) < 3 {
			continue
		}
		indexed++
		if diff := cmp.Diff(indexMatches(t, f.d, search), want); diff != "" {
			t.Errorf("search %q: the trigram index finds other tokens than LIKE matches (-index +LIKE):\n%s", search, diff)
		}
	}
	if found < 500 || indexed < 500 {
		t.Fatalf("fixture: %d searches match a token, %d read the index", found, indexed)
	}
}

// A search on SQLite lists exactly the tokens whose lowercased name or symbol holds its text
// (the LIKE pattern), whatever the text holds: FTS5's query syntax, LIKE's wildcards and escape,
// quotes, control characters, text outside ASCII. The trigram index alone finds the same tokens,
// so the LIKE that checks its matches again removes none; and a rollback that removes a launch,
// and a Reset, remove it from the index.
func TestSQLiteSearchTrigrams(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newSearchFixture(t, filepath.Join(t.TempDir(), "m.db"))
	f.checkSearches(t)

	if got := listed(t, f.s, "rollback rocket"); !slices.Equal(got, []common.Address{f.lastTok}) {
		t.Fatalf("search for the last launch lists %v, want %v", got, f.lastTok)
	}
	if err := f.s.Rollback(ctx, &market.Rollback{To: market.Cursor{Block: 50_000}, Time: time.Now().Unix()}); err != nil {
		t.Fatal(err)
	}
	checkIndex(t, f.d)
	for _, search := range []string{"rollback rocket", "back roc", `rb"k`, "ocket 🚀"} {
		if got := listed(t, f.s, search); len(got) > 0 {
			t.Errorf("search %q after the rollback of its launch lists %v", search, got)
		}
		if got := indexMatches(t, f.d, search); len(got) > 0 {
			t.Errorf("search %q after the rollback of its launch: the index still finds %v", search, got)
		}
	}

	if err := f.s.Reset(ctx); err != nil {
		t.Fatal(err)
	}
	checkIndex(t, f.d)
	if got := indexMatches(t, f.d, "moon"); len(got) > 0 {
		t.Errorf("after Reset the index finds %v", got)
	}
}

// A store written before migration 0033 (token_search as migration 0029 made it, no trigram
// index, the migration forgotten) gets its index when it opens: every search then lists what it
// listed before, and the index alone finds what LIKE matches.
func TestSQLiteSearchIndexFilledForAnOlderStore(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "m.db")
	f := newSearchFixture(t, path)
	before := map[string][]common.Address{}
	for _, search := range f.searches() {
		before[search] = likeMatches(t, f.d, search)
	}
	old, err := fs.ReadFile(migrations, "migrations/sqlite/0029_search_table.sql")
	if err != nil {
		t.Fatal(err)
	}
	for _, stmt := range []string{"DROP TABLE token_search_fts", "DROP TABLE token_search", string(old),
		"DELETE FROM bunstore_migrations WHERE version = 33"} {
		if _, err := f.d.bun.DB.ExecContext(ctx, stmt); err != nil {
			t.Fatalf("%.60s: %v", stmt, err)
		}
	}
	var objects []string
	if err := f.d.bun.NewRaw("SELECT name FROM sqlite_schema WHERE name LIKE 'token_search%' OR tbl_name = 'token_search' ORDER BY name").Scan(ctx, &objects); err != nil {
		t.Fatal(err)
	}
	if want := []string{"sqlite_autoindex_token_search_1", "token_search"}; !slices.Equal(objects, want) {
		t.Fatalf("fixture: the schema before migration 0033 holds %v, want %v", objects, want)
	}
	f.d.Close()

	d, err := Open(ctx, Config{DSN: path})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	f.d, f.s = d, d.Market()
	f.checkSearches(t)
	for search, want := range before {
		if got := likeMatches(t, d, search); !slices.Equal(got, want) {
			t.Errorf("search %q matches %v after the migration, %v before", search, got, want)
		}
	}
}

// A search of 3 characters or more reads its matches from the trigram index on SQLite, and the
// names it checks them by from token_search's key: nothing reads token_search whole.
func TestSQLiteSearchPlan(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newSearchFixture(t, filepath.Join(t.TempDir(), "m.db"))
	d, s := f.d, f.s
	log := &statementLog{seen: map[string]bool{}}
	d.bun.AddQueryHook(log)
	log.record(true)
	for _, search := range []string{"zzqqxxv", "pepe", `"*" NEAR`} {
		if _, err := s.Tokens(ctx, market.TokenQuery{Search: search}); err != nil {
			t.Fatal(err)
		}
	}
	log.record(false)
	seen := map[string]int{}
	for _, q := range log.list {
		var kind, want string
		switch {
		case strings.Contains(q, "MATCH"):
			kind, want = "index", "SCAN token_search_fts VIRTUAL TABLE INDEX 0:M"
		case strings.Contains(q, "FROM token_search AS s WHERE s.id IN"):
			kind, want = "names", "SEARCH s USING INTEGER PRIMARY KEY (rowid=?)"
		default:
			continue
		}
		seen[kind]++
		rows, err := d.bun.DB.QueryContext(ctx, "EXPLAIN QUERY PLAN "+q)
		if err != nil {
			t.Fatal(err)
		}
		var plan []string
		for rows.Next() {
			var id, parent, unused int
			var detail string
			if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
				t.Fatal(err)
			}
			plan = append(plan, detail)
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		rows.Close()
		if len(plan) != 1 || !strings.HasPrefix(plan[0], want) {
			t.Errorf("plan %q, want %q:\n%s", plan, want, q)
		}
	}
	// zzqqxxv matches nothing: no names are read for it.
	if seen["index"] != 3 || seen["names"] != 2 {
		t.Fatalf("statements seen: %v, want 3 that read the index and 2 the names of its matches", seen)
	}
}
