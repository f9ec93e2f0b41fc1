package devnet

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/node"
	"github.com/ethereum/go-ethereum/rpc"
	"github.com/ethereum/go-ethereum/version"
)

// rpcNamespaces are the namespaces ServeRPC answers: what wallets and tools use to read the
// chain and send signed transactions. admin, debug, miner, txpool and personal stay in process.
var rpcNamespaces = map[string]bool{"eth": true, "net": true, "web3": true}

// ServeRPC serves the devnet's standard Ethereum JSON-RPC (eth_*, net_*, web3_*) over HTTP and
// WebSocket on ln, so that MetaMask, cast or a Go ethclient can read the chain and send signed
// transactions, until ctx ends or the devnet is closed; it closes ln. The node holds no keys: eth_sendTransaction and
// eth_sign fail, eth_sendRawTransaction is the way in.
//
// While it serves, the devnet mines by itself: a transaction that reaches the pool (over
// JSON-RPC, or from any other client of the chain) is sealed into a block at once (with
// Config.WallClock, as soon as the wall clock allows, together with every other transaction
// pending then). Mining takes
// the lock Send and Mine hold, and seals only when the pool holds a transaction the next block
// can include, so a transaction that Send or Mine already sealed never causes a second, empty
// block.
//
// Any origin may call it (as Anvil and Hardhat allow, which browser wallets rely on): the chain
// holds only test value, its keys are public, and nothing served signs or administers.
func (d *Devnet) ServeRPC(ctx context.Context, ln net.Listener) error {
	srv, err := d.rpcServer()
	if err != nil {
		ln.Close()
		return err
	}
	defer srv.Stop()
	ws := srv.WebsocketHandler([]string{"*"})
	hs := &http.Server{
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if strings.EqualFold(r.Header.Get("Upgrade"), "websocket") {
				ws.ServeHTTP(w, r)
				return
			}
			allowAnyOrigin(w, r)
			if r.Method == http.MethodOptions {
				w.WriteHeader(http.StatusNoContent)
				return
			}
			srv.ServeHTTP(w, r)
		}),
		ReadTimeout:       rpc.DefaultHTTPTimeouts.ReadTimeout,
		ReadHeaderTimeout: rpc.DefaultHTTPTimeouts.ReadHeaderTimeout,
		WriteTimeout:      rpc.DefaultHTTPTimeouts.WriteTimeout,
		IdleTimeout:       rpc.DefaultHTTPTimeouts.IdleTimeout,
	}

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	mined := make(chan error, 1)
	go func() { mined <- d.automine(ctx) }()
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()

	var failed error
	select {
	case <-ctx.Done():
		failed = <-mined
	case err := <-served:
		cancel()
		failed = errors.Join(fmt.Errorf("devnet: serve JSON-RPC: %w", err), <-mined)
	case failed = <-mined:
	}
	// WebSocket connections are hijacked: Close ends them with the rest, as Shutdown would not.
	_ = hs.Close()
	return failed
}

// rpcServer registers the node's eth and net APIs, its filter API and web3 on a server of
// their own, with geth's default batch limits.
func (d *Devnet) rpcServer() (*rpc.Server, error) {
	b := d.Backend
	srv := rpc.NewServer()
	srv.SetBatchLimits(node.DefaultConfig.BatchRequestLimit, node.DefaultConfig.BatchResponseMaxSize)
	apis := append(b.eth.APIs(), rpc.API{Namespace: "eth", Service: b.filterAPI}, rpc.API{Namespace: "web3", Service: web3API{}})
	for _, api := range apis {
		if !rpcNamespaces[api.Namespace] {
			continue
		}
		if err := srv.RegisterName(api.Namespace, api.Service); err != nil {
			srv.Stop()
			return nil, fmt.Errorf("devnet: register %s API: %w", api.Namespace, err)
		}
	}
	return srv, nil
}

// allowAnyOrigin answers CORS for browser callers: any origin, POST with any headers asked for.
func allowAnyOrigin(w http.ResponseWriter, r *http.Request) {
	if r.Header.Get("Origin") == "" {
		return
	}
	h := w.Header()
	h.Set("Access-Control-Allow-Origin", "*")
	if r.Method == http.MethodOptions {
		h.Set("Access-Control-Allow-Methods", "POST, GET, OPTIONS")
		if asked := r.Header.Get("Access-Control-Request-Headers"); asked != "" {
			h.Set("Access-Control-Allow-Headers", asked)
		}
		h.Set("Access-Control-Max-Age", "600")
	}
}

// automine seals a block whenever the pool holds a transaction the next block can include,
// until ctx ends.
//
// The pool announces new transactions from a background goroutine that waits until every
// subscriber has taken the announcement, and Commit waits for that goroutine: a subscriber
// that took the lock Send holds while Send commits would deadlock. So one goroutine only
// listens and nudges, and another mines under the lock.
func (d *Devnet) automine(ctx context.Context) error {
	pool := d.Backend.eth.TxPool()
	news := make(chan core.NewTxsEvent, 16)
	sub := pool.SubscribeTransactions(news, true)
	defer sub.Unsubscribe()
	nudge := make(chan struct{}, 1)
	listened := make(chan error, 1)
	go func() {
		for {
			select {
			case <-ctx.Done():
				listened <- nil
				return
			case <-d.closing:
				listened <- nil
				return
			case err := <-sub.Err():
				listened <- err
				return
			case <-news:
				select {
				case nudge <- struct{}{}:
				default: // a nudge is already waiting; it covers this transaction too
				}
			}
		}
	}()
	// Transactions already waiting when serving starts are mined too.
	nudge <- struct{}{}
	for {
		select {
		case <-ctx.Done():
			return nil
		case err := <-listened:
			if err != nil {
				return fmt.Errorf("devnet: transaction pool subscription: %w", err)
			}
			return nil
		case <-nudge:
		}
		for {
			wait, _, err := d.sealPending()
			if err != nil {
				return err
			}
			if wait == 0 {
				break
			}
			t := time.NewTimer(wait)
			select {
			case <-ctx.Done():
				t.Stop()
				return nil
			case <-d.closing: // sealPending says so
				t.Stop()
			case <-t.C:
			}
		}
	}
}

// web3API is the web3 namespace of a geth node, which the node keeps to itself.
type web3API struct{}

// ClientVersion names the devnet and the go-ethereum it runs.
func (web3API) ClientVersion() string {
	return fmt.Sprintf("curvekit-devnet/go-ethereum-v%d.%d.%d", version.Major, version.Minor, version.Patch)
}

// Sha3 returns the Keccak-256 hash of input.
func (web3API) Sha3(input hexutil.Bytes) hexutil.Bytes { return crypto.Keccak256(input) }
