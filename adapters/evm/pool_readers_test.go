package evm_test

import (
	"errors"
	"testing"

	"github.com/curvekit/curvekit/adapters/evm"
	"github.com/curvekit/curvekit/adapters/evm/devnet"
)

// The pool reaches eth_feeHistory and the nonce at the head where its endpoints have them, so the
// custodial sender prices and tracks through several endpoints as through one; an endpoint
// without them says so.
func TestPoolFeeHistoryAndNonce(t *testing.T) {
	dev, err := devnet.Start(devnet.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer dev.Close()
	ctx := t.Context()
	pool, err := evm.NewPool(evm.PoolConfig{Endpoints: []evm.Endpoint{{Name: "devnet", Client: dev.Client}}})
	if err != nil {
		t.Fatal(err)
	}
	fh, err := pool.FeeHistory(ctx, 1, nil, []float64{})
	if err != nil || len(fh.BaseFee) != 2 || fh.BaseFee[1].Sign() <= 0 {
		t.Fatalf("fee history: %+v %v", fh, err)
	}
	acc := dev.Accounts[0].Address
	want, err := dev.Client.NonceAt(ctx, acc, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := pool.NonceAt(ctx, acc, nil); err != nil || got != want {
		t.Fatalf("nonce %d %v, want %d", got, err, want)
	}
	bare, err := evm.NewPool(evm.PoolConfig{Endpoints: []evm.Endpoint{{Name: "bare", Client: struct{ evm.Client }{dev.Client}}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := bare.NonceAt(ctx, acc, nil); !errors.Is(err, errors.ErrUnsupported) {
		t.Fatalf("an endpoint without NonceAt: %v", err)
	}
}

// The broadcaster prices the next block's base fee as eth_feeHistory gives it, through a pool
// as through the node's client, not the head's estimate.
func TestBroadcasterPricesFromFeeHistory(t *testing.T) {
	dev, err := devnet.Start(devnet.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer dev.Close()
	ctx := t.Context()
	// A full block moves the base fee; an empty one lowers it, so the head's estimate (up an
	// eighth) and the history differ.
	for range 3 {
		dev.Mine()
	}
	fh, err := dev.Client.FeeHistory(ctx, 1, nil, []float64{})
	if err != nil {
		t.Fatal(err)
	}
	want := fh.BaseFee[len(fh.BaseFee)-1]
	pool, err := evm.NewPool(evm.PoolConfig{Endpoints: []evm.Endpoint{{Name: "devnet", Client: dev.Client}}})
	if err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]evm.Client{"client": dev.Client, "pool": pool} {
		bc, err := evm.NewBroadcaster(evm.BroadcastConfig{Client: c})
		if err != nil {
			t.Fatal(err)
		}
		fees, err := bc.SuggestFees(ctx)
		if err != nil || fees.BaseFee.Cmp(want) != 0 {
			t.Errorf("%s: base fee %v %v, want %v from eth_feeHistory", name, fees.BaseFee, err, want)
		}
	}
}
