package evm

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/curvekit/curvekit/wallet"
)

// simulator is a client with eth_simulateV1 (go-ethereum's client, and the Pool over such
// endpoints).
type simulator interface {
	SimulateV1(ctx context.Context, opts ethclient.SimulateOptions, block *rpc.BlockNumberOrHash) ([]ethclient.SimulateBlockResult, error)
}

// Simulate runs tx from from against the pending state. Where the node has eth_simulateV1 the
// result carries the call's logs and its traced ETH transfers; elsewhere it is an eth_call, which
// tells only whether it reverts, and an estimate of its gas.
func (b *Broadcaster) Simulate(ctx context.Context, from common.Address, tx *wallet.Tx) (wallet.Simulation, error) {
	to := tx.To
	msg := ethereum.CallMsg{From: from, To: &to, Value: tx.Value.ToBig(), Data: tx.Data, Gas: tx.Gas}
	if s, ok := b.client.(simulator); ok {
		sim, err := simulateV1(ctx, s, msg)
		if !errors.Is(err, errors.ErrUnsupported) {
			return sim, err
		}
	}
	_, err := b.client.CallContract(ctx, msg, nil)
	if err == nil {
		g, err := b.client.EstimateGas(ctx, msg)
		if err != nil {
			return wallet.Simulation{}, fmt.Errorf("evm: simulate: %w", err)
		}
		return wallet.Simulation{GasUsed: g}, nil
	}
	var de rpc.DataError
	if errors.As(err, &de) || strings.Contains(err.Error(), "revert") {
		sim := wallet.Simulation{Reverted: true, Reason: clientSafe(err.Error())}
		if de != nil {
			if s, ok := de.ErrorData().(string); ok {
				sim.RevertData, _ = hexutil.Decode(s)
			}
		}
		return sim, nil
	}
	return wallet.Simulation{}, fmt.Errorf("evm: simulate: %w", err)
}

// simulateV1 runs msg with eth_simulateV1 on the pending block, tracing ETH transfers; an
// endpoint without the method is errors.ErrUnsupported.
func simulateV1(ctx context.Context, s simulator, msg ethereum.CallMsg) (wallet.Simulation, error) {
	pending := rpc.BlockNumberOrHashWithNumber(rpc.PendingBlockNumber)
	res, err := s.SimulateV1(ctx, ethclient.SimulateOptions{
		BlockStateCalls: []ethclient.SimulateBlock{{Calls: []ethereum.CallMsg{msg}}}, TraceTransfers: true,
	}, &pending)
	if err != nil {
		var re rpc.Error
		if errors.As(err, &re) && re.ErrorCode() == -32601 { // method not found
			return wallet.Simulation{}, fmt.Errorf("evm: simulate: %w", errors.ErrUnsupported)
		}
		if errors.As(err, &re) && strings.Contains(err.Error(), "insufficient funds") {
			return wallet.Simulation{Reverted: true, Reason: clientSafe(err.Error())}, nil
		}
		return wallet.Simulation{}, fmt.Errorf("evm: simulate: %w", err)
	}
	if len(res) != 1 || len(res[0].Calls) != 1 {
		return wallet.Simulation{}, fmt.Errorf("evm: simulate: %d blocks in the answer", len(res))
	}
	c := res[0].Calls[0]
	sim := wallet.Simulation{GasUsed: c.GasUsed, Traced: true}
	for _, l := range c.Logs {
		if l != nil {
			sim.Logs = append(sim.Logs, *l)
		}
	}
	if c.Status == 0 {
		sim.Reverted, sim.RevertData = true, c.ReturnValue
		if c.Error != nil {
			sim.Reason = clientSafe(c.Error.Message)
			if len(sim.RevertData) == 0 && c.Error.Data != "" {
				sim.RevertData, _ = hexutil.Decode(c.Error.Data)
			}
		}
	}
	return sim, nil
}

// SimulateV1 runs eth_simulateV1 on an endpoint that has it.
func (p *Pool) SimulateV1(ctx context.Context, opts ethclient.SimulateOptions, block *rpc.BlockNumberOrHash) ([]ethclient.SimulateBlockResult, error) {
	return failover(ctx, p, need{}, func(c Client) ([]ethclient.SimulateBlockResult, error) {
		s, ok := c.(simulator)
		if !ok {
			return nil, fmt.Errorf("evm: simulate: %w", errors.ErrUnsupported)
		}
		return s.SimulateV1(ctx, opts, block)
	})
}
