package evm

import (
	"context"
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"

	"github.com/curvekit/curvekit/contracts/bindings"
	"github.com/curvekit/curvekit/market"
)

// PoolFactory is the pool factory the launch factory graduates curves into.
func (c *Chain) PoolFactory(ctx context.Context) (common.Address, error) {
	p, err := call(ctx, c, c.cfg.Factory, c.factory.PackPoolFactory(), c.factory.UnpackPoolFactory)
	if err != nil {
		return common.Address{}, fmt.Errorf("evm: the factory's pool factory: %w", err)
	}
	return p, nil
}

// PairingAssets are the pairing assets a launch may choose now: every asset the factory's
// owner set (QuoteAssetSet) since fromBlock, in the order first set, that the factory still
// enables (quoteAssetParams), with its symbol and decimals (native ETH as the zero address).
// The factory keeps no list, so its events are the list; the enabled flag is read from its
// state, so a later disable or re-enable is taken as it stands.
func (c *Chain) PairingAssets(ctx context.Context, fromBlock uint64) ([]market.Asset, error) {
	head, err := c.cfg.Client.BlockNumber(ctx)
	if err != nil {
		return nil, fmt.Errorf("evm: head: %w", err)
	}
	set := quoteAssetSet
	logs, err := c.filterLogs(ctx, ethereum.FilterQuery{Addresses: []common.Address{c.cfg.Factory}, Topics: [][]common.Hash{{set}}}, fromBlock, max(head, fromBlock))
	if err != nil {
		return nil, err
	}
	var out []market.Asset
	seen := map[common.Address]bool{}
	for i := range logs {
		ev, err := c.factory.UnpackQuoteAssetSetEvent(&logs[i])
		if err != nil || seen[ev.Asset] {
			continue
		}
		seen[ev.Asset] = true
		st, err := callAt(ctx, c, new(big.Int).SetUint64(head), c.cfg.Factory, c.factory.PackQuoteAssetParams(ev.Asset), c.factory.UnpackQuoteAssetParams)
		if err != nil {
			return nil, fmt.Errorf("evm: quote asset %s: %w", ev.Asset.Hex(), err)
		}
		if !st.Enabled {
			continue
		}
		a, err := c.Asset(ctx, ev.Asset)
		if err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	return out, nil
}

// quoteAssetSet is the topic of the factory's QuoteAssetSet event.
var quoteAssetSet = bindings.NewLaunchFactory().GetABI().Events["QuoteAssetSet"].ID
