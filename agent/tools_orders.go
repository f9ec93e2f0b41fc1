package agent

import (
	"context"
	"fmt"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/holiman/uint256"

	"github.com/curvekit/curvekit"
	"github.com/curvekit/curvekit/orders"
)

// Orders reads the standing orders of the caller's wallet (orders.Service does). The agent never
// places or cancels one: it composes them for the wallet's owner to confirm, as it composes
// transactions (SPEC 5 rule 9).
type Orders interface {
	WalletOrders(ctx context.Context, wallet, token common.Address) ([]orders.Order, error)
}

// OrderArgs compose a standing order.
type OrderArgs struct {
	Kind     string   `json:"kind" jsonschema:"limit, stop-loss, take-profit, trailing-stop, dca or twap"`
	Token    string   `json:"token" jsonschema:"the token's contract address (0x…) or its symbol"`
	Side     string   `json:"side,omitempty" jsonschema:"buy or sell (limit, dca, twap); stop-loss, take-profit and trailing-stop sell"`
	Amount   string   `json:"amount,omitempty" jsonschema:"what one fire spends, exact decimal in whole units: the pairing asset for a buy, tokens for a sell"`
	Percent  *float64 `json:"percent,omitempty" jsonschema:"a sell's share of the wallet's token balance at fire time, in percent (50 is half)"`
	Price    string   `json:"price,omitempty" jsonschema:"the trigger price in the pairing asset per token (limit, stop-loss, take-profit)"`
	Trail    *float64 `json:"trail,omitempty" jsonschema:"a trailing stop's distance below the highest price, in percent"`
	Slippage *float64 `json:"slippage,omitempty" jsonschema:"percent below the quote at fire time a fire accepts (default 1)"`
	Every    string   `json:"every,omitempty" jsonschema:"a DCA's interval, e.g. 1h"`
	Times    int      `json:"times,omitempty" jsonschema:"how many times a DCA fires"`
	Total    string   `json:"total,omitempty" jsonschema:"what a TWAP spends in all"`
	Over     string   `json:"over,omitempty" jsonschema:"a TWAP's duration, e.g. 10m"`
	Slices   int      `json:"slices,omitempty" jsonschema:"how many slices a TWAP fires"`
	// Below and Above set the trigger relative to the price now, for "if it drops 20%".
	Below *float64 `json:"below,omitempty" jsonschema:"instead of price: the trigger this many percent below the price now"`
	Above *float64 `json:"above,omitempty" jsonschema:"instead of price: the trigger this many percent above the price now"`
	// Asset guards a buy's amount: "0.01 ETH of X" when X trades against TUSD must not spend TUSD.
	Asset string `json:"asset,omitempty" jsonschema:"the pairing asset the person named (ETH, TUSD...) for a buy's amount or an order's price, when they named one; refused when it is not the token's pairing asset"`
}

// OrdersArgs select the wallet's orders.
type OrdersArgs struct {
	Token string `json:"token,omitempty" jsonschema:"only orders on this token: its address (0x…) or symbol"`
}

// CancelArgs select orders to cancel.
type CancelArgs struct {
	Order string `json:"order,omitempty" jsonschema:"the order's id (ord_…)"`
	Token string `json:"token,omitempty" jsonschema:"every open order on this token: its address (0x…) or symbol"`
}

func (s *Service) orderTools() []Tool {
	return []Tool{
		NewTool("propose_order", "Propose a standing order (limit, stop-loss, take-profit, trailing-stop, dca, twap) for the caller's wallet: validated, and returned as the body of POST /orders for the wallet's owner to place. Nothing is armed: no tool places an order.", true, s.proposeOrder),
		NewTool("list_orders", "List the caller's wallet's open standing orders, with their fires.", false, s.listOrders),
		NewTool("cancel_order", "Compose the cancellation of one order, or of every open order on a token. Nothing is cancelled: the wallet's owner confirms with DELETE /orders/{id}.", true, s.cancelOrder),
	}
}

func (s *Service) proposeOrder(ctx context.Context, c *Call, in OrderArgs) (ToolResult, error) {
	v, err := s.resolve(ctx, in.Token)
	if err != nil {
		return ToolResult{}, err
	}
	req := orders.Request{
		Kind: in.Kind, Token: v.Address.Hex(), Side: in.Side, Amount: in.Amount, Percent: in.Percent, Price: in.Price, Trail: in.Trail,
		Slippage: in.Slippage, Every: in.Every, Times: in.Times, Total: in.Total, Over: in.Over, Slices: in.Slices,
	}
	if in.Asset != "" && !strings.EqualFold(strings.TrimPrefix(in.Asset, "$"), quoteSymbol(&v)) {
		return ToolResult{}, fmt.Errorf("%w: %s trades against %s, not %s: name the amount in %s", curvekit.ErrInvalid, v.Symbol, quoteSymbol(&v), in.Asset, quoteSymbol(&v))
	}
	if rel, sign := relative(in.Below, in.Above); rel != nil {
		if in.Price != "" || (in.Below != nil && in.Above != nil) {
			return ToolResult{}, fmt.Errorf("%w: give one of price, below and above", curvekit.ErrInvalid)
		}
		bps := int64(*rel*100 + 0.5)
		if bps <= 0 || bps >= 10_000 {
			return ToolResult{}, fmt.Errorf("%w: below and above are percents between 0 and 100", curvekit.ErrInvalid)
		}
		p := orders.TokenPrice(&v.Token)
		p.Mul(&p, uint256.NewInt(uint64(10_000+sign*bps)))
		p.Div(&p, uint256.NewInt(10_000))
		req.Price = orders.FormatPrice(&p, v.Quote.Decimals)
	}
	o, err := req.Order(&orders.Market{Decimals: v.Decimals, Quote: v.Quote.Address, QuoteDecimals: v.Quote.Decimals}, s.now())
	if err != nil {
		return ToolResult{}, err
	}
	what := describe(&o, quoteSymbol(&v), v.Symbol)
	return ToolResult{
		Summary: fmt.Sprintf("I composed a %s order on %s (token %s): %s. Nothing is armed until you place it (POST /orders with this body, or curvekit orders place).",
			o.Kind, v.Symbol, v.Address.Hex(), what),
		Data:   map[string]any{"order": req, "confirm": "POST /orders"},
		Orders: []OrderProposal{NewOrderProposal(fmt.Sprintf("%s on %s (%s): %s", o.Kind, v.Symbol, v.Address.Hex(), what), req)},
	}, nil
}

// walletOrders are the caller's open orders, on the token ref names when it names one.
func (s *Service) walletOrders(ctx context.Context, c *Call, ref string) ([]orders.Order, error) {
	var token common.Address
	if ref != "" {
		v, err := s.resolve(ctx, ref)
		if err != nil {
			return nil, err
		}
		token = v.Address
	}
	return s.cfg.Orders.WalletOrders(ctx, c.Wallet, token)
}

func (s *Service) listOrders(ctx context.Context, c *Call, in OrdersArgs) (ToolResult, error) {
	live, err := s.walletOrders(ctx, c, in.Token)
	if err != nil {
		return ToolResult{}, err
	}
	if len(live) == 0 {
		return ToolResult{Summary: "You have no open orders.", Data: []any{}}, nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "You have %d open orders:", len(live))
	data := make([]map[string]any, len(live))
	for i := range live {
		o := &live[i]
		fmt.Fprintf(&b, " %s, %s (%s, fired %d of %d);", o.ID, describe(o, "", ""), o.State, o.Fired, o.Count())
		data[i] = map[string]any{"id": o.ID, "kind": o.Kind, "state": o.State, "token": o.Token.Hex(), "side": o.Side, "fired": o.Fired, "count": o.Count()}
	}
	return ToolResult{Summary: strings.TrimSuffix(b.String(), ";") + ".", Data: data}, nil
}

func (s *Service) cancelOrder(ctx context.Context, c *Call, in CancelArgs) (ToolResult, error) {
	live, err := s.walletOrders(ctx, c, in.Token)
	if err != nil {
		return ToolResult{}, err
	}
	var ids []string
	for _, o := range live {
		if in.Order == "" || o.ID == in.Order {
			ids = append(ids, o.ID)
		}
	}
	if len(ids) == 0 {
		return ToolResult{Summary: "No open order matches: nothing to cancel.", Data: map[string]any{"cancel": []string{}}}, nil
	}
	return ToolResult{
		Summary: fmt.Sprintf("To cancel %s, confirm DELETE /orders/{id} for each (or curvekit orders cancel). Nothing is cancelled yet.", strings.Join(ids, ", ")),
		Data:    map[string]any{"cancel": ids, "confirm": "DELETE /orders/{id}"},
	}, nil
}

// describe says an order in words: "sell 50% of the balance if the price falls to 0.000000002".
func describe(o *orders.Order, quote, symbol string) string {
	var what string
	switch {
	case o.Percent > 0:
		what = orders.FormatPercent(o.Percent) + "% of the balance"
	case o.Side == curvekit.Buy:
		what = formatUnits(o, o.QuoteDecimals) + " " + quote
	default:
		what = formatUnits(o, o.Decimals) + " " + symbol
	}
	what = strings.TrimSpace(what)
	switch o.Kind {
	case orders.Limit:
		return fmt.Sprintf("%s %s at %s or better", o.Side, what, orders.FormatPrice(&o.Price, o.QuoteDecimals))
	case orders.StopLoss:
		return fmt.Sprintf("sell %s if the price falls to %s", what, orders.FormatPrice(&o.Price, o.QuoteDecimals))
	case orders.TakeProfit:
		return fmt.Sprintf("sell %s if the price rises to %s", what, orders.FormatPrice(&o.Price, o.QuoteDecimals))
	case orders.TrailingStop:
		return fmt.Sprintf("sell %s if the price falls %s%% from its high", what, orders.FormatPercent(o.TrailBps))
	case orders.DCA:
		return fmt.Sprintf("%s %s every %s, %d times", o.Side, what, o.Every, o.Times)
	}
	return fmt.Sprintf("%s %s over %s in %d slices", o.Side, what, o.Over, o.Slices)
}

func formatUnits(o *orders.Order, decimals uint8) string {
	return curvekit.FormatAmount(&o.Amount, decimals)
}

// relative is the percent of below or above, and -1 or +1 for which.
func relative(below, above *float64) (*float64, int64) {
	if below != nil {
		return below, -1
	}
	if above != nil {
		return above, 1
	}
	return nil, 0
}
