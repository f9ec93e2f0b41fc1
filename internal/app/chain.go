package app

import (
	"context"
	"errors"
	"fmt"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/ethclient"

	"github.com/curvekit/curvekit/adapters/evm"
	"github.com/curvekit/curvekit/adapters/evm/devnet"
)

// wireChain connects to the chain: a real one over JSON-RPC, or the in-process devnet.
func (a *App) wireChain(ctx context.Context) error {
	var (
		client          evm.Client
		factory, router common.Address
	)
	if a.Config.RPCURL != "" {
		if !common.IsHexAddress(a.Config.Factory) || !common.IsHexAddress(a.Config.Router) {
			return errors.New("--factory and --router must be addresses")
		}
		c, err := ethclient.DialContext(ctx, a.Config.RPCURL)
		if err != nil {
			return fmt.Errorf("dial %s: %w", a.Config.RPCURL, err)
		}
		a.onClose(func() error { c.Close(); return nil })
		client, factory, router = c, common.HexToAddress(a.Config.Factory), common.HexToAddress(a.Config.Router)
	} else {
		d, err := devnet.Start(devnet.Config{})
		if err != nil {
			return fmt.Errorf("start devnet: %w", err)
		}
		a.onClose(d.Close)
		a.Devnet, client, factory, router = d, d.Client, d.Addrs.Factory, d.Addrs.Router
		a.Log.Info("devnet started", "chainId", d.ChainID, "factory", factory, "router", router,
			"ETH token", d.ETHToken.Token, "TUSD token", d.USDToken.Token, "graduated token", d.GraduatedToken.Token)
	}
	chain, err := evm.New(evm.Config{Client: client, Factory: factory, Router: router})
	if err != nil {
		return err
	}
	a.Chain, a.client, a.factory, a.router = chain, client, factory, router
	return nil
}
