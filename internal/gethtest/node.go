package gethtest

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/curvekit/curvekit/adapters/evm"
)

// Node is one geth --dev process and its data directory. It survives its process: Kill and Stop
// end the process, Start runs it again on the same directory and ports.
type Node struct {
	t    testing.TB
	bin  string
	Dir  string // the data directory
	HTTP string // http://127.0.0.1:<port>
	WS   string // ws://127.0.0.1:<port>
	args []string
	log  *os.File // the process's output, kept over restarts
	cmd  *exec.Cmd
	done chan struct{}
}

// Start builds geth if needed and runs it until the test ends: `--dev --dev.period 1` (a block
// a second, as a real chain mines whether or not anyone trades), HTTP and WebSocket JSON-RPC on
// loopback ports, and the hash state scheme in archive mode, so that a kill -9 loses at most the
// last blocks (with the path scheme it can lose all state early in a dev chain, and the node then
// never builds another block).
func Start(t testing.TB) *Node {
	t.Helper()
	bin := Binary(t)
	root := t.TempDir()
	ports := freePorts(t, 3)
	n := &Node{
		t: t, bin: bin, Dir: filepath.Join(root, "data"),
		HTTP: fmt.Sprintf("http://127.0.0.1:%d", ports[0]),
		WS:   fmt.Sprintf("ws://127.0.0.1:%d", ports[1]),
		args: []string{
			"--dev", "--dev.period", "1", "--datadir", filepath.Join(root, "data"),
			"--http", "--http.addr", "127.0.0.1", "--http.port", strconv.Itoa(ports[0]), "--http.api", "eth,net,web3,txpool,debug",
			"--ws", "--ws.addr", "127.0.0.1", "--ws.port", strconv.Itoa(ports[1]), "--ws.api", "eth,net,web3",
			"--authrpc.addr", "127.0.0.1", "--authrpc.port", strconv.Itoa(ports[2]),
			"--port", "0", "--nodiscover", "--maxpeers", "0", "--ipcdisable",
			"--state.scheme", "hash", "--gcmode", "archive",
		},
	}
	f, err := os.Create(filepath.Join(root, "geth.log"))
	if err != nil {
		t.Fatal(err)
	}
	n.log = f
	t.Cleanup(func() {
		if n.cmd != nil {
			n.Stop()
		}
		if t.Failed() {
			t.Logf("geth's log, last lines:\n%s", n.Tail(40))
		}
		f.Close()
	})
	n.Start()
	return n
}

// Args are geth's arguments, as the README shows them.
func (n *Node) Args() []string { return n.args }

// Start runs geth on the node's directory and ports and waits until its JSON-RPC answers.
func (n *Node) Start() {
	n.t.Helper()
	if n.cmd != nil {
		n.t.Fatal("gethtest: geth is running")
	}
	cmd := exec.Command(n.bin, n.args...)
	cmd.Stdout, cmd.Stderr = n.log, n.log
	if err := cmd.Start(); err != nil {
		n.t.Fatalf("gethtest: start geth: %v", err)
	}
	n.cmd, n.done = cmd, make(chan struct{})
	go func(done chan struct{}) { _ = cmd.Wait(); close(done) }(n.done)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	for {
		c, err := rpc.DialContext(ctx, n.HTTP)
		if err == nil {
			var head hexutil.Uint64
			err = c.CallContext(ctx, &head, "eth_blockNumber")
			c.Close()
			if err == nil {
				return
			}
		}
		select {
		case <-n.done:
			n.cmd = nil
			n.t.Fatalf("gethtest: geth ended at start:\n%s", n.Tail(30))
		case <-ctx.Done():
			n.t.Fatalf("gethtest: geth does not answer on %s after 60s: %v\n%s", n.HTTP, err, n.Tail(30))
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// Kill ends geth with SIGKILL: what it had not written is lost, and at the next Start it
// re-mines the transactions of its journal into new blocks.
func (n *Node) Kill() { n.end(syscall.SIGKILL) }

// Stop ends geth with SIGTERM, which keeps its head.
func (n *Node) Stop() { n.end(syscall.SIGTERM) }

func (n *Node) end(sig syscall.Signal) {
	n.t.Helper()
	if n.cmd == nil {
		return
	}
	_ = n.cmd.Process.Signal(sig)
	select {
	case <-n.done:
	case <-time.After(60 * time.Second):
		_ = n.cmd.Process.Kill()
		<-n.done
		n.t.Errorf("gethtest: geth did not end on %v within 60s", sig)
	}
	n.cmd = nil
}

// Tail returns the last lines of geth's output.
func (n *Node) Tail(lines int) string {
	b, err := os.ReadFile(n.log.Name())
	if err != nil {
		return err.Error()
	}
	all := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	return strings.Join(all[max(0, len(all)-lines):], "\n")
}

// Client dials the node's HTTP JSON-RPC; it is closed when the test ends.
func (n *Node) Client() *ethclient.Client {
	n.t.Helper()
	c, err := ethclient.Dial(n.HTTP)
	if err != nil {
		n.t.Fatal(err)
	}
	n.t.Cleanup(c.Close)
	return c
}

// Fund sends wei to each address from the dev account (eth_accounts[0], unlocked and prefunded
// by --dev) with eth_sendTransaction, and waits until every transfer is mined.
func (n *Node) Fund(wei *big.Int, to ...common.Address) {
	n.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	c, err := rpc.DialContext(ctx, n.HTTP)
	if err != nil {
		n.t.Fatal(err)
	}
	defer c.Close()
	var accounts []common.Address
	if err := c.CallContext(ctx, &accounts, "eth_accounts"); err != nil || len(accounts) == 0 {
		n.t.Fatalf("gethtest: eth_accounts: %v %v", accounts, err)
	}
	var txs []common.Hash
	for _, addr := range to {
		var tx common.Hash
		if err := c.CallContext(ctx, &tx, "eth_sendTransaction", map[string]any{
			"from": accounts[0], "to": addr, "value": (*hexutil.Big)(wei),
		}); err != nil {
			n.t.Fatalf("gethtest: eth_sendTransaction: %v", err)
		}
		txs = append(txs, tx)
	}
	ec := ethclient.NewClient(c)
	for _, tx := range txs {
		if _, err := WaitMined(ctx, ec, tx); err != nil {
			n.t.Fatalf("gethtest: fund: %v", err)
		}
	}
}

// SetHead rewinds the chain to block number (debug_setHead): the blocks after it are dropped and
// geth mines new ones in their place. Their transactions stay out of the pool until geth reads its
// journal again at its next Start: SetHead then Kill then Start is a reorganization in which they
// are mined again at other positions (with the archive state a kill alone loses no block).
func (n *Node) SetHead(number uint64) {
	n.t.Helper()
	c, err := rpc.Dial(n.HTTP)
	if err != nil {
		n.t.Fatal(err)
	}
	defer c.Close()
	if err := c.Call(nil, "debug_setHead", hexutil.Uint64(number)); err != nil {
		n.t.Fatalf("gethtest: debug_setHead: %v", err)
	}
}

// WaitMined polls for tx's receipt every 10 ms until ctx ends; a reverted transaction is an error.
func WaitMined(ctx context.Context, c *ethclient.Client, tx common.Hash) (*types.Receipt, error) {
	for {
		r, err := c.TransactionReceipt(ctx, tx)
		err = evm.NotYetIndexed(err)
		if err == nil {
			if r.Status != types.ReceiptStatusSuccessful {
				return r, fmt.Errorf("%s reverted", tx)
			}
			return r, nil
		}
		if !errors.Is(err, ethereum.NotFound) {
			return nil, err
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("%s not mined: %w", tx, ctx.Err())
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// freePorts picks n free loopback ports below 32768: outside this kernel's ephemeral range, so
// no outgoing connection takes one between a Stop and the next Start.
func freePorts(t testing.TB, n int) []int {
	t.Helper()
	var ports []int
	for range 1000 {
		if len(ports) == n {
			return ports
		}
		p := 10000 + rand.IntN(22768)
		if slices.Contains(ports, p) {
			continue
		}
		ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", p))
		if err != nil {
			continue
		}
		ln.Close()
		ports = append(ports, p)
	}
	t.Fatal("gethtest: no free ports below 32768")
	return nil
}
