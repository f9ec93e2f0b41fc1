package agent

import (
	"regexp"
	"strings"
)

// The offline planner reads a request in two steps. normalize rewrites everyday phrasing into
// the planner's canonical sentences: it drops politeness and filler ("can you", "I want to",
// "please", "?"), maps verbs to their canonical ones (purchase, grab, ape into → buy; dump,
// unload → sell), turns a swap into a buy or a sell by which side names a pairing asset, reads
// amounts with separators ("1,000", "1_000") and suffixes ("1.5k"), and turns questions into
// requests ("how much is DETH" → "price of DETH"). planOffline then matches the canonical
// sentences. Both steps are pure and deterministic: the same prompt always plans the same calls.

// pairingAssets are the symbols a swap's direction is read from: the side that names one of
// them is what the trade spends (a buy) or receives (a sell).
var pairingAssets = map[string]bool{"eth": true, "weth": true, "tusd": true, "usdc": true, "usdt": true, "dai": true}

// leadingFiller are phrases that open a request without changing it, longest first.
var leadingFiller = []string{
	"i would like you to", "i'd like you to", "i want you to", "would you please", "could you please", "can you please",
	"i would like to", "i'd like to", "i want to", "i wanna", "i need to", "i'd love to", "let me", "let's", "lets",
	"go ahead and", "help me", "could you", "can you", "would you", "will you", "can i", "could i", "may i",
	"please", "pls", "plz", "kindly", "hey", "hi", "hello", "ok", "okay", "so", "just", "yo", "now",
}

// trailingFiller are phrases that close a request without changing it.
var trailingFiller = []string{"for me please", "for me", "please", "pls", "plz", "thanks", "thank you", "right now", "now", "asap", "then"}

// verbSynonyms map a request's first word (or two) to the canonical verb.
var verbSynonyms = []struct{ from, to string }{
	{"ape into", "buy"}, {"ape in", "buy"}, {"load up on", "buy"}, {"pick up", "buy"},
	{"purchase", "buy"}, {"grab", "buy"}, {"get me", "buy"}, {"acquire", "buy"}, {"ape", "buy"}, {"snag", "buy"},
	{"cash out", "sell"}, {"dump", "sell"}, {"unload", "sell"}, {"offload", "sell"}, {"liquidate", "sell"}, {"exit", "sell"},
	{"get rid of", "sell"}, {"market sell", "sell"}, {"market buy", "buy"},
	{"check", "price of"}, {"lookup", "info on"}, {"look up", "info on"},
}

var (
	reAmountSep  = regexp.MustCompile(`\b(\d{1,3})(?:[,_](\d{3}))+(\.\d+)?\b`)
	reAmountK    = regexp.MustCompile(`(?i)\b(\d+(?:\.\d+)?)(k|m)\b`)
	reLeadingDot = regexp.MustCompile(`(^|\s)\.(\d)`)
	rePercent    = regexp.MustCompile(`(?i)(\d+(?:\.\d+)?)\s*(?:%|percent|pct)`)
	reEthUnit    = regexp.MustCompile(`(?i)\b(\d+(?:\.\d+)?)\s*(eth|weth|tusd|usdc)\b`)
	reSpend      = regexp.MustCompile(`(?i)^(?:spend|put|invest|use) ` + num + ` ` + tok + ` (?:on|in|into|to buy|buying) ` + tok + `$`)
	reSwap       = regexp.MustCompile(`(?i)^(?:swap|trade|convert|exchange|turn) ` + num + ` ` + tok + ` (?:for|to|into) ` + tok + `$`)
	reHowMuchIs  = regexp.MustCompile(`(?i)^(?:how much is|how much are|what is|what's|whats|how is|how's|hows) (?:the )?(?:price of )?` + tok + `(?: (?:worth|trading at|going for|doing|trading|at|now|today|right now))*$`)
	reHowMuchGet = regexp.MustCompile(`(?i)^how (?:much|many) ` + tok + `(?: tokens)? (?:would|will|can|could|do|does) (?:i )?(?:get|buy)?\s*(?:me )?(?:for|with)? ?` + num + ` ` + tok + `(?: (?:get|buy)(?: me)?)?$`)
	reHowMuchFor = regexp.MustCompile(`(?i)^(?:how much|what) (?:would|will|do|can|could) i get (?:for|if i sell|selling|from selling) ` + num + ` ` + tok + `$`)
	reSlipUse    = regexp.MustCompile(`(?i)^(?:use|set|make|keep|change)(?: my)?(?: default)?(?: slippage(?: tolerance)?)?(?: to| at| of)? ` + num + `%(?: slippage(?: tolerance)?)?(?: from now on| by default| going forward| for every trade| for all trades| always)?$`)
	reSlipMine   = regexp.MustCompile(`(?i)^(?:remember(?: that)? )?my (?:preferred |default |usual )?slippage(?: tolerance)? (?:is|=|should be|will be) ` + num + `%$`)
	reEarnWindow = regexp.MustCompile(`(?i)^(?:how much (?:have|did) i (?:earn|earned|make|made)|what (?:have|did) i (?:earn|earned|make|made)|(?:show )?(?:my )?(?:creator )?earnings)(?: in fees)?(?: (this week|in the last week|last week|this month|in the last month|last month|today|this year))?$`)
)

// normalize rewrites prompt into the planner's canonical phrasing; see the comment above.
func normalize(prompt string) string {
	p := strings.TrimSpace(reSpaces.ReplaceAllString(prompt, " "))
	p = strings.TrimRight(p, ".!?;: ")
	p = strings.NewReplacer("’", "'", "“", `"`, "”", `"`).Replace(p)
	// Amounts: separators and suffixes become plain digits.
	p = reAmountSep.ReplaceAllStringFunc(p, func(m string) string { return strings.NewReplacer(",", "", "_", "").Replace(m) })
	p = reAmountK.ReplaceAllStringFunc(p, expandSuffix)
	p = reLeadingDot.ReplaceAllString(p, "${1}0.$2")
	p = rePercent.ReplaceAllString(p, "$1%")
	p = reEthUnit.ReplaceAllString(p, "$1 $2")
	for changed := true; changed; {
		changed = false
		low := asciiLower(p)
		for _, f := range leadingFiller {
			if low == f || strings.HasPrefix(low, f+" ") || strings.HasPrefix(low, f+",") {
				p, changed = strings.TrimLeft(strings.TrimSpace(p[len(f):]), ",! "), true
				break
			}
		}
		low = asciiLower(p)
		for _, f := range trailingFiller {
			// Lower case only: a trailing "NOW" may be a token's symbol.
			if strings.HasSuffix(p, " "+f) {
				p, changed = strings.TrimRight(strings.TrimSpace(p[:len(p)-len(f)]), ",!?. "), true
				break
			}
		}
	}
	low := asciiLower(p)
	for _, v := range verbSynonyms {
		if strings.HasPrefix(low, v.from+" ") {
			p, low = v.to+p[len(v.from):], v.to+low[len(v.from):]
			break
		}
	}
	// Amounts in words: "all of my", "my entire", "my whole" say all.
	for _, all := range []string{"all of my ", "all of the ", "my entire ", "my whole ", "everything of my ", "the rest of my ", "all the "} {
		if i := strings.Index(low, all); i >= 0 && strings.HasPrefix(low, "sell ") {
			p = p[:i] + "all my " + p[i+len(all):]
			break
		}
	}
	if m := reSpend.FindStringSubmatch(p); m != nil {
		return "buy " + m[1] + " " + m[2] + " of " + m[3]
	}
	if m := reSwap.FindStringSubmatch(p); m != nil {
		from, to := strings.ToLower(strings.TrimPrefix(m[2], "$")), strings.ToLower(strings.TrimPrefix(m[3], "$"))
		switch {
		case pairingAssets[from] && !pairingAssets[to]:
			return "buy " + m[1] + " " + m[2] + " of " + m[3]
		case pairingAssets[to] && !pairingAssets[from]:
			return "sell " + m[1] + " " + m[2]
		}
		return p // both or neither a pairing asset: the direction is unclear
	}
	if m := reHowMuchGet.FindStringSubmatch(p); m != nil {
		return "quote " + m[2] + " " + m[3] + " of " + m[1]
	}
	if m := reHowMuchFor.FindStringSubmatch(p); m != nil {
		return "quote selling " + m[1] + " " + m[2]
	}
	if m := reHowMuchIs.FindStringSubmatch(p); m != nil && !isStopWord(m[1]) {
		return "price of " + m[1]
	}
	if m := reSlipUse.FindStringSubmatch(p); m != nil {
		return "remember my slippage is " + m[1] + "%"
	}
	if m := reSlipMine.FindStringSubmatch(p); m != nil {
		return "remember my slippage is " + m[1] + "%"
	}
	return p
}

// asciiLower lowercases ASCII letters only, so that byte offsets found in it are offsets in s
// (strings.ToLower may change a string's length: U+212A KELVIN SIGN becomes "k").
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

func expandSuffix(m string) string {
	n, unit := m[:len(m)-1], strings.ToLower(m[len(m)-1:])
	zeros := map[string]int{"k": 3, "m": 6}[unit]
	whole, frac, _ := strings.Cut(n, ".")
	if len(frac) > zeros {
		return m
	}
	digits := strings.TrimLeft(whole+frac+strings.Repeat("0", zeros-len(frac)), "0")
	if digits == "" {
		return "0"
	}
	return digits
}

// earningsDays reads the window of an earnings question: 0 for the tool's default.
func earningsDays(p string) (int, bool) {
	m := reEarnWindow.FindStringSubmatch(p)
	if m == nil {
		return 0, false
	}
	switch strings.ToLower(m[1]) {
	case "today":
		return 1, true
	case "this week", "in the last week", "last week":
		return 7, true
	case "this month", "in the last month", "last month":
		return 30, true
	case "this year":
		return 365, true
	}
	return 0, true
}
