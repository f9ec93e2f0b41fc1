package evm_test

import (
	"context"
	"errors"
	"log/slog"
	"math/big"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/core/types"

	"github.com/curvekit/curvekit"
	"github.com/curvekit/curvekit/adapters/bunstore"
	"github.com/curvekit/curvekit/adapters/evm"
	"github.com/curvekit/curvekit/adapters/evm/rpcfault"
	"github.com/curvekit/curvekit/contracts/bindings"
	"github.com/curvekit/curvekit/wallet"
)

// A hosted node without eth_simulateV1 answers it -32601 "method not found": every send is
// still simulated, through eth_call. A buy past its deadline is refused with the curve's error
// decoded and nothing signed; a good buy is simulated, signed and mined. The same sends through
// a node with the method are traced, so the proxy is what made the difference.
func TestSimulationFallsBackToEthCall(t *testing.T) {
	t.Parallel()
	d, url := tradedChain(t, 1, 2)
	ctx := context.Background()
	crv := bindings.NewBondingCurve()
	for _, c := range []struct {
		name        string
		unsupported []string
	}{{"without eth_simulateV1", []string{"eth_simulateV1"}}, {"with eth_simulateV1", nil}} {
		t.Run(c.name, func(t *testing.T) {
			proxy := rpcfault.New(rpcfault.Config{Upstream: url, Unsupported: c.unsupported})
			srv := httptest.NewServer(proxy)
			t.Cleanup(srv.Close)
			client := dial(t, srv.URL)
			bc, err := evm.NewBroadcaster(evm.BroadcastConfig{Client: client})
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			db, err := bunstore.Open(ctx, bunstore.Config{DSN: filepath.Join(dir, "wallet.db")})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { db.Close() })
			ring, err := wallet.OpenKeyring(wallet.KeyringConfig{File: filepath.Join(dir, "master.key"), Create: true, Logger: slog.New(slog.DiscardHandler)})
			if err != nil {
				t.Fatal(err)
			}
			signer := &countingSigner{}
			svc, err := wallet.New(wallet.Config{Store: db.Wallets(), Broadcaster: bc, Keys: ring, Signer: signer})
			if err != nil {
				t.Fatal(err)
			}
			account := "acct-" + strings.ReplaceAll(c.name, " ", "-")
			addr, err := svc.Create(ctx, account)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := d.Send(ctx, d.Accounts[7].Key, &addr, big.NewInt(1e18), nil); err != nil {
				t.Fatal(err)
			}
			buy := func(deadline *big.Int) wallet.Tx {
				tx := wallet.Tx{To: d.ETHToken.Curve, Data: crv.PackBuy(big.NewInt(1e16), big.NewInt(1), deadline), ChainID: d.ChainID.Uint64()}
				tx.Value.SetUint64(1e16)
				return tx
			}

			_, err = svc.SignAndSubmit(ctx, wallet.SignParams{AccountID: account, Tx: buy(big.NewInt(1))})
			if curvekit.CodeOf(err) != curvekit.CodeSimulationReverted || !errors.Is(err, curvekit.ErrInvalid) {
				t.Fatalf("a buy past its deadline: %v (code %q), want SIMULATION_REVERTED", err, curvekit.CodeOf(err))
			}
			if !strings.Contains(err.Error(), "DeadlineExpired(deadline: 1, timestamp: ") {
				t.Fatalf("the revert is not decoded: %v", err)
			}
			if n := signer.n.Load(); n != 0 {
				t.Fatalf("a reverting send reached the signer %d times", n)
			}

			deadline, err := d.Deadline(ctx, time.Hour)
			if err != nil {
				t.Fatal(err)
			}
			sub, err := svc.SignAndSubmit(ctx, wallet.SignParams{AccountID: account, Tx: buy(deadline)})
			if err != nil {
				t.Fatalf("a good buy: %v", err)
			}
			if sub.Simulation == nil || sub.Simulation.Gas == 0 || signer.n.Load() != 1 {
				t.Fatalf("a good buy: simulation %+v, signed %d times", sub.Simulation, signer.n.Load())
			}
			var r *types.Receipt
			for range 200 {
				if r, err = client.TransactionReceipt(ctx, sub.Hash); err == nil {
					break
				}
				time.Sleep(10 * time.Millisecond)
			}
			if r == nil || r.Status != types.ReceiptStatusSuccessful {
				t.Fatalf("the good buy was not mined: %+v, %v", r, err)
			}

			calls, refused := proxy.Forwarded("eth_call"), proxy.Counts()["unsupported"]
			if c.unsupported != nil {
				// Each send asked eth_simulateV1 first, heard "method not found", and ran
				// eth_call instead; nothing was traced.
				if refused < 2 || calls < 2 || proxy.Forwarded("eth_simulateV1") != 0 || sub.Simulation.Traced {
					t.Fatalf("eth_simulateV1 refused %d times, eth_call forwarded %d, traced %v", refused, calls, sub.Simulation.Traced)
				}
				if len(sub.Simulation.BalanceChanges) == 0 {
					t.Fatalf("an untraced simulation still names the value leaving: %+v", sub.Simulation)
				}
			} else if refused != 0 || proxy.Forwarded("eth_simulateV1") < 2 || !sub.Simulation.Traced {
				t.Fatalf("with the method: refused %d, eth_simulateV1 forwarded %d, traced %v", refused, proxy.Forwarded("eth_simulateV1"), sub.Simulation.Traced)
			}
			t.Logf("%s: eth_simulateV1 refused %d, forwarded %d; eth_call forwarded %d; good buy gas %d, traced %v",
				c.name, refused, proxy.Forwarded("eth_simulateV1"), calls, sub.Simulation.Gas, sub.Simulation.Traced)
		})
	}
}
