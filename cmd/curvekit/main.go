// Command curvekit is the command line of a curvekit server: market reads (tokens, token,
// quote, candles), the agent (prompt, status, cancel, chat), an MCP server on stdio for desktop
// MCP clients, and deploy, which puts the reference contracts on a chain.
//
//	go install ./cmd/curvekit       # in a clone of the repository
//	export CURVEKIT_SERVER=http://127.0.0.1:8080 CURVEKIT_API_KEY=svc_…
//	curvekit tokens --sort volume24h
//	curvekit agent prompt "buy 0.01 ETH of DETH"
//
// A desktop MCP client starts `curvekit mcp` as a command, for example in Claude Desktop's
// claude_desktop_config.json:
//
//	{"mcpServers": {"curvekit": {"command": "curvekit", "args": ["mcp"],
//	  "env": {"CURVEKIT_SERVER": "http://127.0.0.1:8080", "CURVEKIT_API_KEY": "svc_…"}}}}
//
// deploy puts WETH9, the pool factory, the router and the launch factory on a chain and prints
// the server's --factory, --router and --start-block:
//
//	curvekit deploy --rpc-url https://rpc.example --key-file deployer.key
//
// Nothing here signs or sends a transaction for you: the agent and MCP return unsigned
// transactions for you to confirm in your own wallet (deploy alone signs, with the key file you give it). `curvekit --help` lists every command;
// `--json` prints machine-readable output on any of them. Exit codes: 0 success, 1 failure, 2
// bad usage, 3 server unreachable, 4 missing or refused API key (401), 5 forbidden (403), 6
// still throttled (429) after backing off, 7 not found (404).
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/curvekit/curvekit/cmd/curvekit/internal/cli"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := cli.Run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
