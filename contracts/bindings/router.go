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

// RouterMetaData contains all meta data concerning the Router contract.
var RouterMetaData = bind.MetaData{
	ABI: "[{\"inputs\":[{\"internalType\":\"address\",\"name\":\"factory_\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"WETH_\",\"type\":\"address\"}],\"stateMutability\":\"nonpayable\",\"type\":\"constructor\"},{\"inputs\":[],\"name\":\"EthTransferFailed\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"deadline\",\"type\":\"uint256\"},{\"internalType\":\"uint256\",\"name\":\"timestamp\",\"type\":\"uint256\"}],\"name\":\"Expired\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"InsufficientInputAmount\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"InsufficientLiquidity\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"amountOut\",\"type\":\"uint256\"},{\"internalType\":\"uint256\",\"name\":\"amountOutMin\",\"type\":\"uint256\"}],\"name\":\"InsufficientOutputAmount\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"InvalidPath\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"NotWETH\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"tokenA\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"tokenB\",\"type\":\"address\"}],\"name\":\"PairNotFound\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"token\",\"type\":\"address\"}],\"name\":\"SafeERC20FailedOperation\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"WETH\",\"outputs\":[{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"factory\",\"outputs\":[{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"amountOut\",\"type\":\"uint256\"},{\"internalType\":\"address[]\",\"name\":\"path\",\"type\":\"address[]\"}],\"name\":\"getAmountsIn\",\"outputs\":[{\"internalType\":\"uint256[]\",\"name\":\"amounts\",\"type\":\"uint256[]\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"amountIn\",\"type\":\"uint256\"},{\"internalType\":\"address[]\",\"name\":\"path\",\"type\":\"address[]\"}],\"name\":\"getAmountsOut\",\"outputs\":[{\"internalType\":\"uint256[]\",\"name\":\"amounts\",\"type\":\"uint256[]\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"amountOutMin\",\"type\":\"uint256\"},{\"internalType\":\"address[]\",\"name\":\"path\",\"type\":\"address[]\"},{\"internalType\":\"address\",\"name\":\"to\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"deadline\",\"type\":\"uint256\"}],\"name\":\"swapExactETHForTokens\",\"outputs\":[{\"internalType\":\"uint256[]\",\"name\":\"amounts\",\"type\":\"uint256[]\"}],\"stateMutability\":\"payable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"amountIn\",\"type\":\"uint256\"},{\"internalType\":\"uint256\",\"name\":\"amountOutMin\",\"type\":\"uint256\"},{\"internalType\":\"address[]\",\"name\":\"path\",\"type\":\"address[]\"},{\"internalType\":\"address\",\"name\":\"to\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"deadline\",\"type\":\"uint256\"}],\"name\":\"swapExactTokensForETH\",\"outputs\":[{\"internalType\":\"uint256[]\",\"name\":\"amounts\",\"type\":\"uint256[]\"}],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"amountIn\",\"type\":\"uint256\"},{\"internalType\":\"uint256\",\"name\":\"amountOutMin\",\"type\":\"uint256\"},{\"internalType\":\"address[]\",\"name\":\"path\",\"type\":\"address[]\"},{\"internalType\":\"address\",\"name\":\"to\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"deadline\",\"type\":\"uint256\"}],\"name\":\"swapExactTokensForTokens\",\"outputs\":[{\"internalType\":\"uint256[]\",\"name\":\"amounts\",\"type\":\"uint256[]\"}],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"stateMutability\":\"payable\",\"type\":\"receive\"}]",
	ID:  "Router",
	Bin: "0x60c0346100a257601f61119438819003918201601f19168301916001600160401b038311848410176100a65780849260409485528339810103126100a257610052602061004b836100ba565b92016100ba565b9060805260a0526040516110c590816100cf823960805181818160f40152818161046a01528181610af00152610cd6015260a051818181601a01528181610139015281816101cf01526106eb0152f35b5f80fd5b634e487b7160e01b5f52604160045260245ffd5b51906001600160a01b03821682036100a25756fe60806040526004361015610059575b3615610018575f80fd5b7f00000000000000000000000000000000000000000000000000000000000000006001600160a01b0316330361004a57005b635724f38560e01b5f5260045ffd5b5f5f3560e01c806318cbafe5146106a05780631f00ca741461043b57806338ed1739146103735780637ff36ab514610168578063ad5c464814610123578063c45a0155146100de5763d06ca61f146100b1575061000e565b346100db576100d76100cb6100c536610a0c565b90610ad1565b6040519182918261092a565b0390f35b80fd5b50346100db57806003193601126100db576040517f00000000000000000000000000000000000000000000000000000000000000006001600160a01b03168152602090f35b50346100db57806003193601126100db576040517f00000000000000000000000000000000000000000000000000000000000000006001600160a01b03168152602090f35b5060803660031901126100db5760243567ffffffffffffffff811161033b576101959036906004016108aa565b6044359291906001600160a01b038416840361034a5760643542811061035d57508015610312576101c582610a50565b6001600160a01b037f0000000000000000000000000000000000000000000000000000000000000000811694911684900361034e5761020e6102083684866109b1565b34610ad1565b9361021b60043586610c61565b5061022585610a64565b51813b1561034a578260049160405192838092630d0e30db60e41b8252865af1801561033f57908391610326575b505061025e84610a50565b83600110156103125761027d9061027760208701610a50565b90610c9c565b61028686610a64565b5160405163a9059cbb60e01b85526001600160a01b0390921660045260245260208360448180865af19060018451148216156102f1575b604052156102de576100d7856100cb886102d836888a6109b1565b83610e05565b635274afe760e01b825260045260249150fd5b90600181151661030957823b15153d151616906102bd565b503d83823e3d90fd5b634e487b7160e01b83526032600452602483fd5b8161033091610963565b61033b57815f610253565b5080fd5b6040513d85823e3d90fd5b8280fd5b6320db826760e01b8152600490fd5b63aa2fd92560e01b845260045242602452604483fd5b50346100db57610382366108db565b9591929394909542811061042557506103a36103aa916100c53686886109b1565b9485610c61565b508115610411576001600160a01b036103c284610a50565b16906103cd84610a50565b9083600110156104115750926100d7959261040a6102d8936103f86100cb9761027760208701610a50565b61040189610a64565b51913390610d73565b36916109b1565b634e487b7160e01b81526032600452602490fd5b63aa2fd92560e01b835260045242602452604482fd5b50346100db5761044a36610a0c565b91600283511061034e576040516324a9d85360e01b8152926020846004817f00000000000000000000000000000000000000000000000000000000000000006001600160a01b03165afa938415610695578294610664575b506104ad8151610a9f565b9281515f1981019081116105ba576104c59085610a71565b5280515f198101949085116106505761ffff166127109081039490851190805b6104f757604051806100d7878261092a565b5f19810181811161063c576105336001600160a01b036105178387610a71565b51166001600160a01b0361052b8588610a71565b511690610f92565b61053d8489610a71565b519182156106235780158015610619575b61060a578261055c9161105e565b9161271083029280840461271014901517156105f65781039081116105e257846105e2579061058e896105949361105e565b90611071565b90600182018092116105ce576105aa9087610a71565b5280156105ba575f1901806104e5565b634e487b7160e01b84526011600452602484fd5b634e487b7160e01b86526011600452602486fd5b634e487b7160e01b87526011600452602487fd5b634e487b7160e01b88526011600452602488fd5b63bb55fd2760e01b8852600488fd5b508282111561054e565b63d28d3eb560e01b885260048890526001602452604488fd5b634e487b7160e01b85526011600452602485fd5b634e487b7160e01b83526011600452602483fd5b61068791945060203d60201161068e575b61067f8183610963565b810190610a85565b925f6104a2565b503d610675565b6040513d84823e3d90fd5b5034610859576106af366108db565b95939594919492909242811061089457505f198501858111610880578581101561085d576106e19060051b8201610a50565b6001600160a01b037f000000000000000000000000000000000000000000000000000000000000000081169391168390036108715761072861072f916100c53689866109b1565b9687610c61565b94801561085d576001600160a01b0361074783610a50565b1661075183610a50565b92826001101561085d5761077e6107879261077561078d9661027760208601610a50565b6104018c610a64565b309236916109b1565b87610e05565b803b15610859575f8091602460405180948193632e1a7d4d60e01b83528960048401525af1801561084e57610839575b508180809481935af13d15610834573d67ffffffffffffffff811161082057604051906107f4601f8201601f191660200183610963565b81528260203d92013e5b1561081157604051806100d7848261092a565b630db2c7f160e31b8152600490fd5b634e487b7160e01b83526041600452602483fd5b6107fe565b6108469192505f90610963565b5f905f6107bd565b6040513d5f823e3d90fd5b5f80fd5b634e487b7160e01b5f52603260045260245ffd5b6320db826760e01b5f5260045ffd5b634e487b7160e01b5f52601160045260245ffd5b63aa2fd92560e01b5f526004524260245260445ffd5b9181601f840112156108595782359167ffffffffffffffff8311610859576020808501948460051b01011161085957565b60a06003198201126108595760043591602435916044359067ffffffffffffffff82116108595761090e916004016108aa565b90916064356001600160a01b0381168103610859579060843590565b60206040818301928281528451809452019201905f5b81811061094d5750505090565b8251845260209384019390920191600101610940565b90601f8019910116810190811067ffffffffffffffff82111761098557604052565b634e487b7160e01b5f52604160045260245ffd5b67ffffffffffffffff81116109855760051b60200190565b92916109bc82610999565b936109ca6040519586610963565b602085848152019260051b810191821161085957915b8183106109ec57505050565b82356001600160a01b0381168103610859578152602092830192016109e0565b90604060031983011261085957600435916024359067ffffffffffffffff8211610859578060238301121561085957816024610a4d936004013591016109b1565b90565b356001600160a01b03811681036108595790565b80511561085d5760200190565b805182101561085d5760209160051b010190565b90816020910312610859575161ffff811681036108595790565b90610aa982610999565b610ab66040519182610963565b8281528092610ac7601f1991610999565b0190602036910137565b6002825110610871576040516324a9d85360e01b8152916020836004817f00000000000000000000000000000000000000000000000000000000000000006001600160a01b03165afa92831561084e575f93610c40575b50610b368194939451610a9f565b91610b4083610a64565b5261ffff5f941661271003906127108211945b81515f19810190811161088057811015610c39576001600160a01b03610b798284610a71565b511690600181019182821161088057610b9e906001600160a01b0361052b8587610a71565b9290610baa8388610a71565b51938415610c2a57811594858015610c22575b610c13578a61088057610bd388610bda9261105e565b918261105e565b94612710830292830461271014171561088057810180911161088057610c05610c0c91600195611071565b9187610a71565b5201610b53565b63bb55fd2760e01b5f5260045ffd5b508115610bbd565b63098fb56160e01b5f5260045ffd5b5050509150565b610c5a91935060203d60201161068e5761067f8183610963565b915f610b28565b80519192915f19810190811161088057610c7a91610a71565b5191808310610c865750565b8263d28d3eb560e01b5f5260045260245260445ffd5b60405163e6a4390560e01b81526001600160a01b0391821660048201819052928216602482018190529093929091602090859060449082907f0000000000000000000000000000000000000000000000000000000000000000165afa93841561084e575f94610d2f575b506001600160a01b03841615610d1a575050565b63136c5c7560e21b5f5260045260245260445ffd5b9093506020813d602011610d6b575b81610d4b60209383610963565b8101031261085957516001600160a01b038116810361085957925f610d06565b3d9150610d3e565b6040516323b872dd60e01b5f9081526001600160a01b039384166004529290931660245260449390935260209060648180865af19060015f5114821615610de4575b6040525f60605215610dc45750565b635274afe760e01b5f9081526001600160a01b0391909116600452602490fd5b906001811516610dfc57823b15153d15161690610db5565b503d5f823e3d90fd5b602093925f9290835b82515f19810190811161088057811015610f75576001600160a01b03610e348285610a71565b5116906001810180821161088057610e606001600160a01b03610e578388610a71565b51169187610a71565b519080841015610f6e575f91935b8651600119810190811161088057841015610f64576002840180851161088057610ec190610eb1906001600160a01b0390610ea9908b610a71565b511684610c9c565b925b6001600160a01b0392610c9c565b1660405194610ed08c87610963565b5f86528b8601938a368637823b156108595760a45f95918692604051998a978896879463022c0d9f60e01b86526004860152602485015260018060a01b03166044840152608060648401525180918160848501528484015e8181018301849052601f01601f191681010301925af191821561084e57600192610f54575b5001610e0e565b5f610f5e91610963565b5f610f4d565b610ec18692610eb3565b5f93610e6e565b50505050509050565b51906001600160701b038216820361085957565b60049060606001600160a01b03610fa98584610c9c565b1660405193848092630240bc6b60e21b82525afa92831561084e575f925f94611003575b506001600160a01b0390811691161015610ff2576001600160701b0380911691169091565b6001600160701b0391821692911690565b925092506060823d606011611056575b8161102060609383610963565b810103126108595761103182610f7e565b604061103f60208501610f7e565b93015163ffffffff8116036108595791925f610fcd565b3d9150611013565b8181029291811591840414171561088057565b811561107b570490565b634e487b7160e01b5f52601260045260245ffdfea264697066735822122038890d5691c6c4489275a48c04a57b69d2283c027108438ddb8c55247db85f8864736f6c63430008250033",
}

// Router is an auto generated Go binding around an Ethereum contract.
type Router struct {
	abi abi.ABI
}

// GetABI returns the ABI associated with this contract binding.
func (c *Router) GetABI() abi.ABI {
	return c.abi
}

// NewRouter creates a new instance of Router.
func NewRouter() *Router {
	parsed, err := RouterMetaData.ParseABI()
	if err != nil {
		panic(errors.New("invalid ABI: " + err.Error()))
	}
	return &Router{abi: *parsed}
}

// Instance creates a wrapper for a deployed contract instance at the given address.
// Use this to create the instance object passed to abigen v2 library functions Call, Transact, etc.
func (c *Router) Instance(backend bind.ContractBackend, addr common.Address) *bind.BoundContract {
	return bind.NewBoundContract(addr, c.abi, backend, backend, backend)
}

// PackConstructor is the Go binding used to pack the parameters required for
// contract deployment.
//
// Solidity: constructor(address factory_, address WETH_) returns()
func (router *Router) PackConstructor(factory_ common.Address, WETH_ common.Address) []byte {
	enc, err := router.abi.Pack("", factory_, WETH_)
	if err != nil {
		panic(err)
	}
	return enc
}

// PackWETH is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xad5c4648.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function WETH() view returns(address)
func (router *Router) PackWETH() []byte {
	enc, err := router.abi.Pack("WETH")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackWETH is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xad5c4648.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function WETH() view returns(address)
func (router *Router) TryPackWETH() ([]byte, error) {
	return router.abi.Pack("WETH")
}

// UnpackWETH is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xad5c4648.
//
// Solidity: function WETH() view returns(address)
func (router *Router) UnpackWETH(data []byte) (common.Address, error) {
	out, err := router.abi.Unpack("WETH", data)
	if err != nil {
		return *new(common.Address), err
	}
	out0 := *abi.ConvertType(out[0], new(common.Address)).(*common.Address)
	return out0, nil
}

// PackFactory is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xc45a0155.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function factory() view returns(address)
func (router *Router) PackFactory() []byte {
	enc, err := router.abi.Pack("factory")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackFactory is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xc45a0155.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function factory() view returns(address)
func (router *Router) TryPackFactory() ([]byte, error) {
	return router.abi.Pack("factory")
}

// UnpackFactory is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xc45a0155.
//
// Solidity: function factory() view returns(address)
func (router *Router) UnpackFactory(data []byte) (common.Address, error) {
	out, err := router.abi.Unpack("factory", data)
	if err != nil {
		return *new(common.Address), err
	}
	out0 := *abi.ConvertType(out[0], new(common.Address)).(*common.Address)
	return out0, nil
}

// PackGetAmountsIn is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x1f00ca74.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function getAmountsIn(uint256 amountOut, address[] path) view returns(uint256[] amounts)
func (router *Router) PackGetAmountsIn(amountOut *big.Int, path []common.Address) []byte {
	enc, err := router.abi.Pack("getAmountsIn", amountOut, path)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackGetAmountsIn is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x1f00ca74.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function getAmountsIn(uint256 amountOut, address[] path) view returns(uint256[] amounts)
func (router *Router) TryPackGetAmountsIn(amountOut *big.Int, path []common.Address) ([]byte, error) {
	return router.abi.Pack("getAmountsIn", amountOut, path)
}

// UnpackGetAmountsIn is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x1f00ca74.
//
// Solidity: function getAmountsIn(uint256 amountOut, address[] path) view returns(uint256[] amounts)
func (router *Router) UnpackGetAmountsIn(data []byte) ([]*big.Int, error) {
	out, err := router.abi.Unpack("getAmountsIn", data)
	if err != nil {
		return *new([]*big.Int), err
	}
	out0 := *abi.ConvertType(out[0], new([]*big.Int)).(*[]*big.Int)
	return out0, nil
}

// PackGetAmountsOut is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xd06ca61f.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function getAmountsOut(uint256 amountIn, address[] path) view returns(uint256[] amounts)
func (router *Router) PackGetAmountsOut(amountIn *big.Int, path []common.Address) []byte {
	enc, err := router.abi.Pack("getAmountsOut", amountIn, path)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackGetAmountsOut is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xd06ca61f.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function getAmountsOut(uint256 amountIn, address[] path) view returns(uint256[] amounts)
func (router *Router) TryPackGetAmountsOut(amountIn *big.Int, path []common.Address) ([]byte, error) {
	return router.abi.Pack("getAmountsOut", amountIn, path)
}

// UnpackGetAmountsOut is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xd06ca61f.
//
// Solidity: function getAmountsOut(uint256 amountIn, address[] path) view returns(uint256[] amounts)
func (router *Router) UnpackGetAmountsOut(data []byte) ([]*big.Int, error) {
	out, err := router.abi.Unpack("getAmountsOut", data)
	if err != nil {
		return *new([]*big.Int), err
	}
	out0 := *abi.ConvertType(out[0], new([]*big.Int)).(*[]*big.Int)
	return out0, nil
}

// PackSwapExactETHForTokens is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x7ff36ab5.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function swapExactETHForTokens(uint256 amountOutMin, address[] path, address to, uint256 deadline) payable returns(uint256[] amounts)
func (router *Router) PackSwapExactETHForTokens(amountOutMin *big.Int, path []common.Address, to common.Address, deadline *big.Int) []byte {
	enc, err := router.abi.Pack("swapExactETHForTokens", amountOutMin, path, to, deadline)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackSwapExactETHForTokens is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x7ff36ab5.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function swapExactETHForTokens(uint256 amountOutMin, address[] path, address to, uint256 deadline) payable returns(uint256[] amounts)
func (router *Router) TryPackSwapExactETHForTokens(amountOutMin *big.Int, path []common.Address, to common.Address, deadline *big.Int) ([]byte, error) {
	return router.abi.Pack("swapExactETHForTokens", amountOutMin, path, to, deadline)
}

// UnpackSwapExactETHForTokens is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x7ff36ab5.
//
// Solidity: function swapExactETHForTokens(uint256 amountOutMin, address[] path, address to, uint256 deadline) payable returns(uint256[] amounts)
func (router *Router) UnpackSwapExactETHForTokens(data []byte) ([]*big.Int, error) {
	out, err := router.abi.Unpack("swapExactETHForTokens", data)
	if err != nil {
		return *new([]*big.Int), err
	}
	out0 := *abi.ConvertType(out[0], new([]*big.Int)).(*[]*big.Int)
	return out0, nil
}

// PackSwapExactTokensForETH is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x18cbafe5.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function swapExactTokensForETH(uint256 amountIn, uint256 amountOutMin, address[] path, address to, uint256 deadline) returns(uint256[] amounts)
func (router *Router) PackSwapExactTokensForETH(amountIn *big.Int, amountOutMin *big.Int, path []common.Address, to common.Address, deadline *big.Int) []byte {
	enc, err := router.abi.Pack("swapExactTokensForETH", amountIn, amountOutMin, path, to, deadline)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackSwapExactTokensForETH is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x18cbafe5.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function swapExactTokensForETH(uint256 amountIn, uint256 amountOutMin, address[] path, address to, uint256 deadline) returns(uint256[] amounts)
func (router *Router) TryPackSwapExactTokensForETH(amountIn *big.Int, amountOutMin *big.Int, path []common.Address, to common.Address, deadline *big.Int) ([]byte, error) {
	return router.abi.Pack("swapExactTokensForETH", amountIn, amountOutMin, path, to, deadline)
}

// UnpackSwapExactTokensForETH is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x18cbafe5.
//
// Solidity: function swapExactTokensForETH(uint256 amountIn, uint256 amountOutMin, address[] path, address to, uint256 deadline) returns(uint256[] amounts)
func (router *Router) UnpackSwapExactTokensForETH(data []byte) ([]*big.Int, error) {
	out, err := router.abi.Unpack("swapExactTokensForETH", data)
	if err != nil {
		return *new([]*big.Int), err
	}
	out0 := *abi.ConvertType(out[0], new([]*big.Int)).(*[]*big.Int)
	return out0, nil
}

// PackSwapExactTokensForTokens is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x38ed1739.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function swapExactTokensForTokens(uint256 amountIn, uint256 amountOutMin, address[] path, address to, uint256 deadline) returns(uint256[] amounts)
func (router *Router) PackSwapExactTokensForTokens(amountIn *big.Int, amountOutMin *big.Int, path []common.Address, to common.Address, deadline *big.Int) []byte {
	enc, err := router.abi.Pack("swapExactTokensForTokens", amountIn, amountOutMin, path, to, deadline)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackSwapExactTokensForTokens is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x38ed1739.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function swapExactTokensForTokens(uint256 amountIn, uint256 amountOutMin, address[] path, address to, uint256 deadline) returns(uint256[] amounts)
func (router *Router) TryPackSwapExactTokensForTokens(amountIn *big.Int, amountOutMin *big.Int, path []common.Address, to common.Address, deadline *big.Int) ([]byte, error) {
	return router.abi.Pack("swapExactTokensForTokens", amountIn, amountOutMin, path, to, deadline)
}

// UnpackSwapExactTokensForTokens is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x38ed1739.
//
// Solidity: function swapExactTokensForTokens(uint256 amountIn, uint256 amountOutMin, address[] path, address to, uint256 deadline) returns(uint256[] amounts)
func (router *Router) UnpackSwapExactTokensForTokens(data []byte) ([]*big.Int, error) {
	out, err := router.abi.Unpack("swapExactTokensForTokens", data)
	if err != nil {
		return *new([]*big.Int), err
	}
	out0 := *abi.ConvertType(out[0], new([]*big.Int)).(*[]*big.Int)
	return out0, nil
}

// UnpackError attempts to decode the provided error data using user-defined
// error definitions.
func (router *Router) UnpackError(raw []byte) (any, error) {
	if bytes.Equal(raw[:4], router.abi.Errors["EthTransferFailed"].ID.Bytes()[:4]) {
		return router.UnpackEthTransferFailedError(raw[4:])
	}
	if bytes.Equal(raw[:4], router.abi.Errors["Expired"].ID.Bytes()[:4]) {
		return router.UnpackExpiredError(raw[4:])
	}
	if bytes.Equal(raw[:4], router.abi.Errors["InsufficientInputAmount"].ID.Bytes()[:4]) {
		return router.UnpackInsufficientInputAmountError(raw[4:])
	}
	if bytes.Equal(raw[:4], router.abi.Errors["InsufficientLiquidity"].ID.Bytes()[:4]) {
		return router.UnpackInsufficientLiquidityError(raw[4:])
	}
	if bytes.Equal(raw[:4], router.abi.Errors["InsufficientOutputAmount"].ID.Bytes()[:4]) {
		return router.UnpackInsufficientOutputAmountError(raw[4:])
	}
	if bytes.Equal(raw[:4], router.abi.Errors["InvalidPath"].ID.Bytes()[:4]) {
		return router.UnpackInvalidPathError(raw[4:])
	}
	if bytes.Equal(raw[:4], router.abi.Errors["NotWETH"].ID.Bytes()[:4]) {
		return router.UnpackNotWETHError(raw[4:])
	}
	if bytes.Equal(raw[:4], router.abi.Errors["PairNotFound"].ID.Bytes()[:4]) {
		return router.UnpackPairNotFoundError(raw[4:])
	}
	if bytes.Equal(raw[:4], router.abi.Errors["SafeERC20FailedOperation"].ID.Bytes()[:4]) {
		return router.UnpackSafeERC20FailedOperationError(raw[4:])
	}
	return nil, errors.New("Unknown error")
}

// RouterEthTransferFailed represents a EthTransferFailed error raised by the Router contract.
type RouterEthTransferFailed struct {
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error EthTransferFailed()
func RouterEthTransferFailedErrorID() common.Hash {
	return common.HexToHash("0x6d963f88320eb7ba26bde12e9a148612be34ed8cfb2f4e191e88c4af7a5386fc")
}

// UnpackEthTransferFailedError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error EthTransferFailed()
func (router *Router) UnpackEthTransferFailedError(raw []byte) (*RouterEthTransferFailed, error) {
	out := new(RouterEthTransferFailed)
	if err := router.abi.UnpackIntoInterface(out, "EthTransferFailed", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// RouterExpired represents a Expired error raised by the Router contract.
type RouterExpired struct {
	Deadline  *big.Int
	Timestamp *big.Int
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error Expired(uint256 deadline, uint256 timestamp)
func RouterExpiredErrorID() common.Hash {
	return common.HexToHash("0xaa2fd9251337aad6985148406aafbb40098cf60c4d20af54767f17b944074845")
}

// UnpackExpiredError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error Expired(uint256 deadline, uint256 timestamp)
func (router *Router) UnpackExpiredError(raw []byte) (*RouterExpired, error) {
	out := new(RouterExpired)
	if err := router.abi.UnpackIntoInterface(out, "Expired", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// RouterInsufficientInputAmount represents a InsufficientInputAmount error raised by the Router contract.
type RouterInsufficientInputAmount struct {
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error InsufficientInputAmount()
func RouterInsufficientInputAmountErrorID() common.Hash {
	return common.HexToHash("0x098fb561b214e40e1e2f3f75a32a74ad8612ca9e387347a879ac04251bbf57f8")
}

// UnpackInsufficientInputAmountError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error InsufficientInputAmount()
func (router *Router) UnpackInsufficientInputAmountError(raw []byte) (*RouterInsufficientInputAmount, error) {
	out := new(RouterInsufficientInputAmount)
	if err := router.abi.UnpackIntoInterface(out, "InsufficientInputAmount", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// RouterInsufficientLiquidity represents a InsufficientLiquidity error raised by the Router contract.
type RouterInsufficientLiquidity struct {
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error InsufficientLiquidity()
func RouterInsufficientLiquidityErrorID() common.Hash {
	return common.HexToHash("0xbb55fd27c46b5ba9f88ff2cb2222216afeb0f193423b26615497b3020ab61f8e")
}

// UnpackInsufficientLiquidityError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error InsufficientLiquidity()
func (router *Router) UnpackInsufficientLiquidityError(raw []byte) (*RouterInsufficientLiquidity, error) {
	out := new(RouterInsufficientLiquidity)
	if err := router.abi.UnpackIntoInterface(out, "InsufficientLiquidity", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// RouterInsufficientOutputAmount represents a InsufficientOutputAmount error raised by the Router contract.
type RouterInsufficientOutputAmount struct {
	AmountOut    *big.Int
	AmountOutMin *big.Int
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error InsufficientOutputAmount(uint256 amountOut, uint256 amountOutMin)
func RouterInsufficientOutputAmountErrorID() common.Hash {
	return common.HexToHash("0xd28d3eb58de0e2c2118ee83af6b35f3ec0b2c076ca496e3616c2510a2ba14cf2")
}

// UnpackInsufficientOutputAmountError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error InsufficientOutputAmount(uint256 amountOut, uint256 amountOutMin)
func (router *Router) UnpackInsufficientOutputAmountError(raw []byte) (*RouterInsufficientOutputAmount, error) {
	out := new(RouterInsufficientOutputAmount)
	if err := router.abi.UnpackIntoInterface(out, "InsufficientOutputAmount", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// RouterInvalidPath represents a InvalidPath error raised by the Router contract.
type RouterInvalidPath struct {
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error InvalidPath()
func RouterInvalidPathErrorID() common.Hash {
	return common.HexToHash("0x20db826769e3af8321787ba1a381ae0528298df9eba27cc33194b460ff8a3602")
}

// UnpackInvalidPathError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error InvalidPath()
func (router *Router) UnpackInvalidPathError(raw []byte) (*RouterInvalidPath, error) {
	out := new(RouterInvalidPath)
	if err := router.abi.UnpackIntoInterface(out, "InvalidPath", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// RouterNotWETH represents a NotWETH error raised by the Router contract.
type RouterNotWETH struct {
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error NotWETH()
func RouterNotWETHErrorID() common.Hash {
	return common.HexToHash("0x5724f3854d3d0bb958e46440ab5fcbd0c6d52646c33544bc8c67edfe304b029b")
}

// UnpackNotWETHError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error NotWETH()
func (router *Router) UnpackNotWETHError(raw []byte) (*RouterNotWETH, error) {
	out := new(RouterNotWETH)
	if err := router.abi.UnpackIntoInterface(out, "NotWETH", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// RouterPairNotFound represents a PairNotFound error raised by the Router contract.
type RouterPairNotFound struct {
	TokenA common.Address
	TokenB common.Address
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error PairNotFound(address tokenA, address tokenB)
func RouterPairNotFoundErrorID() common.Hash {
	return common.HexToHash("0x4db171d466e1963cb1d9a13b5a171ccaac75f116848fe9898406a4d5b74a6927")
}

// UnpackPairNotFoundError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error PairNotFound(address tokenA, address tokenB)
func (router *Router) UnpackPairNotFoundError(raw []byte) (*RouterPairNotFound, error) {
	out := new(RouterPairNotFound)
	if err := router.abi.UnpackIntoInterface(out, "PairNotFound", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// RouterSafeERC20FailedOperation represents a SafeERC20FailedOperation error raised by the Router contract.
type RouterSafeERC20FailedOperation struct {
	Token common.Address
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error SafeERC20FailedOperation(address token)
func RouterSafeERC20FailedOperationErrorID() common.Hash {
	return common.HexToHash("0x5274afe73c98b4749fc91ffae6b7b574e7842cb2144a159e9377a5f20b32edf9")
}

// UnpackSafeERC20FailedOperationError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error SafeERC20FailedOperation(address token)
func (router *Router) UnpackSafeERC20FailedOperationError(raw []byte) (*RouterSafeERC20FailedOperation, error) {
	out := new(RouterSafeERC20FailedOperation)
	if err := router.abi.UnpackIntoInterface(out, "SafeERC20FailedOperation", raw); err != nil {
		return nil, err
	}
	return out, nil
}
