package cli

import (
	"io"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/curvekit/curvekit/adapters/mcp"
)

type mcpCmd struct{}

// Run serves the MCP tools on stdin/stdout until the client closes them. Every tool runs for the
// API key's wallet, so the key is required, and the server is asked for the agent's tools before
// the protocol starts: a wrong key or server fails here, with its exit code. Stdout carries the
// protocol alone, so anything said to a person goes to stderr.
func (c *mcpCmd) Run(e *env) error {
	cl, err := e.keyed()
	if err != nil {
		return err
	}
	s, err := mcp.NewServer(e.ctx, mcp.Config{Client: cl})
	if err != nil {
		return err
	}
	return s.Run(e.ctx, &sdk.IOTransport{Reader: io.NopCloser(e.in), Writer: nopWriteCloser{e.out}})
}

// nopWriteCloser leaves closing stdout to the process.
type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
