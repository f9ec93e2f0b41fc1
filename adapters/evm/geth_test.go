package evm_test

import (
	"context"
	"math/big"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/holiman/uint256"

	"github.com/curvekit/curvekit/adapters/bunstore"
	"github.com/curvekit/curvekit/adapters/evm"
	"github.com/curvekit/curvekit/internal/gethtest"
	"github.com/curvekit/curvekit/wallet"
)

// On go-ethereum's own geth, a custodial transaction priced under the base fee on purpose waits
// in the node's pool; the tracker replaces it with the same nonce and bumped fees, the
// replacement is mined once, and the record shows it replaced, then mined under its second hash.
func TestCustodialReplacementOnGeth(t *testing.T) {
	gethtest.Require(t)
	node := gethtest.Start(t)
	client := node.Client()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	dir := t.TempDir()
	db, err := bunstore.Open(ctx, bunstore.Config{DSN: filepath.Join(dir, "curvekit.db")})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ring, err := wallet.OpenKeyring(wallet.KeyringConfig{File: filepath.Join(dir, "master.key"), Create: true})
	if err != nil {
		t.Fatal(err)
	}
	bc, err := evm.NewBroadcaster(evm.BroadcastConfig{Client: client})
	if err != nil {
		t.Fatal(err)
	}
	low := &lowFees{Broadcaster: bc}
	low.low.Store(1) // the first send only
	svc, err := wallet.New(wallet.Config{Store: db.Wallets(), Broadcaster: low, Keys: ring, ReplaceAfter: 2,
		MaxFeePerGas: big.NewInt(100_000_000_000)})
	if err != nil {
		t.Fatal(err)
	}
	from, err := svc.Create(ctx, "acct-geth")
	if err != nil {
		t.Fatal(err)
	}
	node.Fund(big.NewInt(1e18), from)
	id, err := client.ChainID(ctx)
	if err != nil {
		t.Fatal(err)
	}
	to := common.HexToAddress("0x000000000000000000000000000000000000c0de")
	before, err := client.BalanceAt(ctx, to, nil)
	if err != nil {
		t.Fatal(err)
	}
	const value = 12345
	sub, err := svc.SignAndSubmit(ctx, wallet.SignParams{AccountID: "acct-geth",
		Tx: wallet.Tx{To: to, Value: *uint256.NewInt(value), ChainID: id.Uint64(), Gas: 21_000}})
	if err != nil {
		t.Fatal(err)
	}

	var states []wallet.TxState
	var last wallet.Transaction
	for last.State != wallet.TxMined {
		if ctx.Err() != nil {
			t.Fatalf("not mined in time: states %v, last %+v\n%s", states, last, node.Tail(20))
		}
		time.Sleep(300 * time.Millisecond)
		if err := svc.TrackOnce(ctx); err != nil {
			t.Fatal(err)
		}
		page, err := svc.Transactions(ctx, "acct-geth", "", 10)
		if err != nil || len(page.Transactions) != 1 {
			t.Fatalf("transactions: %d %v", len(page.Transactions), err)
		}
		last = page.Transactions[0]
		if len(states) == 0 || states[len(states)-1] != last.State {
			states = append(states, last.State)
		}
	}
	if !slices.Equal(states, []wallet.TxState{wallet.TxPending, wallet.TxReplaced, wallet.TxMined}) {
		t.Errorf("states %v, want pending, replaced, mined", states)
	}
	if len(last.Hashes) != 2 || last.Hashes[0] != sub.Hash || last.Hash != last.Hashes[1] {
		t.Errorf("hashes %v (current %s), want the first and its replacement, mined", last.Hashes, last.Hash)
	}
	if _, err := client.TransactionReceipt(ctx, sub.Hash); err == nil {
		t.Errorf("the underpriced transaction was mined too")
	}
	nonce, err := client.NonceAt(ctx, from, nil)
	if err != nil || nonce != 1 {
		t.Errorf("the wallet's nonce %d %v, want 1: one transaction mined", nonce, err)
	}
	after, err := client.BalanceAt(ctx, to, nil)
	if err != nil || new(big.Int).Sub(after, before).Int64() != value {
		t.Errorf("the recipient received %v %v, want %d once", new(big.Int).Sub(after, before), err, value)
	}
}
