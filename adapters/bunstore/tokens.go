package bunstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/holiman/uint256"
	"github.com/uptrace/bun"

	"github.com/curvekit/curvekit"
	"github.com/curvekit/curvekit/curve"
	"github.com/curvekit/curvekit/market"
)

// Token returns one token, or curvekit.ErrNotFound.
func (s *Market) Token(ctx context.Context, addr common.Address) (market.Token, error) {
	var row tokenRow
	err := s.db.NewSelect().Model(&row).Where("address = ?", addr).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return market.Token{}, fmt.Errorf("bunstore: token %s: %w", addr, curvekit.ErrNotFound)
	}
	if err != nil {
		return market.Token{}, fmt.Errorf("bunstore: token %s: %w", addr, err)
	}
	return row.token(), nil
}

// newestKey is the tie-break that ends every token order: the newest launch first.
const newestKey = "t.launch_block DESC, t.launch_log DESC, t.address DESC"

// Tokens returns a page of tokens. Keyset pagination on (sort key, launch block, launch log,
// address) for every order; the discovery orders read the figures each batch keeps (discovery.go).
func (s *Market) Tokens(ctx context.Context, q market.TokenQuery) (market.TokenPage, error) {
	limit := pageLimit(q.Limit)
	switch q.Phase {
	case "", market.PhaseCurve, market.PhaseGraduated:
	default:
		return market.TokenPage{}, fmt.Errorf("%w: unknown phase %q", curvekit.ErrInvalid, q.Phase)
	}
	order := q.Sort
	if order == "" {
		order = market.SortNewest
	}
	switch order {
	case market.SortNewest, market.SortVolume24h, market.SortMarketCap, market.SortProgress,
		market.SortTrending, market.SortGainers1h, market.SortGainers24h, market.SortLosers24h:
	default:
		return market.TokenPage{}, fmt.Errorf("%w: unknown sort %q", curvekit.ErrInvalid, q.Sort)
	}
	var found *[]common.Address
	if s.dialect != dialectPostgres && q.Search != "" {
		// On SQLite a search first finds up to commonMatches matches and lists those; a name
		// that many tokens share (a fifth of 100,000: 1.8 s a page when every match was probed
		// and sorted) is found by walking the list's order and checking each token's names,
		// which stops after a page.
		var (
			addrs      []common.Address
			commonName bool
			err        error
		)
		text, pattern := searchText(q.Search), searchPattern(q.Search)
		if utf8.RuneCountInString(text) >= 3 {
			// A text of 3 characters or more finds its matches in the trigram index (migration
			// 0033), which finds every token the LIKE matches: fewer than commonMatches of its
			// rows are all the matches, checked again by the LIKE that defines a match and
			// listed; as many make the name common, and no name is read.
			var ids []int64
			err = s.db.NewRaw("SELECT rowid FROM token_search_fts WHERE token_search_fts MATCH ? LIMIT ?",
				ftsPhrase(text), s.commonMatches).Scan(ctx, &ids)
			commonName = len(ids) >= s.commonMatches
			if err == nil && !commonName && len(ids) > 0 {
				err = s.db.NewRaw("SELECT s.address FROM token_search AS s WHERE s.id IN (?) AND ("+searchTerm+")",
					bun.List(ids), pattern, pattern).Scan(ctx, &addrs)
			}
		} else {
			// A shorter text has no trigram: it reads the names.
			err = s.db.NewRaw("SELECT s.address FROM token_search AS s WHERE "+searchTerm+" LIMIT ?",
				pattern, pattern, s.commonMatches).Scan(ctx, &addrs)
			commonName = len(addrs) >= s.commonMatches
		}
		if err != nil {
			return market.TokenPage{}, fmt.Errorf("bunstore: tokens: %w", err)
		}
		if !commonName {
			found = &addrs
		}
	}
	sel, next, err := s.tokensSelect(q, order, found)
	if err != nil {
		return market.TokenPage{}, err
	}
	sel.Limit(int64(limit + 1))
	var rows []tokenRow
	switch {
	case s.dialect == dialectPostgres && q.Phase == market.PhaseCurve && order == market.SortMarketCap && q.Quote == nil:
		// The largest market caps are the graduates', which a walk of tokens_market_cap would
		// pass one by one to find the tokens on their curve. tokens_king holds the curve's
		// tokens by pairing asset and market cap: the page is read from it for each pairing
		// asset and the pages merged. The pairing assets are found by a skip scan of the same
		// index from its end, the largest market caps: at its start, the launch's market cap of
		// every token that has traded since lies dead until a vacuum (4,144 rows read for the
		// first asset at 50,000 tokens, 22 ms; 1 from the end).
		err = s.db.NewRaw(`WITH RECURSIVE quotes (quote) AS (
				(SELECT t.quote_address FROM tokens AS t WHERE NOT t.graduated ORDER BY t.quote_address DESC LIMIT 1)
				UNION ALL
				SELECT (SELECT t.quote_address FROM tokens AS t WHERE NOT t.graduated AND t.quote_address < quotes.quote
					ORDER BY t.quote_address DESC LIMIT 1) FROM quotes WHERE quotes.quote IS NOT NULL)
			SELECT t.* FROM quotes CROSS JOIN LATERAL (?) AS t
			ORDER BY t.market_cap DESC, `+newestKey+` LIMIT ?`,
			sel.Where("t.quote_address = quotes.quote"), limit+1).Scan(ctx, &rows)
	case s.dialect == dialectPostgres && q.Phase == market.PhaseCurve && order == market.SortProgress:
		// The graduates all stand at 10,000 (the most progress), and a token on its curve at
		// most there: the curve's tokens below it are a range of tokens_progress that holds no
		// graduate, and the few at it are tokens_curve_full (migration 0031), read whole and
		// unordered (ordered, the planner may walk tokens_progress from the top, past every
		// graduate, for them).
		full, _, ferr := s.tokensWhere(q, order, false, nil)
		if ferr != nil {
			return market.TokenPage{}, ferr
		}
		full.Where("t.progress >= ?", curve.BPS)
		sel.Where("t.progress < ?", curve.BPS)
		err = s.db.NewRaw("SELECT * FROM ((?) UNION ALL (?)) AS t ORDER BY t.progress DESC, "+newestKey+" LIMIT ?",
			full, sel, limit+1).Scan(ctx, &rows)
	default:
		err = sel.Scan(ctx, &rows)
	}
	if err != nil {
		return market.TokenPage{}, fmt.Errorf("bunstore: tokens: %w", err)
	}
	clock, _, err := trendClock(ctx, s.db)
	if err != nil {
		return market.TokenPage{}, fmt.Errorf("bunstore: tokens: %w", err)
	}

	var page market.TokenPage
	if len(rows) > limit {
		rows = rows[:limit]
		page.Next = next(&rows[limit-1])
	}
	page.Tokens = make([]market.Token, len(rows))
	page.Ranks = make([]market.Ranks, len(rows))
	for i := range rows {
		page.Tokens[i] = rows[i].token()
		page.Ranks[i] = rows[i].ranks(clock)
	}
	return page, nil
}

// tokensSelect selects the tokens q filters, in order, after q's cursor, and returns how to
// write the cursor after a row.
func (s *Market) tokensSelect(q market.TokenQuery, order market.TokenSort, found *[]common.Address) (*bun.SelectQuery, func(*tokenRow) string, error) {
	return s.tokensWhere(q, order, true, found)
}

// tokensWhere selects the tokens q filters after q's cursor, in order if ordered. A search is
// the tokens found when they were read (found, on SQLite), else on PostgreSQL the matches of the
// search table, else (SQLite, a common name) each token whose names match, checked one by one.
func (s *Market) tokensWhere(q market.TokenQuery, order market.TokenSort, ordered bool, found *[]common.Address) (*bun.SelectQuery, func(*tokenRow) string, error) {
	sel := s.db.NewSelect().Model((*tokenRow)(nil))
	// The phases as the partial indexes' predicates write them: SQLite uses a partial index only
	// for a term that matches its predicate as written (graduated = TRUE reads every token).
	curveTerm, graduatedTerm := "NOT t.graduated", "t.graduated"
	if s.dialect != dialectPostgres {
		curveTerm, graduatedTerm = "t.graduated = 0", "t.graduated = 1"
	}
	switch q.Phase {
	case market.PhaseCurve:
		sel.Where(curveTerm)
	case market.PhaseGraduated:
		sel.Where(graduatedTerm)
	}
	if q.Quote != nil {
		sel.Where("t.quote_address = ?", *q.Quote)
	}
	if q.ProgressMin > 0 {
		sel.Where("t.progress >= ?", int(q.ProgressMin))
	}
	if q.ProgressMax > 0 {
		sel.Where("t.progress <= ?", int(q.ProgressMax))
	}
	if q.GraduatedSince > 0 {
		sel.Where(graduatedTerm+" AND t.graduated_at >= ?", q.GraduatedSince)
	}
	switch {
	case q.Search == "":
	case found != nil && len(*found) == 0:
		sel.Where("1 = 0")
	case found != nil:
		sel.Where("t.address IN (?)", bun.List(*found))
	case s.dialect == dialectPostgres:
		sel.Where("t.address IN (SELECT s.address FROM token_search AS s WHERE "+searchTerm+")",
			searchPattern(q.Search), searchPattern(q.Search))
	default:
		sel.Where("EXISTS (SELECT 1 FROM token_search AS s WHERE s.address = t.address AND ("+searchTerm+"))",
			searchPattern(q.Search), searchPattern(q.Search))
	}
	// On PostgreSQL the discovery orders are token_ranks' (migration 0034): the list walks its
	// index and reads each token by its key.
	ranks := ""
	if s.dialect == dialectPostgres && rankedSort(order) {
		ranks = "r"
		sel.Join("JOIN token_ranks AS r ON r.address = t.address")
	}
	next, err := keysetTokens(sel, order, q.Cursor, ordered, ranks)
	return sel, next, err
}

// rankedSort reports whether sort is one of the discovery orders token_ranks keeps.
func rankedSort(sort market.TokenSort) bool {
	switch sort {
	case market.SortVolume24h, market.SortTrending, market.SortGainers1h, market.SortGainers24h, market.SortLosers24h:
		return true
	}
	return false
}

// keysetTokens orders sel for a keyset sort, restricts it to the rows after the cursor, and
// returns how to write the cursor after a row. The keys are the tokens' columns (t), or those of
// the table alias ranks names, which holds the same values and the launch that breaks ties.
func keysetTokens(sel *bun.SelectQuery, sort market.TokenSort, cursor string, ordered bool, ranks string) (func(*tokenRow) string, error) {
	keys := "t"
	if ranks != "" {
		keys = ranks
	}
	type keyset struct {
		tag    string
		column string // leading sort column; empty for newest
		asc    bool   // the leading column ascends (the tie-break still descends)
		encode func(r *tokenRow) string
		decode func(f string) (any, bool)
		mark   string // the placeholder of the key's value
	}
	floatKey := func(tag, column string, asc bool, get func(r *tokenRow) float64) keyset {
		// A float written out may read as an integer literal (4100000000000012300), which
		// SQLite then compares with the column as an integer; the cast keeps it a float.
		return keyset{tag: tag, column: column, asc: asc, mark: "CAST(? AS DOUBLE PRECISION)",
			encode: func(r *tokenRow) string { return strconv.FormatFloat(get(r), 'g', -1, 64) },
			decode: func(f string) (any, bool) {
				v, err := strconv.ParseFloat(f, 64)
				return v, err == nil && !math.IsNaN(v) && !math.IsInf(v, 0)
			},
		}
	}
	var k keyset
	switch sort {
	case market.SortNewest:
		k = keyset{tag: "n"}
	case market.SortMarketCap:
		k = keyset{
			tag: "m", column: "t.market_cap",
			encode: func(r *tokenRow) string { v := uint256.Int(r.MarketCap); return v.Dec() },
			decode: func(f string) (any, bool) {
				var v uint256.Int
				if err := scanDecimal(&v, f); err != nil {
					return nil, false
				}
				return sortAmount(v), true
			},
		}
	case market.SortProgress:
		k = keyset{
			tag: "p", column: "t.progress",
			encode: func(r *tokenRow) string { return strconv.Itoa(r.Progress) },
			decode: func(f string) (any, bool) {
				v, err := strconv.Atoi(f)
				return v, err == nil
			},
		}
	case market.SortVolume24h:
		k = floatKey("v", keys+".volume_rank", false, func(r *tokenRow) float64 { return r.VolumeRank })
	case market.SortTrending:
		k = floatKey("t", keys+".trend_log", false, func(r *tokenRow) float64 { return r.TrendLog })
	case market.SortGainers1h:
		k = floatKey("g1", keys+".change_1h", false, func(r *tokenRow) float64 { return r.Change1h })
	case market.SortGainers24h:
		k = floatKey("g24", keys+".change_24h", false, func(r *tokenRow) float64 { return r.Change24h })
	case market.SortLosers24h:
		k = floatKey("l24", keys+".change_24h", true, func(r *tokenRow) float64 { return r.Change24h })
	}
	if k.mark == "" {
		k.mark = "?"
	}
	switch {
	case !ordered:
	case k.asc:
		sel.OrderExpr(k.column + " ASC")
	case k.column != "":
		sel.OrderExpr(k.column + " DESC")
	}
	if ordered {
		sel.OrderExpr(strings.ReplaceAll(newestKey, "t.", keys+"."))
	}

	if cursor != "" {
		n := 3
		if k.column != "" {
			n = 4
		}
		f, err := decodeCursor(cursor, k.tag, n)
		if err != nil {
			return nil, err
		}
		var args []any
		if k.column != "" {
			v, ok := k.decode(f[0])
			if !ok {
				return nil, fmt.Errorf("%w: malformed cursor", curvekit.ErrInvalid)
			}
			args = append(args, v)
			f = f[1:]
		}
		block, err1 := strconv.ParseInt(f[0], 10, 64)
		logIndex, err2 := strconv.ParseInt(f[1], 10, 64)
		addr, err3 := hexutil.Decode(f[2])
		if err1 != nil || err2 != nil || err3 != nil || len(addr) != common.AddressLength {
			return nil, fmt.Errorf("%w: malformed cursor", curvekit.ErrInvalid)
		}
		args = append(args, block, logIndex, common.BytesToAddress(addr))
		cols := keys + ".launch_block, " + keys + ".launch_log, " + keys + ".address"
		if k.asc {
			// The leading column ascends: after the cursor is a larger value, or the same one
			// and an older launch.
			sel.Where("("+k.column+" > "+k.mark+" OR ("+k.column+" = "+k.mark+" AND ("+cols+") < (?, ?, ?)))", append([]any{args[0]}, args...)...)
			return next(k.tag, k.encode), nil
		}
		if k.column != "" {
			cols = k.column + ", " + cols
		}
		// Row-value comparison: every column descends, so "after" is "less than".
		marks := "?, ?, ?"
		if k.column != "" {
			marks = k.mark + ", " + marks
		}
		sel.Where("("+cols+") < ("+marks+")", args...)
	}

	return next(k.tag, k.encode), nil
}

// next writes the cursor after a row of a keyset order: its leading key (encode, nil for newest)
// and its launch.
func next(tag string, encode func(r *tokenRow) string) func(*tokenRow) string {
	return func(r *tokenRow) string {
		fields := []string{
			strconv.FormatInt(r.LaunchBlock, 10),
			strconv.FormatInt(r.LaunchLog, 10),
			hexutil.Encode(r.Address[:]),
		}
		if encode != nil {
			fields = append([]string{encode(r)}, fields...)
		}
		return encodeCursor(tag, fields...)
	}
}

// searchTerm matches a token_search row (s) by name or symbol with a searchPattern, twice.
const searchTerm = "s.name_lower LIKE ? ESCAPE '!' OR s.symbol_lower LIKE ? ESCAPE '!'"

// searchCommon is how many matches make a search common on SQLite (Market.commonMatches).
const searchCommon = 1000

// searchText is a search's text as the lowercased names are stored.
func searchText(search string) string {
	return strings.ToLower(cleanText(search))
}

// searchPattern is the LIKE pattern of a search: its text anywhere in a lowercased name.
func searchPattern(search string) string {
	return "%" + escapeLike(searchText(search)) + "%"
}

// ftsPhrase is an FTS5 query that matches text as one phrase, every character of it literal:
// inside a double-quoted string FTS5 reads no syntax but the doubled double quote. With the
// trigram tokenizer the phrase is text's trigrams one after the other, so it matches a row
// whose name or symbol holds text.
func ftsPhrase(text string) string {
	return `"` + strings.ReplaceAll(text, `"`, `""`) + `"`
}

// escapeLike makes s match itself in a LIKE pattern with ESCAPE '!'.
func escapeLike(s string) string {
	r := strings.NewReplacer("!", "!!", "%", "!%", "_", "!_")
	return r.Replace(s)
}

func pageLimit(n int) int {
	switch {
	case n <= 0:
		return market.DefaultLimit
	case n > market.MaxLimit:
		return market.MaxLimit
	}
	return n
}
