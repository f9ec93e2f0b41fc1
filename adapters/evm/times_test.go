package evm_test

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/curvekit/curvekit/adapters/evm"
	"github.com/curvekit/curvekit/market"
)

// countingHeaders counts the headers a client is asked for by hash.
type countingHeaders struct {
	evm.Client
	byHash atomic.Int64
}

func (c *countingHeaders) HeaderByHash(ctx context.Context, hash common.Hash) (*types.Header, error) {
	c.byHash.Add(1)
	return c.Client.HeaderByHash(ctx, hash)
}

// Events dates logs by their block's time without asking for a header that Block or Head has
// read, or that an earlier call read: a block's hash fixes its time.
func TestEventsDateLogsFromBlocksAlreadyRead(t *testing.T) {
	d := startDevnet(t)
	ctx := context.Background()
	client := &countingHeaders{Client: d.Client}
	chain, err := evm.New(evm.Config{Client: client, Factory: d.Addrs.Factory, Router: d.Addrs.Router})
	if err != nil {
		t.Fatal(err)
	}
	head := d.Backend.Head().Number.Uint64()
	trades := func(from, to uint64) []market.Event {
		t.Helper()
		evs, err := chain.Events(ctx, market.EventQuery{From: from, To: to, Kinds: []market.EventKind{market.EventTrade}, Addresses: []common.Address{d.ETHToken.Curve, d.GraduatedToken.Curve}})
		if err != nil || len(evs) == 0 {
			t.Fatalf("trades of blocks %d-%d: %v %v", from, to, evs, err)
		}
		return evs
	}
	all := trades(0, head)
	blocks := map[common.Hash]bool{}
	for _, ev := range all {
		blocks[ev.BlockHash] = true
	}
	if n := client.byHash.Load(); n != int64(len(blocks)) {
		t.Fatalf("%d headers asked for %d blocks with trades", n, len(blocks))
	}
	trades(0, head)
	if n := client.byHash.Load(); n != int64(len(blocks)) {
		t.Fatalf("%d headers asked after reading the same blocks again, want %d", n, len(blocks))
	}

	fresh, err := evm.New(evm.Config{Client: client, Factory: d.Addrs.Factory, Router: d.Addrs.Router})
	if err != nil {
		t.Fatal(err)
	}
	chain = fresh
	last := all[len(all)-1]
	b, err := chain.Block(ctx, last.Block)
	if err != nil {
		t.Fatal(err)
	}
	before := client.byHash.Load()
	for _, ev := range trades(last.Block, last.Block) {
		if ev.Time != b.Time || ev.Time != last.Time {
			t.Errorf("trade %s/%d dated %d, its block %d", ev.TxHash, ev.LogIndex, ev.Time, b.Time)
		}
	}
	if n := client.byHash.Load() - before; n != 0 {
		t.Errorf("%d headers asked for a block Block had read", n)
	}
}
