package evm

import (
	"context"
	"fmt"

	"github.com/curvekit/curvekit/launch"
)

// Chain serves the launch service too: LaunchFee and EstimateGas (evm.go) and GasPrice.
var _ launch.Chain = (*Chain)(nil)

// GasPrice reads the head's base fee and the tip the node suggests, for the launch fee estimate.
func (c *Chain) GasPrice(ctx context.Context) (launch.GasPrice, error) {
	tip, err := c.cfg.Client.SuggestGasTipCap(ctx)
	if err != nil {
		return launch.GasPrice{}, fmt.Errorf("evm: tip cap: %w", err)
	}
	head, err := c.cfg.Client.HeaderByNumber(ctx, nil)
	if err != nil {
		return launch.GasPrice{}, fmt.Errorf("evm: head: %w", err)
	}
	var p launch.GasPrice
	if head.BaseFee != nil {
		p.BaseFee = u256(head.BaseFee)
	}
	p.Tip = u256(tip)
	return p, nil
}
