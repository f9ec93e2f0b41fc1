package agent

import (
	"context"
	"fmt"
	"strings"

	"github.com/curvekit/curvekit"
)

// RememberArgs stores a preference.
type RememberArgs struct {
	Key   string `json:"key" jsonschema:"a short lower-case name, e.g. slippage"`
	Value string `json:"value" jsonschema:"what to remember, e.g. 0.5%"`
}

// ForgetArgs deletes a preference.
type ForgetArgs struct {
	Key string `json:"key" jsonschema:"the name of the preference to forget"`
}

// errReadOnlyMemory refuses a memory write asked with a read-only key: a remembered slippage
// changes every trade the wallet's owner composes afterwards.
var errReadOnlyMemory = fmt.Errorf("%w: a read-only API key cannot change the agent's memory; use a session or a read-write key", curvekit.ErrForbidden)

func (s *Service) memoryTools() []Tool {
	return []Tool{
		NewTool("remember", "Remember a preference of the wallet owner for later turns (e.g. key slippage, value 0.5%).", false,
			func(ctx context.Context, c *Call, in RememberArgs) (ToolResult, error) {
				if c.ReadOnly {
					return ToolResult{}, errReadOnlyMemory
				}
				key, value := strings.ToLower(strings.TrimSpace(in.Key)), strings.TrimSpace(in.Value)
				if key == "slippage" {
					if _, err := slippage(value, nil, nil); err != nil {
						return ToolResult{}, err
					}
				}
				if err := s.Remember(ctx, c.Wallet, key, value); err != nil {
					return ToolResult{}, err
				}
				c.Memory[key] = value
				return ToolResult{Summary: fmt.Sprintf("I will remember %s: %s.", key, value), Data: map[string]string{key: value}}, nil
			}),
		NewTool("forget", "Forget a remembered preference.", false,
			func(ctx context.Context, c *Call, in ForgetArgs) (ToolResult, error) {
				if c.ReadOnly {
					return ToolResult{}, errReadOnlyMemory
				}
				key := strings.ToLower(strings.TrimSpace(in.Key))
				if err := s.Forget(ctx, c.Wallet, key); err != nil {
					return ToolResult{}, err
				}
				delete(c.Memory, key)
				return ToolResult{Summary: fmt.Sprintf("I forgot %s.", key)}, nil
			}),
	}
}

func (s *Service) buildTools() []Tool {
	tools := append(s.marketTools(), s.memoryTools()...)
	if s.cfg.Launcher != nil {
		tools = append(tools, s.launchTools()...)
	}
	if s.cfg.Orders != nil {
		tools = append(tools, s.orderTools()...)
	}
	return tools
}
