package orders

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/holiman/uint256"

	"github.com/curvekit/curvekit"
)

// Bounds of a request.
const (
	// DefaultSlippageBps is a fire's slippage when the request names none (1%).
	DefaultSlippageBps = 100
	// MaxSlippageBps is the most slippage an order may accept (50%).
	MaxSlippageBps = 5_000
	// MinInterval is the shortest DCA interval and TWAP slice; MaxSpan the longest DCA interval
	// and TWAP duration.
	MinInterval = time.Minute
	MaxSpan     = 90 * 24 * time.Hour
	// MaxTimes bounds a DCA's count and a TWAP's slices.
	MaxTimes = 1_000
	// MaxExpiry is how far ahead of its placing an order's expiresAt may be (a year): an
	// order meant to stand longer is placed without one.
	MaxExpiry = 365 * 24 * time.Hour
	// priceDecimals is how many fractional digits a price may have beyond the pairing asset's.
	priceDecimals = 18
)

// Request is an order as a client asks for it: the kind and the token, then what the kind needs.
// Amounts and prices are exact decimal strings in whole units; percentages are numbers with at
// most two decimals; durations are Go durations ("1m", "1h30m").
type Request struct {
	Kind  string `json:"kind" openapi:"required" enum:"limit,stop-loss,take-profit,trailing-stop,dca,twap"`
	Token string `json:"token" openapi:"required"`
	// Side is buy or sell (limit, dca, twap); stop-loss, take-profit and trailing-stop sell.
	Side string `json:"side,omitempty"`
	// Amount is what one fire spends: the pairing asset for a buy, tokens for a sell.
	Amount string `json:"amount,omitempty"`
	// Percent is the share of the wallet's token balance a sell spends at fire time, 0 < p <= 100.
	Percent *float64 `json:"percent,omitempty"`
	// Price is the trigger, in the pairing asset per whole token.
	Price string `json:"price,omitempty"`
	// Trail is how far below its highest price a trailing stop fires, in percent.
	Trail *float64 `json:"trail,omitempty"`
	// Slippage is how far below the quote at fire time a fire may fill, in percent; default 1.
	Slippage *float64 `json:"slippage,omitempty"`
	// Every and Times: a DCA fires every interval, Times times.
	Every string `json:"every,omitempty"`
	Times int    `json:"times,omitempty"`
	// Total, Over and Slices: a TWAP spreads Total evenly over the duration, in slices.
	Total  string `json:"total,omitempty"`
	Over   string `json:"over,omitempty"`
	Slices int    `json:"slices,omitempty"`
	// ExpiresAt (RFC 3339) ends the order if it is still open then.
	ExpiresAt string `json:"expiresAt,omitempty"`
}

// Market is what validation needs to know of the token: its decimals and its pairing asset's.
type Market struct {
	Decimals      uint8
	Quote         common.Address
	QuoteDecimals uint8
}

// TokenAddress parses the request's token address, or says what is wrong with it.
func (r *Request) TokenAddress() (common.Address, error) {
	if !common.IsHexAddress(r.Token) || !strings.HasPrefix(r.Token, "0x") {
		return common.Address{}, fmt.Errorf("%w: token: a 0x-prefixed address is required", curvekit.ErrInvalid)
	}
	return common.HexToAddress(r.Token), nil
}

// Order validates the request against the token m and returns the order it asks for, open and
// placed at now, without an id or an account. Every failing field is listed at once, as
// curvekit.Problems. With m nil (the token is unknown or its address malformed) amounts are
// checked at 18 decimals so the other fields are still reported.
func (r *Request) Order(m *Market, now time.Time) (Order, error) {
	var p curvekit.Problems
	fail := func(format string, args ...any) { p = append(p, fmt.Sprintf(format, args...)) }
	o := Order{Kind: Kind(r.Kind), State: Open, CreatedAt: now, UpdatedAt: now, SlippageBps: DefaultSlippageBps}
	known := m != nil
	if m == nil {
		m = &Market{Decimals: 18, QuoteDecimals: 18}
	}
	o.Decimals, o.Quote, o.QuoteDecimals = m.Decimals, m.Quote, m.QuoteDecimals

	if addr, err := r.TokenAddress(); err != nil {
		fail("token: a 0x-prefixed address is required")
	} else {
		o.Token = addr
	}
	if !slices.Contains(Kinds, o.Kind) {
		fail("kind: one of limit, stop-loss, take-profit, trailing-stop, dca, twap")
		return o, p // nothing else can be judged without the kind
	}

	// Side.
	switch o.Kind {
	case StopLoss, TakeProfit, TrailingStop:
		if r.Side != "" && r.Side != string(curvekit.Sell) {
			fail("side: a %s order sells; leave side out or set it to sell", o.Kind)
		}
		o.Side = curvekit.Sell
	default:
		switch curvekit.Side(r.Side) {
		case curvekit.Buy, curvekit.Sell:
			o.Side = curvekit.Side(r.Side)
		default:
			fail("side: buy or sell is required for a %s order", o.Kind)
		}
	}

	// What a fire spends.
	decimals := m.Decimals
	unit := "tokens"
	if o.Side == curvekit.Buy {
		decimals, unit = m.QuoteDecimals, "the pairing asset"
	}
	amount := func(field, s string) {
		v, err := curvekit.ParseAmount(s, decimals)
		switch {
		case err != nil:
			fail("%s: an exact decimal amount of %s with at most %d decimals", field, unit, decimals)
		case v.IsZero():
			fail("%s: must be more than 0", field)
		default:
			o.Amount = v
		}
	}
	if o.Kind == TWAP {
		if r.Amount != "" {
			fail("amount: a twap order spends total over its slices; use total")
		}
		if r.Percent != nil {
			fail("percent: a twap order spends an exact total")
		}
		if r.Total == "" {
			fail("total: what the twap spends in all is required")
		} else {
			amount("total", r.Total)
		}
	} else {
		if r.Total != "" {
			fail("total: only a twap order has a total")
		}
		switch {
		case r.Amount != "" && r.Percent != nil:
			fail("amount, percent: give one of them, not both")
		case r.Percent != nil && o.Side == curvekit.Buy:
			fail("percent: only a sell spends a percent of the balance; a buy gives amount in the pairing asset")
		case r.Percent != nil:
			bps, ok := hundredths(*r.Percent)
			if !ok || bps == 0 || bps > 10_000 {
				fail("percent: more than 0 and at most 100, with at most two decimals")
			} else {
				o.Percent = uint32(bps)
			}
		case r.Amount != "":
			amount("amount", r.Amount)
		case o.Side == curvekit.Sell:
			fail("amount: an amount of tokens or a percent of the balance is required")
		default:
			fail("amount: an amount of the pairing asset is required")
		}
	}

	// Trigger.
	switch o.Kind {
	case Limit, StopLoss, TakeProfit:
		v, err := curvekit.ParseAmount(r.Price, m.QuoteDecimals+priceDecimals)
		switch {
		case r.Price == "":
			fail("price: the trigger price in the pairing asset per token is required")
		case err != nil:
			fail("price: an exact decimal price with at most %d decimals", m.QuoteDecimals+priceDecimals)
		case v.IsZero():
			fail("price: must be more than 0")
		default:
			o.Price = v
		}
	default:
		if r.Price != "" {
			fail("price: a %s order has no trigger price", o.Kind)
		}
	}
	if o.Kind == TrailingStop {
		bps, ok := 0, false
		if r.Trail != nil {
			bps, ok = hundredths(*r.Trail)
		}
		if !ok || bps == 0 || bps >= 10_000 {
			fail("trail: the percent below the highest price that fires the stop is required, more than 0 and less than 100, with at most two decimals")
		} else {
			o.TrailBps = uint32(bps)
		}
	} else if r.Trail != nil {
		fail("trail: only a trailing-stop order has a trail")
	}

	// Schedule.
	duration := func(field, s string, into *time.Duration) {
		d, err := time.ParseDuration(s)
		if s == "" || err != nil || d < MinInterval || d > MaxSpan {
			fail("%s: a duration from 1m to 2160h, such as 1m or 1h30m", field)
			return
		}
		*into = d
	}
	count := func(field string, n, min int, into *int) {
		if n < min || n > MaxTimes {
			fail("%s: a whole number from %d to %d", field, min, MaxTimes)
			return
		}
		*into = n
	}
	if o.Kind == DCA {
		duration("every", r.Every, &o.Every)
		count("times", r.Times, 1, &o.Times)
	} else {
		if r.Every != "" {
			fail("every: only a dca order has an interval")
		}
		if r.Times != 0 {
			fail("times: only a dca order has a count")
		}
	}
	if o.Kind == TWAP {
		duration("over", r.Over, &o.Over)
		count("slices", r.Slices, 2, &o.Slices)
		if o.Over > 0 && o.Slices > 0 && o.Over/time.Duration(o.Slices) < 10*time.Second {
			fail("slices: at most one slice every 10s (over %s allows %d)", o.Over, o.Over/(10*time.Second))
		}
		if o.Slices > 0 && !o.Amount.IsZero() && o.Amount.Lt(uint256.NewInt(uint64(o.Slices))) {
			// A slice of nothing would still be a fire: a transaction that trades nothing.
			fail("slices: a total of %s base units cannot be spread over %d slices of at least one base unit each", o.Amount.Dec(), o.Slices)
		}
	} else {
		if r.Over != "" {
			fail("over: only a twap order has a duration")
		}
		if r.Slices != 0 {
			fail("slices: only a twap order has slices")
		}
	}
	if o.Kind.Timed() {
		o.NextAt = now
	}

	// Slippage and expiry.
	if r.Slippage != nil {
		bps, ok := hundredths(*r.Slippage)
		if !ok || bps > MaxSlippageBps {
			fail("slippage: a percent from 0 to 50, with at most two decimals")
		} else {
			o.SlippageBps = uint32(bps)
		}
	}
	if r.ExpiresAt != "" {
		t, err := time.Parse(time.RFC3339, r.ExpiresAt)
		switch {
		case err != nil:
			fail("expiresAt: an RFC 3339 time such as 2026-12-01T00:00:00Z")
		case !t.After(now):
			fail("expiresAt: must be in the future")
		case t.Sub(now) > MaxExpiry:
			fail("expiresAt: at most a year ahead (%s); leave it out for an order that stands until it fires or is cancelled", now.Add(MaxExpiry).Format(time.RFC3339))
		default:
			o.ExpiresAt = t.UTC()
		}
	}
	if len(p) > 0 {
		return o, p
	}
	if !known {
		return o, fmt.Errorf("%w: token not found", curvekit.ErrNotFound)
	}
	return o, nil
}

// hundredths reads a percent with at most two decimals as basis points.
func hundredths(f float64) (int, bool) {
	if math.IsNaN(f) || math.IsInf(f, 0) || f < 0 || f > 1e6 {
		return 0, false
	}
	bps := math.Round(f * 100)
	if math.Abs(bps-f*100) > 1e-6 {
		return 0, false
	}
	return int(bps), true
}

// FormatPrice writes a scaled price as an exact decimal string of the pairing asset per whole
// token.
func FormatPrice(price *uint256.Int, quoteDecimals uint8) string {
	return curvekit.FormatAmount(price, quoteDecimals+priceDecimals)
}

// FormatPercent writes basis points as a percent ("50", "12.5").
func FormatPercent(bps uint32) string {
	var v uint256.Int
	v.SetUint64(uint64(bps))
	return curvekit.FormatAmount(&v, 2)
}
