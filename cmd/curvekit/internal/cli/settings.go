package cli

import (
	"fmt"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/curvekit/curvekit/account"
)

// settingsCmd shows the account's settings: what the wallet's guard refuses, in words, and the
// agent profile; with --activity, the log of changes and refusals. It reads only: the settings
// change with a signed-in session, never with an API key.
type settingsCmd struct {
	Activity bool   `help:"Show the log of settings changes and refusals instead, newest first."`
	Limit    int    `help:"Log entries per page, 1 to 100." default:"20"`
	Cursor   string `help:"Next page of the log: the cursor the previous page printed."`
}

func (c *settingsCmd) Run(e *env) error {
	cl, err := e.keyed()
	if err != nil {
		return err
	}
	if c.Activity {
		page, err := cl.Activity(e.ctx, c.Cursor, c.Limit)
		if err != nil {
			return err
		}
		if e.root.JSON {
			return e.printJSON(page)
		}
		w := tabwriter.NewWriter(e.out, 0, 4, 2, ' ', 0)
		fmt.Fprintln(w, "AT\tKIND\tCODE\tBY\tWHAT")
		for _, a := range page.Activity {
			code := "-"
			if a.Code != nil {
				code = *a.Code
			}
			fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\n", time.Unix(a.At, 0).UTC().Format(time.RFC3339), a.Kind, code, a.Actor, a.Message)
		}
		if err := w.Flush(); err != nil {
			return err
		}
		if page.NextCursor != nil {
			fmt.Fprintf(e.out, "more: --cursor %s\n", *page.NextCursor)
		}
		return nil
	}
	st, err := cl.AccountSettings(e.ctx)
	if err != nil {
		return err
	}
	if e.root.JSON {
		return e.printJSON(st)
	}
	for _, line := range describeSettings(&st, time.Now()) {
		fmt.Fprintln(e.out, line)
	}
	return nil
}

// describeSettings says in words what the settings do.
func describeSettings(st *account.Settings, now time.Time) []string {
	w := &st.Wallet
	var out []string
	if w.Paused {
		out = append(out, "wallet: PAUSED: nothing is signed until a session resumes it")
	} else {
		out = append(out, "wallet: signing")
	}
	if len(w.Limits) == 0 {
		out = append(out, "caps: none")
	}
	for _, asset := range sortedKeys(w.Limits) {
		l := w.Limits[asset]
		out = append(out, fmt.Sprintf("caps on %s: %s per transaction, %s per 24 hours", asset, orNone(l.PerTransaction), orNone(l.Daily)))
	}
	out = append(out, fmt.Sprintf("price impact: at most %s%% per trade", w.MaxPriceImpact))
	if len(w.Recipients) == 0 {
		out = append(out, fmt.Sprintf("recipients: anyone (a recipient added waits %d hours)", w.RecipientCooldownHours))
	} else {
		out = append(out, fmt.Sprintf("recipients: only these (each added waits %d hours):", w.RecipientCooldownHours))
		for _, a := range sortedKeys(w.Recipients) {
			state := "active"
			if at := time.Unix(w.Recipients[a].ActiveAt, 0); now.Before(at) {
				state = "cooling down until " + at.UTC().Format(time.RFC3339)
			}
			out = append(out, fmt.Sprintf("  %s  %s", a, state))
		}
	}
	if x := w.Relax; x != nil {
		out = append(out, fmt.Sprintf("relaxed until %s", time.Unix(x.Until, 0).UTC().Format(time.RFC3339)))
	}
	a := &st.Agent
	tools := "all"
	if a.Tools != nil {
		tools = strings.Join(*a.Tools, ", ")
	}
	slippage := "the server's default"
	if a.Slippage != nil {
		slippage = a.Slippage.String() + "%"
	}
	out = append(out, fmt.Sprintf("agent: slippage %s, pairing %s, tools %s", slippage, orNone(a.Quote), tools))
	for _, asset := range sortedKeys(a.MaxTrade) {
		out = append(out, fmt.Sprintf("agent: trades of at most %s %s", a.MaxTrade[asset], asset))
	}
	return out
}

func orNone(s *string) string {
	if s == nil {
		return "none"
	}
	return *s
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
