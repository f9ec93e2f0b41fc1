package httpapi

import (
	"errors"
	"fmt"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/uptrace/bunrouter"

	"github.com/curvekit/curvekit"
	"github.com/curvekit/curvekit/auth"
	"github.com/curvekit/curvekit/candles"
	"github.com/curvekit/curvekit/market"
)

// The TradingView UDF datafeed (/udf): what TradingView's Charting Library, and the chart
// front-ends that speak its "Universal Data Feed", read candles with. A symbol's ticker is the
// token's address; its name the token's symbol. The bars are GET /tokens/:address/candles' own
// (the same computation, quiet buckets flat at the previous close), as UDF arrays.
//
// UDF clients read the body whatever the status, so a request the feed cannot answer is
// {"s":"error","errmsg":...} with status 200, as the protocol has it.

// udfExchange is the exchange every symbol is listed on.
const udfExchange = "curvekit"

// udfType is every symbol's type: what a search result and a symbol say they are.
const udfType = "crypto"

// udfResolution is one resolution of the feed: UDF's name for it, and the bars'.
type udfResolution struct {
	name string
	res  candles.Resolution
}

// udfResolutions are the candles' resolutions, every one, under UDF's names: minutes below a
// day ("1", "240"), days from a day ("1D"). The same list is the configuration's, every
// symbol's and /udf/history's, and each is a res the exports take.
var udfResolutions = func() []udfResolution {
	var out []udfResolution
	for _, r := range candles.Resolutions() {
		name := strconv.FormatInt(r.Seconds()/60, 10)
		if r.Seconds()%86400 == 0 {
			name = strconv.FormatInt(r.Seconds()/86400, 10) + "D"
		}
		out = append(out, udfResolution{name, r})
	}
	return out
}()

// udfResolutionOf reads a UDF resolution; "D" is "1D", as the protocol has it.
func udfResolutionOf(s string) (candles.Resolution, bool) {
	if s == "D" {
		s = "1D"
	}
	for _, r := range udfResolutions {
		if r.name == s {
			return r.res, true
		}
	}
	return 0, false
}

// udfResolutionNames are the names of udfResolutions; intraday those below a day.
func udfResolutionNames(intraday bool) []string {
	var out []string
	for _, r := range udfResolutions {
		if !intraday || r.res.Seconds() < 86400 {
			out = append(out, r.name)
		}
	}
	return out
}

// udfList is one of the symbol search's lists. UDF's search has one filter besides the
// exchange, the symbol type, which the configuration lists and the Charting Library's search
// dialog offers as tabs: the lists of GET /tokens are offered there. Its order is the list's;
// every symbol's own type is still crypto.
type udfList struct {
	value, name string
	query       func(*market.TokenQuery)
}

var udfLists = []udfList{
	{"", "All tokens", func(q *market.TokenQuery) { q.Sort = market.SortTrending }},
	{"graduating", "About to graduate", func(q *market.TokenQuery) {
		q.Sort, q.Phase, q.ProgressMin = market.SortProgress, market.PhaseCurve, aboutToGraduate
	}},
	{"graduated", "Graduated", func(q *market.TokenQuery) { q.Sort, q.Phase = market.SortTrending, market.PhaseGraduated }},
	{"gainers1h", "Gainers, 1 hour", func(q *market.TokenQuery) { q.Sort = market.SortGainers1h }},
	{"gainers24h", "Gainers, 24 hours", func(q *market.TokenQuery) { q.Sort = market.SortGainers24h }},
	{"losers24h", "Losers, 24 hours", func(q *market.TokenQuery) { q.Sort = market.SortLosers24h }},
}

// aboutToGraduate is where "about to graduate" starts: 80% of the way, in basis points.
const aboutToGraduate = 8000

// udfListOf finds the list a search's type names; the symbols' own type, crypto, is every token.
func udfListOf(typ string) (udfList, bool) {
	if typ == udfType {
		typ = ""
	}
	for _, l := range udfLists {
		if l.value == typ {
			return l, true
		}
	}
	return udfList{}, false
}

// udfTypeValues are the values a search's type may have.
func udfTypeValues() []string {
	out := []string{udfType}
	for _, l := range udfLists {
		out = append(out, l.value)
	}
	return out
}

func (s *Server) udfRoutes() []group {
	return []group{{prefix: "/udf", routes: []route{
		{method: http.MethodGet, path: "/config", access: Public, class: auth.ClassDefault, handle: s.udfConfig},
		{method: http.MethodGet, path: "/time", access: Public, class: auth.ClassDefault, handle: s.udfTime},
		{method: http.MethodGet, path: "/symbols", access: Public, class: auth.ClassDefault, handle: s.udfSymbols},
		{method: http.MethodGet, path: "/search", access: Public, class: auth.ClassDefault, handle: s.udfSearch},
		{method: http.MethodGet, path: "/history", access: Public, class: auth.ClassDefault, handle: s.udfHistory},
	}}}
}

type udfConfigJSON struct {
	SupportedResolutions   []string         `json:"supported_resolutions"`
	SupportsSearch         bool             `json:"supports_search"`
	SupportsGroupRequest   bool             `json:"supports_group_request"`
	SupportsMarks          bool             `json:"supports_marks"`
	SupportsTimescaleMarks bool             `json:"supports_timescale_marks"`
	SupportsTime           bool             `json:"supports_time"`
	Exchanges              []udfExchangeDoc `json:"exchanges"`
	SymbolsTypes           []udfTypeDoc     `json:"symbols_types"`
}

type udfExchangeDoc struct {
	Value string `json:"value"`
	Name  string `json:"name"`
	Desc  string `json:"desc"`
}

type udfTypeDoc struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// GET /udf/config
func (s *Server) udfConfig(w http.ResponseWriter, _ bunrouter.Request) error {
	return writeJSON(w, http.StatusOK, udfConfigJSON{
		SupportedResolutions: udfResolutionNames(false), SupportsSearch: true, SupportsTime: true,
		Exchanges:    []udfExchangeDoc{{Value: udfExchange, Name: udfExchange, Desc: "Tokens launched on this server's chain"}},
		SymbolsTypes: udfSymbolTypes(),
	})
}

func udfSymbolTypes() []udfTypeDoc {
	out := make([]udfTypeDoc, len(udfLists))
	for i, l := range udfLists {
		out[i] = udfTypeDoc{Name: l.name, Value: l.value}
	}
	return out
}

// GET /udf/time: the server's clock, Unix seconds, as text.
func (s *Server) udfTime(w http.ResponseWriter, _ bunrouter.Request) error {
	h := w.Header()
	h.Set("Content-Type", "text/plain; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h["X-Content-Type-Options"] = nosniff
	w.WriteHeader(http.StatusOK)
	_, err := w.Write(strconv.AppendInt(nil, s.cfg.Market.Now().Unix(), 10))
	return err
}

// udfErrorJSON is the feed's refusal.
type udfErrorJSON struct {
	S      string `json:"s" enum:"error"`
	ErrMsg string `json:"errmsg"`
}

func udfError(w http.ResponseWriter, format string, args ...any) error {
	return writeJSON(w, http.StatusOK, udfErrorJSON{S: "error", ErrMsg: fmt.Sprintf(format, args...)})
}

type udfSymbolJSON struct {
	Name                 string   `json:"name"`
	Ticker               string   `json:"ticker"`
	Description          string   `json:"description"`
	Type                 string   `json:"type"`
	Session              string   `json:"session"`
	Exchange             string   `json:"exchange"`
	ListedExchange       string   `json:"listed_exchange"`
	Timezone             string   `json:"timezone"`
	Format               string   `json:"format"`
	Minmov               int      `json:"minmov"`
	Pricescale           int64    `json:"pricescale"`
	HasIntraday          bool     `json:"has_intraday"`
	HasDaily             bool     `json:"has_daily"`
	HasWeeklyAndMonthly  bool     `json:"has_weekly_and_monthly"`
	SupportedResolutions []string `json:"supported_resolutions"`
	IntradayMultipliers  []string `json:"intraday_multipliers"`
	DailyMultipliers     []string `json:"daily_multipliers"`
	VolumePrecision      int      `json:"volume_precision"`
	DataStatus           string   `json:"data_status"`
	CurrencyCode         string   `json:"currency_code"`
}

// resolveSymbol finds the token a UDF symbol names: an address, or a symbol only one token has.
// A symbol several tokens share names none of them (anyone can launch a second DETH).
func (s *Server) resolveSymbol(req bunrouter.Request, symbol string) (market.View, string, error) {
	symbol = strings.TrimSpace(symbol)
	if ex, rest, ok := strings.Cut(symbol, ":"); ok && strings.EqualFold(ex, udfExchange) {
		symbol = rest
	}
	if addr, ok := parseAddress(symbol); ok {
		v, err := s.cfg.Market.Token(req.Context(), addr)
		if errors.Is(err, curvekit.ErrNotFound) {
			return v, "unknown symbol " + symbol, nil
		}
		return v, "", err
	}
	if symbol == "" || len(symbol) > maxSearchLen {
		return market.View{}, "symbol is required: a token's address or symbol", nil
	}
	found, err := market.BySymbol(req.Context(), s.cfg.Market, symbol)
	if err != nil {
		return market.View{}, "", err
	}
	switch len(found) {
	case 0:
		return market.View{}, "unknown symbol " + symbol, nil
	case 1:
		return found[0], "", nil
	}
	addrs := make([]string, len(found))
	for i, t := range found {
		addrs[i] = t.Address.Hex()
	}
	return market.View{}, fmt.Sprintf("symbol %s names %d tokens (%s): use the address", symbol, len(found), strings.Join(addrs, ", ")), nil
}

// GET /udf/symbols?symbol=
func (s *Server) udfSymbols(w http.ResponseWriter, req bunrouter.Request) error {
	q := newQuery(req.URL)
	symbol := q.str("symbol", "")
	if err := q.err(); err != nil {
		return udfError(w, "%s", clientMessage(err))
	}
	v, refusal, err := s.resolveSymbol(req, symbol)
	if err != nil {
		return err
	}
	if refusal != "" {
		return udfError(w, "%s", refusal)
	}
	return writeJSON(w, http.StatusOK, udfSymbolOf(&v))
}

func udfSymbolOf(v *market.View) udfSymbolJSON {
	return udfSymbolJSON{
		Name: v.Symbol, Ticker: v.Address.Hex(), Description: v.Name, Type: udfType, Session: "24x7",
		Exchange: udfExchange, ListedExchange: udfExchange, Timezone: "Etc/UTC", Format: "price",
		Minmov: 1, Pricescale: pricescale(&v.Token), HasIntraday: true, HasDaily: true,
		SupportedResolutions: udfResolutionNames(false), IntradayMultipliers: udfResolutionNames(true), DailyMultipliers: []string{"1"},
		VolumePrecision: int(min(v.Quote.Decimals, 8)), DataStatus: "streaming", CurrencyCode: v.Quote.Symbol,
	}
}

// pricescale is 10^d for the d decimals that keep six significant digits of the lowest price
// the token can have on its curve: the launch price, virtualQuote0 / virtualToken0 in whole
// units (every buy raises the price, and a sell never takes it below where it started).
func pricescale(t *market.Token) int64 {
	q := t.Params.VirtualQuote0.Float64()
	tk := t.Params.VirtualToken0.Float64()
	p := q / math.Pow10(int(t.Quote.Decimals)) / (tk / math.Pow10(int(t.Decimals)))
	d := 2
	if p > 0 && !math.IsInf(p, 0) && !math.IsNaN(p) {
		d = max(2, 5-int(math.Floor(math.Log10(p))))
	}
	return int64(math.Pow10(min(d, 18)))
}

type udfSearchItemJSON struct {
	Symbol      string `json:"symbol"`
	FullName    string `json:"full_name"`
	Description string `json:"description"`
	Exchange    string `json:"exchange"`
	Ticker      string `json:"ticker"`
	Type        string `json:"type"`
}

// udfSearchJSON is GET /udf/search's answer: a list.
type udfSearchJSON []udfSearchItemJSON

// GET /udf/search?query=&type=&exchange=&limit=: the tokens of the list type names whose name
// or symbol holds the query, in the list's order; an address is the token there, whatever the list.
func (s *Server) udfSearch(w http.ResponseWriter, req bunrouter.Request) error {
	q := newQuery(req.URL)
	query := q.str("query", "")
	list, ok := udfListOf(q.str("type", ""))
	if !ok {
		q.fail("type must be empty or one of %s", strings.Join(slices.DeleteFunc(udfTypeValues(), func(v string) bool { return v == "" }), ", "))
	}
	if exchange := q.str("exchange", ""); exchange != "" && exchange != udfExchange {
		q.fail("exchange must be %s, or empty", udfExchange)
	}
	limit := q.intIn("limit", 30, 1, market.MaxLimit)
	if len(query) > maxSearchLen {
		q.fail("query must be at most %d bytes", maxSearchLen)
	}
	if err := q.err(); err != nil {
		return udfError(w, "%s", clientMessage(err))
	}
	out := udfSearchJSON{}
	tq := market.TokenQuery{Search: strings.TrimSpace(query), Limit: int(limit)}
	list.query(&tq)
	if a, ok := parseAddress(tq.Search); ok {
		v, err := s.cfg.Market.Token(req.Context(), a)
		if err == nil {
			out = append(out, udfSearchItemOf(&v))
		} else if !errors.Is(err, curvekit.ErrNotFound) {
			return err
		}
		return writeJSON(w, http.StatusOK, out)
	}
	page, err := s.cfg.Market.Tokens(req.Context(), tq)
	if err != nil {
		return err
	}
	for i := range page.Tokens {
		out = append(out, udfSearchItemOf(&page.Tokens[i]))
	}
	return writeJSON(w, http.StatusOK, out)
}

func udfSearchItemOf(v *market.View) udfSearchItemJSON {
	return udfSearchItemJSON{Symbol: v.Symbol, FullName: udfExchange + ":" + v.Address.Hex(), Description: v.Name,
		Exchange: udfExchange, Ticker: v.Address.Hex(), Type: "crypto"}
}

// udfHistoryJSON is GET /udf/history's answer: s "ok" with the bars as arrays, "no_data" (with
// nextTime, the start of the latest bar before the range, when there is one), or "error".
type udfHistoryJSON struct {
	S        string    `json:"s" enum:"ok,no_data,error"`
	T        []int64   `json:"t,omitempty"`
	O        []number  `json:"o,omitempty"`
	H        []number  `json:"h,omitempty"`
	L        []number  `json:"l,omitempty"`
	C        []number  `json:"c,omitempty"`
	V        []float64 `json:"v,omitempty"`
	NextTime *int64    `json:"nextTime,omitempty"`
	ErrMsg   string    `json:"errmsg,omitempty"`
}

// GET /udf/history?symbol=&resolution=&from=&to=&countback=: the bars of the buckets from the
// one holding from to the one holding to-1 (UDF's to is exclusive), or with countback the
// countback latest bars before to (at most 1000): /tokens/:address/candles with from and
// to-1, or with to-1 and limit countback.
func (s *Server) udfHistory(w http.ResponseWriter, req bunrouter.Request) error {
	q := newQuery(req.URL)
	symbol := q.str("symbol", "")
	resName := q.str("resolution", "")
	from := q.intIn("from", 0, 0, maxUnixTime)
	to := q.intIn("to", 0, 1, maxUnixTime)
	countback := q.intIn("countback", 0, 0, maxUnixTime)
	res, ok := udfResolutionOf(resName)
	if !ok {
		q.fail("resolution must be one of %s", strings.Join(udfResolutionNames(false), ", "))
	}
	if !q.has("to") {
		q.fail("to is required")
	}
	if err := q.err(); err != nil {
		return writeJSON(w, http.StatusOK, udfHistoryJSON{S: "error", ErrMsg: clientMessage(err)})
	}
	v, refusal, err := s.resolveSymbol(req, symbol)
	if err != nil {
		return err
	}
	if refusal != "" {
		return writeJSON(w, http.StatusOK, udfHistoryJSON{S: "error", ErrMsg: refusal})
	}
	cq := market.CandleQuery{Token: v.Address, Resolution: res, To: to - 1}
	switch {
	case cq.To == 0:
		// to=1 asks for what precedes the first second; candles' To=0 would mean "now".
		return writeJSON(w, http.StatusOK, udfHistoryJSON{S: "no_data"})
	case countback > 0:
		cq.Limit = int(min(countback, market.MaxBars))
	case from >= to:
		return writeJSON(w, http.StatusOK, udfHistoryJSON{S: "no_data"})
	default:
		cq.From = max(from, 1)
	}
	series, err := s.cfg.Market.Candles(req.Context(), cq)
	if errors.Is(err, curvekit.ErrInvalid) {
		return writeJSON(w, http.StatusOK, udfHistoryJSON{S: "no_data"})
	}
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, udfHistoryOf(&series))
}

func udfHistoryOf(s *market.Series) udfHistoryJSON {
	if len(s.Bars) == 0 {
		out := udfHistoryJSON{S: "no_data"}
		if s.Prev != 0 {
			p := s.Prev
			out.NextTime = &p
		}
		return out
	}
	n := len(s.Bars)
	out := udfHistoryJSON{S: "ok", T: make([]int64, n), O: make([]number, n), H: make([]number, n), L: make([]number, n),
		C: make([]number, n), V: make([]float64, n)}
	for i := range s.Bars {
		b := barOf(&s.Bars[i], s.Token.Quote.Decimals)
		out.T[i], out.O[i], out.H[i], out.L[i], out.C[i] = b.Time, b.Open, b.High, b.Low, b.Close
		// The volume as a number: the exact decimal of /candles, read as the nearest float.
		out.V[i], _ = strconv.ParseFloat(b.Volume, 64)
	}
	return out
}
