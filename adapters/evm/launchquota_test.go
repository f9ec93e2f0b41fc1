package evm_test

import (
	"context"
	"errors"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/holiman/uint256"

	"github.com/curvekit/curvekit"
	"github.com/curvekit/curvekit/adapters/bunstore"
	"github.com/curvekit/curvekit/adapters/evm"
	"github.com/curvekit/curvekit/txbuild"
	"github.com/curvekit/curvekit/wallet"
)

// Two replicas' wallet services on one database sign eight launches of one wallet at once under a
// cap of three: three are signed and mine, the others are refused before the signer; a launch
// the chain refused first gave its slot back. On SQLite and on Postgres.
func TestCustodialLaunchCapAcrossReplicas(t *testing.T) {
	t.Parallel()
	t.Run("sqlite", func(t *testing.T) {
		t.Parallel()
		testLaunchCap(t, filepath.Join(t.TempDir(), "curvekit.db"))
	})
	t.Run("postgres", func(t *testing.T) {
		t.Parallel()
		testLaunchCap(t, postgresSchema(t))
	})
}

func testLaunchCap(t *testing.T, dsn string) {
	h := newHarness(t)
	ring, err := wallet.OpenKeyring(wallet.KeyringConfig{File: filepath.Join(t.TempDir(), "master.key"), Create: true})
	if err != nil {
		t.Fatal(err)
	}
	bc, err := evm.NewBroadcaster(evm.BroadcastConfig{Client: h.dev.Client})
	if err != nil {
		t.Fatal(err)
	}
	day := time.Now().UTC().Truncate(24 * time.Hour)
	// Nothing indexed: every launch counted is one the wallets signed.
	quota := wallet.LaunchesFunc(func(context.Context, common.Address) (wallet.LaunchQuota, error) {
		return wallet.LaunchQuota{Tier: curvekit.TierFree, Limit: 3, Day: day, ResetsAt: day.Add(24 * time.Hour)}, nil
	})
	signer := &countingSigner{}
	replicas := make([]*wallet.Service, 2)
	for i := range replicas {
		db, err := bunstore.Open(h.ctx, bunstore.Config{DSN: dsn})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		replicas[i], err = wallet.New(wallet.Config{Store: db.Wallets(), Broadcaster: stale{bc}, Keys: ring, Signer: signer,
			Factory: h.dev.Addrs.Factory, Launches: quota})
		if err != nil {
			t.Fatal(err)
		}
	}
	const account = "acct-launcher"
	addr, err := replicas[0].Create(h.ctx, account)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.dev.Send(h.ctx, h.dev.Accounts[7].Key, &addr, wei(1), nil); err != nil {
		t.Fatal(err)
	}
	fee, err := h.chain.LaunchFee(h.ctx)
	if err != nil {
		t.Fatal(err)
	}
	plan, err := h.builder.Launch(txbuild.Launch{From: addr, Name: "Capped", Symbol: "CAP", URI: "https://metadata.example/capped", LaunchFee: fee})
	if err != nil {
		t.Fatal(err)
	}
	launch := wallet.Tx{To: plan.Tx.To, Data: plan.Tx.Data, Value: plan.Tx.Value, ChainID: plan.Tx.ChainID, Gas: 3_000_000}

	// A first buy beyond the balance: signed, refused by the chain, its nonce and slot given back.
	broke := launch
	broke.Value.Add(&broke.Value, uint256.MustFromBig(wei(50)))
	if _, err := replicas[1].SignAndSubmit(h.ctx, wallet.SignParams{AccountID: account, Tx: broke}); !errors.Is(err, curvekit.ErrInvalid) {
		t.Fatalf("a launch beyond the balance: %v, want ErrInvalid", err)
	}

	const n = 8
	subs := make([]wallet.Submission, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			subs[i], errs[i] = replicas[i%2].SignAndSubmit(h.ctx, wallet.SignParams{AccountID: account, Tx: launch})
		})
	}
	wg.Wait()
	var sent []common.Hash
	nonces := map[uint64]bool{}
	for i := range n {
		switch {
		case errors.Is(errs[i], wallet.ErrLaunchLimit) && errors.Is(errs[i], curvekit.ErrLimited):
		case errs[i] != nil:
			t.Fatalf("launch %d: %v", i, errs[i])
		default:
			sent = append(sent, subs[i].Hash)
			nonces[subs[i].Nonce] = true
		}
	}
	if len(sent) != 3 || !nonces[0] || !nonces[1] || !nonces[2] {
		t.Fatalf("%d launches signed at nonces %v; want 3 at 0, 1 and 2", len(sent), nonces)
	}
	if got := signer.n.Load(); got != 4 {
		t.Fatalf("the signer signed %d transactions, want 4 (the refused first buy and 3 launches)", got)
	}
	c := &custodial{harness: h}
	c.mined(sent...)
}
