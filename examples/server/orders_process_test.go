package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/curvekit/curvekit/adapters/bunstore"
	"github.com/curvekit/curvekit/internal/pgtest"
	"github.com/curvekit/curvekit/orders"
)

// orderView is what the test reads of GET /orders/:id.
type orderView struct {
	ID    string  `json:"id"`
	State string  `json:"state"`
	KeyID *string `json:"keyId"`
	Fires []struct {
		ID     string  `json:"id"`
		State  string  `json:"state"`
		TxHash *string `json:"txHash"`
	} `json:"fires"`
}

// role is the replica's role in GET /readyz ("leader" or "follower"); "" when it does not answer.
func (s *testServer) role() string {
	client := &http.Client{Timeout: 500 * time.Millisecond}
	resp, err := client.Get(s.base + "/readyz")
	if err != nil {
		return ""
	}
	defer resp.Body.Close()
	var body struct{ Replica replicaView }
	_ = json.NewDecoder(resp.Body).Decode(&body)
	return body.Replica.Role
}

// stopped reports whether the process is stopped (SIGSTOP), from /proc.
func (p *process) stopped() bool {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", p.cmd.Process.Pid))
	if err != nil {
		return false
	}
	// pid (comm) state …: the state follows the last ')'.
	s := string(raw)
	i := strings.LastIndexByte(s, ')')
	return i >= 0 && i+2 < len(s) && s[i+2] == 'T'
}

// holds turns a condition into eventually's error.
func holds(ok bool) error {
	if ok {
		return nil
	}
	return fmt.Errorf("not yet")
}

// Orders fire exactly once across real server processes on one PostgreSQL, following the devnet
// over its JSON-RPC, with the leader crashed and frozen at the worst moments. A leads and records
// both orders' fires, then dies (SIGKILL, armed by --fault orders.beforeSend:exit) before sending
// either. B takes the lease, sends the first fire and freezes (SIGSTOP, orders.afterSend:stop)
// before recording that it sent it, past its lease. C takes over: it sends the first fire again
// under the same key, which the wallet answers with B's transaction, and the second once; both
// fill. B, continued, finds its term ended and sends nothing. On the chain the wallet sent
// exactly two transactions, one per order, the ones the orders name.
func TestOrdersFireOnceAcrossCrashedAndFrozenLeaders(t *testing.T) {
	if testing.Short() {
		t.Skip("runs three server processes")
	}
	dsn := pgtest.Schema(t, "orderfaults")
	host := startServer(t, "--devnet-rpc-addr", "127.0.0.1:0")
	dev := host.app.dev
	flags := []string{"--db", dsn, "--db-conns", "4", "--rpc-url", host.app.DevnetRPCURL(), "--lease", "1s",
		"--factory", dev.Addrs.Factory.Hex(), "--router", dev.Addrs.Router.Hex(), "--master-key-file", filepath.Join(t.TempDir(), "master.key")}
	a := startProcessEnv(t, []string{"CURVEKIT_FAULT=orders.beforeSend:exit"}, flags...)
	a.crashed.Store(true)
	eventually(t, 30*time.Second, "A leads", func() error { return holds(a.role() == "leader") })
	b := startProcessEnv(t, []string{"CURVEKIT_FAULT=orders.afterSend:stop"}, flags...)
	b.crashed.Store(true)
	if r := b.role(); r != "follower" {
		t.Fatalf("B is %q while A leads", r)
	}

	// Wait until A indexed the demo token, then place two orders that fire at once: a limit
	// buy far above the price and a one-slice DCA.
	onA, m := a.signIn(t, "faults")
	wallet := common.HexToAddress(m.User.Wallet)
	host.fund(t, m.User.Wallet, 1)
	nk := onA.newKey(`{"name":"bot"}`)
	key := nk.Key
	token := dev.ETHToken.Token.Hex()
	eventually(t, 30*time.Second, "A indexed the demo token", func() error {
		return holds(a.anon(t, http.MethodGet, "/tokens/"+token, "").status == http.StatusOK)
	})
	var ids []string
	for _, body := range []string{
		`{"kind":"limit","token":"` + token + `","side":"buy","amount":"0.001","price":"1000","slippage":5}`,
		`{"kind":"dca","token":"` + token + `","side":"buy","amount":"0.002","every":"1h","times":1,"slippage":5}`,
	} {
		ans := a.anon(t, http.MethodPost, "/orders", body, "X-API-Key", key)
		wantStatus(t, "POST /orders", ans, http.StatusCreated)
		var o orderView
		ans.decode(t, &o)
		if o.KeyID == nil || *o.KeyID != nk.ID {
			t.Fatalf("the order placed with %s names the key %v", nk.ID, o.KeyID)
		}
		ids = append(ids, o.ID)
	}
	order := func(on *testServer, id string) orderView {
		t.Helper()
		ans := on.anon(t, http.MethodGet, "/orders/"+id, "", "X-API-Key", key)
		wantStatus(t, "GET /orders/"+id, ans, http.StatusOK)
		var o orderView
		ans.decode(t, &o)
		return o
	}

	// A records the fires and dies before sending.
	ctx := context.Background()
	select {
	case <-a.ended:
		if !strings.Contains(fmt.Sprint(a.err), "killed") {
			t.Fatalf("A ended with %v", a.err)
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("A did not reach the fault:\n%s", a.logs.String())
	}
	nonce := func() uint64 {
		n, err := dev.Client.NonceAt(ctx, wallet, nil)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	// What A left, read from the database (B may be frozen already, answering nothing): the
	// fires recorded, none recorded as sent.
	db, err := bunstore.Open(ctx, bunstore.Config{DSN: dsn, MaxOpenConns: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	left, err := db.Orders().Fires(ctx, orders.FireTriggered, orders.FireSent)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range left {
		if f.State != orders.FireTriggered || f.TxHash != (common.Hash{}) {
			t.Fatalf("A recorded a fire as sent: %+v", f)
		}
	}
	if len(left) == 0 || nonce() > 1 {
		t.Fatalf("after A's crash: %d fires recorded and unsent, the wallet sent %d", len(left), nonce())
	}

	// B takes over, sends the first fire and freezes before recording it.
	eventually(t, 30*time.Second, "B stops itself after its first send", func() error { return holds(b.stopped()) })
	// Its transaction is in the devnet's pool until the next block takes it.
	eventually(t, 10*time.Second, "B's transaction is mined", func() error { return holds(nonce() >= 1) })
	if n := nonce(); n != 1 {
		t.Fatalf("B froze with %d transactions sent, want 1", n)
	}
	c := startProcessEnv(t, nil, flags...)
	eventually(t, 60*time.Second, "every order filled", func() error {
		for _, id := range ids {
			if o := order(c.testServer, id); o.State != "filled" {
				return fmt.Errorf("%s is %s", id, o.State)
			}
		}
		return nil
	})
	if err := b.cmd.Process.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	eventually(t, 30*time.Second, "B answers again, as a follower", func() error { return holds(b.role() == "follower") })
	time.Sleep(2 * time.Second) // what B might still do, it does now

	// Exactly one transaction per order, on the chain: the wallet's nonce counts what it sent,
	// and each order's fire names a mined transaction of its own.
	hashes := map[string]bool{}
	for _, id := range ids {
		o := order(c.testServer, id)
		if o.State != "filled" || len(o.Fires) != 1 || o.Fires[0].State != "filled" || o.Fires[0].TxHash == nil {
			t.Fatalf("%s: %+v", id, o)
		}
		h := *o.Fires[0].TxHash
		r, err := dev.Client.TransactionReceipt(ctx, common.HexToHash(h))
		if err != nil || r.Status != types.ReceiptStatusSuccessful {
			t.Fatalf("%s's transaction %s: %+v %v", id, h, r, err)
		}
		tx, _, err := dev.Client.TransactionByHash(ctx, common.HexToHash(h))
		if err != nil {
			t.Fatal(err)
		}
		if from, err := types.Sender(types.LatestSignerForChainID(tx.ChainId()), tx); err != nil || from != wallet {
			t.Fatalf("%s's transaction is from %s (%v)", id, from, err)
		}
		hashes[h] = true
	}
	if n := nonce(); n != 2 || len(hashes) != 2 {
		t.Fatalf("the wallet sent %d transactions for %d orders (%d distinct)", n, len(ids), len(hashes))
	}
	if !strings.Contains(b.logs.String(), "fault injected") {
		t.Errorf("B never reached its fault:\n%s", b.logs.String())
	}
	t.Logf("A crashed between trigger and send, B froze after sending past its lease; C finished: 2 orders, 2 transactions on chain")
}
