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
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/alecthomas/kong"

	"github.com/curvekit/curvekit/internal/app"
)

func main() {
	var cfg app.Config
	kong.Parse(&cfg, kong.Name("server"), kong.Description("The curvekit reference server."))
	log, err := app.NewLogger(cfg.LogLevel)
	if err != nil {
		fmt.Fprintln(os.Stderr, "server:", err)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := app.Run(ctx, cfg, log); err != nil {
		log.Error("server stopped", "err", err)
		os.Exit(1)
	}
}
