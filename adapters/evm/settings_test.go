package evm_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/curvekit/curvekit/adapters/evm"
	"github.com/curvekit/curvekit/adapters/evm/devnet"
	"github.com/curvekit/curvekit/contracts/bindings"
	"github.com/curvekit/curvekit/market"
)

// The factory's pool factory and the pairing assets it enables are read from the chain: every
// asset its owner set, in that order, while it stays enabled.
func TestPairingAssetsFromTheChain(t *testing.T) {
	dev, err := devnet.Start(devnet.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer dev.Close()
	chain, err := evm.New(evm.Config{Client: dev.Client, Factory: dev.Addrs.Factory, Router: dev.Addrs.Router})
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	if pf, err := chain.PoolFactory(ctx); err != nil || pf != dev.Addrs.PoolFactory {
		t.Fatalf("pool factory %s %v, want %s", pf.Hex(), err, dev.Addrs.PoolFactory.Hex())
	}
	eth := market.Asset{Symbol: "ETH", Decimals: 18}
	tusd := market.Asset{Address: dev.Addrs.USD, Symbol: "TUSD", Decimals: 6}
	got, err := chain.PairingAssets(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]market.Asset{eth, tusd}, got); diff != "" {
		t.Fatalf("pairing assets (-want +got):\n%s", diff)
	}
	lf := bindings.NewLaunchFactory()
	if _, err := dev.Send(ctx, dev.Deployer.Key, &dev.Addrs.Factory, nil, lf.PackDisableQuoteAsset(dev.Addrs.USD)); err != nil {
		t.Fatal(err)
	}
	if got, err = chain.PairingAssets(ctx, 0); err != nil || !cmp.Equal([]market.Asset{eth}, got) {
		t.Fatalf("after TUSD was disabled: %+v %v", got, err)
	}
	if _, err := dev.Send(ctx, dev.Deployer.Key, &dev.Addrs.Factory, nil, lf.PackSetQuoteAsset(dev.Addrs.USD, devnet.DefaultUSDParams())); err != nil {
		t.Fatal(err)
	}
	if got, err = chain.PairingAssets(ctx, 0); err != nil || !cmp.Equal([]market.Asset{eth, tusd}, got) {
		t.Fatalf("after TUSD was enabled again: %+v %v", got, err)
	}
}
