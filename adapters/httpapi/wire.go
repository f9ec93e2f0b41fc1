package httpapi

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"math"
	"strconv"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/holiman/uint256"

	"github.com/curvekit/curvekit"
	"github.com/curvekit/curvekit/candles"
	"github.com/curvekit/curvekit/market"
	"github.com/curvekit/curvekit/txbuild"
)

// The JSON shapes of docs/API.md. Amounts are exact decimal strings in whole units of their asset
// (curvekit.FormatAmount); prices and ratios are display values and travel as JSON numbers.

// number is a display value. A value that is not finite (a price whose reserves overflow a float)
// is written as null rather than failing the whole response.
type number float64

func (n number) MarshalJSON() ([]byte, error) { return n.appendJSON(nil), nil }

func (n number) appendJSON(b []byte) []byte {
	f := float64(n)
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return append(b, "null"...)
	}
	return strconv.AppendFloat(b, f, 'g', -1, 64)
}

func amount(v *uint256.Int, decimals uint8) string { return curvekit.FormatAmount(v, decimals) }

// addrOrNull writes the zero address as null (native ETH, a token without a pool).
func addrOrNull(a common.Address) *string {
	if a == (common.Address{}) {
		return nil
	}
	s := a.Hex()
	return &s
}

type assetJSON struct {
	Address  *string `json:"address"`
	Symbol   string  `json:"symbol"`
	Decimals uint8   `json:"decimals"`
}

func assetOf(a market.Asset) assetJSON {
	return assetJSON{Address: addrOrNull(a.Address), Symbol: a.Symbol, Decimals: a.Decimals}
}

type curveReservesJSON struct {
	VirtualQuote string `json:"virtualQuote"`
	VirtualToken string `json:"virtualToken"`
	RealQuote    string `json:"realQuote"`
	RealToken    string `json:"realToken"`
}

type poolReservesJSON struct {
	Quote string `json:"quote"`
	Token string `json:"token"`
}

// tokenJSON is a token as GET /tokens and GET /tokens/:address show it. SameName and SameSymbol
// count the other tokens whose name, or symbol, reads the same (market.Namesakes): a warning
// that this one may be taken for another.
type tokenJSON struct {
	Address      string             `json:"address"`
	Curve        string             `json:"curve"`
	Creator      string             `json:"creator"`
	Name         string             `json:"name"`
	Symbol       string             `json:"symbol"`
	SameName     int                `json:"sameName"`
	SameSymbol   int                `json:"sameSymbol"`
	URI          string             `json:"uri"`
	Decimals     uint8              `json:"decimals"`
	Quote        assetJSON          `json:"quote"`
	Phase        market.Phase       `json:"phase"`
	Pool         *string            `json:"pool"`
	TotalSupply  string             `json:"totalSupply"`
	Price        number             `json:"price"`
	MarketCap    string             `json:"marketCap"`
	Liquidity    string             `json:"liquidity"`
	Volume24h    string             `json:"volume24h"`
	Buys24h      int                `json:"buys24h"`
	Sells24h     int                `json:"sells24h"`
	ProgressBps  uint16             `json:"progressBps"`
	Reserves     *curveReservesJSON `json:"reserves"`
	PoolReserves *poolReservesJSON  `json:"poolReserves"`
	CreatedAt    int64              `json:"createdAt"`
	LastTradeAt  *int64             `json:"lastTradeAt"`
	GraduatedAt  *int64             `json:"graduatedAt"`
	LaunchBlock  uint64             `json:"launchBlock"`
	LaunchTx     string             `json:"launchTx"`
	// GET /tokens/:address alone: how the supply is spread (market.Concentration).
	Holders        *int    `json:"holders,omitempty"`
	Top10Share     *number `json:"top10Share,omitempty"`
	CreatorShare   *number `json:"creatorShare,omitempty"`
	CreatorBalance *string `json:"creatorBalance,omitempty"`
	// GET /tokens alone: the discovery values (market.Ranks).
	TrendScore *number `json:"trendScore,omitempty"`
	Change1h   *number `json:"change1h,omitempty"`
	Change24h  *number `json:"change24h,omitempty"`
}

func tokenOf(v *market.View) tokenJSON {
	qd, td := v.Quote.Decimals, v.Decimals
	t := tokenJSON{
		Address: v.AddressHex(), Curve: v.CurveHex(), Creator: v.CreatorHex(),
		Name: v.Name, Symbol: v.Symbol, SameName: v.Namesakes.Name, SameSymbol: v.Namesakes.Symbol,
		URI: v.URI, Decimals: td,
		Quote: assetOf(v.Quote), Phase: v.Phase(),
		TotalSupply: amount(&v.TotalSupply, td),
		Price:       number(v.Price),
		MarketCap:   amount(&v.MarketCap, qd),
		Liquidity:   amount(&v.Liquidity, qd),
		Volume24h:   amount(&v.Day.Volume, qd),
		Buys24h:     v.Day.Buys, Sells24h: v.Day.Sells,
		ProgressBps: v.ProgressBps,
		CreatedAt:   v.CreatedAt, LaunchBlock: v.LaunchBlock, LaunchTx: v.LaunchTx.Hex(),
	}
	if v.State.Graduated {
		t.Pool = addrOrNull(v.Pool)
		t.PoolReserves = &poolReservesJSON{Quote: amount(&v.PoolReserveQuote, qd), Token: amount(&v.PoolReserveToken, td)}
	} else {
		t.Reserves = &curveReservesJSON{
			VirtualQuote: amount(&v.State.VirtualQuote, qd), VirtualToken: amount(&v.State.VirtualToken, td),
			RealQuote: amount(&v.State.RealQuote, qd), RealToken: amount(&v.State.RealToken, td),
		}
	}
	if v.LastTradeAt != 0 {
		at := v.LastTradeAt
		t.LastTradeAt = &at
	}
	if v.GraduatedAt != 0 {
		at := v.GraduatedAt
		t.GraduatedAt = &at
	}
	if c := v.Concentration; c != nil {
		n, top, cs, cb := c.Holders, number(c.Top10Share), number(c.CreatorShare), amount(&c.CreatorBalance, td)
		t.Holders, t.Top10Share, t.CreatorShare, t.CreatorBalance = &n, &top, &cs, &cb
	}
	if r := v.Ranks; r != nil {
		tr, c1, c24 := number(r.Trend), number(r.Change1h), number(r.Change24h)
		t.TrendScore, t.Change1h, t.Change24h = &tr, &c1, &c24
	}
	return t
}

// tokenAnswer is GET /tokens/:address's answer, appended straight from the view: the same bytes
// as tokenOf's tokenJSON through encoding/json, without reflection or a string per field.
type tokenAnswer struct{ v *market.View }

func (a tokenAnswer) appendJSON(b []byte) []byte {
	v := a.v
	qd, td := v.Quote.Decimals, v.Decimals
	b = append(b, `{"address":"`...)
	b = append(b, v.AddressHex()...)
	b = append(b, `","curve":"`...)
	b = append(b, v.CurveHex()...)
	b = append(b, `","creator":"`...)
	b = append(b, v.CreatorHex()...)
	b = append(b, '"')
	b = append(b, `,"name":`...)
	b = appendJSONString(b, v.Name)
	b = append(b, `,"symbol":`...)
	b = appendJSONString(b, v.Symbol)
	b = append(b, `,"sameName":`...)
	b = strconv.AppendInt(b, int64(v.Namesakes.Name), 10)
	b = append(b, `,"sameSymbol":`...)
	b = strconv.AppendInt(b, int64(v.Namesakes.Symbol), 10)
	b = append(b, `,"uri":`...)
	b = appendJSONString(b, v.URI)
	b = append(b, `,"decimals":`...)
	b = strconv.AppendUint(b, uint64(td), 10)
	b = append(b, `,"quote":{"address":`...)
	if v.Quote.Address == (common.Address{}) {
		b = append(b, "null"...)
	} else {
		b = appendJSONString(b, v.QuoteHex())
	}
	b = append(b, `,"symbol":`...)
	b = appendJSONString(b, v.Quote.Symbol)
	b = append(b, `,"decimals":`...)
	b = strconv.AppendUint(b, uint64(qd), 10)
	b = append(b, `},"phase":`...)
	b = appendJSONString(b, string(v.Phase()))
	b = append(b, `,"pool":`...)
	if !v.State.Graduated || v.Pool == (common.Address{}) {
		b = append(b, "null"...)
	} else {
		b = appendJSONString(b, v.PoolHex())
	}
	b = appendAmountField(b, `,"totalSupply":"`, &v.TotalSupply, td)
	b = append(b, `,"price":`...)
	b = number(v.Price).appendJSON(b)
	b = appendAmountField(b, `,"marketCap":"`, &v.MarketCap, qd)
	b = appendAmountField(b, `,"liquidity":"`, &v.Liquidity, qd)
	b = appendAmountField(b, `,"volume24h":"`, &v.Day.Volume, qd)
	b = append(b, `,"buys24h":`...)
	b = strconv.AppendInt(b, int64(v.Day.Buys), 10)
	b = append(b, `,"sells24h":`...)
	b = strconv.AppendInt(b, int64(v.Day.Sells), 10)
	b = append(b, `,"progressBps":`...)
	b = strconv.AppendUint(b, uint64(v.ProgressBps), 10)
	if v.State.Graduated {
		b = appendAmountField(b, `,"reserves":null,"poolReserves":{"quote":"`, &v.PoolReserveQuote, qd)
		b = appendAmountField(b, `,"token":"`, &v.PoolReserveToken, td)
		b = append(b, '}')
	} else {
		b = appendAmountField(b, `,"reserves":{"virtualQuote":"`, &v.State.VirtualQuote, qd)
		b = appendAmountField(b, `,"virtualToken":"`, &v.State.VirtualToken, td)
		b = appendAmountField(b, `,"realQuote":"`, &v.State.RealQuote, qd)
		b = appendAmountField(b, `,"realToken":"`, &v.State.RealToken, td)
		b = append(b, `},"poolReserves":null`...)
	}
	b = append(b, `,"createdAt":`...)
	b = strconv.AppendInt(b, v.CreatedAt, 10)
	b = append(b, `,"lastTradeAt":`...)
	if v.LastTradeAt != 0 {
		b = strconv.AppendInt(b, v.LastTradeAt, 10)
	} else {
		b = append(b, "null"...)
	}
	b = append(b, `,"graduatedAt":`...)
	if v.GraduatedAt != 0 {
		b = strconv.AppendInt(b, v.GraduatedAt, 10)
	} else {
		b = append(b, "null"...)
	}
	b = append(b, `,"launchBlock":`...)
	b = strconv.AppendUint(b, v.LaunchBlock, 10)
	b = append(b, `,"launchTx":"0x`...)
	b = hex.AppendEncode(b, v.LaunchTx[:])
	b = append(b, '"')
	if c := v.Concentration; c != nil {
		b = append(b, `,"holders":`...)
		b = strconv.AppendInt(b, int64(c.Holders), 10)
		b = append(b, `,"top10Share":`...)
		b = number(c.Top10Share).appendJSON(b)
		b = append(b, `,"creatorShare":`...)
		b = number(c.CreatorShare).appendJSON(b)
		b = appendAmountField(b, `,"creatorBalance":"`, &c.CreatorBalance, td)
	}
	if r := v.Ranks; r != nil {
		b = append(b, `,"trendScore":`...)
		b = number(r.Trend).appendJSON(b)
		b = append(b, `,"change1h":`...)
		b = number(r.Change1h).appendJSON(b)
		b = append(b, `,"change24h":`...)
		b = number(r.Change24h).appendJSON(b)
	}
	return append(b, '}')
}

// appendAmountField appends name (which opens the string) and v in whole units, closing the
// string.
func appendAmountField(b []byte, name string, v *uint256.Int, decimals uint8) []byte {
	b = append(b, name...)
	b = curvekit.AppendAmount(b, v, decimals)
	return append(b, '"')
}

type tokenListJSON struct {
	Tokens     []tokenJSON `json:"tokens"`
	NextCursor *string     `json:"nextCursor"`
}

func cursorOrNull(c string) *string {
	if c == "" {
		return nil
	}
	return &c
}

type quoteJSON struct {
	Token          string         `json:"token"`
	Type           curvekit.Side  `json:"type"`
	Venue          curvekit.Venue `json:"venue"`
	AmountIn       string         `json:"amountIn"`
	AmountOut      string         `json:"amountOut"`
	Fee            string         `json:"fee"`
	CreatorFee     string         `json:"creatorFee"`
	Refund         string         `json:"refund"`
	PriceImpactBps uint64         `json:"priceImpactBps"`
	Graduates      bool           `json:"graduates"`
	Price          number         `json:"price"`
}

// quoteAnswer is GET /tokens/:address/quote's answer, appended straight from the quote with its
// amounts formatted into the buffer: the same bytes as quoteOf's quoteJSON through encoding/json,
// without reflection or a string per amount (a quote is the most frequent answer).
type quoteAnswer struct {
	v *market.View
	q *txbuild.Quote
}

func (a quoteAnswer) appendJSON(b []byte) []byte {
	v, q := a.v, a.q
	in, out := inOutDecimals(&v.Token, q.Side)
	qd := v.Quote.Decimals
	b = append(b, `{"token":"`...)
	b = append(b, v.AddressHex()...) // hex digits: nothing to escape
	b = append(b, `","type":`...)
	b = appendJSONString(b, string(q.Side))
	b = append(b, `,"venue":`...)
	b = appendJSONString(b, string(q.Venue))
	for _, f := range [...]struct {
		name     string
		v        *uint256.Int
		decimals uint8
	}{{`,"amountIn":"`, &q.In, in}, {`,"amountOut":"`, &q.Out, out}, {`,"fee":"`, &q.Fee, qd},
		{`,"creatorFee":"`, &q.CreatorFee, qd}, {`,"refund":"`, &q.Refund, qd}} {
		b = append(b, f.name...)
		b = curvekit.AppendAmount(b, f.v, f.decimals)
		b = append(b, '"')
	}
	b = append(b, `,"priceImpactBps":`...)
	b = strconv.AppendUint(b, q.ImpactBps, 10)
	b = append(b, `,"graduates":`...)
	b = strconv.AppendBool(b, q.Graduates)
	b = append(b, `,"price":`...)
	b = number(v.Price).appendJSON(b)
	return append(b, '}')
}

// appendJSONString appends s as a JSON string: as is when it needs no escaping (addresses,
// amounts, names of enums), else as encoding/json writes it (without HTML escaping).
func appendJSONString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
			var buf bytes.Buffer
			enc := json.NewEncoder(&buf)
			enc.SetEscapeHTML(false)
			_ = enc.Encode(s)
			return append(b, bytes.TrimSuffix(buf.Bytes(), []byte("\n"))...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// inOutDecimals returns the decimals of what a trade spends and of what it receives.
func inOutDecimals(t *market.Token, side curvekit.Side) (in, out uint8) {
	if side == curvekit.Sell {
		return t.Decimals, t.Quote.Decimals
	}
	return t.Quote.Decimals, t.Decimals
}

func quoteOf(v *market.View, q *txbuild.Quote) quoteJSON {
	in, out := inOutDecimals(&v.Token, q.Side)
	qd := v.Quote.Decimals
	return quoteJSON{
		Token: v.AddressHex(), Type: q.Side, Venue: q.Venue,
		AmountIn: amount(&q.In, in), AmountOut: amount(&q.Out, out),
		Fee: amount(&q.Fee, qd), CreatorFee: amount(&q.CreatorFee, qd), Refund: amount(&q.Refund, qd),
		PriceImpactBps: q.ImpactBps, Graduates: q.Graduates, Price: number(v.Price),
	}
}

type buildJSON struct {
	To           string        `json:"to"`
	Data         string        `json:"data"`
	Value        string        `json:"value"`
	ChainID      uint64        `json:"chainId"`
	From         string        `json:"from,omitempty"`
	Gas          string        `json:"gas,omitempty"`
	Approval     *approvalJSON `json:"approval"`
	Quote        quoteJSON     `json:"quote"`
	MinAmountOut string        `json:"minAmountOut"`
	Deadline     int64         `json:"deadline"`
	// Issues are present when the request named from.
	Issues *issuesJSON `json:"issues,omitempty"`
}

// issuesJSON is what would stop from sending a build as it stands, in the shape of 0x's quote
// API's issues.
type issuesJSON struct {
	Balance              *balanceIssueJSON   `json:"balance"`
	Allowance            *allowanceIssueJSON `json:"allowance"`
	SimulationIncomplete bool                `json:"simulationIncomplete"`
	// Settings is null unless the caller owns from; then it lists each step the account's
	// settings would refuse (empty: none).
	Settings *[]settingsIssueJSON `json:"settings"`
}

type balanceIssueJSON struct {
	Token    string `json:"token"`
	Actual   string `json:"actual"`
	Expected string `json:"expected"`
}

type allowanceIssueJSON struct {
	Token    string `json:"token"`
	Spender  string `json:"spender"`
	Actual   string `json:"actual"`
	Expected string `json:"expected"`
}

type settingsIssueJSON struct {
	Step    string        `json:"step" enum:"approval,transaction"`
	Code    curvekit.Code `json:"code"`
	Message string        `json:"message"`
}

type approvalJSON struct {
	To      string `json:"to"`
	Data    string `json:"data"`
	Value   string `json:"value"`
	ChainID uint64 `json:"chainId"`
	From    string `json:"from,omitempty"`
	Token   string `json:"token"`
	Spender string `json:"spender"`
	Amount  string `json:"amount"`
}

// txFields are the wallet fields of a transaction: value in wei as a decimal string, gas only
// when estimated, from only when known.
func txFields(tx *txbuild.Tx) (to, data, value, from, gas string) {
	to, data, value = tx.To.Hex(), hexutil.Encode(tx.Data), tx.Value.Dec()
	if tx.From != (common.Address{}) {
		from = tx.From.Hex()
	}
	if tx.Gas != 0 {
		gas = strconv.FormatUint(tx.Gas, 10)
	}
	return to, data, value, from, gas
}

type tradeJSON struct {
	TxHash      string         `json:"txHash"`
	LogIndex    uint           `json:"logIndex"`
	Block       uint64         `json:"block"`
	Time        int64          `json:"time"`
	Side        curvekit.Side  `json:"side"`
	Venue       curvekit.Venue `json:"venue"`
	Trader      string         `json:"trader"`
	Recipient   string         `json:"recipient"`
	QuoteAmount string         `json:"quoteAmount"`
	TokenAmount string         `json:"tokenAmount"`
	Fee         string         `json:"fee"`
	CreatorFee  string         `json:"creatorFee"`
	Refund      string         `json:"refund"`
	Price       number         `json:"price"`
}

func tradeOf(t *market.Token, tr *market.Trade) tradeJSON {
	qd := t.Quote.Decimals
	return tradeJSON{
		TxHash: tr.TxHash.Hex(), LogIndex: tr.LogIndex, Block: tr.Block, Time: tr.Time,
		Side: tr.Side, Venue: tr.Venue, Trader: tr.Trader.Hex(), Recipient: tr.Recipient.Hex(),
		QuoteAmount: amount(&tr.QuoteAmount, qd), TokenAmount: amount(&tr.TokenAmount, t.Decimals),
		Fee: amount(&tr.Fee, qd), CreatorFee: amount(&tr.CreatorFee, qd), Refund: amount(&tr.Refund, qd),
		Price: number(market.PriceFloat(&tr.Price, qd)),
	}
}

type tradeListJSON struct {
	Trades     []tradeJSON `json:"trades"`
	NextCursor *string     `json:"nextCursor"`
}

type barJSON struct {
	Time   int64  `json:"time"`
	Open   number `json:"open"`
	High   number `json:"high"`
	Low    number `json:"low"`
	Close  number `json:"close"`
	Volume string `json:"volume"`
	Trades int    `json:"trades"`
}

// volumeAmount formats a bar's exact volume (base units) in whole units of the pairing asset.
func volumeAmount(v candles.Volume, decimals uint8) string {
	var z uint256.Int
	z.SetFromBig(v.Big()) // a Volume is below 2^128
	return amount(&z, decimals)
}

func barOf(b *candles.Bar, quoteDecimals uint8) barJSON {
	return barJSON{
		Time: b.Time, Open: number(b.Open), High: number(b.High), Low: number(b.Low), Close: number(b.Close),
		Volume: volumeAmount(b.Volume, quoteDecimals), Trades: b.Trades,
	}
}

type seriesJSON struct {
	Resolution candles.Resolution `json:"resolution"`
	From       int64              `json:"from"`
	To         int64              `json:"to"`
	Bars       []barJSON          `json:"bars"`
	Prev       *int64             `json:"prev"`
	NoData     bool               `json:"noData"`
}

// appendSeriesJSON appends the seriesJSON of s (each bar a barOf), byte for byte what
// encoding/json writes of it, without the reflection and the allocations of each bar's numbers
// (a window is up to 1,000 bars). Its resolution must be valid (encoding/json fails otherwise).
func appendSeriesJSON(b []byte, s *market.Series) []byte {
	qd := s.Token.Quote.Decimals
	b = append(b, `{"resolution":"`...)
	b = append(b, s.Resolution.String()...)
	b = append(b, `","from":`...)
	b = strconv.AppendInt(b, s.From, 10)
	b = append(b, `,"to":`...)
	b = strconv.AppendInt(b, s.To, 10)
	b = append(b, `,"bars":[`...)
	for i := range s.Bars {
		bar := &s.Bars[i]
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"time":`...)
		b = strconv.AppendInt(b, bar.Time, 10)
		b = append(b, `,"open":`...)
		b = number(bar.Open).appendJSON(b)
		b = append(b, `,"high":`...)
		b = number(bar.High).appendJSON(b)
		b = append(b, `,"low":`...)
		b = number(bar.Low).appendJSON(b)
		b = append(b, `,"close":`...)
		b = number(bar.Close).appendJSON(b)
		volume := uint256.Int{bar.Volume.Lo, bar.Volume.Hi}
		b = appendAmountField(b, `,"volume":"`, &volume, qd)
		b = append(b, `,"trades":`...)
		b = strconv.AppendInt(b, int64(bar.Trades), 10)
		b = append(b, '}')
	}
	b = append(b, `],"prev":`...)
	if s.Prev != 0 {
		b = strconv.AppendInt(b, s.Prev, 10)
	} else {
		b = append(b, "null"...)
	}
	b = append(b, `,"noData":`...)
	b = strconv.AppendBool(b, s.NoData)
	return append(b, '}')
}

type statsJSON struct {
	Token       string       `json:"token"`
	Phase       market.Phase `json:"phase"`
	Price       number       `json:"price"`
	Price24hAgo number       `json:"price24hAgo"`
	Change24h   number       `json:"change24h"`
	Volume24h   string       `json:"volume24h"`
	Buys24h     int          `json:"buys24h"`
	Sells24h    int          `json:"sells24h"`
	Trades24h   int          `json:"trades24h"`
	MarketCap   string       `json:"marketCap"`
	Liquidity   string       `json:"liquidity"`
	ProgressBps uint16       `json:"progressBps"`
	// How the supply is spread (market.Concentration).
	Holders        int    `json:"holders"`
	Top10Share     number `json:"top10Share"`
	CreatorShare   number `json:"creatorShare"`
	CreatorBalance string `json:"creatorBalance"`
}

func statsOf(s *market.Stats) statsJSON {
	v := &s.Token
	qd := v.Quote.Decimals
	var c market.Concentration
	if v.Concentration != nil {
		c = *v.Concentration
	}
	return statsJSON{
		Holders: c.Holders, Top10Share: number(c.Top10Share), CreatorShare: number(c.CreatorShare),
		CreatorBalance: amount(&c.CreatorBalance, v.Decimals),
		Token:          v.Address.Hex(), Phase: v.Phase(),
		Price: number(v.Price), Price24hAgo: number(s.Price24hAgo), Change24h: number(s.Change24h),
		Volume24h: amount(&v.Day.Volume, qd), Buys24h: v.Day.Buys, Sells24h: v.Day.Sells,
		Trades24h: v.Day.Buys + v.Day.Sells,
		MarketCap: amount(&v.MarketCap, qd), Liquidity: amount(&v.Liquidity, qd), ProgressBps: v.ProgressBps,
	}
}
