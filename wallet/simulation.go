package wallet

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math/big"
	"sort"
	"strings"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/curvekit/curvekit/contracts"
)

// Simulation is a transaction run against the pending state without being sent.
type Simulation struct {
	// Reverted is set when the call reverts; RevertData is what it returned then (an
	// Error(string), a Panic(uint256) or a contract's custom error), Reason the node's message.
	Reverted   bool
	RevertData []byte
	Reason     string
	GasUsed    uint64
	// Logs are the call's logs. With Traced they include the transfers of ETH, as the node's
	// eth_simulateV1 reports them (from the address 0xEeee…EEeE, with the ERC-20 Transfer
	// layout); without, the node could only eth_call, and Logs is empty.
	Logs   []types.Log
	Traced bool
}

// ethTransfers is the address eth_simulateV1 gives the ETH transfers it traces.
var ethTransfers = common.HexToAddress("0xEeeeeEeeeEeEeeEeEeEeeEEEeeeeEeeeeeeeEEeE")

// transferTopic is Transfer(address,address,uint256): ERC-20 transfers and traced ETH ones.
var transferTopic = crypto.Keccak256Hash([]byte("Transfer(address,address,uint256)"))

// BalanceChange is how a simulated transaction changes one balance of the wallet: Delta base
// units of Asset (the zero address for ETH), negative for what leaves.
type BalanceChange struct {
	Asset common.Address
	Delta *big.Int
}

// BalanceChanges reads self's balance changes from the simulation's Transfer logs, by asset (ETH
// first, then by address). Without traced ETH transfers, ETH leaves with value and nothing is known
// of what arrives. The gas fee is not among them.
func (sim *Simulation) BalanceChanges(self common.Address, value *big.Int) []BalanceChange {
	deltas := map[common.Address]*big.Int{}
	add := func(asset common.Address, v *big.Int) {
		d, ok := deltas[asset]
		if !ok {
			d = new(big.Int)
			deltas[asset] = d
		}
		d.Add(d, v)
	}
	if !sim.Traced && value.Sign() > 0 {
		add(common.Address{}, new(big.Int).Neg(value))
	}
	for i := range sim.Logs {
		l := &sim.Logs[i]
		if len(l.Topics) != 3 || l.Topics[0] != transferTopic || len(l.Data) != 32 {
			continue
		}
		asset := l.Address
		if asset == ethTransfers {
			asset = common.Address{}
		}
		from, to := common.BytesToAddress(l.Topics[1].Bytes()), common.BytesToAddress(l.Topics[2].Bytes())
		amount := new(big.Int).SetBytes(l.Data)
		if from == self {
			add(asset, new(big.Int).Neg(amount))
		}
		if to == self {
			add(asset, amount)
		}
	}
	out := make([]BalanceChange, 0, len(deltas))
	for a, d := range deltas {
		if d.Sign() != 0 {
			out = append(out, BalanceChange{Asset: a, Delta: d})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Asset.Cmp(out[j].Asset) < 0 })
	return out
}

// RevertReason says why a simulated call reverted: the Error(string) message, the Panic code's
// meaning, or a reference contract's custom error by name with its arguments.
func (sim *Simulation) RevertReason() string {
	if r := DecodeRevert(sim.RevertData); r != "" {
		return r
	}
	if sim.Reason != "" {
		return sim.Reason
	}
	return "execution reverted"
}

var (
	errorSelector = [4]byte{0x08, 0xc3, 0x79, 0xa0} // Error(string)
	panicSelector = [4]byte{0x4e, 0x48, 0x7b, 0x71} // Panic(uint256)
)

// panics are Solidity's panic codes.
var panics = map[uint64]string{
	0x01: "assertion failed", 0x11: "arithmetic overflow or underflow", 0x12: "division by zero",
	0x21: "invalid enum value", 0x22: "invalid storage byte array", 0x31: "pop from an empty array",
	0x32: "array index out of bounds", 0x41: "out of memory", 0x51: "call of an uninitialized function",
}

// customErrors are the reference contracts' errors by selector.
var customErrors = func() map[[4]byte]abi.Error {
	m := map[[4]byte]abi.Error{}
	for _, name := range []string{"BondingCurve", "LaunchFactory", "CurveToken", "Router", "Pair", "PoolFactory", "WETH9", "MockERC20"} {
		art, err := contracts.Load(name)
		if err != nil {
			panic(err) // embedded at build time
		}
		for _, e := range art.ABI.Errors {
			m[[4]byte(e.ID[:4])] = e
		}
	}
	return m
}()

// DecodeRevert decodes revert data; "" when there is none.
func DecodeRevert(data []byte) string {
	if len(data) < 4 {
		return ""
	}
	sel := [4]byte(data[:4])
	switch sel {
	case errorSelector:
		if vals, err := stringArg.Unpack(data[4:]); err == nil {
			return vals[0].(string)
		}
	case panicSelector:
		if len(data) == 36 {
			code := binary.BigEndian.Uint64(data[28:])
			if what, ok := panics[code]; ok {
				return fmt.Sprintf("panic 0x%x: %s", code, what)
			}
			return fmt.Sprintf("panic 0x%x", code)
		}
	}
	e, ok := customErrors[sel]
	if !ok {
		return "custom error 0x" + hex.EncodeToString(data[:4])
	}
	vals, err := e.Inputs.Unpack(data[4:])
	if err != nil {
		return e.Name
	}
	args := make([]string, len(vals))
	for i, v := range vals {
		args[i] = fmt.Sprintf("%s: %v", e.Inputs[i].Name, v)
		if e.Inputs[i].Name == "" {
			args[i] = fmt.Sprint(v)
		}
	}
	return e.Name + "(" + strings.Join(args, ", ") + ")"
}

// stringArg is Error(string)'s one argument.
var stringArg = func() abi.Arguments {
	typ, err := abi.NewType("string", "", nil)
	if err != nil {
		panic(err)
	}
	return abi.Arguments{{Type: typ}}
}()
