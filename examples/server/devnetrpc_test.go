package main

import (
	"context"
	"crypto/ecdsa"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"

	"github.com/curvekit/curvekit/adapters/evm"
	"github.com/curvekit/curvekit/contracts/bindings"
	"github.com/curvekit/curvekit/internal/app"
)

// rpcWallet signs with one key and sends over a chain's JSON-RPC, asking the node for nonce,
// gas and fees as MetaMask or cast do.
type rpcWallet struct {
	t    testing.TB
	c    *ethclient.Client
	key  *ecdsa.PrivateKey
	addr common.Address
}

// dialRPC dials url over its socket, as any wallet would.
func dialRPC(t testing.TB, url string) *ethclient.Client {
	t.Helper()
	if url == "" {
		t.Fatal("the server does not serve the devnet's JSON-RPC")
	}
	c, err := ethclient.Dial(url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

func newRPCWallet(t testing.TB, c *ethclient.Client, key *ecdsa.PrivateKey) rpcWallet {
	return rpcWallet{t: t, c: c, key: key, addr: crypto.PubkeyToAddress(key.PublicKey)}
}

// send signs and sends one transaction and waits for its receipt, which only the devnet's own
// mining can produce (the test servers simulate no trades); a revert fails the test.
func (w rpcWallet) send(to common.Address, value *big.Int, data []byte) *types.Receipt {
	w.t.Helper()
	ctx := context.Background()
	chainID, err := w.c.ChainID(ctx)
	if err != nil {
		w.t.Fatal(err)
	}
	nonce, err := w.c.PendingNonceAt(ctx, w.addr)
	if err != nil {
		w.t.Fatal(err)
	}
	gas, err := w.c.EstimateGas(ctx, ethereum.CallMsg{From: w.addr, To: &to, Value: value, Data: data})
	if err != nil {
		w.t.Fatalf("eth_estimateGas: %v", err)
	}
	tip, err := w.c.SuggestGasTipCap(ctx)
	if err != nil {
		w.t.Fatal(err)
	}
	head, err := w.c.HeaderByNumber(ctx, nil)
	if err != nil {
		w.t.Fatal(err)
	}
	tx, err := types.SignNewTx(w.key, types.LatestSignerForChainID(chainID), &types.DynamicFeeTx{
		ChainID: chainID, Nonce: nonce, GasTipCap: tip, GasFeeCap: new(big.Int).Add(tip, new(big.Int).Mul(head.BaseFee, big.NewInt(2))),
		Gas: gas, To: &to, Value: value, Data: data,
	})
	if err != nil {
		w.t.Fatal(err)
	}
	if err := w.c.SendTransaction(ctx, tx); err != nil {
		w.t.Fatalf("eth_sendRawTransaction: %v", err)
	}
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	for {
		r, err := w.c.TransactionReceipt(ctx, tx.Hash())
		if err == nil {
			if r.Status != types.ReceiptStatusSuccessful {
				w.t.Fatalf("%s reverted", tx.Hash())
			}
			return r
		}
		if !errors.Is(err, ethereum.NotFound) {
			w.t.Fatalf("eth_getTransactionReceipt: %v", err)
		}
		select {
		case <-ctx.Done():
			w.t.Fatalf("%s was never mined", tx.Hash())
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// sendBuilt sends what build-tx or the agent composed: the approval first when there is one.
func (w rpcWallet) sendBuilt(b buildTx) *types.Receipt {
	w.t.Helper()
	if b.Approval != nil {
		w.send(common.HexToAddress(b.Approval.To), decimalWei(w.t, b.Approval.Value), hexutil.MustDecode(b.Approval.Data))
	}
	return w.send(common.HexToAddress(b.To), decimalWei(w.t, b.Value), hexutil.MustDecode(b.Data))
}

func decimalWei(t testing.TB, s string) *big.Int {
	t.Helper()
	v, ok := new(big.Int).SetString(s, 10)
	if !ok || v.Sign() < 0 {
		t.Fatalf("value %q is not wei", s)
	}
	return v
}

// A buy composed by POST /tokens/:address/build-tx, signed by a devnet account and sent
// through the server's devnet JSON-RPC port, is mined without anyone calling Mine and indexed
// by the same server.
func TestDevnetRPCConfirmsBuildTx(t *testing.T) {
	t.Parallel()
	s := startServer(t, "--devnet-rpc-addr", "127.0.0.1:0")
	c := dialRPC(t, s.app.DevnetRPCURL())
	if id, err := c.ChainID(context.Background()); err != nil || id.Uint64() != 1337 {
		t.Fatalf("eth_chainId = %v, %v; want 1337", id, err)
	}
	w := newRPCWallet(t, c, s.app.dev.Accounts[5].Key)
	token := s.app.dev.ETHToken.Token
	b := s.build(t, token, w.addr.Hex(), "buy", "0.05", "1")
	if b.ChainID != 1337 {
		t.Fatalf("build-tx chainId %d", b.ChainID)
	}
	r := w.sendBuilt(b)
	tr := s.waitTrade(token, r.TxHash)
	if tr.Side != "buy" || tr.TokenAmount != b.Quote.AmountOut || tr.Block != r.BlockNumber.Uint64() {
		t.Fatalf("indexed %+v; built %+v, mined in block %d", tr, b.Quote, r.BlockNumber)
	}
}

// The README's path for an agent's transaction: fund the custodial wallet from a devnet
// account, export its key, and send exactly the to, data and value of the job's richData
// through the JSON-RPC port; the server indexes the trade.
func TestDevnetRPCConfirmsAgentTransaction(t *testing.T) {
	t.Parallel()
	s := startServer(t, "--devnet-rpc-addr", "127.0.0.1:0")
	c := dialRPC(t, s.app.DevnetRPCURL())
	br, m := s.signIn(t, "confirmer")
	wallet := common.HexToAddress(m.User.Wallet)
	newRPCWallet(t, c, s.app.dev.Accounts[8].Key).send(wallet, big.NewInt(1e18), nil)

	k := br.newKey(`{}`)
	j := s.pollJob(t, k.Key, s.submitJob(t, k.Key, "buy 0.01 ETH of DETH"))
	if j.Status != "completed" || len(j.RichData) != 1 {
		t.Fatalf("job %+v", j)
	}
	var tx struct {
		buildTx
		From string `json:"from"`
	}
	if err := json.Unmarshal(j.RichData[0], &tx); err != nil {
		t.Fatal(err)
	}
	if common.HexToAddress(tx.From) != wallet || tx.ChainID != 1337 || tx.To == "" {
		t.Fatalf("richData %s", j.RichData[0])
	}

	a := br.do(http.MethodPost, "/wallet/export-key", "")
	wantStatus(t, "export-key", a, http.StatusOK)
	var exported struct{ Wallet, PrivateKey string }
	a.decode(t, &exported)
	key, err := crypto.HexToECDSA(strings.TrimPrefix(exported.PrivateKey, "0x"))
	if err != nil {
		t.Fatal(err)
	}
	w := newRPCWallet(t, c, key)
	if w.addr != wallet {
		t.Fatalf("exported key of %s, wallet %s", w.addr, wallet)
	}
	r := w.sendBuilt(tx.buildTx)
	if tr := s.waitTrade(s.app.dev.ETHToken.Token, r.TxHash); tr.Side != "buy" {
		t.Fatalf("indexed %+v", tr)
	}
}

// The deploy acceptance point: the reference contracts deployed through the devnet's JSON-RPC
// port by evm.Deploy (what `curvekit deploy` runs), then a second server following that port
// with --rpc-url, --factory, --router and --start-block: a launch and trades sent through the
// port appear in its /tokens, /trades and /candles, and not in the first server's.
func TestDeployOverDevnetRPCThenFollow(t *testing.T) {
	t.Parallel()
	first := startServer(t, "--devnet-rpc-addr", "127.0.0.1:0")
	url := first.app.DevnetRPCURL()
	c := dialRPC(t, url)
	dev := first.app.dev
	ctx := context.Background()
	dep, err := evm.Deploy(ctx, evm.DeployParams{Client: c, Key: dev.Accounts[6].Key, Poll: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if dep.ChainID != 1337 || dep.Factory == dev.Addrs.Factory || dep.StartBlock == 0 {
		t.Fatalf("deployment %+v", dep)
	}
	// The second server is another process of the reference server's binary, as an operator
	// runs it after `curvekit deploy`.
	second := startProcess(t, "--rpc-url", url, "--factory", dep.Factory.Hex(), "--router", dep.Router.Hex(),
		"--start-block", fmt.Sprint(dep.StartBlock))

	creator := newRPCWallet(t, c, dev.Accounts[7].Key)
	lf := bindings.NewLaunchFactory()
	initial := big.NewInt(1e17)
	r := creator.send(dep.Factory, initial, lf.PackLaunch("Followed", "FLW", "ipfs://followed", common.Address{}, initial, big.NewInt(1)))
	var token common.Address
	for _, l := range r.Logs {
		if ev, err := lf.UnpackLaunchedEvent(l); err == nil && l.Address == dep.Factory {
			token = ev.Token
		}
	}
	if token == (common.Address{}) {
		t.Fatal("no Launched event")
	}
	launchTx := r.TxHash

	deadline := time.Now().Add(20 * time.Second)
	for {
		var page struct {
			Tokens []struct{ Address, Symbol, Creator string }
		}
		second.get("/tokens", &page)
		if len(page.Tokens) == 1 && common.HexToAddress(page.Tokens[0].Address) == token &&
			page.Tokens[0].Symbol == "FLW" && common.HexToAddress(page.Tokens[0].Creator) == creator.addr {
			break
		}
		if len(page.Tokens) > 1 || time.Now().After(deadline) {
			t.Fatalf("/tokens of the second server: %+v", page.Tokens)
		}
		time.Sleep(20 * time.Millisecond)
	}

	trader := newRPCWallet(t, c, dev.Accounts[8].Key)
	buy := second.build(t, token, trader.addr.Hex(), "buy", "0.2", "1")
	buyTx := trader.sendBuilt(buy).TxHash
	second.waitTrade(token, buyTx)
	sell := second.build(t, token, trader.addr.Hex(), "sell", "1000", "1")
	if sell.Approval == nil {
		t.Fatalf("a first sell needs an approval: %+v", sell)
	}
	sellTx := trader.sendBuilt(sell).TxHash
	second.waitTrade(token, sellTx)

	var trades struct{ Trades []trade }
	second.get("/tokens/"+token.Hex()+"/trades?limit=10", &trades)
	got := map[string]string{}
	for _, tr := range trades.Trades {
		got[tr.TxHash] = tr.Side
	}
	want := map[string]string{launchTx.Hex(): "buy", buyTx.Hex(): "buy", sellTx.Hex(): "sell"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("/trades: %v; want %v", got, want)
	}
	var ser series
	second.get("/tokens/"+token.Hex()+"/candles?res=1m", &ser)
	n := 0
	for _, b := range ser.Bars {
		n += b.Trades
	}
	last := ser.Bars[len(ser.Bars)-1]
	if n != len(want) || last.Close != trades.Trades[0].Price {
		t.Fatalf("candles %+v; want %d trades ending at %v", ser.Bars, len(want), trades.Trades[0].Price)
	}

	resp, err := http.Get(first.base + "/tokens/" + token.Hex())
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Fatalf("the devnet's own server knows the other factory's token: %d", resp.StatusCode)
	}
}

// --devnet-rpc-addr is refused on a non-loopback address without --devnet-rpc-public, and
// beside --rpc-url, where there is no devnet to serve.
func TestDevnetRPCAddrRefused(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name  string
		flags []string
		want  string
	}{
		{"all interfaces", []string{"--devnet-rpc-addr", "0.0.0.0:0"}, "--devnet-rpc-public"},
		{"no host", []string{"--devnet-rpc-addr", ":0"}, "--devnet-rpc-public"},
		{"real chain", []string{"--devnet-rpc-addr", "127.0.0.1:0", "--rpc-url", "http://127.0.0.1:1",
			"--factory", common.Address{1}.Hex(), "--router", common.Address{2}.Hex()}, "no meaning with --rpc-url"},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg, err := app.ParseConfig(append([]string{"--db", filepath.Join(t.TempDir(), "e2e.db"), "--simulate", "0"}, c.flags...))
			if err != nil {
				t.Fatal(err)
			}
			a, err := app.New(context.Background(), cfg, discardLogger())
			if err == nil {
				a.Close()
				t.Fatalf("%v started", c.flags)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Fatalf("%v: %v; want it to name %s", c.flags, err, c.want)
			}
		})
	}
}

// startProcess runs the reference server's binary, built from this package, with flags (a
// database and a free port of its own), waits until it is ready and stops it when the test ends.
// Only its HTTP API is reachable: the returned server has no app.
func startProcess(t testing.TB, flags ...string) *testServer {
	t.Helper()
	return startProcessEnv(t, nil, flags...).testServer
}

// process is a running server process.
type process struct {
	*testServer
	cmd  *exec.Cmd
	logs *syncBuffer
	// ended is closed when the process has ended, err then being cmd.Wait's error; crashed,
	// once set, says the test makes it end without a clean stop.
	ended   chan struct{}
	err     error
	crashed atomic.Bool
}

// startProcessEnv is startProcess with env added to the process's environment, answering the
// process itself: a test may stop, continue or expect to lose it.
func startProcessEnv(t testing.TB, env []string, flags ...string) *process {
	t.Helper()
	dir := t.TempDir()
	bin := mustServerBinary(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // the process binds it; a race for the port with another test is possible but harmless here
	logs := &syncBuffer{}
	cmd := exec.Command(bin, append([]string{"--addr", addr, "--db", filepath.Join(dir, "server.db"),
		"--simulate", "0", "--poll", "20ms", "--rate-limit", "100000000"}, flags...)...)
	cmd.Stdout, cmd.Stderr = logs, logs
	cmd.Env = append(os.Environ(), env...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &process{cmd: cmd, logs: logs, ended: make(chan struct{})}
	go func() { p.err = cmd.Wait(); close(p.ended) }()
	t.Cleanup(func() {
		if p.crashed.Load() {
			_ = cmd.Process.Kill()
			<-p.ended
			return
		}
		_ = cmd.Process.Signal(os.Interrupt)
		select {
		case <-p.ended:
			if p.err != nil {
				t.Errorf("the server process ended with %v:\n%s", p.err, logs.String())
			}
		case <-time.After(15 * time.Second):
			_ = cmd.Process.Kill()
			t.Errorf("the server process did not stop on SIGINT:\n%s", logs.String())
		}
	})
	base := "http://" + addr
	deadline := time.Now().Add(60 * time.Second)
	for {
		resp, err := http.Get(base + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("the server process is not ready after 60s:\n%s", logs.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	p.testServer = &testServer{t: t, base: base}
	return p
}
