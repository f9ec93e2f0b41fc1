package evm_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/google/go-cmp/cmp"

	"github.com/curvekit/curvekit/adapters/evm"
	"github.com/curvekit/curvekit/adapters/evm/devnet"
)

// A profile written is read back the same, with checksummed addresses, readable by its owner only.
func TestProfileRoundTrip(t *testing.T) {
	p := evm.Profile{ChainID: 8453, RPCURLs: []string{"https://a.example/v2/KEY", "wss://b.example"},
		Factory: common.HexToAddress("0xfac7000000000000000000000000000000000001"), Router: common.HexToAddress("0x7e70000000000000000000000000000000000002"),
		WETH: common.HexToAddress("0xe7e7000000000000000000000000000000000003"), StartBlock: 123456}
	path := filepath.Join(t.TempDir(), "chain.json")
	if err := evm.WriteProfile(path, p); err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(path)
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 || !strings.Contains(string(raw), `"factory": "0xFac7000000000000000000000000000000000001"`) ||
		strings.Contains(string(raw), "poolFactory") {
		t.Fatalf("%v\n%s", fi.Mode(), raw)
	}
	got, err := evm.ReadProfile(path)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(p, got); diff != "" {
		t.Fatalf("read back (-want +got):\n%s", diff)
	}
}

// A profile that cannot be followed is refused, naming what is wrong and never quoting a URL.
func TestReadProfileRefuses(t *testing.T) {
	const good = `"rpcUrls": ["https://rpc.example/v3/SECRETKEY"], "contracts": {"factory": "0xfac7000000000000000000000000000000000001", "router": "0x7e70000000000000000000000000000000000002"}, "startBlock": 1`
	for _, c := range []struct{ doc, want string }{
		{`{"chainId": 1, ` + good + `, "extra": 1}`, `unknown field "extra"`},
		{`{` + good + `}`, "chainId is missing"},
		{`{"chainId": 1, "rpcUrls": [], "contracts": {"factory": "0xfac7000000000000000000000000000000000001", "router": "0x7e70000000000000000000000000000000000002"}}`, "rpcUrls is empty"},
		{`{"chainId": 1, "rpcUrls": ["ftp://SECRETKEY@x"], "contracts": {"factory": "0xfac7000000000000000000000000000000000001", "router": "0x7e70000000000000000000000000000000000002"}}`, "rpcUrls[0] is not"},
		{`{"chainId": 1, "rpcUrls": ["http://x"], "contracts": {"factory": "0xfac7", "router": "0x7e70000000000000000000000000000000000002"}}`, `contracts.factory "0xfac7" is not an address`},
		{`{"chainId": 1, "rpcUrls": ["http://x"], "contracts": {"factory": "0xfac7000000000000000000000000000000000001"}}`, `contracts.router "" is not an address`},
		{`not json`, "invalid character"},
	} {
		path := filepath.Join(t.TempDir(), "chain.json")
		os.WriteFile(path, []byte(c.doc), 0o600)
		_, err := evm.ReadProfile(path)
		if !errors.Is(err, evm.ErrProfile) || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "SECRET") {
			t.Errorf("%s: %v; want ErrProfile naming %s", c.doc, err, c.want)
		}
	}
}

// Verify holds a profile against the node: its chain id, and code at each contract.
func TestProfileVerify(t *testing.T) {
	dev, err := devnet.Start(devnet.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer dev.Close()
	ok := evm.Profile{ChainID: dev.ChainID.Uint64(), RPCURLs: []string{"http://x"}, Factory: dev.Addrs.Factory, Router: dev.Addrs.Router,
		PoolFactory: dev.Addrs.PoolFactory, WETH: dev.Addrs.WETH}
	if err := ok.Verify(t.Context(), dev.Client); err != nil {
		t.Fatal(err)
	}
	other := ok
	other.ChainID = 8453
	if err := other.Verify(t.Context(), dev.Client); !errors.Is(err, evm.ErrProfile) || !strings.Contains(err.Error(), "for chain 8453, the node serves chain 1337") {
		t.Errorf("another chain id: %v", err)
	}
	empty := ok
	empty.Router = common.HexToAddress("0x7e70000000000000000000000000000000000002")
	if err := empty.Verify(t.Context(), dev.Client); !errors.Is(err, evm.ErrProfile) || !strings.Contains(err.Error(), "no contract at contracts.router 0x7e70") {
		t.Errorf("no code at the router: %v", err)
	}
}
