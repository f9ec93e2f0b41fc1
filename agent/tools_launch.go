package agent

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/holiman/uint256"

	"github.com/curvekit/curvekit"
	"github.com/curvekit/curvekit/launch"
	"github.com/curvekit/curvekit/market"
	"github.com/curvekit/curvekit/txbuild"
)

// LaunchArgs composes a token launch by the caller's wallet.
type LaunchArgs struct {
	Name        string `json:"name" jsonschema:"the token's name"`
	Symbol      string `json:"symbol" jsonschema:"the ticker: letters and digits"`
	Description string `json:"description,omitempty" jsonschema:"what the token is about"`
	ImageURL    string `json:"imageUrl,omitempty" jsonschema:"an ipfs:// or https URL of the image, from the image upload"`
	Twitter     string `json:"twitter,omitempty" jsonschema:"the token's X (Twitter) page, an http(s) URL"`
	Telegram    string `json:"telegram,omitempty" jsonschema:"the token's Telegram group, an http(s) URL"`
	Website     string `json:"website,omitempty" jsonschema:"the token's website, an http(s) URL"`
	Pairing     string `json:"pairing,omitempty" jsonschema:"what the token trades against: ETH (default) or another pairing asset's symbol or address"`
	InitialBuy  string `json:"initialBuy,omitempty" jsonschema:"a first buy by the creator in the same transaction, in whole units of the pairing asset"`
	URI         string `json:"uri,omitempty" jsonschema:"the metadata URI when the metadata was already uploaded; otherwise the fields above are pinned"`
}

// ClaimArgs composes creator fee claims.
type ClaimArgs struct {
	Token string `json:"token,omitempty" jsonschema:"the token whose fees to claim (symbol or address); every token of the caller with fees when absent"`
}

// EarningsArgs selects an earnings window.
type EarningsArgs struct {
	Days int `json:"days,omitempty" jsonschema:"how many days back, today included: 1 to 365 (default 30)"`
}

// NoArgs is the input of a tool that takes none.
type NoArgs struct{}

func (s *Service) launchTools() []Tool {
	return []Tool{
		NewTool("build_launch_transaction", "Compose an unsigned launch of a new token by the caller's wallet: pins its metadata when given fields, checks the daily launch limit, builds the factory call. The wallet owner confirms it; nothing is sent.", true, s.composeLaunch),
		NewTool("build_claim_fees_transaction", "Compose unsigned claims of the caller's creator fees, for one token or for every token of the caller with fees. Only a token's creator can claim.", true, s.composeClaims),
		NewTool("get_creator_fees", "The caller's creator fees claimable now, per pairing asset and token.", false, s.creatorFees),
		NewTool("get_earnings", "The creator fees the caller earned and claimed over the last days, per pairing asset.", false, s.earnings),
		NewTool("get_daily_limit", "How many tokens the caller may still launch today.", false, s.dailyLimit),
	}
}

func optional(v string) *string {
	if v == "" {
		return nil
	}
	return &v
}

// pairing resolves a pairing asset named by symbol or address: ETH, or an asset some listed
// token trades against.
func (s *Service) pairing(ctx context.Context, ref string) (market.Asset, error) {
	ref = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(ref), "$"))
	if ref == "" || strings.EqualFold(ref, "ETH") {
		return market.Asset{Symbol: "ETH", Decimals: 18}, nil
	}
	q := market.TokenQuery{Limit: market.MaxLimit}
	if common.IsHexAddress(ref) {
		a := common.HexToAddress(ref)
		q.Quote = &a
	}
	page, err := s.cfg.Market.Tokens(ctx, q)
	if err != nil {
		return market.Asset{}, err
	}
	for _, v := range page.Tokens {
		if strings.EqualFold(v.Quote.Symbol, ref) || (common.IsHexAddress(ref) && v.Quote.Address == common.HexToAddress(ref)) {
			return v.Quote, nil
		}
	}
	return market.Asset{}, fmt.Errorf("%w: no pairing asset %s: launch against ETH or an asset listed tokens trade against", curvekit.ErrInvalid, ref)
}

func (s *Service) composeLaunch(ctx context.Context, c *Call, in LaunchArgs) (ToolResult, error) {
	l := s.cfg.Launcher
	if strings.TrimSpace(in.Pairing) == "" && c.Profile.Quote != nil {
		in.Pairing = *c.Profile.Quote // the account's default pairing asset
	}
	quote, err := s.pairing(ctx, in.Pairing)
	if err != nil {
		return ToolResult{}, err
	}
	var first uint256.Int
	if in.InitialBuy != "" {
		if first, err = curvekit.ParseAmount(in.InitialBuy, quote.Decimals); err != nil {
			return ToolResult{}, err
		}
		if err := c.maxTrade(quote.Address, quote.Decimals, quote.Symbol, &first); err != nil {
			return ToolResult{}, err
		}
	}
	uri := strings.TrimSpace(in.URI)
	if uri == "" {
		up, _, err := l.UploadMetadata(ctx, launch.Metadata{Name: in.Name, Symbol: in.Symbol, Description: optional(in.Description),
			ImageURL: optional(in.ImageURL), Twitter: optional(in.Twitter), Telegram: optional(in.Telegram), Website: optional(in.Website)})
		if err != nil {
			return ToolResult{}, err
		}
		uri = up.URI
	}
	plan, err := l.ComposeLaunch(ctx, launch.LaunchParams{From: c.Wallet, Name: in.Name, Symbol: in.Symbol, URI: uri, Quote: quote.Address, InitialBuy: first})
	if err != nil {
		return ToolResult{}, err
	}
	desc := fmt.Sprintf("Launch %s (%s) paired with %s", in.Name, in.Symbol, quote.Symbol)
	if !first.IsZero() {
		desc += fmt.Sprintf(", first buy %s %s", curvekit.FormatAmount(&first, quote.Decimals), quote.Symbol)
	}
	tx := NewTransaction("launch", desc, &plan)
	var b strings.Builder
	fmt.Fprintf(&b, "%s, with metadata %s. Sending it from your wallet creates the token.", desc, uri)
	if plan.Approval != nil {
		fmt.Fprintf(&b, " It needs an approval of %s first: send the approval, then the launch.", quote.Symbol)
	}
	b.WriteString(" The transaction is unsigned: confirm it in your wallet.")
	if lim, err := l.DailyLimit(ctx, c.Wallet); err == nil {
		fmt.Fprintf(&b, " It will be launch %d of %d today (%s tier).", lim.Used+1, lim.Limit, lim.Tier)
	}
	data := map[string]any{"name": in.Name, "symbol": in.Symbol, "uri": uri, "pairing": quote.Symbol, "to": tx.To, "value": tx.Value}
	// What leaves the wallet: the value (launch fee and an ETH first buy), or the ERC-20 first buy.
	spend, need := unit{symbol: "ETH", decimals: 18}, plan.Tx.Value
	if quote.Address != (common.Address{}) {
		spend, need = unit{symbol: quote.Symbol, decimals: quote.Decimals, asset: quote.Address}, first
	}
	is, err := s.cfg.Market.IssuesOf(ctx, &market.IssuesParams{From: c.Wallet, Owner: true, Asset: spend.asset, Decimals: spend.decimals, Need: need, Plan: &plan})
	if err != nil {
		return ToolResult{}, err
	}
	issueNotes(&b, spend, &is)
	data["issues"] = issuesData(&is)
	return ToolResult{Summary: b.String(), Transactions: []Transaction{tx}, Data: data}, nil
}

func (s *Service) composeClaims(ctx context.Context, c *Call, in ClaimArgs) (ToolResult, error) {
	var tokens []common.Address
	if in.Token != "" {
		v, err := s.resolve(ctx, in.Token)
		if err != nil {
			return ToolResult{}, err
		}
		tokens = append(tokens, v.Address)
	} else {
		fees, err := s.cfg.Launcher.CreatorFees(ctx, c.Wallet)
		if err != nil {
			return ToolResult{}, err
		}
		for _, a := range fees {
			for _, t := range a.Tokens {
				if !t.Claimable.IsZero() {
					tokens = append(tokens, t.Token.Address)
				}
			}
		}
		if len(tokens) == 0 {
			return ToolResult{Summary: "You have no creator fees to claim."}, nil
		}
	}
	var (
		txs   []Transaction
		lines []string
		data  []map[string]any
	)
	for _, addr := range tokens {
		cl, err := s.cfg.Launcher.ComposeClaim(ctx, launch.ClaimParams{From: c.Wallet, Token: addr})
		if err != nil {
			return ToolResult{}, err
		}
		amt := curvekit.FormatAmount(&cl.Claimable, cl.Token.Quote.Decimals)
		desc := fmt.Sprintf("Claim %s %s of creator fees from %s", amt, cl.Token.Quote.Symbol, cl.Token.Symbol)
		txs = append(txs, NewTransaction("claim_fees", desc, &txbuild.Plan{Tx: cl.Tx}))
		lines = append(lines, desc+".")
		data = append(data, map[string]any{"token": cl.Token.Address.Hex(), "symbol": cl.Token.Symbol, "claimable": amt, "asset": cl.Token.Quote.Symbol})
	}
	sum := strings.Join(lines, " ") + " The transaction is unsigned: confirm it in your wallet; the fees go to the creator's wallet."
	if len(txs) > 1 {
		sum = strings.Join(lines, " ") + " Each transaction is unsigned: confirm them in your wallet; the fees go to the creator's wallet."
	}
	return ToolResult{Summary: sum, Transactions: txs, Data: data}, nil
}

func (s *Service) creatorFees(ctx context.Context, c *Call, _ NoArgs) (ToolResult, error) {
	fees, err := s.cfg.Launcher.CreatorFees(ctx, c.Wallet)
	if err != nil {
		return ToolResult{}, err
	}
	if len(fees) == 0 {
		return ToolResult{Summary: "You have no creator fees: none of your tokens has earned any yet.", Data: []any{}}, nil
	}
	var parts []string
	var data []map[string]any
	for _, a := range fees {
		var per []string
		for _, t := range a.Tokens {
			per = append(per, fmt.Sprintf("%s %s", t.Token.Symbol, curvekit.FormatAmount(&t.Claimable, a.Quote.Decimals)))
		}
		parts = append(parts, fmt.Sprintf("%s %s claimable (%s; earned %s, claimed %s)", curvekit.FormatAmount(&a.Claimable, a.Quote.Decimals), a.Quote.Symbol,
			strings.Join(per, ", "), curvekit.FormatAmount(&a.Earned, a.Quote.Decimals), curvekit.FormatAmount(&a.Claimed, a.Quote.Decimals)))
		data = append(data, map[string]any{"asset": a.Quote.Symbol, "claimable": curvekit.FormatAmount(&a.Claimable, a.Quote.Decimals),
			"earned": curvekit.FormatAmount(&a.Earned, a.Quote.Decimals), "claimed": curvekit.FormatAmount(&a.Claimed, a.Quote.Decimals)})
	}
	return ToolResult{Summary: "Your creator fees: " + strings.Join(parts, "; ") + ".", Data: data}, nil
}

func (s *Service) earnings(ctx context.Context, c *Call, in EarningsArgs) (ToolResult, error) {
	e, err := s.cfg.Launcher.Earnings(ctx, launch.EarningsParams{Wallet: c.Wallet, Days: in.Days})
	if err != nil {
		return ToolResult{}, err
	}
	if len(e.Assets) == 0 {
		return ToolResult{Summary: fmt.Sprintf("You earned no creator fees in the last %d days.", e.Days), Data: []any{}}, nil
	}
	var parts []string
	var data []map[string]any
	for _, a := range e.Assets {
		parts = append(parts, fmt.Sprintf("earned %s %s and claimed %s %s", curvekit.FormatAmount(&a.Earned, a.Quote.Decimals), a.Quote.Symbol,
			curvekit.FormatAmount(&a.Claimed, a.Quote.Decimals), a.Quote.Symbol))
		data = append(data, map[string]any{"asset": a.Quote.Symbol, "earned": curvekit.FormatAmount(&a.Earned, a.Quote.Decimals),
			"claimed": curvekit.FormatAmount(&a.Claimed, a.Quote.Decimals)})
	}
	return ToolResult{Summary: fmt.Sprintf("Over the last %d days you %s.", e.Days, strings.Join(parts, "; ")), Data: data}, nil
}

func (s *Service) dailyLimit(ctx context.Context, c *Call, _ NoArgs) (ToolResult, error) {
	d, err := s.cfg.Launcher.DailyLimit(ctx, c.Wallet)
	if err != nil {
		return ToolResult{}, err
	}
	sum := fmt.Sprintf("You have launched %d of %d tokens today (%s tier): %d left. The count resets at %s.",
		d.Used, d.Limit, d.Tier, d.Remaining, d.ResetsAt.UTC().Format(time.RFC3339))
	return ToolResult{Summary: sum, Data: map[string]any{"tier": string(d.Tier), "limit": d.Limit, "used": d.Used, "remaining": d.Remaining,
		"canLaunch": d.CanLaunch, "resetsAt": d.ResetsAt.UTC().Format(time.RFC3339)}}, nil
}
