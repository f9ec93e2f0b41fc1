package account

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/holiman/uint256"

	"github.com/curvekit/curvekit"
)

// patcher applies one merge patch to a copy of the settings, collecting every problem.
type patcher struct {
	next     Settings
	now      time.Time
	assets   map[string]Asset
	tools    []string
	problems curvekit.Problems
	// relaxed is set when the patch starts a relaxation.
	relaxed bool
}

func (p *patcher) fail(path, format string, args ...any) {
	p.problems = append(p.problems, path+": "+fmt.Sprintf(format, args...))
}

// apply applies the JSON Merge Patch raw to cur at now. It returns the new settings and whether
// the patch starts a relaxation, or curvekit.Problems listing every failing field.
func apply(cur Settings, raw []byte, now time.Time, assets []Asset, tools []string) (Settings, bool, error) {
	doc, err := parseJSON(raw)
	if err != nil {
		return Settings{}, false, fmt.Errorf("%w: the patch is not JSON: %v", curvekit.ErrInvalid, err)
	}
	top, ok := doc.(map[string]any)
	if !ok {
		return Settings{}, false, fmt.Errorf("%w: the patch must be a JSON object", curvekit.ErrInvalid)
	}
	p := &patcher{next: clone(cur), now: now, assets: assetIndex(assets), tools: tools}
	for _, k := range sortedKeys(top) {
		v := top[k]
		switch k {
		case "wallet":
			p.wallet(v)
		case "agent":
			p.agent(v)
		case "version", "updatedAt":
			p.fail(k, "is read-only")
		default:
			p.fail(k, "unknown field")
		}
	}
	if len(p.problems) > 0 {
		return Settings{}, false, p.problems
	}
	return p.next, p.relaxed, nil
}

func (p *patcher) wallet(v any) {
	if v == nil {
		def := Defaults().Wallet
		p.next.Wallet = def
		return
	}
	obj, ok := v.(map[string]any)
	if !ok {
		p.fail("wallet", "must be an object or null")
		return
	}
	w := &p.next.Wallet
	// The cooldown first: recipients added by the same patch wait the new one.
	if c, ok := obj["recipientCooldownHours"]; ok {
		switch n, isNum := c.(json.Number); {
		case c == nil:
			w.RecipientCooldownHours = DefaultCooldownHours
		case !isNum || !digits(n.String()) || len(n.String()) > 3:
			p.fail("wallet.recipientCooldownHours", "must be a whole number of hours from 0 to %d", MaxCooldownHours)
		default:
			h, _ := n.Int64()
			if h > MaxCooldownHours {
				p.fail("wallet.recipientCooldownHours", "must be a whole number of hours from 0 to %d", MaxCooldownHours)
			} else {
				w.RecipientCooldownHours = int(h)
			}
		}
	}
	for _, k := range sortedKeys(obj) {
		v := obj[k]
		path := "wallet." + k
		switch k {
		case "recipientCooldownHours":
		case "paused":
			switch b, ok := v.(bool); {
			case v == nil:
				w.Paused = false
			case !ok:
				p.fail(path, "must be true or false")
			default:
				w.Paused = b
			}
		case "limits":
			w.Limits = p.limits(path, w.Limits, v, nil)
		case "maxPriceImpact":
			if v == nil {
				w.MaxPriceImpact = DefaultMaxPriceImpact
			} else if pc, ok := p.percent(path, v, 10000); ok {
				w.MaxPriceImpact = pc
			}
		case "recipients":
			p.recipients(path, v)
		case "relax":
			p.relax(path, v)
		default:
			p.fail(path, "unknown field")
		}
	}
}

// limits merges patch v into caps (a nil v removes them all). base, for a relaxation, fills the
// fields the patch leaves out.
func (p *patcher) limits(path string, caps map[string]Limit, v any, base map[string]Limit) map[string]Limit {
	if v == nil {
		return map[string]Limit{}
	}
	obj, ok := v.(map[string]any)
	if !ok {
		p.fail(path, "must be an object of pairing assets, or null")
		return caps
	}
	out := maps.Clone(caps)
	if out == nil {
		out = map[string]Limit{}
	}
	for _, k := range sortedKeys(obj) {
		v := obj[k]
		a, ok := p.asset(path+"."+k, k)
		if !ok {
			continue
		}
		key := a.Key()
		if v == nil {
			delete(out, key)
			continue
		}
		fields, ok := v.(map[string]any)
		if !ok {
			p.fail(path+"."+k, "must be an object with perTransaction and daily, or null")
			continue
		}
		l, had := out[key]
		if !had && base != nil {
			l = base[key]
		}
		for _, f := range sortedKeys(fields) {
			fv := fields[f]
			var dst **string
			switch f {
			case "perTransaction":
				dst = &l.PerTransaction
			case "daily":
				dst = &l.Daily
			default:
				p.fail(path+"."+k+"."+f, "unknown field")
				continue
			}
			if fv == nil {
				*dst = nil
				continue
			}
			if amt, ok := p.amount(path+"."+k+"."+f, fv, a); ok {
				*dst = &amt
			}
		}
		if l.PerTransaction == nil && l.Daily == nil && base == nil {
			delete(out, key)
		} else {
			out[key] = l
		}
	}
	return out
}

// asset resolves an asset key of a patch: ETH, or a listed ERC-20's address in any case.
func (p *patcher) asset(path, k string) (Asset, bool) {
	if strings.EqualFold(k, ETH) {
		if a, ok := p.assets[ETH]; ok {
			return a, true
		}
	} else if common.IsHexAddress(k) && strings.HasPrefix(k, "0x") {
		if a, ok := p.assets[common.HexToAddress(k).Hex()]; ok {
			return a, true
		}
	}
	p.fail(path, "not a pairing asset of this chain (ETH or a listed ERC-20's address)")
	return Asset{}, false
}

// amount reads an exact, non-negative decimal string with at most the asset's decimals; it
// returns the canonical form.
func (p *patcher) amount(path string, v any, a Asset) (string, bool) {
	s, ok := v.(string)
	if !ok {
		p.fail(path, "must be an exact decimal string of %s, or null", symbolOf(a))
		return "", false
	}
	amt, err := curvekit.ParseAmount(s, a.Decimals)
	if err != nil {
		p.fail(path, "must be a non-negative exact decimal string of %s with at most %d decimals", symbolOf(a), a.Decimals)
		return "", false
	}
	return curvekit.FormatAmount(&amt, a.Decimals), true
}

func symbolOf(a Asset) string {
	if a.Symbol != "" {
		return a.Symbol
	}
	return a.Key()
}

// percent reads a JSON number with at most two decimals, 0 to most (hundredths).
func (p *patcher) percent(path string, v any, most Percent) (Percent, bool) {
	n, ok := v.(json.Number)
	var pc Percent
	var err error
	if ok {
		pc, err = parsePercent(n.String())
	}
	if !ok || err != nil || pc > most {
		p.fail(path, "must be a number of percent from 0 to %s with at most two decimals", most)
		return 0, false
	}
	return pc, true
}

func (p *patcher) recipients(path string, v any) {
	w := &p.next.Wallet
	if v == nil {
		w.Recipients = map[string]Recipient{}
		return
	}
	obj, ok := v.(map[string]any)
	if !ok {
		p.fail(path, "must be an object of addresses, or null")
		return
	}
	out := maps.Clone(w.Recipients)
	if out == nil {
		out = map[string]Recipient{}
	}
	for _, k := range sortedKeys(obj) {
		v := obj[k]
		if !common.IsHexAddress(k) || !strings.HasPrefix(k, "0x") || common.HexToAddress(k) == (common.Address{}) {
			p.fail(path+"."+k, "must be an address: 0x followed by 40 hex digits, not zero")
			continue
		}
		key := common.HexToAddress(k).Hex()
		if v == nil {
			delete(out, key)
			continue
		}
		if o, ok := v.(map[string]any); !ok || len(o) > 0 {
			p.fail(path+"."+k, "must be {} to add the recipient or null to remove it")
			continue
		}
		if _, had := out[key]; had {
			continue // added before: it keeps its cooldown
		}
		out[key] = Recipient{AddedAt: p.now.Unix(), ActiveAt: p.now.Add(time.Duration(w.RecipientCooldownHours) * time.Hour).Unix()}
	}
	if len(out) > MaxRecipients {
		p.fail(path, "at most %d recipients", MaxRecipients)
		return
	}
	w.Recipients = out
}

func (p *patcher) relax(path string, v any) {
	w := &p.next.Wallet
	if v == nil {
		w.Relax = nil
		return
	}
	obj, ok := v.(map[string]any)
	if !ok {
		p.fail(path, "must be an object with minutes and limits or maxPriceImpact, or null to end it")
		return
	}
	x := &Relaxation{Limits: map[string]Limit{}}
	minutes, hasMinutes := obj["minutes"]
	if n, ok := minutes.(json.Number); !hasMinutes || !ok || !slices.Contains(RelaxMinutes, atoi(n.String())) {
		p.fail(path+".minutes", "must be one of 10, 30, 60 or 1440")
	} else {
		x.Minutes = atoi(n.String())
		x.Until = p.now.Add(time.Duration(x.Minutes) * time.Minute).Unix()
	}
	for _, k := range sortedKeys(obj) {
		v := obj[k]
		switch k {
		case "minutes":
		case "limits":
			x.Limits = p.limits(path+".limits", map[string]Limit{}, v, w.Limits)
		case "maxPriceImpact":
			if pc, ok := p.percent(path+".maxPriceImpact", v, 10000); ok {
				x.MaxPriceImpact = &pc
			}
		case "until":
			p.fail(path+".until", "is read-only: give minutes")
		default:
			p.fail(path+"."+k, "unknown field")
		}
	}
	if len(x.Limits) == 0 && x.MaxPriceImpact == nil {
		p.fail(path, "raises nothing: give limits or maxPriceImpact")
	}
	w.Relax = x
	p.relaxed = true
}

func atoi(s string) int {
	if !digits(s) || len(s) > 6 {
		return -1
	}
	n := 0
	for i := 0; i < len(s); i++ {
		n = n*10 + int(s[i]-'0')
	}
	return n
}

func (p *patcher) agent(v any) {
	if v == nil {
		p.next.Agent = Defaults().Agent
		return
	}
	obj, ok := v.(map[string]any)
	if !ok {
		p.fail("agent", "must be an object or null")
		return
	}
	a := &p.next.Agent
	for _, k := range sortedKeys(obj) {
		v := obj[k]
		path := "agent." + k
		switch k {
		case "slippage":
			if v == nil {
				a.Slippage = nil
			} else if pc, ok := p.percent(path, v, MaxSlippage); ok {
				a.Slippage = &pc
			}
		case "quote":
			if v == nil {
				a.Quote = nil
				continue
			}
			s, ok := v.(string)
			if !ok {
				p.fail(path, "must be ETH or a listed ERC-20's address, or null")
				continue
			}
			if as, ok := p.asset(path, s); ok {
				key := as.Key()
				a.Quote = &key
			}
		case "maxTrade":
			a.MaxTrade = p.maxTrade(path, a.MaxTrade, v)
		case "tools":
			p.toolList(path, v)
		default:
			p.fail(path, "unknown field")
		}
	}
}

func (p *patcher) maxTrade(path string, cur map[string]string, v any) map[string]string {
	if v == nil {
		return map[string]string{}
	}
	obj, ok := v.(map[string]any)
	if !ok {
		p.fail(path, "must be an object of pairing assets, or null")
		return cur
	}
	out := maps.Clone(cur)
	if out == nil {
		out = map[string]string{}
	}
	for _, k := range sortedKeys(obj) {
		as, ok := p.asset(path+"."+k, k)
		if !ok {
			continue
		}
		if obj[k] == nil {
			delete(out, as.Key())
		} else if amt, ok := p.amount(path+"."+k, obj[k], as); ok {
			out[as.Key()] = amt
		}
	}
	return out
}

func (p *patcher) toolList(path string, v any) {
	if v == nil {
		p.next.Agent.Tools = nil
		return
	}
	list, ok := v.([]any)
	if !ok {
		p.fail(path, "must be a list of tool names, or null for all")
		return
	}
	names := make([]string, 0, len(list))
	for i, e := range list {
		s, ok := e.(string)
		switch {
		case !ok:
			p.fail(fmt.Sprintf("%s[%d]", path, i), "must be a tool's name")
		case len(p.tools) > 0 && !slices.Contains(p.tools, s):
			p.fail(fmt.Sprintf("%s[%d]", path, i), "no tool is named %q", s)
		case slices.Contains(names, s):
			p.fail(fmt.Sprintf("%s[%d]", path, i), "%q is listed twice", s)
		default:
			names = append(names, s)
		}
	}
	p.next.Agent.Tools = &names
}

// parseJSON decodes one JSON value with numbers kept as text, refusing a key given twice in an
// object (encoding/json would keep the last) and anything after the value.
func parseJSON(raw []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	v, err := parseValue(dec, 0)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err == nil {
		return nil, errors.New("something follows the object")
	}
	return v, nil
}

func parseValue(dec *json.Decoder, depth int) (any, error) {
	if depth > 8 {
		return nil, errors.New("nested too deeply")
	}
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch tok {
	case json.Delim('{'):
		obj := map[string]any{}
		for dec.More() {
			kt, err := dec.Token()
			if err != nil {
				return nil, err
			}
			k := kt.(string)
			if _, dup := obj[k]; dup {
				return nil, fmt.Errorf("%s is given more than once", k)
			}
			if obj[k], err = parseValue(dec, depth+1); err != nil {
				return nil, err
			}
		}
		_, err := dec.Token()
		return obj, err
	case json.Delim('['):
		list := []any{}
		for dec.More() {
			v, err := parseValue(dec, depth+1)
			if err != nil {
				return nil, err
			}
			list = append(list, v)
		}
		_, err := dec.Token()
		return list, err
	}
	return tok, nil
}

func sortedKeys[V any](m map[string]V) []string {
	return slices.Sorted(maps.Keys(m))
}

// clone copies s deeply enough for a patch to change the copy alone.
func clone(s Settings) Settings {
	out := s
	out.Wallet.Limits = maps.Clone(s.Wallet.Limits)
	out.Wallet.Recipients = maps.Clone(s.Wallet.Recipients)
	if s.Wallet.Relax != nil {
		x := *s.Wallet.Relax
		x.Limits = maps.Clone(x.Limits)
		out.Wallet.Relax = &x
	}
	out.Agent.MaxTrade = maps.Clone(s.Agent.MaxTrade)
	if s.Agent.Tools != nil {
		tools := slices.Clone(*s.Agent.Tools)
		out.Agent.Tools = &tools
	}
	return out
}

// loosens reports whether next guards the wallet less than cur anywhere: the pause lifted, a cap
// removed or raised, the impact cap raised, the cooldown shortened, the last recipient removed
// (which lifts the restriction), or a relaxation started.
func loosens(cur, next *Settings, relaxed bool, assets []Asset) bool {
	c, n := &cur.Wallet, &next.Wallet
	if relaxed || (c.Paused && !n.Paused) || n.MaxPriceImpact > c.MaxPriceImpact ||
		n.RecipientCooldownHours < c.RecipientCooldownHours || (len(c.Recipients) > 0 && len(n.Recipients) == 0) {
		return true
	}
	byKey := assetIndex(assets)
	cc, nc := map[common.Address]Cap{}, map[common.Address]Cap{}
	addCaps(cc, c.Limits, byKey)
	addCaps(nc, n.Limits, byKey)
	for a, was := range cc {
		now := nc[a]
		if raised(was.PerTransaction, now.PerTransaction) || raised(was.Daily, now.Daily) {
			return true
		}
	}
	return false
}

// raised reports whether a cap went from was to something higher, or to none.
func raised(was, now *uint256.Int) bool {
	return was != nil && (now == nil || now.Gt(was))
}

// changedPaths lists the settings' paths whose values differ between a and b.
func changedPaths(a, b *Settings) []string {
	var out []string
	eq := func(x, y any) bool {
		bx, _ := json.Marshal(x)
		by, _ := json.Marshal(y)
		return bytes.Equal(bx, by)
	}
	add := func(path string, x, y any) {
		if !eq(x, y) {
			out = append(out, path)
		}
	}
	add("wallet.paused", a.Wallet.Paused, b.Wallet.Paused)
	for _, k := range unionKeys(a.Wallet.Limits, b.Wallet.Limits) {
		add("wallet.limits."+k, a.Wallet.Limits[k], b.Wallet.Limits[k])
	}
	add("wallet.maxPriceImpact", a.Wallet.MaxPriceImpact, b.Wallet.MaxPriceImpact)
	add("wallet.recipientCooldownHours", a.Wallet.RecipientCooldownHours, b.Wallet.RecipientCooldownHours)
	for _, k := range unionKeys(a.Wallet.Recipients, b.Wallet.Recipients) {
		_, x := a.Wallet.Recipients[k]
		_, y := b.Wallet.Recipients[k]
		add("wallet.recipients."+k, x, y)
	}
	add("wallet.relax", a.Wallet.Relax, b.Wallet.Relax)
	add("agent.slippage", a.Agent.Slippage, b.Agent.Slippage)
	add("agent.quote", a.Agent.Quote, b.Agent.Quote)
	for _, k := range unionKeys(a.Agent.MaxTrade, b.Agent.MaxTrade) {
		add("agent.maxTrade."+k, a.Agent.MaxTrade[k], b.Agent.MaxTrade[k])
	}
	add("agent.tools", a.Agent.Tools, b.Agent.Tools)
	return out
}

func unionKeys[V any](a, b map[string]V) []string {
	keys := slices.Collect(maps.Keys(a))
	for k := range b {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	return keys
}
