package main

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/curvekit/curvekit/adapters/evm/devnet"
	"github.com/curvekit/curvekit/contracts/bindings"
)

// TestDeployThenFollow runs `curvekit deploy` against a chain's JSON-RPC over HTTP, then starts
// a server with the printed --rpc-url, --factory, --router and --start-block: a token launched
// through the new factory appears in its /tokens.
func TestDeployThenFollow(t *testing.T) {
	dev, err := devnet.Start(devnet.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { dev.Close() })
	rpcURL := serveRPC(t, dev)
	// The devnet mines on demand; a real chain mines by itself.
	t.Cleanup(dev.MineEvery(20 * time.Millisecond))

	deployer := dev.Accounts[6]
	keyFile := filepath.Join(t.TempDir(), "deployer.key")
	// Written as cast and ethers export keys: with 0x.
	if err := os.WriteFile(keyFile, []byte("0x"+hex.EncodeToString(crypto.FromECDSA(deployer.Key))+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	profile := filepath.Join(t.TempDir(), "chain.json")
	r := run(t, "", nil, "deploy", "--rpc-url", rpcURL, "--key-file", keyFile, "--poll", "50ms", "--json", "--out", profile)
	if r.code != 0 {
		t.Fatalf("deploy: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	var d struct {
		ChainID    uint64
		Deployer   common.Address
		Factory    common.Address
		Router     common.Address
		StartBlock uint64
	}
	if err := json.Unmarshal([]byte(r.stdout), &d); err != nil {
		t.Fatalf("deploy --json: %v\n%s", err, r.stdout)
	}
	if d.Deployer != deployer.Address || d.Factory == dev.Addrs.Factory || d.StartBlock == 0 || !strings.Contains(r.stderr, "deploy LaunchFactory: 0x") {
		t.Fatalf("deployment %+v\n%s", d, r.stderr)
	}
	// Every address is checksummed, in --json as in the text.
	var raw map[string]any
	_ = json.Unmarshal([]byte(r.stdout), &raw)
	for _, k := range []string{"deployer", "weth", "poolFactory", "router", "factory"} {
		if s, _ := raw[k].(string); s != common.HexToAddress(s).Hex() {
			t.Errorf("deploy --json: %s is %q, not checksummed", k, s)
		}
	}

	// The profile holds what the separate flags would say, checksummed, readable by its owner only.
	if fi, err := os.Stat(profile); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("chain profile: %v %v", fi, err)
	}
	var p struct {
		ChainID    uint64   `json:"chainId"`
		RPCURLs    []string `json:"rpcUrls"`
		Contracts  struct{ Factory, Router, PoolFactory, WETH string }
		StartBlock uint64 `json:"startBlock"`
	}
	doc, _ := os.ReadFile(profile)
	if err := json.Unmarshal(doc, &p); err != nil || p.ChainID != d.ChainID || len(p.RPCURLs) != 1 || p.RPCURLs[0] != rpcURL ||
		p.Contracts.Factory != d.Factory.Hex() || p.Contracts.Router != d.Router.Hex() || p.StartBlock != d.StartBlock {
		t.Fatalf("chain profile %s: %+v %v", doc, p, err)
	}
	s := startServer(t, "--chain", profile)
	lf := bindings.NewLaunchFactory()
	creator := dev.Accounts[7]
	if _, err := dev.Send(context.Background(), creator.Key, &d.Factory, big.NewInt(1e16),
		lf.PackLaunch("Followed", "FLW", "ipfs://followed", common.Address{}, big.NewInt(1e16), big.NewInt(0))); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		r := run(t, "", nil, "--server", s.base, "tokens", "--json")
		var page struct {
			Tokens []struct{ Symbol, Creator string }
		}
		if err := json.Unmarshal([]byte(r.stdout), &page); err != nil {
			t.Fatalf("tokens: %v\n%s%s", err, r.stdout, r.stderr)
		}
		if len(page.Tokens) == 1 && page.Tokens[0].Symbol == "FLW" && common.HexToAddress(page.Tokens[0].Creator) == creator.Address {
			break
		}
		if len(page.Tokens) > 1 || time.Now().After(deadline) {
			t.Fatalf("tokens of the deployed factory: %+v", page.Tokens)
		}
		time.Sleep(100 * time.Millisecond)
	}

	// The command line reads the same profile: against the server that serves its chain each
	// command runs; against a profile of another deployment it stops before acting.
	if r := run(t, "", nil, "--server", s.base, "--chain", profile, "tokens", "--json"); r.code != 0 || !strings.Contains(r.stdout, "FLW") {
		t.Fatalf("tokens --chain: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	other := filepath.Join(t.TempDir(), "other.json")
	_ = os.WriteFile(other, []byte(strings.Replace(string(doc), d.Router.Hex(), common.Address{9}.Hex(), 1)), 0o600)
	r = run(t, "", []string{"CURVEKIT_CHAIN=" + other}, "--server", s.base, "tokens")
	if r.code != 2 || !strings.Contains(r.stderr, "serves router "+d.Router.Hex()) || r.stdout != "" {
		t.Fatalf("tokens with another deployment's profile: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if r := run(t, "", nil, "--chain", profile, "deploy", "--rpc-url", rpcURL, "--key-file", keyFile); r.code != 2 || !strings.Contains(r.stderr, "--out") {
		t.Fatalf("deploy --chain: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// serveRPC serves the devnet's JSON-RPC over HTTP, forwarding each call to its in-process RPC
// client, so that the binary reaches it as it would reach a node.
func serveRPC(t *testing.T, dev *devnet.Devnet) string {
	t.Helper()
	inner, ok := dev.Client.(interface{ Client() *rpc.Client })
	if !ok {
		t.Fatal("the devnet client does not expose its RPC client")
	}
	c := inner.Client()
	type request struct {
		ID     json.RawMessage   `json:"id"`
		Method string            `json:"method"`
		Params []json.RawMessage `json:"params"`
	}
	answer := func(ctx context.Context, q request) map[string]any {
		args := make([]any, len(q.Params))
		for i, p := range q.Params {
			args[i] = p
		}
		var res json.RawMessage
		out := map[string]any{"jsonrpc": "2.0", "id": q.ID}
		if err := c.CallContext(ctx, &res, q.Method, args...); err != nil {
			e := map[string]any{"code": -32000, "message": err.Error()}
			var re rpc.Error
			if errors.As(err, &re) {
				e["code"] = re.ErrorCode()
			}
			var de rpc.DataError
			if errors.As(err, &de) {
				e["data"] = de.ErrorData()
			}
			out["error"] = e
			return out
		}
		if res == nil {
			res = json.RawMessage("null")
		}
		out["result"] = res
		return out
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "application/json")
		if bytes.HasPrefix(bytes.TrimSpace(body), []byte("[")) {
			var qs []request
			if err := json.Unmarshal(body, &qs); err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			outs := make([]map[string]any, len(qs))
			for i, q := range qs {
				outs[i] = answer(r.Context(), q)
			}
			_ = json.NewEncoder(w).Encode(outs)
			return
		}
		var q request
		if err := json.Unmarshal(body, &q); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		_ = json.NewEncoder(w).Encode(answer(r.Context(), q))
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// A key file that holds no key is refused with a message that does not quote the file.
func TestDeployRefusesABadKeyFile(t *testing.T) {
	keyFile := filepath.Join(t.TempDir(), "deployer.key")
	if err := os.WriteFile(keyFile, []byte("0xSECRETNOTAKEY\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r := run(t, "", nil, "deploy", "--rpc-url", "http://127.0.0.1:1", "--key-file", keyFile)
	if r.code == 0 || !strings.Contains(r.stderr, "64 hex digits") || strings.Contains(r.stdout+r.stderr, "SECRET") {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}
