package account

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/holiman/uint256"

	"github.com/curvekit/curvekit"
)

// Defaults and bounds of the settings.
const (
	// DefaultMaxPriceImpact is the price-impact cap of an account that set none: 15%.
	DefaultMaxPriceImpact Percent = 1500
	// DefaultCooldownHours is how long a new recipient waits before it may receive anything.
	DefaultCooldownHours = 24
	// MaxCooldownHours bounds wallet.recipientCooldownHours.
	MaxCooldownHours = 168
	// MaxRecipients bounds the account's recipients, as a key's allowedRecipients are bounded.
	MaxRecipients = 50
	// MaxSlippage bounds the agent's default slippage.
	MaxSlippage Percent = 5000
	// RecentSignIn is how recent a session's sign-in must be to loosen the guard.
	RecentSignIn = 15 * time.Minute
)

// RelaxMinutes are the lengths a relaxation may have.
var RelaxMinutes = []int{10, 30, 60, 1440}

// ETH is the asset key of the chain's native asset; an ERC-20 pairing asset's key is its address.
const ETH = "ETH"

// Settings is an account's settings document as the API shows it. Amounts are exact decimal
// strings in whole units of their asset; a nil cap is no cap.
type Settings struct {
	Wallet WalletSettings `json:"wallet"`
	Agent  AgentProfile   `json:"agent"`
	// Version counts the changes; 0 while the defaults apply.
	Version int64 `json:"version"`
	// UpdatedAt is the last change, Unix seconds; 0 while the defaults apply.
	UpdatedAt int64 `json:"updatedAt"`
}

// WalletSettings is the wallet's guard.
type WalletSettings struct {
	// Paused: nothing is signed (exporting the key still works).
	Paused bool `json:"paused"`
	// Limits are caps per pairing asset, by asset key (ETH or the ERC-20's address).
	Limits map[string]Limit `json:"limits"`
	// MaxPriceImpact caps a curve or pool trade's price impact, in percent.
	MaxPriceImpact Percent `json:"maxPriceImpact"`
	// RecipientCooldownHours is how long a recipient added now waits before it may receive.
	RecipientCooldownHours int `json:"recipientCooldownHours"`
	// Recipients are the account's own permitted recipients, by address. While there is one,
	// every address outside trading venues that would receive value, tokens or an allowance must
	// be an active one.
	Recipients map[string]Recipient `json:"recipients"`
	// Relax raises caps until it ends; null when none is running (an ended one reads null).
	Relax *Relaxation `json:"relax"`
}

// Limit caps what leaves the wallet in one pairing asset.
type Limit struct {
	PerTransaction *string `json:"perTransaction"`
	Daily          *string `json:"daily"`
}

// Recipient is an address the account permits, and when.
type Recipient struct {
	// AddedAt and ActiveAt are Unix seconds: it may receive from ActiveAt on.
	AddedAt  int64 `json:"addedAt"`
	ActiveAt int64 `json:"activeAt"`
}

// Relaxation raises caps for a while; it reverts by itself at Until.
type Relaxation struct {
	Minutes int `json:"minutes"`
	// Until is Unix seconds.
	Until int64 `json:"until"`
	// Limits replace the caps of their assets while it runs; a null cap is none.
	Limits map[string]Limit `json:"limits"`
	// MaxPriceImpact replaces the price-impact cap while it runs, when set.
	MaxPriceImpact *Percent `json:"maxPriceImpact"`
}

// AgentProfile is what the agent (planner, LLM, MCP) reads before composing for the account.
type AgentProfile struct {
	// Slippage is the default slippage in percent; null: the server's default.
	Slippage *Percent `json:"slippage"`
	// Quote is the default pairing asset (ETH or an ERC-20's address); null: ETH.
	Quote *string `json:"quote"`
	// MaxTrade is the largest trade the agent may compose, per pairing asset.
	MaxTrade map[string]string `json:"maxTrade"`
	// Tools are the only tools the agent may use; null: all of them.
	Tools *[]string `json:"tools"`
}

// Defaults returns the settings of an account that never changed them.
func Defaults() Settings {
	return Settings{Wallet: WalletSettings{
		Limits: map[string]Limit{}, MaxPriceImpact: DefaultMaxPriceImpact, RecipientCooldownHours: DefaultCooldownHours,
		Recipients: map[string]Recipient{},
	}, Agent: AgentProfile{MaxTrade: map[string]string{}}}
}

// Percent is a percentage in hundredths (basis points): 1500 is 15%. On the wire it is a JSON
// number with at most two decimals.
type Percent uint32

// Bps is the percentage in basis points.
func (p Percent) Bps() uint64 { return uint64(p) }

func (p Percent) String() string {
	s := strconv.FormatUint(uint64(p)/100, 10)
	if frac := uint64(p) % 100; frac != 0 {
		s += strings.TrimRight(fmt.Sprintf(".%02d", frac), "0")
	}
	return s
}

// MarshalJSON writes the percentage as a number.
func (p Percent) MarshalJSON() ([]byte, error) { return []byte(p.String()), nil }

// UnmarshalJSON reads a number with at most two decimals, 0 to 100.
func (p *Percent) UnmarshalJSON(b []byte) error {
	v, err := parsePercent(string(b))
	if err != nil {
		return err
	}
	*p = v
	return nil
}

// parsePercent reads "15", "2.5" or "0.25" exactly, 0 to 100.
func parsePercent(s string) (Percent, error) {
	whole, frac, dot := strings.Cut(s, ".")
	if whole == "" || len(whole) > 3 || (dot && (frac == "" || len(frac) > 2)) || !digits(whole) || !digits(frac) {
		return 0, fmt.Errorf("%w: a percentage from 0 to 100 with at most two decimals", curvekit.ErrInvalid)
	}
	w, _ := strconv.Atoi(whole)
	f := 0
	if frac != "" {
		f, _ = strconv.Atoi(frac + strings.Repeat("0", 2-len(frac)))
	}
	if v := w*100 + f; v <= 10000 {
		return Percent(v), nil
	}
	return 0, fmt.Errorf("%w: a percentage from 0 to 100 with at most two decimals", curvekit.ErrInvalid)
}

func digits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// Asset is a pairing asset the account's caps may name.
type Asset struct {
	// Address is the ERC-20's; the zero address is the chain's native ETH.
	Address  common.Address
	Symbol   string
	Decimals uint8
}

// Key is the asset's key in the settings: ETH, or the ERC-20's checksummed address.
func (a Asset) Key() string {
	if a.Address == (common.Address{}) {
		return ETH
	}
	return a.Address.Hex()
}

// Cap is a pairing asset's caps in base units; nil is no cap.
type Cap struct {
	PerTransaction *uint256.Int
	Daily          *uint256.Int
	// Symbol and Decimals say how to show the amounts.
	Symbol   string
	Decimals uint8
}

// Format shows base units of the cap's asset in whole units, with its symbol.
func (c *Cap) Format(v *uint256.Int) string {
	return curvekit.FormatAmount(v, c.Decimals) + " " + c.Symbol
}

// Rules are the settings as the wallet's guard applies them at an instant: amounts in base units,
// a relaxation applied while it runs, recipients with the instant they may receive from.
type Rules struct {
	Paused bool
	// Caps by asset address (the zero address for ETH).
	Caps map[common.Address]Cap
	// MaxPriceImpactBps caps a trade's price impact.
	MaxPriceImpactBps uint64
	// Recipients, when not empty, are the only addresses outside trading venues that may
	// receive, each from its instant on.
	Recipients map[common.Address]time.Time
	// RelaxedUntil is when a running relaxation ends; zero when none runs.
	RelaxedUntil time.Time
}

// Rules returns the settings as they apply at now, amounts read with the assets' decimals.
func (s *Settings) Rules(now time.Time, assets []Asset) Rules {
	r := Rules{Paused: s.Wallet.Paused, Caps: map[common.Address]Cap{}, MaxPriceImpactBps: s.Wallet.MaxPriceImpact.Bps()}
	byKey := assetIndex(assets)
	addCaps(r.Caps, s.Wallet.Limits, byKey)
	if x := s.Wallet.Relax; x != nil && now.Unix() < x.Until {
		r.RelaxedUntil = time.Unix(x.Until, 0).UTC()
		addCaps(r.Caps, x.Limits, byKey)
		if x.MaxPriceImpact != nil {
			r.MaxPriceImpactBps = x.MaxPriceImpact.Bps()
		}
	}
	if len(s.Wallet.Recipients) > 0 {
		r.Recipients = make(map[common.Address]time.Time, len(s.Wallet.Recipients))
		for k, v := range s.Wallet.Recipients {
			r.Recipients[common.HexToAddress(k)] = time.Unix(v.ActiveAt, 0).UTC()
		}
	}
	return r
}

// addCaps parses limits into caps, replacing an asset's caps that limits names.
func addCaps(caps map[common.Address]Cap, limits map[string]Limit, byKey map[string]Asset) {
	for key, l := range limits {
		a, ok := byKey[key]
		switch {
		case ok:
		case key == ETH:
			a = Asset{Symbol: ETH, Decimals: 18}
		default:
			// A cap on an asset the chain no longer lists stays enforced at its most
			// conservative reading, in base units.
			a = Asset{Address: common.HexToAddress(key)}
		}
		c := Cap{Symbol: symbolOf(a), Decimals: a.Decimals}
		for _, f := range []struct {
			src *string
			dst **uint256.Int
		}{{l.PerTransaction, &c.PerTransaction}, {l.Daily, &c.Daily}} {
			if f.src == nil {
				continue
			}
			v, err := curvekit.ParseAmount(*f.src, a.Decimals)
			if err != nil {
				v = uint256.Int{} // a stored amount that no longer parses caps at zero
			}
			*f.dst = &v
		}
		caps[a.Address] = c
	}
}

func assetIndex(assets []Asset) map[string]Asset {
	m := make(map[string]Asset, len(assets))
	for _, a := range assets {
		m[a.Key()] = a
	}
	return m
}
