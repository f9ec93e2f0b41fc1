package agent

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/holiman/uint256"

	"github.com/curvekit/curvekit"
	"github.com/curvekit/curvekit/account"
	"github.com/curvekit/curvekit/market"
	"github.com/curvekit/curvekit/txbuild"
)

// TokenArgs names a token.
type TokenArgs struct {
	Token string `json:"token" jsonschema:"the token's contract address (0x…) or its symbol"`
}

// ListArgs selects a list of tokens.
type ListArgs struct {
	Sort   string `json:"sort,omitempty" jsonschema:"newest (default), trending (recent trades and volume, decaying), gainers1h, gainers24h, losers24h, volume24h, marketCap or progress"`
	Filter string `json:"filter,omitempty" jsonschema:"graduating (about to graduate: on the curve and at least 80% of the way) or graduated"`
	Search string `json:"search,omitempty" jsonschema:"a case-insensitive part of the name or symbol"`
	Limit  int    `json:"limit,omitempty" jsonschema:"how many tokens, 1 to 20 (default 5)"`
}

// HoldersArgs selects a token's largest holders.
type HoldersArgs struct {
	Token string `json:"token" jsonschema:"the token's contract address (0x…) or its symbol"`
	Limit int    `json:"limit,omitempty" jsonschema:"how many holders, 1 to 20 (default 10)"`
}

// QuoteArgs prices a hypothetical trade.
type QuoteArgs struct {
	Token  string `json:"token" jsonschema:"the token's contract address (0x…) or its symbol"`
	Side   string `json:"side" jsonschema:"buy or sell"`
	Amount string `json:"amount" jsonschema:"exact decimal amount in whole units: of the pairing asset for a buy, of the token for a sell"`
}

// TradeArgs composes a trade for the caller's wallet.
type TradeArgs struct {
	Token    string `json:"token" jsonschema:"the token's contract address (0x…) or its symbol"`
	Amount   string `json:"amount" jsonschema:"exact decimal amount in whole units: of the pairing asset for a buy, of the token for a sell; for a sell, all sells the wallet's whole balance"`
	Slippage string `json:"slippage,omitempty" jsonschema:"slippage tolerance in percent, e.g. 0.5; default the remembered slippage, else 1"`
	// Asset guards against spending the wrong asset: "buy 0.01 ETH of X" when X trades
	// against TUSD must not spend 0.01 TUSD.
	Asset string `json:"asset,omitempty" jsonschema:"the symbol the person named for the amount (ETH, TUSD...), when they named one; it must be what the trade spends"`
}

const maxListLimit = 20

func (s *Service) marketTools() []Tool {
	return []Tool{
		NewTool("get_token", "Price, market cap, 24h volume and curve progress of one token.", false, s.getToken),
		NewTool("list_tokens", "List tokens: newest, trending, the hour's or the day's gainers and losers, by 24h volume, market cap or curve progress; those about to graduate, or graduated.", false, s.listTokens),
		NewTool("get_holders", "Who holds a token: the largest holders with their balance, share of the supply and label (curve, pool, burn, creator, sniper), the holder count and how concentrated the supply is.", false, s.getHolders),
		NewTool("quote", "Price a hypothetical buy (spending an amount of the pairing asset) or sell (an amount of tokens). Nothing is built.", false, s.quote),
		NewTool("build_buy_transaction", "Compose an unsigned buy of a token that spends an amount of its pairing asset, paid out to the caller's wallet. The wallet owner confirms it; nothing is sent.", true,
			func(ctx context.Context, c *Call, in TradeArgs) (ToolResult, error) {
				return s.trade(ctx, c, curvekit.Buy, in)
			}),
		NewTool("build_sell_transaction", "Compose an unsigned sell of an amount of a token for its pairing asset, paid out to the caller's wallet. The wallet owner confirms it; nothing is sent.", true,
			func(ctx context.Context, c *Call, in TradeArgs) (ToolResult, error) {
				return s.trade(ctx, c, curvekit.Sell, in)
			}),
	}
}

// resolve finds a token by address or symbol. A symbol is not an identity: anyone can launch a
// second DETH. A symbol that exactly one token has (case-insensitively) resolves to it; one that
// several share is curvekit.ErrInvalid listing every candidate with its name, address, market
// cap and launch time, so that the person names the one they mean by its address. An address is
// always exact.
func (s *Service) resolve(ctx context.Context, ref string) (market.View, error) {
	ref = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(ref), "$"))
	if common.IsHexAddress(ref) {
		v, err := s.cfg.Market.Token(ctx, common.HexToAddress(ref))
		if errors.Is(err, curvekit.ErrNotFound) {
			return v, fmt.Errorf("%w: no token at %s", curvekit.ErrNotFound, common.HexToAddress(ref).Hex())
		}
		return v, err
	}
	if ref == "" || len(ref) > 32 {
		return market.View{}, fmt.Errorf("%w: name a token by its symbol or address", curvekit.ErrInvalid)
	}
	found, err := market.BySymbol(ctx, s.cfg.Market, ref)
	if err != nil {
		return market.View{}, err
	}
	switch len(found) {
	case 0:
		return market.View{}, fmt.Errorf("%w: no token with the symbol %s", curvekit.ErrNotFound, ref)
	case 1:
		return found[0], nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d tokens have the symbol %s, and a symbol is not an identity: name the one you mean by its address.", len(found), strings.ToUpper(ref))
	for _, v := range found {
		fmt.Fprintf(&b, " %s (%s) at %s: market cap %s %s, launched %s.", v.Name, v.Symbol, v.Address.Hex(),
			curvekit.FormatAmount(&v.MarketCap, v.Quote.Decimals), quoteSymbol(&v), time.Unix(v.CreatedAt, 0).UTC().Format("2006-01-02 15:04 UTC"))
	}
	return market.View{}, fmt.Errorf("%w: %s", curvekit.ErrInvalid, strings.TrimSuffix(b.String(), "."))
}

func quoteSymbol(v *market.View) string {
	if v.Quote.Symbol != "" {
		return v.Quote.Symbol
	}
	return "ETH"
}

func priceText(f float64) string { return strconv.FormatFloat(f, 'g', 6, 64) }

func (s *Service) getToken(ctx context.Context, _ *Call, in TokenArgs) (ToolResult, error) {
	v, err := s.resolve(ctx, in.Token)
	if err != nil {
		return ToolResult{}, err
	}
	q := quoteSymbol(&v)
	where := fmt.Sprintf("%.2f%% of the way to graduation", float64(v.ProgressBps)/100)
	if v.State.Graduated {
		where = "graduated: it trades on the pool"
	}
	sum := fmt.Sprintf("%s (%s) at %s: price %s %s per token, market cap %s %s, 24h volume %s %s over %d trades, %s.",
		v.Name, v.Symbol, v.Address.Hex(), priceText(v.Price), q, curvekit.FormatAmount(&v.MarketCap, v.Quote.Decimals), q,
		curvekit.FormatAmount(&v.Day.Volume, v.Quote.Decimals), q, v.Day.Buys+v.Day.Sells, where)
	return ToolResult{Summary: sum, Data: tokenData(&v)}, nil
}

func tokenData(v *market.View) map[string]any {
	return map[string]any{
		"address": v.Address.Hex(), "name": v.Name, "symbol": v.Symbol, "creator": v.Creator.Hex(),
		"pairing": quoteSymbol(v), "price": v.Price, "marketCap": curvekit.FormatAmount(&v.MarketCap, v.Quote.Decimals),
		"volume24h": curvekit.FormatAmount(&v.Day.Volume, v.Quote.Decimals), "progressBps": v.ProgressBps,
		"phase": string(v.Phase()), "uri": v.URI,
	}
}

func (s *Service) listTokens(ctx context.Context, _ *Call, in ListArgs) (ToolResult, error) {
	sort := market.TokenSort(in.Sort)
	if sort == "" {
		sort = market.SortNewest
	}
	limit := in.Limit
	if limit <= 0 {
		limit = 5
	}
	limit = min(limit, maxListLimit)
	q := market.TokenQuery{Sort: sort, Search: in.Search, Limit: limit}
	switch in.Filter {
	case "":
	case "graduating":
		q.Phase, q.ProgressMin = market.PhaseCurve, 8000
	case "graduated":
		q.GraduatedSince = 1
	default:
		return ToolResult{}, fmt.Errorf("%w: filter must be graduating or graduated", curvekit.ErrInvalid)
	}
	page, err := s.cfg.Market.Tokens(ctx, q)
	if err != nil {
		return ToolResult{}, err
	}
	if len(page.Tokens) == 0 {
		return ToolResult{Summary: "No tokens match.", Data: []any{}}, nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d tokens by %s:", len(page.Tokens), sort)
	data := make([]map[string]any, len(page.Tokens))
	for i := range page.Tokens {
		v := &page.Tokens[i]
		q := quoteSymbol(v)
		fmt.Fprintf(&b, "\n%d. %s (%s): price %s %s, market cap %s %s, 24h volume %s %s", i+1, v.Name, v.Symbol,
			priceText(v.Price), q, curvekit.FormatAmount(&v.MarketCap, v.Quote.Decimals), q, curvekit.FormatAmount(&v.Day.Volume, v.Quote.Decimals), q)
		data[i] = tokenData(v)
	}
	return ToolResult{Summary: b.String(), Data: data}, nil
}

func (s *Service) getHolders(ctx context.Context, _ *Call, in HoldersArgs) (ToolResult, error) {
	v, err := s.resolve(ctx, in.Token)
	if err != nil {
		return ToolResult{}, err
	}
	if v.Concentration == nil { // found by symbol, through the list
		if v, err = s.cfg.Market.Token(ctx, v.Address); err != nil {
			return ToolResult{}, err
		}
	}
	limit := in.Limit
	if limit <= 0 {
		limit = 10
	}
	page, err := s.cfg.Market.Holders(ctx, market.HolderQuery{Token: v.Address, Limit: min(limit, maxListLimit)})
	if err != nil {
		return ToolResult{}, err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "The largest holders of %s (%s) at %s:", v.Name, v.Symbol, v.Address.Hex())
	if c := v.Concentration; c != nil {
		fmt.Fprintf(&b, " %d holders; the ten largest (curve and pool aside) hold %.2f%% of the supply, the creator %.2f%%.",
			c.Holders, 100*c.Top10Share, 100*c.CreatorShare)
	}
	data := make([]map[string]any, len(page.Holders))
	for i, h := range page.Holders {
		bal := curvekit.FormatAmount(&h.Balance, v.Decimals)
		fmt.Fprintf(&b, "\n%d. %s: %s %s (%.2f%%)", i+1, h.Holder.Hex(), bal, v.Symbol, 100*h.Share)
		if h.Label != "" {
			fmt.Fprintf(&b, ", %s", h.Label)
		}
		data[i] = map[string]any{"address": h.Holder.Hex(), "balance": bal, "share": h.Share, "label": string(h.Label)}
	}
	return ToolResult{Summary: b.String(), Data: data}, nil
}

func parseSide(s string) (curvekit.Side, error) {
	switch curvekit.Side(strings.ToLower(strings.TrimSpace(s))) {
	case curvekit.Buy:
		return curvekit.Buy, nil
	case curvekit.Sell:
		return curvekit.Sell, nil
	}
	return "", fmt.Errorf("%w: side must be buy or sell", curvekit.ErrInvalid)
}

func (s *Service) quote(ctx context.Context, _ *Call, in QuoteArgs) (ToolResult, error) {
	side, err := parseSide(in.Side)
	if err != nil {
		return ToolResult{}, err
	}
	v, err := s.resolve(ctx, in.Token)
	if err != nil {
		return ToolResult{}, err
	}
	r, err := s.cfg.Market.Quote(ctx, v.Address, side, in.Amount)
	if err != nil {
		return ToolResult{}, err
	}
	in2, out2 := tradeUnits(&v, side)
	sum := fmt.Sprintf("%s %s %s gets about %s %s (fee %s %s, price impact %.2f%%).",
		map[curvekit.Side]string{curvekit.Buy: "Spending", curvekit.Sell: "Selling"}[side],
		curvekit.FormatAmount(&r.Quote.In, in2.decimals), in2.symbol,
		curvekit.FormatAmount(&r.Quote.Out, out2.decimals), out2.symbol,
		curvekit.FormatAmount(&r.Quote.Fee, v.Quote.Decimals), quoteSymbol(&v), float64(r.Quote.ImpactBps)/100)
	return ToolResult{Summary: sum, Data: map[string]any{
		"token": v.Address.Hex(), "side": string(side), "venue": string(r.Quote.Venue),
		"amountIn": curvekit.FormatAmount(&r.Quote.In, in2.decimals), "amountOut": curvekit.FormatAmount(&r.Quote.Out, out2.decimals),
		"fee": curvekit.FormatAmount(&r.Quote.Fee, v.Quote.Decimals), "impactBps": r.Quote.ImpactBps,
	}}, nil
}

type unit struct {
	symbol   string
	decimals uint8
	asset    common.Address
}

// tradeUnits returns what a trade of side spends and what it receives.
func tradeUnits(v *market.View, side curvekit.Side) (in, out unit) {
	q := unit{quoteSymbol(v), v.Quote.Decimals, v.Quote.Address}
	t := unit{v.Symbol, v.Decimals, v.Address}
	if side == curvekit.Buy {
		return q, t
	}
	return t, q
}

// slippage returns the tolerance of a trade: the argument, else the remembered one (the owner
// said it to the agent), else the account profile's default, else 1%.
func slippage(arg string, mem map[string]string, profile *account.Percent) (uint16, error) {
	pct := strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(arg), "%"))
	if pct == "" {
		remembered := strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(mem["slippage"]), "%"))
		if remembered == "" && profile != nil {
			return uint16(profile.Bps()), nil // at most 50%, as the profile is validated
		}
		if remembered == "" {
			return txbuild.DefaultSlippageBps, nil
		}
		bps, err := txbuild.ParseSlippage(remembered)
		if err != nil {
			return 0, fmt.Errorf("%w: the remembered slippage %q is not a percentage up to 50; set it again", curvekit.ErrInvalid, mem["slippage"])
		}
		return bps, nil
	}
	return txbuild.ParseSlippage(pct)
}

func (s *Service) trade(ctx context.Context, c *Call, side curvekit.Side, in TradeArgs) (ToolResult, error) {
	bps, err := slippage(in.Slippage, c.Memory, c.Profile.Slippage)
	if err != nil {
		return ToolResult{}, err
	}
	v, err := s.resolve(ctx, in.Token)
	if err != nil {
		return ToolResult{}, err
	}
	if spend, _ := tradeUnits(&v, side); in.Asset != "" && !strings.EqualFold(strings.TrimPrefix(in.Asset, "$"), spend.symbol) {
		return ToolResult{}, fmt.Errorf("%w: %s trades against %s: a %s spends %s, not %s", curvekit.ErrInvalid, v.Symbol, quoteSymbol(&v), side, spend.symbol, in.Asset)
	}
	if side == curvekit.Sell && strings.EqualFold(strings.TrimSpace(in.Amount), "all") {
		if in.Amount, err = s.wholeBalance(ctx, c.Wallet, &v); err != nil {
			return ToolResult{}, err
		}
	}
	// The turn runs for the account whose wallet this is: its settings' refusals are its own.
	r, err := s.cfg.Market.BuildTx(ctx, v.Address, market.BuildRequest{Side: side, Amount: in.Amount, SlippageBps: bps, Wallet: c.Wallet, Recipient: c.Wallet,
		Issues: true, Owner: true})
	if err != nil {
		return ToolResult{}, err
	}
	if side == curvekit.Buy {
		if err := c.maxTrade(v.Quote.Address, v.Quote.Decimals, quoteSymbol(&v), &r.Quote.In); err != nil {
			return ToolResult{}, err
		}
	}
	spend, get := tradeUnits(&v, side)
	inText := curvekit.FormatAmount(&r.Quote.In, spend.decimals)
	outText := curvekit.FormatAmount(&r.Quote.Out, get.decimals)
	minText := curvekit.FormatAmount(&r.MinOut, get.decimals)
	verb := map[curvekit.Side]string{curvekit.Buy: "Buy", curvekit.Sell: "Sell"}[side]
	desc := fmt.Sprintf("%s %s (%s): spend %s %s for at least %s %s", verb, v.Symbol, v.Address.Hex(), inText, spend.symbol, minText, get.symbol)
	tx := NewTransaction(string(side), desc, &r.Plan)
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s (%s, token %s) with %s %s: you get about %s %s, at least %s %s with %s%% slippage.",
		verb, v.Symbol, v.Name, v.Address.Hex(), inText, spend.symbol, outText, get.symbol, minText, get.symbol, bpsText(bps))
	if r.Plan.Approval != nil {
		fmt.Fprintf(&b, " It needs an approval of %s first: send the approval, then the trade.", spend.symbol)
	}
	b.WriteString(" The transaction is unsigned: confirm it in your wallet before the deadline.")
	data := map[string]any{
		"token": v.Address.Hex(), "side": string(side), "venue": string(r.Quote.Venue),
		"amountIn": inText, "expectedOut": outText, "minOut": minText, "slippageBps": bps, "deadline": r.Deadline,
		"to": tx.To, "value": tx.Value, "approvalFirst": r.Plan.Approval != nil,
	}
	if is := r.Issues; is != nil {
		issueNotes(&b, spend, is)
		data["issues"] = issuesData(is)
	}
	return ToolResult{Summary: b.String(), Transactions: []Transaction{tx}, Data: data}, nil
}

// issueNotes says in words when the wallet falls short of what it spends and what the account's
// settings would refuse.
func issueNotes(b *strings.Builder, spend unit, is *market.Issues) {
	if bal := is.Balance; bal != nil {
		b.WriteString(" " + shortNote(spend, &bal.Actual, &bal.Expected))
	}
	for _, rf := range is.Refusals {
		fmt.Fprintf(b, " This account's settings would refuse the %s as it stands (%s): %s.", rf.Step, rf.Code, strings.TrimSuffix(rf.Message, "."))
	}
}

// issuesData is a build's issues for a model to read, in the shape build-tx answers them
// (amounts in whole units; ETH or the ERC-20's address as token; settings null when unchecked).
func issuesData(is *market.Issues) map[string]any {
	token := func(a common.Address) string {
		if a == (common.Address{}) {
			return account.ETH
		}
		return a.Hex()
	}
	out := map[string]any{"balance": nil, "allowance": nil, "simulationIncomplete": is.SimulationIncomplete, "settings": nil}
	if bal := is.Balance; bal != nil {
		out["balance"] = map[string]any{"token": token(bal.Asset), "actual": curvekit.FormatAmount(&bal.Actual, bal.Decimals), "expected": curvekit.FormatAmount(&bal.Expected, bal.Decimals)}
	}
	if al := is.Allowance; al != nil {
		out["allowance"] = map[string]any{"token": token(al.Asset), "spender": al.Spender.Hex(), "actual": curvekit.FormatAmount(&al.Actual, al.Decimals), "expected": curvekit.FormatAmount(&al.Expected, al.Decimals)}
	}
	if is.Refusals != nil {
		settings := make([]map[string]any, len(is.Refusals))
		for i, rf := range is.Refusals {
			settings[i] = map[string]any{"step": string(rf.Step), "code": string(rf.Code), "message": rf.Message}
		}
		out["settings"] = settings
	}
	return out
}

func bpsText(bps uint16) string {
	return strings.TrimSuffix(strings.TrimSuffix(fmt.Sprintf("%d.%02d", bps/100, bps%100), "0"), ".0")
}

// shortNote says that the wallet holds have, less than the need a transaction spends.
func shortNote(spend unit, have, need *uint256.Int) string {
	return fmt.Sprintf("Your wallet holds only %s %s, less than the %s %s this spends: fund it before you confirm, or the transaction will fail.",
		curvekit.FormatAmount(have, spend.decimals), spend.symbol, curvekit.FormatAmount(need, spend.decimals), spend.symbol)
}

// wholeBalance is the wallet's balance of the token, for "sell all".
func (s *Service) wholeBalance(ctx context.Context, wallet common.Address, v *market.View) (string, error) {
	if s.cfg.Balances == nil {
		return "", fmt.Errorf("%w: this server cannot read balances; say how many %s to sell", curvekit.ErrInvalid, v.Symbol)
	}
	have, err := s.cfg.Balances.Balance(ctx, v.Address, wallet)
	if err != nil {
		return "", fmt.Errorf("agent: balance of %s: %w", v.Symbol, err)
	}
	if have.IsZero() {
		return "", fmt.Errorf("%w: your wallet holds no %s", curvekit.ErrInvalid, v.Symbol)
	}
	return curvekit.FormatAmount(&have, v.Decimals), nil
}
