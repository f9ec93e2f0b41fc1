package main

import (
	"context"
	"fmt"
	"math/big"
	"net/http"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/curvekit/curvekit/internal/pgtest"
)

// The daily cap across processes: two processes of the reference server's binary on one
// PostgreSQL, following the devnet over its JSON-RPC, share the account's wallet. Thirty sends
// at once, split between them, against a daily cap that holds nine: exactly nine are signed (the
// spend is checked and recorded with the nonce in one database transaction), their sum is within
// the cap to the wei, and the chain holds exactly those nine.
func TestDailyCapAcrossTwoProcesses(t *testing.T) {
	t.Parallel()
	dsn := pgtest.Schema(t, "dailycap")
	host := startServer(t, "--devnet-rpc-addr", "127.0.0.1:0")
	dev := host.app.dev
	keyFile := filepath.Join(t.TempDir(), "master.key")
	flags := []string{"--db", dsn, "--db-conns", "4", "--rpc-url", host.app.DevnetRPCURL(),
		"--factory", dev.Addrs.Factory.Hex(), "--router", dev.Addrs.Router.Hex(), "--master-key-file", keyFile}
	// The first creates the master key file; the second opens it.
	a := startProcess(t, flags...)
	b := startProcess(t, flags...)

	onA, m := a.signIn(t, "twoprocs")
	onB := *onA
	onB.s = b
	host.fund(t, m.User.Wallet, 3)
	key := onA.newKey(`{"name":"bot"}`).Key
	const daily = "100000000000000009" // 0.100000000000000009 ETH
	wantStatus(t, "set the cap on A", onA.do(http.MethodPatch, "/account/settings", `{"wallet":{"limits":{"ETH":{"daily":"0.100000000000000009"}}}}`), http.StatusOK)
	var seen struct {
		Wallet struct {
			Limits map[string]struct{ Daily *string }
		}
	}
	onB.do(http.MethodGet, "/account/settings", "").decode(t, &seen)
	if d := seen.Wallet.Limits["ETH"].Daily; d == nil || *d != "0.100000000000000009" {
		t.Fatalf("B reads the cap as %v", d)
	}

	// A fresh address receives every gift: its balance is what the wallet sent it.
	stranger := common.HexToAddress("0x00000000000000000000000000000000dac0ffee")
	const gift = 10_000_000_000_000_001 // 0.010000000000000001 ETH: nine fit, the tenth passes the cap
	body := fmt.Sprintf(`{"to":%q,"value":"%d","chainId":1337,"gas":"21000"}`, stranger.Hex(), gift)
	const n = 30
	statuses := make([]int, n)
	subs := make([]submission, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			on := a
			if i%2 == 1 {
				on = b
			}
			ans := on.anon(t, http.MethodPost, "/wallet/sign-and-submit", body, "X-API-Key", key)
			statuses[i] = ans.status
			switch ans.status {
			case http.StatusOK:
				ans.decode(t, &subs[i])
			case http.StatusTooManyRequests:
				wantCode(t, fmt.Sprintf("send %d", i), ans, http.StatusTooManyRequests, "DAILY_LIMIT_EXCEEDED")
			default:
				t.Errorf("send %d: %d %s", i, ans.status, ans.body)
			}
		})
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	signed := map[string]int{}
	var sum big.Int
	var hashes []common.Hash
	for i, st := range statuses {
		if st != http.StatusOK {
			continue
		}
		signed[map[bool]string{true: "A", false: "B"}[i%2 == 0]]++
		sum.Add(&sum, big.NewInt(gift))
		hashes = append(hashes, common.HexToHash(subs[i].Hash))
	}
	limit, _ := new(big.Int).SetString(daily, 10)
	if len(hashes) != 9 || sum.Cmp(limit) > 0 {
		t.Fatalf("%d signed (%v), %s wei in all; want exactly 9 within the daily cap of %s", len(hashes), signed, sum.String(), daily)
	}
	if signed["A"] == 0 || signed["B"] == 0 {
		t.Logf("every signed send went through one process: %v", signed)
	}

	// On the chain: the nine are mined, the wallet sent nothing else, the stranger holds the sum.
	ctx := context.Background()
	for _, h := range hashes {
		var r *types.Receipt
		for range 400 {
			var err error
			if r, err = dev.Client.TransactionReceipt(ctx, h); err == nil {
				break
			}
			time.Sleep(25 * time.Millisecond)
		}
		if r == nil || r.Status != types.ReceiptStatusSuccessful {
			t.Fatalf("%s was not mined: %+v", h, r)
		}
	}
	wallet := common.HexToAddress(m.User.Wallet)
	if sent, err := dev.Client.NonceAt(ctx, wallet, nil); err != nil || sent != uint64(len(hashes)) {
		t.Fatalf("the wallet sent %d transactions (%v), want %d", sent, err, len(hashes))
	}
	got, err := dev.Balance(ctx, common.Address{}, stranger)
	if err != nil {
		t.Fatal(err)
	}
	if got.Cmp(&sum) != 0 || got.Cmp(limit) > 0 {
		t.Fatalf("the stranger holds %s wei, want %s (cap %s)", got, sum.String(), daily)
	}
	t.Logf("30 sends split over two processes: %d signed (%v), %s wei on chain against a daily cap of %s wei", len(hashes), signed, got, daily)
}
