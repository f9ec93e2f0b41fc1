package cli

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/holiman/uint256"

	"github.com/curvekit/curvekit"
	"github.com/curvekit/curvekit/adapters/apiclient"
	"github.com/curvekit/curvekit/orders"
)

type agentCmd struct {
	Prompt promptCmd `cmd:"" help:"Submit a prompt, wait for the answer and print it with any unsigned transaction."`
	Status statusCmd `cmd:"" help:"Show a job."`
	Cancel cancelCmd `cmd:"" help:"Cancel a job that is still pending."`
	Chat   chatCmd   `cmd:"" help:"Talk with the agent on one thread, a line at a time (Ctrl-D or /quit ends)."`
}

// waitFlags are shared by the commands that wait for jobs.
type waitFlags struct {
	Thread   string        `help:"Continue this conversation thread."`
	Interval time.Duration `help:"Time between reads of the job." default:"1.5s"`
	Wait     time.Duration `help:"Give up waiting after this long (the job goes on)." default:"5m"`
}

type promptCmd struct {
	Text      []string `arg:"" help:"What to ask, e.g. \"buy 0.01 ETH of DETH\"."`
	waitFlags `embed:""`
}

func (c *promptCmd) Run(e *env) error {
	cl, err := e.keyed()
	if err != nil {
		return err
	}
	j, err := ask(e, cl, strings.Join(c.Text, " "), c.Thread, c.waitFlags)
	if err != nil {
		return err
	}
	if e.root.JSON {
		if err := e.printJSON(j); err != nil {
			return err
		}
	} else {
		printAnswer(e.out, j)
	}
	return jobOutcome(j)
}

// ask submits prompt and waits for the job, reporting progress on stderr: the job's id, each
// new status update, and the final state.
func ask(e *env, cl *apiclient.Client, prompt, thread string, f waitFlags) (apiclient.Job, error) {
	sub, err := cl.SubmitJob(e.ctx, apiclient.JobRequest{Prompt: prompt, ThreadID: thread})
	if err != nil {
		return apiclient.Job{}, err
	}
	fmt.Fprintf(e.err, "job %s (thread %s): %s\n", sub.JobID, sub.ThreadID, sub.Status)
	seen, status := 0, sub.Status
	return cl.WaitJob(e.ctx, sub.JobID, apiclient.WaitParams{Interval: f.Interval, Timeout: f.Wait, Progress: func(j apiclient.Job) {
		// What the job did comes before where it ended up, even when one poll sees both.
		for _, u := range j.StatusUpdates[min(seen, len(j.StatusUpdates)):] {
			fmt.Fprintf(e.err, "  … %s\n", u.Message)
		}
		seen = max(seen, len(j.StatusUpdates))
		if j.Status != status {
			status = j.Status
			fmt.Fprintf(e.err, "job %s: %s\n", j.JobID, status)
		}
	}})
}

// jobOutcome is nil for a completed job and an error saying why otherwise.
func jobOutcome(j apiclient.Job) error {
	switch j.Status {
	case apiclient.JobCompleted:
		return nil
	case apiclient.JobFailed:
		return fmt.Errorf("the agent job %s failed: %s", j.JobID, j.Error)
	default:
		return fmt.Errorf("the agent job %s is %s", j.JobID, j.Status)
	}
}

// printAnswer prints a job's answer, its unsigned transactions for the person to confirm and the
// orders it proposed, each with the command that places it.
func printAnswer(w io.Writer, j apiclient.Job) {
	if j.Response != "" {
		fmt.Fprintln(w, j.Response)
	}
	var txs []apiclient.Tx
	var proposed []apiclient.OrderProposal
	for _, it := range j.RichData {
		switch {
		case it.Order != nil:
			proposed = append(proposed, *it.Order)
		case it.Tx != nil:
			txs = append(txs, *it.Tx)
		}
	}
	for i, tx := range txs {
		fmt.Fprintf(w, "\nUnsigned transaction %d of %d: %s\n", i+1, len(txs), tx.Description)
		fmt.Fprintln(w, "Nothing was signed or sent: review it and confirm it in your own wallet.")
		if tx.Approval != nil {
			fmt.Fprintln(w, "First, the approval (mine it before the transaction):")
			printTx(w, *tx.Approval)
			fmt.Fprintln(w, "Then the transaction:")
		}
		printTx(w, tx)
	}
	for i, o := range proposed {
		fmt.Fprintf(w, "\nProposed order %d of %d: %s\n", i+1, len(proposed), o.Description)
		fmt.Fprintln(w, "Nothing is armed: review it and place it yourself with")
		fmt.Fprintf(w, "  %s\n", placeCommand(&o.Order))
	}
}

// placeCommand is the command line that places r: `curvekit orders place` with r's fields.
func placeCommand(r *orders.Request) string {
	args := []string{"curvekit", "orders", "place", r.Kind, r.Token}
	flag := func(name, v string) {
		if v != "" {
			args = append(args, "--"+name, v)
		}
	}
	num := func(f *float64) string {
		if f == nil {
			return ""
		}
		return strconv.FormatFloat(*f, 'f', -1, 64)
	}
	count := func(n int) string {
		if n == 0 {
			return ""
		}
		return strconv.Itoa(n)
	}
	flag("side", r.Side)
	flag("amount", r.Amount)
	flag("percent", num(r.Percent))
	flag("price", r.Price)
	flag("trail", num(r.Trail))
	flag("slippage", num(r.Slippage))
	flag("every", r.Every)
	flag("times", count(r.Times))
	flag("total", r.Total)
	flag("over", r.Over)
	flag("slices", count(r.Slices))
	flag("expires-at", r.ExpiresAt)
	return strings.Join(args, " ")
}

func printTx(w io.Writer, tx apiclient.Tx) {
	fmt.Fprintf(w, "  chainId  %d\n", tx.ChainID)
	if tx.From != "" {
		fmt.Fprintf(w, "  from     %s\n", tx.From)
	}
	fmt.Fprintf(w, "  to       %s\n", tx.To)
	if v, err := uint256.FromDecimal(tx.Value); err == nil && !v.IsZero() {
		fmt.Fprintf(w, "  value    %s wei (%s ETH)\n", tx.Value, curvekit.FormatAmount(v, 18))
	} else {
		fmt.Fprintf(w, "  value    %s wei\n", tx.Value)
	}
	if tx.Gas != "" {
		fmt.Fprintf(w, "  gas      %s\n", tx.Gas)
	}
	fmt.Fprintf(w, "  data     %s\n", tx.Data)
}

type statusCmd struct {
	ID string `arg:"" help:"The job's id."`
}

func (c *statusCmd) Run(e *env) error {
	cl, err := e.keyed()
	if err != nil {
		return err
	}
	j, err := cl.Job(e.ctx, c.ID)
	if err != nil {
		return err
	}
	if e.root.JSON {
		return e.printJSON(j)
	}
	fmt.Fprintf(e.out, "job %s: %s (thread %s, created %s)\n", j.JobID, j.Status, j.ThreadID, j.CreatedAt)
	fmt.Fprintf(e.out, "prompt: %s\n", j.Prompt)
	for _, u := range j.StatusUpdates {
		fmt.Fprintf(e.out, "  %s  %s\n", u.Timestamp, u.Message)
	}
	if j.Error != "" {
		fmt.Fprintf(e.out, "error: %s\n", j.Error)
	}
	if j.Status == apiclient.JobCompleted {
		fmt.Fprintln(e.out)
		printAnswer(e.out, j)
	}
	return nil
}

type cancelCmd struct {
	ID string `arg:"" help:"The job's id."`
}

func (c *cancelCmd) Run(e *env) error {
	cl, err := e.keyed()
	if err != nil {
		return err
	}
	j, err := cl.CancelJob(e.ctx, c.ID)
	if err != nil {
		return err
	}
	if e.root.JSON {
		return e.printJSON(j)
	}
	fmt.Fprintf(e.out, "job %s: %s\n", j.JobID, j.Status)
	return nil
}

type chatCmd struct {
	waitFlags `embed:""`
}

// Run reads one prompt per line and answers each on the same thread; a failed turn is
// reported and the conversation goes on.
func (c *chatCmd) Run(e *env) error {
	cl, err := e.keyed()
	if err != nil {
		return err
	}
	thread := c.Thread
	in := bufio.NewScanner(e.in)
	in.Buffer(make([]byte, 0, 4096), 64*1024)
	if !e.root.JSON {
		fmt.Fprintln(e.err, "Talking to the curvekit agent; transactions come back unsigned for you to confirm. /quit ends.")
	}
	for {
		if !e.root.JSON {
			fmt.Fprint(e.err, "you> ")
		}
		if !in.Scan() {
			if !e.root.JSON {
				fmt.Fprintln(e.err)
			}
			return in.Err()
		}
		line := strings.TrimSpace(in.Text())
		switch line {
		case "":
			continue
		case "/quit", "/exit":
			return nil
		}
		j, err := ask(e, cl, line, thread, c.waitFlags)
		if err != nil {
			var apiErr *apiclient.Error
			// A refused key or an unreachable server ends the chat; anything else (a throttle, a
			// prompt the server refused) is said and the chat goes on.
			if errors.Is(err, apiclient.ErrUnreachable) || (errors.As(err, &apiErr) && (apiErr.Status == 401 || apiErr.Status == 403)) {
				return err
			}
			fmt.Fprintln(e.err, "curvekit:", err)
			continue
		}
		if j.ThreadID != "" {
			thread = j.ThreadID
		}
		if e.root.JSON {
			if err := e.printJSON(j); err != nil {
				return err
			}
			continue
		}
		if err := jobOutcome(j); err != nil {
			fmt.Fprintln(e.err, "curvekit:", err)
			continue
		}
		fmt.Fprint(e.out, "agent> ")
		printAnswer(e.out, j)
	}
}
