// Package mcp serves curvekit's agent and market tools over the Model Context Protocol (the
// official go-sdk): list and read tokens, quote, compose unsigned buys, sells, launches and fee
// claims, and submit, read and cancel agent jobs. Every tool calls the public HTTP API through
// adapters/apiclient with the caller's API key, so a tool sees exactly what that key sees over
// HTTP, restrictions included. No tool signs or sends anything: transactions come back unsigned,
// for a person to confirm in a wallet (SPEC 5 rule 9).
//
// NewServer builds a server over one client (the command line's `curvekit mcp` on stdio);
// NewHandler serves remote MCP over the streamable HTTP transport, one client per request built
// from the request's key.
package mcp

import (
	"errors"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/curvekit/curvekit/adapters/apiclient"
)

// Config configures NewServer.
type Config struct {
	// Client calls the API; required.
	Client *apiclient.Client
	// Version is announced to MCP clients; default "dev".
	Version string
	// Wait tunes how compose_launch and compose_claim_fees wait for their agent job; default
	// polls every 1.5s for up to 2 minutes.
	Wait apiclient.WaitParams
	// SchemaCache shares tool schemas between servers built per request.
	SchemaCache *sdk.SchemaCache
}

func (c *Config) fill() error {
	if c.Client == nil {
		return errors.New("mcp: a client is required")
	}
	if c.Version == "" {
		c.Version = "dev"
	}
	if c.Wait.Interval <= 0 {
		c.Wait.Interval = 1500 * time.Millisecond
	}
	if c.Wait.Timeout <= 0 {
		c.Wait.Timeout = 2 * time.Minute
	}
	return nil
}

// Instructions tell the model on the other side how the tools fit together.
const Instructions = `curvekit: token launchpad market data and an agent. Every transaction a tool returns is UNSIGNED:
show it to the person and let them confirm it in their own wallet; nothing has been sent. Quote right
before composing, since prices move with every trade. An approval, when present, must be mined first.`

// NewServer returns an MCP server with every tool over cfg.Client.
func NewServer(cfg Config) (*sdk.Server, error) {
	if err := cfg.fill(); err != nil {
		return nil, err
	}
	s := sdk.NewServer(&sdk.Implementation{Name: "curvekit", Title: "curvekit", Version: cfg.Version}, &sdk.ServerOptions{
		Instructions: Instructions,
		SchemaCache:  cfg.SchemaCache,
	})
	t := &tools{c: cfg.Client, wait: cfg.Wait}
	t.register(s)
	return s, nil
}
