// Command server is the curvekit reference server: the public market API over HTTP, fed by an
// indexer that follows the chain into SQLite or PostgreSQL.
//
// With no flags it runs entirely on this machine: an in-process devnet chain with the reference
// contracts and three demo tokens, a SQLite file, the in-memory rate limiter, and a trade
// simulator that sends real trades to the devnet so the API shows live data that came through
// the indexer:
//
//	go run ./examples/server
//
// Every flag has an environment variable of the same meaning (CURVEKIT_ADDR, CURVEKIT_DB, ...);
// a flag given on the command line wins. `go run ./examples/server --help` lists them. The wiring
// itself lives in internal/app.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/alecthomas/kong"

	"github.com/curvekit/curvekit/internal/app"
)

// Exit codes.
const (
	exitFailed = 1 // the server failed while starting or running
	exitConfig = 2 // bad configuration, from a flag, the environment or a chain profile alike
)

func main() {
	var cfg app.Config
	parser, err := kong.New(&cfg, kong.Name("server"),
		kong.Description("The curvekit reference server. Exit codes: 0 stopped cleanly, 1 failed while starting or running, 2 bad configuration (a flag, an environment variable or a chain profile at odds with its node)."))
	if err != nil {
		fmt.Fprintln(os.Stderr, "server:", err)
		os.Exit(exitFailed)
	}
	if _, err := parser.Parse(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "server:", err, "(see --help)")
		os.Exit(exitConfig)
	}
	if err := cfg.Validate(); err != nil {
		fmt.Fprintln(os.Stderr, "server:", strings.ReplaceAll(err.Error(), "\n", "; "))
		os.Exit(exitConfig)
	}
	log, err := app.NewLogger(cfg.LogLevel)
	if err != nil {
		fmt.Fprintln(os.Stderr, "server:", err)
		os.Exit(exitConfig)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := app.Run(ctx, cfg, log); err != nil {
		log.Error("server stopped", "err", err)
		var bad *app.ConfigError
		if errors.As(err, &bad) {
			os.Exit(exitConfig) // a chain profile at odds with its node
		}
		os.Exit(exitFailed)
	}
}
