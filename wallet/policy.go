package wallet

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"

	"github.com/curvekit/curvekit/contracts"
)

// ErrNotUnderstood is the policy's answer to call data it cannot read: a selector it does not
// know, or arguments that are not in the canonical ABI encoding of a call it knows.
var ErrNotUnderstood = errors.New("call data not understood")

// Beneficiary is an address a transaction sends value, tokens or an allowance to, and why.
type Beneficiary struct {
	Address common.Address
	// Role says where the address comes from: "to" for the transaction's recipient, else the
	// argument and the call ("the spender of approve").
	Role string
}

// Call is a transaction's call as the policy reads it.
type Call struct {
	// Method is the decoded method's name; "" for a plain transfer of value (no call data).
	Method string
	// Beneficiaries lists the transaction's recipient first, then every argument of the call
	// that receives tokens or an allowance.
	Beneficiaries []Beneficiary
}

// known is one method the policy reads: its ABI and which of its arguments are beneficiaries.
type known struct {
	method *abi.Method
	// roles maps an argument's index to its role.
	roles map[int]string
}

// readable are the calls curvekit composes (txbuild) and the asset calls a wallet makes
// around them, by selector. What a key restricted to allowedRecipients may sign is exactly
// what this table can read. Whoever receives the output of a curve buy or sell, a fee claim,
// a launch or a WETH withdrawal is the sender itself, so those calls add no beneficiary.
var readable = buildReadable()

func buildReadable() map[[4]byte]known {
	weth, err := contracts.Load("WETH9")
	if err != nil {
		panic(err) // embedded at build time
	}
	table := map[[4]byte]known{}
	add := func(a *abi.ABI, name string, roleArgs ...string) {
		m, ok := a.Methods[name]
		if !ok {
			panic("wallet: the contracts have no method " + name)
		}
		k := known{method: &m, roles: map[int]string{}}
		for _, arg := range roleArgs {
			idx := -1
			for i, in := range m.Inputs {
				if in.Name == arg && in.Type.T == abi.AddressTy {
					idx = i
				}
			}
			if idx < 0 {
				panic("wallet: " + name + " has no address argument " + arg)
			}
			k.roles[idx] = fmt.Sprintf("the %s argument of %s", arg, name)
		}
		var sel [4]byte
		copy(sel[:], m.ID)
		if prev, dup := table[sel]; dup && prev.method.Sig != m.Sig {
			panic("wallet: selector collision between " + prev.method.Sig + " and " + m.Sig)
		}
		table[sel] = k
	}
	add(contracts.BondingCurveABI, "buy")
	add(contracts.BondingCurveABI, "sell")
	add(contracts.BondingCurveABI, "initialBuy", "recipient")
	add(contracts.BondingCurveABI, "claimCreatorFees")
	add(contracts.LaunchFactoryABI, "launch")
	add(contracts.RouterABI, "swapExactETHForTokens", "to")
	add(contracts.RouterABI, "swapExactTokensForETH", "to")
	add(contracts.RouterABI, "swapExactTokensForTokens", "to")
	add(contracts.ERC20ABI, "approve", "spender")
	add(contracts.ERC20ABI, "transfer", "to")
	add(contracts.ERC20ABI, "transferFrom", "to")
	add(weth.ABI, "deposit")
	add(weth.ABI, "withdraw")
	return table
}

// ReadCall decodes the call a transaction to `to` with data makes and lists every address that
// receives value, tokens or an allowance from it: `to` itself, then the call's recipients
// (a router swap's `to`, an approval's spender, a transfer's `to`). Empty data is a plain
// transfer of value to `to`. Data that is not the canonical encoding of a call in the table is
// ErrNotUnderstood: the arguments are decoded and encoded again and must give back the same
// bytes, so an encoding a contract might read otherwise (dirty high bits of an address, an
// offset pointing elsewhere, trailing bytes) never reaches the signer. ReadCall is pure.
func ReadCall(to common.Address, data []byte) (Call, error) {
	call, _, err := readCall(to, data)
	return call, err
}

// readCall is ReadCall with the call's decoded arguments, in the method's order.
func readCall(to common.Address, data []byte) (Call, []any, error) {
	call := Call{Beneficiaries: []Beneficiary{{Address: to, Role: "to"}}}
	if len(data) == 0 {
		return call, nil, nil
	}
	if len(data) < 4 {
		return Call{}, nil, fmt.Errorf("%w: %d bytes of call data are no selector", ErrNotUnderstood, len(data))
	}
	sel := [4]byte(data[:4])
	k, ok := readable[sel]
	if !ok {
		return Call{}, nil, fmt.Errorf("%w: selector 0x%x is not a call curvekit composes", ErrNotUnderstood, sel)
	}
	args, err := k.method.Inputs.Unpack(data[4:])
	if err != nil {
		return Call{}, nil, fmt.Errorf("%w: arguments of %s do not decode", ErrNotUnderstood, k.method.Sig)
	}
	again, err := k.method.Inputs.Pack(args...)
	if err != nil || !bytes.Equal(again, data[4:]) {
		return Call{}, nil, fmt.Errorf("%w: arguments of %s are not in the canonical ABI encoding", ErrNotUnderstood, k.method.Sig)
	}
	call.Method = k.method.Name
	for i := range k.method.Inputs {
		if role, ok := k.roles[i]; ok {
			call.Beneficiaries = append(call.Beneficiaries, Beneficiary{Address: args[i].(common.Address), Role: role})
		}
	}
	return call, args, nil
}

// launchSelector is the factory's launch, the one call that creates a token.
var launchSelector = [4]byte(contracts.LaunchFactoryABI.Methods["launch"].ID)

// isLaunch reports whether tx calls factory's launch. It reads the selector alone, not the
// arguments: whatever the factory would run as a launch counts, canonically encoded or not.
func isLaunch(factory common.Address, tx *Tx) bool {
	return tx.To == factory && len(tx.Data) >= 4 && [4]byte(tx.Data[:4]) == launchSelector
}
