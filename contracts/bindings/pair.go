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

// PairMetaData contains all meta data concerning the Pair contract.
var PairMetaData = bind.MetaData{
	ABI: "[{\"inputs\":[{\"internalType\":\"address\",\"name\":\"token0_\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"token1_\",\"type\":\"address\"},{\"internalType\":\"uint16\",\"name\":\"feeBps_\",\"type\":\"uint16\"}],\"stateMutability\":\"nonpayable\",\"type\":\"constructor\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"spender\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"allowance\",\"type\":\"uint256\"},{\"internalType\":\"uint256\",\"name\":\"needed\",\"type\":\"uint256\"}],\"name\":\"ERC20InsufficientAllowance\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"sender\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"balance\",\"type\":\"uint256\"},{\"internalType\":\"uint256\",\"name\":\"needed\",\"type\":\"uint256\"}],\"name\":\"ERC20InsufficientBalance\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"approver\",\"type\":\"address\"}],\"name\":\"ERC20InvalidApprover\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"receiver\",\"type\":\"address\"}],\"name\":\"ERC20InvalidReceiver\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"sender\",\"type\":\"address\"}],\"name\":\"ERC20InvalidSender\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"spender\",\"type\":\"address\"}],\"name\":\"ERC20InvalidSpender\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"FlashSwapsDisabled\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"InsufficientInputAmount\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"InsufficientLiquidity\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"InsufficientLiquidityMinted\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"InsufficientOutputAmount\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"InvalidTo\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"KInvariant\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"ReentrancyGuardReentrantCall\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"ReserveOverflow\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"token\",\"type\":\"address\"}],\"name\":\"SafeERC20FailedOperation\",\"type\":\"error\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"address\",\"name\":\"owner\",\"type\":\"address\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"spender\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"uint256\",\"name\":\"value\",\"type\":\"uint256\"}],\"name\":\"Approval\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"address\",\"name\":\"sender\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"uint256\",\"name\":\"amount0\",\"type\":\"uint256\"},{\"indexed\":false,\"internalType\":\"uint256\",\"name\":\"amount1\",\"type\":\"uint256\"}],\"name\":\"Mint\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"address\",\"name\":\"sender\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"uint256\",\"name\":\"amount0In\",\"type\":\"uint256\"},{\"indexed\":false,\"internalType\":\"uint256\",\"name\":\"amount1In\",\"type\":\"uint256\"},{\"indexed\":false,\"internalType\":\"uint256\",\"name\":\"amount0Out\",\"type\":\"uint256\"},{\"indexed\":false,\"internalType\":\"uint256\",\"name\":\"amount1Out\",\"type\":\"uint256\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"to\",\"type\":\"address\"}],\"name\":\"Swap\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":false,\"internalType\":\"uint112\",\"name\":\"reserve0\",\"type\":\"uint112\"},{\"indexed\":false,\"internalType\":\"uint112\",\"name\":\"reserve1\",\"type\":\"uint112\"}],\"name\":\"Sync\",\"type\":\"event\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"address\",\"name\":\"from\",\"type\":\"address\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"to\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"uint256\",\"name\":\"value\",\"type\":\"uint256\"}],\"name\":\"Transfer\",\"type\":\"event\"},{\"inputs\":[],\"name\":\"MINIMUM_LIQUIDITY\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"owner\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"spender\",\"type\":\"address\"}],\"name\":\"allowance\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"spender\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"value\",\"type\":\"uint256\"}],\"name\":\"approve\",\"outputs\":[{\"internalType\":\"bool\",\"name\":\"\",\"type\":\"bool\"}],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"account\",\"type\":\"address\"}],\"name\":\"balanceOf\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"decimals\",\"outputs\":[{\"internalType\":\"uint8\",\"name\":\"\",\"type\":\"uint8\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"factory\",\"outputs\":[{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"feeBps\",\"outputs\":[{\"internalType\":\"uint16\",\"name\":\"\",\"type\":\"uint16\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"getReserves\",\"outputs\":[{\"internalType\":\"uint112\",\"name\":\"reserve0\",\"type\":\"uint112\"},{\"internalType\":\"uint112\",\"name\":\"reserve1\",\"type\":\"uint112\"},{\"internalType\":\"uint32\",\"name\":\"blockTimestampLast\",\"type\":\"uint32\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"to\",\"type\":\"address\"}],\"name\":\"mint\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"liquidity\",\"type\":\"uint256\"}],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"name\",\"outputs\":[{\"internalType\":\"string\",\"name\":\"\",\"type\":\"string\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"to\",\"type\":\"address\"}],\"name\":\"skim\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"amount0Out\",\"type\":\"uint256\"},{\"internalType\":\"uint256\",\"name\":\"amount1Out\",\"type\":\"uint256\"},{\"internalType\":\"address\",\"name\":\"to\",\"type\":\"address\"},{\"internalType\":\"bytes\",\"name\":\"data\",\"type\":\"bytes\"}],\"name\":\"swap\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"symbol\",\"outputs\":[{\"internalType\":\"string\",\"name\":\"\",\"type\":\"string\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"sync\",\"outputs\":[],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"token0\",\"outputs\":[{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"token1\",\"outputs\":[{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"totalSupply\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"to\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"value\",\"type\":\"uint256\"}],\"name\":\"transfer\",\"outputs\":[{\"internalType\":\"bool\",\"name\":\"\",\"type\":\"bool\"}],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"from\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"to\",\"type\":\"address\"},{\"internalType\":\"uint256\",\"name\":\"value\",\"type\":\"uint256\"}],\"name\":\"transferFrom\",\"outputs\":[{\"internalType\":\"bool\",\"name\":\"\",\"type\":\"bool\"}],\"stateMutability\":\"nonpayable\",\"type\":\"function\"}]",
	ID:  "Pair",
	Bin: "0x610100604052346103e25761190e6060813803918261001d816103e6565b9384928339810103126103e2576100338161040b565b9060406100426020830161040b565b9101519061ffff821682036103e25761005b60406103e6565b92600b84526a043757276656b6974204c560ac1b602085015261007e60406103e6565b60048152630434b4c560e41b6020820152845190946001600160401b0382116102dd5760035490600182811c921680156103d8575b60208310146102bf5781601f849311610362575b50602090601f83116001146102fc575f926102f1575b50508160011b915f199060031b1c1916176003555b83516001600160401b0381116102dd57600454600181811c911680156102d3575b60208210146102bf57601f8111610251575b50602094601f82116001146101ee579481929394955f926101e3575b50508160011b915f199060031b1c1916176004555b3360805260a05260c05260e0526040516114ee90816104208239608051816102e6015260a05181818161011d0152818161034b0152818161067801528181610a260152610cb5015260c051818181610172015281816102a2015281816103c2015281816106cd01528181610d4401528181610f7d0152610fd3015260e0518181816108f10152610de40152f35b015190505f80610141565b601f1982169560045f52805f20915f5b88811061023957508360019596979810610221575b505050811b01600455610156565b01515f1960f88460031b161c191690555f8080610213565b919260206001819286850151815501940192016101fe565b818111156101255760045f52601f820160051c7f8a35acfbc15ff81a39ae7d344fd709f28e8600b4aa8c65c6b64bfe7fe36bd19b602084106102b7575b81601f9101920160051c03905f5b8281106102aa575050610125565b5f8282015560010161029c565b5f915061028e565b634e487b7160e01b5f52602260045260245ffd5b90607f1690610113565b634e487b7160e01b5f52604160045260245ffd5b015190505f806100dd565b60035f9081528281209350601f198516905b81811061034a5750908460019594939210610332575b505050811b016003556100f2565b01515f1960f88460031b161c191690555f8080610324565b9293602060018192878601518155019501930161030e565b828111156100c75760035f52909150601f830160051c7fc2575a0e9e593c00f959f8c92f12db2869c3395a3b0502d05e2516446f71f85b602085106103d0575b849392601f0160051c82900391015f5b8281106103c05750506100c7565b5f818301558594506001016103b2565b5f91506103a2565b91607f16916100b3565b5f80fd5b6040519190601f01601f191682016001600160401b038111838210176102dd57604052565b51906001600160a01b03821682036103e25756fe60806040526004361015610011575f80fd5b5f3560e01c8063022c0d9f14610bef57806306fdde0314610b345780630902f1ac14610ad7578063095ea7b314610a555780630dfe168114610a1157806318160ddd146109f457806323b872dd1461091557806324a9d853146108d7578063313ce567146108bc5780636a6278421461061557806370a08231146105de57806395d89b41146104da578063a9059cbb146104a9578063ba9a7a561461048d578063bc25cf7714610315578063c45a0155146102d1578063d21220a71461028d578063dd62ed3e1461023d5763fff6cae9146100ea575f80fd5b346101f4575f3660031901126101f457610102611114565b6040516370a0823160e01b81523060048201526020816024817f00000000000000000000000000000000000000000000000000000000000000006001600160a01b03165afa908115610200575f9161020b575b506040516370a0823160e01b8152306004820152906020826024817f00000000000000000000000000000000000000000000000000000000000000006001600160a01b03165afa908115610200575f916101c6575b6101b492506111ca565b5f5f5160206114995f395f51905f525d005b90506020823d6020116101f8575b816101e1602093836110a0565b810103126101f4576101b49151906101aa565b5f80fd5b3d91506101d4565b6040513d5f823e3d90fd5b90506020813d602011610235575b81610226602093836110a0565b810103126101f457515f610155565b3d9150610219565b346101f45760403660031901126101f45761025661104a565b61025e611060565b6001600160a01b039182165f908152600160209081526040808320949093168252928352819020549051908152f35b346101f4575f3660031901126101f4576040517f00000000000000000000000000000000000000000000000000000000000000006001600160a01b03168152602090f35b346101f4575f3660031901126101f4576040517f00000000000000000000000000000000000000000000000000000000000000006001600160a01b03168152602090f35b346101f45760203660031901126101f45761032e61104a565b610336611114565b6040516370a0823160e01b81523060048201527f00000000000000000000000000000000000000000000000000000000000000006001600160a01b0316602082602481845afa9182156102005783905f93610455575b506103a66103ac936001600160701b0360055416906110d6565b91611149565b6040516370a0823160e01b8152306004820152907f00000000000000000000000000000000000000000000000000000000000000006001600160a01b031690602083602481855afa928315610200575f9361041f575b506103a66101b4936001600160701b0360055460701c16906110d6565b92506020833d60201161044d575b8161043a602093836110a0565b810103126101f4579151916103a6610402565b3d915061042d565b9250506020823d602011610485575b81610471602093836110a0565b810103126101f457905190826103a661038c565b3d9150610464565b346101f4575f3660031901126101f45760206040516103e88152f35b346101f45760403660031901126101f4576104cf6104c561104a565b6024359033611258565b602060405160018152f35b346101f4575f3660031901126101f4576040515f6004548060011c906001811680156105d4575b6020831081146105c05782855290811561059c575060011461053e575b61053a8361052e818503826110a0565b60405191829182611076565b0390f35b91905060045f527f8a35acfbc15ff81a39ae7d344fd709f28e8600b4aa8c65c6b64bfe7fe36bd19b915f905b8082106105825750909150810160200161052e61051e565b91926001816020925483858801015201910190929161056a565b60ff191660208086019190915291151560051b8401909101915061052e905061051e565b634e487b7160e01b5f52602260045260245ffd5b91607f1691610501565b346101f45760203660031901126101f4576001600160a01b036105ff61104a565b165f525f602052602060405f2054604051908152f35b346101f45760203660031901126101f45761062e61104a565b610636611114565b61065b6005546001600160701b038116916001600160701b038260701c169160e01c90565b506040516370a0823160e01b8152306004820152926020846024817f00000000000000000000000000000000000000000000000000000000000000006001600160a01b03165afa938415610200575f94610888575b506040516370a0823160e01b8152306004820152926020846024817f00000000000000000000000000000000000000000000000000000000000000006001600160a01b03165afa938415610200575f9461084d575b506001600160701b0316906001600160701b0361072283876110d6565b931661072e81866110d6565b926002549182155f1461081e5750505061075061074b83856110e3565b611302565b6103e88111156107fb576103e719810190811161080a57936107766103e861dead611427565b84156107fb576001600160a01b038216156107e85760209561079b866107a094611427565b6111ca565b604051918252838201527f4c209b5fc8ad50758f13e2e1088ba56a560dff690a1c6fef26394f4c03821c4f60403392a25f5f5160206114995f395f51905f525d604051908152f35b63ec442f0560e01b5f525f60045260245ffd5b633489be7560e21b5f5260045ffd5b634e487b7160e01b5f52601160045260245ffd5b61083261083761083e93610832868a6110e3565b6110f6565b93866110e3565b90818082109118021893610776565b9093506020813d602011610880575b81610869602093836110a0565b810103126101f45751926001600160701b03610705565b3d915061085c565b9093506020813d6020116108b4575b816108a4602093836110a0565b810103126101f4575192846106b0565b3d9150610897565b346101f4575f3660031901126101f457602060405160128152f35b346101f4575f3660031901126101f457602060405161ffff7f0000000000000000000000000000000000000000000000000000000000000000168152f35b346101f45760603660031901126101f45761092e61104a565b610936611060565b6001600160a01b0382165f818152600160209081526040808320338452909152902054909260443592915f198110610974575b506104cf9350611258565b8381106109d95784156109c65733156109b3576104cf945f52600160205260405f2060018060a01b0333165f526020528360405f209103905584610969565b634a1406b160e11b5f525f60045260245ffd5b63e602df0560e01b5f525f60045260245ffd5b8390637dc7a0d960e11b5f523360045260245260445260645ffd5b346101f4575f3660031901126101f4576020600254604051908152f35b346101f4575f3660031901126101f4576040517f00000000000000000000000000000000000000000000000000000000000000006001600160a01b03168152602090f35b346101f45760403660031901126101f457610a6e61104a565b6024359033156109c6576001600160a01b03169081156109b357335f52600160205260405f20825f526020528060405f20556040519081527f8c5be1e5ebec7d5bd14f71427d1e84f3dd0314c0f7b2291e5b200ac8c7c3b92560203392a3602060405160018152f35b346101f4575f3660031901126101f45760606001600160701b0363ffffffff610b1b6005546001600160701b038116916001600160701b038260701c169160e01c90565b9193908160405195168552166020840152166040820152f35b346101f4575f3660031901126101f4576040515f6003548060011c90600181168015610be5575b6020831081146105c05782855290811561059c5750600114610b875761053a8361052e818503826110a0565b91905060035f527fc2575a0e9e593c00f959f8c92f12db2869c3395a3b0502d05e2516446f71f85b915f905b808210610bcb5750909150810160200161052e61051e565b919260018160209254838588010152019101909291610bb3565b91607f1691610b5b565b346101f45760803660031901126101f4576044356001600160a01b038116906024356004358383036101f45760643567ffffffffffffffff81116101f457366023820112156101f45780600401359067ffffffffffffffff82116101f45760248236920101116101f457610c61611114565b61103b5780158080611033575b611024576001600160701b0393610ca06005546001600160701b038116916001600160701b038260701c169160e01c90565b50951691828410801590611011575b611002577f00000000000000000000000000000000000000000000000000000000000000006001600160a01b03168781148015610fd0575b610fc15760249260209215610fb1575b8680610f77575b50506040516370a0823160e01b815230600482015292839182905afa908115610200575f91610f45575b506040516370a0823160e01b81523060048201526020816024817f00000000000000000000000000000000000000000000000000000000000000006001600160a01b03165afa908115610200575f91610f13575b50610d8784846110d6565b821115610f04576001600160701b03610da9610da386866110d6565b846110d6565b965b1692610db786856110d6565b821115610efd57610dd1610dcb87866110d6565b836110d6565b935b871580610ef5575b610ee65761ffff7f000000000000000000000000000000000000000000000000000000000000000016906127108502858104612710148615171561080a57610e2d90610e27848c6110e3565b906110d6565b612710850290858204612710148615171561080a57610e56610e5c92610e27610e62968b6110e3565b906110e3565b926110e3565b906305f5e1008202918083046305f5e100149015171561080a5710610ed757610e8a916111ca565b6040519384526020840152604083015260608201527fd78ad95fa46c994b6551d0da85fc275fe613ce37657fb8d5e3d130840159d82260803392a35f5f5160206114995f395f51905f525d005b63bf6056e760e01b5f5260045ffd5b63098fb56160e01b5f5260045ffd5b508415610ddb565b5f93610dd3565b6001600160701b035f96610dab565b90506020813d602011610f3d575b81610f2e602093836110a0565b810103126101f4575187610d7c565b3d9150610f21565b90506020813d602011610f6f575b81610f60602093836110a0565b810103126101f4575186610d28565b3d9150610f53565b610faa917f00000000000000000000000000000000000000000000000000000000000000006001600160a01b0316611149565b8886610cfe565b610fbc868284611149565b610cf7565b630521f43160e31b5f5260045ffd5b507f00000000000000000000000000000000000000000000000000000000000000006001600160a01b03168814610ce7565b63bb55fd2760e01b5f5260045ffd5b506001600160701b038616851015610caf565b6342301c2360e01b5f5260045ffd5b508215610c6e565b630728d10360e01b5f5260045ffd5b600435906001600160a01b03821682036101f457565b602435906001600160a01b03821682036101f457565b602060409281835280519182918282860152018484015e5f828201840152601f01601f1916010190565b90601f8019910116810190811067ffffffffffffffff8211176110c257604052565b634e487b7160e01b5f52604160045260245ffd5b9190820391821161080a57565b8181029291811591840414171561080a57565b8115611100570490565b634e487b7160e01b5f52601260045260245ffd5b5f5160206114995f395f51905f525c61113a5760015f5160206114995f395f51905f525d565b633ee5aeb560e01b5f5260045ffd5b916040519163a9059cbb60e01b5f5260018060a01b031660045260245260205f60448180865af19060015f51148216156111a9575b604052156111895750565b635274afe760e01b5f9081526001600160a01b0391909116600452602490fd5b9060018115166111c157823b15153d1516169061117e565b503d5f823e3d90fd5b6001600160701b0381118015611248575b611239577f1c411e9a96e071241c2f21f7726b17ae89e3cab4c78be50e062b03a9fffbbad1916001600160701b0380604093169163ffffffff60e01b4260e01b16838360701b8360701b1617176005558351928352166020820152a1565b63446c8cc960e01b5f5260045ffd5b506001600160701b0382116111db565b6001600160a01b03169081156112ef576001600160a01b03169182156107e857815f525f60205260405f20548181106112d657817fddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef92602092855f525f84520360405f2055845f525f825260405f20818154019055604051908152a3565b8263391434e360e21b5f5260045260245260445260645ffd5b634b637e8f60e11b5f525f60045260245ffd5b600181111561142457806001600160801b821015611413575b600482600160401b6113c5941015611406575b6401000000008110156113f9575b620100008110156113ec575b6101008110156113e0575b60108110156113d4575b10156113cc575b60030260011c61137481846110f6565b0160011c61138281846110f6565b0160011c61139081846110f6565b0160011c61139e81846110f6565b0160011c6113ac81846110f6565b0160011c6113ba81846110f6565b0160011c80926110f6565b8111900390565b60011b611364565b811c9160021b9161135d565b60081c91811b91611353565b60101c9160081b91611348565b60201c9160101b9161133c565b60401c9160201b9161132e565b5050608081901c600160401b61131b565b90565b6002549082820180921161080a576002919091556001600160a01b0316905f907fddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef90602090846114835780600254036002555b604051908152a3565b8484528382526040842081815401905561147a56fe9b779b17422d0df92223018b32b4d1fa46e071723d6817e2486d003becc55f00a2646970667358221220645aba79bbb130e08acdc85504735b2e1863182b7b43409f22941958da5ed0c664736f6c63430008250033",
}

// Pair is an auto generated Go binding around an Ethereum contract.
type Pair struct {
	abi abi.ABI
}

// GetABI returns the ABI associated with this contract binding.
func (c *Pair) GetABI() abi.ABI {
	return c.abi
}

// NewPair creates a new instance of Pair.
func NewPair() *Pair {
	parsed, err := PairMetaData.ParseABI()
	if err != nil {
		panic(errors.New("invalid ABI: " + err.Error()))
	}
	return &Pair{abi: *parsed}
}

// Instance creates a wrapper for a deployed contract instance at the given address.
// Use this to create the instance object passed to abigen v2 library functions Call, Transact, etc.
func (c *Pair) Instance(backend bind.ContractBackend, addr common.Address) *bind.BoundContract {
	return bind.NewBoundContract(addr, c.abi, backend, backend, backend)
}

// PackConstructor is the Go binding used to pack the parameters required for
// contract deployment.
//
// Solidity: constructor(address token0_, address token1_, uint16 feeBps_) returns()
func (pair *Pair) PackConstructor(token0_ common.Address, token1_ common.Address, feeBps_ uint16) []byte {
	enc, err := pair.abi.Pack("", token0_, token1_, feeBps_)
	if err != nil {
		panic(err)
	}
	return enc
}

// PackMINIMUMLIQUIDITY is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xba9a7a56.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function MINIMUM_LIQUIDITY() view returns(uint256)
func (pair *Pair) PackMINIMUMLIQUIDITY() []byte {
	enc, err := pair.abi.Pack("MINIMUM_LIQUIDITY")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackMINIMUMLIQUIDITY is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xba9a7a56.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function MINIMUM_LIQUIDITY() view returns(uint256)
func (pair *Pair) TryPackMINIMUMLIQUIDITY() ([]byte, error) {
	return pair.abi.Pack("MINIMUM_LIQUIDITY")
}

// UnpackMINIMUMLIQUIDITY is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xba9a7a56.
//
// Solidity: function MINIMUM_LIQUIDITY() view returns(uint256)
func (pair *Pair) UnpackMINIMUMLIQUIDITY(data []byte) (*big.Int, error) {
	out, err := pair.abi.Unpack("MINIMUM_LIQUIDITY", data)
	if err != nil {
		return new(big.Int), err
	}
	out0 := abi.ConvertType(out[0], new(big.Int)).(*big.Int)
	return out0, nil
}

// PackAllowance is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xdd62ed3e.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function allowance(address owner, address spender) view returns(uint256)
func (pair *Pair) PackAllowance(owner common.Address, spender common.Address) []byte {
	enc, err := pair.abi.Pack("allowance", owner, spender)
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
func (pair *Pair) TryPackAllowance(owner common.Address, spender common.Address) ([]byte, error) {
	return pair.abi.Pack("allowance", owner, spender)
}

// UnpackAllowance is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xdd62ed3e.
//
// Solidity: function allowance(address owner, address spender) view returns(uint256)
func (pair *Pair) UnpackAllowance(data []byte) (*big.Int, error) {
	out, err := pair.abi.Unpack("allowance", data)
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
func (pair *Pair) PackApprove(spender common.Address, value *big.Int) []byte {
	enc, err := pair.abi.Pack("approve", spender, value)
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
func (pair *Pair) TryPackApprove(spender common.Address, value *big.Int) ([]byte, error) {
	return pair.abi.Pack("approve", spender, value)
}

// UnpackApprove is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x095ea7b3.
//
// Solidity: function approve(address spender, uint256 value) returns(bool)
func (pair *Pair) UnpackApprove(data []byte) (bool, error) {
	out, err := pair.abi.Unpack("approve", data)
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
func (pair *Pair) PackBalanceOf(account common.Address) []byte {
	enc, err := pair.abi.Pack("balanceOf", account)
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
func (pair *Pair) TryPackBalanceOf(account common.Address) ([]byte, error) {
	return pair.abi.Pack("balanceOf", account)
}

// UnpackBalanceOf is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x70a08231.
//
// Solidity: function balanceOf(address account) view returns(uint256)
func (pair *Pair) UnpackBalanceOf(data []byte) (*big.Int, error) {
	out, err := pair.abi.Unpack("balanceOf", data)
	if err != nil {
		return new(big.Int), err
	}
	out0 := abi.ConvertType(out[0], new(big.Int)).(*big.Int)
	return out0, nil
}

// PackDecimals is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x313ce567.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function decimals() view returns(uint8)
func (pair *Pair) PackDecimals() []byte {
	enc, err := pair.abi.Pack("decimals")
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
func (pair *Pair) TryPackDecimals() ([]byte, error) {
	return pair.abi.Pack("decimals")
}

// UnpackDecimals is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x313ce567.
//
// Solidity: function decimals() view returns(uint8)
func (pair *Pair) UnpackDecimals(data []byte) (uint8, error) {
	out, err := pair.abi.Unpack("decimals", data)
	if err != nil {
		return *new(uint8), err
	}
	out0 := *abi.ConvertType(out[0], new(uint8)).(*uint8)
	return out0, nil
}

// PackFactory is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xc45a0155.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function factory() view returns(address)
func (pair *Pair) PackFactory() []byte {
	enc, err := pair.abi.Pack("factory")
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
func (pair *Pair) TryPackFactory() ([]byte, error) {
	return pair.abi.Pack("factory")
}

// UnpackFactory is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xc45a0155.
//
// Solidity: function factory() view returns(address)
func (pair *Pair) UnpackFactory(data []byte) (common.Address, error) {
	out, err := pair.abi.Unpack("factory", data)
	if err != nil {
		return *new(common.Address), err
	}
	out0 := *abi.ConvertType(out[0], new(common.Address)).(*common.Address)
	return out0, nil
}

// PackFeeBps is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x24a9d853.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function feeBps() view returns(uint16)
func (pair *Pair) PackFeeBps() []byte {
	enc, err := pair.abi.Pack("feeBps")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackFeeBps is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x24a9d853.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function feeBps() view returns(uint16)
func (pair *Pair) TryPackFeeBps() ([]byte, error) {
	return pair.abi.Pack("feeBps")
}

// UnpackFeeBps is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x24a9d853.
//
// Solidity: function feeBps() view returns(uint16)
func (pair *Pair) UnpackFeeBps(data []byte) (uint16, error) {
	out, err := pair.abi.Unpack("feeBps", data)
	if err != nil {
		return *new(uint16), err
	}
	out0 := *abi.ConvertType(out[0], new(uint16)).(*uint16)
	return out0, nil
}

// PackGetReserves is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x0902f1ac.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function getReserves() view returns(uint112 reserve0, uint112 reserve1, uint32 blockTimestampLast)
func (pair *Pair) PackGetReserves() []byte {
	enc, err := pair.abi.Pack("getReserves")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackGetReserves is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x0902f1ac.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function getReserves() view returns(uint112 reserve0, uint112 reserve1, uint32 blockTimestampLast)
func (pair *Pair) TryPackGetReserves() ([]byte, error) {
	return pair.abi.Pack("getReserves")
}

// GetReservesOutput serves as a container for the return parameters of contract
// method GetReserves.
type GetReservesOutput struct {
	Reserve0           *big.Int
	Reserve1           *big.Int
	BlockTimestampLast uint32
}

// UnpackGetReserves is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x0902f1ac.
//
// Solidity: function getReserves() view returns(uint112 reserve0, uint112 reserve1, uint32 blockTimestampLast)
func (pair *Pair) UnpackGetReserves(data []byte) (GetReservesOutput, error) {
	out, err := pair.abi.Unpack("getReserves", data)
	outstruct := new(GetReservesOutput)
	if err != nil {
		return *outstruct, err
	}
	outstruct.Reserve0 = abi.ConvertType(out[0], new(big.Int)).(*big.Int)
	outstruct.Reserve1 = abi.ConvertType(out[1], new(big.Int)).(*big.Int)
	outstruct.BlockTimestampLast = *abi.ConvertType(out[2], new(uint32)).(*uint32)
	return *outstruct, nil
}

// PackMint is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x6a627842.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function mint(address to) returns(uint256 liquidity)
func (pair *Pair) PackMint(to common.Address) []byte {
	enc, err := pair.abi.Pack("mint", to)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackMint is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x6a627842.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function mint(address to) returns(uint256 liquidity)
func (pair *Pair) TryPackMint(to common.Address) ([]byte, error) {
	return pair.abi.Pack("mint", to)
}

// UnpackMint is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x6a627842.
//
// Solidity: function mint(address to) returns(uint256 liquidity)
func (pair *Pair) UnpackMint(data []byte) (*big.Int, error) {
	out, err := pair.abi.Unpack("mint", data)
	if err != nil {
		return new(big.Int), err
	}
	out0 := abi.ConvertType(out[0], new(big.Int)).(*big.Int)
	return out0, nil
}

// PackName is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x06fdde03.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function name() view returns(string)
func (pair *Pair) PackName() []byte {
	enc, err := pair.abi.Pack("name")
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
func (pair *Pair) TryPackName() ([]byte, error) {
	return pair.abi.Pack("name")
}

// UnpackName is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x06fdde03.
//
// Solidity: function name() view returns(string)
func (pair *Pair) UnpackName(data []byte) (string, error) {
	out, err := pair.abi.Unpack("name", data)
	if err != nil {
		return *new(string), err
	}
	out0 := *abi.ConvertType(out[0], new(string)).(*string)
	return out0, nil
}

// PackSkim is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xbc25cf77.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function skim(address to) returns()
func (pair *Pair) PackSkim(to common.Address) []byte {
	enc, err := pair.abi.Pack("skim", to)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackSkim is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xbc25cf77.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function skim(address to) returns()
func (pair *Pair) TryPackSkim(to common.Address) ([]byte, error) {
	return pair.abi.Pack("skim", to)
}

// PackSwap is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x022c0d9f.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function swap(uint256 amount0Out, uint256 amount1Out, address to, bytes data) returns()
func (pair *Pair) PackSwap(amount0Out *big.Int, amount1Out *big.Int, to common.Address, data []byte) []byte {
	enc, err := pair.abi.Pack("swap", amount0Out, amount1Out, to, data)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackSwap is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x022c0d9f.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function swap(uint256 amount0Out, uint256 amount1Out, address to, bytes data) returns()
func (pair *Pair) TryPackSwap(amount0Out *big.Int, amount1Out *big.Int, to common.Address, data []byte) ([]byte, error) {
	return pair.abi.Pack("swap", amount0Out, amount1Out, to, data)
}

// PackSymbol is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x95d89b41.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function symbol() view returns(string)
func (pair *Pair) PackSymbol() []byte {
	enc, err := pair.abi.Pack("symbol")
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
func (pair *Pair) TryPackSymbol() ([]byte, error) {
	return pair.abi.Pack("symbol")
}

// UnpackSymbol is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x95d89b41.
//
// Solidity: function symbol() view returns(string)
func (pair *Pair) UnpackSymbol(data []byte) (string, error) {
	out, err := pair.abi.Unpack("symbol", data)
	if err != nil {
		return *new(string), err
	}
	out0 := *abi.ConvertType(out[0], new(string)).(*string)
	return out0, nil
}

// PackSync is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xfff6cae9.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function sync() returns()
func (pair *Pair) PackSync() []byte {
	enc, err := pair.abi.Pack("sync")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackSync is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xfff6cae9.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function sync() returns()
func (pair *Pair) TryPackSync() ([]byte, error) {
	return pair.abi.Pack("sync")
}

// PackToken0 is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x0dfe1681.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function token0() view returns(address)
func (pair *Pair) PackToken0() []byte {
	enc, err := pair.abi.Pack("token0")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackToken0 is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x0dfe1681.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function token0() view returns(address)
func (pair *Pair) TryPackToken0() ([]byte, error) {
	return pair.abi.Pack("token0")
}

// UnpackToken0 is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x0dfe1681.
//
// Solidity: function token0() view returns(address)
func (pair *Pair) UnpackToken0(data []byte) (common.Address, error) {
	out, err := pair.abi.Unpack("token0", data)
	if err != nil {
		return *new(common.Address), err
	}
	out0 := *abi.ConvertType(out[0], new(common.Address)).(*common.Address)
	return out0, nil
}

// PackToken1 is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xd21220a7.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function token1() view returns(address)
func (pair *Pair) PackToken1() []byte {
	enc, err := pair.abi.Pack("token1")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackToken1 is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xd21220a7.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function token1() view returns(address)
func (pair *Pair) TryPackToken1() ([]byte, error) {
	return pair.abi.Pack("token1")
}

// UnpackToken1 is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xd21220a7.
//
// Solidity: function token1() view returns(address)
func (pair *Pair) UnpackToken1(data []byte) (common.Address, error) {
	out, err := pair.abi.Unpack("token1", data)
	if err != nil {
		return *new(common.Address), err
	}
	out0 := *abi.ConvertType(out[0], new(common.Address)).(*common.Address)
	return out0, nil
}

// PackTotalSupply is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x18160ddd.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function totalSupply() view returns(uint256)
func (pair *Pair) PackTotalSupply() []byte {
	enc, err := pair.abi.Pack("totalSupply")
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
func (pair *Pair) TryPackTotalSupply() ([]byte, error) {
	return pair.abi.Pack("totalSupply")
}

// UnpackTotalSupply is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x18160ddd.
//
// Solidity: function totalSupply() view returns(uint256)
func (pair *Pair) UnpackTotalSupply(data []byte) (*big.Int, error) {
	out, err := pair.abi.Unpack("totalSupply", data)
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
func (pair *Pair) PackTransfer(to common.Address, value *big.Int) []byte {
	enc, err := pair.abi.Pack("transfer", to, value)
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
func (pair *Pair) TryPackTransfer(to common.Address, value *big.Int) ([]byte, error) {
	return pair.abi.Pack("transfer", to, value)
}

// UnpackTransfer is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xa9059cbb.
//
// Solidity: function transfer(address to, uint256 value) returns(bool)
func (pair *Pair) UnpackTransfer(data []byte) (bool, error) {
	out, err := pair.abi.Unpack("transfer", data)
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
func (pair *Pair) PackTransferFrom(from common.Address, to common.Address, value *big.Int) []byte {
	enc, err := pair.abi.Pack("transferFrom", from, to, value)
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
func (pair *Pair) TryPackTransferFrom(from common.Address, to common.Address, value *big.Int) ([]byte, error) {
	return pair.abi.Pack("transferFrom", from, to, value)
}

// UnpackTransferFrom is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x23b872dd.
//
// Solidity: function transferFrom(address from, address to, uint256 value) returns(bool)
func (pair *Pair) UnpackTransferFrom(data []byte) (bool, error) {
	out, err := pair.abi.Unpack("transferFrom", data)
	if err != nil {
		return *new(bool), err
	}
	out0 := *abi.ConvertType(out[0], new(bool)).(*bool)
	return out0, nil
}

// PairApproval represents a Approval event raised by the Pair contract.
type PairApproval struct {
	Owner   common.Address
	Spender common.Address
	Value   *big.Int
	Raw     *types.Log // Blockchain specific contextual infos
}

const PairApprovalEventName = "Approval"

// ContractEventName returns the user-defined event name.
func (PairApproval) ContractEventName() string {
	return PairApprovalEventName
}

// UnpackApprovalEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event Approval(address indexed owner, address indexed spender, uint256 value)
func (pair *Pair) UnpackApprovalEvent(log *types.Log) (*PairApproval, error) {
	event := "Approval"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != pair.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(PairApproval)
	if len(log.Data) > 0 {
		if err := pair.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range pair.abi.Events[event].Inputs {
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

// PairMint represents a Mint event raised by the Pair contract.
type PairMint struct {
	Sender  common.Address
	Amount0 *big.Int
	Amount1 *big.Int
	Raw     *types.Log // Blockchain specific contextual infos
}

const PairMintEventName = "Mint"

// ContractEventName returns the user-defined event name.
func (PairMint) ContractEventName() string {
	return PairMintEventName
}

// UnpackMintEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event Mint(address indexed sender, uint256 amount0, uint256 amount1)
func (pair *Pair) UnpackMintEvent(log *types.Log) (*PairMint, error) {
	event := "Mint"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != pair.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(PairMint)
	if len(log.Data) > 0 {
		if err := pair.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range pair.abi.Events[event].Inputs {
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

// PairSwap represents a Swap event raised by the Pair contract.
type PairSwap struct {
	Sender     common.Address
	Amount0In  *big.Int
	Amount1In  *big.Int
	Amount0Out *big.Int
	Amount1Out *big.Int
	To         common.Address
	Raw        *types.Log // Blockchain specific contextual infos
}

const PairSwapEventName = "Swap"

// ContractEventName returns the user-defined event name.
func (PairSwap) ContractEventName() string {
	return PairSwapEventName
}

// UnpackSwapEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event Swap(address indexed sender, uint256 amount0In, uint256 amount1In, uint256 amount0Out, uint256 amount1Out, address indexed to)
func (pair *Pair) UnpackSwapEvent(log *types.Log) (*PairSwap, error) {
	event := "Swap"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != pair.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(PairSwap)
	if len(log.Data) > 0 {
		if err := pair.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range pair.abi.Events[event].Inputs {
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

// PairSync represents a Sync event raised by the Pair contract.
type PairSync struct {
	Reserve0 *big.Int
	Reserve1 *big.Int
	Raw      *types.Log // Blockchain specific contextual infos
}

const PairSyncEventName = "Sync"

// ContractEventName returns the user-defined event name.
func (PairSync) ContractEventName() string {
	return PairSyncEventName
}

// UnpackSyncEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event Sync(uint112 reserve0, uint112 reserve1)
func (pair *Pair) UnpackSyncEvent(log *types.Log) (*PairSync, error) {
	event := "Sync"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != pair.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(PairSync)
	if len(log.Data) > 0 {
		if err := pair.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range pair.abi.Events[event].Inputs {
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

// PairTransfer represents a Transfer event raised by the Pair contract.
type PairTransfer struct {
	From  common.Address
	To    common.Address
	Value *big.Int
	Raw   *types.Log // Blockchain specific contextual infos
}

const PairTransferEventName = "Transfer"

// ContractEventName returns the user-defined event name.
func (PairTransfer) ContractEventName() string {
	return PairTransferEventName
}

// UnpackTransferEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event Transfer(address indexed from, address indexed to, uint256 value)
func (pair *Pair) UnpackTransferEvent(log *types.Log) (*PairTransfer, error) {
	event := "Transfer"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != pair.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(PairTransfer)
	if len(log.Data) > 0 {
		if err := pair.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range pair.abi.Events[event].Inputs {
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
func (pair *Pair) UnpackError(raw []byte) (any, error) {
	if bytes.Equal(raw[:4], pair.abi.Errors["ERC20InsufficientAllowance"].ID.Bytes()[:4]) {
		return pair.UnpackERC20InsufficientAllowanceError(raw[4:])
	}
	if bytes.Equal(raw[:4], pair.abi.Errors["ERC20InsufficientBalance"].ID.Bytes()[:4]) {
		return pair.UnpackERC20InsufficientBalanceError(raw[4:])
	}
	if bytes.Equal(raw[:4], pair.abi.Errors["ERC20InvalidApprover"].ID.Bytes()[:4]) {
		return pair.UnpackERC20InvalidApproverError(raw[4:])
	}
	if bytes.Equal(raw[:4], pair.abi.Errors["ERC20InvalidReceiver"].ID.Bytes()[:4]) {
		return pair.UnpackERC20InvalidReceiverError(raw[4:])
	}
	if bytes.Equal(raw[:4], pair.abi.Errors["ERC20InvalidSender"].ID.Bytes()[:4]) {
		return pair.UnpackERC20InvalidSenderError(raw[4:])
	}
	if bytes.Equal(raw[:4], pair.abi.Errors["ERC20InvalidSpender"].ID.Bytes()[:4]) {
		return pair.UnpackERC20InvalidSpenderError(raw[4:])
	}
	if bytes.Equal(raw[:4], pair.abi.Errors["FlashSwapsDisabled"].ID.Bytes()[:4]) {
		return pair.UnpackFlashSwapsDisabledError(raw[4:])
	}
	if bytes.Equal(raw[:4], pair.abi.Errors["InsufficientInputAmount"].ID.Bytes()[:4]) {
		return pair.UnpackInsufficientInputAmountError(raw[4:])
	}
	if bytes.Equal(raw[:4], pair.abi.Errors["InsufficientLiquidity"].ID.Bytes()[:4]) {
		return pair.UnpackInsufficientLiquidityError(raw[4:])
	}
	if bytes.Equal(raw[:4], pair.abi.Errors["InsufficientLiquidityMinted"].ID.Bytes()[:4]) {
		return pair.UnpackInsufficientLiquidityMintedError(raw[4:])
	}
	if bytes.Equal(raw[:4], pair.abi.Errors["InsufficientOutputAmount"].ID.Bytes()[:4]) {
		return pair.UnpackInsufficientOutputAmountError(raw[4:])
	}
	if bytes.Equal(raw[:4], pair.abi.Errors["InvalidTo"].ID.Bytes()[:4]) {
		return pair.UnpackInvalidToError(raw[4:])
	}
	if bytes.Equal(raw[:4], pair.abi.Errors["KInvariant"].ID.Bytes()[:4]) {
		return pair.UnpackKInvariantError(raw[4:])
	}
	if bytes.Equal(raw[:4], pair.abi.Errors["ReentrancyGuardReentrantCall"].ID.Bytes()[:4]) {
		return pair.UnpackReentrancyGuardReentrantCallError(raw[4:])
	}
	if bytes.Equal(raw[:4], pair.abi.Errors["ReserveOverflow"].ID.Bytes()[:4]) {
		return pair.UnpackReserveOverflowError(raw[4:])
	}
	if bytes.Equal(raw[:4], pair.abi.Errors["SafeERC20FailedOperation"].ID.Bytes()[:4]) {
		return pair.UnpackSafeERC20FailedOperationError(raw[4:])
	}
	return nil, errors.New("Unknown error")
}

// PairERC20InsufficientAllowance represents a ERC20InsufficientAllowance error raised by the Pair contract.
type PairERC20InsufficientAllowance struct {
	Spender   common.Address
	Allowance *big.Int
	Needed    *big.Int
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error ERC20InsufficientAllowance(address spender, uint256 allowance, uint256 needed)
func PairERC20InsufficientAllowanceErrorID() common.Hash {
	return common.HexToHash("0xfb8f41b23e99d2101d86da76cdfa87dd51c82ed07d3cb62cbc473e469dbc75c3")
}

// UnpackERC20InsufficientAllowanceError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error ERC20InsufficientAllowance(address spender, uint256 allowance, uint256 needed)
func (pair *Pair) UnpackERC20InsufficientAllowanceError(raw []byte) (*PairERC20InsufficientAllowance, error) {
	out := new(PairERC20InsufficientAllowance)
	if err := pair.abi.UnpackIntoInterface(out, "ERC20InsufficientAllowance", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// PairERC20InsufficientBalance represents a ERC20InsufficientBalance error raised by the Pair contract.
type PairERC20InsufficientBalance struct {
	Sender  common.Address
	Balance *big.Int
	Needed  *big.Int
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error ERC20InsufficientBalance(address sender, uint256 balance, uint256 needed)
func PairERC20InsufficientBalanceErrorID() common.Hash {
	return common.HexToHash("0xe450d38cd8d9f7d95077d567d60ed49c7254716e6ad08fc9872816c97e0ffec6")
}

// UnpackERC20InsufficientBalanceError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error ERC20InsufficientBalance(address sender, uint256 balance, uint256 needed)
func (pair *Pair) UnpackERC20InsufficientBalanceError(raw []byte) (*PairERC20InsufficientBalance, error) {
	out := new(PairERC20InsufficientBalance)
	if err := pair.abi.UnpackIntoInterface(out, "ERC20InsufficientBalance", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// PairERC20InvalidApprover represents a ERC20InvalidApprover error raised by the Pair contract.
type PairERC20InvalidApprover struct {
	Approver common.Address
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error ERC20InvalidApprover(address approver)
func PairERC20InvalidApproverErrorID() common.Hash {
	return common.HexToHash("0xe602df05cc75712490294c6c104ab7c17f4030363910a7a2626411c6d3118847")
}

// UnpackERC20InvalidApproverError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error ERC20InvalidApprover(address approver)
func (pair *Pair) UnpackERC20InvalidApproverError(raw []byte) (*PairERC20InvalidApprover, error) {
	out := new(PairERC20InvalidApprover)
	if err := pair.abi.UnpackIntoInterface(out, "ERC20InvalidApprover", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// PairERC20InvalidReceiver represents a ERC20InvalidReceiver error raised by the Pair contract.
type PairERC20InvalidReceiver struct {
	Receiver common.Address
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error ERC20InvalidReceiver(address receiver)
func PairERC20InvalidReceiverErrorID() common.Hash {
	return common.HexToHash("0xec442f055133b72f3b2f9f0bb351c406b178527de2040a7d1feb4e058771f613")
}

// UnpackERC20InvalidReceiverError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error ERC20InvalidReceiver(address receiver)
func (pair *Pair) UnpackERC20InvalidReceiverError(raw []byte) (*PairERC20InvalidReceiver, error) {
	out := new(PairERC20InvalidReceiver)
	if err := pair.abi.UnpackIntoInterface(out, "ERC20InvalidReceiver", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// PairERC20InvalidSender represents a ERC20InvalidSender error raised by the Pair contract.
type PairERC20InvalidSender struct {
	Sender common.Address
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error ERC20InvalidSender(address sender)
func PairERC20InvalidSenderErrorID() common.Hash {
	return common.HexToHash("0x96c6fd1edd0cd6ef7ff0ecc0facdf53148dc0048b57fe58af65755250a7a96bd")
}

// UnpackERC20InvalidSenderError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error ERC20InvalidSender(address sender)
func (pair *Pair) UnpackERC20InvalidSenderError(raw []byte) (*PairERC20InvalidSender, error) {
	out := new(PairERC20InvalidSender)
	if err := pair.abi.UnpackIntoInterface(out, "ERC20InvalidSender", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// PairERC20InvalidSpender represents a ERC20InvalidSpender error raised by the Pair contract.
type PairERC20InvalidSpender struct {
	Spender common.Address
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error ERC20InvalidSpender(address spender)
func PairERC20InvalidSpenderErrorID() common.Hash {
	return common.HexToHash("0x94280d62c347d8d9f4d59a76ea321452406db88df38e0c9da304f58b57b373a2")
}

// UnpackERC20InvalidSpenderError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error ERC20InvalidSpender(address spender)
func (pair *Pair) UnpackERC20InvalidSpenderError(raw []byte) (*PairERC20InvalidSpender, error) {
	out := new(PairERC20InvalidSpender)
	if err := pair.abi.UnpackIntoInterface(out, "ERC20InvalidSpender", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// PairFlashSwapsDisabled represents a FlashSwapsDisabled error raised by the Pair contract.
type PairFlashSwapsDisabled struct {
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error FlashSwapsDisabled()
func PairFlashSwapsDisabledErrorID() common.Hash {
	return common.HexToHash("0x0728d103cdbc60423a70ae611c19ed5287d9fcf10f96c2c79c26c9964b9fd316")
}

// UnpackFlashSwapsDisabledError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error FlashSwapsDisabled()
func (pair *Pair) UnpackFlashSwapsDisabledError(raw []byte) (*PairFlashSwapsDisabled, error) {
	out := new(PairFlashSwapsDisabled)
	if err := pair.abi.UnpackIntoInterface(out, "FlashSwapsDisabled", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// PairInsufficientInputAmount represents a InsufficientInputAmount error raised by the Pair contract.
type PairInsufficientInputAmount struct {
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error InsufficientInputAmount()
func PairInsufficientInputAmountErrorID() common.Hash {
	return common.HexToHash("0x098fb561b214e40e1e2f3f75a32a74ad8612ca9e387347a879ac04251bbf57f8")
}

// UnpackInsufficientInputAmountError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error InsufficientInputAmount()
func (pair *Pair) UnpackInsufficientInputAmountError(raw []byte) (*PairInsufficientInputAmount, error) {
	out := new(PairInsufficientInputAmount)
	if err := pair.abi.UnpackIntoInterface(out, "InsufficientInputAmount", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// PairInsufficientLiquidity represents a InsufficientLiquidity error raised by the Pair contract.
type PairInsufficientLiquidity struct {
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error InsufficientLiquidity()
func PairInsufficientLiquidityErrorID() common.Hash {
	return common.HexToHash("0xbb55fd27c46b5ba9f88ff2cb2222216afeb0f193423b26615497b3020ab61f8e")
}

// UnpackInsufficientLiquidityError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error InsufficientLiquidity()
func (pair *Pair) UnpackInsufficientLiquidityError(raw []byte) (*PairInsufficientLiquidity, error) {
	out := new(PairInsufficientLiquidity)
	if err := pair.abi.UnpackIntoInterface(out, "InsufficientLiquidity", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// PairInsufficientLiquidityMinted represents a InsufficientLiquidityMinted error raised by the Pair contract.
type PairInsufficientLiquidityMinted struct {
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error InsufficientLiquidityMinted()
func PairInsufficientLiquidityMintedErrorID() common.Hash {
	return common.HexToHash("0xd226f9d4fb66d83c9e784a8629bffaacb8e895718029d32e323c8ba88c74f78c")
}

// UnpackInsufficientLiquidityMintedError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error InsufficientLiquidityMinted()
func (pair *Pair) UnpackInsufficientLiquidityMintedError(raw []byte) (*PairInsufficientLiquidityMinted, error) {
	out := new(PairInsufficientLiquidityMinted)
	if err := pair.abi.UnpackIntoInterface(out, "InsufficientLiquidityMinted", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// PairInsufficientOutputAmount represents a InsufficientOutputAmount error raised by the Pair contract.
type PairInsufficientOutputAmount struct {
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error InsufficientOutputAmount()
func PairInsufficientOutputAmountErrorID() common.Hash {
	return common.HexToHash("0x42301c237a29c3e090da1b147e7b504f08db56c9600985b34af188477d350fa7")
}

// UnpackInsufficientOutputAmountError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error InsufficientOutputAmount()
func (pair *Pair) UnpackInsufficientOutputAmountError(raw []byte) (*PairInsufficientOutputAmount, error) {
	out := new(PairInsufficientOutputAmount)
	if err := pair.abi.UnpackIntoInterface(out, "InsufficientOutputAmount", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// PairInvalidTo represents a InvalidTo error raised by the Pair contract.
type PairInvalidTo struct {
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error InvalidTo()
func PairInvalidToErrorID() common.Hash {
	return common.HexToHash("0x290fa188e5368e85375d6fb66e1dd75bc9927c3d95b2732244780d06ce682068")
}

// UnpackInvalidToError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error InvalidTo()
func (pair *Pair) UnpackInvalidToError(raw []byte) (*PairInvalidTo, error) {
	out := new(PairInvalidTo)
	if err := pair.abi.UnpackIntoInterface(out, "InvalidTo", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// PairKInvariant represents a KInvariant error raised by the Pair contract.
type PairKInvariant struct {
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error KInvariant()
func PairKInvariantErrorID() common.Hash {
	return common.HexToHash("0xbf6056e792914b56b368680cec3c417f75fb5d230a347316aa91651fea0d3a0f")
}

// UnpackKInvariantError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error KInvariant()
func (pair *Pair) UnpackKInvariantError(raw []byte) (*PairKInvariant, error) {
	out := new(PairKInvariant)
	if err := pair.abi.UnpackIntoInterface(out, "KInvariant", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// PairReentrancyGuardReentrantCall represents a ReentrancyGuardReentrantCall error raised by the Pair contract.
type PairReentrancyGuardReentrantCall struct {
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error ReentrancyGuardReentrantCall()
func PairReentrancyGuardReentrantCallErrorID() common.Hash {
	return common.HexToHash("0x3ee5aeb571de7fc460830b4d0017439a1ca56fb0bc39062227ade4fe4a24c1ca")
}

// UnpackReentrancyGuardReentrantCallError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error ReentrancyGuardReentrantCall()
func (pair *Pair) UnpackReentrancyGuardReentrantCallError(raw []byte) (*PairReentrancyGuardReentrantCall, error) {
	out := new(PairReentrancyGuardReentrantCall)
	if err := pair.abi.UnpackIntoInterface(out, "ReentrancyGuardReentrantCall", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// PairReserveOverflow represents a ReserveOverflow error raised by the Pair contract.
type PairReserveOverflow struct {
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error ReserveOverflow()
func PairReserveOverflowErrorID() common.Hash {
	return common.HexToHash("0x446c8cc9ffc6d1483b0f822794f3cd52a1aaa59919641e92c9654c7996c5b91e")
}

// UnpackReserveOverflowError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error ReserveOverflow()
func (pair *Pair) UnpackReserveOverflowError(raw []byte) (*PairReserveOverflow, error) {
	out := new(PairReserveOverflow)
	if err := pair.abi.UnpackIntoInterface(out, "ReserveOverflow", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// PairSafeERC20FailedOperation represents a SafeERC20FailedOperation error raised by the Pair contract.
type PairSafeERC20FailedOperation struct {
	Token common.Address
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error SafeERC20FailedOperation(address token)
func PairSafeERC20FailedOperationErrorID() common.Hash {
	return common.HexToHash("0x5274afe73c98b4749fc91ffae6b7b574e7842cb2144a159e9377a5f20b32edf9")
}

// UnpackSafeERC20FailedOperationError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error SafeERC20FailedOperation(address token)
func (pair *Pair) UnpackSafeERC20FailedOperationError(raw []byte) (*PairSafeERC20FailedOperation, error) {
	out := new(PairSafeERC20FailedOperation)
	if err := pair.abi.UnpackIntoInterface(out, "SafeERC20FailedOperation", raw); err != nil {
		return nil, err
	}
	return out, nil
}
