// Command sendtx signs and sends a transaction the way the README's `cast send` lines do, for
// machines without Foundry: the subset of cast that confirming a composed transaction needs.
//
//	sendtx wallet address <private key>
//	sendtx send --private-key <key> [--rpc-url <url>] <to> [<calldata>] [--value <wei>|<n>ether]
//
// The RPC URL defaults to $ETH_RPC_URL, as with cast. send estimates the gas, pays EIP-1559 fees
// (twice the head's base fee plus the suggested tip), waits for the receipt, prints the hash and
// fails when the transaction reverted. It is the wallet owner's side: the curvekit server never
// signs what it composes for a person.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"math/big"
	"os"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/accounts/abi/bind/v2"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "sendtx:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	switch {
	case len(args) == 3 && args[0] == "wallet" && args[1] == "address":
		key, err := crypto.HexToECDSA(strings.TrimPrefix(args[2], "0x"))
		if err != nil {
			return fmt.Errorf("private key: %w", err)
		}
		fmt.Println(crypto.PubkeyToAddress(key.PublicKey).Hex())
		return nil
	case len(args) > 0 && args[0] == "send":
		return send(args[1:])
	}
	return errors.New("usage: sendtx wallet address <key> | sendtx send --private-key <key> [--rpc-url <url>] <to> [<calldata>] [--value <wei>|<n>ether]")
}

func send(args []string) error {
	fs := flag.NewFlagSet("send", flag.ContinueOnError)
	keyHex := fs.String("private-key", "", "the sender's private key (hex)")
	rpcURL := fs.String("rpc-url", os.Getenv("ETH_RPC_URL"), "JSON-RPC URL; default $ETH_RPC_URL")
	valueText := fs.String("value", "0", "value in wei, or <n>ether")
	// Flags may follow the positional arguments, as with cast.
	var pos []string
	for len(args) > 0 {
		if err := fs.Parse(args); err != nil {
			return err
		}
		if fs.NArg() == 0 {
			break
		}
		pos, args = append(pos, fs.Arg(0)), fs.Args()[1:]
	}
	if len(pos) < 1 || len(pos) > 2 || !common.IsHexAddress(pos[0]) {
		return errors.New("send needs a recipient address and, optionally, the calldata")
	}
	if *rpcURL == "" {
		return errors.New("no RPC URL: pass --rpc-url or set ETH_RPC_URL")
	}
	key, err := crypto.HexToECDSA(strings.TrimPrefix(*keyHex, "0x"))
	if err != nil {
		return fmt.Errorf("--private-key: %w", err)
	}
	to := common.HexToAddress(pos[0])
	var data []byte
	if len(pos) == 2 && pos[1] != "0x" {
		if data, err = hexutil.Decode(pos[1]); err != nil {
			return fmt.Errorf("calldata: %w", err)
		}
	}
	value, err := parseValue(*valueText)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c, err := ethclient.DialContext(ctx, *rpcURL)
	if err != nil {
		return err
	}
	defer c.Close()
	from := crypto.PubkeyToAddress(key.PublicKey)
	chainID, err := c.ChainID(ctx)
	if err != nil {
		return err
	}
	nonce, err := c.PendingNonceAt(ctx, from)
	if err != nil {
		return err
	}
	gas, err := c.EstimateGas(ctx, ethereum.CallMsg{From: from, To: &to, Value: value, Data: data})
	if err != nil {
		return fmt.Errorf("the transaction would fail: %w", err)
	}
	tip, err := c.SuggestGasTipCap(ctx)
	if err != nil {
		return err
	}
	head, err := c.HeaderByNumber(ctx, nil)
	if err != nil {
		return err
	}
	feeCap := new(big.Int).Add(new(big.Int).Mul(head.BaseFee, big.NewInt(2)), tip)
	tx, err := types.SignTx(types.NewTx(&types.DynamicFeeTx{
		ChainID: chainID, Nonce: nonce, GasTipCap: tip, GasFeeCap: feeCap, Gas: gas, To: &to, Value: value, Data: data,
	}), types.LatestSignerForChainID(chainID), key)
	if err != nil {
		return err
	}
	if err := c.SendTransaction(ctx, tx); err != nil {
		return err
	}
	receipt, err := bind.WaitMined(ctx, c, tx.Hash())
	if err != nil {
		return err
	}
	fmt.Println(tx.Hash().Hex())
	if receipt.Status != types.ReceiptStatusSuccessful {
		return fmt.Errorf("transaction %s reverted", tx.Hash().Hex())
	}
	return nil
}

// parseValue reads wei ("1000") or whole ether ("1ether", "0.5ether") exactly.
func parseValue(s string) (*big.Int, error) {
	if n, ok := strings.CutSuffix(s, "ether"); ok {
		r, ok := new(big.Rat).SetString(n)
		if !ok || r.Sign() < 0 {
			return nil, fmt.Errorf("--value %q is not an amount of ether", s)
		}
		r.Mul(r, new(big.Rat).SetInt(big.NewInt(1e18)))
		if !r.IsInt() {
			return nil, fmt.Errorf("--value %q has more than 18 decimals", s)
		}
		return r.Num(), nil
	}
	v, ok := new(big.Int).SetString(s, 10)
	if !ok || v.Sign() < 0 {
		return nil, fmt.Errorf("--value %q is not an amount of wei", s)
	}
	return v, nil
}
