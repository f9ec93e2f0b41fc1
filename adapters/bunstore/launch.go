package bunstore

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"

	"github.com/ethereum/go-ethereum/common"
	"github.com/holiman/uint256"
	"github.com/uptrace/bun"

	"github.com/curvekit/curvekit"
	"github.com/curvekit/curvekit/launch"
	"github.com/curvekit/curvekit/market"
)

// Launch is the launch.Store on bun, a view on a DB that reads the tables the market indexer
// writes. No SQL sum of both dialects adds 256-bit amounts exactly, so the rows are summed here
// with uint256. It is safe for concurrent use.
type Launch struct {
	db *bun.DB
}

var _ launch.Store = (*Launch)(nil)

// Launch returns the launch store on d.
func (d *DB) Launch() *Launch { return &Launch{db: d.bun} }

// launchTokenRow is the part of a token row that launch reads.
type launchTokenRow struct {
	bun.BaseModel `bun:"table:tokens,alias:t"`

	Address       common.Address `bun:"address"`
	Curve         common.Address `bun:"curve"`
	Creator       common.Address `bun:"creator"`
	QuoteAddress  common.Address `bun:"quote_address"`
	QuoteSymbol   string         `bun:"quote_symbol"`
	QuoteDecimals int            `bun:"quote_decimals"`
	Name          string         `bun:"name"`
	Symbol        string         `bun:"symbol"`
	URI           string         `bun:"uri"`
	CreatedAt     int64          `bun:"created_at"`
}

func (r *launchTokenRow) token() launch.Token {
	return launch.Token{
		Address: r.Address, Curve: r.Curve, Creator: r.Creator,
		Quote: market.Asset{Address: r.QuoteAddress, Symbol: r.QuoteSymbol, Decimals: uint8(r.QuoteDecimals)},
		Name:  r.Name, Symbol: r.Symbol, URI: r.URI, CreatedAt: r.CreatedAt,
	}
}

// Token returns a launched token.
func (s *Launch) Token(ctx context.Context, addr common.Address) (launch.Token, error) {
	var row launchTokenRow
	err := s.db.NewSelect().Model(&row).Where("t.address = ?", addr).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return launch.Token{}, fmt.Errorf("bunstore: token %s: %w", addr.Hex(), curvekit.ErrNotFound)
	}
	if err != nil {
		return launch.Token{}, fmt.Errorf("bunstore: launch token %s: %w", addr.Hex(), err)
	}
	return row.token(), nil
}

// LaunchTxs returns the launch transactions of creator's tokens created at or after since.
func (s *Launch) LaunchTxs(ctx context.Context, creator common.Address, since int64) ([]common.Hash, error) {
	var rows []struct {
		TxHash common.Hash `bun:"launch_tx"`
	}
	err := s.db.NewSelect().Model((*launchTokenRow)(nil)).Column("t.launch_tx").
		Where("t.creator = ?", creator).Where("t.created_at >= ?", since).
		Order("t.launch_block", "t.launch_log").Scan(ctx, &rows)
	if err != nil {
		return nil, fmt.Errorf("bunstore: launches of %s: %w", creator.Hex(), err)
	}
	var txs []common.Hash
	for _, r := range rows {
		txs = append(txs, r.TxHash)
	}
	return txs, nil
}

// CreatorFees sums the creator fees of every trade and every claim of creator's tokens.
func (s *Launch) CreatorFees(ctx context.Context, creator common.Address) ([]launch.TokenFees, error) {
	var tokens []launchTokenRow
	if err := s.db.NewSelect().Model(&tokens).Where("t.creator = ?", creator).
		OrderExpr("t.launch_block, t.launch_log").Scan(ctx); err != nil {
		return nil, fmt.Errorf("bunstore: tokens of %s: %w", creator.Hex(), err)
	}
	out := make([]launch.TokenFees, len(tokens))
	idx := make(map[common.Address]int, len(tokens))
	for i := range tokens {
		out[i].Token = tokens[i].token()
		idx[tokens[i].Address] = i
	}
	if len(tokens) == 0 {
		return out, nil
	}
	// One statement, so trades and claims come from one snapshot: a batch indexed between two
	// reads would count a claim without the trades it paid out, or the reverse.
	err := sumRows(ctx, s.db, `
		SELECT tr.token, tr.creator_fee, 0 FROM trades AS tr
		JOIN tokens AS t ON token_key(tr.token) = token_key(t.address) AND tr.token = t.address
		WHERE t.creator = ? AND length(tr.creator_fee) > 0
		UNION ALL
		SELECT c.token, c.amount, 1 FROM fee_claims AS c JOIN tokens AS t ON t.address = c.token
		WHERE t.creator = ?`, []any{creator, creator},
		func(tok common.Address, v *uint256.Int, claim bool) {
			i, ok := idx[tok]
			switch {
			case !ok:
			case claim:
				out[i].Claimed.Add(&out[i].Claimed, v)
			default:
				out[i].Earned.Add(&out[i].Earned, v)
			}
		})
	if err != nil {
		return nil, fmt.Errorf("bunstore: creator fees of %s: %w", creator.Hex(), err)
	}
	return out, nil
}

// sumRows streams (token, amount, kind) rows into add without holding them; kind 1 is a claim.
func sumRows(ctx context.Context, db *bun.DB, query string, args []any, add func(common.Address, *uint256.Int, bool)) error {
	rows, err := db.QueryContext(ctx, query, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var (
			tok  common.Address
			v    binAmount
			kind int
		)
		if err := rows.Scan(&tok, &v, &kind); err != nil {
			return err
		}
		add(tok, (*uint256.Int)(&v), kind == 1)
	}
	return rows.Err()
}

const daySeconds = 86400

// Earnings sums creator's fees earned and claimed per UTC day and pairing asset in [From, To).
func (s *Launch) Earnings(ctx context.Context, q launch.EarningsQuery) ([]launch.DayFees, error) {
	type key struct {
		day   int64
		quote common.Address
	}
	sums := map[key]*launch.DayFees{}
	// One statement, one snapshot (see CreatorFees).
	rows, err := s.db.QueryContext(ctx, `
		SELECT tr.block_time, tr.creator_fee, 0, t.quote_address, t.quote_symbol, t.quote_decimals
		FROM trades AS tr JOIN tokens AS t ON token_key(tr.token) = token_key(t.address) AND tr.token = t.address
		WHERE t.creator = ? AND length(tr.creator_fee) > 0 AND tr.block_time >= ? AND tr.block_time < ?
		UNION ALL
		SELECT c.block_time, c.amount, 1, t.quote_address, t.quote_symbol, t.quote_decimals
		FROM fee_claims AS c JOIN tokens AS t ON t.address = c.token
		WHERE t.creator = ? AND c.block_time >= ? AND c.block_time < ?`,
		q.Creator, q.From, q.To, q.Creator, q.From, q.To)
	if err != nil {
		return nil, fmt.Errorf("bunstore: earnings of %s: %w", q.Creator.Hex(), err)
	}
	defer rows.Close()
	for rows.Next() {
		var (
			t, kind int64
			v       binAmount
			a       common.Address
			sym     string
			decs    int
		)
		if err := rows.Scan(&t, &v, &kind, &a, &sym, &decs); err != nil {
			return nil, fmt.Errorf("bunstore: earnings of %s: %w", q.Creator.Hex(), err)
		}
		k := key{t - t%daySeconds, a}
		d := sums[k]
		if d == nil {
			d = &launch.DayFees{Day: k.day, Quote: market.Asset{Address: a, Symbol: sym, Decimals: uint8(decs)}}
			sums[k] = d
		}
		if kind == 1 {
			d.Claimed.Add(&d.Claimed, (*uint256.Int)(&v))
		} else {
			d.Earned.Add(&d.Earned, (*uint256.Int)(&v))
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("bunstore: earnings of %s: %w", q.Creator.Hex(), err)
	}
	out := make([]launch.DayFees, 0, len(sums))
	for _, d := range sums {
		out = append(out, *d)
	}
	slices.SortFunc(out, func(a, b launch.DayFees) int {
		if a.Day != b.Day {
			return cmp.Compare(a.Day, b.Day)
		}
		return a.Quote.Address.Cmp(b.Quote.Address)
	})
	return out, nil
}
