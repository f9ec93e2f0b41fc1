package cli

import (
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/curvekit/curvekit/adapters/apiclient"
	"github.com/curvekit/curvekit/orders"
)

// ordersCmd places, lists and cancels the account's standing orders. Placing one arms the
// account's wallet: the server fires it through sign-and-submit when its trigger is reached, so
// it is the caller's explicit act, never something the agent does.
type ordersCmd struct {
	Place  orderPlaceCmd  `cmd:"" help:"Place a standing order the server fires through your custodial wallet: limit, stop-loss, take-profit, trailing-stop, dca or twap."`
	List   orderListCmd   `cmd:"" help:"List your orders with their fires, newest first."`
	Cancel orderCancelCmd `cmd:"" help:"Cancel an order: nothing more of it fires."`
}

type orderPlaceCmd struct {
	Kind      string   `arg:"" help:"limit, stop-loss, take-profit, trailing-stop, dca or twap." enum:"limit,stop-loss,take-profit,trailing-stop,dca,twap"`
	Token     string   `arg:"" help:"The token's address."`
	Side      string   `help:"buy or sell (limit, dca, twap)."`
	Amount    string   `help:"What one fire spends: the pairing asset for a buy, tokens for a sell."`
	Percent   *float64 `help:"A sell's share of the token balance at fire time, in percent."`
	Price     string   `help:"The trigger price in the pairing asset per token (limit, stop-loss, take-profit)."`
	Trail     *float64 `help:"A trailing stop's distance below the highest price, in percent."`
	Slippage  *float64 `help:"Percent below the quote at fire time a fire accepts (default 1)."`
	Every     string   `help:"A DCA's interval, e.g. 1h."`
	Times     int      `help:"How many times a DCA fires."`
	Total     string   `help:"What a TWAP spends in all."`
	Over      string   `help:"A TWAP's duration, e.g. 10m."`
	Slices    int      `help:"How many slices a TWAP fires."`
	ExpiresAt string   `name:"expires-at" help:"RFC 3339 time at which an order still open expires."`
}

func (c *orderPlaceCmd) Run(e *env) error {
	cl, err := e.keyed()
	if err != nil {
		return err
	}
	o, err := cl.PlaceOrder(e.ctx, orders.Request{
		Kind: c.Kind, Token: c.Token, Side: c.Side, Amount: c.Amount, Percent: c.Percent, Price: c.Price, Trail: c.Trail,
		Slippage: c.Slippage, Every: c.Every, Times: c.Times, Total: c.Total, Over: c.Over, Slices: c.Slices, ExpiresAt: c.ExpiresAt,
	})
	if err != nil {
		return err
	}
	if e.root.JSON {
		return e.printJSON(o)
	}
	fmt.Fprintf(e.out, "placed %s: %s\n", o.ID, describeOrder(&o))
	return nil
}

type orderListCmd struct {
	Token  string `help:"Only orders on this token."`
	State  string `help:"Only orders in this state: open, triggered, sent, filled, failed, expired or cancelled."`
	Kind   string `help:"Only orders of this kind."`
	Limit  int    `help:"Orders per page, 1 to 100." default:"50"`
	Cursor string `help:"Next page: the cursor the previous page printed."`
}

func (c *orderListCmd) Run(e *env) error {
	cl, err := e.keyed()
	if err != nil {
		return err
	}
	page, err := cl.Orders(e.ctx, apiclient.OrdersParams{Token: c.Token, State: c.State, Kind: c.Kind, Cursor: c.Cursor, Limit: c.Limit})
	if err != nil {
		return err
	}
	if e.root.JSON {
		return e.printJSON(page)
	}
	w := tabwriter.NewWriter(e.out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "ID\tSTATE\tORDER\tFIRED\tPLACED")
	for i := range page.Orders {
		o := &page.Orders[i]
		fmt.Fprintf(w, "%s\t%s\t%s\t%d/%d\t%s\n", o.ID, o.State, describeOrder(o), o.Fired, o.Count,
			time.Unix(o.CreatedAt, 0).UTC().Format(time.RFC3339))
		for _, f := range o.Fires {
			fmt.Fprintf(w, "\t\t  fire %d %s%s\t\t\n", f.N, f.State, fireDetail(&f))
		}
	}
	if err := w.Flush(); err != nil {
		return err
	}
	if len(page.Orders) == 0 {
		fmt.Fprintln(e.out, "no orders")
	}
	if page.NextCursor != nil {
		fmt.Fprintf(e.out, "more: --cursor %s\n", *page.NextCursor)
	}
	return nil
}

type orderCancelCmd struct {
	ID string `arg:"" help:"The order's id (ord_…)."`
}

func (c *orderCancelCmd) Run(e *env) error {
	cl, err := e.keyed()
	if err != nil {
		return err
	}
	o, err := cl.CancelOrder(e.ctx, c.ID)
	if err != nil {
		return err
	}
	if e.root.JSON {
		return e.printJSON(o)
	}
	fmt.Fprintf(e.out, "cancelled %s: %s\n", o.ID, describeOrder(&o))
	return nil
}

// describeOrder says an order in a line: "limit buy 0.01 at 0.000000004 of 0x…".
func describeOrder(o *apiclient.Order) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s ", o.Kind, o.Side)
	switch {
	case o.Percent != nil:
		fmt.Fprintf(&b, "%g%% of the balance", *o.Percent)
	case o.Amount != nil:
		b.WriteString(*o.Amount)
	}
	switch {
	case o.Price != nil:
		fmt.Fprintf(&b, " at %s", *o.Price)
	case o.Trail != nil:
		fmt.Fprintf(&b, " %g%% below the high", *o.Trail)
	case o.Every != nil && o.Times != nil:
		fmt.Fprintf(&b, " every %s, %d times", *o.Every, *o.Times)
	case o.Over != nil && o.Slices != nil:
		fmt.Fprintf(&b, " over %s in %d slices", *o.Over, *o.Slices)
	}
	fmt.Fprintf(&b, " of %s", o.Token)
	return b.String()
}

func fireDetail(f *apiclient.Fire) string {
	var b strings.Builder
	if f.Price != nil {
		fmt.Fprintf(&b, " at %s", *f.Price)
	}
	// Every transaction the fire sent, each with its kind: "approve 0x… trade 0x…".
	for _, tx := range f.Transactions {
		fmt.Fprintf(&b, " %s %s", tx.Kind, tx.Hash)
	}
	if len(f.Transactions) == 0 && f.TxHash != nil {
		fmt.Fprintf(&b, " trade %s", *f.TxHash)
	}
	if f.AmountIn != nil && f.AmountOut != nil {
		fmt.Fprintf(&b, " in %s out %s", *f.AmountIn, *f.AmountOut)
	}
	if f.Code != nil {
		fmt.Fprintf(&b, " %s", *f.Code)
		if f.Error != nil {
			fmt.Fprintf(&b, ": %s", *f.Error)
		}
	}
	return b.String()
}
