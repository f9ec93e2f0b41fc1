package apiclient

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
)

// The shapes below are docs/API.md's. Amounts stay exact decimal strings; prices are display
// values (float64, nil where the server wrote null).

// Asset is a pairing asset; Address is nil for native ETH.
type Asset struct {
	Address  *string `json:"address"`
	Symbol   string  `json:"symbol"`
	Decimals uint8   `json:"decimals"`
}

// Settings is GET /config.
type Settings struct {
	ChainID  uint64 `json:"chainId"`
	Platform struct {
		RateLimit struct {
			Requests      int `json:"requests"`
			WindowSeconds int `json:"windowSeconds"`
			Burst         int `json:"burst"`
		} `json:"rateLimit"`
	} `json:"platform"`
	Subscription struct {
		Tiers map[string]struct {
			LaunchesPerDay int `json:"launchesPerDay"`
		} `json:"tiers"`
	} `json:"subscription"`
	Fees struct {
		CurveBps        int `json:"curveBps"`
		CreatorShareBps int `json:"creatorShareBps"`
		PoolBps         int `json:"poolBps"`
	} `json:"fees"`
	Contracts   map[string]*string `json:"contracts"`
	QuoteAssets []Asset            `json:"quoteAssets"`
}

// Reserves are a curve's reserves.
type Reserves struct {
	VirtualQuote string `json:"virtualQuote"`
	VirtualToken string `json:"virtualToken"`
	RealQuote    string `json:"realQuote"`
	RealToken    string `json:"realToken"`
}

// PoolReserves are a graduated token's pool reserves.
type PoolReserves struct {
	Quote string `json:"quote"`
	Token string `json:"token"`
}

// Token is GET /tokens/:address.
type Token struct {
	Address     string   `json:"address"`
	Curve       string   `json:"curve"`
	Creator     string   `json:"creator"`
	Name        string   `json:"name"`
	Symbol      string   `json:"symbol"`
	URI         string   `json:"uri"`
	Decimals    uint8    `json:"decimals"`
	Quote       Asset    `json:"quote"`
	Phase       string   `json:"phase"`
	Pool        *string  `json:"pool"`
	TotalSupply string   `json:"totalSupply"`
	Price       *float64 `json:"price"`
	MarketCap   string   `json:"marketCap"`
	Liquidity   string   `json:"liquidity"`
	Volume24h   string   `json:"volume24h"`
	Buys24h     int      `json:"buys24h"`
	Sells24h    int      `json:"sells24h"`
	ProgressBps int      `json:"progressBps"`
	// SameName and SameSymbol count the other tokens whose name or symbol reads the same.
	SameName     int           `json:"sameName"`
	SameSymbol   int           `json:"sameSymbol"`
	Reserves     *Reserves     `json:"reserves"`
	PoolReserves *PoolReserves `json:"poolReserves"`
	CreatedAt    int64         `json:"createdAt"`
	LastTradeAt  *int64        `json:"lastTradeAt"`
	GraduatedAt  *int64        `json:"graduatedAt"`
	LaunchBlock  uint64        `json:"launchBlock"`
	LaunchTx     string        `json:"launchTx"`
	// GET /tokens/:address alone: how the supply is spread.
	Holders        *int     `json:"holders,omitempty"`
	Top10Share     *float64 `json:"top10Share,omitempty"`
	CreatorShare   *float64 `json:"creatorShare,omitempty"`
	CreatorBalance *string  `json:"creatorBalance,omitempty"`
	// GET /tokens alone: the discovery values.
	TrendScore *float64 `json:"trendScore,omitempty"`
	Change1h   *float64 `json:"change1h,omitempty"`
	Change24h  *float64 `json:"change24h,omitempty"`
}

// TokenPage is GET /tokens.
type TokenPage struct {
	Tokens     []Token `json:"tokens"`
	NextCursor *string `json:"nextCursor"`
}

// TokensParams are the filters of GET /tokens; zero values are the server's defaults.
type TokensParams struct {
	Sort   string // newest, volume24h, marketCap, progress, trending, gainers1h, gainers24h, losers24h
	Phase  string // curve or graduated
	Quote  string // ETH or an ERC-20 address
	Search string // q: substring of name or symbol
	// ProgressMin and ProgressMax bound the progress to graduation, in percent ("80").
	ProgressMin, ProgressMax string
	// GraduatedSince keeps the tokens that graduated at or after this block time.
	GraduatedSince int64
	Cursor         string
	Limit          int
}

// Holder is one holder of GET /tokens/:address/holders; Label is nil when none applies.
type Holder struct {
	Address string  `json:"address"`
	Balance string  `json:"balance"`
	Share   float64 `json:"share"`
	Label   *string `json:"label"`
}

// HolderPage is GET /tokens/:address/holders.
type HolderPage struct {
	Holders    []Holder `json:"holders"`
	NextCursor *string  `json:"nextCursor"`
}

// King is GET /tokens/king.
type King struct {
	Since int64 `json:"since"`
	Token Token `json:"token"`
}

// Quote is GET /tokens/:address/quote.
type Quote struct {
	Token          string   `json:"token"`
	Type           string   `json:"type"`
	Venue          string   `json:"venue"`
	AmountIn       string   `json:"amountIn"`
	AmountOut      string   `json:"amountOut"`
	Fee            string   `json:"fee"`
	CreatorFee     string   `json:"creatorFee"`
	Refund         string   `json:"refund"`
	PriceImpactBps int      `json:"priceImpactBps"`
	Graduates      bool     `json:"graduates"`
	Price          *float64 `json:"price"`
}

// Tx is one unsigned transaction, as build-tx answers it and as a job's richData carries it:
// Type, Kind and Description are set on richData items; Token, Spender and Amount on a
// build-tx approval. Value and Gas are wei and gas units as decimal strings.
type Tx struct {
	Type        string `json:"type,omitempty"`
	Kind        string `json:"kind,omitempty"`
	Description string `json:"description,omitempty"`
	ChainID     uint64 `json:"chainId"`
	From        string `json:"from,omitempty"`
	To          string `json:"to"`
	Data        string `json:"data"`
	Value       string `json:"value"`
	Gas         string `json:"gas,omitempty"`
	Token       string `json:"token,omitempty"`
	Spender     string `json:"spender,omitempty"`
	Amount      string `json:"amount,omitempty"`
	Approval    *Tx    `json:"approval,omitempty"`
}

// BuiltTx is POST /tokens/:address/build-tx: the transaction, the approval to mine first (nil
// when none), and the quote it was built from.
type BuiltTx struct {
	Tx
	Quote        Quote  `json:"quote"`
	MinAmountOut string `json:"minAmountOut"`
	Deadline     int64  `json:"deadline"`
}

// BuildTxParams is the build-tx body. Amount is exact decimal text; Slippage is percent as
// decimal text ("" is the server's default of 1).
type BuildTxParams struct {
	Type      string `json:"type"`
	Amount    string `json:"amount"`
	Slippage  string `json:"slippage,omitempty"`
	Recipient string `json:"recipient,omitempty"`
}

// Trade is one item of GET /tokens/:address/trades.
type Trade struct {
	TxHash      string   `json:"txHash"`
	LogIndex    uint     `json:"logIndex"`
	Block       uint64   `json:"block"`
	Time        int64    `json:"time"`
	Side        string   `json:"side"`
	Venue       string   `json:"venue"`
	Trader      string   `json:"trader"`
	Recipient   string   `json:"recipient"`
	QuoteAmount string   `json:"quoteAmount"`
	TokenAmount string   `json:"tokenAmount"`
	Fee         string   `json:"fee"`
	CreatorFee  string   `json:"creatorFee"`
	Refund      string   `json:"refund"`
	Price       *float64 `json:"price"`
}

// TradePage is GET /tokens/:address/trades.
type TradePage struct {
	Trades     []Trade `json:"trades"`
	NextCursor *string `json:"nextCursor"`
}

// Bar is one OHLCV bar; prices are display values, Volume exact.
type Bar struct {
	Time   int64    `json:"time"`
	Open   *float64 `json:"open"`
	High   *float64 `json:"high"`
	Low    *float64 `json:"low"`
	Close  *float64 `json:"close"`
	Volume string   `json:"volume"`
	Trades int      `json:"trades"`
}

// Candles is GET /tokens/:address/candles.
type Candles struct {
	Resolution string `json:"resolution"`
	From       int64  `json:"from"`
	To         int64  `json:"to"`
	Bars       []Bar  `json:"bars"`
	Prev       *int64 `json:"prev"`
	NoData     bool   `json:"noData"`
}

// CandlesParams are the window of GET /tokens/:address/candles; zero values are the server's
// defaults.
type CandlesParams struct {
	Res      string
	From, To int64
	Limit    int
}

// Settings reads GET /config.
func (c *Client) Settings(ctx context.Context) (Settings, error) {
	var out Settings
	return out, c.get(ctx, "/config", nil, &out)
}

// Tokens reads a page of GET /tokens.
func (c *Client) Tokens(ctx context.Context, p TokensParams) (TokenPage, error) {
	q := url.Values{}
	set(q, "sort", p.Sort)
	set(q, "phase", p.Phase)
	set(q, "quote", p.Quote)
	set(q, "q", p.Search)
	set(q, "progressMin", p.ProgressMin)
	set(q, "progressMax", p.ProgressMax)
	if p.GraduatedSince > 0 {
		q.Set("graduatedSince", strconv.FormatInt(p.GraduatedSince, 10))
	}
	set(q, "cursor", p.Cursor)
	if p.Limit > 0 {
		q.Set("limit", strconv.Itoa(p.Limit))
	}
	var out TokenPage
	return out, c.get(ctx, "/tokens", q, &out)
}

// Holders reads a page of GET /tokens/:address/holders, largest first.
func (c *Client) Holders(ctx context.Context, address, cursor string, limit int) (HolderPage, error) {
	q := pageQuery(cursor, limit)
	var out HolderPage
	return out, c.get(ctx, "/tokens/"+url.PathEscape(address)+"/holders", q, &out)
}

// King reads GET /tokens/king for a pairing asset ("" or "ETH": native ether).
func (c *Client) King(ctx context.Context, quote string) (King, error) {
	q := url.Values{}
	set(q, "quote", quote)
	var out King
	return out, c.get(ctx, "/tokens/king", q, &out)
}

// Token reads GET /tokens/:address.
func (c *Client) Token(ctx context.Context, address string) (Token, error) {
	var out Token
	return out, c.get(ctx, "/tokens/"+url.PathEscape(address), nil, &out)
}

// Quote prices a trade: side "buy" spends amount of the pairing asset, "sell" sells amount of
// the token. A validator's refusal is an *Error with Status 200.
func (c *Client) Quote(ctx context.Context, address, side, amount string) (Quote, error) {
	path := "/tokens/" + url.PathEscape(address) + "/quote"
	var out struct {
		Quote
		Error string `json:"error"`
	}
	if err := c.get(ctx, path, url.Values{"type": {side}, "amount": {amount}}, &out); err != nil {
		return Quote{}, err
	}
	return out.Quote, validation(http.MethodGet, path, out.Error)
}

// BuildTx asks for an unsigned trade. Nothing is signed or sent. A validator's refusal is an
// *Error with Status 200.
func (c *Client) BuildTx(ctx context.Context, address string, p BuildTxParams) (BuiltTx, error) {
	path := "/tokens/" + url.PathEscape(address) + "/build-tx"
	body := map[string]any{"type": p.Type, "amount": p.Amount}
	if p.Slippage != "" {
		body["slippage"] = p.Slippage
	}
	if p.Recipient != "" {
		body["recipient"] = p.Recipient
	}
	var out struct {
		BuiltTx
		Error string `json:"error"`
	}
	if err := c.do(ctx, http.MethodPost, path, nil, body, &out); err != nil {
		return BuiltTx{}, err
	}
	return out.BuiltTx, validation(http.MethodPost, path, out.Error)
}

// Trades reads a page of a token's trades, newest first.
func (c *Client) Trades(ctx context.Context, address, cursor string, limit int) (TradePage, error) {
	q := pageQuery(cursor, limit)
	var out TradePage
	return out, c.get(ctx, "/tokens/"+url.PathEscape(address)+"/trades", q, &out)
}

// Candles reads a token's OHLCV bars.
func (c *Client) Candles(ctx context.Context, address string, p CandlesParams) (Candles, error) {
	q := url.Values{}
	set(q, "res", p.Res)
	if p.From > 0 {
		q.Set("from", strconv.FormatInt(p.From, 10))
	}
	if p.To > 0 {
		q.Set("to", strconv.FormatInt(p.To, 10))
	}
	if p.Limit > 0 {
		q.Set("limit", strconv.Itoa(p.Limit))
	}
	var out Candles
	return out, c.get(ctx, "/tokens/"+url.PathEscape(address)+"/candles", q, &out)
}

// Stats reads GET /tokens/:address/stats as the server sends it.
func (c *Client) Stats(ctx context.Context, address string) (json.RawMessage, error) {
	var out json.RawMessage
	return out, c.get(ctx, "/tokens/"+url.PathEscape(address)+"/stats", nil, &out)
}

func set(q url.Values, k, v string) {
	if v != "" {
		q.Set(k, v)
	}
}

// pageQuery is the query of a page of a list: the previous page's cursor (empty for the first)
// and a limit (0 for the server's default).
func pageQuery(cursor string, limit int) url.Values {
	q := url.Values{}
	set(q, "cursor", cursor)
	if limit > 0 {
		q.Set("limit", strconv.Itoa(limit))
	}
	return q
}
