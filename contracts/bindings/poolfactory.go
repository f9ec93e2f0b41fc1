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

// PoolFactoryMetaData contains all meta data concerning the PoolFactory contract.
var PoolFactoryMetaData = bind.MetaData{
	ABI: "[{\"inputs\":[{\"internalType\":\"uint16\",\"name\":\"feeBps_\",\"type\":\"uint16\"}],\"stateMutability\":\"nonpayable\",\"type\":\"constructor\"},{\"inputs\":[{\"internalType\":\"uint16\",\"name\":\"feeBps\",\"type\":\"uint16\"}],\"name\":\"FeeTooHigh\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"IdenticalAddresses\",\"type\":\"error\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"pair\",\"type\":\"address\"}],\"name\":\"PairExists\",\"type\":\"error\"},{\"inputs\":[],\"name\":\"ZeroAddress\",\"type\":\"error\"},{\"anonymous\":false,\"inputs\":[{\"indexed\":true,\"internalType\":\"address\",\"name\":\"token0\",\"type\":\"address\"},{\"indexed\":true,\"internalType\":\"address\",\"name\":\"token1\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"address\",\"name\":\"pair\",\"type\":\"address\"},{\"indexed\":false,\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"name\":\"PairCreated\",\"type\":\"event\"},{\"inputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"name\":\"allPairs\",\"outputs\":[{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"allPairsLength\",\"outputs\":[{\"internalType\":\"uint256\",\"name\":\"\",\"type\":\"uint256\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"tokenA\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"tokenB\",\"type\":\"address\"}],\"name\":\"createPair\",\"outputs\":[{\"internalType\":\"address\",\"name\":\"pair\",\"type\":\"address\"}],\"stateMutability\":\"nonpayable\",\"type\":\"function\"},{\"inputs\":[],\"name\":\"feeBps\",\"outputs\":[{\"internalType\":\"uint16\",\"name\":\"\",\"type\":\"uint16\"}],\"stateMutability\":\"view\",\"type\":\"function\"},{\"inputs\":[{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"},{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"}],\"name\":\"getPair\",\"outputs\":[{\"internalType\":\"address\",\"name\":\"\",\"type\":\"address\"}],\"stateMutability\":\"view\",\"type\":\"function\"}]",
	ID:  "PoolFactory",
	Bin: "0x60a034608457601f611ddb38819003918201601f19168301916001600160401b038311848410176088578084926020946040528339810103126084575161ffff81168082036084576103e8811160725750608052604051611d3e908161009d82396080518181816101b7015261033c0152f35b638ea70c0760e01b5f5260045260245ffd5b5f80fd5b634e487b7160e01b5f52604160045260245ffdfe60806040526004361015610011575f80fd5b5f3560e01c80631e3dd18b1461036057806324a9d85314610322578063574f2ba314610305578063c9c65396146100a55763e6a4390514610050575f80fd5b346100a15760403660031901126100a1576100696103ce565b6100716103e4565b6001600160a01b039182165f90815260208181526040808320938516835292815290829020549151919092168152f35b5f80fd5b346100a15760403660031901126100a1576100be6103ce565b6100c66103e4565b906001600160a01b038083169082168082146102f65710156102f157905b6001600160a01b0382169182156102e2575f838152602081815260408083206001600160a01b03868116855292529091205416806102d057506040519060208201906bffffffffffffffffffffffff199060601b16815260018060a01b038316926bffffffffffffffffffffffff199060601b16603483015260288252606082019082821067ffffffffffffffff8311176102b15781604052825190209161190e90818101606081019284841067ffffffffffffffff8511176102b15760609388916103fb87395285608082015261ffff7f00000000000000000000000000000000000000000000000000000000000000001660a08201520301905ff580156102c5575f83815260208181526040808320858452825280832080546001600160a01b03199081166001600160a01b039690961695861790915583835281842087855290925290912080549091168217905560015492909190680100000000000000008410156102b15761025f846001602096016001556103a2565b81549060031b9085821b9160018060a01b03901b19161790557f0d3648bd0f6ba80134a33ba9275ac585d9d315f0ad8355cddefde31afa28d0e9604060015481519086825287820152a3604051908152f35b634e487b7160e01b5f52604160045260245ffd5b6040513d5f823e3d90fd5b633a55c9ad60e01b5f5260045260245ffd5b63d92e233d60e01b5f5260045ffd5b6100e4565b630bd969eb60e41b5f5260045ffd5b346100a1575f3660031901126100a1576020600154604051908152f35b346100a1575f3660031901126100a157602060405161ffff7f0000000000000000000000000000000000000000000000000000000000000000168152f35b346100a15760203660031901126100a1576004356001548110156100a1576103896020916103a2565b905460405160039290921b1c6001600160a01b03168152f35b6001548110156103ba5760015f5260205f2001905f90565b634e487b7160e01b5f52603260045260245ffd5b600435906001600160a01b03821682036100a157565b602435906001600160a01b03821682036100a15756fe610100604052346103e25761190e6060813803918261001d816103e6565b9384928339810103126103e2576100338161040b565b9060406100426020830161040b565b9101519061ffff821682036103e25761005b60406103e6565b92600b84526a043757276656b6974204c560ac1b602085015261007e60406103e6565b60048152630434b4c560e41b6020820152845190946001600160401b0382116102dd5760035490600182811c921680156103d8575b60208310146102bf5781601f849311610362575b50602090601f83116001146102fc575f926102f1575b50508160011b915f199060031b1c1916176003555b83516001600160401b0381116102dd57600454600181811c911680156102d3575b60208210146102bf57601f8111610251575b50602094601f82116001146101ee579481929394955f926101e3575b50508160011b915f199060031b1c1916176004555b3360805260a05260c05260e0526040516114ee90816104208239608051816102e6015260a05181818161011d0152818161034b0152818161067801528181610a260152610cb5015260c051818181610172015281816102a2015281816103c2015281816106cd01528181610d4401528181610f7d0152610fd3015260e0518181816108f10152610de40152f35b015190505f80610141565b601f1982169560045f52805f20915f5b88811061023957508360019596979810610221575b505050811b01600455610156565b01515f1960f88460031b161c191690555f8080610213565b919260206001819286850151815501940192016101fe565b818111156101255760045f52601f820160051c7f8a35acfbc15ff81a39ae7d344fd709f28e8600b4aa8c65c6b64bfe7fe36bd19b602084106102b7575b81601f9101920160051c03905f5b8281106102aa575050610125565b5f8282015560010161029c565b5f915061028e565b634e487b7160e01b5f52602260045260245ffd5b90607f1690610113565b634e487b7160e01b5f52604160045260245ffd5b015190505f806100dd565b60035f9081528281209350601f198516905b81811061034a5750908460019594939210610332575b505050811b016003556100f2565b01515f1960f88460031b161c191690555f8080610324565b9293602060018192878601518155019501930161030e565b828111156100c75760035f52909150601f830160051c7fc2575a0e9e593c00f959f8c92f12db2869c3395a3b0502d05e2516446f71f85b602085106103d0575b849392601f0160051c82900391015f5b8281106103c05750506100c7565b5f818301558594506001016103b2565b5f91506103a2565b91607f16916100b3565b5f80fd5b6040519190601f01601f191682016001600160401b038111838210176102dd57604052565b51906001600160a01b03821682036103e25756fe60806040526004361015610011575f80fd5b5f3560e01c8063022c0d9f14610bef57806306fdde0314610b345780630902f1ac14610ad7578063095ea7b314610a555780630dfe168114610a1157806318160ddd146109f457806323b872dd1461091557806324a9d853146108d7578063313ce567146108bc5780636a6278421461061557806370a08231146105de57806395d89b41146104da578063a9059cbb146104a9578063ba9a7a561461048d578063bc25cf7714610315578063c45a0155146102d1578063d21220a71461028d578063dd62ed3e1461023d5763fff6cae9146100ea575f80fd5b346101f4575f3660031901126101f457610102611114565b6040516370a0823160e01b81523060048201526020816024817f00000000000000000000000000000000000000000000000000000000000000006001600160a01b03165afa908115610200575f9161020b575b506040516370a0823160e01b8152306004820152906020826024817f00000000000000000000000000000000000000000000000000000000000000006001600160a01b03165afa908115610200575f916101c6575b6101b492506111ca565b5f5f5160206114995f395f51905f525d005b90506020823d6020116101f8575b816101e1602093836110a0565b810103126101f4576101b49151906101aa565b5f80fd5b3d91506101d4565b6040513d5f823e3d90fd5b90506020813d602011610235575b81610226602093836110a0565b810103126101f457515f610155565b3d9150610219565b346101f45760403660031901126101f45761025661104a565b61025e611060565b6001600160a01b039182165f908152600160209081526040808320949093168252928352819020549051908152f35b346101f4575f3660031901126101f4576040517f00000000000000000000000000000000000000000000000000000000000000006001600160a01b03168152602090f35b346101f4575f3660031901126101f4576040517f00000000000000000000000000000000000000000000000000000000000000006001600160a01b03168152602090f35b346101f45760203660031901126101f45761032e61104a565b610336611114565b6040516370a0823160e01b81523060048201527f00000000000000000000000000000000000000000000000000000000000000006001600160a01b0316602082602481845afa9182156102005783905f93610455575b506103a66103ac936001600160701b0360055416906110d6565b91611149565b6040516370a0823160e01b8152306004820152907f00000000000000000000000000000000000000000000000000000000000000006001600160a01b031690602083602481855afa928315610200575f9361041f575b506103a66101b4936001600160701b0360055460701c16906110d6565b92506020833d60201161044d575b8161043a602093836110a0565b810103126101f4579151916103a6610402565b3d915061042d565b9250506020823d602011610485575b81610471602093836110a0565b810103126101f457905190826103a661038c565b3d9150610464565b346101f4575f3660031901126101f45760206040516103e88152f35b346101f45760403660031901126101f4576104cf6104c561104a565b6024359033611258565b602060405160018152f35b346101f4575f3660031901126101f4576040515f6004548060011c906001811680156105d4575b6020831081146105c05782855290811561059c575060011461053e575b61053a8361052e818503826110a0565b60405191829182611076565b0390f35b91905060045f527f8a35acfbc15ff81a39ae7d344fd709f28e8600b4aa8c65c6b64bfe7fe36bd19b915f905b8082106105825750909150810160200161052e61051e565b91926001816020925483858801015201910190929161056a565b60ff191660208086019190915291151560051b8401909101915061052e905061051e565b634e487b7160e01b5f52602260045260245ffd5b91607f1691610501565b346101f45760203660031901126101f4576001600160a01b036105ff61104a565b165f525f602052602060405f2054604051908152f35b346101f45760203660031901126101f45761062e61104a565b610636611114565b61065b6005546001600160701b038116916001600160701b038260701c169160e01c90565b506040516370a0823160e01b8152306004820152926020846024817f00000000000000000000000000000000000000000000000000000000000000006001600160a01b03165afa938415610200575f94610888575b506040516370a0823160e01b8152306004820152926020846024817f00000000000000000000000000000000000000000000000000000000000000006001600160a01b03165afa938415610200575f9461084d575b506001600160701b0316906001600160701b0361072283876110d6565b931661072e81866110d6565b926002549182155f1461081e5750505061075061074b83856110e3565b611302565b6103e88111156107fb576103e719810190811161080a57936107766103e861dead611427565b84156107fb576001600160a01b038216156107e85760209561079b866107a094611427565b6111ca565b604051918252838201527f4c209b5fc8ad50758f13e2e1088ba56a560dff690a1c6fef26394f4c03821c4f60403392a25f5f5160206114995f395f51905f525d604051908152f35b63ec442f0560e01b5f525f60045260245ffd5b633489be7560e21b5f5260045ffd5b634e487b7160e01b5f52601160045260245ffd5b61083261083761083e93610832868a6110e3565b6110f6565b93866110e3565b90818082109118021893610776565b9093506020813d602011610880575b81610869602093836110a0565b810103126101f45751926001600160701b03610705565b3d915061085c565b9093506020813d6020116108b4575b816108a4602093836110a0565b810103126101f4575192846106b0565b3d9150610897565b346101f4575f3660031901126101f457602060405160128152f35b346101f4575f3660031901126101f457602060405161ffff7f0000000000000000000000000000000000000000000000000000000000000000168152f35b346101f45760603660031901126101f45761092e61104a565b610936611060565b6001600160a01b0382165f818152600160209081526040808320338452909152902054909260443592915f198110610974575b506104cf9350611258565b8381106109d95784156109c65733156109b3576104cf945f52600160205260405f2060018060a01b0333165f526020528360405f209103905584610969565b634a1406b160e11b5f525f60045260245ffd5b63e602df0560e01b5f525f60045260245ffd5b8390637dc7a0d960e11b5f523360045260245260445260645ffd5b346101f4575f3660031901126101f4576020600254604051908152f35b346101f4575f3660031901126101f4576040517f00000000000000000000000000000000000000000000000000000000000000006001600160a01b03168152602090f35b346101f45760403660031901126101f457610a6e61104a565b6024359033156109c6576001600160a01b03169081156109b357335f52600160205260405f20825f526020528060405f20556040519081527f8c5be1e5ebec7d5bd14f71427d1e84f3dd0314c0f7b2291e5b200ac8c7c3b92560203392a3602060405160018152f35b346101f4575f3660031901126101f45760606001600160701b0363ffffffff610b1b6005546001600160701b038116916001600160701b038260701c169160e01c90565b9193908160405195168552166020840152166040820152f35b346101f4575f3660031901126101f4576040515f6003548060011c90600181168015610be5575b6020831081146105c05782855290811561059c5750600114610b875761053a8361052e818503826110a0565b91905060035f527fc2575a0e9e593c00f959f8c92f12db2869c3395a3b0502d05e2516446f71f85b915f905b808210610bcb5750909150810160200161052e61051e565b919260018160209254838588010152019101909291610bb3565b91607f1691610b5b565b346101f45760803660031901126101f4576044356001600160a01b038116906024356004358383036101f45760643567ffffffffffffffff81116101f457366023820112156101f45780600401359067ffffffffffffffff82116101f45760248236920101116101f457610c61611114565b61103b5780158080611033575b611024576001600160701b0393610ca06005546001600160701b038116916001600160701b038260701c169160e01c90565b50951691828410801590611011575b611002577f00000000000000000000000000000000000000000000000000000000000000006001600160a01b03168781148015610fd0575b610fc15760249260209215610fb1575b8680610f77575b50506040516370a0823160e01b815230600482015292839182905afa908115610200575f91610f45575b506040516370a0823160e01b81523060048201526020816024817f00000000000000000000000000000000000000000000000000000000000000006001600160a01b03165afa908115610200575f91610f13575b50610d8784846110d6565b821115610f04576001600160701b03610da9610da386866110d6565b846110d6565b965b1692610db786856110d6565b821115610efd57610dd1610dcb87866110d6565b836110d6565b935b871580610ef5575b610ee65761ffff7f000000000000000000000000000000000000000000000000000000000000000016906127108502858104612710148615171561080a57610e2d90610e27848c6110e3565b906110d6565b612710850290858204612710148615171561080a57610e56610e5c92610e27610e62968b6110e3565b906110e3565b926110e3565b906305f5e1008202918083046305f5e100149015171561080a5710610ed757610e8a916111ca565b6040519384526020840152604083015260608201527fd78ad95fa46c994b6551d0da85fc275fe613ce37657fb8d5e3d130840159d82260803392a35f5f5160206114995f395f51905f525d005b63bf6056e760e01b5f5260045ffd5b63098fb56160e01b5f5260045ffd5b508415610ddb565b5f93610dd3565b6001600160701b035f96610dab565b90506020813d602011610f3d575b81610f2e602093836110a0565b810103126101f4575187610d7c565b3d9150610f21565b90506020813d602011610f6f575b81610f60602093836110a0565b810103126101f4575186610d28565b3d9150610f53565b610faa917f00000000000000000000000000000000000000000000000000000000000000006001600160a01b0316611149565b8886610cfe565b610fbc868284611149565b610cf7565b630521f43160e31b5f5260045ffd5b507f00000000000000000000000000000000000000000000000000000000000000006001600160a01b03168814610ce7565b63bb55fd2760e01b5f5260045ffd5b506001600160701b038616851015610caf565b6342301c2360e01b5f5260045ffd5b508215610c6e565b630728d10360e01b5f5260045ffd5b600435906001600160a01b03821682036101f457565b602435906001600160a01b03821682036101f457565b602060409281835280519182918282860152018484015e5f828201840152601f01601f1916010190565b90601f8019910116810190811067ffffffffffffffff8211176110c257604052565b634e487b7160e01b5f52604160045260245ffd5b9190820391821161080a57565b8181029291811591840414171561080a57565b8115611100570490565b634e487b7160e01b5f52601260045260245ffd5b5f5160206114995f395f51905f525c61113a5760015f5160206114995f395f51905f525d565b633ee5aeb560e01b5f5260045ffd5b916040519163a9059cbb60e01b5f5260018060a01b031660045260245260205f60448180865af19060015f51148216156111a9575b604052156111895750565b635274afe760e01b5f9081526001600160a01b0391909116600452602490fd5b9060018115166111c157823b15153d1516169061117e565b503d5f823e3d90fd5b6001600160701b0381118015611248575b611239577f1c411e9a96e071241c2f21f7726b17ae89e3cab4c78be50e062b03a9fffbbad1916001600160701b0380604093169163ffffffff60e01b4260e01b16838360701b8360701b1617176005558351928352166020820152a1565b63446c8cc960e01b5f5260045ffd5b506001600160701b0382116111db565b6001600160a01b03169081156112ef576001600160a01b03169182156107e857815f525f60205260405f20548181106112d657817fddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef92602092855f525f84520360405f2055845f525f825260405f20818154019055604051908152a3565b8263391434e360e21b5f5260045260245260445260645ffd5b634b637e8f60e11b5f525f60045260245ffd5b600181111561142457806001600160801b821015611413575b600482600160401b6113c5941015611406575b6401000000008110156113f9575b620100008110156113ec575b6101008110156113e0575b60108110156113d4575b10156113cc575b60030260011c61137481846110f6565b0160011c61138281846110f6565b0160011c61139081846110f6565b0160011c61139e81846110f6565b0160011c6113ac81846110f6565b0160011c6113ba81846110f6565b0160011c80926110f6565b8111900390565b60011b611364565b811c9160021b9161135d565b60081c91811b91611353565b60101c9160081b91611348565b60201c9160101b9161133c565b60401c9160201b9161132e565b5050608081901c600160401b61131b565b90565b6002549082820180921161080a576002919091556001600160a01b0316905f907fddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef90602090846114835780600254036002555b604051908152a3565b8484528382526040842081815401905561147a56fe9b779b17422d0df92223018b32b4d1fa46e071723d6817e2486d003becc55f00a2646970667358221220645aba79bbb130e08acdc85504735b2e1863182b7b43409f22941958da5ed0c664736f6c63430008250033a2646970667358221220be1432aa17eeebb7852739482d2d59362ca4018a450d5c884321b45c50eb53bf64736f6c63430008250033",
}

// PoolFactory is an auto generated Go binding around an Ethereum contract.
type PoolFactory struct {
	abi abi.ABI
}

// GetABI returns the ABI associated with this contract binding.
func (c *PoolFactory) GetABI() abi.ABI {
	return c.abi
}

// NewPoolFactory creates a new instance of PoolFactory.
func NewPoolFactory() *PoolFactory {
	parsed, err := PoolFactoryMetaData.ParseABI()
	if err != nil {
		panic(errors.New("invalid ABI: " + err.Error()))
	}
	return &PoolFactory{abi: *parsed}
}

// Instance creates a wrapper for a deployed contract instance at the given address.
// Use this to create the instance object passed to abigen v2 library functions Call, Transact, etc.
func (c *PoolFactory) Instance(backend bind.ContractBackend, addr common.Address) *bind.BoundContract {
	return bind.NewBoundContract(addr, c.abi, backend, backend, backend)
}

// PackConstructor is the Go binding used to pack the parameters required for
// contract deployment.
//
// Solidity: constructor(uint16 feeBps_) returns()
func (poolFactory *PoolFactory) PackConstructor(feeBps_ uint16) []byte {
	enc, err := poolFactory.abi.Pack("", feeBps_)
	if err != nil {
		panic(err)
	}
	return enc
}

// PackAllPairs is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x1e3dd18b.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function allPairs(uint256 ) view returns(address)
func (poolFactory *PoolFactory) PackAllPairs(arg0 *big.Int) []byte {
	enc, err := poolFactory.abi.Pack("allPairs", arg0)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackAllPairs is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x1e3dd18b.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function allPairs(uint256 ) view returns(address)
func (poolFactory *PoolFactory) TryPackAllPairs(arg0 *big.Int) ([]byte, error) {
	return poolFactory.abi.Pack("allPairs", arg0)
}

// UnpackAllPairs is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x1e3dd18b.
//
// Solidity: function allPairs(uint256 ) view returns(address)
func (poolFactory *PoolFactory) UnpackAllPairs(data []byte) (common.Address, error) {
	out, err := poolFactory.abi.Unpack("allPairs", data)
	if err != nil {
		return *new(common.Address), err
	}
	out0 := *abi.ConvertType(out[0], new(common.Address)).(*common.Address)
	return out0, nil
}

// PackAllPairsLength is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x574f2ba3.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function allPairsLength() view returns(uint256)
func (poolFactory *PoolFactory) PackAllPairsLength() []byte {
	enc, err := poolFactory.abi.Pack("allPairsLength")
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackAllPairsLength is the Go binding used to pack the parameters required for calling
// the contract method with ID 0x574f2ba3.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function allPairsLength() view returns(uint256)
func (poolFactory *PoolFactory) TryPackAllPairsLength() ([]byte, error) {
	return poolFactory.abi.Pack("allPairsLength")
}

// UnpackAllPairsLength is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x574f2ba3.
//
// Solidity: function allPairsLength() view returns(uint256)
func (poolFactory *PoolFactory) UnpackAllPairsLength(data []byte) (*big.Int, error) {
	out, err := poolFactory.abi.Unpack("allPairsLength", data)
	if err != nil {
		return new(big.Int), err
	}
	out0 := abi.ConvertType(out[0], new(big.Int)).(*big.Int)
	return out0, nil
}

// PackCreatePair is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xc9c65396.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function createPair(address tokenA, address tokenB) returns(address pair)
func (poolFactory *PoolFactory) PackCreatePair(tokenA common.Address, tokenB common.Address) []byte {
	enc, err := poolFactory.abi.Pack("createPair", tokenA, tokenB)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackCreatePair is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xc9c65396.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function createPair(address tokenA, address tokenB) returns(address pair)
func (poolFactory *PoolFactory) TryPackCreatePair(tokenA common.Address, tokenB common.Address) ([]byte, error) {
	return poolFactory.abi.Pack("createPair", tokenA, tokenB)
}

// UnpackCreatePair is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xc9c65396.
//
// Solidity: function createPair(address tokenA, address tokenB) returns(address pair)
func (poolFactory *PoolFactory) UnpackCreatePair(data []byte) (common.Address, error) {
	out, err := poolFactory.abi.Unpack("createPair", data)
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
func (poolFactory *PoolFactory) PackFeeBps() []byte {
	enc, err := poolFactory.abi.Pack("feeBps")
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
func (poolFactory *PoolFactory) TryPackFeeBps() ([]byte, error) {
	return poolFactory.abi.Pack("feeBps")
}

// UnpackFeeBps is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0x24a9d853.
//
// Solidity: function feeBps() view returns(uint16)
func (poolFactory *PoolFactory) UnpackFeeBps(data []byte) (uint16, error) {
	out, err := poolFactory.abi.Unpack("feeBps", data)
	if err != nil {
		return *new(uint16), err
	}
	out0 := *abi.ConvertType(out[0], new(uint16)).(*uint16)
	return out0, nil
}

// PackGetPair is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xe6a43905.  This method will panic if any
// invalid/nil inputs are passed.
//
// Solidity: function getPair(address , address ) view returns(address)
func (poolFactory *PoolFactory) PackGetPair(arg0 common.Address, arg1 common.Address) []byte {
	enc, err := poolFactory.abi.Pack("getPair", arg0, arg1)
	if err != nil {
		panic(err)
	}
	return enc
}

// TryPackGetPair is the Go binding used to pack the parameters required for calling
// the contract method with ID 0xe6a43905.  This method will return an error
// if any inputs are invalid/nil.
//
// Solidity: function getPair(address , address ) view returns(address)
func (poolFactory *PoolFactory) TryPackGetPair(arg0 common.Address, arg1 common.Address) ([]byte, error) {
	return poolFactory.abi.Pack("getPair", arg0, arg1)
}

// UnpackGetPair is the Go binding that unpacks the parameters returned
// from invoking the contract method with ID 0xe6a43905.
//
// Solidity: function getPair(address , address ) view returns(address)
func (poolFactory *PoolFactory) UnpackGetPair(data []byte) (common.Address, error) {
	out, err := poolFactory.abi.Unpack("getPair", data)
	if err != nil {
		return *new(common.Address), err
	}
	out0 := *abi.ConvertType(out[0], new(common.Address)).(*common.Address)
	return out0, nil
}

// PoolFactoryPairCreated represents a PairCreated event raised by the PoolFactory contract.
type PoolFactoryPairCreated struct {
	Token0 common.Address
	Token1 common.Address
	Pair   common.Address
	Arg3   *big.Int
	Raw    *types.Log // Blockchain specific contextual infos
}

const PoolFactoryPairCreatedEventName = "PairCreated"

// ContractEventName returns the user-defined event name.
func (PoolFactoryPairCreated) ContractEventName() string {
	return PoolFactoryPairCreatedEventName
}

// UnpackPairCreatedEvent is the Go binding that unpacks the event data emitted
// by contract.
//
// Solidity: event PairCreated(address indexed token0, address indexed token1, address pair, uint256 arg3)
func (poolFactory *PoolFactory) UnpackPairCreatedEvent(log *types.Log) (*PoolFactoryPairCreated, error) {
	event := "PairCreated"
	if len(log.Topics) == 0 {
		return nil, bind.ErrNoEventSignature
	}
	if log.Topics[0] != poolFactory.abi.Events[event].ID {
		return nil, bind.ErrEventSignatureMismatch
	}
	out := new(PoolFactoryPairCreated)
	if len(log.Data) > 0 {
		if err := poolFactory.abi.UnpackIntoInterface(out, event, log.Data); err != nil {
			return nil, err
		}
	}
	var indexed abi.Arguments
	for _, arg := range poolFactory.abi.Events[event].Inputs {
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
func (poolFactory *PoolFactory) UnpackError(raw []byte) (any, error) {
	if bytes.Equal(raw[:4], poolFactory.abi.Errors["FeeTooHigh"].ID.Bytes()[:4]) {
		return poolFactory.UnpackFeeTooHighError(raw[4:])
	}
	if bytes.Equal(raw[:4], poolFactory.abi.Errors["IdenticalAddresses"].ID.Bytes()[:4]) {
		return poolFactory.UnpackIdenticalAddressesError(raw[4:])
	}
	if bytes.Equal(raw[:4], poolFactory.abi.Errors["PairExists"].ID.Bytes()[:4]) {
		return poolFactory.UnpackPairExistsError(raw[4:])
	}
	if bytes.Equal(raw[:4], poolFactory.abi.Errors["ZeroAddress"].ID.Bytes()[:4]) {
		return poolFactory.UnpackZeroAddressError(raw[4:])
	}
	return nil, errors.New("Unknown error")
}

// PoolFactoryFeeTooHigh represents a FeeTooHigh error raised by the PoolFactory contract.
type PoolFactoryFeeTooHigh struct {
	FeeBps uint16
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error FeeTooHigh(uint16 feeBps)
func PoolFactoryFeeTooHighErrorID() common.Hash {
	return common.HexToHash("0x8ea70c0768c42b8c51930f9a5e7017fcf6effaffa2266c6b8362b8c9658f6b31")
}

// UnpackFeeTooHighError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error FeeTooHigh(uint16 feeBps)
func (poolFactory *PoolFactory) UnpackFeeTooHighError(raw []byte) (*PoolFactoryFeeTooHigh, error) {
	out := new(PoolFactoryFeeTooHigh)
	if err := poolFactory.abi.UnpackIntoInterface(out, "FeeTooHigh", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// PoolFactoryIdenticalAddresses represents a IdenticalAddresses error raised by the PoolFactory contract.
type PoolFactoryIdenticalAddresses struct {
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error IdenticalAddresses()
func PoolFactoryIdenticalAddressesErrorID() common.Hash {
	return common.HexToHash("0xbd969eb0454a6466b4e766475e76b717a8e925fab0302aabd445c42d1babb61d")
}

// UnpackIdenticalAddressesError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error IdenticalAddresses()
func (poolFactory *PoolFactory) UnpackIdenticalAddressesError(raw []byte) (*PoolFactoryIdenticalAddresses, error) {
	out := new(PoolFactoryIdenticalAddresses)
	if err := poolFactory.abi.UnpackIntoInterface(out, "IdenticalAddresses", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// PoolFactoryPairExists represents a PairExists error raised by the PoolFactory contract.
type PoolFactoryPairExists struct {
	Pair common.Address
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error PairExists(address pair)
func PoolFactoryPairExistsErrorID() common.Hash {
	return common.HexToHash("0x3a55c9ad5a4cd936ef89ca59230dad03a4213b613b5acb911032c286ed58f2b2")
}

// UnpackPairExistsError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error PairExists(address pair)
func (poolFactory *PoolFactory) UnpackPairExistsError(raw []byte) (*PoolFactoryPairExists, error) {
	out := new(PoolFactoryPairExists)
	if err := poolFactory.abi.UnpackIntoInterface(out, "PairExists", raw); err != nil {
		return nil, err
	}
	return out, nil
}

// PoolFactoryZeroAddress represents a ZeroAddress error raised by the PoolFactory contract.
type PoolFactoryZeroAddress struct {
}

// ErrorID returns the hash of canonical representation of the error's signature.
//
// Solidity: error ZeroAddress()
func PoolFactoryZeroAddressErrorID() common.Hash {
	return common.HexToHash("0xd92e233df2717d4a40030e20904abd27b68fcbeede117eaaccbbdac9618c8c73")
}

// UnpackZeroAddressError is the Go binding used to decode the provided
// error data into the corresponding Go error struct.
//
// Solidity: error ZeroAddress()
func (poolFactory *PoolFactory) UnpackZeroAddressError(raw []byte) (*PoolFactoryZeroAddress, error) {
	out := new(PoolFactoryZeroAddress)
	if err := poolFactory.abi.UnpackIntoInterface(out, "ZeroAddress", raw); err != nil {
		return nil, err
	}
	return out, nil
}
