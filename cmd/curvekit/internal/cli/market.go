package cli

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/curvekit/curvekit/adapters/apiclient"
)

type tokensCmd struct {
	Sort   string `help:"Order: newest, volume24h, marketCap or progress." enum:"newest,volume24h,marketCap,progress" default:"newest"`
	Phase  string `help:"Only tokens in this phase: curve (still on their bonding curve) or graduated (trading on the pool); all when not given." enum:",curve,graduated" default:""`
	Quote  string `help:"Only tokens paired with this asset: ETH or an ERC-20 address."`
	Search string `short:"q" help:"Substring of the name or symbol."`
	Limit  int    `help:"Tokens per page, 1 to 100." default:"20"`
	Cursor string `help:"Next page: the cursor the previous page printed."`
}

func (c *tokensCmd) Run(e *env) error {
	cl, err := e.client()
	if err != nil {
		return err
	}
	page, err := cl.Tokens(e.ctx, apiclient.TokensParams{Sort: c.Sort, Phase: c.Phase, Quote: c.Quote, Search: c.Search, Cursor: c.Cursor, Limit: c.Limit})
	if err != nil {
		return err
	}
	if e.root.JSON {
		return e.printJSON(page)
	}
	w := tabwriter.NewWriter(e.out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "SYMBOL\tNAME\tPHASE\tPRICE\tMARKET CAP\tVOLUME 24H\tPROGRESS\tADDRESS")
	for _, t := range page.Tokens {
		fmt.Fprintf(w, "%s%s\t%s\t%s\t%s\t%s %s\t%s %s\t%.1f%%\t%s\n", t.Symbol, lookalikeMark(&t), t.Name, t.Phase, price(t.Price),
			short(t.MarketCap), t.Quote.Symbol, short(t.Volume24h), t.Quote.Symbol, float64(t.ProgressBps)/100, t.Address)
	}
	if err := w.Flush(); err != nil {
		return err
	}
	if len(page.Tokens) == 0 {
		fmt.Fprintln(e.out, "no tokens")
	}
	if page.NextCursor != nil {
		fmt.Fprintf(e.out, "more: --cursor %s\n", *page.NextCursor)
	}
	return nil
}

type tokenCmd struct {
	Address string `arg:"" help:"The token's address."`
}

func (c *tokenCmd) Run(e *env) error {
	cl, err := e.client()
	if err != nil {
		return err
	}
	t, err := cl.Token(e.ctx, c.Address)
	if err != nil {
		return err
	}
	if e.root.JSON {
		return e.printJSON(t)
	}
	q := t.Quote.Symbol
	rows := [][2]string{
		{"token", fmt.Sprintf("%s (%s)", t.Name, t.Symbol)},
		{"address", t.Address},
		{"curve", t.Curve},
		{"creator", t.Creator},
		{"metadata", t.URI},
		{"paired with", q},
		{"phase", t.Phase},
		{"price", price(t.Price) + " " + q},
		{"market cap", t.MarketCap + " " + q},
		{"liquidity", t.Liquidity + " " + q},
		{"volume 24h", fmt.Sprintf("%s %s (%d buys, %d sells)", t.Volume24h, q, t.Buys24h, t.Sells24h)},
		{"progress", fmt.Sprintf("%.2f%%", float64(t.ProgressBps)/100)},
		{"launched", fmt.Sprintf("block %d, %s", t.LaunchBlock, time.Unix(t.CreatedAt, 0).UTC().Format(time.RFC3339))},
	}
	if t.Pool != nil {
		rows = append(rows, [2]string{"pool", *t.Pool})
	}
	if t.SameName > 0 || t.SameSymbol > 0 {
		rows = append(rows, [2]string{"look-alike", fmt.Sprintf("%d other tokens read with the same name, %d with the same symbol: check the address", t.SameName, t.SameSymbol)})
	}
	return table(e, rows)
}

// lookalikeMark marks, in a list, a token whose name or symbol reads like another's.
func lookalikeMark(t *apiclient.Token) string {
	if t.SameName > 0 || t.SameSymbol > 0 {
		return " (look-alike)"
	}
	return ""
}

type quoteCmd struct {
	Address string `arg:"" help:"The token's address."`
	Side    string `arg:"" help:"buy or sell." enum:"buy,sell"`
	Amount  string `arg:"" help:"Exact decimal: the pairing asset to spend for a buy, tokens to sell for a sell."`
}

func (c *quoteCmd) Run(e *env) error {
	cl, err := e.client()
	if err != nil {
		return err
	}
	q, err := cl.Quote(e.ctx, c.Address, c.Side, c.Amount)
	if err != nil {
		return err
	}
	if e.root.JSON {
		return e.printJSON(q)
	}
	// Name the assets for a person; the quote alone does not carry their symbols.
	quoteSym, tokenSym := "of the pairing asset", "tokens"
	if t, err := cl.Token(e.ctx, c.Address); err == nil {
		quoteSym, tokenSym = t.Quote.Symbol, t.Symbol
	}
	in, out := quoteSym, tokenSym
	if c.Side == "sell" {
		in, out = out, in
	}
	rows := [][2]string{
		{"venue", q.Venue},
		{"you pay", q.AmountIn + " " + in},
		{"you get", q.AmountOut + " " + out},
		{"fee", q.Fee + " " + quoteSym + " (creator " + q.CreatorFee + ")"},
		{"price impact", fmt.Sprintf("%.2f%%", float64(q.PriceImpactBps)/100)},
		{"spot price", price(q.Price) + " " + quoteSym + " per " + tokenSym},
	}
	if q.Refund != "0" && q.Refund != "" {
		rows = append(rows, [2]string{"refund", q.Refund + " " + quoteSym})
	}
	if q.Graduates {
		rows = append(rows, [2]string{"graduates", "yes: this buy completes the curve"})
	}
	return table(e, rows)
}

type candlesCmd struct {
	Address string `arg:"" help:"The token's address."`
	Res     string `help:"Bar resolution: 1m, 5m, 15m, 1h, 4h or 1d." enum:"1m,5m,15m,1h,4h,1d" default:"5m"`
	Limit   int    `help:"Most bars to show (the latest)." default:"30"`
	From    int64  `help:"First bar's time, Unix seconds."`
	To      int64  `help:"Last bar's time, Unix seconds (default now)."`
	Width   int    `help:"Width of the chart column." default:"32"`
}

func (c *candlesCmd) Run(e *env) error {
	cl, err := e.client()
	if err != nil {
		return err
	}
	s, err := cl.Candles(e.ctx, c.Address, apiclient.CandlesParams{Res: c.Res, From: c.From, To: c.To, Limit: c.Limit})
	if err != nil {
		return err
	}
	if e.root.JSON {
		return e.printJSON(s)
	}
	if len(s.Bars) == 0 {
		fmt.Fprintln(e.out, "no bars in this window")
		return nil
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, b := range s.Bars {
		lo, hi = math.Min(lo, val(b.Low)), math.Max(hi, val(b.High))
	}
	w := tabwriter.NewWriter(e.out, 0, 4, 2, ' ', 0)
	fmt.Fprintf(w, "TIME (UTC)\tOPEN\tHIGH\tLOW\tCLOSE\tVOLUME\tTRADES\t%s\n", fmt.Sprintf("%s … %s", price(&lo), price(&hi)))
	for _, b := range s.Bars {
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\t%d\t%s\n", time.Unix(b.Time, 0).UTC().Format("01-02 15:04"),
			price(b.Open), price(b.High), price(b.Low), price(b.Close), short(b.Volume), b.Trades, chartRow(b, lo, hi, c.Width))
	}
	return w.Flush()
}

// chartRow draws one bar: a thin line over its high-low range and a block over its open-close
// body, on a scale from lo to hi that every row shares; a rising bar's body is █, a falling one ▒.
func chartRow(b apiclient.Bar, lo, hi float64, width int) string {
	if width < 4 {
		width = 4
	}
	pos := func(v float64) int {
		if hi <= lo {
			return width / 2
		}
		return min(width-1, max(0, int(math.Round((v-lo)/(hi-lo)*float64(width-1)))))
	}
	row := []rune(strings.Repeat(" ", width))
	for i := pos(val(b.Low)); i <= pos(val(b.High)); i++ {
		row[i] = '─'
	}
	o, cl := pos(val(b.Open)), pos(val(b.Close))
	body := '█'
	if cl < o {
		body = '▒'
		o, cl = cl, o
	}
	for i := o; i <= cl; i++ {
		row[i] = body
	}
	return strings.TrimRight(string(row), " ")
}

func val(p *float64) float64 {
	if p == nil {
		return math.NaN()
	}
	return *p
}

// price formats a display price with 6 significant digits.
func price(p *float64) string {
	if p == nil || math.IsNaN(*p) || math.IsInf(*p, 0) {
		return "-"
	}
	return strconv.FormatFloat(*p, 'g', 6, 64)
}

// short trims an exact decimal amount to at most 6 fractional digits for tables; --json keeps
// every digit.
func short(amount string) string {
	whole, frac, ok := strings.Cut(amount, ".")
	if !ok || len(frac) <= 6 {
		return amount
	}
	frac = strings.TrimRight(frac[:6], "0")
	if frac == "" {
		return whole
	}
	return whole + "." + frac
}

// table prints label/value rows aligned.
func table(e *env, rows [][2]string) error {
	w := tabwriter.NewWriter(e.out, 0, 4, 2, ' ', 0)
	for _, r := range rows {
		fmt.Fprintf(w, "%s\t%s\n", r[0], r[1])
	}
	return w.Flush()
}

type openAPICmd struct{}

// Run prints the document as the server sent it: JSON, whatever --json says.
func (c *openAPICmd) Run(e *env) error {
	cl, err := e.client()
	if err != nil {
		return err
	}
	doc, err := cl.OpenAPI(e.ctx)
	if err != nil {
		return err
	}
	if _, err := e.out.Write(doc); err != nil {
		return err
	}
	_, err = io.WriteString(e.out, "\n")
	return err
}
