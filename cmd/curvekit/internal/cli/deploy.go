package cli

import (
	"context"
	"crypto/ecdsa"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"

	"github.com/curvekit/curvekit/adapters/evm"
)

type deployCmd struct {
	RPCURL       string        `name:"rpc-url" required:"" help:"JSON-RPC URL of the chain." env:"CURVEKIT_RPC_URL"`
	KeyFile      string        `required:"" type:"existingfile" help:"File holding the deployer's private key in hex (with or without 0x); its account pays the gas and owns the factory."`
	FeeRecipient string        `help:"Address receiving launch and protocol fees (default: the deployer)."`
	WETH         string        `name:"weth" help:"An existing WETH9 to use instead of deploying one."`
	PoolFeeBps   uint16        `help:"Swap fee of graduated pools, in basis points." default:"30"`
	Poll         time.Duration `help:"How often to look for each transaction's receipt." default:"1s"`
	Wait         time.Duration `help:"Give up after this long." default:"10m"`
	Out          string        `type:"path" help:"Write the chain profile here (chain id, RPC URL, every contract, start block), for the server's --chain; readable by its owner only."`
}

func (c *deployCmd) Run(e *env) error {
	if e.root.Chain != "" {
		return &exitError{code: exitUsage, err: errors.New("--chain names a chain already deployed; deploy writes a new profile with --out")}
	}
	key, err := loadKey(c.KeyFile)
	if err != nil {
		return err
	}
	p := evm.DeployParams{Key: key, PoolFeeBps: c.PoolFeeBps, Poll: c.Poll, Progress: func(step string, tx common.Hash) {
		fmt.Fprintf(e.err, "%s: %s\n", step, tx.Hex())
	}}
	for flag, a := range map[string]struct {
		in  string
		out *common.Address
	}{"--fee-recipient": {c.FeeRecipient, &p.FeeRecipient}, "--weth": {c.WETH, &p.WETH}} {
		if a.in == "" {
			continue
		}
		if !common.IsHexAddress(a.in) {
			return fmt.Errorf("%s: %q is not an address", flag, a.in)
		}
		*a.out = common.HexToAddress(a.in)
	}
	ctx, cancel := context.WithTimeout(e.ctx, c.Wait)
	defer cancel()
	client, err := ethclient.DialContext(ctx, c.RPCURL)
	if err != nil {
		return &exitError{code: exitUnreachable, err: fmt.Errorf("cannot reach %s: %w", c.RPCURL, err)}
	}
	defer client.Close()
	p.Client = client
	fmt.Fprintf(e.err, "deploying from %s\n", crypto.PubkeyToAddress(key.PublicKey).Hex())
	d, err := evm.Deploy(ctx, p)
	if err != nil {
		if errors.Is(err, os.ErrDeadlineExceeded) || ctx.Err() != nil {
			return fmt.Errorf("%w (is the chain mining?)", err)
		}
		return err
	}
	if c.Out != "" {
		if err := evm.WriteProfile(c.Out, evm.ProfileFromDeployment(d, []string{c.RPCURL})); err != nil {
			return fmt.Errorf("--out: %w", err)
		}
		fmt.Fprintf(e.err, "chain profile: %s\n", c.Out)
	}
	if e.root.JSON {
		return e.printJSON(deploymentJSON{
			ChainID: d.ChainID, Deployer: d.Deployer.Hex(), WETH: d.WETH.Hex(), PoolFactory: d.PoolFactory.Hex(),
			Router: d.Router.Hex(), Factory: d.Factory.Hex(), StartBlock: d.StartBlock,
		})
	}
	return printDeployment(e, d, c.RPCURL, c.Out)
}

// deploymentJSON is a deployment as --json prints it: addresses checksummed (EIP-55), as the
// text output has them.
type deploymentJSON struct {
	ChainID     uint64 `json:"chainId"`
	Deployer    string `json:"deployer"`
	WETH        string `json:"weth"`
	PoolFactory string `json:"poolFactory"`
	Router      string `json:"router"`
	Factory     string `json:"factory"`
	StartBlock  uint64 `json:"startBlock"`
}

// loadKey reads a private key written in hex, with or without 0x (cast and ethers write it with)
// and surrounding whitespace. Its error never quotes the file's content.
func loadKey(path string) (*ecdsa.PrivateKey, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("--key-file: %w", err)
	}
	text := strings.TrimSpace(string(raw))
	if t, ok := strings.CutPrefix(text, "0x"); ok {
		text = t
	} else {
		text = strings.TrimPrefix(text, "0X")
	}
	key, err := crypto.HexToECDSA(text)
	if err != nil {
		return nil, errors.New("--key-file: want a private key of 64 hex digits, with or without 0x")
	}
	return key, nil
}

func printDeployment(e *env, d evm.Deployment, rpc, profile string) error {
	if err := table(e, [][2]string{
		{"chainId", fmt.Sprint(d.ChainID)},
		{"deployer", d.Deployer.Hex()},
		{"weth", d.WETH.Hex()},
		{"poolFactory", d.PoolFactory.Hex()},
		{"router", d.Router.Hex()},
		{"factory", d.Factory.Hex()},
		{"startBlock", fmt.Sprint(d.StartBlock)},
	}); err != nil {
		return err
	}
	if profile != "" {
		fmt.Fprintf(e.out, "\nRun the server on this chain with:\n  --chain %s\n", profile)
		return nil
	}
	fmt.Fprintf(e.out, "\nRun the server on this chain with:\n  --rpc-url %s --factory %s --router %s --start-block %d\n", rpc, d.Factory.Hex(), d.Router.Hex(), d.StartBlock)
	return nil
}
