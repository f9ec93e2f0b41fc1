package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// OfflineModel is the model name of the offline planner.
const OfflineModel = "offline"

// Offline is the default planner: deterministic, without a network. It maps everyday
// plain-English requests (see OfflineHelp and intent.go) to tool calls, answers from the tools' summaries, and
// says plainly what it cannot do and how to configure a model for the rest.
type Offline struct{}

var _ LLM = Offline{}

// OfflineHelp is the offline planner's answer to what it does not understand; {launch} stands
// for the launch examples, listed only when the server offers the launch tools.
const OfflineHelp = `I am the offline planner, so I understand only plain requests like these:
- "how much is DETH?", "price of DETH" or "info on 0x…"
- "how much DETH would 0.01 ETH get me?" or "what would I get for 1,000 DETH?"
- "buy 0.01 ETH of DETH", "swap 0.01 ETH for DETH", "sell 1,000 DETH" or "dump all my DETH"
- "what's trending?", "newest tokens", "biggest tokens"
- "use 2% slippage from now on" or "forget my slippage"{launch}{orders}
I cannot answer free-form questions. For those, configure a model: set CURVEKIT_LLM_BASE_URL,
CURVEKIT_LLM_MODEL and CURVEKIT_LLM_API_KEY for any OpenAI-compatible endpoint (OpenAI, Ollama,
vLLM) and restart the server.`

const offlineOrdersHelp = `
- orders, proposed for you to place: "buy 0.01 ETH of DETH every hour, 5 times", "buy 0.01 ETH
  of DETH at 0.000000004", "sell 1000 DETH at 0.00000001", "sell half my DETH if it drops 20%"`

const offlineLaunchHelp = `
- "launch a token named Moon Cat with symbol MCAT"
- "claim my fees", "my fees", "how much have I earned this week?", "my launch limit"`

// Complete plans one step: tool calls for a new request, or the answer once the tools ran.
func (Offline) Complete(ctx context.Context, r *Request) (Reply, error) {
	if err := ctx.Err(); err != nil {
		return Reply{}, err
	}
	if len(r.Messages) == 0 {
		return Reply{}, fmt.Errorf("agent: offline planner got no messages")
	}
	offered := make([]string, len(r.Tools))
	for i, t := range r.Tools {
		offered[i] = t.Name
	}
	var text string
	if last := r.Messages[len(r.Messages)-1]; last.Role == RoleTool {
		text = answerFromTools(r.Messages)
	} else {
		calls, reply := planOffline(last.Content, offered)
		if len(calls) > 0 {
			return Reply{ToolCalls: calls}, nil
		}
		text = reply
	}
	stream(text, r.OnText)
	return Reply{Text: text}, nil
}

// stream hands text to onText word by word, as a model streams it.
func stream(text string, onText func(string)) {
	if onText == nil {
		return
	}
	start := 0
	for i := 1; i < len(text); i++ {
		if text[i] == ' ' || text[i] == '\n' {
			onText(text[start:i])
			start = i
		}
	}
	if start < len(text) {
		onText(text[start:])
	}
}

// answerFromTools joins the summaries (or errors) of the tool results since the last
// assistant message.
func answerFromTools(msgs []Message) string {
	i := len(msgs)
	for i > 0 && msgs[i-1].Role == RoleTool {
		i--
	}
	var parts []string
	for _, m := range msgs[i:] {
		var out toolOutput
		if err := json.Unmarshal([]byte(m.Content), &out); err != nil {
			parts = append(parts, "A tool answered something I cannot read.")
			continue
		}
		if out.Error != "" {
			parts = append(parts, "I could not do that: "+out.Error+".")
			continue
		}
		parts = append(parts, out.Summary)
	}
	return strings.Join(parts, "\n")
}

// The patterns of the requests the offline planner understands, matched case-insensitively on
// the prompt with its spaces collapsed and trailing punctuation removed.
const (
	num = `(\d+(?:\.\d+)?)`
	tok = `\$?(0x[0-9a-fA-F]{40}|[A-Za-z0-9]{1,32})`
)

var (
	reBuySpend        = regexp.MustCompile(`(?i)^(?:please )?buy ` + num + ` ` + tok + ` (?:worth )?(?:of|in|into) ` + tok + `$`)
	reBuyWith         = regexp.MustCompile(`(?i)^(?:please )?buy ` + tok + ` (?:with|for|using) ` + num + ` ` + tok + `$`)
	reBuyTokens       = regexp.MustCompile(`(?i)^(?:please )?buy ` + num + ` ` + tok + `$`)
	reSell            = regexp.MustCompile(`(?i)^(?:please )?sell ` + num + ` (?:of )?` + tok + `(?: (?:for|to|into) \$?` + pairingPattern + `)?$`)
	reSellAll         = regexp.MustCompile(`(?i)^(?:please )?sell (?:all|everything)(?: of)?(?: my)? ` + tok + `$`)
	reSellPart        = regexp.MustCompile(`(?i)^(?:please )?sell (?:all|everything|half|some|most)\b`)
	reQuoteBuy        = regexp.MustCompile(`(?i)^(?:quote|price|how many tokens? (?:do i get )?for) (?:buying )?` + num + ` ` + tok + ` (?:worth )?(?:of|in) ` + tok + `$`)
	reQuoteSell       = regexp.MustCompile(`(?i)^(?:quote|price|how much (?:is|for|do i get for)) (?:selling )?` + num + ` (?:of )?` + tok + `$`)
	reInfo            = regexp.MustCompile(`(?i)^(?:what(?:'s| is) the )?(?:price|info|information|details|stats|market cap|token info|quote)(?: of| for| on| about)? ` + tok + `(?: token)?$`)
	reInfo2           = regexp.MustCompile(`(?i)^(?:tell me about|show me|show|look up|how is|what is|what's) (?:the )?(?:token )?` + tok + `(?: token)?(?: doing| trading| price)?$`)
	reInfo3           = regexp.MustCompile(`(?i)^` + tok + ` (?:price|info|stats)$`)
	reRemSlip         = regexp.MustCompile(`(?i)^(?:please )?(?:remember|set|use|save)(?: that)?(?: my)?(?: default)? slippage(?: tolerance)?(?: is| to| of| at| as|:|=)? ?` + num + ` ?%?(?: slippage)?$`)
	reRemember        = regexp.MustCompile(`(?i)^(?:please )?remember(?: that)?(?: my)? ([A-Za-z0-9_.-]{1,64}) (?:is|=|:|as) (.{1,500})$`)
	reForget          = regexp.MustCompile(`(?i)^(?:please )?(?:forget|delete|remove|clear)(?: my| the)? ([A-Za-z0-9_.-]{1,64})(?: preference| setting)?$`)
	reLaunch          = regexp.MustCompile(`(?i)^(?:please )?(?:launch|create|deploy|make)(?: me)? (?:a |an )?(?:new )?(?:token|coin)?(?: called| named)? ?"?([A-Za-z0-9][A-Za-z0-9 ._-]{0,31}?)"?,? (?:with |and )?(?:the )?(?:symbol|ticker) \$?([A-Za-z0-9]{1,10})$`)
	reLaunch2         = regexp.MustCompile(`(?i)^(?:please )?(?:launch|create|deploy)(?: a| an)?(?: new)?(?: token| coin)? "?([A-Za-z0-9][A-Za-z0-9 ._-]{0,31}?)"? \(\$?([A-Za-z0-9]{1,10})\)$`)
	reClaim           = regexp.MustCompile(`(?i)^(?:please )?claim(?: my| the)?(?: creator)? fees(?: (?:of|for|on|from) ` + tok + `)?$`)
	reFees            = regexp.MustCompile(`(?i)^(?:show |what are |how much are )?(?:my )?(?:creator |claimable |unclaimed )?fees$`)
	reEarnings        = regexp.MustCompile(`(?i)^(?:show |what are )?(?:my )?(?:creator )?earnings$|^how much (?:have i|did i) earn(?:ed)?$`)
	reLimit           = regexp.MustCompile(`(?i)(?:launch|daily) limit|how many (?:tokens |launches )?can i launch`)
	reTrending        = regexp.MustCompile(`(?i)\b(?:trending|hot|popular|top)\b`)
	reNewest          = regexp.MustCompile(`(?i)\b(?:newest|new|latest|recent)\b.*\b(?:tokens?|coins?|launches)\b`)
	reBiggest         = regexp.MustCompile(`(?i)\b(?:biggest|largest|top market cap)\b`)
	reGraduating      = regexp.MustCompile(`(?i)\bclosest to graduat|\babout to graduate|\bgraduating\b`)
	reAboutToGraduate = regexp.MustCompile(`(?i)\babout to graduate`)
	reHolders         = regexp.MustCompile(`(?i)^(?:who holds|who owns|(?:the |top )?holders of|show (?:me )?(?:the )?holders of) ` + tok + `\??$`)
	reList            = regexp.MustCompile(`(?i)^(?:list|show)(?: me)?(?: all| the)? tokens$`)
	reSpaces          = regexp.MustCompile(`\s+`)
	// Orders: a stop or a target relative to the price now, a schedule, a cancel, a list.
	reOrderMove = regexp.MustCompile(`(?i)^sell (half|all|everything|` + num + `%|` + num + `)(?: of)?(?: my)? ` + tok +
		` (?:if|when|once|as soon as) (?:it|the price|its price|the price of it) (?:drops|falls|dips|goes down|is down|rises|goes up|pumps|is up|climbs)(?: by)? ` + num + `%$`)
	reOrderUp = regexp.MustCompile(`(?i)\b(?:rises|goes up|pumps|is up|climbs)\b`)
	// A trigger at a price: a limit buy ("buy 0.01 ETH of DETH at 0.000000004", "… if it drops to
	// …"), a limit sell ("sell 1000 DETH at …", "… when it reaches …") and a stop-loss ("sell half
	// my DETH if it falls to …", "stop-loss on all my DETH at …"). The price is in the pairing
	// asset per token; a unit named after it must be the pairing asset the buy spends.
	reOrderBuyAt = regexp.MustCompile(`(?i)^(?:limit )?buy ` + num + ` ` + tok + ` (?:worth )?(?:of|in|into) ` + tok +
		` (?:at|@|(?:if|when|once|as soon as) (?:it|the price|its price) (?:drops|falls|dips|goes down|comes down|gets)(?: back)? (?:to|below|under)) ` +
		`(?:a price of )?` + num + `(?: \$?(` + pairingPattern + `))?(?: each| per token| a token| or (?:less|lower|better))?$`)
	reOrderSellAt = regexp.MustCompile(`(?i)^(?:limit )?sell (half|all|everything|` + num + `%|` + num + `)(?: of)?(?: my)? ` + tok +
		` (?:(at|@)|(?:if|when|once|as soon as) (?:it|the price|its price) (?:(rises|goes up|climbs|gets|reaches|hits)|(drops|falls|dips|goes down|gets down))(?: back)?(?: to| above| below| under| over)?) ` +
		`(?:a price of )?` + num + `(?: \$?(` + pairingPattern + `))?(?: each| per token| a token| or (?:more|higher|better))?$`)
	reOrderStopAt = regexp.MustCompile(`(?i)^(?:set |place |add |put )?(?:a )?stop[- ]?loss (?:on|for) (half|all|everything|` + num + `%|` + num + `)(?: of)?(?: my)? ` + tok +
		` (?:at|@) ` + num + `(?: \$?(` + pairingPattern + `))?$`)
	reOrderDCA = regexp.MustCompile(`(?i)^buy ` + num + ` ` + tok + ` (?:worth )?(?:of|in|into) ` + tok +
		` every (minute|hour|day|week|\d+ ?(?:m|h|d|min|mins|minutes|hours|days))(?:,| for| and)? ` + `(\d+) times$`)
	reOrderCancel = regexp.MustCompile(`(?i)^(?:cancel|kill|remove|delete) (?:all )?(?:of )?(?:my )?(?:` + tok + ` )?orders?(?: (?:on|for) ` + tok + `)?$`)
	reOrderList   = regexp.MustCompile(`(?i)^(?:(?:what|which) (?:open )?orders (?:do i have|are open|have i (?:got|placed))|(?:show|list)(?: me)?(?: all)? (?:of )?(?:my )?(?:open )?orders|my (?:open )?orders)$`)

	// An instruction to send anything anywhere: a verb that sends with a destination after it,
	// an address, or a name of the Ethereum Name Service ("vitalik.eth").
	reSendTo  = regexp.MustCompile(`(?i)\b(?:send|sending|transfer|transferring|withdraw|forward|deliver|move|give|gift|airdrop|pay out|payout)\b.*\b(?:to|into)\b`)
	reAddress = regexp.MustCompile(`(?i)\b0x[0-9a-f]{40}\b`)
	reENSName = regexp.MustCompile(`(?i)\b[a-z0-9-]+\.eth\b`)
)

// pairingPattern matches the symbol of a pairing asset, what a sell may name as its proceeds.
var pairingPattern = func() string {
	names := make([]string, 0, len(pairingAssets))
	for a := range pairingAssets {
		names = append(names, a)
	}
	slices.Sort(names)
	return "(?:" + strings.Join(names, "|") + ")"
}()

// planOffline returns the tool calls a prompt asks for, or a text answer when it asks for none
// the planner can make. Every tool runs for the caller's wallet and pays out to it, so a prompt
// that sends anything to another address (a sell's proceeds, a buy's tokens, a transfer) gets
// the plain help and no call, as does any address other than the one token a call names:
// dropping the destination would compose a transaction the person did not ask for.
func planOffline(prompt string, offered []string) ([]ToolCall, string) {
	p := normalize(prompt)
	if reSendTo.MatchString(p) || reENSName.MatchString(p) {
		return nil, offlineHelp(offered)
	}
	calls, text := planNormalized(p, offered)
	var token string
	if len(calls) == 1 {
		var args struct {
			Token string `json:"token"`
		}
		_ = json.Unmarshal([]byte(calls[0].Arguments), &args)
		token = args.Token
	}
	for _, a := range reAddress.FindAllString(p, -1) {
		if !strings.EqualFold(a, token) {
			return nil, offlineHelp(offered)
		}
	}
	return calls, text
}

// offlineHelp is OfflineHelp for the tools offered.
func offlineHelp(offered []string) string {
	extra := ""
	if slices.Contains(offered, "build_launch_transaction") {
		extra = offlineLaunchHelp
	}
	orders := ""
	if slices.Contains(offered, "propose_order") {
		orders = offlineOrdersHelp
	}
	return strings.NewReplacer("{launch}", extra, "{orders}", orders).Replace(OfflineHelp)
}

// planNormalized is planOffline on a normalized prompt, before the check of its addresses.
func planNormalized(p string, offered []string) ([]ToolCall, string) {
	call := func(name string, args map[string]any) ([]ToolCall, string) {
		if !slices.Contains(offered, name) {
			return nil, fmt.Sprintf("This server does not offer %s, so I cannot do that here.", strings.ReplaceAll(name, "_", " "))
		}
		b, _ := json.Marshal(args)
		return []ToolCall{{ID: "call_1", Name: name, Arguments: string(b)}}, ""
	}
	if m := reBuySpend.FindStringSubmatch(p); m != nil {
		return call("build_buy_transaction", map[string]any{"token": m[3], "amount": m[1], "asset": m[2]})
	}
	if m := reBuyWith.FindStringSubmatch(p); m != nil {
		return call("build_buy_transaction", map[string]any{"token": m[1], "amount": m[2], "asset": m[3]})
	}
	if m := reBuyTokens.FindStringSubmatch(p); m != nil {
		return nil, fmt.Sprintf("I buy by the amount you spend, not the amount of tokens you get. Say, for example, \"buy 0.01 ETH of %s\"; \"quote 0.01 ETH of %s\" shows how many tokens that gets.", m[2], m[2])
	}
	if m := reSell.FindStringSubmatch(p); m != nil {
		return call("build_sell_transaction", map[string]any{"token": m[2], "amount": m[1]})
	}
	if m := reSellAll.FindStringSubmatch(p); m != nil {
		return call("build_sell_transaction", map[string]any{"token": m[1], "amount": "all"})
	}
	if m := reOrderMove.FindStringSubmatch(p); m != nil {
		args := map[string]any{"token": m[4], "kind": "stop-loss", "below": mustFloat(m[5])}
		if reOrderUp.MatchString(p) {
			args["kind"], args["above"] = "take-profit", args["below"]
			delete(args, "below")
		}
		sellShare(args, m[1], m[2], m[3])
		return call("propose_order", args)
	}
	if m := reOrderBuyAt.FindStringSubmatch(p); m != nil {
		if m[5] != "" && !strings.EqualFold(m[5], strings.TrimPrefix(m[2], "$")) {
			return nil, fmt.Sprintf("Name the price in what the buy spends (%s), for example \"buy %s %s of %s at %s %s\".", m[2], m[1], m[2], m[3], m[4], m[2])
		}
		return call("propose_order", map[string]any{"kind": "limit", "token": m[3], "side": "buy", "amount": m[1], "asset": m[2], "price": m[4]})
	}
	if m := reOrderSellAt.FindStringSubmatch(p); m != nil {
		args := map[string]any{"kind": "limit", "token": m[4], "side": "sell", "price": m[8]}
		if m[9] != "" {
			args["asset"] = m[9]
		}
		if m[7] != "" {
			args["kind"] = "stop-loss"
			delete(args, "side")
		}
		sellShare(args, m[1], m[2], m[3])
		return call("propose_order", args)
	}
	if m := reOrderStopAt.FindStringSubmatch(p); m != nil {
		args := map[string]any{"kind": "stop-loss", "token": m[4], "price": m[5]}
		if m[6] != "" {
			args["asset"] = m[6]
		}
		sellShare(args, m[1], m[2], m[3])
		return call("propose_order", args)
	}
	if m := reOrderDCA.FindStringSubmatch(p); m != nil {
		return call("propose_order", map[string]any{"kind": "dca", "token": m[3], "side": "buy", "amount": m[1], "asset": m[2], "every": every(m[4]), "times": mustInt(m[5])})
	}
	if m := reOrderCancel.FindStringSubmatch(p); m != nil {
		args := map[string]any{}
		if t := m[1] + m[2]; t != "" && !isStopWord(t) {
			args["token"] = t
		}
		return call("cancel_order", args)
	}
	if reOrderList.MatchString(p) {
		return call("list_orders", map[string]any{})
	}
	if reSellPart.MatchString(p) {
		return nil, "Tell me how many tokens to sell, for example \"sell 1000 DETH\", or \"sell all my DETH\"."
	}
	if m := reQuoteBuy.FindStringSubmatch(p); m != nil {
		return call("quote", map[string]any{"token": m[3], "side": "buy", "amount": m[1]})
	}
	if m := reQuoteSell.FindStringSubmatch(p); m != nil {
		return call("quote", map[string]any{"token": m[2], "side": "sell", "amount": m[1]})
	}
	if m := reRemSlip.FindStringSubmatch(p); m != nil {
		return call("remember", map[string]any{"key": "slippage", "value": m[1] + "%"})
	}
	if m := reRemember.FindStringSubmatch(p); m != nil {
		return call("remember", map[string]any{"key": strings.ToLower(m[1]), "value": m[2]})
	}
	if m := reForget.FindStringSubmatch(p); m != nil {
		return call("forget", map[string]any{"key": strings.ToLower(m[1])})
	}
	for _, re := range []*regexp.Regexp{reLaunch, reLaunch2} {
		if m := re.FindStringSubmatch(p); m != nil {
			return call("build_launch_transaction", map[string]any{"name": strings.TrimSpace(m[1]), "symbol": strings.ToUpper(m[2])})
		}
	}
	if m := reClaim.FindStringSubmatch(p); m != nil {
		args := map[string]any{}
		if m[1] != "" {
			args["token"] = m[1]
		}
		return call("build_claim_fees_transaction", args)
	}
	if reFees.MatchString(p) {
		return call("get_creator_fees", map[string]any{})
	}
	if days, ok := earningsDays(p); ok {
		args := map[string]any{}
		if days > 0 {
			args["days"] = days
		}
		return call("get_earnings", args)
	}
	if reEarnings.MatchString(p) {
		return call("get_earnings", map[string]any{})
	}
	if reLimit.MatchString(p) {
		return call("get_daily_limit", map[string]any{})
	}
	if m := reHolders.FindStringSubmatch(p); m != nil {
		return call("get_holders", map[string]any{"token": m[1]})
	}
	for _, re := range []*regexp.Regexp{reInfo, reInfo2, reInfo3} {
		if m := re.FindStringSubmatch(p); m != nil && !isStopWord(m[1]) {
			return call("get_token", map[string]any{"token": m[1]})
		}
	}
	switch {
	case reAboutToGraduate.MatchString(p):
		return call("list_tokens", map[string]any{"sort": "progress", "filter": "graduating"})
	case reGraduating.MatchString(p):
		return call("list_tokens", map[string]any{"sort": "progress"})
	case reBiggest.MatchString(p):
		return call("list_tokens", map[string]any{"sort": "marketCap"})
	case reTrending.MatchString(p):
		return call("list_tokens", map[string]any{"sort": "trending"})
	case reNewest.MatchString(p), reList.MatchString(p):
		return call("list_tokens", map[string]any{"sort": "newest"})
	}
	return nil, offlineHelp(offered)
}

// sellShare sets what a sell order spends: a share of the balance (half, all, n%) or an amount of
// tokens.
func sellShare(args map[string]any, what, percent, amount string) {
	switch {
	case strings.EqualFold(what, "half"):
		args["percent"] = 50.0
	case strings.EqualFold(what, "all"), strings.EqualFold(what, "everything"):
		args["percent"] = 100.0
	case percent != "":
		args["percent"] = mustFloat(percent)
	default:
		args["amount"] = amount
	}
}

// isStopWord rejects words the info patterns would otherwise take for a symbol ("what is up").
func isStopWord(s string) bool {
	switch strings.ToLower(s) {
	case "up", "it", "this", "that", "you", "new", "happening", "going", "the", "a", "an", "my", "me", "trending", "tokens",
		"popular", "hot", "top", "latest", "newest", "biggest", "largest", "coins", "there", "everything", "good":
		return true
	}
	return false
}

func mustFloat(s string) float64 {
	f, _ := strconv.ParseFloat(s, 64)
	return f
}

func mustInt(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}

// every reads an interval of a schedule: "hour" is 1h, "15 minutes" 15m, "2d" 48h.
func every(s string) string {
	s = strings.ToLower(strings.ReplaceAll(s, " ", ""))
	switch s {
	case "minute":
		return "1m"
	case "hour":
		return "1h"
	case "day":
		return "24h"
	case "week":
		return "168h"
	}
	n := strings.TrimRight(s, "abcdefghijklmnopqrstuvwxyz")
	unit := s[len(n):]
	switch {
	case strings.HasPrefix(unit, "m"):
		return n + "m"
	case strings.HasPrefix(unit, "h"):
		return n + "h"
	}
	d, _ := strconv.Atoi(n)
	return strconv.Itoa(d*24) + "h"
}
