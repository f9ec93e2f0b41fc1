// Code generated via abigen V2 - DO NOT EDIT.
// This file is a generated binding and any manual changes will be lost.

package bindings

import (
	"bytes"
	"errors"
	"math/big"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/accounts/abi/bind/v2"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
)

// Reference imports to suppress errors if they are not otherwise used.
var (
	_ = bytes.Equal
	_ = errors.New
	_ = big.NewInt
	_ = common.Big1
	_ = types.BloomLookup
	_ = abi.ConvertType
)

// CurveTokenMetaData contains all meta data concerning the CurveToken contract.
var CurveTokenMetaData = bind.MetaData{
	ABI: "[{\"inputs\":[{\"internalType\":\"string\",\"name\":\"name_\",\"type\":\"string\"},{\"internalType\":\"string\",\"name\":\"symbol_\",\"type\":\"string\"},{\"internalType\":\"string\",\"name\":\"uri_\",\"type\":\"string\"},{\"internalType\":\"uint256\",\"name\":\"supply\",\"type\":\"uint256\"},{\"internalType\":\"address\",\"name\":\"mintTo\",\"type\":\"address\"}],\"stateMutability\":\"nonpayable\",\"type\":\"constructor\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"spender\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"allowance\",\"type\":\"uint256\"},{\"internalType\":\"uint256\",\"name\":\"needed\",\"type\":\"uint256\"}],\"name\":\"ERC20InsufficientAllowance\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"sender\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"balance\",\"type\":\"uint256\"},{\"internalType\":\"uint256\",\"name\":\"needed\",\"type\":\"uint256\"}],\"name\":\"ERC20InsufficientBalance\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"approver\",\"type\":\"address\"}],\"name\":\"ERC20InvalidApprover\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"receiver\",\"type\":\"address\"}],\"name\":\"ERC20InvalidReceiver\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"sender\",\"type\":\"address\"}],\"name\":\"ERC20InvalidSender\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"spender\",\"type\":\"address\"}],\"name\":\"ERC20InvalidSpender\",\"type\":\"error\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"address\",\"name\":\"owner\",\"type\":\"address\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"spender\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"uint256\",\"name\":\"value\",\"type\":\"uint256\"}],\"name\":\"Approval\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"address\",\"name\":\"from\",\"type\":\"address\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"to\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"uint256\",\"name\":\"value\",\"type\":\"uint256\"}],\"name\":\"Transfer\",\"type\":\"event\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"owner\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"spender\",\"type\":\"address\"}],\"name\":\"allowance\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"spender\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"value\",\"type\":\"uint256\"}],\"name\":\"approve\",\"outputs\":[{\"internalType\":\"bool\",\"name\":\"\",\"type\":\"bool\"}],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"account\",\"type\":\"address\"}],\"name\":\"balanceOf\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"amount\",\"type\":\"uint256\"}],\"name\":\"burn\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"decimals\",\"outputs\":[{\"internalType\":\"uint8\",\"name\":\"\",\"type\":\"uint8\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"name\",\"outputs\":[{\"internalType\":\"string\",\"name\":\"\",\"type\":\"string\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"symbol\",\"outputs\":[{\"internalType\":\"string\",\"name\":\"\",\"type\":\"string\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"totalSupply\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"to\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"value\",\"type\":\"uint256\"}],\"name\":\"transfer\",\"outputs\":[{\"internalType\":\"bool\",\"name\":\"\",\"type\":\"bool\"}],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"from\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"to\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"value\",\"type\":\"uint256\"}],\"name\":\"transferFrom\",\"outputs\":[{\"internalType\":\"bool\",\"name\":\"\",\"type\":\"bool\"}],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"uri\",\"outputs\":[{\"internalType\":\"string\",\"name\":\"\",\"type\":\"string\"}],\"stateMutability\":\"view\",\"type\":\"function\"}]",
	ID:  "CurveToken",
	Bin: "0x60806040523461053757610d4a803803806100198161053b565b92833981019060a0818303126105375780516001600160401b0381116105375782610045918301610560565b60208201516001600160401b0381116105375783610064918401610560565b604083015190936001600160401b03821161053757610084918401610560565b91608060608201519101519160018060a01b038316809303610537578051906001600160401b03821161034c5760035490600182811c9216801561052d575b602083101461032e5781601f8493116104b7575b50602090601f8311600114610451575f92610446575b50508160011b915f199060031b1c1916176003555b83516001600160401b03811161034c57600454600181811c9116801561043c575b602082101461032e57601f81116103ce575b50602094601f821160011461036b579481929394955f92610360575b50508160011b915f199060031b1c1916176004555b82516001600160401b03811161034c57600554600181811c91168015610342575b602082101461032e57601f81116102bf575b506020601f821160011461025c57819293945f92610251575b50508160011b915f199060031b1c1916176005555b811561023e576002549080820180921161022a5760207fddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef915f9360025584845283825260408420818154019055604051908152a360405161079890816105b28239f35b634e487b7160e01b5f52601160045260245ffd5b63ec442f0560e01b5f525f60045260245ffd5b015190505f806101b2565b601f1982169060055f52805f20915f5b8181106102a75750958360019596971061028f575b505050811b016005556101c7565b01515f1960f88460031b161c191690555f8080610281565b9192602060018192868b01518155019401920161026c565b818111156101995760055f819052601f8301901c7f036b6384b5eca791c62761152d0c79bb0604c104a5fb6f4eb0703f3154bb3db060208410610326575b81601f9101920160051c03905f5b828110610319575050610199565b5f8282015560010161030b565b5f91506102fd565b634e487b7160e01b5f52602260045260245ffd5b90607f1690610187565b634e487b7160e01b5f52604160045260245ffd5b015190505f80610151565b601f1982169560045f52805f20915f5b8881106103b65750836001959697981061039e575b505050811b01600455610166565b01515f1960f88460031b161c191690555f8080610390565b9192602060018192868501518155019401920161037b565b818111156101355760045f52601f820160051c7f8a35acfbc15ff81a39ae7d344fd709f28e8600b4aa8c65c6b64bfe7fe36bd19b60208410610434575b81601f9101920160051c03905f5b828110610427575050610135565b5f82820155600101610419565b5f915061040b565b90607f1690610123565b015190505f806100ed565b60035f9081528281209350601f198516905b81811061049f5750908460019594939210610487575b505050811b01600355610102565b01515f1960f88460031b161c191690555f8080610479565b92936020600181928786015181550195019301610463565b828111156100d75760035f52909150601f830160051c7fc2575a0e9e593c00f959f8c92f12db2869c3395a3b0502d05e2516446f71f85b60208510610525575b849392601f0160051c82900391015f5b8281106105155750506100d7565b5f81830155859450600101610507565b5f91506104f7565b91607f16916100c3565b5f80fd5b6040519190601f01601f191682016001600160401b0381118382101761034c57604052565b81601f82011215610537578051906001600160401b03821161034c5761058f601f8301601f191660200161053b565b928284526020838301011161053757815f9260208093018386015e830101529056fe6080806040526004361015610012575f80fd5b5f3560e01c90816306fdde031461059357508063095ea7b31461051157806318160ddd146104f457806323b872dd14610415578063313ce567146103fa57806342966c681461035a57806370a082311461032357806395d89b4114610235578063a9059cbb14610204578063dd62ed3e146101b45763eac989f814610095575f80fd5b346101b0575f3660031901126101b0576040515f6005548060011c906001811680156101a6575b602083108114610192578285529081156101765750600114610121575b50819003601f01601f191681019067ffffffffffffffff82118183101761010d5761010982918260405282610662565b0390f35b634e487b7160e01b5f52604160045260245ffd5b905060055f527f036b6384b5eca791c62761152d0c79bb0604c104a5fb6f4eb0703f3154bb3db05f905b8282106101605750602091508201015f6100d9565b600181602092548385880101520191019061014b565b90506020925060ff191682840152151560051b8201015f6100d9565b634e487b7160e01b5f52602260045260245ffd5b91607f16916100bc565b5f80fd5b346101b05760403660031901126101b0576101cd61068c565b6101d56106a2565b6001600160a01b039182165f908152600160209081526040808320949093168252928352819020549051908152f35b346101b05760403660031901126101b05761022a61022061068c565b60243590336106b8565b602060405160018152f35b346101b0575f3660031901126101b0576040515f6004548060011c90600181168015610319575b602083108114610192578285529081156102fd57506001146102a85750819003601f01601f191681019067ffffffffffffffff82118183101761010d5761010982918260405282610662565b905060045f527f8a35acfbc15ff81a39ae7d344fd709f28e8600b4aa8c65c6b64bfe7fe36bd19b5f905b8282106102e7575060209150820101826100d9565b60018160209254838588010152019101906102d2565b90506020925060ff191682840152151560051b820101826100d9565b91607f169161025c565b346101b05760203660031901126101b0576001600160a01b0361034461068c565b165f525f602052602060405f2054604051908152f35b346101b05760203660031901126101b05760043533156103e757335f525f60205260405f20548181106103ce5790805f923384528360205203604083205580600254036002556040519081527fddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef60203392a3005b63391434e360e21b5f523360045260245260445260645ffd5b634b637e8f60e11b5f525f60045260245ffd5b346101b0575f3660031901126101b057602060405160128152f35b346101b05760603660031901126101b05761042e61068c565b6104366106a2565b6001600160a01b0382165f818152600160209081526040808320338452909152902054909260443592915f198110610474575b5061022a93506106b8565b8381106104d95784156104c65733156104b35761022a945f52600160205260405f2060018060a01b0333165f526020528360405f209103905584610469565b634a1406b160e11b5f525f60045260245ffd5b63e602df0560e01b5f525f60045260245ffd5b8390637dc7a0d960e11b5f523360045260245260445260645ffd5b346101b0575f3660031901126101b0576020600254604051908152f35b346101b05760403660031901126101b05761052a61068c565b6024359033156104c6576001600160a01b03169081156104b357335f52600160205260405f20825f526020528060405f20556040519081527f8c5be1e5ebec7d5bd14f71427d1e84f3dd0314c0f7b2291e5b200ac8c7c3b92560203392a3602060405160018152f35b346101b0575f3660031901126101b0575f6003548060011c90600181168015610658575b602083108114610192578285529081156102fd57506001146106035750819003601f01601f191681019067ffffffffffffffff82118183101761010d5761010982918260405282610662565b905060035f527fc2575a0e9e593c00f959f8c92f12db2869c3395a3b0502d05e2516446f71f85b5f905b828210610642575060209150820101826100d9565b600181602092548385880101520191019061062d565b91607f16916105b7565b602060409281835280519182918282860152018484015e5f828201840152601f01601f1916010190565b600435906001600160a01b03821682036101b057565b602435906001600160a01b03821682036101b057565b6001600160a01b03169081156103e7576001600160a01b031691821561074f57815f525f60205260405f205481811061073657817fddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef92602092855f525f84520360405f2055845f525f825260405f20818154019055604051908152a3565b8263391434e360e21b5f5260045260245260445260645ffd5b63ec442f0560e01b5f525f60045260245ffdfea264697066735822122001462a2168ab1e9a527b6a9423d0407a2ad138be44ea1e3921e1117b1d63f92f64736f6c63430008250033",
}

// CurveToken is an auto generated Go binding around an Ethereum contract.
type CurveToken struct {
	abi abi.ABI
}

// GetABI returns the ABI associated with this contract binding.
func (c *CurveToken) GetABI() abi.ABI {
	return c.abi
}

// NewCurveToken creates a new instance of CurveToken.
func NewCurveToken() *CurveToken {
	parsed, err := CurveTokenMetaData.ParseABI()
	if err != nil {
		panic(errors.New("invalid ABI: " + err.Error()))
	}
	return &CurveToken{abi: *parsed}
}

// Instance creates a wrapper for a deployed contract instance at the given address.
// Use this to create the instance object passed to abigen v2 library functions Call, Transact, etc.
func (c *CurveToken) Instance(backend bind.ContractBackend, addr common.Address) *bind.BoundContract {
	return bind.NewBoundContract(addr, c.abi, backend, backend, backend)
}

// PackConstructor is the Go binding used to pack the parameters required for
// contract deployment.
//
// Solidity: constructor(string name_, string symbol_, string uri_, uint256 supply, address mintTo) returns()
func (curveToken *CurveToken) PackConstructor(name_ string, symbol_ string, uri_ string, supply *big.Int, mintTo common.Address) []byte {
	enc, err := curveToken.abi.Pack("", name_, symbol_, uri_, supply, mintTo)
	if err != nil {
		panic(err)
	}
	return enc
}

// PackAllowance is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xdd62ed3e.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function allowance(address owner, address spender) view returns(uint256)
func (curveToken *CurveToken) PackAllowance(owner common.Address, spender common.Address) []byte {
	enc, err := curveToken.abi.Pack("allowance", owner, spender)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackAllowance is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xdd62ed3e.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function allowance(address owner, address spender) view returns(uint256)
func (curveToken *CurveToken) TryPackAllowance(owner common.Address, spender common.Address) ([]byte, error) {
	return curveToken.abi.Pack("allowance", owner, spender)
}

// UnpackAllowance is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xdd62ed3e.
//
// Solidity: function allowance(address owner, address spender) view returns(uint256)
func (curveToken *CurveToken) UnpackAllowance(data []byte) (*big.Int, error) {
	out, err := curveToken.abi.Unpack("allowance", data)
	if err != nil {
		return new(big.Int), err
	}
	out0 := abi.ConvertType(out[0], new(big.Int)).(*big.Int)
	return out0, nil
}

// PackApprove is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x095ea7b3.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function approve(address spender, uint256 value) returns(bool)
func (curveToken *CurveToken) PackApprove(spender common.Address, value *big.Int) []byte {
	enc, err := curveToken.abi.Pack("approve", spender, value)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackApprove is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x095ea7b3.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function approve(address spender, uint256 value) returns(bool)
func (curveToken *CurveToken) TryPackApprove(spender common.Address, value *big.Int) ([]byte, error) {
	return curveToken.abi.Pack("approve", spender, value)
}

// UnpackApprove is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x095ea7b3.
//
// Solidity: function approve(address spender, uint256 value) returns(bool)
func (curveToken *CurveToken) UnpackApprove(data []byte) (bool, error) {
	out, err := curveToken.abi.Unpack("approve", data)
	if err != nil {
		return *new(bool), err
	}
	out0 := *abi.ConvertType(out[0], new(bool)).(*bool)
	return out0, nil
}

// PackBalanceOf is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x70a08231.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function balanceOf(address account) view returns(uint256)
func (curveToken *CurveToken) PackBalanceOf(account common.Address) []byte {
	enc, err := curveToken.abi.Pack("balanceOf", account)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackBalanceOf is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x70a08231.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function balanceOf(address account) view returns(uint256)
func (curveToken *CurveToken) TryPackBalanceOf(account common.Address) ([]byte, error) {
	return curveToken.abi.Pack("balanceOf", account)
}

// UnpackBalanceOf is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x70a08231.
//
// Solidity: function balanceOf(address account) view returns(uint256)
func (curveToken *CurveToken) UnpackBalanceOf(data []byte) (*big.Int, error) {
	out, err := curveToken.abi.Unpack("balanceOf", data)
	if err != nil {
		return new(big.Int), err
	}
	out0 := abi.ConvertType(out[0], new(big.Int)).(*big.Int)
	return out0, nil
}

// PackBurn is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x42966c68.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function burn(uint256 amount) returns()
func (curveToken *CurveToken) PackBurn(amount *big.Int) []byte {
	enc, err := curveToken.abi.Pack("burn", amount)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackBurn is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x42966c68.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function burn(uint256 amount) returns()
func (curveToken *CurveToken) TryPackBurn(amount *big.Int) ([]byte, error) {
	return curveToken.abi.Pack("burn", amount)
}

// PackDecimals is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x313ce567.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function decimals() view returns(uint8)
func (curveToken *CurveToken) PackDecimals() []byte {
	enc, err := curveToken.abi.Pack("decimals")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackDecimals is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x313ce567.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function decimals() view returns(uint8)
func (curveToken *CurveToken) TryPackDecimals() ([]byte, error) {
	return curveToken.abi.Pack("decimals")
}

// UnpackDecimals is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x313ce567.
//
// Solidity: function decimals() view returns(uint8)
func (curveToken *CurveToken) UnpackDecimals(data []byte) (uint8, error) {
	out, err := curveToken.abi.Unpack("decimals", data)
	if err != nil {
		return *new(uint8), err
	}
	out0 := *abi.ConvertType(out[0], new(uint8)).(*uint8)
	return out0, nil
}

// PackName is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x06fdde03.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function name() view returns(string)
func (curveToken *CurveToken) PackName() []byte {
	enc, err := curveToken.abi.Pack("name")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackName is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x06fdde03.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function name() view returns(string)
func (curveToken *CurveToken) TryPackName() ([]byte, error) {
	return curveToken.abi.Pack("name")
}

// UnpackName is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x06fdde03.
//
// Solidity: function name() view returns(string)
func (curveToken *CurveToken) UnpackName(data []byte) (string, error) {
	out, err := curveToken.abi.Unpack("name", data)
	if err != nil {
		return *new(string), err
	}
	out0 := *abi.ConvertType(out[0], new(string)).(*string)
	return out0, nil
}

// PackSymbol is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x95d89b41.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function symbol() view returns(string)
func (curveToken *CurveToken) PackSymbol() []byte {
	enc, err := curveToken.abi.Pack("symbol")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackSymbol is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x95d89b41.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function symbol() view returns(string)
func (curveToken *CurveToken) TryPackSymbol() ([]byte, error) {
	return curveToken.abi.Pack("symbol")
}

// UnpackSymbol is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x95d89b41.
//
// Solidity: function symbol() view returns(string)
func (curveToken *CurveToken) UnpackSymbol(data []byte) (string, error) {
	out, err := curveToken.abi.Unpack("symbol", data)
	if err != nil {
		return *new(string), err
	}
	out0 := *abi.ConvertType(out[0], new(string)).(*string)
	return out0, nil
}

// PackTotalSupply is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x18160ddd.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function totalSupply() view returns(uint256)
func (curveToken *CurveToken) PackTotalSupply() []byte {
	enc, err := curveToken.abi.Pack("totalSupply")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackTotalSupply is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x18160ddd.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function totalSupply() view returns(uint256)
func (curveToken *CurveToken) TryPackTotalSupply() ([]byte, error) {
	return curveToken.abi.Pack("totalSupply")
}

// UnpackTotalSupply is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x18160ddd.
//
// Solidity: function totalSupply() view returns(uint256)
func (curveToken *CurveToken) UnpackTotalSupply(data []byte) (*big.Int, error) {
	out, err := curveToken.abi.Unpack("totalSupply", data)
	if err != nil {
		return new(big.Int), err
	}
	out0 := abi.ConvertType(out[0], new(big.Int)).(*big.Int)
	return out0, nil
}

// PackTransfer is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xa9059cbb.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function transfer(address to, uint256 value) returns(bool)
func (curveToken *CurveToken) PackTransfer(to common.Address, value *big.Int) []byte {
	enc, err := curveToken.abi.Pack("transfer", to, value)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackTransfer is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xa9059cbb.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function transfer(address to, uint256 value) returns(bool)
func (curveToken *CurveToken) TryPackTransfer(to common.Address, value *big.Int) ([]byte, error) {
	return curveToken.abi.Pack("transfer", to, value)
}

// UnpackTransfer is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xa9059cbb.
//
// Solidity: function transfer(address to, uint256 value) returns(bool)
func (curveToken *CurveToken) UnpackTransfer(data []byte) (bool, error) {
	out, err := curveToken.abi.Unpack("transfer", data)
	if err != nil {
		return *new(bool), err
	}
	out0 := *abi.ConvertType(out[0], new(bool)).(*bool)
	return out0, nil
}

// PackTransferFrom is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x23b872dd.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function transferFrom(address from, address to, uint256 value) returns(bool)
func (curveToken *CurveToken) PackTransferFrom(from common.Address, to common.Address, value *big.Int) []byte {
	enc, err := curveToken.abi.Pack("transferFrom", from, to, value)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackTransferFrom is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x23b872dd.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function transferFrom(address from, address to, uint256 value) returns(bool)
func (curveToken *CurveToken) TryPackTransferFrom(from common.Address, to common.Address, value *big.Int) ([]byte, error) {
	return curveToken.abi.Pack("transferFrom", from, to, value)
}

// UnpackTransferFrom is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x23b872dd.
//
// Solidity: function transferFrom(address from, address to, uint256 value) returns(bool)
func (curveToken *CurveToken) UnpackTransferFrom(data []byte) (bool, error) {
	out, err := curveToken.abi.Unpack("transferFrom", data)
	if err != nil {
		return *new(bool), err
	}
	out0 := *abi.ConvertType(out[0], new(bool)).(*bool)
	return out0, nil
}

// PackUri is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xeac989f8.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function uri() view returns(string)
func (curveToken *CurveToken) PackUri() []byte {
	enc, err := curveToken.abi.Pack("uri")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackUri is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xeac989f8.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function uri() view returns(string)
func (curveToken *CurveToken) TryPackUri() ([]byte, error) {
	return curveToken.abi.Pack("uri")
}

// UnpackUri is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xeac989f8.
//
// Solidity: function uri() view returns(string)
func (curveToken *CurveToken) UnpackUri(data []byte) (string, error) {
	out, err := curveToken.abi.Unpack("uri", data)
	if err != nil {
		return *new(string), err
	}
	out0 := *abi.ConvertType(out[0], new(string)).(*string)
	return out0, nil
}

// CurveTokenApproval represents a Approval event raised by the CurveToken contract.
type CurveTokenApproval struct {
	Owner   common.Address
	Spender common.Address
	Value   *big.Int
	Raw     *types.Log // Blockchain specific contextual infos
}

const CurveTokenApprovalEventName = "Approval"

// ContractEventName returns the user-defined event name.
func (CurveTokenApproval) ContractEventName() string {
	return CurveTokenApprovalEventName
}

// UnpackApprovalEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event Approval(address indexed owner, address indexed spender, uint256 value)
func (curveToken *CurveToken) UnpackApprovalEvent(log *types.Log) (*CurveTokenApproval, error) {
	event := "Approval"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != curveToken.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(CurveTokenApproval)
	if len(log.Data) > 0 {
		if err := curveToken.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range curveToken.abi.Events[event].Inputs {
		if arg.Indexed {
			indexed = append(indexed, arg)
		}
	}
	if err := abi.ParseTopics(out, indexed, log.Topics[1:]); err != nil {
		return nil, err
	}
	out.Raw = log
	return out, nil
}

// CurveTokenTransfer represents a Transfer event raised by the CurveToken contract.
type CurveTokenTransfer struct {
	From  common.Address
	To    common.Address
	Value *big.Int
	Raw   *types.Log // Blockchain specific contextual infos
}

const CurveTokenTransferEventName = "Transfer"

// ContractEventName returns the user-defined event name.
func (CurveTokenTransfer) ContractEventName() string {
	return CurveTokenTransferEventName
}

// UnpackTransferEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event Transfer(address indexed from, address indexed to, uint256 value)
func (curveToken *CurveToken) UnpackTransferEvent(log *types.Log) (*CurveTokenTransfer, error) {
	event := "Transfer"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != curveToken.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(CurveTokenTransfer)
	if len(log.Data) > 0 {
		if err := curveToken.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range curveToken.abi.Events[event].Inputs {
		if arg.Indexed {
			indexed = append(indexed, arg)
		}
	}
	if err := abi.ParseTopics(out, indexed, log.Topics[1:]); err != nil {
		return nil, err
	}
	out.Raw = log
	return out, nil
}

// UnpackError attempts to decode the provided error data using user-defined
// error definitions.
func (curveToken *CurveToken) UnpackError(raw []byte) (any, error) {
	if bytes.Equal(raw[:4], curveToken.abi.Errors["ERC20InsufficientAllowance"].ID.Bytes()[:4]) {
		return curveToken.UnpackERC20InsufficientAllowanceError(raw[4:])
	}
	if bytes.Equal(raw[:4], curveToken.abi.Errors["ERC20InsufficientBalance"].ID.Bytes()[:4]) {
		return curveToken.UnpackERC20InsufficientBalanceError(raw[4:])
	}
	if bytes.Equal(raw[:4], curveToken.abi.Errors["ERC20InvalidApprover"].ID.Bytes()[:4]) {
		return curveToken.UnpackERC20InvalidApproverError(raw[4:])
	}
	if bytes.Equal(raw[:4], curveToken.abi.Errors["ERC20InvalidReceiver"].ID.Bytes()[:4]) {
		return curveToken.UnpackERC20InvalidReceiverError(raw[4:])
	}
	if bytes.Equal(raw[:4], curveToken.abi.Errors["ERC20InvalidSender"].ID.Bytes()[:4]) {
		return curveToken.UnpackERC20InvalidSenderError(raw[4:])
	}
	if bytes.Equal(raw[:4], curveToken.abi.Errors["ERC20InvalidSpender"].ID.Bytes()[:4]) {
		return curveToken.UnpackERC20InvalidSpenderError(raw[4:])
	}
	return nil, errors.New("Unknown error")
}

// CurveTokenERC20InsufficientAllowance represents a ERC20InsufficientAllowance error raised by the CurveToken contract.
type CurveTokenERC20InsufficientAllowance struct {
	Spender   common.Address
	Allowance *big.Int
	Needed    *big.Int
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error ERC20InsufficientAllowance(address spender, uint256 allowance, uint256 needed)
func CurveTokenERC20InsufficientAllowanceErrorID() common.Hash {
	return common.HexToHash("0xfb8f41b23e99d2101d86da76cdfa87dd51c82ed07d3cb62cbc473e469dbc75c3")
}

// UnpackERC20InsufficientAllowanceError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error ERC20InsufficientAllowance(address spender, uint256 allowance, uint256 needed)
func (curveToken *CurveToken) UnpackERC20InsufficientAllowanceError(raw []byte) (*CurveTokenERC20InsufficientAllowance, error) {
	out := new(CurveTokenERC20InsufficientAllowance)
	if err := curveToken.abi.UnpackIntoInterface(out, "ERC20InsufficientAllowance", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// CurveTokenERC20InsufficientBalance represents a ERC20InsufficientBalance error raised by the CurveToken contract.
type CurveTokenERC20InsufficientBalance struct {
	Sender  common.Address
	Balance *big.Int
	Needed  *big.Int
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error ERC20InsufficientBalance(address sender, uint256 balance, uint256 needed)
func CurveTokenERC20InsufficientBalanceErrorID() common.Hash {
	return common.HexToHash("0xe450d38cd8d9f7d95077d567d60ed49c7254716e6ad08fc9872816c97e0ffec6")
}

// UnpackERC20InsufficientBalanceError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error ERC20InsufficientBalance(address sender, uint256 balance, uint256 needed)
func (curveToken *CurveToken) UnpackERC20InsufficientBalanceError(raw []byte) (*CurveTokenERC20InsufficientBalance, error) {
	out := new(CurveTokenERC20InsufficientBalance)
	if err := curveToken.abi.UnpackIntoInterface(out, "ERC20InsufficientBalance", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// CurveTokenERC20InvalidApprover represents a ERC20InvalidApprover error raised by the CurveToken contract.
type CurveTokenERC20InvalidApprover struct {
	Approver common.Address
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error ERC20InvalidApprover(address approver)
func CurveTokenERC20InvalidApproverErrorID() common.Hash {
	return common.HexToHash("0xe602df05cc75712490294c6c104ab7c17f4030363910a7a2626411c6d3118847")
}

// UnpackERC20InvalidApproverError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error ERC20InvalidApprover(address approver)
func (curveToken *CurveToken) UnpackERC20InvalidApproverError(raw []byte) (*CurveTokenERC20InvalidApprover, error) {
	out := new(CurveTokenERC20InvalidApprover)
	if err := curveToken.abi.UnpackIntoInterface(out, "ERC20InvalidApprover", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// CurveTokenERC20InvalidReceiver represents a ERC20InvalidReceiver error raised by the CurveToken contract.
type CurveTokenERC20InvalidReceiver struct {
	Receiver common.Address
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error ERC20InvalidReceiver(address receiver)
func CurveTokenERC20InvalidReceiverErrorID() common.Hash {
	return common.HexToHash("0xec442f055133b72f3b2f9f0bb351c406b178527de2040a7d1feb4e058771f613")
}

// UnpackERC20InvalidReceiverError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error ERC20InvalidReceiver(address receiver)
func (curveToken *CurveToken) UnpackERC20InvalidReceiverError(raw []byte) (*CurveTokenERC20InvalidReceiver, error) {
	out := new(CurveTokenERC20InvalidReceiver)
	if err := curveToken.abi.UnpackIntoInterface(out, "ERC20InvalidReceiver", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// CurveTokenERC20InvalidSender represents a ERC20InvalidSender error raised by the CurveToken contract.
type CurveTokenERC20InvalidSender struct {
	Sender common.Address
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error ERC20InvalidSender(address sender)
func CurveTokenERC20InvalidSenderErrorID() common.Hash {
	return common.HexToHash("0x96c6fd1edd0cd6ef7ff0ecc0facdf53148dc0048b57fe58af65755250a7a96bd")
}

// UnpackERC20InvalidSenderError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error ERC20InvalidSender(address sender)
func (curveToken *CurveToken) UnpackERC20InvalidSenderError(raw []byte) (*CurveTokenERC20InvalidSender, error) {
	out := new(CurveTokenERC20InvalidSender)
	if err := curveToken.abi.UnpackIntoInterface(out, "ERC20InvalidSender", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// CurveTokenERC20InvalidSpender represents a ERC20InvalidSpender error raised by the CurveToken contract.
type CurveTokenERC20InvalidSpender struct {
	Spender common.Address
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error ERC20InvalidSpender(address spender)
func CurveTokenERC20InvalidSpenderErrorID() common.Hash {
	return common.HexToHash("0x94280d62c347d8d9f4d59a76ea321452406db88df38e0c9da304f58b57b373a2")
}

// UnpackERC20InvalidSpenderError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error ERC20InvalidSpender(address spender)
func (curveToken *CurveToken) UnpackERC20InvalidSpenderError(raw []byte) (*CurveTokenERC20InvalidSpender, error) {
	out := new(CurveTokenERC20InvalidSpender)
	if err := curveToken.abi.UnpackIntoInterface(out, "ERC20InvalidSpender", raw); err != nil {
		return nil, err
	}
	return out, nil
}
