package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"

	"github.com/curvekit/curvekit/adapters/evm"
)

// A chain profile the server cannot follow stops it at start with a clear message and exit
// code 2: malformed, given beside the flags it stands for, for another chain id than the
// node's, or naming an address without code.
func TestChainProfileRefusedAtStart(t *testing.T) {
	t.Parallel()
	host := startServer(t, "--devnet-rpc-addr", "127.0.0.1:0")
	url := host.app.DevnetRPCURL()
	dev := host.app.dev
	dir := t.TempDir()
	bin := mustServerBinary(t)
	good := evm.Profile{ChainID: dev.ChainID.Uint64(), RPCURLs: []string{url}, Factory: dev.Addrs.Factory, Router: dev.Addrs.Router}
	write := func(name string, p evm.Profile) string {
		path := filepath.Join(dir, name)
		if err := evm.WriteProfile(path, p); err != nil {
			t.Fatal(err)
		}
		return path
	}
	otherChain := good
	otherChain.ChainID = 8453
	noCode := good
	noCode.Factory = common.HexToAddress("0xfac7000000000000000000000000000000000001")
	malformed := filepath.Join(dir, "malformed.json")
	os.WriteFile(malformed, []byte(`{"chainId": 1337,`), 0o600)
	for _, c := range []struct {
		name  string
		flags []string
		want  string
	}{
		{"malformed", []string{"--chain", malformed}, "--chain: chain profile"},
		{"beside its flags", []string{"--chain", write("both.json", good), "--start-block", "5"}, "give the profile or those flags, not both"},
		{"another chain", []string{"--chain", write("other.json", otherChain)}, "the profile is for chain 8453, the node serves chain 1337"},
		{"no code", []string{"--chain", write("nocode.json", noCode)}, "no contract at contracts.factory 0xFac7000000000000000000000000000000000001"},
	} {
		cmd := exec.Command(bin, append([]string{"--addr", "127.0.0.1:0", "--db", filepath.Join(dir, c.name+".db"), "--simulate", "0"}, c.flags...)...)
		out, err := cmd.CombinedOutput()
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() != 2 || !strings.Contains(string(out), c.want) {
			t.Errorf("%s: %v\n%s\nwant exit code 2 naming %q", c.name, err, out, c.want)
		}
	}
	// The good profile serves, and /config says what the chain says: the factory's pool factory
	// and the pairing assets it enables.
	s := startProcess(t, "--chain", write("good.json", good))
	var cfg struct {
		ChainID   uint64 `json:"chainId"`
		Contracts struct {
			PoolFactory *string `json:"poolFactory"`
		} `json:"contracts"`
		QuoteAssets []struct {
			Address  *string `json:"address"`
			Symbol   string  `json:"symbol"`
			Decimals uint8   `json:"decimals"`
		} `json:"quoteAssets"`
	}
	s.get("/config", &cfg)
	if cfg.ChainID != good.ChainID || cfg.Contracts.PoolFactory == nil || *cfg.Contracts.PoolFactory != dev.Addrs.PoolFactory.Hex() ||
		len(cfg.QuoteAssets) != 2 || cfg.QuoteAssets[0].Address != nil || cfg.QuoteAssets[0].Symbol != "ETH" ||
		cfg.QuoteAssets[1].Address == nil || *cfg.QuoteAssets[1].Address != dev.Addrs.USD.Hex() || cfg.QuoteAssets[1].Symbol != "TUSD" || cfg.QuoteAssets[1].Decimals != 6 {
		t.Errorf("/config on the profile: %+v", cfg)
	}
}
