package bunstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/holiman/uint256"
	"github.com/uptrace/bun"

	"github.com/curvekit/curvekit"
	"github.com/curvekit/curvekit/market"
)

// volumeWindow is the length of the volume24h window in seconds; both ends are inclusive.
const volumeWindow = 86400

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
// address) for every order but volume24h, which pages by offset.
func (s *Market) Tokens(ctx context.Context, q market.TokenQuery) (market.TokenPage, error) {
	limit := pageLimit(q.Limit)
	sel := s.db.NewSelect().Model((*tokenRow)(nil))
	switch q.Phase {
	case "":
	case market.PhaseCurve:
		sel.Where("t.graduated = ?", false)
	case market.PhaseGraduated:
		sel.Where("t.graduated = ?", true)
	default:
		return market.TokenPage{}, fmt.Errorf("%w: unknown phase %q", curvekit.ErrInvalid, q.Phase)
	}
	if q.Quote != nil {
		sel.Where("t.quote_address = ?", *q.Quote)
	}
	if q.Search != "" {
		pattern := "%" + escapeLike(strings.ToLower(cleanText(q.Search))) + "%"
		sel.Where("(t.name_lower LIKE ? ESCAPE '!' OR t.symbol_lower LIKE ? ESCAPE '!')", pattern, pattern)
	}

	order := q.Sort
	if order == "" {
		order = market.SortNewest
	}
	var (
		rows []tokenRow
		next func(last *tokenRow) string
	)
	switch order {
	case market.SortNewest, market.SortMarketCap, market.SortProgress:
		var err error
		if next, err = keysetTokens(sel, order, q.Cursor); err != nil {
			return market.TokenPage{}, err
		}
		if err := sel.Limit(int64(limit+1)).Scan(ctx, &rows); err != nil {
			return market.TokenPage{}, fmt.Errorf("bunstore: tokens: %w", err)
		}
	case market.SortVolume24h:
		now, offset := q.Now, 0
		if q.Cursor != "" {
			f, err := decodeCursor(q.Cursor, "v", 2)
			if err != nil {
				return market.TokenPage{}, err
			}
			n, err1 := strconv.ParseInt(f[0], 10, 64)
			o, err2 := strconv.Atoi(f[1])
			if err1 != nil || err2 != nil || o < 0 {
				return market.TokenPage{}, fmt.Errorf("%w: malformed cursor", curvekit.ErrInvalid)
			}
			now, offset = n, o
		}
		volumes := s.db.NewSelect().TableExpr("trades").
			ColumnExpr("token, SUM(quote_approx) AS volume").
			Where("block_time >= ? AND block_time <= ?", now-volumeWindow, now).
			Group("token")
		sel.Join("LEFT JOIN (?) AS v ON v.token = t.address", volumes).
			OrderExpr("COALESCE(v.volume, 0) DESC, " + newestKey).
			Offset(int64(offset))
		if err := sel.Limit(int64(limit+1)).Scan(ctx, &rows); err != nil {
			return market.TokenPage{}, fmt.Errorf("bunstore: tokens: %w", err)
		}
		next = func(*tokenRow) string {
			return encodeCursor("v", strconv.FormatInt(now, 10), strconv.Itoa(offset+limit))
		}
	default:
		return market.TokenPage{}, fmt.Errorf("%w: unknown sort %q", curvekit.ErrInvalid, q.Sort)
	}

	var page market.TokenPage
	if len(rows) > limit {
		rows = rows[:limit]
		page.Next = next(&rows[limit-1])
	}
	page.Tokens = make([]market.Token, len(rows))
	for i := range rows {
		page.Tokens[i] = rows[i].token()
	}
	return page, nil
}

// keysetTokens orders sel for a keyset sort, restricts it to the rows after the cursor, and
// returns how to write the cursor after a row.
func keysetTokens(sel *bun.SelectQuery, sort market.TokenSort, cursor string) (func(*tokenRow) string, error) {
	type keyset struct {
		tag    string
		column string // leading sort column; empty for newest
		encode func(r *tokenRow) string
		decode func(f string) (any, bool)
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
	}
	if k.column != "" {
		sel.OrderExpr(k.column + " DESC")
	}
	sel.OrderExpr(newestKey)

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
		cols := "t.launch_block, t.launch_log, t.address"
		if k.column != "" {
			cols = k.column + ", " + cols
		}
		// Row-value comparison: every column descends, so "after" is "less than".
		sel.Where("("+cols+") < ("+strings.TrimSuffix(strings.Repeat("?, ", len(args)), ", ")+")", args...)
	}

	return func(r *tokenRow) string {
		fields := []string{
			strconv.FormatInt(r.LaunchBlock, 10),
			strconv.FormatInt(r.LaunchLog, 10),
			hexutil.Encode(r.Address[:]),
		}
		if k.encode != nil {
			fields = append([]string{k.encode(r)}, fields...)
		}
		return encodeCursor(k.tag, fields...)
	}, nil
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
