package bunstore

import (
	"database/sql/driver"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/holiman/uint256"
	"github.com/uptrace/bun"

	"github.com/curvekit/curvekit"
	"github.com/curvekit/curvekit/curve"
	"github.com/curvekit/curvekit/market"
)

// The row types mirror the tables in migrations/; they convert to and from the market types.

type chainRow struct {
	bun.BaseModel `bun:"table:chain"`

	ID          int            `bun:"id,pk"`
	ChainID     string         `bun:"chain_id"` // decimal: a uint64 may not fit BIGINT
	GenesisHash common.Hash    `bun:"genesis_hash"`
	Factory     common.Address `bun:"factory"`
}

type cursorRow struct {
	bun.BaseModel `bun:"table:index_cursor"`

	ID    int         `bun:"id,pk"`
	Block int64       `bun:"block_number"`
	Hash  common.Hash `bun:"block_hash"`
}

// blockRow is one cursor Apply wrote, kept so a reorganization can be traced back.
type blockRow struct {
	bun.BaseModel `bun:"table:indexed_blocks"`

	Block int64       `bun:"block_number,pk"`
	Hash  common.Hash `bun:"block_hash"`
}

type tokenRow struct {
	bun.BaseModel `bun:"table:tokens,alias:t"`

	Address          common.Address `bun:"address,pk"`
	Curve            common.Address `bun:"curve"`
	Creator          common.Address `bun:"creator"`
	QuoteAddress     common.Address `bun:"quote_address"`
	QuoteSymbol      string         `bun:"quote_symbol"`
	QuoteDecimals    int            `bun:"quote_decimals"`
	Name             string         `bun:"name"`
	Symbol           string         `bun:"symbol"`
	NameLower        string         `bun:"name_lower"`
	SymbolLower      string         `bun:"symbol_lower"`
	NameFold         string         `bun:"name_fold"`
	SymbolFold       string         `bun:"symbol_fold"`
	URI              string         `bun:"uri"`
	Decimals         int            `bun:"decimals"`
	TotalSupply      amount         `bun:"total_supply"`
	VirtualQuote0    amount         `bun:"virtual_quote0"`
	VirtualToken0    amount         `bun:"virtual_token0"`
	TokenSupply      amount         `bun:"token_supply"`
	RealToken0       amount         `bun:"real_token0"`
	GraduationQuote  amount         `bun:"graduation_quote"`
	FeeBps           int            `bun:"fee_bps"`
	CreatorShareBps  int            `bun:"creator_share_bps"`
	VirtualQuote     amount         `bun:"virtual_quote"`
	VirtualToken     amount         `bun:"virtual_token"`
	RealQuote        amount         `bun:"real_quote"`
	RealToken        amount         `bun:"real_token"`
	Graduated        bool           `bun:"graduated"`
	Pool             common.Address `bun:"pool"`
	PoolFeeBps       int            `bun:"pool_fee_bps"`
	PoolReserveQuote amount         `bun:"pool_reserve_quote"`
	PoolReserveToken amount         `bun:"pool_reserve_token"`
	LaunchBlock      int64          `bun:"launch_block"`
	LaunchTx         common.Hash    `bun:"launch_tx"`
	LaunchLog        int64          `bun:"launch_log"`
	CreatedAt        int64          `bun:"created_at"`
	LastTradeAt      int64          `bun:"last_trade_at"`
	MarketCap        sortAmount     `bun:"market_cap"`
	Progress         int            `bun:"progress"`
	GraduatedAt      int64          `bun:"graduated_at"`
	// Written at launch, then by the discovery state alone (discovery.go).
	OpenPrice  float64 `bun:"open_price"`
	TrendLog   float64 `bun:"trend_log"`
	Volume24h  amount  `bun:"volume_24h"`
	VolumeRank float64 `bun:"volume_rank"`
	Buys24h    int     `bun:"buys_24h"`
	Sells24h   int     `bun:"sells_24h"`
	Change1h   float64 `bun:"change_1h"`
	Change24h  float64 `bun:"change_24h"`
	// The prices the changes compare (nil without such a trade).
	LastPrice *binAmount `bun:"last_price"`
	Price1h   *binAmount `bun:"price_1h"`
	Price24h  *binAmount `bun:"price_24h"`
	// Holders is 0 at launch; a batch's upsert adds to the stored count (updateTokens).
	Holders int64 `bun:"holders"`
}

// searchRow is what search by name or symbol reads of a token, written at its launch; see
// migrations/*/0029_search_table.sql, and on SQLite 0033_search_trigrams.sql (its trigram index,
// which triggers keep, and its id, which the store assigns).
type searchRow struct {
	bun.BaseModel `bun:"table:token_search,alias:s"`

	Address     common.Address `bun:"address,pk"`
	NameLower   string         `bun:"name_lower"`
	SymbolLower string         `bun:"symbol_lower"`
}

func searchRows(launches []tokenRow) []searchRow {
	out := make([]searchRow, len(launches))
	for i := range launches {
		out[i] = searchRow{Address: launches[i].Address, NameLower: launches[i].NameLower, SymbolLower: launches[i].SymbolLower}
	}
	return out
}

// rankRow is a token's place in the discovery orders, on PostgreSQL (migration 0034): the
// leading keys of trending, 24h volume and the 1h and 24h changes, and the launch that breaks
// their ties, copied from the token's figures whenever they are written (writeRanks).
type rankRow struct {
	bun.BaseModel `bun:"table:token_ranks,alias:r"`

	Address     common.Address `bun:"address,pk"`
	LaunchBlock int64          `bun:"launch_block"`
	LaunchLog   int64          `bun:"launch_log"`
	TrendLog    float64        `bun:"trend_log"`
	VolumeRank  float64        `bun:"volume_rank"`
	Change1h    float64        `bun:"change_1h"`
	Change24h   float64        `bun:"change_24h"`
}

func rankRows(launches []tokenRow) []rankRow {
	out := make([]rankRow, len(launches))
	for i := range launches {
		r := &launches[i]
		out[i] = rankRow{Address: r.Address, LaunchBlock: r.LaunchBlock, LaunchLog: r.LaunchLog,
			TrendLog: r.TrendLog, VolumeRank: r.VolumeRank, Change1h: r.Change1h, Change24h: r.Change24h}
	}
	return out
}

// figureColumns are the discovery columns a batch writes (discovery.go).
var figureColumns = []string{"trend_log", "volume_24h", "volume_rank", "buys_24h", "sells_24h", "change_1h", "change_24h",
	"last_price", "price_1h", "price_24h"}

// setFigures copies f into the row.
func (r *tokenRow) setFigures(f *figures) {
	vol := uint256.Int(f.Volume)
	r.TrendLog, r.Volume24h, r.VolumeRank = f.TrendLog, f.Volume, vol.Float64()
	r.Buys24h, r.Sells24h, r.Change1h, r.Change24h = f.Buys, f.Sells, f.Change1h, f.Change24h
	r.LastPrice, r.Price1h, r.Price24h = f.Last, f.Price1h, f.Price24h
}

// tokenMutable lists the columns an update replaces (market.Batch.Updates), derived ones included.
var tokenMutable = []string{
	"total_supply", "virtual_quote", "virtual_token", "real_quote", "real_token", "graduated",
	"pool", "pool_fee_bps", "pool_reserve_quote", "pool_reserve_token", "last_trade_at",
	"market_cap", "progress", "graduated_at",
}

func newTokenRow(t *market.Token) (tokenRow, error) {
	block, err := toInt64("launch block", t.LaunchBlock)
	if err != nil {
		return tokenRow{}, err
	}
	logIndex, err := toInt64("launch log index", uint64(t.LaunchLog))
	if err != nil {
		return tokenRow{}, err
	}
	return tokenRow{
		Address:          t.Address,
		Curve:            t.Curve,
		Creator:          t.Creator,
		QuoteAddress:     t.Quote.Address,
		QuoteSymbol:      cleanText(t.Quote.Symbol),
		QuoteDecimals:    int(t.Quote.Decimals),
		Name:             cleanText(t.Name),
		Symbol:           cleanText(t.Symbol),
		NameLower:        strings.ToLower(cleanText(t.Name)),
		SymbolLower:      strings.ToLower(cleanText(t.Symbol)),
		NameFold:         market.FoldName(t.Name),
		SymbolFold:       market.FoldName(t.Symbol),
		URI:              cleanText(t.URI),
		Decimals:         int(t.Decimals),
		TotalSupply:      amount(t.TotalSupply),
		VirtualQuote0:    amount(t.Params.VirtualQuote0),
		VirtualToken0:    amount(t.Params.VirtualToken0),
		TokenSupply:      amount(t.Params.TokenSupply),
		RealToken0:       amount(t.Params.RealToken0),
		GraduationQuote:  amount(t.Params.GraduationQuote),
		FeeBps:           int(t.Params.FeeBps),
		CreatorShareBps:  int(t.Params.CreatorShareBps),
		VirtualQuote:     amount(t.State.VirtualQuote),
		VirtualToken:     amount(t.State.VirtualToken),
		RealQuote:        amount(t.State.RealQuote),
		RealToken:        amount(t.State.RealToken),
		Graduated:        t.State.Graduated,
		Pool:             t.Pool,
		PoolFeeBps:       int(t.PoolFeeBps),
		PoolReserveQuote: amount(t.PoolReserveQuote),
		PoolReserveToken: amount(t.PoolReserveToken),
		LaunchBlock:      block,
		LaunchTx:         t.LaunchTx,
		LaunchLog:        logIndex,
		CreatedAt:        t.CreatedAt,
		LastTradeAt:      t.LastTradeAt,
		MarketCap:        sortAmount(t.MarketCap()),
		Progress:         int(t.Progress()),
		GraduatedAt:      t.GraduatedAt,
		OpenPrice:        market.OpenPrice(t),
		TrendLog:         market.NoTrend,
	}, nil
}

func (r *tokenRow) token() market.Token {
	return market.Token{
		Address:     r.Address,
		Curve:       r.Curve,
		Creator:     r.Creator,
		Quote:       market.Asset{Address: r.QuoteAddress, Symbol: r.QuoteSymbol, Decimals: uint8(r.QuoteDecimals)},
		Name:        r.Name,
		Symbol:      r.Symbol,
		URI:         r.URI,
		Decimals:    uint8(r.Decimals),
		TotalSupply: uint256Of(r.TotalSupply),
		Params: curve.Params{
			VirtualQuote0:   uint256Of(r.VirtualQuote0),
			VirtualToken0:   uint256Of(r.VirtualToken0),
			TokenSupply:     uint256Of(r.TokenSupply),
			RealToken0:      uint256Of(r.RealToken0),
			GraduationQuote: uint256Of(r.GraduationQuote),
			FeeBps:          uint16(r.FeeBps),
			CreatorShareBps: uint16(r.CreatorShareBps),
		},
		State: curve.State{
			VirtualQuote: uint256Of(r.VirtualQuote),
			VirtualToken: uint256Of(r.VirtualToken),
			RealQuote:    uint256Of(r.RealQuote),
			RealToken:    uint256Of(r.RealToken),
			Graduated:    r.Graduated,
		},
		Pool:             r.Pool,
		PoolFeeBps:       uint16(r.PoolFeeBps),
		PoolReserveQuote: uint256Of(r.PoolReserveQuote),
		PoolReserveToken: uint256Of(r.PoolReserveToken),
		LaunchBlock:      uint64(r.LaunchBlock),
		LaunchTx:         r.LaunchTx,
		LaunchLog:        uint(r.LaunchLog),
		CreatedAt:        r.CreatedAt,
		LastTradeAt:      r.LastTradeAt,
		GraduatedAt:      r.GraduatedAt,
	}
}

// tradeRow is a trade as migration 0023 stores it; BlockHash is read from trade_blocks
// (tradeColumns) and written there by Apply.
type tradeRow struct {
	bun.BaseModel `bun:"table:trades,alias:tr"`

	Block        int64          `bun:"block_number"`
	Time         int64          `bun:"block_time"`
	LogIndex     int32          `bun:"log_index"`
	Side         sideCode       `bun:"side"`
	Venue        venueCode      `bun:"venue"`
	Token        common.Address `bun:"token"`
	TxHash       common.Hash    `bun:"tx_hash"`
	Trader       common.Address `bun:"trader"`
	Recipient    recipient      `bun:"recipient"`
	QuoteAmount  binAmount      `bun:"quote_amount"`
	TokenAmount  binAmount      `bun:"token_amount"`
	Fee          binAmount      `bun:"fee"`
	CreatorFee   binAmount      `bun:"creator_fee"`
	Refund       binAmount      `bun:"refund"`
	Price        binAmount      `bun:"price"`
	ReserveQuote binAmount      `bun:"reserve_quote"`
	ReserveToken binAmount      `bun:"reserve_token"`
	BlockHash    common.Hash    `bun:"block_hash,scanonly"`
}

// tradeColumns selects a tradeRow: the trade's columns and its block's hash. A subquery rather
// than a join: PostgreSQL then looks the hash up for each row a page returns, where it planned a
// join that walked trade_blocks back from the newest block to the page's oldest (85 ms, not 1,
// for a page of a busy token).
const tradeColumns = "tr.*, (SELECT tb.block_hash FROM trade_blocks AS tb WHERE tb.block_number = tr.block_number) AS block_hash"

// tradeBlockRow is the hash of a block that holds trades (migration 0023).
type tradeBlockRow struct {
	bun.BaseModel `bun:"table:trade_blocks"`

	Block int64       `bun:"block_number,pk"`
	Hash  common.Hash `bun:"block_hash"`
}

// sideCode is a trade's side as the side column stores it: 1 buy, 2 sell, 0 none (the zero
// Side, which only hand-made trades carry).
type sideCode int16

// sideBuy is a buy's sideCode.
const sideBuy sideCode = 1

// venueCode is a trade's venue as the venue column stores it: 1 curve, 2 pool, 0 none.
type venueCode int16

var (
	sides  = []curvekit.Side{"", curvekit.Buy, curvekit.Sell}
	venues = []curvekit.Venue{"", curvekit.VenueCurve, curvekit.VenuePool}
)

func (c sideCode) side() curvekit.Side {
	if int(c) < len(sides) && c >= 0 {
		return sides[c]
	}
	return ""
}

func (c venueCode) venue() curvekit.Venue {
	if int(c) < len(venues) && c >= 0 {
		return venues[c]
	}
	return ""
}

// recipient is a trade's recipient as the recipient column stores it: no bytes when it is the
// trader.
type recipient struct {
	addr common.Address
	set  bool
}

func (r recipient) Value() (driver.Value, error) {
	if !r.set {
		return []byte{}, nil // not nil, which would be written as NULL
	}
	return r.addr.Bytes(), nil
}

func (r *recipient) Scan(src any) error {
	if b, ok := src.([]byte); ok && len(b) == 0 || src == nil {
		*r = recipient{}
		return nil
	}
	r.set = true
	return r.addr.Scan(src)
}

func newTradeRow(t *market.Trade) (tradeRow, error) {
	block, err := toInt64("trade block", t.Block)
	if err != nil {
		return tradeRow{}, err
	}
	if t.LogIndex > math.MaxInt32 {
		return tradeRow{}, fmt.Errorf("%w: trade log index %d does not fit a signed 32-bit column", curvekit.ErrInvalid, t.LogIndex)
	}
	side := slices.Index(sides, t.Side)
	if side < 0 {
		return tradeRow{}, fmt.Errorf("%w: trade side %q is neither %s nor %s", curvekit.ErrInvalid, t.Side, curvekit.Buy, curvekit.Sell)
	}
	venue := slices.Index(venues, t.Venue)
	if venue < 0 {
		return tradeRow{}, fmt.Errorf("%w: trade venue %q is neither %s nor %s", curvekit.ErrInvalid, t.Venue, curvekit.VenueCurve, curvekit.VenuePool)
	}
	return tradeRow{
		Block:        block,
		Time:         t.Time,
		LogIndex:     int32(t.LogIndex),
		Side:         sideCode(side),
		Venue:        venueCode(venue),
		Token:        t.Token,
		TxHash:       t.TxHash,
		Trader:       t.Trader,
		Recipient:    recipient{addr: t.Recipient, set: t.Recipient != t.Trader},
		QuoteAmount:  binAmount(t.QuoteAmount),
		TokenAmount:  binAmount(t.TokenAmount),
		Fee:          binAmount(t.Fee),
		CreatorFee:   binAmount(t.CreatorFee),
		Refund:       binAmount(t.Refund),
		Price:        binAmount(t.Price),
		ReserveQuote: binAmount(t.ReserveQuote),
		ReserveToken: binAmount(t.ReserveToken),
		BlockHash:    t.BlockHash,
	}, nil
}

func (r *tradeRow) trade() market.Trade {
	to := r.Trader
	if r.Recipient.set {
		to = r.Recipient.addr
	}
	return market.Trade{
		Token:        r.Token,
		Block:        uint64(r.Block),
		BlockHash:    r.BlockHash,
		TxHash:       r.TxHash,
		LogIndex:     uint(r.LogIndex),
		Time:         r.Time,
		Trader:       r.Trader,
		Recipient:    to,
		Side:         r.Side.side(),
		Venue:        r.Venue.venue(),
		QuoteAmount:  uint256.Int(r.QuoteAmount),
		TokenAmount:  uint256.Int(r.TokenAmount),
		Fee:          uint256.Int(r.Fee),
		CreatorFee:   uint256.Int(r.CreatorFee),
		Refund:       uint256.Int(r.Refund),
		Price:        uint256.Int(r.Price),
		ReserveQuote: uint256.Int(r.ReserveQuote),
		ReserveToken: uint256.Int(r.ReserveToken),
	}
}

type claimRow struct {
	bun.BaseModel `bun:"table:fee_claims"`

	TxHash   common.Hash    `bun:"tx_hash"`
	LogIndex int64          `bun:"log_index,pk"`
	Token    common.Address `bun:"token"`
	Curve    common.Address `bun:"curve"`
	Creator  common.Address `bun:"creator"`
	Quote    common.Address `bun:"quote"`
	Amount   binAmount      `bun:"amount"`
	Block    int64          `bun:"block_number,pk"`
	Time     int64          `bun:"block_time"`
}

func newClaimRow(c *market.FeeClaim) (claimRow, error) {
	block, err := toInt64("claim block", c.Block)
	if err != nil {
		return claimRow{}, err
	}
	logIndex, err := toInt64("claim log index", uint64(c.LogIndex))
	if err != nil {
		return claimRow{}, err
	}
	return claimRow{
		TxHash:   c.TxHash,
		LogIndex: logIndex,
		Token:    c.Token,
		Curve:    c.Curve,
		Creator:  c.Creator,
		Quote:    c.Quote,
		Amount:   binAmount(c.Amount),
		Block:    block,
		Time:     c.Time,
	}, nil
}

// cleanText makes chain-supplied text storable in both databases: Postgres refuses NUL and
// invalid UTF-8 in text columns (and a NUL would end a SQLite statement), so each NUL and each run
// of invalid bytes becomes U+FFFD, as the market.Store doc says.
func cleanText(s string) string {
	return strings.ToValidUTF8(strings.ReplaceAll(s, "\x00", "\uFFFD"), "\uFFFD")
}

func toInt64(what string, v uint64) (int64, error) {
	if v > math.MaxInt64 {
		return 0, fmt.Errorf("%w: %s %d does not fit a signed 64-bit column", curvekit.ErrInvalid, what, v)
	}
	return int64(v), nil
}

// ranks are the row's discovery values as of the discovery clock at.
func (r *tokenRow) ranks(at int64) market.Ranks {
	return market.Ranks{
		Trend: market.TrendScore(r.TrendLog, at), Change1h: r.Change1h, Change24h: r.Change24h,
		Volume24h: uint256.Int(r.Volume24h), Buys24h: r.Buys24h, Sells24h: r.Sells24h,
	}
}
