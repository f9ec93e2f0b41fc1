package cli

import (
	"fmt"
	"io"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/curvekit/curvekit/adapters/mcp"
)

type mcpCmd struct{}

// Run serves the MCP tools on stdin/stdout until the client closes them. Stdout carries the
// protocol alone, so anything said to a person goes to stderr.
func (c *mcpCmd) Run(e *env) error {
	cl, err := e.client()
	if err != nil {
		return err
	}
	s, err := mcp.NewServer(mcp.Config{Client: cl})
	if err != nil {
		return err
	}
	if !cl.HasKey() {
		fmt.Fprintln(e.err, "curvekit mcp: no API key (CURVEKIT_API_KEY): the market tools work; the agent tools will be refused")
	}
	return s.Run(e.ctx, &sdk.IOTransport{Reader: io.NopCloser(e.in), Writer: nopWriteCloser{e.out}})
}

// nopWriteCloser leaves closing stdout to the process.
type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
