package devnet

import (
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/accounts/abi/bind/v2"
	"github.com/ethereum/go-ethereum/ethclient"

	"github.com/curvekit/curvekit/contracts/bindings"
)

// RevertError is a call or transaction that the EVM reverted.
type RevertError struct {
	// Reason is the decoded revert: a custom error of the curvekit contracts with its arguments,
	// e.g. "DeadlineExpired(1700000000, 1700000100)", Error(string)'s message, "Panic(0x11)", or
	// the raw data in hex when nothing matched. Empty when the node returned no data.
	Reason string
	// Data is the raw revert data.
	Data []byte
	// Err is the node's error.
	Err error
}

func (e *RevertError) Error() string {
	if e.Reason == "" {
		return e.Err.Error()
	}
	return "execution reverted: " + e.Reason
}

func (e *RevertError) Unwrap() error { return e.Err }

// Is reports whether the revert is the custom error `name` (without arguments), e.g.
// IsRevert(err, "DeadlineExpired").
func IsRevert(err error, name string) bool {
	var re *RevertError
	if !errors.As(err, &re) {
		return false
	}
	return re.Reason == name || strings.HasPrefix(re.Reason, name+"(")
}

// wrapRevert turns a node error carrying revert data (or saying "execution reverted") into a
// *RevertError and returns other errors unchanged.
func wrapRevert(err error) error {
	data, ok := ethclient.RevertErrorData(err)
	if !ok {
		if strings.Contains(err.Error(), "execution reverted") {
			return &RevertError{Err: err}
		}
		return err
	}
	return &RevertError{Reason: DecodeRevert(data), Data: data, Err: err}
}

var (
	errorsOnce sync.Once
	errorsByID map[[4]byte]abi.Error
)

// knownErrors indexes the custom errors of every curvekit contract by selector.
func knownErrors() map[[4]byte]abi.Error {
	errorsOnce.Do(func() {
		errorsByID = map[[4]byte]abi.Error{}
		for _, md := range []*bind.MetaData{
			&bindings.BondingCurveMetaData, &bindings.CurveTokenMetaData, &bindings.LaunchFactoryMetaData,
			&bindings.MockERC20MetaData, &bindings.PairMetaData, &bindings.PoolFactoryMetaData,
			&bindings.RouterMetaData, &bindings.WETH9MetaData,
		} {
			parsed, err := md.ParseABI()
			if err != nil {
				panic(fmt.Sprintf("devnet: generated ABI does not parse: %v", err))
			}
			for _, e := range parsed.Errors {
				var id [4]byte
				copy(id[:], e.ID[:4])
				errorsByID[id] = e
			}
		}
	})
	return errorsByID
}

// DecodeRevert renders revert data: a curvekit custom error with its arguments, Error(string)'s
// message, a Panic(uint256) description, or 0x-hex when unknown.
func DecodeRevert(data []byte) string {
	if len(data) == 0 {
		return ""
	}
	if len(data) >= 4 {
		var id [4]byte
		copy(id[:], data[:4])
		if e, ok := knownErrors()[id]; ok {
			if args, err := e.Inputs.Unpack(data[4:]); err == nil {
				parts := make([]string, len(args))
				for i, a := range args {
					parts[i] = fmt.Sprint(a)
				}
				return e.Name + "(" + strings.Join(parts, ", ") + ")"
			}
		}
		// Error(string) gives its message, Panic(uint256) a description of the code.
		if msg, err := abi.UnpackRevert(data); err == nil {
			return msg
		}
	}
	return fmt.Sprintf("0x%x", data)
}
