// Package mcp serves curvekit's agent over the Model Context Protocol (the official go-sdk): the
// agent's own tools, exactly the set its planner calls (read and list tokens, quote, compose
// unsigned buys, sells, launches and fee claims, creator fees, earnings, the daily launch limit,
// remember and forget), listed from the server's GET /agent/tools with their JSON schemas, plus
// three tools for agent jobs: agent_submit_prompt, agent_get_job_status and agent_cancel_job.
// Every tool calls the public HTTP API through adapters/apiclient with the caller's API key, so a
// tool runs for the key's wallet and sees exactly what that key sees over HTTP, restrictions
// included. No tool signs or sends anything: transactions come back unsigned, for a person to
// confirm in a wallet (SPEC 5 rule 9).
//
// NewServer builds a server over one client (the command line's `curvekit mcp` on stdio);
// NewHandler serves remote MCP over the streamable HTTP transport, one client per request built
// from the request's key.
package mcp

import (
	"context"
	"errors"
	"fmt"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/curvekit/curvekit/adapters/apiclient"
)

// Config configures NewServer.
type Config struct {
	// Client calls the API with an API key; required.
	Client *apiclient.Client
	// Tools are the agent's tools to offer; nil lists them from the server through Client.
	Tools []apiclient.Tool
	// Version is announced to MCP clients; default "dev".
	Version string
	// SchemaCache shares the job tools' schemas between servers built per request.
	SchemaCache *sdk.SchemaCache
}

// Instructions tell the model on the other side how the tools fit together.
const Instructions = `curvekit: token launchpad market data and an agent, for the wallet of the API key in use. The
build_* tools return UNSIGNED transactions: show them to the person and let them confirm in their own
wallet; nothing has been sent. Quote right before composing, since prices move with every trade. An
approval, when present, must be mined first. agent_submit_prompt asks the agent in plain English
instead; read the job with agent_get_job_status every couple of seconds.`

// NewServer returns an MCP server with the agent's tools and the job tools over cfg.Client.
func NewServer(ctx context.Context, cfg Config) (*sdk.Server, error) {
	if cfg.Client == nil {
		return nil, errors.New("mcp: a client is required")
	}
	if cfg.Version == "" {
		cfg.Version = "dev"
	}
	if cfg.Tools == nil {
		var err error
		if cfg.Tools, err = cfg.Client.Tools(ctx); err != nil {
			return nil, fmt.Errorf("mcp: listing the agent's tools: %w", err)
		}
	}
	s := sdk.NewServer(&sdk.Implementation{Name: "curvekit", Title: "curvekit", Version: cfg.Version}, &sdk.ServerOptions{
		Instructions: Instructions,
		SchemaCache:  cfg.SchemaCache,
	})
	t := &tools{c: cfg.Client}
	if err := t.register(s, cfg.Tools); err != nil {
		return nil, err
	}
	return s, nil
}
