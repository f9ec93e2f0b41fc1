package devnet

import (
	"context"
	"crypto/ecdsa"
	"errors"
	"io"
	"math/big"
	"net"
	"net/http"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/rpc"
)

// serveRPC serves d's JSON-RPC on a free loopback port until the test ends and returns its
// address; the test fails if ServeRPC ends with an error.
func serveRPC(t testing.TB, d *Devnet) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- d.ServeRPC(ctx, ln) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("ServeRPC: %v", err)
		}
	})
	return ln.Addr().String()
}

func dial(t testing.TB, url string) *ethclient.Client {
	t.Helper()
	c, err := ethclient.Dial(url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

// signed signs an EIP-1559 transaction from key with what a wallet asks the node for: nonce,
// gas estimate, tip and base fee, all over c.
func signed(t testing.TB, c *ethclient.Client, key *ecdsa.PrivateKey, to common.Address, value *big.Int, data []byte) *types.Transaction {
	t.Helper()
	ctx := context.Background()
	from := crypto.PubkeyToAddress(key.PublicKey)
	nonce, err := c.PendingNonceAt(ctx, from)
	if err != nil {
		t.Fatal(err)
	}
	return signedWithNonce(t, c, key, nonce, to, value, data)
}

func signedWithNonce(t testing.TB, c *ethclient.Client, key *ecdsa.PrivateKey, nonce uint64, to common.Address, value *big.Int, data []byte) *types.Transaction {
	t.Helper()
	ctx := context.Background()
	from := crypto.PubkeyToAddress(key.PublicKey)
	chainID, err := c.ChainID(ctx)
	if err != nil {
		t.Fatal(err)
	}
	gas, err := c.EstimateGas(ctx, ethereum.CallMsg{From: from, To: &to, Value: value, Data: data})
	if err != nil {
		t.Fatalf("eth_estimateGas: %v", err)
	}
	tip, err := c.SuggestGasTipCap(ctx)
	if err != nil {
		t.Fatal(err)
	}
	head, err := c.HeaderByNumber(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	tx, err := types.SignNewTx(key, types.LatestSignerForChainID(chainID), &types.DynamicFeeTx{
		ChainID: chainID, Nonce: nonce, GasTipCap: tip, GasFeeCap: new(big.Int).Add(tip, new(big.Int).Mul(head.BaseFee, big.NewInt(2))),
		Gas: gas, To: &to, Value: value, Data: data,
	})
	if err != nil {
		t.Fatal(err)
	}
	return tx
}

// receipt polls eth_getTransactionReceipt until the transaction is mined; nobody else mines.
func receipt(t testing.TB, c *ethclient.Client, hash common.Hash) *types.Receipt {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for {
		r, err := c.TransactionReceipt(ctx, hash)
		if err == nil {
			return r
		}
		if !errors.Is(err, ethereum.NotFound) {
			t.Fatalf("receipt of %s: %v", hash, err)
		}
		select {
		case <-ctx.Done():
			t.Fatalf("%s was never mined", hash)
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// TestServeRPC reaches the devnet as a wallet does, over a socket: chain id 1337, a buy signed
// by a devnet account sent with eth_sendRawTransaction is mined without anyone calling Mine,
// and its receipt, logs, the call and the estimate that preceded it are served; a WebSocket
// subscriber sees its block.
func TestServeRPC(t *testing.T) {
	t.Parallel()
	d := start(t)
	addr := serveRPC(t, d)
	c := dial(t, "http://"+addr)
	ctx := context.Background()

	id, err := c.ChainID(ctx)
	if err != nil || id.Uint64() != 1337 {
		t.Fatalf("eth_chainId = %v, %v; want 1337", id, err)
	}
	if network, err := c.NetworkID(ctx); err != nil || network.Uint64() != 1337 {
		t.Fatalf("net_version = %v, %v; want 1337", network, err)
	}
	var version string
	if err := c.Client().CallContext(ctx, &version, "web3_clientVersion"); err != nil || !strings.HasPrefix(version, "curvekit-devnet/") {
		t.Fatalf("web3_clientVersion = %q, %v", version, err)
	}
	var accounts []common.Address
	if err := c.Client().CallContext(ctx, &accounts, "eth_accounts"); err != nil || len(accounts) != 0 {
		t.Fatalf("eth_accounts = %v, %v; the node holds no keys", accounts, err)
	}

	ws := dial(t, "ws://"+addr)
	heads := make(chan *types.Header, 16)
	headSub, err := ws.SubscribeNewHead(ctx, heads)
	if err != nil {
		t.Fatalf("eth_subscribe newHeads: %v", err)
	}
	defer headSub.Unsubscribe()

	buyer := d.Accounts[5]
	in := new(big.Int).Div(oneETH, big.NewInt(10))
	dl := deadline(t, d)
	m := modelOf(t, d, d.ETHToken.Curve)
	_, wantOut, _, _, _ := m.buy(in)
	// eth_call of the curve's own preview agrees with the model before anything is sent.
	raw, err := c.CallContract(ctx, ethereum.CallMsg{From: buyer.Address, To: &d.ETHToken.Curve, Data: curveB.PackPreviewBuy(in)}, nil)
	if err != nil {
		t.Fatalf("eth_call: %v", err)
	}
	preview, err := curveB.UnpackPreviewBuy(raw)
	if err != nil {
		t.Fatal(err)
	}
	eq(t, "previewBuy over JSON-RPC", preview.TokensOut, wantOut)
	before := balance(t, d, d.ETHToken.Token, buyer.Address)

	tx := signed(t, c, buyer.Key, d.ETHToken.Curve, in, curveB.PackBuy(in, big.NewInt(1), dl))
	if err := c.SendTransaction(ctx, tx); err != nil {
		t.Fatalf("eth_sendRawTransaction: %v", err)
	}
	r := receipt(t, c, tx.Hash())
	if r.Status != types.ReceiptStatusSuccessful {
		t.Fatalf("buy reverted: %+v", r)
	}
	eq(t, "tokens bought", sub(balance(t, d, d.ETHToken.Token, buyer.Address), before), wantOut)
	block, err := c.BlockByNumber(ctx, r.BlockNumber)
	if err != nil || len(block.Transactions()) != 1 || block.Transactions()[0].Hash() != tx.Hash() {
		t.Fatalf("block %v holds %v (%v); want only the buy", r.BlockNumber, block, err)
	}
	logs, err := c.FilterLogs(ctx, ethereum.FilterQuery{FromBlock: r.BlockNumber, ToBlock: r.BlockNumber, Addresses: []common.Address{d.ETHToken.Curve}})
	if err != nil {
		t.Fatalf("eth_getLogs: %v", err)
	}
	var trades int
	for _, l := range logs {
		if ev, err := curveB.UnpackTradeEvent(&l); err == nil && ev.Trader == buyer.Address && ev.IsBuy {
			eq(t, "Trade event tokens", ev.TokenAmount, wantOut)
			trades++
		}
	}
	if trades != 1 {
		t.Fatalf("eth_getLogs gave %d buys by %s in %d logs", trades, buyer.Address, len(logs))
	}
	for {
		select {
		case h := <-heads:
			if h.Number.Cmp(r.BlockNumber) < 0 {
				continue
			}
			if h.Hash() != r.BlockHash {
				t.Fatalf("newHeads gave %d %s; want the buy's block %s", h.Number, h.Hash(), r.BlockHash)
			}
		case err := <-headSub.Err():
			t.Fatalf("subscription: %v", err)
		case <-time.After(20 * time.Second):
			t.Fatal("no newHeads notification for the buy's block")
		}
		break
	}

	// A transaction that would revert is refused at estimation, with the reason.
	if _, err := c.EstimateGas(ctx, ethereum.CallMsg{From: buyer.Address, To: &d.ETHToken.Curve, Data: curveB.PackSell(oneETH, big.NewInt(1), big.NewInt(1))}); err == nil {
		t.Fatal("eth_estimateGas of a sell past its deadline succeeded")
	}
}

// TestServeRPCOnlyPublicNamespaces: nothing that administers the node, traces, reads the pool
// or holds keys is served, and the node cannot sign.
func TestServeRPCOnlyPublicNamespaces(t *testing.T) {
	t.Parallel()
	d := start(t)
	c := dial(t, "http://"+serveRPC(t, d))
	ctx := context.Background()
	for _, call := range []struct {
		method string
		args   []any
	}{
		{"admin_nodeInfo", nil},
		{"admin_addPeer", []any{"enode://x"}},
		{"debug_traceTransaction", []any{common.Hash{}}},
		{"debug_setHead", []any{"0x1"}},
		{"miner_setExtra", []any{"x"}},
		{"txpool_content", nil},
		{"personal_listAccounts", nil},
		{"engine_forkchoiceUpdatedV3", []any{map[string]any{}, nil}},
	} {
		var out any
		err := c.Client().CallContext(ctx, &out, call.method, call.args...)
		var re rpc.Error
		if !errors.As(err, &re) || re.ErrorCode() != -32601 {
			t.Errorf("%s: %v (%v); want method not found", call.method, err, out)
		}
	}
	var hash common.Hash
	err := c.Client().CallContext(ctx, &hash, "eth_sendTransaction", map[string]any{"from": d.Accounts[5].Address, "to": dead, "value": "0x1"})
	if err == nil {
		t.Fatalf("eth_sendTransaction signed %s", hash)
	}
}

// TestServeRPCAnswersBrowsers: a browser's CORS preflight and the call after it are allowed
// from any origin.
func TestServeRPCAnswersBrowsers(t *testing.T) {
	t.Parallel()
	d := start(t)
	url := "http://" + serveRPC(t, d)
	pre, err := http.NewRequest(http.MethodOptions, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	pre.Header.Set("Origin", "chrome-extension://wallet")
	pre.Header.Set("Access-Control-Request-Method", "POST")
	pre.Header.Set("Access-Control-Request-Headers", "content-type")
	resp, err := http.DefaultClient.Do(pre)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent || resp.Header.Get("Access-Control-Allow-Origin") != "*" ||
		resp.Header.Get("Access-Control-Allow-Headers") != "content-type" || !strings.Contains(resp.Header.Get("Access-Control-Allow-Methods"), "POST") {
		t.Fatalf("preflight: %d %v", resp.StatusCode, resp.Header)
	}
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}`))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Origin", "https://dapp.example")
	req.Header.Set("Content-Type", "application/json")
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.Header.Get("Access-Control-Allow-Origin") != "*" || !strings.Contains(string(body), `"result":"0x539"`) {
		t.Fatalf("eth_chainId from a page: %v %s", resp.Header, body)
	}
}

// TestServeRPCMinesBesideSend: transactions arriving over JSON-RPC in bursts, while Send seals
// its own one at a time (as the server's trade simulator does), all mine, and no block is
// empty: nothing is sealed twice.
func TestServeRPCMinesBesideSend(t *testing.T) {
	t.Parallel()
	d := start(t)
	c := dial(t, "http://"+serveRPC(t, d))
	ctx := context.Background()
	first, err := c.BlockNumber(ctx)
	if err != nil {
		t.Fatal(err)
	}

	const sends, bursts, perBurst = 15, 5, 4
	var wg sync.WaitGroup
	wg.Go(func() {
		for i := range sends {
			if _, err := d.Send(ctx, d.Accounts[4].Key, &dead, big.NewInt(int64(i+1)), nil); err != nil {
				t.Errorf("Send %d: %v", i, err)
				return
			}
		}
	})
	var hashes []common.Hash
	wallet := d.Accounts[6]
	for range bursts {
		nonce, err := c.PendingNonceAt(ctx, wallet.Address)
		if err != nil {
			t.Fatal(err)
		}
		var burst []common.Hash
		for i := range perBurst {
			tx := signedWithNonce(t, c, wallet.Key, nonce+uint64(i), dead, big.NewInt(1000), nil)
			if err := c.SendTransaction(ctx, tx); err != nil {
				t.Fatalf("eth_sendRawTransaction: %v", err)
			}
			burst = append(burst, tx.Hash())
		}
		for _, h := range burst {
			if r := receipt(t, c, h); r.Status != types.ReceiptStatusSuccessful {
				t.Fatalf("%s reverted", h)
			}
		}
		hashes = append(hashes, burst...)
	}
	wg.Wait()

	last, err := c.BlockNumber(ctx)
	if err != nil {
		t.Fatal(err)
	}
	mined := 0
	for n := first + 1; n <= last; n++ {
		b, err := c.BlockByNumber(ctx, new(big.Int).SetUint64(n))
		if err != nil {
			t.Fatal(err)
		}
		if len(b.Transactions()) == 0 {
			t.Errorf("block %d is empty", n)
		}
		mined += len(b.Transactions())
	}
	if mined != sends+len(hashes) {
		t.Fatalf("blocks %d..%d hold %d transactions; want %d", first+1, last, mined, sends+len(hashes))
	}
}

// TestServeRPCEnds: ServeRPC returns when its context ends, and afterwards the port is closed
// and Send works as before.
func TestServeRPCEnds(t *testing.T) {
	t.Parallel()
	d := start(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- d.ServeRPC(ctx, ln) }()
	c := dial(t, "http://"+ln.Addr().String())
	if _, err := c.BlockNumber(context.Background()); err != nil {
		t.Fatal(err)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("ServeRPC: %v", err)
	}
	if _, err := c.BlockNumber(context.Background()); err == nil {
		t.Fatal("the JSON-RPC port still answers")
	}
	send(t, d, d.Accounts[5], dead, big.NewInt(1), nil)
}

// TestServeRPCEndsWhenClosed: closing the devnet while it serves ends ServeRPC.
func TestServeRPCEndsWhenClosed(t *testing.T) {
	t.Parallel()
	d, err := Start(Config{})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- d.ServeRPC(context.Background(), ln) }()
	c := dial(t, "http://"+ln.Addr().String())
	if _, err := c.BlockNumber(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("ServeRPC still runs after Close")
	}
}

// BenchmarkRPCSendToReceipt is the time from eth_sendRawTransactionSync to the receipt it
// returns: what a wallet waits for its transaction to be mined.
func BenchmarkRPCSendToReceipt(b *testing.B) {
	d, err := Start(Config{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = d.Close() })
	c := dial(b, "http://"+serveRPC(b, d))
	wallet := d.Accounts[6]
	nonce, err := c.PendingNonceAt(context.Background(), wallet.Address)
	if err != nil {
		b.Fatal(err)
	}
	for i := 0; b.Loop(); i++ {
		b.StopTimer()
		tx := signedWithNonce(b, c, wallet.Key, nonce+uint64(i), dead, big.NewInt(1), nil)
		b.StartTimer()
		r, err := c.SendTransactionSync(context.Background(), tx, nil)
		if err != nil || r.Status != types.ReceiptStatusSuccessful {
			b.Fatalf("%v %v", r, err)
		}
	}
}

// TestREADMEKeys: the devnet accounts README.md lists for wallets are the ones DeriveAccount
// gives, address and key.
func TestREADMEKeys(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile("../../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	row := regexp.MustCompile("(?m)^\\| (\\d+) \\|[^|]*\\| `(0x[0-9a-fA-F]{40})` \\| `(0x[0-9a-f]{64})` \\|$")
	rows := row.FindAllStringSubmatch(string(raw), -1)
	if len(rows) < 5 {
		t.Fatalf("README.md lists %d devnet accounts", len(rows))
	}
	for _, r := range rows {
		i, _ := strconv.Atoi(r[1])
		acc, err := DeriveAccount(i)
		if err != nil {
			t.Fatal(err)
		}
		if r[2] != acc.Address.Hex() || r[3] != hexutil.Encode(crypto.FromECDSA(acc.Key)) {
			t.Errorf("README.md account %d: %s %s; DeriveAccount gives %s %s", i, r[2], r[3], acc.Address.Hex(), hexutil.Encode(crypto.FromECDSA(acc.Key)))
		}
	}
}
