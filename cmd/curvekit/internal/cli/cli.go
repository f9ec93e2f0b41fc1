// Package cli is the curvekit command line: its commands (kong), how each prints, and how
// errors become messages and exit codes. It speaks to the server only through
// adapters/apiclient and never calls sign-and-submit (SPEC 5 rule 9); `orders place` arms the
// account's wallet only as the person's explicit act.
package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/alecthomas/kong"
	"github.com/ethereum/go-ethereum/common"

	"github.com/curvekit/curvekit/adapters/apiclient"
	"github.com/curvekit/curvekit/adapters/evm"
)

// Exit codes; the command's package documentation lists them for users.
const (
	exitOK          = 0
	exitFailed      = 1
	exitUsage       = 2
	exitUnreachable = 3
	exitAuth        = 4
	exitForbidden   = 5
	exitThrottled   = 6
	exitNotFound    = 7
)

// root is the command tree. Global flags are accepted before or after the command.
type root struct {
	Server  string        `help:"Base URL of the curvekit server." default:"http://127.0.0.1:8080" env:"CURVEKIT_SERVER"`
	APIKey  string        `name:"api-key" help:"API key (svc_…) for the agent, orders, webhooks and mcp commands (market reads need none); prefer the environment variable." env:"CURVEKIT_API_KEY"`
	JSON    bool          `name:"json" help:"Print machine-readable JSON."`
	Timeout time.Duration `help:"Timeout of each request to the server." default:"30s" env:"CURVEKIT_TIMEOUT"`
	Retries int           `help:"Times a throttled (429) request is tried again, after growing random waits." default:"4" env:"CURVEKIT_RETRIES"`
	Chain   string        `name:"chain" type:"existingfile" help:"Chain profile (what deploy --out writes, the server's --chain): each command first checks that the server serves that chain (its chain id, factory and router), and stops with exit code 2 if not." env:"CURVEKIT_CHAIN"`

	Tokens   tokensCmd   `cmd:"" help:"List tokens."`
	Token    tokenCmd    `cmd:"" help:"Show one token."`
	Quote    quoteCmd    `cmd:"" help:"Price a buy or sell."`
	Candles  candlesCmd  `cmd:"" help:"Show a token's OHLCV bars as a table with a small chart."`
	Agent    agentCmd    `cmd:"" help:"Ask the agent: prompt, status, cancel, chat."`
	Orders   ordersCmd   `cmd:"" help:"Your standing orders: place, list, cancel (an API key that is not read-only places and cancels)."`
	Webhooks webhooksCmd `cmd:"" help:"Your webhooks: add, list, test, deliveries, rotate, delete (an API key that is not read-only changes them)."`
	Settings settingsCmd `cmd:"" help:"Your account's settings (the wallet's guard, the agent profile) in words, or --activity: the log of changes and refusals. Read only: a session changes them."`
	MCP      mcpCmd      `cmd:"" name:"mcp" help:"Serve the agent and market tools to an MCP client on stdio."`
	Deploy   deployCmd   `cmd:"" help:"Deploy the reference contracts to a chain and print what the server needs."`
	OpenAPI  openAPICmd  `cmd:"" name:"openapi" help:"Print the server's OpenAPI 3.1 document (to generate a client from)."`
}

// env is what every command's Run receives.
type env struct {
	ctx      context.Context
	root     *root
	in       io.Reader
	out, err io.Writer
}

// client is the API client for the global flags; with --chain, of a server checked to serve the
// profile's chain.
func (e *env) client() (*apiclient.Client, error) {
	retries := e.root.Retries
	if retries == 0 {
		retries = -1 // apiclient reads 0 as its default
	}
	c, err := apiclient.New(apiclient.Config{BaseURL: e.root.Server, APIKey: e.root.APIKey, Timeout: e.root.Timeout, Retries: retries, UserAgent: "curvekit-cli"})
	if err != nil || e.root.Chain == "" {
		return c, err
	}
	if err := checkChain(e.ctx, c, e.root.Chain, e.root.Server); err != nil {
		return nil, err
	}
	return c, nil
}

// checkChain holds the server's /config to the chain profile at path: the same chain id, and
// the profile's factory and router. A mismatch, or a profile that cannot be read, is a usage
// error (exit code 2), as the server's own --chain check is.
func checkChain(ctx context.Context, c *apiclient.Client, path, server string) error {
	p, err := evm.ReadProfile(path)
	if err != nil {
		return &exitError{code: exitUsage, err: fmt.Errorf("--chain: %w", err)}
	}
	st, err := c.Settings(ctx)
	if err != nil {
		return err
	}
	mismatch := func(what, served, want string) error {
		return &exitError{code: exitUsage, err: fmt.Errorf("--chain %s: the server at %s serves %s %s, the profile names %s", path, server, what, served, want)}
	}
	if st.ChainID != p.ChainID {
		return mismatch("chain id", strconv.FormatUint(st.ChainID, 10), strconv.FormatUint(p.ChainID, 10))
	}
	for _, k := range []struct {
		name string
		want common.Address
	}{{"factory", p.Factory}, {"router", p.Router}} {
		served := "none"
		if a := st.Contracts[k.name]; a != nil {
			served = *a
		}
		if !common.IsHexAddress(served) || common.HexToAddress(served) != k.want {
			return mismatch(k.name, served, k.want.Hex())
		}
	}
	return nil
}

// keyed is client for commands that need an API key: a missing key fails before any request.
func (e *env) keyed() (*apiclient.Client, error) {
	if e.root.APIKey == "" {
		return nil, apiclient.ErrNoKey
	}
	return e.client()
}

// printJSON writes v indented, for --json.
func (e *env) printJSON(v any) error {
	enc := json.NewEncoder(e.out)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// exitError carries its own exit code.
type exitError struct {
	code int
	err  error
}

func (x *exitError) Error() string { return x.err.Error() }
func (x *exitError) Unwrap() error { return x.err }

// Run runs the command line args and returns the process's exit code.
func Run(ctx context.Context, args []string, in io.Reader, out, errOut io.Writer) int {
	var r root
	exited := -1
	p, err := kong.New(&r,
		kong.Name("curvekit"),
		kong.Description("The curvekit command line: market reads, the agent, standing orders, MCP and deploy. Transactions are returned unsigned, for you to confirm in your wallet.\n\n"+
			"Exit codes: 0 done, 1 failed, 2 bad usage, 3 server unreachable, 4 API key missing or refused, 5 refused (403), 6 still throttled after retries (429), 7 not found (404)."),
		kong.Writers(out, errOut),
		kong.Exit(func(code int) { exited = code }),
		kong.UsageOnError(),
	)
	if err != nil {
		fmt.Fprintln(errOut, "curvekit:", err)
		return exitFailed
	}
	kctx, err := p.Parse(args)
	if exited >= 0 { // --help
		return exited
	}
	if err != nil {
		fmt.Fprintln(errOut, "curvekit:", err)
		return exitUsage
	}
	if kctx.Command() != "mcp" {
		// Everything printed from the server goes to a terminal: see terminal.
		tout, terr := newTerminal(out), newTerminal(errOut)
		defer tout.Flush()
		defer terr.Flush()
		out, errOut = tout, terr
	}
	e := &env{ctx: ctx, root: &r, in: in, out: out, err: errOut}
	if err := kctx.Run(e); err != nil {
		msg, code := explain(err)
		fmt.Fprintln(errOut, "curvekit:", msg)
		return code
	}
	return exitOK
}

// explain turns an error into a message a person can act on and an exit code.
func explain(err error) (string, int) {
	var x *exitError
	if errors.As(err, &x) {
		return x.Error(), x.code
	}
	if errors.Is(err, apiclient.ErrNoKey) {
		return "an API key is required: pass --api-key or set CURVEKIT_API_KEY (a signed-in account creates one with POST /api-keys)", exitAuth
	}
	if errors.Is(err, apiclient.ErrUnreachable) {
		return fmt.Sprintf("%v (is it running? set --server or CURVEKIT_SERVER)", err), exitUnreachable
	}
	if errors.Is(err, context.Canceled) {
		return "interrupted", exitFailed
	}
	var apiErr *apiclient.Error
	if errors.As(err, &apiErr) {
		switch apiErr.Status {
		case 401:
			return "the server refused the API key (401: " + msgOf(apiErr) + "): check --api-key or CURVEKIT_API_KEY; a revoked or mistyped key is refused", exitAuth
		case 403:
			return "forbidden (403" + codeOf(apiErr) + "): " + msgOf(apiErr), exitForbidden
		case 429:
			return err.Error() + "; try again later", exitThrottled
		case 404:
			return "not found (404): " + msgOf(apiErr), exitNotFound
		}
	}
	return err.Error(), exitFailed
}

// codeOf names the refusal's code, when the server gave one.
func codeOf(e *apiclient.Error) string {
	if e.Code == "" {
		return ""
	}
	return ", " + string(e.Code)
}

func msgOf(e *apiclient.Error) string {
	if len(e.Messages) == 0 {
		return "no message"
	}
	s := e.Messages[0]
	for _, m := range e.Messages[1:] {
		s += "; " + m
	}
	return s
}
