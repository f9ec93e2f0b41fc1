package evm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"slices"

	"github.com/ethereum/go-ethereum/common"
)

// Profile is a chain as the server follows it: what `curvekit deploy --out` writes and the
// server's --chain reads in place of --rpc-url, --factory, --router and --start-block. Its JSON
// has checksummed addresses:
//
//	{"chainId": 1337, "rpcUrls": ["http://127.0.0.1:8545"],
//	 "contracts": {"factory": "0x…", "router": "0x…", "poolFactory": "0x…", "weth": "0x…"},
//	 "startBlock": 12}
type Profile struct {
	ChainID uint64
	// RPCURLs are the chain's JSON-RPC endpoints, the first preferred. A hosted provider's
	// URL holds its key: the file is written readable by its owner only.
	RPCURLs     []string
	Factory     common.Address
	Router      common.Address
	PoolFactory common.Address // zero when unknown
	WETH        common.Address // zero when unknown
	// StartBlock is the factory's deployment block: no launch is older.
	StartBlock uint64
}

// ProfileFromDeployment is the profile of a deployment reached at rpcURLs.
func ProfileFromDeployment(d Deployment, rpcURLs []string) Profile {
	return Profile{ChainID: d.ChainID, RPCURLs: slices.Clone(rpcURLs), Factory: d.Factory, Router: d.Router,
		PoolFactory: d.PoolFactory, WETH: d.WETH, StartBlock: d.StartBlock}
}

type profileJSON struct {
	ChainID    uint64           `json:"chainId"`
	RPCURLs    []string         `json:"rpcUrls"`
	Contracts  profileContracts `json:"contracts"`
	StartBlock uint64           `json:"startBlock"`
}

type profileContracts struct {
	Factory     string `json:"factory"`
	Router      string `json:"router"`
	PoolFactory string `json:"poolFactory,omitempty"`
	WETH        string `json:"weth,omitempty"`
}

// ErrProfile is a profile that cannot be followed: malformed, or at odds with the chain.
var ErrProfile = errors.New("chain profile")

// WriteProfile writes p to path, readable by its owner only (an RPC URL may hold a key).
func WriteProfile(path string, p Profile) error {
	if err := p.validate(); err != nil {
		return err
	}
	doc := profileJSON{ChainID: p.ChainID, RPCURLs: p.RPCURLs, StartBlock: p.StartBlock,
		Contracts: profileContracts{Factory: p.Factory.Hex(), Router: p.Router.Hex()}}
	if p.PoolFactory != (common.Address{}) {
		doc.Contracts.PoolFactory = p.PoolFactory.Hex()
	}
	if p.WETH != (common.Address{}) {
		doc.Contracts.WETH = p.WETH.Hex()
	}
	out, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(out, '\n'), 0o600)
}

// ReadProfile reads a profile WriteProfile wrote. Unknown keys, addresses that are not addresses,
// a missing chain id, factory, router or RPC URL are ErrProfile, naming what is wrong.
func ReadProfile(path string) (Profile, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return Profile{}, fmt.Errorf("%w: %w", ErrProfile, err)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	var doc profileJSON
	if err := dec.Decode(&doc); err != nil {
		return Profile{}, fmt.Errorf("%w %s: %w", ErrProfile, path, err)
	}
	p := Profile{ChainID: doc.ChainID, RPCURLs: doc.RPCURLs, StartBlock: doc.StartBlock}
	for _, a := range []struct {
		name, in string
		out      *common.Address
		required bool
	}{
		{"contracts.factory", doc.Contracts.Factory, &p.Factory, true},
		{"contracts.router", doc.Contracts.Router, &p.Router, true},
		{"contracts.poolFactory", doc.Contracts.PoolFactory, &p.PoolFactory, false},
		{"contracts.weth", doc.Contracts.WETH, &p.WETH, false},
	} {
		switch {
		case a.in == "" && !a.required:
		case !common.IsHexAddress(a.in):
			return Profile{}, fmt.Errorf("%w %s: %s %q is not an address", ErrProfile, path, a.name, a.in)
		default:
			*a.out = common.HexToAddress(a.in)
		}
	}
	if err := p.validate(); err != nil {
		return Profile{}, fmt.Errorf("%w (%s)", err, path)
	}
	return p, nil
}

func (p *Profile) validate() error {
	switch {
	case p.ChainID == 0:
		return fmt.Errorf("%w: chainId is missing", ErrProfile)
	case len(p.RPCURLs) == 0:
		return fmt.Errorf("%w: rpcUrls is empty", ErrProfile)
	case p.Factory == (common.Address{}) || p.Router == (common.Address{}):
		return fmt.Errorf("%w: contracts.factory and contracts.router are required", ErrProfile)
	}
	for i, u := range p.RPCURLs {
		parsed, err := url.Parse(u)
		if err != nil || parsed.Host == "" || !slices.Contains([]string{"http", "https", "ws", "wss"}, parsed.Scheme) {
			// The URL itself is not quoted: it may hold a provider's key.
			return fmt.Errorf("%w: rpcUrls[%d] is not an http(s) or ws(s) URL", ErrProfile, i)
		}
	}
	return nil
}

// Verify checks the profile against the chain client reaches: the same chain id, and contract
// code at every address it names. A mismatch is ErrProfile.
func (p *Profile) Verify(ctx context.Context, client Client) error {
	id, err := client.ChainID(ctx)
	if err != nil {
		return fmt.Errorf("chain profile: read the node's chain id: %w", err)
	}
	if !id.IsUint64() || id.Uint64() != p.ChainID {
		return fmt.Errorf("%w: the profile is for chain %d, the node serves chain %s", ErrProfile, p.ChainID, id)
	}
	for _, a := range []struct {
		name string
		addr common.Address
	}{{"factory", p.Factory}, {"router", p.Router}, {"poolFactory", p.PoolFactory}, {"weth", p.WETH}} {
		if a.addr == (common.Address{}) {
			continue
		}
		code, err := client.CodeAt(ctx, a.addr, nil)
		if err != nil {
			return fmt.Errorf("chain profile: read the code at %s: %w", a.addr.Hex(), err)
		}
		if len(code) == 0 {
			return fmt.Errorf("%w: no contract at contracts.%s %s on chain %d", ErrProfile, a.name, a.addr.Hex(), p.ChainID)
		}
	}
	return nil
}
