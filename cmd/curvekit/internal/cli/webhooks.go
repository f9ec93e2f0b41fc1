package cli

import (
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/curvekit/curvekit/adapters/apiclient"
)

// webhooksCmd manages the account's webhooks: where the server posts the events the account
// hears, signed as Standard Webhooks says.
type webhooksCmd struct {
	Add        webhookAddCmd        `cmd:"" help:"Subscribe a URL to events; prints the signing secret, this once."`
	List       webhookListCmd       `cmd:"" help:"List your webhooks."`
	Test       webhookTestCmd       `cmd:"" help:"Send a webhook a ping now."`
	Deliveries webhookDeliveriesCmd `cmd:"" help:"A webhook's delivery log, newest first: each attempt's status and latency."`
	Rotate     webhookRotateCmd     `cmd:"" help:"A new signing secret (printed this once); the old one signs beside it for 24 hours."`
	Delete     webhookDeleteCmd     `cmd:"" help:"Delete a webhook and its log."`
}

type webhookAddCmd struct {
	URL          string   `arg:"" help:"The receiver's https URL."`
	Types        []string `help:"Event types, comma separated: trade, token.launched, token.graduated, fees.claimable, wallet.transaction, job.completed, job.failed, order.triggered, order.sent, order.filled, order.failed, order.expired, order.cancelled, settings.changed, webhook.disabled." required:""`
	Tokens       []string `help:"Only the market's events of these tokens (addresses, comma separated)."`
	MinTradeSize string   `name:"min-trade-size" help:"Only trades of at least this much of the pairing asset, in whole units."`
}

func (c *webhookAddCmd) Run(e *env) error {
	cl, err := e.keyed()
	if err != nil {
		return err
	}
	h, err := cl.CreateWebhook(e.ctx, apiclient.WebhookRequest{URL: c.URL, Types: c.Types, Tokens: c.Tokens, MinTradeSize: c.MinTradeSize})
	if err != nil {
		return err
	}
	if e.root.JSON {
		return e.printJSON(h)
	}
	fmt.Fprintf(e.out, "added %s: %s for %s\nsigning secret (shown this once): %s\n", h.ID, strings.Join(h.Types, ", "), h.URL, h.Secret)
	return nil
}

type webhookListCmd struct{}

func (c *webhookListCmd) Run(e *env) error {
	cl, err := e.keyed()
	if err != nil {
		return err
	}
	hooks, err := cl.Webhooks(e.ctx)
	if err != nil {
		return err
	}
	if e.root.JSON {
		return e.printJSON(hooks)
	}
	w := tabwriter.NewWriter(e.out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "ID\tSTATE\tURL\tEVENTS")
	for _, h := range hooks {
		state := "enabled"
		switch {
		case !h.Enabled && h.DisabledReason != nil:
			state = "disabled: " + *h.DisabledReason
		case !h.Enabled:
			state = "disabled"
		case h.FailingSince != nil:
			state = "failing since " + time.Unix(*h.FailingSince, 0).UTC().Format(time.RFC3339)
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\n", h.ID, state, h.URL, strings.Join(h.Types, ","))
	}
	return w.Flush()
}

type webhookTestCmd struct {
	ID string `arg:"" help:"The webhook's id."`
}

func (c *webhookTestCmd) Run(e *env) error {
	cl, err := e.keyed()
	if err != nil {
		return err
	}
	d, err := cl.TestWebhook(e.ctx, c.ID)
	if err != nil {
		return err
	}
	if e.root.JSON {
		return e.printJSON(d)
	}
	fmt.Fprintf(e.out, "ping %s queued as delivery %s; see: curvekit webhooks deliveries %s\n", d.EventID, d.ID, c.ID)
	return nil
}

type webhookDeliveriesCmd struct {
	ID     string `arg:"" help:"The webhook's id."`
	Limit  int    `help:"Deliveries per page, 1 to 100." default:"20"`
	Cursor string `help:"Next page: the cursor the previous page printed."`
}

func (c *webhookDeliveriesCmd) Run(e *env) error {
	cl, err := e.keyed()
	if err != nil {
		return err
	}
	page, err := cl.Deliveries(e.ctx, c.ID, c.Cursor, c.Limit)
	if err != nil {
		return err
	}
	if e.root.JSON {
		return e.printJSON(page)
	}
	w := tabwriter.NewWriter(e.out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "DELIVERY\tEVENT\tSTATE\tATTEMPTS\tLAST ANSWER")
	for _, d := range page.Deliveries {
		last := "—"
		if n := len(d.Attempts); n > 0 {
			a := d.Attempts[n-1]
			last = fmt.Sprintf("no answer in %d ms", a.LatencyMs)
			if a.Status != nil {
				last = fmt.Sprintf("%d in %d ms", *a.Status, a.LatencyMs)
			}
			if a.Error != nil {
				last += ": " + *a.Error
			}
		}
		fmt.Fprintf(w, "%s\t%s %s\t%s\t%d\t%s\n", d.ID, d.Type, d.EventID, d.State, len(d.Attempts), last)
	}
	if err := w.Flush(); err != nil {
		return err
	}
	if page.NextCursor != nil {
		fmt.Fprintf(e.out, "next page: --cursor %s\n", *page.NextCursor)
	}
	return nil
}

type webhookRotateCmd struct {
	ID string `arg:"" help:"The webhook's id."`
}

func (c *webhookRotateCmd) Run(e *env) error {
	cl, err := e.keyed()
	if err != nil {
		return err
	}
	h, err := cl.RotateWebhookSecret(e.ctx, c.ID)
	if err != nil {
		return err
	}
	if e.root.JSON {
		return e.printJSON(h)
	}
	fmt.Fprintf(e.out, "new signing secret of %s (shown this once): %s\nthe old one signs beside it for 24 hours\n", h.ID, h.Secret)
	return nil
}

type webhookDeleteCmd struct {
	ID string `arg:"" help:"The webhook's id."`
}

func (c *webhookDeleteCmd) Run(e *env) error {
	cl, err := e.keyed()
	if err != nil {
		return err
	}
	if err := cl.DeleteWebhook(e.ctx, c.ID); err != nil {
		return err
	}
	fmt.Fprintf(e.out, "deleted %s\n", c.ID)
	return nil
}
